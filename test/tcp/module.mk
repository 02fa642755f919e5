# test/tcp/: the TCP transport's loopback suites, test_tcp_loop (frames and
# gets), test_tcp_conn (connections, outsiders, failures, open),
# test_tcp_rev13 (gets asked from completions), test_tcp_s15 (get_iov
# into pieces), test_tcp_rev15 (get_iov with a broken or dying owner),
# test_tcp_s20 (regions filled as they are read: mem_pack_fill), share
# the in-process ranks of tcp_world.c (see tcp_world.h). test/module.mk
# builds each suite; this links the shared object into each.

TEST_TCP_WORLD_OBJ := $(BUILD)/obj/test/tcp/tcp_world.o

$(BUILD)/test/tcp/test_tcp_loop $(BUILD)/test/tcp/test_tcp_conn $(BUILD)/test/tcp/test_tcp_rev13 \
  $(BUILD)/test/tcp/test_tcp_s15 $(BUILD)/test/tcp/test_tcp_rev15 \
  $(BUILD)/test/tcp/test_tcp_s20: $(TEST_TCP_WORLD_OBJ)
