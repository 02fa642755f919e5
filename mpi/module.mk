# mpi/: the MPI binding (include/mpi.h, libloom_mpi.{a,so}), the loomcc
# compiler wrapper, pkg-config files, the MPI test programs, and
# `make install PREFIX=...`.
#
#   make                       also builds $(BUILD)/lib/libloom_mpi.{a,so},
#                              $(BUILD)/bin/loomcc, $(BUILD)/lib/pkgconfig/*.pc
#   make mpi-progs             the MPI test programs (built with loomcc)
#   make install PREFIX=/opt/loom [DESTDIR=...]
#
# libloom_mpi.so holds only the binding and links libloom.so (found through
# its $ORIGIN runpath), so one libloom serves both APIs in a process.

MPI_SRC        := $(wildcard mpi/*.c)
MPI_OBJ        := $(MPI_SRC:%.c=$(BUILD)/obj/%.o)
LIBLOOM_MPI_A  := $(BUILD)/lib/libloom_mpi.a
LIBLOOM_MPI_SO := $(BUILD)/lib/libloom_mpi.so
LOOMCC         := $(BUILD)/bin/loomcc
LOOM_PC_DIR    := $(BUILD)/lib/pkgconfig
LOOM_PCS       := $(LOOM_PC_DIR)/loom.pc $(LOOM_PC_DIR)/loom-mpi.pc
LOOM_VERSION   := $(shell sed -n 's/^\#define LOOM_VERSION_STRING "\(.*\)"/\1/p' include/loom.h)

$(LIBLOOM_MPI_A): $(MPI_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBLOOM_MPI_SO): $(MPI_OBJ) $(LIBLOOM_SO)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libloom_mpi.so $(SO_LDFLAGS) $(LDFLAGS_ALL) -o $@ $(MPI_OBJ) \
	    -L$(BUILD)/lib -lloom -Wl,-rpath,'$$ORIGIN' $(LOOM_LIBS)

# Fill a template: $(call mpi_subst,template,output,prefix,includedir,libdir)
mpi_subst = sed -e 's|@CC@|$(CC)|g' -e 's|@PREFIX@|$(3)|g' \
    -e 's|@INCLUDEDIR@|$(4)|g' -e 's|@LIBDIR@|$(5)|g' \
    -e 's|@VERSION@|$(LOOM_VERSION)|g' -e 's|@LDEXTRA@|$(strip $(SANFLAGS))|g' -e 's|@LOOM_LIBS@|$(strip $(LOOM_LIBS))|g' \
    $(1) > $(2).tmp && mv $(2).tmp $(2)

$(LOOMCC): mpi/loomcc.in mpi/module.mk
	@mkdir -p $(dir $@)
	$(Q)$(call mpi_subst,$<,$@,$(TOP)/$(BUILD),$(TOP)/include,$(TOP)/$(BUILD)/lib)
	$(Q)chmod 755 $@

$(LOOM_PC_DIR)/%.pc: mpi/%.pc.in mpi/module.mk
	@mkdir -p $(dir $@)
	$(Q)$(call mpi_subst,$<,$@,$(TOP)/$(BUILD),$(TOP)/include,$(TOP)/$(BUILD)/lib)

ALL_TARGETS += $(LIBLOOM_MPI_A) $(LIBLOOM_MPI_SO) $(LOOMCC) $(LOOM_PCS)

# CUnit suites of the binding (test/mpi/test_*.c): test/module.mk links
# every prerequisite object, so adding the binding's objects links them in.
MPI_TEST_SUITES := $(patsubst test/mpi/%.c,$(BUILD)/test/mpi/%,$(wildcard test/mpi/test_*.c))
$(MPI_TEST_SUITES): $(MPI_OBJ)

# Ordinary MPI programs, built the way users build them: with loomcc.
MPI_PROG_SRC := $(wildcard test/mpi/mpi_*.c)
MPI_PROGS    := $(MPI_PROG_SRC:test/mpi/%.c=$(BUILD)/test/mpi/%)
MPI_PROG_CFLAGS := -std=c11 $(OPTFLAGS) $(SANFLAGS) $(WARNFLAGS) -D_GNU_SOURCE

$(MPI_PROGS): $(BUILD)/test/mpi/%: test/mpi/%.c test/mpi/mpi_test_util.h $(LOOMCC) \
              $(LIBLOOM_MPI_SO) $(LIBLOOM_SO)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LOOMCC  $@")
	$(Q)$(LOOMCC) $(MPI_PROG_CFLAGS) -o $@ $<

CHECK_PREREQS += $(MPI_PROGS)

.PHONY: mpi mpi-progs install
mpi: $(LIBLOOM_MPI_A) $(LIBLOOM_MPI_SO) $(LOOMCC) $(LOOM_PCS)
mpi-progs: $(MPI_PROGS)

# ---- install ---------------------------------------------------------------------
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL_ROOT := $(DESTDIR)$(PREFIX)

install: all
	install -d $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/include $(INSTALL_ROOT)/lib/pkgconfig
	install -m 644 include/loom.h include/mpi.h $(INSTALL_ROOT)/include/
	install -m 644 $(LIBLOOM_A) $(LIBLOOM_MPI_A) $(INSTALL_ROOT)/lib/
	install -m 755 $(LIBLOOM_SO) $(LIBLOOM_MPI_SO) $(INSTALL_ROOT)/lib/
	@for b in loomrun loom_info; do \
	    if [ -x $(BUILD)/bin/$$b ]; then \
	        echo "install -m 755 $(BUILD)/bin/$$b $(INSTALL_ROOT)/bin/"; \
	        install -m 755 $(BUILD)/bin/$$b $(INSTALL_ROOT)/bin/ || exit 1; \
	    elif [ -n "$(wildcard launcher/*.c)" ]; then \
	        echo "install: $(BUILD)/bin/$$b was not built" >&2; exit 1; \
	    fi; \
	done
	$(call mpi_subst,mpi/loomcc.in,$(INSTALL_ROOT)/bin/loomcc,$(PREFIX),$(PREFIX)/include,$(PREFIX)/lib)
	chmod 755 $(INSTALL_ROOT)/bin/loomcc
	$(call mpi_subst,mpi/loom.pc.in,$(INSTALL_ROOT)/lib/pkgconfig/loom.pc,$(PREFIX),$(PREFIX)/include,$(PREFIX)/lib)
	$(call mpi_subst,mpi/loom-mpi.pc.in,$(INSTALL_ROOT)/lib/pkgconfig/loom-mpi.pc,$(PREFIX),$(PREFIX)/include,$(PREFIX)/lib)
