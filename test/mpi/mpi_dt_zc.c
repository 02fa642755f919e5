/*
 * mpi_dt_zc.c: non-contiguous datatypes through the point-to-point engine's
 * typed paths (issue 20: eager frames packed into the transport and
 * unpacked from it, rendezvous read with get_iov or through a bounce).
 *
 * Every case is a type whose type map the test writes down by hand as
 * byte pieces of one instance (offset, length) and an extent, so the
 * expectation does not come from the engine. The message is the packed
 * stream: stream byte k has the value val(k, seed), wherever the sender's
 * map puts it; a receiver's buffer must hold val(k) at its own map's
 * position of k and its sentinel everywhere else (gaps, padding, past the
 * end). Ranks form a ring (send to rank+1, receive from rank-1) and, per
 * type, at an eager count (a few instances) and a rendezvous count
 * (300 KiB, or see Usage; LOOM_EAGER_LIMIT=0 makes every message one):
 *   expected   Irecv(derived) posted before a Barrier, then Send(derived)
 *   unexpected Isend(derived), Barrier, Recv(derived)
 *   to_bytes   Send(derived) -> Recv(MPI_BYTE)      (packed order)
 *   from_bytes Send(MPI_BYTE) -> Recv(derived)      (scatter, gaps kept)
 *   ssend      Ssend -> Irecv/Wait
 *   sendrecv   Sendrecv(derived, derived) around the ring
 *   persistent Send_init/Recv_init (types dup'ed and freed at once), two
 *              Startall/Waitall rounds with new data
 *   mprobe     Mprobe + Mrecv into the derived type
 *   self       Isend to itself, Recv (the self transport)
 *   truncate   count + 1 instances into count: MPI_ERR_TRUNCATE, the first
 *              count x size bytes delivered, nothing past them written,
 *              Get_count = count, Get_elements = count x elements
 *   partial    one instance and the first element of the next, as bytes:
 *              Get_count = MPI_UNDEFINED, Get_elements exact, data exact
 * Usage: mpi_dt_zc [small|large]  (rendezvous messages of 96 KiB for
 * sanitizers, or 2.2 MiB, beyond the engine's 1 MiB bounce buffer)
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>

#define MAXP     24
#define SENTINEL 0xEEu
#define JUNK     0x5Au

typedef struct piece {
    long off, len;
} piece_t;

typedef struct tcase {
    const char  *name;
    MPI_Datatype type;
    int          np;            /* pieces of one instance, in type-map order */
    piece_t      p[MAXP];
    long         extent;        /* bytes */
    int          nelem;         /* basic elements in one instance */
    int          first_elems;   /* basic elements in its first piece (all one size) */
} tcase_t;

static int rank, size, next, prev;
static long kib;

static unsigned char val(long k, int seed)
{
    return (unsigned char)((k * 131 + seed * 17 + (k >> 9)) & 0xff);
}

static long tc_size(const tcase_t *c)
{
    long s = 0;

    for (int i = 0; i < c->np; ++i) {
        s += c->p[i].len;
    }
    return s;
}

/* bytes a buffer of @p count instances spans (from buf, which is offset 0) */
static long tc_span(const tcase_t *c, long count)
{
    long end = 0;

    for (int i = 0; i < c->np; ++i) {
        long e = c->p[i].off + c->p[i].len;
        end = e > end ? e : end;
    }
    return count == 0 ? 0 : (count - 1) * c->extent + end;
}

/*
 * Walk the first @p nbytes of the packed stream of (count, c): stream byte
 * k lives at buffer offset pos. fill: write val(k); check: compare.
 * @return the first stream byte that differs, or -1.
 */
static long tc_walk(const tcase_t *c, long count, long nbytes, unsigned char *buf, int seed,
                    int fill)
{
    long k = 0;

    for (long i = 0; i < count && k < nbytes; ++i) {
        for (int j = 0; j < c->np && k < nbytes; ++j) {
            for (long b = 0; b < c->p[j].len && k < nbytes; ++b, ++k) {
                unsigned char *at = buf + i * c->extent + c->p[j].off + b;
                if (fill) {
                    *at = val(k, seed);
                } else if (*at != val(k, seed)) {
                    return k;
                }
            }
        }
    }
    return -1;
}

/* a buffer for @p count instances: junk (sender) or sentinel (receiver), + slack */
static unsigned char *tc_alloc(const tcase_t *c, long count, unsigned fillbyte)
{
    long n = tc_span(c, count) + 64;
    unsigned char *b = malloc((size_t)n);

    MT_CHECK(b != NULL);
    memset(b, (int)fillbyte, (size_t)n);
    return b;
}

/* the receiver's buffer holds exactly the first @p nbytes of the stream, and sentinels */
static void tc_check_recv(const tcase_t *c, long count, long nbytes, const unsigned char *buf,
                          int seed, const char *what)
{
    long span = tc_span(c, count) + 64;
    unsigned char *img = malloc((size_t)span);
    long k;

    MT_CHECK(img != NULL);
    memset(img, SENTINEL, (size_t)span);
    tc_walk(c, count, nbytes, img, seed, 1);
    if (memcmp(img, buf, (size_t)span) != 0) {
        long at = 0;
        while (img[at] == buf[at]) {
            ++at;
        }
        k = tc_walk(c, count, nbytes, (unsigned char *)buf, seed, 0);
        MT_FAIL("%s %s count %ld: buffer byte %ld is 0x%02x, expected 0x%02x (first wrong "
                "stream byte %ld)", c->name, what, count, at, buf[at], img[at], k);
    }
    free(img);
}

/* a contiguous buffer holds the stream's first @p nbytes */
static void check_bytes(const unsigned char *buf, long nbytes, int seed, const char *name,
                        const char *what)
{
    for (long k = 0; k < nbytes; ++k) {
        if (buf[k] != val(k, seed)) {
            MT_FAIL("%s %s: packed byte %ld is 0x%02x, expected 0x%02x", name, what, k, buf[k],
                    val(k, seed));
        }
    }
}

/* ---- the types, with their maps written by hand ------------------------------------ */

static int add_piece(tcase_t *c, long off, long len)
{
    MT_CHECK(c->np < MAXP);
    c->p[c->np++] = (piece_t){ off, len };
    return c->np;
}

static MPI_Datatype struct_type(tcase_t *c)
{
    /* { int a; double d[2]; char s[3]; }: pieces 0+4, 8+16, 24+3; extent 32 (align 8) */
    int bl[3] = { 1, 2, 3 };
    MPI_Aint d[3] = { 0, 8, 24 };
    MPI_Datatype t[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, s;

    MT_OK(MPI_Type_create_struct(3, bl, d, t, &s));
    if (c != NULL) {
        add_piece(c, 0, 4);
        add_piece(c, 8, 16);
        add_piece(c, 24, 3);
        c->extent = 32;
        c->nelem = 6;
        c->first_elems = 1;
    }
    return s;
}

static void make_cases(tcase_t *c, int *n)
{
    MPI_Datatype tmp, inner;
    int k = 0;

    memset(c, 0, sizeof(*c) * 12);
    /* vector of doubles: 4 blocks of 3, stride 5 */
    c[k].name = "vector";
    MT_OK(MPI_Type_vector(4, 3, 5, MPI_DOUBLE, &c[k].type));
    for (int j = 0; j < 4; ++j) {
        add_piece(&c[k], j * 40, 24);
    }
    c[k].extent = (3 * 5 + 3) * 8, c[k].nelem = 12, c[k].first_elems = 3;
    ++k;
    /* hvector of ints: 5 blocks of 2, 36 bytes apart */
    c[k].name = "hvector";
    MT_OK(MPI_Type_create_hvector(5, 2, 36, MPI_INT, &c[k].type));
    for (int j = 0; j < 5; ++j) {
        add_piece(&c[k], j * 36, 8);
    }
    c[k].extent = 4 * 36 + 8, c[k].nelem = 10, c[k].first_elems = 2;
    ++k;
    /* indexed ints, out of order and starting past 0 (true lb 8) */
    {
        int bl[3] = { 3, 1, 2 }, d[3] = { 2, 9, 6 };
        c[k].name = "indexed";
        MT_OK(MPI_Type_indexed(3, bl, d, MPI_INT, &c[k].type));
        add_piece(&c[k], 8, 12);
        add_piece(&c[k], 36, 4);
        add_piece(&c[k], 24, 8);
        /* lb = min displ = 8, ub = 40: extent 32 */
        c[k].extent = 32, c[k].nelem = 6, c[k].first_elems = 3;
        ++k;
    }
    c[k].name = "struct";
    c[k].type = struct_type(&c[k]);
    ++k;
    /* subarray: 3x4 of a 6x8 int array at (1, 2), C order */
    {
        int sz[2] = { 6, 8 }, sub[2] = { 3, 4 }, st[2] = { 1, 2 };
        c[k].name = "subarray";
        MT_OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &c[k].type));
        for (int r = 1; r <= 3; ++r) {
            add_piece(&c[k], (r * 8 + 2) * 4, 16);
        }
        c[k].extent = 6 * 8 * 4, c[k].nelem = 12, c[k].first_elems = 4;
        ++k;
    }
    /* subarray in Fortran order: 2x3 of 4x5 at (1, 1): columns of 2 */
    {
        int sz[2] = { 4, 5 }, sub[2] = { 2, 3 }, st[2] = { 1, 1 };
        c[k].name = "subarray_f";
        MT_OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_SHORT,
                                       &c[k].type));
        for (int col = 1; col <= 3; ++col) {
            add_piece(&c[k], (col * 4 + 1) * 2, 4);
        }
        c[k].extent = 4 * 5 * 2, c[k].nelem = 6, c[k].first_elems = 2;
        ++k;
    }
    /* resized with a gap: 2 ints, extent 20 */
    c[k].name = "resized_gap";
    MT_OK(MPI_Type_contiguous(2, MPI_INT, &tmp));
    MT_OK(MPI_Type_create_resized(tmp, 0, 20, &c[k].type));
    MT_OK(MPI_Type_free(&tmp));
    add_piece(&c[k], 0, 8);
    c[k].extent = 20, c[k].nelem = 2, c[k].first_elems = 2;
    ++k;
    /* nested: a vector of 3 structs, every other one */
    c[k].name = "nested_vec_struct";
    inner = struct_type(NULL);
    MT_OK(MPI_Type_vector(3, 1, 2, inner, &c[k].type));
    MT_OK(MPI_Type_free(&inner));
    for (int j = 0; j < 3; ++j) {
        add_piece(&c[k], j * 64 + 0, 4);
        add_piece(&c[k], j * 64 + 8, 16);
        add_piece(&c[k], j * 64 + 24, 3);
    }
    c[k].extent = 2 * 64 + 32, c[k].nelem = 18, c[k].first_elems = 1;
    ++k;
    /* nested: hvector of 2 (resized-with-gap pairs of shorts, 2 each) */
    c[k].name = "nested_hvec_resized";
    MT_OK(MPI_Type_vector(1, 2, 2, MPI_SHORT, &tmp));
    MT_OK(MPI_Type_create_resized(tmp, 0, 12, &inner));
    MT_OK(MPI_Type_free(&tmp));
    MT_OK(MPI_Type_create_hvector(2, 2, 40, inner, &c[k].type));
    MT_OK(MPI_Type_free(&inner));
    add_piece(&c[k], 0, 4);
    add_piece(&c[k], 12, 4);
    add_piece(&c[k], 40, 4);
    add_piece(&c[k], 52, 4);
    c[k].extent = 40 + 12 + 12, c[k].nelem = 8, c[k].first_elems = 2;
    ++k;
    /* contiguous after all: a vector of whole rows (the engine's
     * loom_dt_is_contig: the byte path); and one indexed block past 0 */
    c[k].name = "vector_contig";
    MT_OK(MPI_Type_vector(3, 2, 2, MPI_INT, &c[k].type));
    add_piece(&c[k], 0, 24);
    c[k].extent = 24, c[k].nelem = 6, c[k].first_elems = 6;
    ++k;
    {
        int bl = 3, d = 5;
        c[k].name = "indexed_one_block";
        MT_OK(MPI_Type_indexed(1, &bl, &d, MPI_INT, &c[k].type));
        add_piece(&c[k], 20, 12);
        c[k].extent = 12, c[k].nelem = 3, c[k].first_elems = 3;
        ++k;
    }
    for (int i = 0; i < k; ++i) {
        MPI_Aint lb, ext;
        int sz;
        MT_OK(MPI_Type_commit(&c[i].type));
        MT_OK(MPI_Type_get_extent(c[i].type, &lb, &ext));
        MT_OK(MPI_Type_size(c[i].type, &sz));
        if (ext != c[i].extent || sz != tc_size(&c[i])) {
            MT_FAIL("%s: extent %ld size %d, the test's map says %ld and %ld", c[i].name,
                    (long)ext, sz, c[i].extent, tc_size(&c[i]));
        }
    }
    *n = k;
}

/* ---- the scenarios (each rank sends to next, receives from prev) --------------------- */

static void sc_expected(const tcase_t *c, long count, int seed)
{
    unsigned char *s = tc_alloc(c, count, JUNK), *r = tc_alloc(c, count, SENTINEL);
    MPI_Request req;
    MPI_Status st;
    int n;

    tc_walk(c, count, count * tc_size(c), s, seed, 1);
    MT_OK(MPI_Irecv(r, (int)count, c->type, prev, 1, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Send(s, (int)count, c->type, next, 1, MPI_COMM_WORLD));
    MT_OK(MPI_Wait(&req, &st));
    MT_OK(MPI_Get_count(&st, c->type, &n));
    MT_EQ(n, count);
    MT_EQ(st.MPI_SOURCE, prev);
    tc_check_recv(c, count, count * tc_size(c), r, seed, "expected");
    free(s);
    free(r);
}

static void sc_unexpected(const tcase_t *c, long count, int seed)
{
    unsigned char *s = tc_alloc(c, count, JUNK), *r = tc_alloc(c, count, SENTINEL);
    MPI_Request req;
    MPI_Status st;
    int n;

    tc_walk(c, count, count * tc_size(c), s, seed, 1);
    MT_OK(MPI_Isend(s, (int)count, c->type, next, 2, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_OK(MPI_Recv(r, (int)count, c->type, prev, 2, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_OK(MPI_Get_elements(&st, c->type, &n));
    MT_EQ(n, count * c->nelem);
    tc_check_recv(c, count, count * tc_size(c), r, seed, "unexpected");
    free(s);
    free(r);
}

static void sc_to_bytes(const tcase_t *c, long count, int seed)
{
    long bytes = count * tc_size(c);
    unsigned char *s = tc_alloc(c, count, JUNK), *r = malloc((size_t)bytes + 1);
    MPI_Request req;
    MPI_Status st;
    int n;

    MT_CHECK(r != NULL);
    tc_walk(c, count, bytes, s, seed, 1);
    MT_OK(MPI_Irecv(r, (int)bytes, MPI_BYTE, prev, 3, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Send(s, (int)count, c->type, next, 3, MPI_COMM_WORLD));
    MT_OK(MPI_Wait(&req, &st));
    MT_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    MT_EQ(n, bytes);
    check_bytes(r, bytes, seed, c->name, "to_bytes");
    free(s);
    free(r);
}

static void sc_from_bytes(const tcase_t *c, long count, int seed)
{
    long bytes = count * tc_size(c);
    unsigned char *s = malloc((size_t)bytes + 1), *r = tc_alloc(c, count, SENTINEL);
    MPI_Request req;

    MT_CHECK(s != NULL);
    for (long k = 0; k < bytes; ++k) {
        s[k] = val(k, seed);
    }
    MT_OK(MPI_Isend(s, (int)bytes, MPI_BYTE, next, 4, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Recv(r, (int)count, c->type, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    tc_check_recv(c, count, bytes, r, seed, "from_bytes");
    free(s);
    free(r);
}

static void sc_ssend(const tcase_t *c, long count, int seed)
{
    unsigned char *s = tc_alloc(c, count, JUNK), *r = tc_alloc(c, count, SENTINEL);
    MPI_Request req;

    tc_walk(c, count, count * tc_size(c), s, seed, 1);
    MT_OK(MPI_Irecv(r, (int)count, c->type, prev, 5, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Ssend(s, (int)count, c->type, next, 5, MPI_COMM_WORLD));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    tc_check_recv(c, count, count * tc_size(c), r, seed, "ssend");
    free(s);
    free(r);
}

static void sc_sendrecv(const tcase_t *c, long count, int seed)
{
    unsigned char *s = tc_alloc(c, count, JUNK), *r = tc_alloc(c, count, SENTINEL);
    MPI_Status st;

    tc_walk(c, count, count * tc_size(c), s, seed, 1);
    MT_OK(MPI_Sendrecv(s, (int)count, c->type, next, 6, r, (int)count, c->type, prev, 6,
                       MPI_COMM_WORLD, &st));
    MT_EQ(st.MPI_SOURCE, prev);
    tc_check_recv(c, count, count * tc_size(c), r, seed, "sendrecv");
    free(s);
    free(r);
}

static void sc_persistent(const tcase_t *c, long count, int seed)
{
    unsigned char *s = tc_alloc(c, count, JUNK), *r = tc_alloc(c, count, SENTINEL);
    MPI_Datatype sd, rd;
    MPI_Request reqs[2];

    MT_OK(MPI_Type_dup(c->type, &sd));
    MT_OK(MPI_Type_dup(c->type, &rd));
    MT_OK(MPI_Recv_init(r, (int)count, rd, prev, 7, MPI_COMM_WORLD, &reqs[0]));
    MT_OK(MPI_Send_init(s, (int)count, sd, next, 7, MPI_COMM_WORLD, &reqs[1]));
    MT_OK(MPI_Type_free(&sd));   /* the requests keep them */
    MT_OK(MPI_Type_free(&rd));
    for (int round = 0; round < 2; ++round) {
        tc_walk(c, count, count * tc_size(c), s, seed + round, 1);
        memset(r, SENTINEL, (size_t)tc_span(c, count) + 64);
        MT_OK(MPI_Startall(2, reqs));
        MT_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        tc_check_recv(c, count, count * tc_size(c), r, seed + round, "persistent");
    }
    MT_OK(MPI_Request_free(&reqs[0]));
    MT_OK(MPI_Request_free(&reqs[1]));
    free(s);
    free(r);
}

static void sc_mprobe(const tcase_t *c, long count, int seed)
{
    unsigned char *s = tc_alloc(c, count, JUNK), *r = tc_alloc(c, count, SENTINEL);
    MPI_Request req;
    MPI_Message msg;
    MPI_Status st;
    int n;

    tc_walk(c, count, count * tc_size(c), s, seed, 1);
    MT_OK(MPI_Isend(s, (int)count, c->type, next, 8, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Mprobe(prev, 8, MPI_COMM_WORLD, &msg, &st));
    MT_OK(MPI_Get_count(&st, c->type, &n));
    MT_EQ(n, count);
    MT_OK(MPI_Mrecv(r, (int)count, c->type, &msg, &st));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    tc_check_recv(c, count, count * tc_size(c), r, seed, "mprobe");
    free(s);
    free(r);
}

static void sc_self(const tcase_t *c, long count, int seed)
{
    unsigned char *s = tc_alloc(c, count, JUNK), *r = tc_alloc(c, count, SENTINEL);
    MPI_Request req;

    tc_walk(c, count, count * tc_size(c), s, seed, 1);
    MT_OK(MPI_Isend(s, (int)count, c->type, rank, 9, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Recv(r, (int)count, c->type, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    tc_check_recv(c, count, count * tc_size(c), r, seed, "self");
    free(s);
    free(r);
}

static void sc_truncate(const tcase_t *c, long count, int seed)
{
    unsigned char *s = tc_alloc(c, count + 1, JUNK), *r = tc_alloc(c, count + 1, SENTINEL);
    MPI_Request req;
    MPI_Status st;
    int n;

    tc_walk(c, count + 1, (count + 1) * tc_size(c), s, seed, 1);
    MT_OK(MPI_Isend(s, (int)count + 1, c->type, next, 10, MPI_COMM_WORLD, &req));
    MT_ERR(MPI_Recv(r, (int)count, c->type, prev, 10, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_OK(MPI_Get_count(&st, c->type, &n));
    MT_EQ(n, count);
    MT_OK(MPI_Get_elements(&st, c->type, &n));
    MT_EQ(n, count * c->nelem);
    /* the first count instances arrived; the (count+1)-th's place keeps its sentinels */
    tc_check_recv(c, count + 1, count * tc_size(c), r, seed, "truncate");
    free(s);
    free(r);
}

static void sc_partial(const tcase_t *c, long count, int seed)
{
    long bytes = tc_size(c) + c->p[0].len / c->first_elems;   /* + one element */
    unsigned char *s = malloc((size_t)bytes), *r = tc_alloc(c, count, SENTINEL);
    MPI_Status st;
    int n;

    MT_CHECK(s != NULL && count >= 2);
    for (long k = 0; k < bytes; ++k) {
        s[k] = val(k, seed);
    }
    MT_OK(MPI_Sendrecv(s, (int)bytes, MPI_BYTE, next, 11, r, (int)count, c->type, prev, 11,
                       MPI_COMM_WORLD, &st));
    MT_OK(MPI_Get_count(&st, c->type, &n));
    MT_EQ(n, MPI_UNDEFINED);
    MT_OK(MPI_Get_elements(&st, c->type, &n));
    MT_EQ(n, c->nelem + 1);
    tc_check_recv(c, count, bytes, r, seed, "partial");
    free(s);
    free(r);
}

static void run_case(const tcase_t *c, long count, int seed)
{
    sc_expected(c, count, seed + 1);
    sc_unexpected(c, count, seed + 2);
    sc_to_bytes(c, count, seed + 3);
    sc_from_bytes(c, count, seed + 4);
    sc_ssend(c, count, seed + 5);
    sc_sendrecv(c, count, seed + 6);
    sc_persistent(c, count, seed + 7);
    sc_mprobe(c, count, seed + 9);
    sc_self(c, count, seed + 10);
    sc_truncate(c, count, seed + 11);
    sc_partial(c, count, seed + 12);
}

int main(int argc, char **argv)
{
    tcase_t cases[12];
    int n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* rendezvous data per message: "small" for sanitizers, "large" crosses the
     * engine's 1 MiB bounce buffer (several gets per message) */
    kib = argc > 1 && strcmp(argv[1], "small") == 0 ? 96
          : argc > 1 && strcmp(argv[1], "large") == 0 ? 2200 : 300;
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    make_cases(cases, &n);
    for (int i = 0; i < n; ++i) {
        long big = (kib << 10) / tc_size(&cases[i]);
        run_case(&cases[i], 3, 10 * i);
        run_case(&cases[i], big, 10 * i + 5);
        MT_OK(MPI_Type_free(&cases[i].type));
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_dt_zc");
    MPI_Finalize();
    return 0;
}
