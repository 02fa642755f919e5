/*
 * test_mpi_thread_side.c: the side storage of nonblocking v-collectives
 * (mpi/mpi_request.c) when completion calls interleave, as they do under
 * MPI_THREAD_MULTIPLE: a call marks its requests' entries, then waits, and
 * its wait yields the engine lock, so another thread's call marks and
 * sweeps its own entries in between. Each call must free exactly the
 * entries of its own completed requests: neither another call's (whose
 * operation still reads them) nor forget its own. The interleavings are
 * replayed here on one thread with stand-in request handles (mark, sweep
 * and attach only compare them).
 */
#include "../common/cunit_main.h"
#include "../../mpi/mpi_int.h"

static char fake[4];   /* stand-in request handles: &fake[i] */

static MPI_Request fake_req(int i)
{
    return (MPI_Request)(void *)&fake[i];
}

static void side_add(int i)
{
    loom_mpi_side_t *s = loom_mpi_side_alloc(4);

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    loom_mpi_side_attach(s, fake_req(i));
}

/* A marks and waits; B marks; A completes and sweeps; then B does. */
static void test_interleaved_wait(void)
{
    MPI_Request a[1] = { fake_req(0) }, b[1] = { fake_req(1) };

    side_add(0);
    side_add(1);
    CU_ASSERT_EQUAL(loom_mpi_side_count, 2);
    loom_mpi_side_mark(1, a);
    loom_mpi_side_mark(1, b);
    a[0] = MPI_REQUEST_NULL;              /* A's request completed */
    loom_mpi_side_sweep(1, a);
    CU_ASSERT_EQUAL(loom_mpi_side_count, 1);   /* A's entry went, B's stays */
    b[0] = MPI_REQUEST_NULL;
    loom_mpi_side_sweep(1, b);
    CU_ASSERT_EQUAL(loom_mpi_side_count, 0);   /* and B's goes with B's call */
}

/* B's call completes one of two; A's entries (not in B's array) stay A's. */
static void test_partial_and_foreign(void)
{
    MPI_Request a[1] = { fake_req(0) }, b[2] = { fake_req(1), fake_req(2) };

    side_add(0);
    side_add(1);
    side_add(2);
    loom_mpi_side_mark(1, a);
    loom_mpi_side_mark(2, b);
    b[1] = MPI_REQUEST_NULL;              /* Waitany in B: the second completed */
    loom_mpi_side_sweep(2, b);
    CU_ASSERT_EQUAL(loom_mpi_side_count, 2);
    a[0] = MPI_REQUEST_NULL;
    loom_mpi_side_sweep(1, a);
    CU_ASSERT_EQUAL(loom_mpi_side_count, 1);   /* fake 1 is still B's, pending */
    loom_mpi_side_mark(2, b);              /* B's next call */
    b[0] = MPI_REQUEST_NULL;
    loom_mpi_side_sweep(2, b);
    CU_ASSERT_EQUAL(loom_mpi_side_count, 0);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "interleaved waits free only their own entries", test_interleaved_wait },
        { "partial completion, entries of another call", test_partial_and_foreign },
        { NULL, NULL },
    };
    return loom_test_run_suite("mpi side storage, interleaved calls", cases, NULL, NULL);
}
