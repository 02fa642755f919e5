# test/fuzz/: libFuzzer targets for every wire-format decoder and for LOOM_*
# parsing (see each fuzz_*.c for what it feeds and what it checks).
#
#   make fuzz        build them into $(BUILD)/fuzz/ (clang, -fsanitize=fuzzer,
#                    address,undefined; the library is rebuilt with clang and
#                    coverage into $(BUILD)/fuzz/obj/)
#   make check-fuzz  run each for FUZZ_TIME seconds (default 4; 9 targets =
#                    36 s) from the seed corpus test/fuzz/corpus/<target>/;
#                    new inputs go to $(BUILD)/fuzz/corpus/<target>/ (the
#                    seeds in test/ are only read), crashes to
#                    $(BUILD)/fuzz/artifacts/. Fails if any target fails.
#   make fuzz-long FUZZ_TIME=600   the same, longer
#
# Needs clang and its libFuzzer runtime (Debian: clang-14 and
# libclang-rt-14-dev, or libclang-common-14-dev on older releases);
# test/fuzz/install.sh installs them.

FUZZ_CC      ?= clang
FUZZ_TIME    ?= 4
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
# no target needs verbs: the fuzz library leaves transport/ib out, all but
# its verbs-free frame decoder (ib_wire.c, fuzz_ib_frame)
FUZZ_DEFS    := $(subst -DLOOM_HAVE_IBV=1,-DLOOM_HAVE_IBV=0,$(DEFS))
FUZZ_CFLAGS  := -std=c11 -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(WARNFLAGS) $(FUZZ_DEFS) \
                -pthread -Iinclude $(LAYER_INC_ALL) $(PMIX_CFLAGS)
FUZZ_TARGETS := $(patsubst test/fuzz/%.c,%,$(wildcard test/fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)
# the launcher's decoders and output path, without its event loop (which
# pulls the head, the daemons, the PMIx server and main()): launcher_shim.c
# stands in for the one loop function the hang filter calls
FUZZ_LAUNCHER := loomrun_proc loomrun_guard loomrun_hang loomrun_report loomrun_report_sum \
                 loomrun_ctl loomrun_util loomrun_bind
FUZZ_LIB_OBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(filter-out transport/ib/%,$(LIB_SRC)) \
                  transport/ib/ib_wire.c) \
                $(FUZZ_LAUNCHER:%=$(FUZZ_DIR)/obj/launcher/%.o) \
                $(FUZZ_DIR)/obj/test/fuzz/launcher_shim.o
FUZZ_LIB     := $(FUZZ_DIR)/libloom-fuzz.a

# keep the targets' objects (make would delete them as intermediates and
# recompile them on every run)
.PRECIOUS: $(FUZZ_DIR)/obj/%.o
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC-FUZZ $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/test/fuzz/fuzz_%.o $(FUZZ_LIB)
	@$(if $(Q),echo "  LD-FUZZ $@")
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -pthread -o $@ $< $(FUZZ_LIB) $(PMIX_LIBS) -lm -lrt

.PHONY: fuzz check-fuzz fuzz-long
fuzz: $(FUZZ_BINS)

# each target: a scratch corpus (written) + the seeds (read only)
check-fuzz fuzz-long: fuzz
	@fail=0; mkdir -p $(FUZZ_DIR)/artifacts; \
	for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	    if LOOM_LOG=error $(FUZZ_DIR)/$$t -max_total_time=$(FUZZ_TIME) -timeout=20 \
	        -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_DIR)/artifacts/$$t- \
	        $(FUZZ_DIR)/corpus/$$t test/fuzz/corpus/$$t \
	        >$(FUZZ_DIR)/$$t.log 2>&1; then \
	        echo "PASS  $$t ($$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' \
	            $(FUZZ_DIR)/$$t.log | grep -o '[0-9]*$$') runs)"; \
	    else \
	        echo "FAIL  $$t (log: $(FUZZ_DIR)/$$t.log)"; \
	        grep -A25 -m1 'ERROR: \|==ERROR\|runtime error\|deadly signal' \
	            $(FUZZ_DIR)/$$t.log | sed 's/^/      | /'; \
	        fail=1; \
	    fi; \
	done; exit $$fail

-include $(FUZZ_LIB_OBJ:.o=.d) $(wildcard $(FUZZ_DIR)/obj/test/fuzz/*.d)

# `make check` runs the targets in CHECK_EXTRA after the release and
# sanitizer passes: the short fuzz run is one of them
CHECK_EXTRA += check-fuzz
