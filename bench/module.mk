# bench/: OSU-style MPI micro-benchmarks, one source built twice (Open MPI's
# mpicc and loom's loomcc), and the side-by-side comparison.
#
#   make bench                 both builds: $(BUILD)/bench/{ompi,loom}/osu_*
#   make bench-ompi            only the Open MPI build (needs $(MPICC))
#   make bench-loom            only the loom build (needs loomcc, the libraries)
#                              and floor_pingpong (the cache-line floor, plain C)
#   make bench-fault           copies with the fault-injection shim (validation
#                              self-test: bench/compare.sh --short runs them)
#   make compare               run both side by side, medians of 5 runs, table,
#                              CSV and PNG plots in build/compare/
#   make compare SHORT=1       CI mode: few iterations, validation and agreement
#                              checks, no timing asserts ($(BUILD)/compare-short/);
#                              `make compare-short` is the same, run by make check
#   make compare RUNS=9 COMPARE_ARGS='--bench latency,allreduce'
#   make compare COMPARE_ARGS='--bench dtype'
#                              the derived-datatype benchmarks (issue 20), not
#                              in the default set: osu_halo (2-D and 3-D halo
#                              exchange, vector + subarray faces: `halo`,
#                              `halo3d`), osu_column (a matrix column as a
#                              vector: `column`), osu_struct (an array of
#                              structs: `struct`) and dt_pack (MPI_Pack/Unpack
#                              of a vector vs a hand loop, one rank: `pack`)
#   make compare COMPARE_ARGS='--bench incast --np-coll 4,16'
#                              osu_incast: n-1 senders to rank 0 (MPI_ANY_SOURCE),
#                              aggregate MB/s, messages/s, per-sender finish times
#                              (fairness); not in the default set
#   make scale                 bench/scale.sh: osu_startup at 2,16,64 ranks under
#                              both libraries: time to MPI_Init return and shared
#                              memory in use after init and after an all-pairs
#                              exchange; table, CSV and logs in $(BUILD)/scale/
#   make scale SCALE_ARGS='--np 2,16,64,128 --csv scale.csv'
#   make scale SCALE_ARGS='--np 256 --libs loom --timeout 900'
#
# Both builds use the same flags; both link their MPI library dynamically.

MPICC        ?= mpicc
BENCH_P2P    := latency bw bibw
BENCH_COLL   := barrier bcast reduce allreduce allgather alltoall gather scatter reduce_scatter \
                polling
BENCH_NAMES  := $(BENCH_P2P) $(BENCH_COLL)
BENCH_CFLAGS := -std=c11 $(OPTFLAGS) $(WARNFLAGS) -D_GNU_SOURCE
BENCH_COMMON := bench/osu_util.c bench/osu_util.h
BENCH_COLL_COMMON := $(BENCH_COMMON) bench/osu_coll.c
# derived datatypes (issue 20): osu_<name> plus dt_pack
BENCH_DT     := column struct halo
BENCH_DT_COMMON := $(BENCH_COMMON) bench/osu_dtype.c bench/osu_dtype.h

# $(call bench_bins,flavour,names)
bench_bins = $(foreach b,$(2),$(BUILD)/bench/$(1)/osu_$(b))

BENCH_OMPI_P2P   := $(call bench_bins,ompi,$(BENCH_P2P))
BENCH_OMPI_COLL  := $(call bench_bins,ompi,$(BENCH_COLL))
BENCH_LOOM_P2P   := $(call bench_bins,loom,$(BENCH_P2P))
BENCH_LOOM_COLL  := $(call bench_bins,loom,$(BENCH_COLL))
BENCH_OMPI_DT    := $(call bench_bins,ompi,$(BENCH_DT)) $(BUILD)/bench/ompi/dt_pack
BENCH_LOOM_DT    := $(call bench_bins,loom,$(BENCH_DT)) $(BUILD)/bench/loom/dt_pack
BENCH_OFAULT_DT  := $(call bench_bins,ompi-fault,$(BENCH_DT))
BENCH_LFAULT_DT  := $(call bench_bins,loom-fault,$(BENCH_DT))
BENCH_OFAULT_P2P := $(call bench_bins,ompi-fault,$(BENCH_P2P))
BENCH_OFAULT_COLL:= $(call bench_bins,ompi-fault,$(BENCH_COLL))
BENCH_LFAULT_P2P := $(call bench_bins,loom-fault,$(BENCH_P2P))
BENCH_LFAULT_COLL:= $(call bench_bins,loom-fault,$(BENCH_COLL))

# loom's build of a benchmark needs the wrapper and both shared libraries.
# Literal paths: mpi/ and launcher/module.mk are included after this file,
# so their variables are still empty when these prerequisites are read.
BENCH_LOOMCC    := $(BUILD)/bin/loomcc
BENCH_LOOMRUN   := $(BUILD)/bin/loomrun
BENCH_LOOM_DEPS := $(BENCH_LOOMCC) $(BUILD)/lib/libloom_mpi.so $(BUILD)/lib/libloom.so

define bench_link
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  $(1)  $@")
	$(Q)$(2) $(BENCH_CFLAGS) -o $@ $(filter %.c,$^)
endef

$(BENCH_OMPI_P2P): $(BUILD)/bench/ompi/osu_%: bench/osu_%.c $(BENCH_COMMON)
	$(call bench_link,MPICC ,$(MPICC))
$(BENCH_OMPI_COLL): $(BUILD)/bench/ompi/osu_%: bench/osu_%.c $(BENCH_COLL_COMMON)
	$(call bench_link,MPICC ,$(MPICC))
$(BENCH_LOOM_P2P): $(BUILD)/bench/loom/osu_%: bench/osu_%.c $(BENCH_COMMON) $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))
$(BENCH_LOOM_COLL): $(BUILD)/bench/loom/osu_%: bench/osu_%.c $(BENCH_COLL_COMMON) $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))

$(BENCH_OMPI_DT): $(BUILD)/bench/ompi/%: bench/%.c $(BENCH_DT_COMMON)
	$(call bench_link,MPICC ,$(MPICC))
$(BENCH_LOOM_DT): $(BUILD)/bench/loom/%: bench/%.c $(BENCH_DT_COMMON) $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))

$(BENCH_OFAULT_DT): $(BUILD)/bench/ompi-fault/osu_%: bench/osu_%.c $(BENCH_DT_COMMON) bench/osu_fault.c
	$(call bench_link,MPICC ,$(MPICC))
$(BENCH_LFAULT_DT): $(BUILD)/bench/loom-fault/osu_%: bench/osu_%.c $(BENCH_DT_COMMON) bench/osu_fault.c $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))

$(BENCH_OFAULT_P2P): $(BUILD)/bench/ompi-fault/osu_%: bench/osu_%.c $(BENCH_COMMON) bench/osu_fault.c
	$(call bench_link,MPICC ,$(MPICC))
$(BENCH_OFAULT_COLL): $(BUILD)/bench/ompi-fault/osu_%: bench/osu_%.c $(BENCH_COLL_COMMON) bench/osu_fault.c
	$(call bench_link,MPICC ,$(MPICC))
$(BENCH_LFAULT_P2P): $(BUILD)/bench/loom-fault/osu_%: bench/osu_%.c $(BENCH_COMMON) bench/osu_fault.c $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))
$(BENCH_LFAULT_COLL): $(BUILD)/bench/loom-fault/osu_%: bench/osu_%.c $(BENCH_COLL_COMMON) bench/osu_fault.c $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))

# the cache-line floor under any shm latency (plain C, no MPI)
BENCH_FLOOR := $(BUILD)/bench/floor_pingpong
$(BENCH_FLOOR): bench/floor_pingpong.c
	$(call bench_link,CC    ,$(CC))

.PHONY: bench bench-ompi bench-loom bench-fault compare
bench-ompi: $(BENCH_OMPI_P2P) $(BENCH_OMPI_COLL) $(BENCH_OMPI_DT)
bench-loom: $(BENCH_LOOM_P2P) $(BENCH_LOOM_COLL) $(BENCH_LOOM_DT) $(BENCH_LOOMRUN) $(BENCH_FLOOR)
bench-fault: $(BENCH_OFAULT_P2P) $(BENCH_OFAULT_COLL) $(BENCH_LFAULT_P2P) $(BENCH_LFAULT_COLL) \
             $(BENCH_OFAULT_DT) $(BENCH_LFAULT_DT)
bench: bench-ompi bench-loom

# `make check` runs the short comparison as an extra check (CHECK_EXTRA),
# with the benchmarks built warnings-as-errors; skipped where Open MPI's
# wrapper is not installed.
.PHONY: compare-short
compare-short:
	$(MAKE) --no-print-directory WERROR=1 BUILD=$(BUILD) bench-ompi bench-loom bench-fault
	bash bench/compare.sh --short --no-build --build $(BUILD)
ifneq ($(shell command -v $(MPICC) 2>/dev/null),)
CHECK_EXTRA += compare-short
endif

RUNS ?=
COMPARE_ARGS ?=
compare: bench-ompi bench-loom $(if $(filter 1,$(SHORT)),bench-fault)
	bash bench/compare.sh --no-build --build $(BUILD) $(if $(filter 1,$(SHORT)),--short) \
	    $(if $(RUNS),--runs $(RUNS)) $(COMPARE_ARGS)

# Node-scale benchmarks (issue 22): osu_startup (start-up time and shared
# memory in use at one rank count; bench/scale.sh runs it over many) and
# osu_incast (compare.sh --bench incast). Built by bench-ompi and bench-loom
# with the others. osu_incast's receiver is rank 0, so its fault copies link
# bench/osu_incast_fault.c, which breaks rank 0 (osu_fault.c breaks the last;
# osu_startup's fault copy uses it: LOOM_BENCH_FAULT=waitall).
BENCH_SCALE       := startup incast
BENCH_OMPI_SCALE  := $(call bench_bins,ompi,$(BENCH_SCALE))
BENCH_LOOM_SCALE  := $(call bench_bins,loom,$(BENCH_SCALE))
BENCH_OFAULT_SCALE := $(BUILD)/bench/ompi-fault/osu_incast $(BUILD)/bench/ompi-fault/osu_startup
BENCH_LFAULT_SCALE := $(BUILD)/bench/loom-fault/osu_incast $(BUILD)/bench/loom-fault/osu_startup

$(BENCH_OMPI_SCALE): $(BUILD)/bench/ompi/osu_%: bench/osu_%.c $(BENCH_COMMON)
	$(call bench_link,MPICC ,$(MPICC))
$(BENCH_LOOM_SCALE): $(BUILD)/bench/loom/osu_%: bench/osu_%.c $(BENCH_COMMON) $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))
$(BUILD)/bench/ompi-fault/osu_incast: bench/osu_incast.c $(BENCH_COMMON) bench/osu_incast_fault.c
	$(call bench_link,MPICC ,$(MPICC))
$(BUILD)/bench/loom-fault/osu_incast: bench/osu_incast.c $(BENCH_COMMON) bench/osu_incast_fault.c $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))
$(BUILD)/bench/ompi-fault/osu_startup: bench/osu_startup.c $(BENCH_COMMON) bench/osu_fault.c
	$(call bench_link,MPICC ,$(MPICC))
$(BUILD)/bench/loom-fault/osu_startup: bench/osu_startup.c $(BENCH_COMMON) bench/osu_fault.c $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))

bench-ompi: $(BENCH_OMPI_SCALE)
bench-loom: $(BENCH_LOOM_SCALE)
bench-fault: $(BENCH_OFAULT_SCALE) $(BENCH_LFAULT_SCALE)

# test/bench/test_bench_scale.sh runs loom's builds and fault copies
CHECK_PREREQS += $(BENCH_LOOM_SCALE) $(BENCH_LFAULT_SCALE)

.PHONY: scale
SCALE_ARGS ?=
scale: $(BENCH_LOOM_SCALE) $(BENCH_LOOMRUN) $(if $(shell command -v $(MPICC) 2>/dev/null),$(BENCH_OMPI_SCALE))
	bash bench/scale.sh --no-build --build $(BUILD) $(SCALE_ARGS)

# MPI_THREAD_MULTIPLE (issue 24): osu_latency_mt (N thread pairs ping-pong
# on distinct tags) and osu_mt_rate (message rate, -t 1/2/4 threads per
# rank). Standalone (their own options and thread set-up, bench/osu_mt.h);
# both ask for MPI_THREAD_MULTIPLE. compare.sh --bench mt runs them (not in
# the default set).
BENCH_MT      := latency_mt mt_rate
BENCH_OMPI_MT := $(call bench_bins,ompi,$(BENCH_MT))
BENCH_LOOM_MT := $(call bench_bins,loom,$(BENCH_MT))
$(BENCH_OMPI_MT): $(BUILD)/bench/ompi/osu_%: bench/osu_%.c bench/osu_mt.h
	$(call bench_link,MPICC ,$(MPICC) -pthread)
$(BENCH_LOOM_MT): $(BUILD)/bench/loom/osu_%: bench/osu_%.c bench/osu_mt.h $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC) -pthread)
bench-ompi: $(BENCH_OMPI_MT)
bench-loom: $(BENCH_LOOM_MT)
# test/mpi/test_mpi_threads_bench.sh runs the loom builds at each thread level
CHECK_PREREQS += $(BENCH_LOOM_MT)

# One-sided benchmarks (issue 23): bench/osu_rma.c, one program for OSU's
# put/get latency, put/get bandwidth, accumulate, fetch-and-op and
# compare-and-swap latency (-t), each with -w fence|lock|flush and
# -a create|allocate. compare.sh --bench rma runs them (not in the default set).
BENCH_OMPI_RMA := $(BUILD)/bench/ompi/osu_rma
BENCH_LOOM_RMA := $(BUILD)/bench/loom/osu_rma
$(BENCH_OMPI_RMA): bench/osu_rma.c $(BENCH_COMMON)
	$(call bench_link,MPICC ,$(MPICC))
$(BENCH_LOOM_RMA): bench/osu_rma.c $(BENCH_COMMON) $(BENCH_LOOM_DEPS)
	$(call bench_link,LOOMCC,$(BENCH_LOOMCC))
bench-ompi: $(BENCH_OMPI_RMA)
bench-loom: $(BENCH_LOOM_RMA)
