/*
 * mpi_coll_cma2.c: the large on-node collectives of session 11 (bcast
 * "stage" and "cma", reduce "cma" waiting for the root only, allgather
 * "cma"; docs/collectives.md) through the MPI binding, with derived
 * datatypes: a contiguous type (moved as bytes, so it reaches the cma
 * paths) and a strided vector (not contiguous: the binding's own packing
 * path, which must still be right), at roots 0, p-1 and p/2, with
 * MPI_IN_PLACE where the call takes it; every element checked. Run by
 * test_mpi_coll_cma2.sh with the table and with the algorithms forced.
 * Prints "mpi_coll_cma2: passed" on rank 0.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

#define FAILIF(cond, ...)                                                          \
    do {                                                                           \
        if (cond) {                                                                \
            ++failures;                                                            \
            fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
        }                                                                          \
    } while (0)

static double val(int root, int who, size_t i)
{
    return (double)(root * 1000 + who * 100) + (double)(i % 97);
}

/* bcast of n elements of "3 contiguous doubles", from root */
static void bcast_contig(int root, int n)
{
    MPI_Datatype t;
    double *b = malloc((size_t)n * 3 * sizeof(double));
    int rc;

    MPI_Type_contiguous(3, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    for (size_t i = 0; i < (size_t)n * 3; ++i) {
        b[i] = rank == root ? val(root, 0, i) : -1;
    }
    rc = MPI_Bcast(b, n, t, root, MPI_COMM_WORLD);
    FAILIF(rc != MPI_SUCCESS, "bcast contiguous root %d n %d: rc %d", root, n, rc);
    for (size_t i = 0; i < (size_t)n * 3; ++i) {
        if (b[i] != val(root, 0, i)) {
            FAILIF(1, "bcast contiguous root %d n %d: [%zu] = %g", root, n, i, b[i]);
            break;
        }
    }
    MPI_Type_free(&t);
    free(b);
}

/* bcast of one vector: n blocks of 1 double, stride 2 (odd elements untouched) */
static void bcast_vector(int root, int n)
{
    MPI_Datatype t;
    double *b = malloc((size_t)n * 2 * sizeof(double));
    int rc;

    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    for (size_t i = 0; i < (size_t)n * 2; ++i) {
        b[i] = rank == root || i % 2 ? val(root, 0, i) : -1;
    }
    rc = MPI_Bcast(b, 1, t, root, MPI_COMM_WORLD);
    FAILIF(rc != MPI_SUCCESS, "bcast vector root %d n %d: rc %d", root, n, rc);
    for (size_t i = 0; i < (size_t)n * 2; ++i) {
        if (b[i] != val(root, 0, i)) {
            FAILIF(1, "bcast vector root %d n %d: [%zu] = %g", root, n, i, b[i]);
            break;
        }
    }
    MPI_Type_free(&t);
    free(b);
}

/* reduce sum of n doubles, in place at the root when in_place */
static void reduce(int root, int n, int in_place)
{
    double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
    int ip = in_place && rank == root, rc;

    for (size_t i = 0; i < (size_t)n; ++i) {
        x[i] = val(root, rank, i);
        y[i] = ip ? x[i] : -1;
    }
    rc = MPI_Reduce(ip ? MPI_IN_PLACE : x, y, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    FAILIF(rc != MPI_SUCCESS, "reduce root %d n %d: rc %d", root, n, rc);
    for (size_t i = 0; rank == root && i < (size_t)n; ++i) {
        double want = 0;
        for (int r = 0; r < size; ++r) {
            want += val(root, r, i);
        }
        if (y[i] != want) {
            FAILIF(1, "reduce root %d n %d%s: [%zu] = %g, expected %g", root, n,
                   in_place ? " in place" : "", i, y[i], want);
            break;
        }
    }
    free(x);
    free(y);
}

/* allgather of n elements of "2 contiguous doubles" per rank */
static void allgather(int n, int in_place)
{
    MPI_Datatype t;
    double *x = malloc((size_t)n * 2 * sizeof(double));
    double *g = malloc((size_t)n * 2 * (size_t)size * sizeof(double));
    int rc;

    MPI_Type_contiguous(2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    for (size_t i = 0; i < (size_t)n * 2 * (size_t)size; ++i) {
        g[i] = -1;
    }
    for (size_t i = 0; i < (size_t)n * 2; ++i) {
        x[i] = val(0, rank, i);
        if (in_place) {
            g[(size_t)rank * (size_t)n * 2 + i] = x[i];
        }
    }
    rc = MPI_Allgather(in_place ? MPI_IN_PLACE : x, n, t, g, n, t, MPI_COMM_WORLD);
    FAILIF(rc != MPI_SUCCESS, "allgather n %d: rc %d", n, rc);
    for (int q = 0; q < size; ++q) {
        for (size_t i = 0; i < (size_t)n * 2; ++i) {
            if (g[(size_t)q * (size_t)n * 2 + i] != val(0, q, i)) {
                FAILIF(1, "allgather n %d%s: block %d [%zu]", n, in_place ? " in place" : "",
                       q, i);
                q = size;
                break;
            }
        }
    }
    MPI_Type_free(&t);
    free(x);
    free(g);
}

int main(int argc, char **argv)
{
    static const int ns[] = { 1000, 2731, 10000, 50001 };   /* x 24 B: 24 KiB .. 1.2 MB */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); ++k) {
        int roots[3] = { 0, size - 1, size / 2 };
        for (int j = 0; j < 3; ++j) {
            bcast_contig(roots[j], ns[k]);
            bcast_vector(roots[j], ns[k]);
            reduce(roots[j], ns[k] * 3, j == 1);
        }
        allgather(ns[k], 0);
        allgather(ns[k], 1);
    }
    FAILIF(MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS, "final barrier");
    if (failures == 0 && rank == 0) {
        printf("mpi_coll_cma2: passed\n");
    }
    MPI_Finalize();
    return failures != 0;
}
