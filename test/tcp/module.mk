# test/tcp/: the TCP transport's loopback suites, test_tcp_loop (frames and
# gets), test_tcp_conn (connections, outsiders, failures, open) and
# test_tcp_rev13 (gets asked from completions), share
# the in-process ranks of tcp_world.c (see tcp_world.h). test/module.mk
# builds each suite; this links the shared object into both.

TEST_TCP_WORLD_OBJ := $(BUILD)/obj/test/tcp/tcp_world.o

$(BUILD)/test/tcp/test_tcp_loop $(BUILD)/test/tcp/test_tcp_conn $(BUILD)/test/tcp/test_tcp_rev13: $(TEST_TCP_WORLD_OBJ)
