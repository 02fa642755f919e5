# loom: plain GNU Makefile.
#
#   make                 libloom.a/.so, loomrun, loom_info, examples (build/release)
#   make DEBUG=1         debug build (build/debug)
#   make SANITIZE=address|undefined|thread|address,undefined   (build/<config>-<sanitizer>)
#   make WERROR=1        warnings are errors (CI)
#   make check           build and run every test suite (each under timeout)
#   make demo            build and run a real multi-rank job
#   make deps            install the Debian packages loom needs (as root)
#
# Modules add their own targets in <dir>/module.mk (included below) so no two
# people edit this file for unrelated parts.

.DEFAULT_GOAL := all
SHELL := /bin/bash

CC      ?= cc
DEBUG   ?= 0
WERROR  ?= 0
SANITIZE ?=

ifeq ($(DEBUG),1)
CONFIG  := debug
OPTFLAGS := -O0 -g3 -DLOOM_DEBUG
else
CONFIG  := release
OPTFLAGS := -O2 -g
endif

comma := ,
ifneq ($(SANITIZE),)
ifeq ($(filter $(SANITIZE),address undefined thread address$(comma)undefined),)
$(error SANITIZE='$(SANITIZE)' is not valid: use SANITIZE=address, SANITIZE=undefined, SANITIZE=thread or SANITIZE=address,undefined)
endif
CONFIG  := $(CONFIG)-$(subst $(comma),-,$(SANITIZE))
SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

BUILD   ?= build/$(CONFIG)
TOP     := $(abspath .)

# ---- dependencies (Debian packages), probed ------------------------------
DEPS_SCRIPT := scripts/install-deps.sh
PMIX_CFLAGS := $(shell pkg-config --cflags pmix 2>/dev/null)
PMIX_LIBS   := $(shell pkg-config --libs pmix 2>/dev/null)
HAVE_PMIX   := $(if $(PMIX_LIBS),1,0)
HAVE_IBV    := $(shell test -f /usr/include/infiniband/verbs.h && test -f /usr/include/rdma/rdma_cma.h && echo 1 || echo 0)
HAVE_CUNIT  := $(shell test -f /usr/include/CUnit/Basic.h && echo 1 || echo 0)
HAVE_TCP    := $(if $(wildcard transport/tcp/*.c),1,0)

# Targets that need the packages install them first (or say how).
NEED_DEPS := $(filter-out deps clean distclean help,$(or $(MAKECMDGOALS),all))
ifneq ($(NEED_DEPS),)
ifneq ($(HAVE_PMIX)$(HAVE_IBV)$(HAVE_CUNIT),111)
ifeq ($(shell id -u),0)
$(info loom: missing build dependencies; running $(DEPS_SCRIPT))
DEPS_RC := $(shell bash $(DEPS_SCRIPT) >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error $(DEPS_SCRIPT) failed (exit $(DEPS_RC)))
endif
PMIX_CFLAGS := $(shell pkg-config --cflags pmix 2>/dev/null)
PMIX_LIBS   := $(shell pkg-config --libs pmix 2>/dev/null)
HAVE_PMIX   := $(if $(PMIX_LIBS),1,0)
HAVE_IBV    := $(shell test -f /usr/include/infiniband/verbs.h && echo 1 || echo 0)
HAVE_CUNIT  := $(shell test -f /usr/include/CUnit/Basic.h && echo 1 || echo 0)
else
$(error loom needs Debian packages that are missing; as root run: $(shell bash $(DEPS_SCRIPT) --print))
endif
endif
endif

# ---- flags -----------------------------------------------------------------
WARNFLAGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
ifeq ($(WERROR),1)
WARNFLAGS += -Werror
endif
DEFS     := -D_GNU_SOURCE -DLOOM_HAVE_PMIX=$(HAVE_PMIX) -DLOOM_HAVE_IBV=$(HAVE_IBV) \
            -DLOOM_HAVE_TCP=$(HAVE_TCP) -DLOOM_BUILD_CONFIG='"$(CONFIG)"'
CFLAGS_ALL := -std=c11 $(OPTFLAGS) $(SANFLAGS) $(WARNFLAGS) $(DEFS) -fPIC -pthread \
              -Iinclude -I$(BUILD)/include $(PMIX_CFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(SANFLAGS) -pthread $(LDFLAGS)
# the shared libraries bind their own functions at link time: a call inside
# libloom.so (or libloom_mpi.so, e.g. PMPI_Send to loom_mpi_raise) is a
# direct call, not a PLT jump (nobody interposes the library's internals)
SO_LDFLAGS  := -Wl,-Bsymbolic-functions
IBV_LIBS := $(if $(filter 1,$(HAVE_IBV)),-lrdmacm -libverbs)
LOOM_LIBS := $(PMIX_LIBS) $(IBV_LIBS) -lm -lrt

# ---- layers: each folder compiles with the -I paths of its own layer and
# the layers below it (layers.txt, through scripts/layers.py), so a header
# of a layer above cannot even be found. Everything else (test/, the fuzz
# targets) sees every layer, plus test/common.
LAYERS_MK := $(BUILD)/layers.mk
$(LAYERS_MK): layers.txt scripts/layers.py
	@mkdir -p $(dir $@)
	$(Q)python3 scripts/layers.py --make > $@.tmp && mv $@.tmp $@
include $(LAYERS_MK)
LAYER_INC ?= $(LAYER_INC_ALL) -Itest/common

# ---- the library -------------------------------------------------------------
LIB_SRC := $(wildcard base/*.c) $(wildcard datatype/*.c) $(wildcard transport/*.c) \
           $(wildcard transport/self/*.c) $(wildcard transport/shm/*.c) \
           $(wildcard transport/tcp/*.c) \
           $(if $(filter 1,$(HAVE_IBV)),$(wildcard transport/ib/*.c)) \
           $(wildcard p2p/*.c) \
           $(wildcard collectives/*.c) $(wildcard collectives/patterns/*.c) \
           $(wildcard runtime/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIBLOOM_A  := $(BUILD)/lib/libloom.a
LIBLOOM_SO := $(BUILD)/lib/libloom.so

# V=1 shows full command lines
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

# Objects depend on a stamp named after a hash of the flags, so changing a
# -D (e.g. a transport appearing) or a switch rebuilds what it affects.
FLAGS_HASH  := $(shell printf '%s' '$(subst ','\'',$(CFLAGS_ALL) $(LDFLAGS_ALL) $(SO_LDFLAGS))' | md5sum | cut -c1-16)
FLAGS_STAMP := $(BUILD)/.flags-$(FLAGS_HASH)
$(FLAGS_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(BUILD)/.flags-*
	@touch $@

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(LAYER_INC) -MMD -MP -c $< -o $@

$(LIBLOOM_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBLOOM_SO): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libloom.so $(SO_LDFLAGS) $(LDFLAGS_ALL) -o $@ $^ $(LOOM_LIBS)

# Link a program against the static library: $(call loom_link,out,objs)
LINK_LOOM = $(if $(Q),@echo "  LD      $@" && )$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIBLOOM_A) $(LOOM_LIBS)

# ---- examples ------------------------------------------------------------------
EXAMPLE_SRC := $(wildcard examples/*.c)
EXAMPLES    := $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)
$(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(LIBLOOM_A)
	@mkdir -p $(dir $@)
	$(LINK_LOOM)

ALL_TARGETS := $(LIBLOOM_A) $(LIBLOOM_SO) $(EXAMPLES)
CHECK_PREREQS :=
CHECK_EXTRA := check-layers check-mt-guard

# ---- modules ------------------------------------------------------------------
include $(sort $(wildcard */module.mk */*/module.mk))

.PHONY: all check check-suites check-layers check-mt-guard print-check-extra demo deps clean distclean help
.PRECIOUS: $(BUILD)/obj/%.o
all: $(ALL_TARGETS)

deps:
	bash $(DEPS_SCRIPT)

# The README's test command. Runs every suite in the release build with
# warnings as errors, then again under the sanitizers, then the extra checks
# modules register in CHECK_EXTRA (e.g. the soft-RoCE guest, the short
# comparison with Open MPI). LOOM_CHECK_PASSES narrows the passes.
check:
	bash test/check_all.sh

# One pass: build this configuration and run every suite in it.
check-suites: all $(CHECK_PREREQS)
	BUILD=$(BUILD) bash test/run_tests.sh

print-check-extra:
	@echo $(CHECK_EXTRA)

# The include rule (layers.txt): every quoted #include, and the table in
# docs/ARCHITECTURE.md. Once per `make check` (the first extra check).
check-layers:
	python3 scripts/layers.py --check --doc docs/ARCHITECTURE.md

# Every public entry point takes the engine lock (MPI_THREAD_MULTIPLE):
# each PMPI_* and each native loom_* starts with LOOM_MT_GUARD().
check-mt-guard:
	python3 scripts/mt_guard.py --check

demo: all
	@echo "loom demo: 4 ranks on this machine (loomrun -n 4 $(BUILD)/examples/demo)"
	$(BUILD)/bin/loomrun -n 4 $(BUILD)/examples/demo

clean:
	rm -rf $(BUILD)

distclean:
	rm -rf build

help:
	@sed -n '2,12p' Makefile

-include $(LIB_OBJ:.o=.d) $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d)
