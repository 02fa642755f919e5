/*
 * mpi_fixes1_gather.c: MPI_Gather / MPI_Scatter of large blocks copy no
 * block through temporary buffers (regression for MPICH's coll/gather_big).
 *
 * Loom's gather used the binomial tree at every size: each inner rank held
 * its subtree, a leaf copied its block, and a root other than rank 0 held
 * all p blocks before rotating them into place, so gather_big (8 blocks
 * of 1 GiB) needed about twice its buffers and the OOM killer took the
 * root. Here the ranks' peak RSS (getrusage) may grow during the first
 * large gather and scatter (to root size - 1, buffers touched beforehand)
 * by less than half a block, and data is checked exactly; small blocks
 * (still the binomial tree, leaves now sending their own buffer) too.
 */
#include "mpi_test_util.h"

#include <string.h>
#include <sys/resource.h>

#define BIG   ((size_t)8 << 20)   /* bytes per block: far above the binomial limit */
#define SMALL 1000                /* ints per block */

static long peak_kib(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void fill(int *buf, size_t n, int rank)
{
    for (size_t i = 0; i < n; ++i) {
        buf[i] = rank * 1000003 + (int)i;
    }
}

static void check_blocks(const int *buf, size_t n, int size)
{
    for (int r = 0; r < size; ++r) {
        for (size_t i = 0; i < n; i += 97) {
            MT_EQ(buf[(size_t)r * n + i], r * 1000003 + (int)i);
        }
    }
}

/* gather then scatter n ints per rank to/from @p root; return the peak growth */
static long round_trip(size_t n, int root, int rank, int size)
{
    int *mine = malloc(n * sizeof(int)), *all = NULL, *back = malloc(n * sizeof(int));
    long before, grown;

    MT_CHECK(mine != NULL && back != NULL);
    fill(mine, n, rank);
    memset(back, 0, n * sizeof(int));
    if (rank == root) {
        all = malloc((size_t)size * n * sizeof(int));
        MT_CHECK(all != NULL);
        memset(all, 0xff, (size_t)size * n * sizeof(int));
    }
    before = peak_kib();
    MT_OK(MPI_Gather(mine, (int)n, MPI_INT, all, (int)n, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root) {
        check_blocks(all, n, size);
    }
    MT_OK(MPI_Scatter(all, (int)n, MPI_INT, back, (int)n, MPI_INT, root, MPI_COMM_WORLD));
    grown = (peak_kib() - before) * 1024;
    MT_EQ(memcmp(back, mine, n * sizeof(int)), 0);
    free(all);
    free(back);
    free(mine);
    return grown;
}

int main(int argc, char **argv)
{
    int rank, size;
    long grown;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int root = 0; root < size; root += size > 2 ? size - 2 : 1) {
        (void)round_trip(SMALL, root, rank, size);
    }
    grown = round_trip(BIG / sizeof(int), size - 1, rank, size);
    if (grown >= (long)(BIG / 2)) {
        MT_FAIL("peak RSS grew by %ld bytes during a gather+scatter of %zu-byte blocks "
                "(root %d of %d): blocks were copied through temporary buffers",
                grown, BIG, size - 1, size);
    }
    MT_OK(MPI_Finalize());
    if (rank == 0) {
        printf("mpi_fixes1_gather: ok\n");
    }
    return 0;
}
