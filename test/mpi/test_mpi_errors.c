/*
 * test_mpi_errors.c: error classes and handlers of the MPI binding, in one
 * process (a singleton) plus forked children for what must abort:
 * loom status -> class mapping for every status, Error_string/Error_class,
 * MPI_ERRORS_ARE_FATAL (the child dies with the class as exit status and a
 * message naming the call), calls before MPI_Init, unsupported calls,
 * MPI_ERRORS_RETURN, user handlers and handler reference counts.
 *
 * The fork tests run first, before this process initializes MPI: each child
 * initializes (or not) on its own.
 */
#include "../common/cunit_main.h"
#include "../../mpi/mpi_int.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run @p fn in a child with stderr captured; returns its exit status (or -signal). */
static int run_child(void (*fn)(void), char *out, size_t len)
{
    int fds[2], status = 0;
    ssize_t n, got = 0;
    pid_t pid;

    if (pipe(fds) != 0) {
        return -1000;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    while (got < (ssize_t)len - 1 && (n = read(fds[0], out + got, len - 1 - (size_t)got)) > 0) {
        got += n;
    }
    out[got] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

static void child_fatal_send(void)
{
    int x = 0;

    MPI_Init(NULL, NULL);
    MPI_Send(&x, 1, MPI_INT, 5, 0, MPI_COMM_WORLD);
}

static void child_before_init(void)
{
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
}

static void child_unsupported(void)
{
    char port[MPI_MAX_PORT_NAME];

    MPI_Init(NULL, NULL);
    MPI_Open_port(MPI_INFO_NULL, port);
}

static void child_fatal_type(void)
{
    int x = 0;

    MPI_Init(NULL, NULL);
    MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_SELF);
}

static void test_fatal_children(void)
{
    char out[4096];
    int rc;

    rc = run_child(child_fatal_send, out, sizeof(out));
    CU_ASSERT_EQUAL(rc, MPI_ERR_RANK);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "MPI_Send on MPI_COMM_WORLD"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "MPI_ERR_RANK"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "MPI_ERRORS_ARE_FATAL"));

    rc = run_child(child_before_init, out, sizeof(out));
    CU_ASSERT_EQUAL(rc, MPI_ERR_OTHER);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "MPI_Comm_rank"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "before MPI_Init"));

    rc = run_child(child_unsupported, out, sizeof(out));
    CU_ASSERT_EQUAL(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "MPI_Open_port"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "dynamic process management"));

    rc = run_child(child_fatal_type, out, sizeof(out));
    CU_ASSERT_EQUAL(rc, MPI_ERR_TYPE);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "MPI_Send on MPI_COMM_SELF"));
}

static void test_class_table(void)
{
    static const loom_status_t all[] = {
#define LOOM_TEST_STATUS_(name, value, desc) LOOM_##name,
        LOOM_STATUS_MAP(LOOM_TEST_STATUS_)
#undef LOOM_TEST_STATUS_
    };
    static const struct { loom_status_t st; int cls; } specific[] = {
        { LOOM_OK, MPI_SUCCESS },                     { LOOM_ERR_CANCELED, MPI_SUCCESS },
        { LOOM_ERR_INVALID_ARG, MPI_ERR_ARG },        { LOOM_ERR_NO_MEMORY, MPI_ERR_NO_MEM },
        { LOOM_ERR_UNSUPPORTED, MPI_ERR_UNSUPPORTED_OPERATION },
        { LOOM_ERR_TRUNCATED, MPI_ERR_TRUNCATE },     { LOOM_ERR_INVALID_RANK, MPI_ERR_RANK },
        { LOOM_ERR_INVALID_TAG, MPI_ERR_TAG },        { LOOM_ERR_INVALID_COUNT, MPI_ERR_COUNT },
        { LOOM_ERR_INVALID_TYPE, MPI_ERR_TYPE },      { LOOM_ERR_INVALID_OP, MPI_ERR_OP },
        { LOOM_ERR_INVALID_COMM, MPI_ERR_COMM },
        { LOOM_ERR_INVALID_REQUEST, MPI_ERR_REQUEST },
        { LOOM_ERR_INVALID_BUFFER, MPI_ERR_BUFFER },  { LOOM_ERR_INVALID_ROOT, MPI_ERR_ROOT },
        { LOOM_ERR_IO, MPI_ERR_IO },                  { LOOM_ERR_INTERNAL, MPI_ERR_INTERN },
        { LOOM_ERR_PEER_FAILED, MPI_ERR_OTHER },      { LOOM_ERR_NOT_INITIALIZED, MPI_ERR_OTHER },
    };
    char str[MPI_MAX_ERROR_STRING];
    int len, cls;

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
        int c = loom_mpi_class_of(all[i]);

        CU_ASSERT(c >= MPI_SUCCESS && c <= MPI_ERR_LASTCODE && c != MPI_ERR_UNKNOWN);
        CU_ASSERT((c == MPI_SUCCESS) == (all[i] >= 0 || all[i] == LOOM_ERR_CANCELED));
    }
    for (size_t i = 0; i < sizeof(specific) / sizeof(specific[0]); ++i) {
        CU_ASSERT_EQUAL(loom_mpi_class_of(specific[i].st), specific[i].cls);
    }
    CU_ASSERT_EQUAL(loom_mpi_class_of((loom_status_t)-77), MPI_ERR_UNKNOWN);
    for (int e = 0; e <= MPI_ERR_LASTCODE; ++e) {
        const char *name = loom_mpi_class_name(e);

        CU_ASSERT_PTR_NOT_NULL_FATAL(name);
        CU_ASSERT_EQUAL(MPI_Error_string(e, str, &len), MPI_SUCCESS);
        CU_ASSERT(strncmp(str, name, strlen(name)) == 0 && len == (int)strlen(str));
        CU_ASSERT_EQUAL(MPI_Error_class(e, &cls), MPI_SUCCESS);
        CU_ASSERT_EQUAL(cls, e);
    }
    CU_ASSERT_STRING_EQUAL(loom_mpi_class_name(MPI_ERR_TRUNCATE), "MPI_ERR_TRUNCATE");
    CU_ASSERT_STRING_EQUAL(loom_mpi_class_name(52), "MPI_ERR_UNSUPPORTED_OPERATION");
    CU_ASSERT_PTR_NULL(loom_mpi_class_name(MPI_ERR_LASTCODE + 1));
    CU_ASSERT_PTR_NULL(loom_mpi_class_name(-1));
}

/* Before MPI_Init, with MPI_ERRORS_RETURN: errors come back, nothing aborts. */
static void test_before_init_returns(void)
{
    int flag = -1, rank;

    CU_ASSERT_EQUAL(MPI_Initialized(&flag), MPI_SUCCESS);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_EQUAL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_ERR_OTHER);
    CU_ASSERT_EQUAL(MPI_Finalize(), MPI_ERR_OTHER);
    CU_ASSERT_EQUAL(MPI_Barrier(MPI_COMM_WORLD), MPI_ERR_OTHER);
    CU_ASSERT_EQUAL_FATAL(MPI_Init(NULL, NULL), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Init(NULL, NULL), MPI_ERR_OTHER);
}

static void test_returned_classes(void)
{
    int x = 0, y;
    MPI_Request req;

    CU_ASSERT_EQUAL(MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CU_ASSERT_EQUAL(MPI_Send(&x, 1, MPI_INT, 0, -3, MPI_COMM_WORLD), MPI_ERR_TAG);
    CU_ASSERT_EQUAL(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CU_ASSERT_EQUAL(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    CU_ASSERT_EQUAL(MPI_Send(&x, 1, MPI_INT, 0, 0, (MPI_Comm)&x), MPI_ERR_COMM);
    CU_ASSERT_EQUAL(MPI_Bcast(&x, 1, MPI_INT, 1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    CU_ASSERT_EQUAL(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD),
                    MPI_ERR_OP);
    CU_ASSERT_EQUAL(MPI_Allreduce(&x, &y, 1, MPI_INT, (MPI_Op)&x, MPI_COMM_WORLD),
                    MPI_ERR_OP);
    CU_ASSERT_EQUAL(MPI_Isend(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
    /* a self message that does not fit */
    CU_ASSERT_EQUAL(MPI_Isend(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Recv(&y, 1, MPI_CHAR, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    MPI_ERR_TRUNCATE);
    CU_ASSERT_EQUAL(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Win_free(NULL), MPI_ERR_WIN);   /* windows exist: a bad handle */
}

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    ++calls;
    last_code = *code;
    last_comm = *comm;
}

static void test_handlers(void)
{
    MPI_Errhandler eh, got, fatal;
    int x = 0;

    CU_ASSERT_EQUAL_FATAL(MPI_Comm_create_errhandler(handler, &eh), MPI_SUCCESS);
    CU_ASSERT_EQUAL(eh->refs, 1);
    CU_ASSERT_EQUAL(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh), MPI_SUCCESS);
    CU_ASSERT_EQUAL(eh->refs, 2);
    CU_ASSERT_EQUAL(MPI_Send(&x, 1, MPI_INT, 3, 0, MPI_COMM_SELF), MPI_ERR_RANK);
    CU_ASSERT_EQUAL(calls, 1);
    CU_ASSERT_EQUAL(last_code, MPI_ERR_RANK);
    CU_ASSERT_PTR_EQUAL(last_comm, MPI_COMM_SELF);
    /* errors with no communicator go to MPI_COMM_WORLD's handler (RETURN) */
    CU_ASSERT_EQUAL(MPI_Type_size(MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE);
    CU_ASSERT_EQUAL(calls, 1);
    CU_ASSERT_EQUAL(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got), MPI_SUCCESS);
    CU_ASSERT_PTR_EQUAL(got, eh);
    CU_ASSERT_EQUAL(eh->refs, 3);
    CU_ASSERT_EQUAL(MPI_Errhandler_free(&got), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    CU_ASSERT_PTR_NULL(eh);
    CU_ASSERT_EQUAL(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_IO), MPI_SUCCESS);
    CU_ASSERT_EQUAL(calls, 2);
    CU_ASSERT_EQUAL(last_code, MPI_ERR_IO);
    /* replacing the last user of a user handler releases it */
    CU_ASSERT_EQUAL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), MPI_SUCCESS);
    /* handles to predefined handlers may be freed; the handlers live on */
    got = MPI_ERRORS_ARE_FATAL;
    CU_ASSERT_EQUAL(MPI_Errhandler_free(&got), MPI_SUCCESS);
    CU_ASSERT_PTR_NULL(got);
    CU_ASSERT_EQUAL(MPI_Comm_get_errhandler(MPI_COMM_SELF, &fatal), MPI_SUCCESS);
    CU_ASSERT_PTR_EQUAL(fatal, MPI_ERRORS_RETURN);
    CU_ASSERT_EQUAL(MPI_Errhandler_free(&fatal), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_ERRORS_RETURN->magic, LOOM_MPI_ERRH_MAGIC);
    CU_ASSERT_EQUAL(MPI_Send(&x, 1, MPI_INT, 3, 0, MPI_COMM_SELF), MPI_ERR_RANK);
    CU_ASSERT_EQUAL(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    CU_ASSERT_EQUAL(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    CU_ASSERT_EQUAL(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG);
}

static void test_finalize(void)
{
    int flag = 0, rank;

    CU_ASSERT_EQUAL(MPI_Finalize(), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Finalized(&flag), MPI_SUCCESS);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(MPI_Initialized(&flag), MPI_SUCCESS);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_ERR_OTHER);
    CU_ASSERT_EQUAL(MPI_Finalize(), MPI_ERR_OTHER);
    CU_ASSERT_EQUAL(MPI_Init(NULL, NULL), MPI_ERR_OTHER);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "fatal errors abort naming the call (forked)", test_fatal_children },
        { "loom status -> MPI class table", test_class_table },
        { "before MPI_Init", test_before_init_returns },
        { "MPI_ERRORS_RETURN classes", test_returned_classes },
        { "user and predefined handlers", test_handlers },
        { "after MPI_Finalize", test_finalize },
        { NULL, NULL },
    };
    return loom_test_run_suite("mpi errors", cases, NULL, NULL);
}
