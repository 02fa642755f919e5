/*
 * test_mpi_env.c: the MPI environment calls in one process (a singleton):
 * Init_thread levels, Query_thread, Is_thread_main, versions, processor
 * name, timers, Alloc_mem/Free_mem, addresses, communicator attributes,
 * names and comparisons, and requests completed on self messages,
 * including the side storage of nonblocking v-collectives (freed on
 * completion, kept alive through MPI_Request_free).
 */
#include "../common/cunit_main.h"
#include "../../mpi/mpi_int.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

static int setup(void)
{
    int provided = -1, flag = -1;

    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != 0) {
        return 1;
    }
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        return 1;
    }
    if (provided != MPI_THREAD_MULTIPLE) {
        return 1;
    }
    if (MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
        return 1;
    }
    return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static int teardown(void)
{
    return MPI_Finalize();
}

static void *thread_main_probe(void *arg)
{
    MPI_Is_thread_main((int *)arg);
    return NULL;
}

static void test_threads_versions(void)
{
    int provided = -1, flag = -1, v, sv, len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    pthread_t t;

    CU_ASSERT_EQUAL(MPI_Query_thread(&provided), MPI_SUCCESS);
    CU_ASSERT_EQUAL(provided, MPI_THREAD_MULTIPLE);
    CU_ASSERT_EQUAL(MPI_Is_thread_main(&flag), MPI_SUCCESS);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, thread_main_probe, &flag), 0);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_EQUAL(MPI_Initialized(&flag), MPI_SUCCESS);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(MPI_Finalized(&flag), MPI_SUCCESS);
    CU_ASSERT_EQUAL(flag, 0);
    CU_ASSERT_EQUAL(MPI_Get_version(&v, &sv), MPI_SUCCESS);
    CU_ASSERT(v == 3 && sv == 1 && v == MPI_VERSION && sv == MPI_SUBVERSION);
    CU_ASSERT_EQUAL(MPI_Get_library_version(lib, &len), MPI_SUCCESS);
    CU_ASSERT(strncmp(lib, "loom " LOOM_VERSION_STRING " ", 6 + strlen(LOOM_VERSION_STRING)) == 0);
    CU_ASSERT_EQUAL(len, (int)strlen(lib));
    CU_ASSERT_EQUAL(MPI_Init_thread(NULL, NULL, 7, &provided), MPI_ERR_ARG);
}

static void test_host_time_memory(void)
{
    char name[MPI_MAX_PROCESSOR_NAME], host[256];
    int len;
    double t0, t1, tick;
    void *mem = NULL;
    MPI_Aint a, b;
    int arr[4];

    CU_ASSERT_EQUAL(MPI_Get_processor_name(name, &len), MPI_SUCCESS);
    gethostname(host, sizeof(host));
    CU_ASSERT_STRING_EQUAL(name, host);
    CU_ASSERT_EQUAL(len, (int)strlen(host));
    t0 = MPI_Wtime();
    usleep(2000);
    t1 = MPI_Wtime();
    tick = MPI_Wtick();
    CU_ASSERT(t1 - t0 >= 0.0019 && t1 - t0 < 1.0);
    CU_ASSERT(tick > 0.0 && tick <= 1e-3);
    CU_ASSERT_EQUAL(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem), MPI_SUCCESS);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    CU_ASSERT_EQUAL((uintptr_t)mem % 64, 0);
    memset(mem, 1, 1 << 20);
    CU_ASSERT_EQUAL(MPI_Free_mem(mem), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Alloc_mem(0, MPI_INFO_NULL, &mem), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Free_mem(mem), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Alloc_mem(-5, MPI_INFO_NULL, &mem), MPI_ERR_SIZE);
    CU_ASSERT_EQUAL(MPI_Get_address(&arr[0], &a), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Get_address(&arr[3], &b), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Aint_diff(b, a), 3 * (MPI_Aint)sizeof(int));
    CU_ASSERT_EQUAL(MPI_Aint_add(a, 12), b);
    CU_ASSERT_EQUAL(a, (MPI_Aint)(intptr_t)arr);
}

static void test_comms(void)
{
    int result, rank, size, flag, *val;
    MPI_Comm dup, split;

    CU_ASSERT_EQUAL(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Comm_size(MPI_COMM_WORLD, &size), MPI_SUCCESS);
    CU_ASSERT(rank == 0 && size == 1);
    CU_ASSERT_EQUAL(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result), MPI_SUCCESS);
    CU_ASSERT_EQUAL(result, MPI_CONGRUENT);
    CU_ASSERT_EQUAL(MPI_Comm_dup(MPI_COMM_SELF, &dup), MPI_SUCCESS);
    CU_ASSERT_PTR_EQUAL(loom_mpi_comm_of(dup->comm), dup);
    CU_ASSERT_EQUAL(MPI_Comm_split(dup, MPI_UNDEFINED, 0, &split), MPI_SUCCESS);
    CU_ASSERT_PTR_NULL(split);
    CU_ASSERT_EQUAL(MPI_Comm_split(dup, 3, 0, &split), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Comm_compare(split, dup, &result), MPI_SUCCESS);
    CU_ASSERT_EQUAL(result, MPI_CONGRUENT);
    CU_ASSERT_EQUAL(MPI_Comm_free(&split), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Comm_free(&dup), MPI_SUCCESS);
    CU_ASSERT_PTR_NULL(dup);
    CU_ASSERT_PTR_EQUAL(loom_mpi_comm_of(LOOM_COMM_SELF), MPI_COMM_SELF);
    CU_ASSERT_PTR_EQUAL(loom_mpi_comm_of((loom_comm_t)&result), MPI_COMM_WORLD);
    CU_ASSERT_EQUAL(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_TAG_UB, &val, &flag), MPI_SUCCESS);
    CU_ASSERT(flag && *val == LOOM_TAG_UB);
    CU_ASSERT_EQUAL(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_HOST, &val, &flag), MPI_SUCCESS);
    CU_ASSERT(flag && *val == MPI_PROC_NULL);
}

static void test_self_requests(void)
{
    int out[4] = { 1, 2, 3, 4 }, in[4] = { 0 }, idx[2], n = -1, flag = 0, count;
    MPI_Request reqs[2];
    MPI_Status sts[2];

    CU_ASSERT_EQUAL(MPI_Irecv(in, 4, MPI_INT, 0, 5, MPI_COMM_SELF, &reqs[0]), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Isend(out, 4, MPI_INT, 0, 5, MPI_COMM_SELF, &reqs[1]), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Waitsome(2, reqs, &n, idx, sts), MPI_SUCCESS);
    CU_ASSERT(n >= 1 && n <= 2);
    while (reqs[0] != MPI_REQUEST_NULL || reqs[1] != MPI_REQUEST_NULL) {
        CU_ASSERT_EQUAL(MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    }
    CU_ASSERT(in[0] == 1 && in[3] == 4);
    /* cancel an unmatched self receive */
    CU_ASSERT_EQUAL(MPI_Irecv(in, 4, MPI_INT, 0, 6, MPI_COMM_SELF, &reqs[0]), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Cancel(&reqs[0]), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Wait(&reqs[0], &sts[0]), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Test_cancelled(&sts[0], &flag), MPI_SUCCESS);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(MPI_Get_count(&sts[0], MPI_INT, &count), MPI_SUCCESS);
    CU_ASSERT_EQUAL(count, 0);
    CU_ASSERT_EQUAL(MPI_Cancel(&reqs[0]), MPI_ERR_REQUEST);   /* MPI_REQUEST_NULL now */
}

static void test_side_storage(void)
{
    int counts[1] = { 2 }, displs[1] = { 1 }, mine[3] = { 6, 7, 8 }, all[3] = { 0, 0, 0 };
    MPI_Request req, other;
    size_t before = loom_mpi_side_count;

    CU_ASSERT_EQUAL(MPI_Iallgatherv(mine + 1, 2, MPI_INT, all, counts, displs, MPI_INT,
                                    MPI_COMM_SELF, &req), MPI_SUCCESS);
    if (req != MPI_REQUEST_NULL) {
        CU_ASSERT_EQUAL(loom_mpi_side_count, before + 1);
    }
    CU_ASSERT_EQUAL(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CU_ASSERT_EQUAL(loom_mpi_side_count, before);
    CU_ASSERT(all[0] == 0 && all[1] == 7 && all[2] == 8);

    /* freed: the arrays stay until a later completion call finds it done */
    CU_ASSERT_EQUAL(MPI_Ialltoallv(mine, counts, displs, MPI_INT, all, counts, displs,
                                   MPI_INT, MPI_COMM_SELF, &req), MPI_SUCCESS);
    CU_ASSERT_EQUAL(MPI_Request_free(&req), MPI_SUCCESS);
    CU_ASSERT_PTR_NULL(req);
    for (int i = 0; i < 100 && loom_mpi_side_count > before; ++i) {
        CU_ASSERT_EQUAL(MPI_Ibarrier(MPI_COMM_SELF, &other), MPI_SUCCESS);
        CU_ASSERT_EQUAL(MPI_Wait(&other, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    CU_ASSERT_EQUAL(loom_mpi_side_count, before);

    /* a v-collective that fails to start leaves nothing behind */
    counts[0] = -1;
    CU_ASSERT_EQUAL(MPI_Iallgatherv(mine, 2, MPI_INT, all, counts, displs, MPI_INT,
                                    MPI_COMM_SELF, &req), MPI_ERR_COUNT);
    CU_ASSERT_EQUAL(loom_mpi_side_count, before);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "thread levels and versions", test_threads_versions },
        { "processor name, timers, memory, addresses", test_host_time_memory },
        { "communicators of a singleton", test_comms },
        { "requests on self messages", test_self_requests },
        { "v-collective side storage", test_side_storage },
        { NULL, NULL },
    };
    return loom_test_run_suite("mpi environment", cases, setup, teardown);
}
