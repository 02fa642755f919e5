# mpi/: the MPI binding (include/mpi.h, libloom_mpi.{a,so}), the loomcc and
# loomcxx compiler wrappers, pkg-config files, the MPI test programs, and
# `make install PREFIX=...`.
#
#   make                       also builds $(BUILD)/lib/libloom_mpi.{a,so},
#                              $(BUILD)/bin/loomcc, $(BUILD)/bin/loomcxx,
#                              $(BUILD)/lib/pkgconfig/*.pc
#   make mpi-progs             the MPI test programs (built with loomcc)
#   make install PREFIX=/opt/loom [DESTDIR=...]
#                              also installs mpicc/mpicxx -> loomcc/loomcxx
#
# libloom_mpi.so holds only the binding and links libloom.so (found through
# its $ORIGIN runpath), so one libloom serves both APIs in a process.
#
# Generated code: mpi/gen_mpi.py reads the table mpi/mpi_api.txt (every
# MPI-3.1 C function) and the hand-written mpi/*.c and writes
#   $(BUILD)/include/mpi_proto.h   every MPI_X/PMPI_X prototype (mpi.h includes it)
#   $(BUILD)/gen/mpi_stubs.c       a stub for each function no mpi/*.c implements
#   $(BUILD)/gen/mpi_all_symbols.c a program linking every symbol (test_mpi_api.sh)
# It rewrites a file only when its text changes. Every object that includes
# mpi.h waits for the header (order-only; -MMD then records the real dependency).

MPI_SRC        := $(wildcard mpi/*.c)
MPI_GEN_DIR    := $(BUILD)/gen
MPI_GEN_INC    := $(BUILD)/include
MPI_PROTO_H    := $(MPI_GEN_INC)/mpi_proto.h
MPI_STUBS_C    := $(MPI_GEN_DIR)/mpi_stubs.c
MPI_ALLSYMS_C  := $(MPI_GEN_DIR)/mpi_all_symbols.c
MPI_GEN_STAMP  := $(MPI_GEN_DIR)/.stamp
MPI_GEN_FILES  := $(MPI_PROTO_H) $(MPI_STUBS_C) $(MPI_ALLSYMS_C)
MPI_STUBS_O    := $(BUILD)/obj/gen/mpi_stubs.o
MPI_OBJ        := $(MPI_SRC:%.c=$(BUILD)/obj/%.o) $(MPI_STUBS_O)
MPI_GEN_CMD     = python3 mpi/gen_mpi.py --table mpi/mpi_api.txt \
                  --include-dir $(MPI_GEN_INC) --gen-dir $(MPI_GEN_DIR) $(MPI_SRC)

$(MPI_GEN_STAMP): mpi/mpi_api.txt mpi/gen_mpi.py $(MPI_SRC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $(MPI_GEN_FILES)")
	$(Q)$(MPI_GEN_CMD)
	$(Q)touch $@

# The stamp's recipe writes them (only when changed); regenerate if one is lost.
$(MPI_GEN_FILES): $(MPI_GEN_STAMP)
	$(Q)test -f $@ || $(MPI_GEN_CMD)

$(MPI_STUBS_O): LAYER_INC = $(LAYER_INC_mpi)   # part of the mpi layer (layers.txt)
$(MPI_STUBS_O): $(MPI_STUBS_C) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(LAYER_INC) -MMD -MP -c $< -o $@

# Objects whose sources include mpi.h (directly or through mpi_int.h).
MPI_HDR_USERS := $(patsubst %.c,$(BUILD)/obj/%.o,$(MPI_SRC) \
    $(shell grep -lE 'include\s*[<"](.*/)?mpi(_int)?\.h[>"]' $(wildcard */*.c */*/*.c) 2>/dev/null))
$(MPI_HDR_USERS): | $(MPI_PROTO_H)

LIBLOOM_MPI_A  := $(BUILD)/lib/libloom_mpi.a
LIBLOOM_MPI_SO := $(BUILD)/lib/libloom_mpi.so
LOOMCC         := $(BUILD)/bin/loomcc
LOOMCXX        := $(BUILD)/bin/loomcxx
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

# Fill a template: $(call mpi_subst,template,output,prefix,includedir,libdir[,geninc])
# (geninc: where mpi_proto.h is, default includedir). For the wrappers,
# mpi_wrapper_subst adds the wrapper's name, language and compiler.
mpi_subst = sed -e 's|@CC@|$(CC)|g' -e 's|@PREFIX@|$(3)|g' \
    -e 's|@INCLUDEDIR@|$(4)|g' -e 's|@LIBDIR@|$(5)|g' -e 's|@GENINCDIR@|$(or $(6),$(4))|g' \
    -e 's|@VERSION@|$(LOOM_VERSION)|g' -e 's|@LDEXTRA@|$(strip $(SANFLAGS))|g' -e 's|@LOOM_LIBS@|$(strip $(LOOM_LIBS))|g' \
    $(1) > $(2).tmp && mv $(2).tmp $(2)
# $(call mpi_wrapper_subst,output,prefix,includedir,libdir,geninc,name,lang,compiler,env)
mpi_wrapper_subst = sed -e 's|@WRAPPER@|$(6)|g' -e 's|@LANG@|$(7)|g' \
    -e 's|@CC@|$(8)|g' -e 's|@COMPILER_ENV@|$(9)|g' tools/loomcc.in > $(1).in.tmp && \
    $(call mpi_subst,$(1).in.tmp,$(1),$(2),$(3),$(4),$(5)) && rm -f $(1).in.tmp && chmod 755 $(1)

# the wrappers themselves (loomcc, loomcxx) are tools: tools/module.mk

$(LOOM_PC_DIR)/%.pc: mpi/%.pc.in mpi/module.mk
	@mkdir -p $(dir $@)
	$(Q)$(call mpi_subst,$<,$@,$(abspath $(BUILD)),$(TOP)/include,$(abspath $(BUILD))/lib,$(abspath $(MPI_GEN_INC)))

ALL_TARGETS += $(LIBLOOM_MPI_A) $(LIBLOOM_MPI_SO) $(LOOMCC) $(LOOMCXX) $(LOOM_PCS) \
               $(MPI_GEN_FILES)

# CUnit suites of the binding (test/mpi/test_*.c): test/module.mk links
# every prerequisite object, so adding the binding's objects links them in.
MPI_TEST_SUITES := $(patsubst test/mpi/%.c,$(BUILD)/test/mpi/%,$(wildcard test/mpi/test_*.c))
$(MPI_TEST_SUITES): $(MPI_OBJ)

# Ordinary MPI programs, built the way users build them: with loomcc.
MPI_PROG_SRC := $(wildcard test/mpi/mpi_*.c)
MPI_PROGS    := $(MPI_PROG_SRC:test/mpi/%.c=$(BUILD)/test/mpi/%)
MPI_PROG_CFLAGS := -std=c11 $(OPTFLAGS) $(SANFLAGS) $(WARNFLAGS) -D_GNU_SOURCE

$(MPI_PROGS): $(BUILD)/test/mpi/%: test/mpi/%.c test/mpi/mpi_test_util.h $(LOOMCC) \
              $(LIBLOOM_MPI_SO) $(LIBLOOM_SO) $(MPI_PROTO_H) include/mpi.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LOOMCC  $@")
	$(Q)$(LOOMCC) $(MPI_PROG_CFLAGS) -o $@ $<

CHECK_PREREQS += $(MPI_PROGS)

.PHONY: mpi mpi-progs install
mpi: $(LIBLOOM_MPI_A) $(LIBLOOM_MPI_SO) $(LOOMCC) $(LOOMCXX) $(LOOM_PCS)
mpi-progs: $(MPI_PROGS)

# ---- install ---------------------------------------------------------------------
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL_ROOT := $(DESTDIR)$(PREFIX)

install: all
	install -d $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/include $(INSTALL_ROOT)/lib/pkgconfig
	install -m 644 include/loom.h include/mpi.h $(MPI_PROTO_H) $(INSTALL_ROOT)/include/
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
	$(call mpi_wrapper_subst,$(INSTALL_ROOT)/bin/loomcc,$(PREFIX),$(PREFIX)/include,$(PREFIX)/lib,,loomcc,C,$(CC),LOOM_CC)
	$(call mpi_wrapper_subst,$(INSTALL_ROOT)/bin/loomcxx,$(PREFIX),$(PREFIX)/include,$(PREFIX)/lib,,loomcxx,C++,$(CXX),LOOM_CXX)
	ln -sf loomcc $(INSTALL_ROOT)/bin/mpicc
	ln -sf loomcxx $(INSTALL_ROOT)/bin/mpicxx
	$(call mpi_subst,mpi/loom.pc.in,$(INSTALL_ROOT)/lib/pkgconfig/loom.pc,$(PREFIX),$(PREFIX)/include,$(PREFIX)/lib)
	$(call mpi_subst,mpi/loom-mpi.pc.in,$(INSTALL_ROOT)/lib/pkgconfig/loom-mpi.pc,$(PREFIX),$(PREFIX)/include,$(PREFIX)/lib)
