/*
 * mpi_p2pext_bsend.c: buffered mode as an ordinary MPI program at any
 * number of ranks (each sends to its right neighbour; 1 rank to itself):
 * MPI_Buffer_attach/detach (twice, too small, detach waits for the
 * messages and returns the buffer), MPI_Bsend/MPI_Ibsend/MPI_Bsend_init
 * with the buffer accounting (size + MPI_BSEND_OVERHEAD per message, space
 * back once a send completed, MPI_ERR_BUFFER when full) and error classes.
 *   argv[1]: ints per "big" message (default 30000: a rendezvous, so a
 *   buffered send stays in the buffer until its receive matched)
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size, left, right, big = 30000;

static size_t block(int nints)
{
    return (size_t)nints * sizeof(int) + MPI_BSEND_OVERHEAD;
}

static void fill(int *buf, int n, int seed)
{
    for (int i = 0; i < n; ++i) {
        buf[i] = seed * 31 + i;
    }
}

static void check(const int *buf, int n, int seed)
{
    for (int i = 0; i < n; ++i) {
        if (buf[i] != seed * 31 + i) {
            MT_FAIL("element %d is %d, expected %d (seed %d)", i, buf[i], seed * 31 + i,
                    seed);
        }
    }
}

static void test_attach_errors(void)
{
    char small[16];
    void *addr = NULL;
    int sz = -1, v = 1;

    MT_ERR(MPI_Bsend(&v, 1, MPI_INT, right, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MT_OK(MPI_Buffer_detach(&addr, &sz));             /* nothing attached */
    MT_CHECK(addr == NULL);
    MT_EQ(sz, 0);
    MT_ERR(MPI_Buffer_attach(small, -1), MPI_ERR_ARG);
    MT_ERR(MPI_Buffer_attach(NULL, 100), MPI_ERR_BUFFER);
    /* smaller than the overhead: attaching works, any buffered send fails */
    MT_OK(MPI_Buffer_attach(small, (int)sizeof(small)));
    MT_ERR(MPI_Buffer_attach(small, (int)sizeof(small)), MPI_ERR_BUFFER);
    MT_ERR(MPI_Bsend(&v, 0, MPI_INT, right, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MT_OK(MPI_Bsend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));  /* no space */
    MT_ERR(MPI_Bsend(&v, -1, MPI_INT, right, 1, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MT_ERR(MPI_Bsend(&v, 1, MPI_DATATYPE_NULL, right, 1, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_ERR(MPI_Bsend(&v, 1, MPI_INT, right, 1, MPI_COMM_NULL), MPI_ERR_COMM);
    MT_OK(MPI_Buffer_detach(&addr, &sz));
    MT_CHECK(addr == (void *)small);
    MT_EQ(sz, (int)sizeof(small));
}

/* exactly three big messages fit; the fourth fails until one went */
static void test_accounting(void)
{
    int n = big, sz = 0, rc, tries = 0;
    size_t bsize = 3 * block(n);
    char *bbuf = malloc(bsize);
    int *msg = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    void *addr;

    MT_OK(MPI_Buffer_attach(bbuf, (int)bsize));
    for (int k = 0; k < 3; ++k) {
        fill(msg, n, rank * 10 + k);
        MT_OK(MPI_Bsend(msg, n, MPI_INT, right, 100 + k, MPI_COMM_WORLD));
    }
    fill(msg, n, -1);   /* the buffered copies must not see this */
    /* nobody received yet: a rendezvous keeps its block; one byte more is too much */
    MT_ERR(MPI_Bsend(msg, 1, MPI_INT, right, 99, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < 3; ++k) {
        MT_OK(MPI_Recv(in, n, MPI_INT, left, 100 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check(in, n, left * 10 + k);
    }
    /* the receives matched: the space comes back once their sends completed */
    fill(msg, n, rank * 10 + 3);
    do {
        rc = MPI_Bsend(msg, n, MPI_INT, right, 103, MPI_COMM_WORLD);
        MT_CHECK(rc == MPI_SUCCESS || ++tries < 1000000);
    } while (rc != MPI_SUCCESS);
    MT_OK(MPI_Recv(in, n, MPI_INT, left, 103, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check(in, n, left * 10 + 3);
    MT_OK(MPI_Buffer_detach(&addr, &sz));
    MT_CHECK(addr == (void *)bbuf);
    MT_EQ(sz, (int)bsize);
    free(bbuf);
    free(msg);
    free(in);
}

/* detach blocks until the buffered messages went: the buffer is then reusable */
static void test_detach_waits(void)
{
    int n = big, sz = 0;
    size_t bsize = 2 * block(n);
    char *bbuf = malloc(bsize);
    int *msg = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    MPI_Request r;
    void *addr;

    MT_OK(MPI_Buffer_attach(bbuf, (int)bsize));
    fill(msg, n, rank + 500);
    MT_OK(MPI_Bsend(msg, n, MPI_INT, right, 200, MPI_COMM_WORLD));
    MT_OK(MPI_Irecv(in, n, MPI_INT, left, 200, MPI_COMM_WORLD, &r));
    MT_OK(MPI_Buffer_detach(&addr, &sz));
    memset(bbuf, 0x5a, bsize);                         /* scribble: must be too late */
    MT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check(in, n, left + 500);
    MT_CHECK(addr == (void *)bbuf);
    MT_EQ(sz, (int)bsize);
    free(bbuf);
    free(msg);
    free(in);
}

/* many small buffered sends through a buffer of four blocks, Ibsend too */
static void test_small_stream(void)
{
    enum { N = 500 };
    size_t bsize = 4 * block(2);
    char *bbuf = malloc(bsize);
    int v[2], in[2], flag = 0, sz, rc, tries;
    MPI_Request r;
    void *addr;

    MT_OK(MPI_Buffer_attach(bbuf, (int)bsize));
    for (int i = 0; i < N; ++i) {
        v[0] = rank;
        v[1] = i;
        tries = 0;
        do {   /* a full buffer empties as the eager sends go */
            rc = i % 2 ? MPI_Bsend(v, 2, MPI_INT, right, 300, MPI_COMM_WORLD)
                       : MPI_Ibsend(v, 2, MPI_INT, right, 300, MPI_COMM_WORLD, &r);
            MT_CHECK(rc == MPI_SUCCESS || ++tries < 1000000);
        } while (rc != MPI_SUCCESS);
        if (i % 2 == 0) {
            MT_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));   /* complete at once */
            MT_EQ(flag, 1);
            MT_CHECK(r == MPI_REQUEST_NULL);
        }
        v[1] = -1;
        MT_OK(MPI_Recv(in, 2, MPI_INT, left, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_EQ(in[0], left);
        MT_EQ(in[1], i);
    }
    MT_OK(MPI_Buffer_detach(&addr, &sz));
    free(bbuf);
}

/* persistent buffered sends; a start without room fails and stays inactive */
static void test_bsend_init(void)
{
    int v = 0, in = -1, sz, flag = 0;
    size_t bsize = 2 * block(1);
    char *bbuf = malloc(bsize);
    MPI_Request sreq, rreq;
    MPI_Status st;
    void *addr;

    MT_ERR(MPI_Bsend_init(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &sreq), MPI_ERR_RANK);
    MT_ERR(MPI_Bsend_init(&v, 1, MPI_INT, right, -2, MPI_COMM_WORLD, &sreq), MPI_ERR_TAG);
    MT_OK(MPI_Bsend_init(&v, 1, MPI_INT, right, 400, MPI_COMM_WORLD, &sreq));
    MT_ERR(MPI_Start(&sreq), MPI_ERR_BUFFER);          /* no buffer attached */
    MT_OK(MPI_Wait(&sreq, &st));                       /* inactive: at once */
    MT_OK(MPI_Buffer_attach(bbuf, (int)bsize));
    MT_OK(MPI_Recv_init(&in, 1, MPI_INT, left, 400, MPI_COMM_WORLD, &rreq));
    for (int i = 0; i < 50; ++i) {
        v = rank * 1000 + i;
        MT_OK(MPI_Start(&rreq));
        MT_OK(MPI_Start(&sreq));
        MT_OK(MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE));  /* buffered: complete */
        MT_EQ(flag, 1);
        v = -7;
        MT_OK(MPI_Wait(&rreq, &st));
        MT_EQ(in, left * 1000 + i);
    }
    MT_OK(MPI_Request_free(&sreq));
    MT_OK(MPI_Request_free(&rreq));
    MT_OK(MPI_Buffer_detach(&addr, &sz));
    free(bbuf);
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        /* the default handler ends the job; the driver checks the message */
        static char bbuf[MPI_BSEND_OVERHEAD + 40];
        int v[16] = { 0 };

        MT_OK(MPI_Buffer_attach(bbuf, (int)sizeof(bbuf)));
        MPI_Bsend(v, 16, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MT_FAIL("MPI_Bsend into a full buffer returned");
    }
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (argc > 1) {
        big = atoi(argv[1]);
    }
    left  = (rank + size - 1) % size;
    right = (rank + 1) % size;
    test_attach_errors();
    test_accounting();
    test_detach_waits();
    test_small_stream();
    test_bsend_init();
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_p2pext_bsend");
    MT_OK(MPI_Finalize());
    return 0;
}
