# test/: CUnit suites (test/<layer>/test_*.c, one binary each) and rank
# programs for integration tests (test/<layer>/prog_*.c), all linked
# against the static library. Shell integration tests (test/<layer>/*.sh)
# are run by test/run_tests.sh too.

TEST_SUITE_SRC := $(wildcard test/*/test_*.c)
TEST_PROG_SRC  := $(wildcard test/*/prog_*.c)
TEST_SUITES := $(TEST_SUITE_SRC:test/%.c=$(BUILD)/test/%)
TEST_PROGS  := $(TEST_PROG_SRC:test/%.c=$(BUILD)/test/%)
TEST_COMMON_SRC := $(wildcard test/common/*.c)
TEST_COMMON_OBJ := $(TEST_COMMON_SRC:%.c=$(BUILD)/obj/%.o)

$(BUILD)/test/%: $(BUILD)/obj/test/%.o $(TEST_COMMON_OBJ) $(LIBLOOM_A)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIBLOOM_A) $(LOOM_LIBS) -lcunit

CHECK_PREREQS += $(TEST_SUITES) $(TEST_PROGS)
.PHONY: tests
tests: $(TEST_SUITES) $(TEST_PROGS)
