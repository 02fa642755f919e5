/*
 * mpi_errors.c: error classes and handlers of the MPI binding as an
 * ordinary MPI program (any number of ranks).
 *
 *   mpi_errors              every class a bad argument must produce, under
 *                           MPI_ERRORS_RETURN; user error handlers; every
 *                           unsupported call; Error_string / Error_class
 *   mpi_errors fatal        the last rank sends to an invalid rank under the
 *                           default MPI_ERRORS_ARE_FATAL: the job must abort
 *                           with a message naming MPI_Send and MPI_ERR_RANK
 *   mpi_errors unsupported  MPI_File_open under MPI_ERRORS_ARE_FATAL
 *   mpi_errors abort        MPI_Abort(MPI_COMM_WORLD, 7) from rank 0
 *
 * Every error checked here is found locally, before any communication, so
 * a failing call on every rank cannot leave another rank waiting.
 */
#include "mpi_test_util.h"

#include <string.h>

static int rank, size;

static void test_p2p_classes(void)
{
    int x = 0, big[4];
    MPI_Datatype loose, gone;
    MPI_Request req = MPI_REQUEST_NULL;

    MT_ERR(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    MT_ERR(MPI_Send(&x, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    MT_ERR(MPI_Recv(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
           MPI_ERR_RANK);
    MT_ERR(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
    MT_ERR(MPI_Isend(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
    MT_ERR(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MT_ERR(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_ERR(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MT_ERR(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    MT_ERR(MPI_Comm_rank(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    MT_ERR(MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
    MT_ERR(MPI_Wait(NULL, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    MT_ERR(MPI_Request_free(&req), MPI_ERR_REQUEST);

    /* derived types must be committed, and are gone once freed */
    MT_OK(MPI_Type_contiguous(2, MPI_INT, &loose));
    MT_ERR(MPI_Send(big, 1, loose, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_OK(MPI_Type_commit(&loose));
    gone = loose;
    MT_OK(MPI_Type_free(&loose));
    MT_CHECK(loose == MPI_DATATYPE_NULL);
    MT_ERR(MPI_Type_free(&loose), MPI_ERR_TYPE);
    (void)gone;  /* a stale copy of the handle: using it is erroneous, not tested */
    MT_ERR(MPI_Type_free(&(MPI_Datatype){ MPI_INT }), MPI_ERR_TYPE);
    MT_ERR(MPI_Type_contiguous(-1, MPI_INT, &loose), MPI_ERR_COUNT);
}

static void test_coll_classes(void)
{
    int x = 1, y = 0, two[2] = { 0, 0 };
    double d = 1.0, e;
    int *all = malloc((size_t)size * 2 * sizeof(int));
    MPI_Op sum = MPI_SUM;

    MT_CHECK(all != NULL);
    MT_ERR(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    MT_ERR(MPI_Bcast(&x, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    MT_ERR(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, size + 1, MPI_COMM_WORLD),
           MPI_ERR_ROOT);
    MT_ERR(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    MT_ERR(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    MT_ERR(MPI_Allreduce(&x, &y, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MT_ERR(MPI_Op_free(&sum), MPI_ERR_OP);
    MT_ERR(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
    MT_ERR(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    /* send and receive blocks that cannot match */
    MT_ERR(MPI_Allgather(two, 2, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_TRUNCATE);
    MT_ERR(MPI_Alltoall(two, 1, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MT_ERR(MPI_Allgatherv(two, 1, MPI_INT, all, NULL, NULL, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_ARG);
    /* everyone is still in step */
    MT_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_EQ(y, size);
    free(all);
}

static void test_misc_classes(void)
{
    int *val, flag, cls = -1, len, provided;
    char str[MPI_MAX_ERROR_STRING];
    MPI_Comm c;

    MT_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &val, &flag), MPI_ERR_KEYVAL);
    MT_ERR(MPI_Comm_split(MPI_COMM_WORLD, -3, 0, &c), MPI_ERR_ARG);
    MT_ERR(MPI_Error_string(MPI_ERR_LASTCODE + 1, str, &len), MPI_ERR_ARG);
    MT_ERR(MPI_Error_class(-1, &cls), MPI_ERR_ARG);
    MT_ERR(MPI_Init(NULL, NULL), MPI_ERR_OTHER);
    MT_ERR(MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided), MPI_ERR_OTHER);
    MT_ERR(MPI_Alloc_mem(-1, MPI_INFO_NULL, &val), MPI_ERR_SIZE);

    /* every class has a string naming it, and is its own class */
    for (int e = 0; e <= MPI_ERR_LASTCODE; ++e) {
        MT_OK(MPI_Error_string(e, str, &len));
        MT_CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(str) == len);
        MT_OK(MPI_Error_class(e, &cls));
        MT_EQ(cls, e);
    }
    MT_OK(MPI_Error_string(MPI_ERR_TRUNCATE, str, &len));
    MT_CHECK(strstr(str, "MPI_ERR_TRUNCATE") != NULL);
    MT_OK(MPI_Error_string(MPI_ERR_UNSUPPORTED_OPERATION, str, &len));
    MT_CHECK(strstr(str, "MPI_ERR_UNSUPPORTED_OPERATION") != NULL);
}

/* ---- user error handlers ---------------------------------------------------- */

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    ++handler_calls;
    handler_code = *code;
    handler_comm = *comm;
}

static void test_user_handler(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm dup, dup2;
    int x = 0;

    MT_OK(MPI_Comm_create_errhandler(my_handler, &eh));
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_OK(MPI_Comm_set_errhandler(dup, eh));
    MT_OK(MPI_Errhandler_free(&eh));          /* dup keeps it alive */
    MT_CHECK(eh == MPI_ERRHANDLER_NULL);
    MT_EQ(MPI_Send(&x, 1, MPI_INT, size, 0, dup), MPI_ERR_RANK);
    MT_EQ(handler_calls, 1);
    MT_EQ(handler_code, MPI_ERR_RANK);
    MT_CHECK(handler_comm == dup);
    MT_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    MT_EQ(handler_calls, 2);
    MT_EQ(handler_code, MPI_ERR_OTHER);
    /* a dup of the dup inherits the user handler */
    MT_OK(MPI_Comm_dup(dup, &dup2));
    MT_OK(MPI_Comm_get_errhandler(dup2, &got));
    MT_EQ(MPI_Bcast(&x, 1, MPI_INT, -4, dup2), MPI_ERR_ROOT);
    MT_EQ(handler_calls, 3);
    MT_CHECK(handler_comm == dup2);
    MT_OK(MPI_Errhandler_free(&got));
    MT_OK(MPI_Comm_free(&dup2));
    MT_OK(MPI_Comm_free(&dup));
    /* errors on WORLD do not reach it */
    MT_ERR(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    MT_EQ(handler_calls, 3);
}

/* ---- the unsupported calls ---------------------------------------------------- */

#define UNSUP(call) MT_ERR(call, MPI_ERR_UNSUPPORTED_OPERATION)

static void test_unsupported(void)
{
    MPI_Win win = (MPI_Win)&rank;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_File fh = (MPI_File)&rank;
    int buf[4] = { 0 };
    void *base = NULL;

    /* windows are implemented (test/mpi/mpi_rma*.c): a bad handle is MPI_ERR_WIN */
    MT_ERR(MPI_Win_fence(0, win), MPI_ERR_WIN);
    MT_ERR(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_WIN);
    (void)base;
    /* process topologies are implemented (test/mpi/mpi_topo*.c) */
    /* derived datatypes and external32 are implemented (test/mpi/mpi_dt_*.c) */
    UNSUP(MPI_Comm_spawn("true", NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &comm, NULL));
    UNSUP(MPI_File_open(MPI_COMM_WORLD, "/tmp/x", 0, MPI_INFO_NULL, &fh));
    MT_CHECK(fh == MPI_FILE_NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int x = 0;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    if (strcmp(mode, "fatal") == 0) {
        if (rank == size - 1) {
            MPI_Send(&x, 1, MPI_INT, size + 10, 0, MPI_COMM_WORLD);
            MT_FAIL("MPI_Send to rank %d returned under MPI_ERRORS_ARE_FATAL", size + 10);
        }
        MPI_Barrier(MPI_COMM_WORLD);  /* the job is torn down while we wait */
        MT_FAIL("the job survived a fatal error");
    }
    if (strcmp(mode, "unsupported") == 0) {
        MPI_File fh;
        MPI_File_open(MPI_COMM_WORLD, "/tmp/x", 0, MPI_INFO_NULL, &fh);
        MT_FAIL("MPI_File_open returned under MPI_ERRORS_ARE_FATAL");
    }
    if (strcmp(mode, "abort") == 0) {
        if (rank == 0) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MT_FAIL("the job survived MPI_Abort");
    }

    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_p2p_classes();
    test_coll_classes();
    test_misc_classes();
    test_user_handler();
    test_unsupported();
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_errors");
    MT_OK(MPI_Finalize());
    return 0;
}
