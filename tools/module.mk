# tools/: what users run beside their jobs. loom_info describes the build
# and its configuration through the runtime's info calls (runtime/info_int.h,
# the only header layers.txt lets it include); loomcc/loomcxx (also
# installed as mpicc/mpicxx) are filled in from tools/loomcc.in with the
# substitution mpi/module.mk defines, since they compile against the binding.

LOOM_INFO := $(BUILD)/bin/loom_info

$(LOOM_INFO): $(BUILD)/obj/tools/loom_info.o $(LIBLOOM_A)
	@mkdir -p $(dir $@)
	$(LINK_LOOM)

$(LOOMCC): tools/loomcc.in tools/module.mk mpi/module.mk
	@mkdir -p $(dir $@)
	$(Q)$(call mpi_wrapper_subst,$@,$(abspath $(BUILD)),$(TOP)/include,$(abspath $(BUILD))/lib,$(abspath $(MPI_GEN_INC)),loomcc,C,$(CC),LOOM_CC)

$(LOOMCXX): tools/loomcc.in tools/module.mk mpi/module.mk
	@mkdir -p $(dir $@)
	$(Q)$(call mpi_wrapper_subst,$@,$(abspath $(BUILD)),$(TOP)/include,$(abspath $(BUILD))/lib,$(abspath $(MPI_GEN_INC)),loomcxx,C++,$(CXX),LOOM_CXX)

# whatever is built with the wrappers needs the header too
$(LOOMCC) $(LOOMCXX): | $(MPI_PROTO_H)

ALL_TARGETS += $(LOOM_INFO)
# the launcher and configuration suites run loom_info
CHECK_PREREQS += $(LOOM_INFO)
.PHONY: loom_info
loom_info: $(LOOM_INFO)
