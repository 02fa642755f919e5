/*
 * mpi_intercomm_int.h: intercommunicator collectives of the MPI binding.
 * mpi_coll.c / mpi_collv.c hand a call on an intercommunicator to these
 * (LOOM_MPI_INTER_IS), which validate MPI's intercomm rules and call
 * loom_inter_* (collectives/inter_coll.c).
 */
#ifndef LOOM_MPI_INTERCOMM_INT_H
#define LOOM_MPI_INTERCOMM_INT_H

#include "mpi_int.h"

#pragma GCC visibility push(hidden)

/** 1 if @p c is a live intercommunicator handle (cheap: one load past the check). */
#define LOOM_MPI_INTER_IS(c) \
    (__builtin_expect(loom_mpi_comm_live(c) && (c)->comm != LOOM_COMM_NULL && \
                      loom_mpi_inter_flag((c)->comm), 0))

int loom_mpi_inter_flag(loom_comm_t lcomm);

/** MPI_SUCCESS, or MPI_ERR_REQUEST raised on @p comm if @p request is NULL. */
int loom_mpi_inter_req(MPI_Comm comm, MPI_Request *request, const char *call);

/**
 * Fold the remote groups into *result (the local groups' MPI_CONGRUENT /
 * MPI_SIMILAR / MPI_UNEQUAL): an intercomm and an intracomm are unequal.
 */
int loom_mpi_inter_compare(loom_comm_t a, loom_comm_t b, int *result);

int loom_mpi_inter_barrier(MPI_Comm comm, MPI_Request *req);
int loom_mpi_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                         MPI_Request *req);
int loom_mpi_inter_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           const int rcounts[], const int displs[], int rcount_all,
                           MPI_Datatype rdt, int root, MPI_Comm comm, const char *call,
                           MPI_Request *req);
int loom_mpi_inter_scatterv(const void *sbuf, const int scounts[], const int displs[],
                            int scount_all, MPI_Datatype sdt, void *rbuf, int rcount,
                            MPI_Datatype rdt, int root, MPI_Comm comm, const char *call,
                           MPI_Request *req);
int loom_mpi_inter_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                              const int rcounts[], const int displs[], int rcount_all,
                              MPI_Datatype rdt, MPI_Comm comm, const char *call,
                              MPI_Request *req);
int loom_mpi_inter_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             int scount_all, MPI_Datatype sdt, void *rbuf,
                             const int rcounts[], const int rdispls[], int rcount_all,
                             MPI_Datatype rdt, MPI_Comm comm, const char *call,
                              MPI_Request *req);
int loom_mpi_inter_alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                             const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                             const int rdispls[], const MPI_Datatype rtypes[],
                             MPI_Comm comm, const char *call, MPI_Request *req);
int loom_mpi_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                          MPI_Op op, int root, MPI_Comm comm, const char *call,
                          MPI_Request *req);
int loom_mpi_inter_reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                  int rcount_all, MPI_Datatype dt, MPI_Op op,
                                  MPI_Comm comm, const char *call, MPI_Request *req);

#pragma GCC visibility pop

#endif /* LOOM_MPI_INTERCOMM_INT_H */
