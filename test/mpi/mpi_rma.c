/*
 * mpi_rma.c: MPI one-sided communication, every call and synchronization
 * mode with exact data checks (run at np 1..5, and over self,tcp).
 *
 *   mpi_rma [iters]   iters: rounds of the randomized accumulate stress
 *
 * Sections: window flavors and attributes; put/get/accumulate under fence;
 * derived datatypes on both sides; every predefined op, MPI_REPLACE and
 * MPI_NO_OP; Get_accumulate, Fetch_and_op, Compare_and_swap; request forms;
 * lock/unlock (shared, exclusive), lock_all, flush family; PSCW; dynamic
 * windows; shared windows with load/store; a randomized stress of
 * concurrent accumulates and fetch-and-ops checked exactly; lock contention
 * (a read-modify-write under an exclusive lock by every rank, no lost
 * update); errors under MPI_ERRORS_RETURN.
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

static int rank, size;

static MPI_Win make_win(int flavor, int n, int **base_p)
{
    MPI_Win win;
    int *base = NULL;

    if (flavor == MPI_WIN_FLAVOR_CREATE) {
        base = calloc((size_t)n, sizeof(int));
        MT_OK(MPI_Win_create(base, (MPI_Aint)(n * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &win));
    } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
        MT_OK(MPI_Win_allocate((MPI_Aint)(n * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &base, &win));
    } else {
        MT_OK(MPI_Win_allocate_shared((MPI_Aint)(n * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                                      MPI_COMM_WORLD, &base, &win));
    }
    *base_p = base;
    return win;
}

static void free_win(int flavor, MPI_Win *win, int *base)
{
    MT_OK(MPI_Win_free(win));
    MT_CHECK(*win == MPI_WIN_NULL);
    if (flavor == MPI_WIN_FLAVOR_CREATE) {
        free(base);
    }
}

static void test_attrs(int flavor)
{
    int *base, *ip, flag;
    MPI_Aint *sp;
    void *bp;
    MPI_Win win = make_win(flavor, 8, &base);
    MPI_Group g, wg;
    char name[MPI_MAX_OBJECT_NAME];
    int len, cmp;

    MT_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &bp, &flag));
    MT_CHECK(flag && bp == base);
    MT_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sp, &flag));
    MT_EQ(*sp, 8 * sizeof(int));
    MT_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &ip, &flag));
    MT_EQ(*ip, sizeof(int));
    MT_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &ip, &flag));
    MT_EQ(*ip, flavor);
    MT_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &ip, &flag));
    MT_EQ(*ip, MPI_WIN_UNIFIED);
    MT_OK(MPI_Win_get_group(win, &g));
    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MT_OK(MPI_Group_compare(g, wg, &cmp));
    MT_EQ(cmp, MPI_IDENT);
    MT_OK(MPI_Group_free(&g));
    MT_OK(MPI_Group_free(&wg));
    MT_CHECK(MPI_Win_f2c(MPI_Win_c2f(win)) == win);
    MT_OK(MPI_Win_set_name(win, "my window"));
    MT_OK(MPI_Win_get_name(win, name, &len));
    MT_CHECK(strcmp(name, "my window") == 0 && len == 9);
    free_win(flavor, &win, base);
}

/* user keyvals on windows, with a delete callback run at free */
static int deletes;
static int del_fn(MPI_Win w, int k, void *v, void *x)
{
    (void)w; (void)k; (void)x;
    deletes += (int)(intptr_t)v;
    return MPI_SUCCESS;
}

static void test_keyval(void)
{
    int *base, kv, flag;
    void *v;
    MPI_Win win = make_win(MPI_WIN_FLAVOR_ALLOCATE, 1, &base);

    MT_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, NULL));
    MT_OK(MPI_Win_set_attr(win, kv, (void *)(intptr_t)5));
    MT_OK(MPI_Win_get_attr(win, kv, &v, &flag));
    MT_CHECK(flag && (intptr_t)v == 5);
    deletes = 0;
    MT_OK(MPI_Win_free(&win));
    MT_EQ(deletes, 5);
    MT_OK(MPI_Win_free_keyval(&kv));
}

/* put to the right neighbour, get from the left, accumulate to everyone */
static void test_fence(int flavor)
{
    enum { N = 64 };
    int *base, src[N], got[N];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win win = make_win(flavor, 2 * N + 1, &base);

    for (int i = 0; i < N; ++i) {
        src[i] = rank * 1000 + i;
    }
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
    MT_OK(MPI_Accumulate(&src[1], 1, MPI_INT, 0, 2 * N, 1, MPI_INT, MPI_SUM, win));
    MT_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; ++i) {
        MT_EQ(base[i], left * 1000 + i);
    }
    if (rank == 0) {
        MT_EQ(base[2 * N], (size * (size - 1) / 2) * 1000 + size);
    }
    MT_OK(MPI_Get(got, N, MPI_INT, left, 0, N, MPI_INT, win));
    MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int i = 0; i < N; ++i) {
        MT_EQ(got[i], ((left + size - 1) % size) * 1000 + i);
    }
    free_win(flavor, &win, base);
}

/* vector at the target, contiguous at the origin, and the reverse */
static void test_derived(int flavor)
{
    enum { N = 10 };
    int *base, src[N], got[2 * N];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype vec;
    MPI_Win win = make_win(flavor, 2 * N, &base);

    MT_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    MT_OK(MPI_Type_commit(&vec));
    for (int i = 0; i < N; ++i) {
        src[i] = rank * 100 + i;
    }
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Put(src, N, MPI_INT, right, 0, 1, vec, win));
    MT_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; ++i) {
        MT_EQ(base[2 * i], left * 100 + i);
        MT_EQ(base[2 * i + 1], 0);
    }
    MT_OK(MPI_Win_fence(0, win));   /* local reads done before the next updates */
    MT_OK(MPI_Accumulate(src, N, MPI_INT, right, 0, 1, vec, MPI_SUM, win));
    MT_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; ++i) {
        MT_EQ(base[2 * i], 2 * (left * 100 + i));
    }
    memset(got, 0xff, sizeof(got));
    MT_OK(MPI_Get(got, 1, vec, right, 0, 1, vec, win));
    MT_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; ++i) {
        MT_EQ(got[2 * i], 2 * (rank * 100 + i));
        MT_EQ(got[2 * i + 1], -1);
    }
    MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MT_OK(MPI_Type_free(&vec));
    free_win(flavor, &win, base);
}

/* every predefined op on one int element at rank 0, from rank 0 alone */
static void test_ops(void)
{
    struct { MPI_Op op; int init, in, want; } t[] = {
        { MPI_SUM, 6, 3, 9 },  { MPI_PROD, 6, 3, 18 }, { MPI_MAX, 6, 3, 6 },
        { MPI_MIN, 6, 3, 3 },  { MPI_LAND, 6, 0, 0 },  { MPI_LOR, 0, 3, 1 },
        { MPI_LXOR, 6, 3, 0 }, { MPI_BAND, 6, 3, 2 },  { MPI_BOR, 6, 3, 7 },
        { MPI_BXOR, 6, 3, 5 }, { MPI_REPLACE, 6, 3, 3 }, { MPI_NO_OP, 6, 3, 6 },
    };
    int *base, res;
    MPI_Win win = make_win(MPI_WIN_FLAVOR_ALLOCATE, 1, &base);

    MT_OK(MPI_Win_lock_all(0, win));
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); ++i) {
        if (rank == 0) {
            MT_OK(MPI_Put(&t[i].init, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
            MT_OK(MPI_Win_flush(0, win));
            MT_OK(MPI_Fetch_and_op(&t[i].in, &res, MPI_INT, 0, 0, t[i].op, win));
            MT_OK(MPI_Win_flush(0, win));
            MT_EQ(res, t[i].init);
            MT_OK(MPI_Get(&res, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
            MT_OK(MPI_Win_flush(0, win));
            MT_EQ(res, t[i].want);
        }
    }
    MT_OK(MPI_Win_unlock_all(win));
    /* MAXLOC on MPI_2INT, double sum */
    MT_OK(MPI_Win_free(&win));
    {
        int pair[2] = { 0, 0 }, in[2], out[2];
        MPI_Win w2;

        MT_OK(MPI_Win_create(pair, sizeof(pair), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2));
        MT_OK(MPI_Win_fence(0, w2));
        in[0] = rank * 10;
        in[1] = rank;
        MT_OK(MPI_Accumulate(in, 1, MPI_2INT, 0, 0, 1, MPI_2INT, MPI_MAXLOC, w2));
        MT_OK(MPI_Win_fence(0, w2));
        if (rank == 0) {
            MT_EQ(pair[0], (size - 1) * 10);
            MT_EQ(pair[1], size - 1);
        }
        MT_OK(MPI_Get_accumulate(in, 1, MPI_2INT, out, 1, MPI_2INT, 0, 0, 1, MPI_2INT,
                                 MPI_NO_OP, w2));
        MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w2));
        MT_EQ(out[0], (size - 1) * 10);
        MT_OK(MPI_Win_free(&w2));
    }
}

static void test_cas_and_requests(int flavor)
{
    int *base, one = 1, res, cmp, val, buf[4] = { 1, 2, 3, 4 }, got[4];
    MPI_Request req[3];
    MPI_Win win = make_win(flavor, 4, &base);

    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Win_fence(0, win));
    /* CAS: only the first rank to swap 0 -> rank+1 wins; everyone sees a non-zero owner */
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    cmp = 0;
    val = rank + 1;
    MT_OK(MPI_Compare_and_swap(&val, &cmp, &res, MPI_INT, 0, 0, win));
    MT_OK(MPI_Win_unlock(0, win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MT_OK(MPI_Get(&val, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    MT_OK(MPI_Win_unlock(0, win));
    MT_CHECK(val >= 1 && val <= size);
    MT_CHECK(res == 0 ? val == rank + 1 : res == val);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* request forms on the own window slot 1..3 */
    MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    MT_OK(MPI_Rput(buf, 2, MPI_INT, rank, 1, 2, MPI_INT, win, &req[0]));
    MT_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    MT_OK(MPI_Win_flush(rank, win));
    MT_OK(MPI_Raccumulate(&one, 1, MPI_INT, rank, 3, 1, MPI_INT, MPI_SUM, win, &req[0]));
    MT_OK(MPI_Win_flush(rank, win));
    MT_OK(MPI_Rget(got, 3, MPI_INT, rank, 1, 3, MPI_INT, win, &req[1]));
    MT_OK(MPI_Rget_accumulate(&one, 1, MPI_INT, &got[3], 1, MPI_INT, rank, 3, 1, MPI_INT,
                              MPI_SUM, win, &req[2]));
    MT_OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    MT_OK(MPI_Win_unlock(rank, win));
    MT_EQ(got[0], 1);
    MT_EQ(got[1], 2);
    MT_EQ(got[2], 1);
    MT_EQ(got[3], 1);
    MT_EQ(base[3], 2);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    free_win(flavor, &win, base);
}

static void test_pscw(int flavor)
{
    int *base, src = rank + 7, flag = 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, g_right, g_left;
    MPI_Win win = make_win(flavor, 1, &base);

    MT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MT_OK(MPI_Group_incl(world, 1, &right, &g_right));
    MT_OK(MPI_Group_incl(world, 1, &left, &g_left));
    for (int round = 0; round < 3; ++round) {
        MT_OK(MPI_Win_post(g_left, 0, win));
        MT_OK(MPI_Win_start(g_right, 0, win));
        MT_OK(MPI_Put(&src, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        MT_OK(MPI_Win_complete(win));
        if (round == 1) {
            while (!flag) {
                MT_OK(MPI_Win_test(win, &flag));
            }
        } else {
            MT_OK(MPI_Win_wait(win));
        }
        MT_EQ(*base, left + 7 + round);
        ++src;
    }
    MT_OK(MPI_Group_free(&g_right));
    MT_OK(MPI_Group_free(&g_left));
    MT_OK(MPI_Group_free(&world));
    free_win(flavor, &win, base);
}

static void test_dynamic(void)
{
    int mem[4] = { 0 }, v = rank + 1, got = -1;
    MPI_Aint addr, *addrs = malloc((size_t)size * sizeof(MPI_Aint));
    MPI_Win win;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MT_OK(MPI_Win_attach(win, mem, sizeof(mem)));
    MT_OK(MPI_Get_address(&mem[2], &addr));
    MT_OK(MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    MT_OK(MPI_Win_fence(0, win));
    MT_OK(MPI_Put(&v, 1, MPI_INT, right, addrs[right], 1, MPI_INT, win));
    MT_OK(MPI_Win_fence(0, win));
    MT_EQ(mem[2], left + 1);
    MT_OK(MPI_Get(&got, 1, MPI_INT, left, addrs[left], 1, MPI_INT, win));
    MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MT_EQ(got, (left + size - 1) % size + 1);
    MT_OK(MPI_Win_detach(win, mem));
    MT_OK(MPI_Win_free(&win));
    free(addrs);
}

/* allocate_shared: load/store into the neighbour's piece */
static void test_shared(void)
{
    int *base, *peer, du;
    MPI_Aint sz;
    MPI_Win win;
    int right = (rank + 1) % size;

    MT_OK(MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                  &base, &win));
    MT_OK(MPI_Win_shared_query(win, right, &sz, &du, &peer));
    MT_EQ(sz, 4 * sizeof(int));
    MT_EQ(du, sizeof(int));
    MT_OK(MPI_Win_lock_all(0, win));
    peer[1] = rank + 100;
    MT_OK(MPI_Win_sync(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_sync(win));
    MT_EQ(base[1], (rank + size - 1) % size + 100);
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &peer));
    MT_OK(MPI_Win_free(&win));
}

/* every rank adds to every counter with accumulates and fetch-and-ops */
static void test_stress(int iters, int create)
{
    enum { SLOTS = 8 };
    long long *base = NULL, one = 1, res, mine = 0;
    long long *fetched = calloc((size_t)iters + 1, sizeof(long long));
    MPI_Win win;
    unsigned seed = 12345u + (unsigned)rank;

    if (create) {   /* user memory: always active messages */
        base = calloc(SLOTS, sizeof(long long));
        MT_OK(MPI_Win_create(base, SLOTS * sizeof(long long), sizeof(long long),
                             MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {        /* a shared segment on one host (unless shm is off) */
        MT_OK(MPI_Win_allocate(SLOTS * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &base, &win));
    }
    MT_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < iters; ++i) {
        int t = (int)(rand_r(&seed) % (unsigned)size);
        int s = (int)(rand_r(&seed) % (SLOTS - 1));
        long long add = 1 + rand_r(&seed) % 5;

        MT_OK(MPI_Accumulate(&add, 1, MPI_LONG_LONG, t, s, 1, MPI_LONG_LONG, MPI_SUM, win));
        mine += add;
        MT_OK(MPI_Fetch_and_op(&one, &res, MPI_LONG_LONG, 0, SLOTS - 1, MPI_SUM, win));
        if (i % 16 == 0) {
            MT_OK(MPI_Win_flush(0, win));
        }
        MT_OK(MPI_Win_flush(0, win));
        fetched[i] = res;
    }
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    {
        long long total = 0, want = 0, local = 0;

        for (int s = 0; s < SLOTS - 1; ++s) {
            local += base[s];
        }
        MT_OK(MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        MT_OK(MPI_Allreduce(&mine, &want, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        MT_EQ(total, want);
        if (rank == 0) {
            MT_EQ(base[SLOTS - 1], (long long)iters * size);
        }
        /* fetch-and-op results are distinct tickets: increasing per origin */
        for (int i = 1; i < iters; ++i) {
            MT_CHECK(fetched[i] > fetched[i - 1]);
        }
    }
    MT_OK(MPI_Win_free(&win));
    if (create) {
        free(base);
    }
    free(fetched);
}

/* many origins, one target: read-modify-write under an exclusive lock */
static void test_contention(int iters, int create)
{
    long long *base = NULL, v;
    MPI_Win win;

    if (create) {
        base = calloc(1, sizeof(long long));
        MT_OK(MPI_Win_create(base, sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &win));
    } else {
        MT_OK(MPI_Win_allocate(sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &base, &win));
    }
    for (int i = 0; i < iters; ++i) {
        MT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MT_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_flush(0, win));
        ++v;
        MT_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
        MT_OK(MPI_Win_unlock(0, win));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MT_EQ(*base, (long long)iters * size);
    }
    MT_OK(MPI_Win_free(&win));
    if (create) {
        free(base);
    }
}

/* flush variants, NOCHECK, assert bits, info keys */
static void test_passive_misc(void)
{
    int *base, v = rank + 1, got[8];
    MPI_Info info, used;
    MPI_Win win;
    char val[MPI_MAX_INFO_VAL];
    int flag, right = (rank + 1) % size;

    MT_OK(MPI_Info_create(&info));
    MT_OK(MPI_Info_set(info, "no_locks", "false"));
    MT_OK(MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw"));
    MT_OK(MPI_Info_set(info, "same_size", "true"));
    MT_OK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &base, &win));
    MT_OK(MPI_Info_free(&info));
    MT_OK(MPI_Win_get_info(win, &used));
    MT_OK(MPI_Info_get(used, "same_size", MPI_MAX_INFO_VAL - 1, val, &flag));
    MT_CHECK(flag && strcmp(val, "true") == 0);
    MT_OK(MPI_Info_free(&used));
    MT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE, win));
    MT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOPUT, win));
    /* everyone writes its slot at every rank, flushing each way */
    MT_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < size; ++t) {
        MT_OK(MPI_Put(&v, 1, MPI_INT, t, rank % 8, 1, MPI_INT, win));
        if (t % 2) {
            MT_OK(MPI_Win_flush_local(t, win));
        }
    }
    MT_OK(MPI_Win_flush_local_all(win));
    MT_OK(MPI_Win_flush_all(win));
    MT_OK(MPI_Win_unlock_all(win));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, win));
    MT_OK(MPI_Get(got, size < 8 ? size : 8, MPI_INT, right, 0, size < 8 ? size : 8, MPI_INT,
                  win));
    MT_OK(MPI_Win_unlock(right, win));
    for (int r = 0; r < size && r < 8; ++r) {
        int want = r + 1;

        for (int q = r + 8; q < size; q += 8) {
            want = q + 1;   /* several writers of one slot: one of them */
        }
        MT_CHECK(got[r] >= 1 && (size > 8 || got[r] == want));
    }
    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MT_ERR(MPI_Win_unlock(-5, win), MPI_ERR_RANK);
    MT_ERR(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Win_free(&win));
}

static int handler_calls;
static void win_handler(MPI_Win *win, int *code, ...)
{
    (void)win; (void)code;
    ++handler_calls;
}

static void test_errors(void)
{
    int *base, x = 0;
    MPI_Win win = make_win(MPI_WIN_FLAVOR_ALLOCATE, 4, &base);
    MPI_Errhandler eh, got;

    MT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    {   /* creation errors are raised on the communicator (MPI_ERRORS_RETURN here) */
        MPI_Win bad = MPI_WIN_NULL;

        MT_ERR(MPI_Win_create(&x, sizeof(x), 0, MPI_INFO_NULL, MPI_COMM_WORLD, &bad),
               MPI_ERR_DISP);
        MT_ERR(MPI_Win_allocate(-1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &bad),
               MPI_ERR_SIZE);
        MT_CHECK(bad == MPI_WIN_NULL);
    }
    MT_ERR(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Win_lock(99, 0, 0, win), MPI_ERR_LOCKTYPE);
    MT_ERR(MPI_Win_fence(1, win), MPI_ERR_ASSERT);
    MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MT_ERR(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    MT_ERR(MPI_Put(&x, 1, MPI_INT, 0, 4, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Put(&x, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    MT_ERR(MPI_Put(&x, 2, MPI_INT, 0, 3, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    if (size > 1) {
        MT_ERR(MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    }
    MT_ERR(MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    MT_ERR(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    MT_ERR(MPI_Win_shared_query(win, 0, (MPI_Aint *)&x, &x, &base), MPI_ERR_RMA_FLAVOR);
    MT_OK(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    MT_OK(MPI_Win_unlock(0, win));
    /* a user handler for windows */
    MT_OK(MPI_Win_create_errhandler(win_handler, &eh));
    MT_OK(MPI_Win_set_errhandler(win, eh));
    MT_OK(MPI_Win_get_errhandler(win, &got));
    MT_CHECK(got == eh);
    MT_OK(MPI_Errhandler_free(&got));
    handler_calls = 0;
    MT_ERR(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    MT_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    MT_EQ(handler_calls, 2);
    MT_OK(MPI_Errhandler_free(&eh));
    MT_ERR(MPI_Win_set_errhandler(win, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    MT_OK(MPI_Win_free(&win));
    MT_ERR(MPI_Win_fence(0, win), MPI_ERR_WIN);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    const int flavors[] = { MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                            MPI_WIN_FLAVOR_SHARED };

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (size_t f = 0; f < sizeof(flavors) / sizeof(flavors[0]); ++f) {
        test_attrs(flavors[f]);
        test_fence(flavors[f]);
        test_derived(flavors[f]);
        test_cas_and_requests(flavors[f]);
        test_pscw(flavors[f]);
    }
    test_keyval();
    test_passive_misc();
    test_ops();
    test_dynamic();
    test_shared();
    for (int create = 0; create < 2; ++create) {
        test_stress(iters, create);
        test_contention(iters / 4 + 1, create);
    }
    test_errors();
    MT_PASS("mpi_rma");
    MT_OK(MPI_Finalize());
    return 0;
}
