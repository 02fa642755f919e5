# launcher/: loomrun (the PMIx server host that starts jobs) and loom_info.
# Both link the static library for the core basics (log, config, the
# bootstrap's shm naming rule, the transport registry).

LOOMRUN_SRC := launcher/loomrun.c launcher/loomrun_pmix.c launcher/loomrun_proc.c \
               launcher/loomrun_loop.c launcher/loomrun_hosts.c launcher/loomrun_ctl.c \
               launcher/loomrun_net.c launcher/loomrun_head.c launcher/loomrun_route.c \
               launcher/loomrun_daemon.c launcher/loomrun_report.c \
               launcher/loomrun_report_sum.c launcher/loomrun_hang.c \
               launcher/loomrun_guard.c launcher/loomrun_util.c launcher/loomrun_bind.c \
               launcher/loomrun_note.c launcher/loomrun_single.c
LOOMRUN_OBJ := $(LOOMRUN_SRC:%.c=$(BUILD)/obj/%.o)
LOOMRUN     := $(BUILD)/bin/loomrun
LOOM_INFO   := $(BUILD)/bin/loom_info

$(LOOMRUN): $(LOOMRUN_OBJ) $(LIBLOOM_A)
	@mkdir -p $(dir $@)
	$(LINK_LOOM)

$(LOOM_INFO): $(BUILD)/obj/launcher/loom_info.o $(LIBLOOM_A)
	@mkdir -p $(dir $@)
	$(LINK_LOOM)

ALL_TARGETS += $(LOOMRUN) $(LOOM_INFO)
# the launcher suite runs loomrun and the rank programs
CHECK_PREREQS += $(LOOMRUN) $(LOOM_INFO)
.PHONY: loomrun loom_info
loomrun: $(LOOMRUN)
loom_info: $(LOOM_INFO)

# the launcher's pure parts (host lists, placement, control frames) are
# unit-tested in one process: that suite links their objects too
$(BUILD)/test/launcher/test_hosts: $(BUILD)/obj/launcher/loomrun_hosts.o \
                                   $(BUILD)/obj/launcher/loomrun_ctl.o

# the hang report parser and summary are pure: unit-tested in one process
$(BUILD)/test/launcher/test_report: $(BUILD)/obj/launcher/loomrun_report.o \
                                    $(BUILD)/obj/launcher/loomrun_report_sum.o
