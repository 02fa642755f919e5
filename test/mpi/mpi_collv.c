/*
 * mpi_collv.c: the v-collectives of the MPI binding as an ordinary MPI
 * program (any number of ranks): Allgatherv, Gatherv, Scatterv, Alltoallv
 * and their nonblocking forms (whose converted count arrays must outlive
 * the call: the program scribbles over its own arrays before waiting),
 * MPI_IN_PLACE, zero counts, gaps between blocks, a contiguous receive
 * type, and MPI_Request_free on a nonblocking v-collective.
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size;

/* rank r contributes r % 3 + 1 ints (rank 1 none when size > 2), placed with gaps */
static int count_of(int r)
{
    return (size > 2 && r == 1) ? 0 : r % 3 + 1;
}

static void layout(int counts[], int displs[], int *total)
{
    int off = 0;

    for (int r = 0; r < size; ++r) {
        counts[r] = count_of(r);
        displs[r] = off + 1;       /* one-int gap before every block */
        off += counts[r] + 1;
    }
    *total = off;
}

static void check_gathered(const int *buf, const int counts[], const int displs[], int tag)
{
    for (int r = 0; r < size; ++r) {
        for (int k = 0; k < counts[r]; ++k) {
            if (buf[displs[r] + k] != r * 100 + k + tag) {
                MT_FAIL("block of rank %d, element %d: %d (tag %d)", r, k,
                        buf[displs[r] + k], tag);
            }
        }
        MT_EQ(buf[displs[r] - 1], -7);   /* the gap is untouched */
    }
}

static void test_allgatherv(int nb)
{
    int counts[64], displs[64], total, mine[3];
    int *buf;
    MPI_Request req;

    layout(counts, displs, &total);
    buf = malloc((size_t)total * sizeof(int));
    MT_CHECK(buf != NULL);
    for (int i = 0; i < total; ++i) {
        buf[i] = -7;
    }
    for (int k = 0; k < count_of(rank); ++k) {
        mine[k] = rank * 100 + k + nb;
    }
    if (nb) {
        MT_OK(MPI_Iallgatherv(mine, count_of(rank), MPI_INT, buf, counts, displs, MPI_INT,
                              MPI_COMM_WORLD, &req));
        memset(counts, 0x55, sizeof(counts));   /* loom must have its own copy */
        memset(displs, 0x55, sizeof(displs));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        layout(counts, displs, &total);
    } else {
        MT_OK(MPI_Allgatherv(mine, count_of(rank), MPI_INT, buf, counts, displs, MPI_INT,
                             MPI_COMM_WORLD));
    }
    check_gathered(buf, counts, displs, nb);
    /* in place: my block is already there */
    for (int k = 0; k < counts[rank]; ++k) {
        buf[displs[rank] + k] = rank * 100 + k + 5;
    }
    for (int r = 0; r < size; ++r) {
        for (int k = 0; k < counts[r] && r != rank; ++k) {
            buf[displs[r] + k] = 0;
        }
    }
    MT_OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts, displs, MPI_INT,
                         MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
        for (int k = 0; k < counts[r]; ++k) {
            MT_EQ(buf[displs[r] + k], r * 100 + k + 5);
        }
    }
    free(buf);
}

static void test_gatherv_scatterv(int nb)
{
    int counts[64], displs[64], total, mine[3], got[3];
    int *buf;
    MPI_Request req;

    layout(counts, displs, &total);
    buf = malloc((size_t)total * sizeof(int));
    MT_CHECK(buf != NULL);
    for (int root = 0; root < size; ++root) {
        for (int i = 0; i < total; ++i) {
            buf[i] = -7;
        }
        for (int k = 0; k < count_of(rank); ++k) {
            mine[k] = rank * 100 + k + root;
        }
        if (nb) {
            MT_OK(MPI_Igatherv(mine, count_of(rank), MPI_INT, buf, counts, displs, MPI_INT,
                               root, MPI_COMM_WORLD, &req));
            MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            /* non-roots pass no receive arrays: they are significant at the root only */
            MT_OK(MPI_Gatherv(mine, count_of(rank), MPI_INT, buf,
                              rank == root ? counts : NULL, rank == root ? displs : NULL,
                              MPI_INT, root, MPI_COMM_WORLD));
        }
        if (rank == root) {
            check_gathered(buf, counts, displs, root);
        }
        /* scatter it back, shifted by one */
        if (rank == root) {
            for (int r = 0; r < size; ++r) {
                for (int k = 0; k < counts[r]; ++k) {
                    buf[displs[r] + k] += 1;
                }
            }
        }
        memset(got, 0, sizeof(got));
        if (nb) {
            MT_OK(MPI_Iscatterv(buf, counts, displs, MPI_INT, got, count_of(rank), MPI_INT,
                                root, MPI_COMM_WORLD, &req));
            MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MT_OK(MPI_Scatterv(buf, rank == root ? counts : NULL,
                               rank == root ? displs : NULL, MPI_INT,
                               rank == root ? MPI_IN_PLACE : got, count_of(rank), MPI_INT,
                               root, MPI_COMM_WORLD));
        }
        if (!(rank == root && !nb)) {
            for (int k = 0; k < count_of(rank); ++k) {
                MT_EQ(got[k], rank * 100 + k + root + 1);
            }
        }
    }
    free(buf);
}

static void test_alltoallv(int nb)
{
    /* rank i sends (i + j) % 3 ints to rank j, as pairs when it can */
    int sc[64], sd[64], rc[64], rd[64], soff = 0, roff = 0;
    int *sbuf, *rbuf;
    MPI_Request req;

    for (int j = 0; j < size; ++j) {
        sc[j] = (rank + j) % 3;
        sd[j] = soff;
        soff += sc[j];
        rc[j] = (j + rank) % 3;
        rd[j] = roff + 2;
        roff += rc[j] + 2;
    }
    sbuf = malloc((size_t)(soff + 1) * sizeof(int));
    rbuf = malloc((size_t)(roff + 1) * sizeof(int));
    MT_CHECK(sbuf != NULL && rbuf != NULL);
    for (int j = 0; j < size; ++j) {
        for (int k = 0; k < sc[j]; ++k) {
            sbuf[sd[j] + k] = rank * 1000 + j * 10 + k;
        }
    }
    memset(rbuf, 0, (size_t)(roff + 1) * sizeof(int));
    if (nb) {
        MT_OK(MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD,
                             &req));
        int keep_rc[64], keep_rd[64];
        memcpy(keep_rc, rc, sizeof(rc));
        memcpy(keep_rd, rd, sizeof(rd));
        memset(sc, 0x7f, sizeof(sc));
        memset(rc, 0x7f, sizeof(rc));
        MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        memcpy(rc, keep_rc, sizeof(rc));
        memcpy(rd, keep_rd, sizeof(rd));
    } else {
        MT_OK(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    }
    for (int i = 0; i < size; ++i) {
        for (int k = 0; k < rc[i]; ++k) {
            MT_EQ(rbuf[rd[i] + k], i * 1000 + rank * 10 + k);
        }
    }
    free(sbuf);
    free(rbuf);
}

/* counts in units of a contiguous type: displacements scale by its extent */
static void test_contiguous_units(void)
{
    MPI_Datatype pair;
    int counts[64], displs[64], mine[2] = { rank, -rank };
    int *buf = malloc((size_t)size * 4 * sizeof(int));

    MT_CHECK(buf != NULL);
    MT_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MT_OK(MPI_Type_commit(&pair));
    for (int r = 0; r < size; ++r) {
        counts[r] = 1;
        displs[r] = 2 * r;     /* in pairs: ints 4r, 4r+1 */
    }
    for (int i = 0; i < 4 * size; ++i) {
        buf[i] = 5;
    }
    MT_OK(MPI_Allgatherv(mine, 2, MPI_INT, buf, counts, displs, pair, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
        MT_CHECK(buf[4 * r] == r && buf[4 * r + 1] == -r);
        MT_CHECK(buf[4 * r + 2] == 5 && buf[4 * r + 3] == 5);
    }
    MT_OK(MPI_Type_free(&pair));
    free(buf);
}

/* a freed Iallgatherv completes in the background (its arrays live on) */
static void test_freed_request(void)
{
    static int buf[8 * 64];   /* stays valid: MPI never says when it is done */
    int counts[64], displs[64], total, mine[3] = { 0, 0, 0 };
    MPI_Request req;

    layout(counts, displs, &total);
    MT_CHECK(total <= 8 * 64);
    MT_OK(MPI_Iallgatherv(mine, count_of(rank), MPI_INT, buf, counts, displs, MPI_INT,
                          MPI_COMM_WORLD, &req));
    MT_OK(MPI_Request_free(&req));
    MT_CHECK(req == MPI_REQUEST_NULL);
    memset(counts, 0x55, sizeof(counts));
    /* later completion calls reap it; finalize waits for it */
    MT_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_CHECK(size <= 64);

    for (int nb = 0; nb < 2; ++nb) {
        test_allgatherv(nb);
        test_gatherv_scatterv(nb);
        test_alltoallv(nb);
    }
    test_contiguous_units();
    test_freed_request();

    MT_PASS("mpi_collv");
    MT_OK(MPI_Finalize());
    return 0;
}
