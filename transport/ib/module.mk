# transport/ib: the verbs transport's own targets.
#
#   make check-verbs   boot the soft-RoCE guest (test/verbs/vm.sh) and run the
#                      verbs suite inside it (test/verbs/run.sh): device smoke
#                      test, transport tests, then the p2p and collectives rank
#                      programs over LOOM_TRANSPORTS=self,ib (np 2 and 3, every
#                      message-based collective algorithm once), and the
#                      one-sided programs over RDMA windows (steps rma-*,
#                      about 1.5 min more). 1.5-6 min on
#                      a 2-core machine under TCG, boot included, depending on
#                      the host's other load; each step prints its time; the
#                      guest is killed after VERBS_VM_TIMEOUT s. Needs root
#                      for its packages the first time (qemu, busybox-static,
#                      rdma tools). Registered in CHECK_EXTRA (make check).
#   make bench-verbs   benchmarks in the guest (test/verbs/bench.sh): perftest,
#                      loom over ib, Open MPI + UCX over the same rxe device.
#   make check-verbs-2host  two guests on one Ethernet segment (vm.sh --pair):
#                      loomrun on vm1 starts its daemon on vm2 through the
#                      guests' launch agent and runs the p2p and collectives
#                      programs 2 ranks per guest over shm+ib (ib across the
#                      guests), multicast bcast, a rank killed on vm2
#                      (test/verbs/run2.sh). 4-5 min on a 2-core machine
#                      under load, boot included. Registered in CHECK_EXTRA.

VERBS_VM_TIMEOUT ?= 1200

CHECK_EXTRA += check-verbs

.PHONY: check-verbs
check-verbs: all $(TEST_SUITES) $(TEST_PROGS) $(BUILD)/test/mpi/mpi_dt_zc \
             $(foreach p,mpi_rma_ib mpi_rma mpi_rma2 mpi_rma_big mpi_rma_err,$(BUILD)/test/mpi/$(p)) \
             $(BUILD)/test/verbs/rma_lat
	BUILD=$(BUILD) bash test/verbs/vm.sh --timeout $(VERBS_VM_TIMEOUT) test/verbs/run.sh

CHECK_EXTRA += check-verbs-2host

.PHONY: check-verbs-2host
check-verbs-2host: all $(TEST_SUITES) $(TEST_PROGS) $(BUILD)/test/mpi/mpi_rma_ib
	BUILD=$(BUILD) bash test/verbs/vm.sh --pair --timeout $(VERBS_VM_TIMEOUT) test/verbs/run2.sh

# The same ping-pong source built against loom (loomcc) and Open MPI (mpicc).
VERBS_PP_LOOM := $(BUILD)/test/verbs/pingpong-loom
VERBS_PP_OMPI := $(BUILD)/test/verbs/pingpong-ompi
VERBS_PP_CFLAGS := -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra

$(VERBS_PP_LOOM): test/verbs/pingpong.c $(BUILD)/bin/loomcc $(BUILD)/lib/libloom_mpi.so \
                  $(BUILD)/lib/libloom.so
	@mkdir -p $(dir $@)
	$(BUILD)/bin/loomcc $(VERBS_PP_CFLAGS) -o $@ $<
$(VERBS_PP_OMPI): test/verbs/pingpong.c
	@mkdir -p $(dir $@)
	$(MPICC) $(VERBS_PP_CFLAGS) -o $@ $<

# One-sided latency per operation (test/verbs/bench_rma.sh, against perftest).
VERBS_RMA_LAT := $(BUILD)/test/verbs/rma_lat
$(VERBS_RMA_LAT): test/verbs/rma_lat.c $(BUILD)/bin/loomcc $(BUILD)/lib/libloom_mpi.so \
                  $(BUILD)/lib/libloom.so
	@mkdir -p $(dir $@)
	$(BUILD)/bin/loomcc $(VERBS_PP_CFLAGS) -o $@ $<

.PHONY: bench-verbs-rma
bench-verbs-rma: all $(BUILD)/bin/loomrun $(VERBS_RMA_LAT) $(BUILD)/bench/loom/osu_rma
	BUILD=$(BUILD) bash test/verbs/vm.sh --timeout 1200 test/verbs/bench_rma.sh

.PHONY: bench-verbs
bench-verbs: all $(BUILD)/bin/loomrun $(VERBS_PP_LOOM) $(VERBS_PP_OMPI)
	BUILD=$(BUILD) bash test/verbs/vm.sh --timeout 1800 test/verbs/bench.sh
