# transport/ib: the verbs transport's own targets.
#
#   make check-verbs   boot the soft-RoCE guest (test/verbs/vm.sh) and run the
#                      verbs suite inside it (test/verbs/run.sh): device smoke
#                      test, transport tests, then the p2p and collectives rank
#                      programs over LOOM_TRANSPORTS=self,ib (np 2 and 3, every
#                      message-based collective algorithm once). About 6-7 min
#                      on a 2-core machine under TCG, boot included; each step
#                      prints its time. Needs root for its packages the first
#                      time (qemu, busybox-static, rdma tools).
#   make bench-verbs   benchmarks in the guest (test/verbs/bench.sh): perftest,
#                      loom over ib, Open MPI + UCX over the same rxe device.

VERBS_VM_TIMEOUT ?= 1200

.PHONY: check-verbs
check-verbs: all $(TEST_SUITES) $(TEST_PROGS)
	BUILD=$(BUILD) bash test/verbs/vm.sh --timeout $(VERBS_VM_TIMEOUT) test/verbs/run.sh
