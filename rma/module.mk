# rma/: the one-sided layer (windows, put/get/accumulate, synchronization),
# part of libloom. The top-level LIB_OBJ list is fixed before modules are
# read, so this module adds its objects to both libraries as prerequisites
# (their recipes link $^) and to LIB_OBJ for the dependency files.
RMA_SRC := $(wildcard rma/*.c)
RMA_OBJ := $(RMA_SRC:%.c=$(BUILD)/obj/%.o)
LIB_OBJ += $(RMA_OBJ)
$(LIBLOOM_A) $(LIBLOOM_SO): $(RMA_OBJ)
