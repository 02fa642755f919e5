# launcher/: loomrun, the PMIx server host that starts jobs. It links the
# static library for the basics only (log, config, the bootstrap's naming
# rules); layers.txt lets its files include base/ headers and nothing above.

LOOMRUN_SRC := launcher/loomrun.c launcher/loomrun_pmix.c launcher/loomrun_proc.c \
               launcher/loomrun_loop.c launcher/loomrun_hosts.c launcher/loomrun_ctl.c \
               launcher/loomrun_net.c launcher/loomrun_head.c launcher/loomrun_route.c \
               launcher/loomrun_daemon.c launcher/loomrun_report.c \
               launcher/loomrun_report_sum.c launcher/loomrun_hang.c \
               launcher/loomrun_guard.c launcher/loomrun_util.c launcher/loomrun_bind.c \
               launcher/loomrun_note.c launcher/loomrun_single.c
LOOMRUN_OBJ := $(LOOMRUN_SRC:%.c=$(BUILD)/obj/%.o)
LOOMRUN     := $(BUILD)/bin/loomrun

$(LOOMRUN): $(LOOMRUN_OBJ) $(LIBLOOM_A)
	@mkdir -p $(dir $@)
	$(LINK_LOOM)

ALL_TARGETS += $(LOOMRUN)
# the launcher suite runs loomrun and the rank programs
CHECK_PREREQS += $(LOOMRUN)
.PHONY: loomrun
loomrun: $(LOOMRUN)

# the launcher's pure parts (host lists, placement, control frames) are
# unit-tested in one process: that suite links their objects too
$(BUILD)/test/launcher/test_hosts: $(BUILD)/obj/launcher/loomrun_hosts.o \
                                   $(BUILD)/obj/launcher/loomrun_ctl.o

# the hang report parser and summary are pure: unit-tested in one process
$(BUILD)/test/launcher/test_report: $(BUILD)/obj/launcher/loomrun_report.o \
                                    $(BUILD)/obj/launcher/loomrun_report_sum.o
