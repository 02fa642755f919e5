/*
 * mpi_placeholders.c: weak definitions of predefined objects that mpi.h
 * names but whose real type belongs to another part of the binding, so a
 * program naming them links today:
 *   - MPI_MESSAGE_NO_PROC (matched probe: point-to-point extensions branch)
 * Each is a distinct address, never dereferenced here. The branch that
 * implements the object defines the same symbol for real and wins at link
 * time; this file does not include mpi_int.h so that its local struct
 * definitions never meet the real ones.
 */
#include <mpi.h>

struct loom_mpi_message {
    int loom_placeholder_;
};

__attribute__((weak)) struct loom_mpi_message loom_mpi_message_no_proc;
