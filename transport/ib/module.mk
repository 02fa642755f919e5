# transport/ib: the verbs transport's own targets.
#
#   make check-verbs   boot the soft-RoCE guest (test/verbs/vm.sh) and run the
#                      verbs suite inside it (test/verbs/run.sh): transport
#                      tests, then the p2p and collectives suites with
#                      LOOM_TRANSPORTS=self,ib. Needs root for its packages
#                      the first time (qemu, busybox-static, rdma tools).

VERBS_VM_TIMEOUT ?= 2400

.PHONY: check-verbs
check-verbs: all $(TEST_SUITES) $(TEST_PROGS)
	BUILD=$(BUILD) bash test/verbs/vm.sh --timeout $(VERBS_VM_TIMEOUT) test/verbs/run.sh
