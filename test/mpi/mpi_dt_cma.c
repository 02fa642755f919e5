/*
 * mpi_dt_cma.c: typed rendezvous sends that are not packed (issue 20: the
 * receiver reads the sender's pieces straight into its own with one
 * process_vm_readv for many blocks, both sides scattered).
 *
 * Every type here is written down twice: as an MPI type and as the list of
 * its byte pieces (offset, length) in type-map order with its extent, so
 * the expectation does not come from the engine. The message is the
 * stream: stream byte k has the value val(k, seed) wherever the sender's
 * pieces put it; the receiver's buffer must hold val(k) at its own map's
 * place of k and the sentinel everywhere else (gaps, past the end).
 * Rank 0 sends, rank 1 receives (other ranks only meet the barriers):
 *   send types  inline   16 pieces of 16 KiB (travel in the RTS)
 *               many     1100 pieces of 8200 B (more than IOV_MAX; the
 *                        array stays in the sender, read by the receiver)
 *               mixed    1200 pieces of 8 B..20 KB (8.7 KB on average), in
 *                        reverse address order
 *               resized  count 40 of a resized vector of 4 x 10 KiB
 *               medium   3000 pieces of 600 B, small 20000 pieces of 8 B
 *                        (both packed: below shm's 8 KiB piece rule; to
 *                        the rank itself neither is packed, the receive
 *                        copies from the send's layout: docs/p2p.md
 *                        "Rendezvous send to itself")
 *   receive as  the same type, MPI_BYTE, 8-byte pieces (a bounce, unpacked)
 *               and 5000-byte pieces (piece edges unlike the sender's)
 *   each        expected (receive posted first) and unexpected (send first)
 *   self        every rank sends each type to itself, received each way
 *               (pieces of 1 KiB and more: the self transport copies piece
 *               to piece; smaller: the receive copies from the send's
 *               layout, in one pass for the same type)
 *   truncate    "many" into 700 of its 1100 pieces: MPI_ERR_TRUNCATE, the
 *               first 700 x 8200 bytes delivered, nothing past them written
 * Usage: mpi_dt_cma inline: only the "inline" type, every receive form (the
 * driver runs it with LOOM_SHM_CMA=off on rank 1 only: rank 0 does not
 * pack, rank 1 cannot scatter-read it and reads piece by piece).
 * Usage: mpi_dt_cma [death_inline|death_remote|death_first]: rank 1 sends
 * rank 0 one "inline" message (so rank 0 already reads it with
 * process_vm_readv; not for death_first), then starts the send ("inline",
 * or "many" for death_remote) and kills itself; rank 0 (ignoring
 * loomrun's SIGTERM) receives 0.3 s later and must fail with
 * MPI_ERR_OTHER (the peer's death), not get data: it prints "death:
 * receive failed with MPI_ERR_OTHER" and leaves with _exit(0).
 */
#include "mpi_test_util.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SENTINEL 0xEEu
#define MAXP     4096

typedef struct tmap {
    const char  *name;
    MPI_Datatype type;
    int          count;       /* instances sent or received */
    int          np;          /* pieces of one instance, in type-map order */
    long        *off, *len;   /* [np] */
    long         extent;
} tmap_t;

static int rank;

static unsigned char val(long k, int seed)
{
    return (unsigned char)((k * 131 + seed * 17 + (k >> 9)) & 0xff);
}

static long tm_size(const tmap_t *t)
{
    long s = 0;

    for (int i = 0; i < t->np; ++i) {
        s += t->len[i];
    }
    return s * t->count;
}

static long tm_span(const tmap_t *t)
{
    long end = 0;

    for (int i = 0; i < t->np; ++i) {
        end = t->off[i] + t->len[i] > end ? t->off[i] + t->len[i] : end;
    }
    return (t->count - 1) * t->extent + end;
}

/* put stream bytes [0, nbytes) with val(k, seed) where @p t places them */
MT_OWN_DATA static void tm_fill(const tmap_t *t, unsigned char *buf, long nbytes, int seed)
{
    long k = 0;

    for (int c = 0; c < t->count; ++c) {
        for (int i = 0; i < t->np; ++i) {
            for (long j = 0; j < t->len[i] && k < nbytes; ++j, ++k) {
                buf[c * t->extent + t->off[i] + j] = val(k, seed);
            }
        }
    }
}

static void tm_new(tmap_t *t, const char *name, int np)
{
    t->name = name;
    t->np   = np;
    t->off  = calloc((size_t)np, sizeof(long));
    t->len  = calloc((size_t)np, sizeof(long));
    MT_CHECK(t->off != NULL && t->len != NULL);
}

/* vector(n, blen, stride) of MPI_BYTE, @p count instances */
static void tm_vector(tmap_t *t, const char *name, int n, int blen, int stride, int count)
{
    tm_new(t, name, n);
    for (int i = 0; i < n; ++i) {
        t->off[i] = (long)i * stride;
        t->len[i] = blen;
    }
    t->extent = (long)(n - 1) * stride + blen;
    t->count  = count;
    MT_OK(MPI_Type_vector(n, blen, stride, MPI_BYTE, &t->type));
    MT_OK(MPI_Type_commit(&t->type));
}

/* 1200 pieces of 8..20000 bytes with 40-byte gaps, in reverse address order */
static void tm_mixed(tmap_t *t)
{
    static const int lens[] = { 4096, 20000, 300, 16000, 8, 12000 };
    int n = 1200, *bl = malloc(n * sizeof(int));
    MPI_Aint *disp = malloc(n * sizeof(MPI_Aint));
    long at = 0;

    MT_CHECK(bl != NULL && disp != NULL);
    tm_new(t, "mixed", n);
    for (int a = 0; a < n; ++a) {   /* a: address order; stream order is reversed */
        int i = n - 1 - a;

        t->off[i] = at;
        t->len[i] = lens[a % 6];
        at += t->len[i] + 40;
    }
    for (int i = 0; i < n; ++i) {
        bl[i]   = (int)t->len[i];
        disp[i] = t->off[i];
    }
    t->extent = at - 40;
    t->count  = 1;
    MT_OK(MPI_Type_create_hindexed(n, bl, disp, MPI_BYTE, &t->type));
    MT_OK(MPI_Type_commit(&t->type));
    free(bl);
    free(disp);
}

/* count 40 of vector(4, 10 KiB, 12 KiB) resized to 4 x 12 KiB + 512 */
static void tm_resized(tmap_t *t)
{
    MPI_Datatype v;

    tm_vector(t, "resized", 4, 10240, 12288, 40);
    v = t->type;
    t->extent = 4 * 12288 + 512;
    MT_OK(MPI_Type_create_resized(v, 0, t->extent, &t->type));
    MT_OK(MPI_Type_commit(&t->type));
    MT_OK(MPI_Type_free(&v));
}

/* a receive type of pieces of @p blen bytes (stride blen + 8) holding @p bytes */
static void tm_recv(tmap_t *t, const char *name, int blen, long bytes)
{
    tm_vector(t, name, (int)((bytes + blen - 1) / blen), blen, blen + 8, 1);
}

static void tm_free(tmap_t *t)
{
    MT_OK(MPI_Type_free(&t->type));
    free(t->off);
    free(t->len);
}

/*
 * Send @p s from rank 0 to rank 1 received as @p r (expected or not);
 * rank 1 checks every byte of its buffer. @p trunc: the receive is too
 * small and must fail with MPI_ERR_TRUNCATE after delivering its capacity.
 */
static void one_case(const tmap_t *s, const tmap_t *r, int unexpected, int trunc, int seed)
{
    long n = tm_size(s), cap = tm_size(r), got = trunc ? cap : n;
    long sspan = tm_span(s), rspan = tm_span(r) + 64;
    unsigned char *buf, *want;
    MPI_Request req;
    MPI_Status st;
    int cnt = -1;

    if (rank == 0) {
        buf = malloc((size_t)sspan);
        MT_CHECK(buf != NULL);
        memset(buf, SENTINEL, (size_t)sspan);
        tm_fill(s, buf, n, seed);
        if (!unexpected) {
            MT_OK(MPI_Barrier(MPI_COMM_WORLD));
            MT_OK(MPI_Send(buf, s->count, s->type, 1, seed, MPI_COMM_WORLD));
        } else {
            MT_OK(MPI_Isend(buf, s->count, s->type, 1, seed, MPI_COMM_WORLD, &req));
            MT_OK(MPI_Barrier(MPI_COMM_WORLD));
            MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        free(buf);
    } else if (rank == 1) {
        buf  = malloc((size_t)rspan);
        want = malloc((size_t)rspan);
        MT_CHECK(buf != NULL && want != NULL);
        memset(buf, SENTINEL, (size_t)rspan);
        memset(want, SENTINEL, (size_t)rspan);
        tm_fill(r, want, got, seed);
        if (!unexpected) {
            MT_OK(MPI_Irecv(buf, r->count, r->type, 0, seed, MPI_COMM_WORLD, &req));
            MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        } else {
            MT_OK(MPI_Barrier(MPI_COMM_WORLD));
            MT_OK(MPI_Irecv(buf, r->count, r->type, 0, seed, MPI_COMM_WORLD, &req));
        }
        if (trunc) {
            MT_ERR(MPI_Wait(&req, &st), MPI_ERR_TRUNCATE);
        } else {
            MT_OK(MPI_Wait(&req, &st));
        }
        MT_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
        MT_EQ(cnt, got);
        long i = mt_first_diff(buf, want, rspan);
        if (i >= 0) {
            MT_FAIL("send %s as %s (%s%s): byte %ld of the receive buffer is 0x%02x, "
                    "expected 0x%02x", s->name, r->name,
                    unexpected ? "unexpected" : "expected", trunc ? ", truncated" : "", i,
                    buf[i], want[i]);
        }
        free(buf);
        free(want);
    } else {
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* every rank sends @p s to itself (the self transport), received as @p r */
static void one_self(const tmap_t *s, const tmap_t *r, int seed)
{
    long n = tm_size(s), sspan = tm_span(s), rspan = tm_span(r) + 64;
    unsigned char *sbuf = malloc((size_t)sspan), *buf = malloc((size_t)rspan);
    unsigned char *want = malloc((size_t)rspan);
    MPI_Request req;
    MPI_Status st;
    int cnt = -1;

    MT_CHECK(sbuf != NULL && buf != NULL && want != NULL);
    memset(sbuf, SENTINEL, (size_t)sspan);
    memset(buf, SENTINEL, (size_t)rspan);
    memset(want, SENTINEL, (size_t)rspan);
    tm_fill(s, sbuf, n, seed);
    tm_fill(r, want, n, seed);
    MT_OK(MPI_Isend(sbuf, s->count, s->type, rank, seed, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Recv(buf, r->count, r->type, rank, seed, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    MT_EQ(cnt, n);
    long i = mt_first_diff(buf, want, rspan);
    if (i >= 0) {
        MT_FAIL("self: send %s as %s: byte %ld is 0x%02x, expected 0x%02x", s->name, r->name,
                i, buf[i], want[i]);
    }
    free(sbuf);
    free(buf);
    free(want);
}

/* every receive form of send type @p s */
static void cases_of(tmap_t *s, int seed)
{
    long n = tm_size(s);
    tmap_t bytes, small, big;

    tm_new(&bytes, "bytes", 1);
    bytes.off[0] = 0;
    bytes.len[0] = n;
    bytes.extent = n;
    bytes.count  = 1;
    MT_OK(MPI_Type_contiguous((int)n, MPI_BYTE, &bytes.type));
    MT_OK(MPI_Type_commit(&bytes.type));
    tm_recv(&small, "8-byte pieces", 8, n);
    tm_recv(&big, "5000-byte pieces", 5000, n);
    for (int u = 0; u < 2; ++u) {
        one_case(s, s, u, 0, seed + u);
        one_case(s, &bytes, u, 0, seed + 2 + u);
        one_case(s, &small, u, 0, seed + 4 + u);
        one_case(s, &big, u, 0, seed + 6 + u);
    }
    one_self(s, s, seed + 8);
    one_self(s, &bytes, seed + 9);
    one_self(s, &small, seed + 10);
    one_self(s, &big, seed + 11);
    tm_free(&bytes);
    tm_free(&small);
    tm_free(&big);
}

/* rank 1 starts a send and dies; rank 0's receive must fail */
static void death(const char *mode)
{
    tmap_t t;
    int remote = strcmp(mode, "death_remote") == 0;
    unsigned char *buf;
    MPI_Request req;
    int rc, cls = -1;

    if (remote) {
        tm_vector(&t, "many", 1100, 8200, 8300, 1);
    } else {
        tm_vector(&t, "inline", 16, 16384, 20480, 1);
    }
    buf = calloc(1, (size_t)tm_span(&t));
    MT_CHECK(buf != NULL);
    signal(SIGTERM, SIG_IGN);   /* loomrun stops the job 0.25 s after the death */
    if (strcmp(mode, "death_first") != 0 && rank == 1) {
        MT_OK(MPI_Send(buf, 1, t.type, 0, 8, MPI_COMM_WORLD));
    } else if (strcmp(mode, "death_first") != 0 && rank == 0) {
        MT_OK(MPI_Recv(buf, 1, t.type, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        MT_OK(MPI_Isend(buf, 1, t.type, 0, 9, MPI_COMM_WORLD, &req));
        raise(SIGKILL);
    }
    if (rank == 0) {
        struct timespec ts = { 0, 300 * 1000 * 1000 };

        nanosleep(&ts, NULL);
        rc = MPI_Recv(buf, 1, t.type, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Error_class(rc, &cls);
        if (rc == MPI_SUCCESS || cls != MPI_ERR_OTHER) {
            MT_FAIL("death (%s): the receive from the dead rank returned %d (class %d), "
                    "expected class MPI_ERR_OTHER", mode, rc, cls);
        }
        printf("death: receive failed with MPI_ERR_OTHER\n");
        fflush(stdout);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    tmap_t inl, many, mixed, resized, medium, small, few;
    int size;

    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MT_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_CHECK(size >= 2);
    if (argc > 1 && strcmp(argv[1], "inline") == 0) {
        tm_vector(&inl, "inline", 16, 16384, 20480, 1);
        cases_of(&inl, 10);
        tm_free(&inl);
        MT_PASS("mpi_dt_cma inline");
        MT_OK(MPI_Finalize());
        return 0;
    }
    if (argc > 1) {
        death(argv[1]);
    }
    tm_vector(&inl, "inline", 16, 16384, 20480, 1);
    tm_vector(&many, "many", 1100, 8200, 8300, 1);
    tm_mixed(&mixed);
    tm_resized(&resized);
    tm_vector(&medium, "medium", 3000, 600, 1000, 1);
    tm_vector(&small, "small", 20000, 8, 16, 1);
    cases_of(&inl, 10);
    cases_of(&many, 20);
    cases_of(&mixed, 30);
    cases_of(&resized, 40);
    cases_of(&medium, 50);
    cases_of(&small, 70);
    tm_vector(&few, "many, 700 of its pieces", 700, 8200, 8300, 1);
    one_case(&many, &few, 0, 1, 90);
    one_case(&many, &few, 1, 1, 91);
    tm_free(&few);
    tm_free(&inl);
    tm_free(&many);
    tm_free(&mixed);
    tm_free(&resized);
    tm_free(&medium);
    tm_free(&small);
    MT_PASS("mpi_dt_cma");
    MT_OK(MPI_Finalize());
    return 0;
}
