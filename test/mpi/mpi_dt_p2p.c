/*
 * mpi_dt_p2p.c: every MPI datatype constructor through point-to-point
 * (issue 20), at an eager size (a few instances, ~64 bytes) and a
 * rendezvous size (>= 1 MiB of data).
 *
 * Each case builds a type of MPI_INTs whose type map the test also knows
 * by hand (int offsets of one instance, and its lb/extent in ints), so the
 * expectation is independent of the engine. Ranks pair up (r, r^1; the odd
 * one out pairs with itself) and, per type and size:
 *   a. Isend(derived) -> Recv(contiguous ints): the packed order is checked
 *   b. Isend(contiguous ints) -> Recv(derived): the scattered values are
 *      checked, and every int outside the type map keeps its sentinel
 *   c. Irecv(derived) on a dup that is freed at once, Isend(derived),
 *      Waitall: derived to derived (and a freed type stays usable)
 *   d. blocking Send/Ssend (derived) and Sendrecv, Sendrecv_replace
 *   e. Mprobe + Mrecv and Imrecv into the derived type; Get_count/Get_elements
 *   f. persistent Recv_init + Send_init/Ssend_init (types freed right after
 *      init), Startall/Waitall twice, Request_free
 * Usage: mpi_dt_p2p [small]  ("small": eager size only, for sanitizer builds)
 */
#include "mpi_test_util.h"

#include <string.h>

#define MAXE 16

typedef struct tcase {
    const char  *name;
    MPI_Datatype type;
    int          ne;          /* ints per instance */
    int          off[MAXE];   /* their offsets (ints, from buf) */
    int          lb, ext;     /* in ints */
} tcase_t;

static int rank, size, partner;

static void make_types(tcase_t *c, int *n)
{
    MPI_Datatype v, tmp;
    int k = 0;

    MT_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    c[k] = (tcase_t){ "vector", v, 6, { 0, 1, 4, 5, 8, 9 }, 0, 10 };
    k++;
    MT_OK(MPI_Type_contiguous(2, v, &tmp));
    c[k] = (tcase_t){ "contig_of_vector", tmp, 12,
                      { 0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19 }, 0, 20 };
    k++;
    MT_OK(MPI_Type_create_hvector(3, 2, 16, MPI_INT, &tmp));
    c[k] = (tcase_t){ "hvector", tmp, 6, { 0, 1, 4, 5, 8, 9 }, 0, 10 };
    k++;
    {
        int bl[3] = { 2, 1, 3 }, d[3] = { 0, 4, 7 };
        MPI_Aint hd[3] = { 0, 16, 28 };
        MT_OK(MPI_Type_indexed(3, bl, d, MPI_INT, &tmp));
        c[k++] = (tcase_t){ "indexed", tmp, 6, { 0, 1, 4, 7, 8, 9 }, 0, 10 };
        MT_OK(MPI_Type_create_hindexed(3, bl, hd, MPI_INT, &tmp));
        c[k++] = (tcase_t){ "hindexed", tmp, 6, { 0, 1, 4, 7, 8, 9 }, 0, 10 };
    }
    {
        int d[3] = { 1, 5, 8 };
        MPI_Aint hd[2] = { 8, 32 };
        MT_OK(MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &tmp));
        c[k++] = (tcase_t){ "indexed_block", tmp, 6, { 1, 2, 5, 6, 8, 9 }, 1, 9 };
        MT_OK(MPI_Type_create_hindexed_block(2, 3, hd, MPI_INT, &tmp));
        c[k++] = (tcase_t){ "hindexed_block", tmp, 6, { 2, 3, 4, 8, 9, 10 }, 2, 9 };
    }
    {
        int bl[2] = { 2, 1 };
        MPI_Aint d[2] = { 0, 20 };
        MPI_Datatype t[2] = { MPI_INT, MPI_INT };
        MT_OK(MPI_Type_create_struct(2, bl, d, t, &tmp));
        c[k++] = (tcase_t){ "struct", tmp, 3, { 0, 1, 5 }, 0, 6 };
    }
    {
        int sz[2] = { 4, 5 }, sub[2] = { 2, 3 }, st[2] = { 1, 1 };
        MT_OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &tmp));
        c[k++] = (tcase_t){ "subarray", tmp, 6, { 6, 7, 8, 11, 12, 13 }, 0, 20 };
    }
    {
        int g[1] = { 8 }, dist[1] = { MPI_DISTRIBUTE_BLOCK }, darg[1] = {
            MPI_DISTRIBUTE_DFLT_DARG }, ps[1] = { 2 };
        MT_OK(MPI_Type_create_darray(2, 1, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &tmp));
        c[k++] = (tcase_t){ "darray", tmp, 4, { 4, 5, 6, 7 }, 0, 8 };
    }
    {
        MPI_Datatype v2;
        MT_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &v2));
        MT_OK(MPI_Type_create_resized(v2, 0, 5 * (MPI_Aint)sizeof(int), &tmp));
        MT_OK(MPI_Type_free(&v2));
        c[k++] = (tcase_t){ "resized", tmp, 2, { 0, 3 }, 0, 5 };
    }
    MT_OK(MPI_Type_dup(v, &tmp));
    c[k++] = (tcase_t){ "dup", tmp, 6, { 0, 1, 4, 5, 8, 9 }, 0, 10 };
    /* contiguous after all: the base x n path */
    MT_OK(MPI_Type_vector(2, 3, 3, MPI_INT, &tmp));
    c[k++] = (tcase_t){ "contig_vector", tmp, 6, { 0, 1, 2, 3, 4, 5 }, 0, 6 };
    for (int i = 0; i < k; ++i) {
        MT_OK(MPI_Type_commit(&c[i].type));
    }
    *n = k;
}

/* value of int j of the sender's buffer */
static int val(int src, long j)
{
    return src * 1000000 + (int)j;
}

static int *sender_buf(const tcase_t *c, int count)
{
    long n = (long)c->ext * count + c->lb + MAXE;
    int *b = malloc((size_t)n * sizeof(int));
    MT_CHECK(b != NULL);
    for (long j = 0; j < n; ++j) {
        b[j] = val(rank, j);
    }
    return b;
}

static int *recv_buf(const tcase_t *c, int count)
{
    long n = (long)c->ext * count + c->lb + MAXE;
    int *b = malloc((size_t)n * sizeof(int));
    MT_CHECK(b != NULL);
    for (long j = 0; j < n; ++j) {
        b[j] = -7;
    }
    return b;
}

/* the packed stream of the partner's buffer */
static void check_packed(const tcase_t *c, int count, const int *got)
{
    for (long i = 0; i < count; ++i) {
        for (int e = 0; e < c->ne; ++e) {
            long k = i * c->ne + e;
            long j = c->off[e] + i * c->ext;
            if (got[k] != val(partner, j)) {
                MT_FAIL("%s count %d: packed int %ld is %d, expected %d", c->name, count, k,
                        got[k], val(partner, j));
            }
        }
    }
}

/* a derived receive: the map holds the stream (@p from_contig: the partner's
 * stream was contiguous ints 0..), every other int its sentinel */
static void check_scattered(const tcase_t *c, int count, const int *b, int from_contig)
{
    long n = (long)c->ext * count + c->lb + MAXE;
    char *hit = calloc((size_t)n, 1);
    MT_CHECK(hit != NULL);
    for (long i = 0; i < count; ++i) {
        for (int e = 0; e < c->ne; ++e) {
            long j = c->off[e] + i * c->ext;
            long want = from_contig ? val(partner, i * c->ne + e) : val(partner, j);
            hit[j] = 1;
            if (b[j] != want) {
                MT_FAIL("%s count %d: int %ld is %d, expected %ld", c->name, count, j, b[j],
                        want);
            }
        }
    }
    for (long j = 0; j < n; ++j) {
        if (!hit[j] && b[j] != -7) {
            MT_FAIL("%s count %d: int %ld outside the type map was written (%d)", c->name,
                    count, j, b[j]);
        }
    }
    free(hit);
}

static void check_status(const tcase_t *c, int count, MPI_Status *st)
{
    int n;
    MT_OK(MPI_Get_count(st, c->type, &n));
    MT_EQ(n, count);
    MT_OK(MPI_Get_elements(st, c->type, &n));
    MT_EQ(n, count * c->ne);
    MT_EQ(st->MPI_SOURCE, partner);
}

static void case_a_b(const tcase_t *c, int count)
{
    int *s = sender_buf(c, count), *r = recv_buf(c, count);
    long nints = (long)count * c->ne;
    int *cont = malloc((size_t)nints * sizeof(int));
    MPI_Request req;
    MPI_Status st;
    int n;

    MT_CHECK(cont != NULL);
    MT_OK(MPI_Isend(s, count, c->type, partner, 1, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Recv(cont, (int)nints, MPI_INT, partner, 1, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_OK(MPI_Get_count(&st, MPI_INT, &n));
    MT_EQ(n, nints);
    check_packed(c, count, cont);
    /* b: contiguous ints into the derived type */
    for (long k = 0; k < nints; ++k) {
        cont[k] = val(rank, k);
    }
    MT_OK(MPI_Isend(cont, (int)nints, MPI_INT, partner, 2, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Recv(r, count, c->type, partner, 2, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_status(c, count, &st);
    check_scattered(c, count, r, 1);
    free(cont);
    free(s);
    free(r);
}

static void case_c(const tcase_t *c, int count)
{
    int *s = sender_buf(c, count), *r = recv_buf(c, count);
    MPI_Datatype d;
    MPI_Request req[2];
    MPI_Status st[2];

    MT_OK(MPI_Type_dup(c->type, &d));
    MT_OK(MPI_Type_commit(&d));
    MT_OK(MPI_Irecv(r, count, d, partner, 3, MPI_COMM_WORLD, &req[0]));
    MT_OK(MPI_Type_free(&d)); /* the pending receive keeps it */
    MT_OK(MPI_Isend(s, count, c->type, partner, 3, MPI_COMM_WORLD, &req[1]));
    MT_OK(MPI_Waitall(2, req, st));
    check_status(c, count, &st[0]);
    check_scattered(c, count, r, 0);
    free(s);
    free(r);
}

static void case_d(const tcase_t *c, int count)
{
    int *s = sender_buf(c, count), *r = recv_buf(c, count);
    MPI_Status st;

    if (partner != rank) {
        if (rank < partner) {
            MT_OK(MPI_Send(s, count, c->type, partner, 4, MPI_COMM_WORLD));
            MT_OK(MPI_Recv(r, count, c->type, partner, 4, MPI_COMM_WORLD, &st));
        } else {
            MT_OK(MPI_Recv(r, count, c->type, partner, 4, MPI_COMM_WORLD, &st));
            MT_OK(MPI_Ssend(s, count, c->type, partner, 4, MPI_COMM_WORLD));
        }
        check_status(c, count, &st);
        check_scattered(c, count, r, 0);
        free(r);
        r = recv_buf(c, count);
    }
    MT_OK(MPI_Sendrecv(s, count, c->type, partner, 5, r, count, c->type, partner, 5,
                       MPI_COMM_WORLD, &st));
    check_status(c, count, &st);
    check_scattered(c, count, r, 0);
    /* replace: s's map gets the partner's values, the rest stays ours */
    MT_OK(MPI_Sendrecv_replace(s, count, c->type, partner, 6, partner, 6, MPI_COMM_WORLD,
                               &st));
    check_status(c, count, &st);
    for (long i = 0; i < count; ++i) {
        for (int e = 0; e < c->ne; ++e) {
            long j = c->off[e] + i * c->ext;
            MT_EQ(s[j], val(partner, j));
        }
    }
    free(s);
    free(r);
}

static void case_e(const tcase_t *c, int count)
{
    int *s = sender_buf(c, count), *r = recv_buf(c, count);
    MPI_Request req, rreq;
    MPI_Message msg;
    MPI_Status st;

    MT_OK(MPI_Isend(s, count, c->type, partner, 7, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Mprobe(partner, 7, MPI_COMM_WORLD, &msg, &st));
    MT_OK(MPI_Mrecv(r, count, c->type, &msg, &st));
    check_status(c, count, &st);
    check_scattered(c, count, r, 0);
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    free(r);
    r = recv_buf(c, count);
    MT_OK(MPI_Isend(s, count, c->type, partner, 8, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Mprobe(partner, 8, MPI_COMM_WORLD, &msg, &st));
    MT_OK(MPI_Imrecv(r, count, c->type, &msg, &rreq));
    MT_OK(MPI_Wait(&rreq, &st));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_status(c, count, &st);
    check_scattered(c, count, r, 0);
    free(s);
    free(r);
}

/* persistent: Recv_init/Send_init (and Ssend_init) on a dup freed at once, started twice */
static void case_f(const tcase_t *c, int count)
{
    int *s = sender_buf(c, count), *r = recv_buf(c, count);
    MPI_Datatype d;
    MPI_Request req[2];
    MPI_Status st[2];

    MT_OK(MPI_Type_dup(c->type, &d));
    MT_OK(MPI_Type_commit(&d));
    MT_OK(MPI_Recv_init(r, count, d, partner, 10, MPI_COMM_WORLD, &req[0]));
    if (count % 2) {
        MT_OK(MPI_Ssend_init(s, count, d, partner, 10, MPI_COMM_WORLD, &req[1]));
    } else {
        MT_OK(MPI_Send_init(s, count, d, partner, 10, MPI_COMM_WORLD, &req[1]));
    }
    MT_OK(MPI_Type_free(&d)); /* the requests keep it */
    for (int round = 0; round < 2; ++round) {
        MT_OK(MPI_Startall(2, req));
        MT_OK(MPI_Waitall(2, req, st));
        check_status(c, count, &st[0]);
        check_scattered(c, count, r, 0);
        MT_CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL);
        free(r);
        r = recv_buf(c, count);
        MPI_Request_free(&req[0]); /* rebind to the new buffer */
        MT_OK(MPI_Type_dup(c->type, &d));
        MT_OK(MPI_Type_commit(&d));
        MT_OK(MPI_Recv_init(r, count, d, partner, 10, MPI_COMM_WORLD, &req[0]));
        MT_OK(MPI_Type_free(&d));
    }
    MT_OK(MPI_Request_free(&req[0]));
    MT_OK(MPI_Request_free(&req[1]));
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    tcase_t cases[32];
    int ncases, small = argc > 1 && strcmp(argv[1], "small") == 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    make_types(cases, &ncases);
    for (int i = 0; i < ncases; ++i) {
        const tcase_t *c = &cases[i];
        int big = (1 << 20) / (c->ne * (int)sizeof(int)) + 1;
        int counts[2] = { 64 / (c->ne * (int)sizeof(int)) + 1, big };

        for (int k = 0; k < (small ? 1 : 2); ++k) {
            case_a_b(c, counts[k]);
            case_c(c, counts[k]);
            case_d(c, counts[k]);
            case_e(c, counts[k]);
            case_f(c, counts[k]);
        }
    }
    for (int i = 0; i < ncases; ++i) {
        MT_OK(MPI_Type_free(&cases[i].type));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("mpi_dt_p2p: passed on %d ranks (%d types)\n", size, ncases);
    }
    MPI_Finalize();
    return 0;
}
