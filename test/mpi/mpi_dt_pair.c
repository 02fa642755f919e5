/*
 * mpi_dt_pair: the value+index pair types (MPI_DOUBLE_INT & co.) move their
 * data, not their C struct's padding (session 20, dt_int.h
 * LOOM_DT_PADDED_PAIRS): MPI_DOUBLE_INT is 12 bytes on the wire and in
 * MPI_Pack, so it matches any type of the same signature.
 *
 * Design. Each rank sends to the next rank and receives from the previous
 * one (on one rank: itself), at eager and rendezvous sizes, with the
 * receive posted first and again unexpected. Cases:
 *   wire      every pair type x n received as MPI_BYTE: the byte count is
 *             n x MPI_Type_size, and for the pairs without long double the
 *             bytes are the value's then the int's, back to back;
 *   equiv     MPI_DOUBLE_INT x n into a {double, int} struct type (resized
 *             to 16) and back; the receive's padding bytes keep their poison;
 *   mpich     MPICH's get_elements_pairtype: a {double, int, double, int}
 *             struct into 2 MPI_DOUBLE_INT (4 elements, 2 whole pairs), and
 *             {double, int, double} into 2 (3 elements, count undefined);
 *   derived   a vector of MPI_DOUBLE_INT (every other pair), sent and
 *             packed, which loom refused before, into MPI_DOUBLE_INT x n;
 *             Type_contiguous(3, MPI_LONG_INT) into MPI_LONG_INT x 3n;
 *   pack      MPI_Pack_size and MPI_Pack of pairs (12 n bytes), unpacked
 *             through the struct type;
 *   calls     Probe + Get_count, Ssend, Bsend, Bsend_init (in a buffer of
 *             MPI_Pack_size bytes), Sendrecv_replace, persistent requests,
 *             Mprobe/Mrecv, a truncated receive, a NULL buffer,
 *             MPI_Status_set_elements;
 *   coll      MINLOC allreduce and a bcast of MPI_DOUBLE_INT (collectives
 *             keep the C struct between ranks that all name the pair type).
 * argv[1] == "small": the largest size is left out (sanitizer builds).
 */
#include "mpi_test_util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double v; int i; } di_t;
typedef struct { long v; int i; } li_t;
typedef struct { short v; int i; } si_t;
typedef struct { float v; int i; } fi_t;
typedef struct { int v; int i; } ii_t;
typedef struct { long double v; int i; } ldi_t;

static int rank, size, next, prev;

static double dval(int r, size_t k)
{
    return (double)r * 1e6 + (double)k + 0.25;
}

static int ival(int r, size_t k)
{
    return -(int)(r * 100000 + (int)k);
}

/* post the receive then send, or send (nonblocking) then receive */
static void xfer(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int unexpected, MPI_Status *st)
{
    MPI_Request r[2];
    MPI_Status sts[2];

    if (unexpected) {
        MT_OK(MPI_Isend(sbuf, scount, stype, next, 3, MPI_COMM_WORLD, &r[0]));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        MT_OK(MPI_Irecv(rbuf, rcount, rtype, prev, 3, MPI_COMM_WORLD, &r[1]));
    } else {
        MT_OK(MPI_Irecv(rbuf, rcount, rtype, prev, 3, MPI_COMM_WORLD, &r[1]));
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        MT_OK(MPI_Isend(sbuf, scount, stype, next, 3, MPI_COMM_WORLD, &r[0]));
    }
    MT_OK(MPI_Waitall(2, r, sts));
    *st = sts[1];
}

/* ---- wire: n pairs arrive as n x Type_size bytes of data ----------------------- */

#define WIRE_CASE(T, MT, vfield_bytes, check_bytes)                                       \
    do {                                                                                  \
        T *s = malloc(n * sizeof(T));                                                     \
        unsigned char *b = malloc(n * sizeof(T) + 1);                                     \
        int tsize, got;                                                                   \
        MPI_Status st;                                                                    \
        MT_CHECK(s != NULL && b != NULL);                                                 \
        memset(s, 0x77, n * sizeof(T));                                                   \
        for (size_t k = 0; k < n; k++) {                                                  \
            s[k].v = (__typeof__(s[k].v))(rank * 1000 + (int)(k % 1000));                 \
            s[k].i = ival(rank, k);                                                       \
        }                                                                                 \
        MT_OK(MPI_Type_size(MT, &tsize));                                                 \
        MT_EQ(tsize, (int)(vfield_bytes + sizeof(int)));                                  \
        xfer(s, (int)n, MT, b, (int)(n * sizeof(T)), MPI_BYTE, unexpected, &st);          \
        MT_OK(MPI_Get_count(&st, MPI_BYTE, &got));                                        \
        MT_EQ(got, (int)n * tsize);                                                       \
        for (size_t k = 0; check_bytes && k < n; k++) {                                   \
            T want;                                                                       \
            want.v = (__typeof__(want.v))(prev * 1000 + (int)(k % 1000));                 \
            want.i = ival(prev, k);                                                       \
            if (memcmp(b + k * (size_t)tsize, &want.v, vfield_bytes) != 0 ||              \
                memcmp(b + k * (size_t)tsize + vfield_bytes, &want.i, sizeof(int)) != 0) { \
                MT_FAIL("wire %s: pair %zu of %zu is not value then int", #MT, k, n);     \
            }                                                                             \
        }                                                                                 \
        free(s);                                                                          \
        free(b);                                                                          \
    } while (0)

static void case_wire(size_t n, int unexpected)
{
    WIRE_CASE(di_t, MPI_DOUBLE_INT, sizeof(double), 1);
    WIRE_CASE(li_t, MPI_LONG_INT, sizeof(long), 1);
    WIRE_CASE(si_t, MPI_SHORT_INT, sizeof(short), 1);
    WIRE_CASE(fi_t, MPI_FLOAT_INT, sizeof(float), 1);
    WIRE_CASE(ii_t, MPI_2INT, sizeof(int), 1);
    WIRE_CASE(ldi_t, MPI_LONG_DOUBLE_INT, sizeof(long double), 0);
}

/* ---- equiv: MPI_DOUBLE_INT <-> an equivalent struct type ------------------------- */

static MPI_Datatype di_struct(void)
{
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { offsetof(di_t, v), offsetof(di_t, i) };
    MPI_Datatype types[2] = { MPI_DOUBLE, MPI_INT }, raw, t;

    MT_OK(MPI_Type_create_struct(2, bl, disp, types, &raw));
    MT_OK(MPI_Type_create_resized(raw, 0, sizeof(di_t), &t));
    MT_OK(MPI_Type_commit(&t));
    MT_OK(MPI_Type_free(&raw));
    return t;
}

static void fill_di(di_t *p, size_t n, int r)
{
    memset(p, 0x5a, n * sizeof(*p));
    for (size_t k = 0; k < n; k++) {
        p[k].v = dval(r, k);
        p[k].i = ival(r, k);
    }
}

/* every pair from rank r, and the padding bytes still 0x5a if @p pad */
static void check_di(const di_t *p, size_t n, int r, int pad, const char *what)
{
    for (size_t k = 0; k < n; k++) {
        if (p[k].v != dval(r, k) || p[k].i != ival(r, k)) {
            MT_FAIL("%s: pair %zu of %zu holds (%.17g, %d), want (%.17g, %d)", what, k, n,
                    p[k].v, p[k].i, dval(r, k), ival(r, k));
        }
        for (size_t b = offsetof(di_t, i) + sizeof(int); pad && b < sizeof(di_t); b++) {
            if (((const unsigned char *)&p[k])[b] != 0x5a) {
                MT_FAIL("%s: pair %zu padding byte %zu was written", what, k, b);
            }
        }
    }
}

static void case_equiv(size_t n, int unexpected)
{
    MPI_Datatype t = di_struct();
    di_t *s = malloc(n * sizeof(di_t)), *r = malloc(n * sizeof(di_t));
    MPI_Status st;
    int got;

    MT_CHECK(s != NULL && r != NULL);
    fill_di(s, n, rank);
    memset(r, 0x5a, n * sizeof(di_t));
    xfer(s, (int)n, MPI_DOUBLE_INT, r, (int)n, t, unexpected, &st);
    check_di(r, n, prev, 1, "pair into struct");
    MT_OK(MPI_Get_count(&st, t, &got));
    MT_EQ(got, (int)n);
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &got));
    MT_EQ(got, (int)n);
    MT_OK(MPI_Get_elements(&st, t, &got));
    MT_EQ(got, 2 * (int)n);

    memset(r, 0x5a, n * sizeof(di_t));
    xfer(s, (int)n, t, r, (int)n, MPI_DOUBLE_INT, unexpected, &st);
    check_di(r, n, prev, 1, "struct into pair");
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &got));
    MT_EQ(got, (int)n);
    MT_OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &got));
    MT_EQ(got, 2 * (int)n);
    MT_OK(MPI_Type_free(&t));
    free(s);
    free(r);
}

/* ---- mpich: a struct of two pairs, and of a pair and a half ---------------------- */

static void case_mpich(void)
{
    struct { double a; int b; double c; int d; } foo = { 1.5, 2, 3.5, 4 };
    di_t bar[2];
    int bl[4] = { 1, 1, 1, 1 }, count;
    MPI_Aint disp[4] = { 0, offsetof(__typeof__(foo), b), offsetof(__typeof__(foo), c),
                         offsetof(__typeof__(foo), d) };
    MPI_Datatype types[4] = { MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT }, t4, t3;
    MPI_Status st;

    MT_OK(MPI_Type_create_struct(4, bl, disp, types, &t4));
    MT_OK(MPI_Type_commit(&t4));
    MT_OK(MPI_Sendrecv(&foo, 1, t4, 0, 0, bar, 2, MPI_DOUBLE_INT, 0, 0, MPI_COMM_SELF, &st));
    MT_OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &count));
    MT_EQ(count, 4);
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &count));
    MT_EQ(count, 2);
    MT_CHECK(bar[0].v == 1.5 && bar[0].i == 2 && bar[1].v == 3.5 && bar[1].i == 4);

    MT_OK(MPI_Type_create_struct(3, bl, disp, types, &t3));
    MT_OK(MPI_Type_commit(&t3));
    memset(bar, 0, sizeof bar);
    MT_OK(MPI_Sendrecv(&foo, 1, t3, 0, 0, bar, 2, MPI_DOUBLE_INT, 0, 0, MPI_COMM_SELF, &st));
    MT_OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &count));
    MT_EQ(count, 3);
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &count));
    MT_EQ(count, MPI_UNDEFINED);
    MT_CHECK(bar[0].v == 1.5 && bar[0].i == 2 && bar[1].v == 3.5);
    MT_OK(MPI_Type_free(&t4));
    MT_OK(MPI_Type_free(&t3));
}

/* ---- derived: a vector of pairs and a contiguous type of pairs ------------------- */

static void case_derived(size_t n, int unexpected)
{
    MPI_Datatype vec, c3;
    di_t *s = malloc(2 * n * sizeof(di_t)), *r = malloc(n * sizeof(di_t));
    li_t *ls = malloc(3 * n * sizeof(li_t)), *lr = malloc(3 * n * sizeof(li_t));
    MPI_Status st;
    int got;

    MT_CHECK(s != NULL && r != NULL && ls != NULL && lr != NULL);
    MT_OK(MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE_INT, &vec));
    MT_OK(MPI_Type_commit(&vec));
    memset(s, 0, 2 * n * sizeof(di_t));
    for (size_t k = 0; k < n; k++) {
        s[2 * k].v = dval(rank, k);
        s[2 * k].i = ival(rank, k);
    }
    memset(r, 0x5a, n * sizeof(di_t));
    xfer(s, 1, vec, r, (int)n, MPI_DOUBLE_INT, unexpected, &st);
    check_di(r, n, prev, 1, "vector of pairs into pairs");
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &got));
    MT_EQ(got, (int)n);

    MT_OK(MPI_Type_contiguous(3, MPI_LONG_INT, &c3));
    MT_OK(MPI_Type_commit(&c3));
    for (size_t k = 0; k < 3 * n; k++) {
        ls[k].v = (long)dval(rank, k) * 3;
        ls[k].i = ival(rank, k);
    }
    memset(lr, 0, 3 * n * sizeof(li_t));
    xfer(ls, (int)n, c3, lr, 3 * (int)n, MPI_LONG_INT, unexpected, &st);
    for (size_t k = 0; k < 3 * n; k++) {
        MT_CHECK(lr[k].v == (long)dval(prev, k) * 3 && lr[k].i == ival(prev, k));
    }
    MT_OK(MPI_Get_count(&st, c3, &got));
    MT_EQ(got, (int)n);
    MT_OK(MPI_Get_count(&st, MPI_BYTE, &got));
    MT_EQ(got, 3 * (int)n * (int)(sizeof(long) + sizeof(int)));
    MT_OK(MPI_Type_free(&vec));
    MT_OK(MPI_Type_free(&c3));
    free(s);
    free(r);
    free(ls);
    free(lr);
}

/* ---- pack: 12 bytes a pair, unpacked through the struct type --------------------- */

static void case_pack(size_t n)
{
    MPI_Datatype t = di_struct(), vec;
    di_t *s = malloc(2 * n * sizeof(di_t)), *r = malloc(n * sizeof(di_t));
    int psize, pos = 0, bytes = (int)(n * 12);
    char *buf = malloc((size_t)bytes + 16);

    MT_CHECK(s != NULL && r != NULL && buf != NULL);
    MT_OK(MPI_Pack_size((int)n, MPI_DOUBLE_INT, MPI_COMM_WORLD, &psize));
    MT_EQ(psize, bytes);
    fill_di(s, n, rank);
    MT_OK(MPI_Pack(s, (int)n, MPI_DOUBLE_INT, buf, bytes + 16, &pos, MPI_COMM_WORLD));
    MT_EQ(pos, bytes);
    memset(r, 0x5a, n * sizeof(di_t));
    pos = 0;
    MT_OK(MPI_Unpack(buf, bytes, &pos, r, (int)n, t, MPI_COMM_WORLD));
    MT_EQ(pos, bytes);
    check_di(r, n, rank, 1, "pack pairs, unpack struct");

    /* a vector of pairs packs (loom refused it before) and unpacks as pairs */
    MT_OK(MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE_INT, &vec));
    MT_OK(MPI_Type_commit(&vec));
    memset(s, 0, 2 * n * sizeof(di_t));
    for (size_t k = 0; k < n; k++) {
        s[2 * k].v = dval(rank, k);
        s[2 * k].i = ival(rank, k);
    }
    MT_OK(MPI_Pack_size(1, vec, MPI_COMM_WORLD, &psize));
    MT_EQ(psize, bytes);
    pos = 0;
    MT_OK(MPI_Pack(s, 1, vec, buf, bytes + 16, &pos, MPI_COMM_WORLD));
    MT_EQ(pos, bytes);
    memset(r, 0x5a, n * sizeof(di_t));
    pos = 0;
    MT_OK(MPI_Unpack(buf, bytes, &pos, r, (int)n, MPI_DOUBLE_INT, MPI_COMM_WORLD));
    check_di(r, n, rank, 1, "pack a vector of pairs, unpack pairs");
    MT_OK(MPI_Type_free(&vec));
    MT_OK(MPI_Type_free(&t));
    free(s);
    free(r);
    free(buf);
}

/* ---- calls: the other point-to-point calls with a padded pair -------------------- */

static void calls_probe_ssend(di_t *s, di_t *r, size_t n)
{
    MPI_Status st;
    MPI_Request q;
    int got;

    MT_OK(MPI_Issend(s, (int)n, MPI_DOUBLE_INT, next, 5, MPI_COMM_WORLD, &q));
    MT_OK(MPI_Probe(prev, 5, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &got));
    MT_EQ(got, (int)n);
    MT_OK(MPI_Get_count(&st, MPI_BYTE, &got));
    MT_EQ(got, 12 * (int)n);
    memset(r, 0x5a, n * sizeof(di_t));
    MT_OK(MPI_Recv(r, got / 12, MPI_DOUBLE_INT, prev, 5, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    check_di(r, n, prev, 1, "probe + recv");
}

static void calls_bsend_replace(di_t *s, di_t *r, size_t n)
{
    int bsize = 0, got;
    void *att, *old;
    MPI_Status st;
    MPI_Request q;

    MT_OK(MPI_Pack_size((int)n, MPI_DOUBLE_INT, MPI_COMM_WORLD, &bsize));
    att = malloc((size_t)bsize + MPI_BSEND_OVERHEAD);
    MT_CHECK(att != NULL);
    MT_OK(MPI_Buffer_attach(att, bsize + MPI_BSEND_OVERHEAD));
    MT_OK(MPI_Bsend(s, (int)n, MPI_DOUBLE_INT, next, 6, MPI_COMM_WORLD));
    memset(r, 0x5a, n * sizeof(di_t));
    MT_OK(MPI_Recv(r, (int)n, MPI_DOUBLE_INT, prev, 6, MPI_COMM_WORLD, &st));
    check_di(r, n, prev, 1, "bsend");
    MT_OK(MPI_Buffer_detach(&old, &bsize));
    bsize -= MPI_BSEND_OVERHEAD;

    /* a persistent buffered send packs the pairs too: Pack_size's bytes are room
     * enough (each start has the buffer to itself: detach waits for its send) */
    MT_OK(MPI_Bsend_init(s, (int)n, MPI_DOUBLE_INT, next, 6, MPI_COMM_WORLD, &q));
    for (int it = 0; it < 2; it++) {
        MT_OK(MPI_Buffer_attach(att, bsize + MPI_BSEND_OVERHEAD));
        MT_OK(MPI_Start(&q));
        memset(r, 0x5a, n * sizeof(di_t));
        MT_OK(MPI_Recv(r, (int)n, MPI_DOUBLE_INT, prev, 6, MPI_COMM_WORLD, &st));
        MT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        MT_OK(MPI_Get_count(&st, MPI_BYTE, &got));
        MT_EQ(got, 12 * (int)n);
        check_di(r, n, prev, 1, "bsend_init");
        MT_OK(MPI_Buffer_detach(&old, &bsize));
        bsize -= MPI_BSEND_OVERHEAD;
    }
    MT_OK(MPI_Request_free(&q));
    free(att);

    fill_di(r, n, rank);
    MT_OK(MPI_Sendrecv_replace(r, (int)n, MPI_DOUBLE_INT, next, 7, prev, 7, MPI_COMM_WORLD,
                               &st));
    check_di(r, n, prev, 1, "sendrecv_replace");
}

static void calls_persist_mprobe(di_t *s, di_t *r, size_t n)
{
    MPI_Request q[2];
    MPI_Message m;
    MPI_Status st;
    int got;

    MT_OK(MPI_Recv_init(r, (int)n, MPI_DOUBLE_INT, prev, 8, MPI_COMM_WORLD, &q[0]));
    MT_OK(MPI_Send_init(s, (int)n, MPI_DOUBLE_INT, next, 8, MPI_COMM_WORLD, &q[1]));
    for (int it = 0; it < 2; it++) {
        memset(r, 0x5a, n * sizeof(di_t));
        MT_OK(MPI_Startall(2, q));
        MT_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        check_di(r, n, prev, 1, "persistent");
    }
    MT_OK(MPI_Request_free(&q[0]));
    MT_OK(MPI_Request_free(&q[1]));

    MT_OK(MPI_Isend(s, (int)n, MPI_DOUBLE_INT, next, 9, MPI_COMM_WORLD, &q[0]));
    MT_OK(MPI_Mprobe(prev, 9, MPI_COMM_WORLD, &m, &st));
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &got));
    MT_EQ(got, (int)n);
    memset(r, 0x5a, n * sizeof(di_t));
    MT_OK(MPI_Mrecv(r, (int)n, MPI_DOUBLE_INT, &m, &st));
    MT_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    check_di(r, n, prev, 1, "mprobe + mrecv");
}

static void calls_errors(di_t *s, di_t *r, size_t n)
{
    MPI_Status st;
    MPI_Request q;
    int got;

    /* n pairs into n - 1: truncated, the n - 1 delivered */
    MT_OK(MPI_Isend(s, (int)n, MPI_DOUBLE_INT, next, 10, MPI_COMM_WORLD, &q));
    memset(r, 0x5a, n * sizeof(di_t));
    MT_ERR(MPI_Recv(r, (int)n - 1, MPI_DOUBLE_INT, prev, 10, MPI_COMM_WORLD, &st),
           MPI_ERR_TRUNCATE);
    MT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    check_di(r, n - 1, prev, 1, "truncated");
    for (size_t b = 0; b < sizeof(di_t); b++) {
        MT_CHECK(((unsigned char *)&r[n - 1])[b] == 0x5a);
    }
    /* a NULL buffer names the error instead of reading address 0 */
    MT_ERR(MPI_Send(NULL, 2, MPI_DOUBLE_INT, next, 11, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MT_ERR(MPI_Irecv(NULL, 2, MPI_DOUBLE_INT, prev, 11, MPI_COMM_WORLD, &q), MPI_ERR_BUFFER);
    /* five elements are two pairs and a value */
    MT_OK(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 5));
    MT_OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &got));
    MT_EQ(got, 5);
    MT_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &got));
    MT_EQ(got, MPI_UNDEFINED);
    MT_OK(MPI_Get_count(&st, MPI_BYTE, &got));
    MT_EQ(got, 2 * 12 + (int)sizeof(double));
}

static void case_calls(size_t n)
{
    di_t *s = malloc(n * sizeof(di_t)), *r = malloc(n * sizeof(di_t));

    MT_CHECK(s != NULL && r != NULL);
    fill_di(s, n, rank);
    calls_probe_ssend(s, r, n);
    calls_bsend_replace(s, r, n);
    calls_persist_mprobe(s, r, n);
    calls_errors(s, r, n);
    free(s);
    free(r);
}

/* ---- coll: the collectives still take the pair types as before ------------------- */

static void case_coll(size_t n)
{
    di_t *s = malloc(n * sizeof(di_t)), *r = malloc(n * sizeof(di_t));

    MT_CHECK(s != NULL && r != NULL);
    for (size_t k = 0; k < n; k++) {
        s[k].v = (double)((rank + (int)k) % size);
        s[k].i = rank;
    }
    MT_OK(MPI_Allreduce(s, r, (int)n, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    for (size_t k = 0; k < n; k++) {
        /* value 0 is held by the rank with (rank + k) % size == 0 */
        int who = (int)((size - (int)(k % (size_t)size)) % size);
        MT_CHECK(r[k].v == 0.0 && r[k].i == who);
    }
    fill_di(r, n, 0);
    if (rank != 0) {
        memset(r, 0, n * sizeof(di_t));
    }
    MT_OK(MPI_Bcast(r, (int)n, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD));
    check_di(r, n, 0, 0, "bcast");
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    size_t sizes[] = { 1, 3, 700, 40000, 300000 };
    int nsizes = 5;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    if (argc > 1 && strcmp(argv[1], "small") == 0) {
        nsizes = 4;
    }
    case_mpich();
    for (int k = 0; k < nsizes; k++) {
        for (int unexpected = 0; unexpected < 2; unexpected++) {
            case_wire(sizes[k], unexpected);
            case_equiv(sizes[k], unexpected);
            case_derived(sizes[k], unexpected);
        }
        case_pack(sizes[k]);
        case_calls(sizes[k] > 1 ? sizes[k] : 2);
        case_coll(sizes[k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MT_PASS("mpi_dt_pair");
    MPI_Finalize();
    return 0;
}
