/*
 * mpi_dt_intro.c: derived datatypes (issue 20) beyond moving data between
 * ranks: introspection (size, extents, true extents, the _x forms,
 * envelope/contents, names), MPI_Get_elements/Get_count on partial and
 * truncated receives, MPI_Pack/Unpack round trips, external32 bytes,
 * MPI_BOTTOM with absolute addresses (a struct from MPI_Get_address), and
 * the error classes (uncommitted types, bad arguments, calls that do not
 * take non-contiguous types yet), MPI_Cancel of a started persistent
 * receive into a derived type, value+index pair types inside other
 * types. Every expectation is written out by
 * hand. Runs on any number of ranks; each rank talks to itself.
 */
#include "mpi_test_util.h"

#include <string.h>
#include <sys/resource.h>

static MPI_Datatype vec; /* vector(3, 2, 4) of MPI_INT: ints 0 1 4 5 8 9 */

static void check_extents(void)
{
    MPI_Datatype ib, rs;
    MPI_Aint lb, ext;
    MPI_Count clb, cext, csz;
    int d[3] = { 1, 5, 8 }, sz;

    MT_OK(MPI_Type_size(vec, &sz));
    MT_EQ(sz, 24);
    MT_OK(MPI_Type_get_extent(vec, &lb, &ext));
    MT_EQ(lb, 0);
    MT_EQ(ext, 40);
    MT_OK(MPI_Type_get_true_extent(vec, &lb, &ext));
    MT_EQ(lb, 0);
    MT_EQ(ext, 40);
    MT_OK(MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &ib));
    MT_OK(MPI_Type_get_extent(ib, &lb, &ext));
    MT_EQ(lb, 4);
    MT_EQ(ext, 36);
    MT_OK(MPI_Type_get_extent_x(ib, &clb, &cext));
    MT_EQ(clb, 4);
    MT_EQ(cext, 36);
    MT_OK(MPI_Type_size_x(ib, &csz));
    MT_EQ(csz, 24);
    MT_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &rs));
    MT_OK(MPI_Type_get_extent(rs, &lb, &ext));
    MT_EQ(lb, -4);
    MT_EQ(ext, 16);
    MT_OK(MPI_Type_get_true_extent(rs, &lb, &ext));
    MT_EQ(lb, 0);
    MT_EQ(ext, 4);
    MT_OK(MPI_Type_get_true_extent_x(rs, &clb, &cext));
    MT_EQ(clb, 0);
    MT_EQ(cext, 4);
    MT_OK(MPI_Type_free(&ib));
    MT_OK(MPI_Type_free(&rs));
}

static void envelope(MPI_Datatype t, int ni, int na, int nt, int comb)
{
    int a, b, c, k;
    MT_OK(MPI_Type_get_envelope(t, &a, &b, &c, &k));
    MT_EQ(a, ni);
    MT_EQ(b, na);
    MT_EQ(c, nt);
    MT_EQ(k, comb);
}

static void check_contents(void)
{
    int ints[16], bl[2] = { 1, 2 };
    MPI_Aint addrs[4], d[2] = { 0, 8 };
    MPI_Datatype types[4], st, ct, hv, sub, tt[2] = { MPI_DOUBLE, vec };
    int sz[2] = { 4, 5 }, ss[2] = { 2, 3 }, s0[2] = { 1, 1 }, len;
    char name[MPI_MAX_OBJECT_NAME];

    envelope(MPI_INT, 0, 0, 0, MPI_COMBINER_NAMED);
    MT_ERR(MPI_Type_get_contents(MPI_INT, 1, 1, 1, ints, addrs, types), MPI_ERR_TYPE);
    envelope(vec, 3, 0, 1, MPI_COMBINER_VECTOR);
    MT_OK(MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, types));
    MT_EQ(ints[0], 3);
    MT_EQ(ints[1], 2);
    MT_EQ(ints[2], 4);
    MT_CHECK(types[0] == MPI_INT);
    MT_ERR(MPI_Type_get_contents(vec, 2, 0, 1, ints, addrs, types), MPI_ERR_ARG);
    MT_OK(MPI_Type_contiguous(5, MPI_INT, &ct));
    envelope(ct, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
    MT_OK(MPI_Type_get_contents(ct, 1, 0, 1, ints, addrs, types));
    MT_EQ(ints[0], 5);
    MT_CHECK(types[0] == MPI_INT);
    MT_OK(MPI_Type_create_hvector(2, 1, 24, ct, &hv));
    envelope(hv, 2, 1, 1, MPI_COMBINER_HVECTOR);
    MT_OK(MPI_Type_get_contents(hv, 2, 1, 1, ints, addrs, types));
    MT_EQ(addrs[0], 24);
    MT_CHECK(types[0] == ct); /* a derived input: a handle to free */
    MT_OK(MPI_Type_free(&types[0]));
    MT_OK(MPI_Type_free(&ct)); /* hv still holds it */
    MT_OK(MPI_Type_get_contents(hv, 2, 1, 1, ints, addrs, types)); /* a live handle again */
    MT_OK(MPI_Type_size(types[0], &len));
    MT_EQ(len, 20);
    MT_OK(MPI_Type_free(&types[0]));
    MT_ERR(MPI_Type_size(ct, &len), MPI_ERR_TYPE);
    MT_OK(MPI_Type_commit(&hv));
    MT_OK(MPI_Type_free(&hv));
    MT_OK(MPI_Type_create_struct(2, bl, d, tt, &st));
    envelope(st, 3, 2, 2, MPI_COMBINER_STRUCT);
    MT_OK(MPI_Type_get_contents(st, 3, 2, 2, ints, addrs, types));
    MT_EQ(ints[0], 2);
    MT_EQ(ints[1], 1);
    MT_EQ(ints[2], 2);
    MT_EQ(addrs[1], 8);
    MT_CHECK(types[0] == MPI_DOUBLE && types[1] == vec);
    MT_OK(MPI_Type_free(&types[1]));
    MT_OK(MPI_Type_create_subarray(2, sz, ss, s0, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    envelope(sub, 8, 0, 1, MPI_COMBINER_SUBARRAY);
    MT_OK(MPI_Type_get_contents(sub, 8, 0, 1, ints, addrs, types));
    MT_EQ(ints[0], 2);
    MT_EQ(ints[3], 2);
    MT_EQ(ints[7], MPI_ORDER_FORTRAN);
    MT_OK(MPI_Type_set_name(sub, "my subarray"));
    MT_OK(MPI_Type_get_name(sub, name, &len));
    MT_CHECK(strcmp(name, "my subarray") == 0);
    MT_OK(MPI_Type_dup(st, &types[0]));
    envelope(types[0], 0, 0, 1, MPI_COMBINER_DUP);
    MT_OK(MPI_Type_free(&types[0]));
    MT_OK(MPI_Type_free(&st));
    MT_OK(MPI_Type_free(&sub));
}

/* partial and truncated receives into vec (12 ints for count 2) */
static void check_elements(void)
{
    int src[13], dst[20], n, rank;
    MPI_Request req, rreq;
    MPI_Status st;
    MPI_Count nx;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 13; ++i) {
        src[i] = 100 + i;
    }
    for (int i = 0; i < 20; ++i) {
        dst[i] = -1;
    }
    MT_OK(MPI_Isend(src, 5, MPI_INT, rank, 1, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Recv(dst, 2, vec, rank, 1, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_OK(MPI_Get_count(&st, vec, &n));
    MT_EQ(n, MPI_UNDEFINED);
    MT_OK(MPI_Get_elements(&st, vec, &n));
    MT_EQ(n, 5);
    MT_OK(MPI_Get_elements_x(&st, vec, &nx));
    MT_EQ(nx, 5);
    {
        static const int want[20] = { 100, 101, -1, -1, 102, 103, -1, -1, 104, -1,
                                      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
        for (int i = 0; i < 20; ++i) {
            MT_EQ(dst[i], want[i]);
        }
    }
    /* a cancelled receive into a derived type */
    MT_OK(MPI_Irecv(dst, 2, vec, rank, 99, MPI_COMM_WORLD, &rreq));
    MT_OK(MPI_Cancel(&rreq));
    MT_OK(MPI_Wait(&rreq, &st));
    MT_OK(MPI_Test_cancelled(&st, &n));
    MT_EQ(n, 1);
    MT_EQ(dst[0], 100);
    /* MPI_Status_set_elements on a non-contiguous type */
    MT_OK(MPI_Status_set_elements(&st, vec, 5));
    MT_OK(MPI_Get_elements(&st, vec, &n));
    MT_EQ(n, 5);
    MT_OK(MPI_Get_count(&st, vec, &n));
    MT_EQ(n, MPI_UNDEFINED);
    MT_OK(MPI_Status_set_elements_x(&st, vec, 12));
    MT_OK(MPI_Get_count(&st, vec, &n));
    MT_EQ(n, 2);
    /* truncation: 13 ints into 12 */
    MT_OK(MPI_Isend(src, 13, MPI_INT, rank, 2, MPI_COMM_WORLD, &req));
    MT_ERR(MPI_Recv(dst, 2, vec, rank, 2, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_OK(MPI_Irecv(dst, 2, vec, rank, 3, MPI_COMM_WORLD, &rreq));
    MT_OK(MPI_Isend(src, 13, MPI_INT, rank, 3, MPI_COMM_WORLD, &req));
    MT_ERR(MPI_Wait(&rreq, &st), MPI_ERR_TRUNCATE);
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

static void check_pack(void)
{
    int src[20], dst[20], ints[12], pos = 0, sz;
    char buf[64];
    MPI_Aint apos = 0, asz;
    unsigned char e32[64];

    for (int i = 0; i < 20; ++i) {
        src[i] = 0x01020300 + i;
        dst[i] = -1;
    }
    MT_OK(MPI_Pack_size(2, vec, MPI_COMM_WORLD, &sz));
    MT_EQ(sz, 48);
    MT_OK(MPI_Pack(src, 2, vec, buf, (int)sizeof(buf), &pos, MPI_COMM_WORLD));
    MT_EQ(pos, 48);
    memcpy(ints, buf, 48);
    {
        static const int off[12] = { 0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19 };
        for (int i = 0; i < 12; ++i) {
            MT_EQ(ints[i], src[off[i]]);
        }
    }
    pos = 0;
    MT_OK(MPI_Unpack(buf, 48, &pos, dst, 2, vec, MPI_COMM_WORLD));
    MT_EQ(pos, 48);
    for (int i = 0; i < 20; ++i) {
        int in = i % 10 == 0 || i % 10 == 1 || i % 10 == 4 || i % 10 == 5 || i % 10 == 8 ||
                 i % 10 == 9;
        MT_EQ(dst[i], in ? src[i] : -1);
    }
    pos = 10;
    MT_ERR(MPI_Pack(src, 2, vec, buf, 40, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    /* external32: big-endian ints of the type map */
    MT_OK(MPI_Pack_external_size("external32", 1, vec, &asz));
    MT_EQ(asz, 24);
    MT_OK(MPI_Pack_external("external32", src, 1, vec, e32, sizeof(e32), &apos));
    MT_EQ(apos, 24);
    {
        static const unsigned char want[8] = { 1, 2, 3, 0, 1, 2, 3, 1 };
        MT_CHECK(memcmp(e32, want, 8) == 0);
        MT_EQ(e32[8 + 3], 4);  /* third int is src[4] = 0x01020304 */
    }
    for (int i = 0; i < 20; ++i) {
        dst[i] = -1;
    }
    apos = 0;
    MT_OK(MPI_Unpack_external("external32", e32, 24, &apos, dst, 1, vec));
    MT_EQ(apos, 24);
    MT_EQ(dst[9], src[9]);
    MT_EQ(dst[2], -1);
    apos = 0;
    MT_ERR(MPI_Pack_external("native", src, 1, vec, e32, sizeof(e32), &apos), MPI_ERR_ARG);
    apos = 0;
    MT_ERR(MPI_Pack_external("external32", src, 1, vec, e32, 20, &apos), MPI_ERR_TRUNCATE);
    {
        double dv = 1.0;
        apos = 0;
        MT_OK(MPI_Pack_external("external32", &dv, 1, MPI_DOUBLE, e32, 8, &apos));
        MT_EQ(e32[0], 0x3f);
        MT_EQ(e32[1], 0xf0);
        MT_EQ(e32[7], 0);
    }
}

struct rec {
    int    a;
    double b;
    int    c[3];
};

/* a struct type of @p r's fields at absolute addresses */
static MPI_Datatype abs_type(struct rec *r)
{
    int bl[3] = { 1, 1, 3 };
    MPI_Aint d[3];
    MPI_Datatype t[3] = { MPI_INT, MPI_DOUBLE, MPI_INT }, out;

    MT_OK(MPI_Get_address(&r->a, &d[0]));
    MT_OK(MPI_Get_address(&r->b, &d[1]));
    MT_OK(MPI_Get_address(r->c, &d[2]));
    MT_OK(MPI_Type_create_struct(3, bl, d, t, &out));
    MT_OK(MPI_Type_commit(&out));
    return out;
}

static void check_bottom(void)
{
    struct rec s = { 7, 2.5, { 1, 2, 3 } }, r = { 0, 0.0, { 0, 0, 0 } }, u;
    MPI_Datatype ts = abs_type(&s), tr = abs_type(&r), tu;
    MPI_Request req;
    MPI_Status st;
    int rank, n, pos = 0;
    char buf[64];

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MT_OK(MPI_Isend(MPI_BOTTOM, 1, ts, rank, 9, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Recv(MPI_BOTTOM, 1, tr, rank, 9, MPI_COMM_WORLD, &st));
    MT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_EQ(r.a, 7);
    MT_CHECK(r.b == 2.5);
    MT_EQ(r.c[2], 3);
    MT_OK(MPI_Get_elements(&st, tr, &n));
    MT_EQ(n, 5);
    MT_OK(MPI_Pack(MPI_BOTTOM, 1, ts, buf, (int)sizeof(buf), &pos, MPI_COMM_WORLD));
    MT_EQ(pos, 24);
    memset(&u, 0, sizeof(u));
    tu = abs_type(&u);
    pos = 0;
    MT_OK(MPI_Unpack(buf, 24, &pos, MPI_BOTTOM, 1, tu, MPI_COMM_WORLD));
    MT_EQ(u.a, 7);
    MT_CHECK(u.b == 2.5);
    MT_EQ(u.c[0], 1);
    MT_OK(MPI_Type_free(&ts));
    MT_OK(MPI_Type_free(&tr));
    MT_OK(MPI_Type_free(&tu));
}

static void check_errors(void)
{
    MPI_Datatype un, t;
    MPI_Request req;
    int x[64] = { 0 }, rank, pos = 0;
    char buf[64];

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MT_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &un)); /* never committed */
    MT_ERR(MPI_Send(x, 1, un, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_ERR(MPI_Isend(x, 1, un, rank, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
    MT_ERR(MPI_Recv(x, 1, un, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    MT_ERR(MPI_Pack(x, 1, un, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_ERR(MPI_Bcast(x, 1, un, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MT_OK(MPI_Type_free(&un));
    MT_ERR(MPI_Type_vector(-1, 1, 2, MPI_INT, &t), MPI_ERR_COUNT);
    MT_ERR(MPI_Type_vector(1, 1, 2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    MT_ERR(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    MT_ERR(MPI_Type_create_subarray(1, x, x, x, 77, MPI_INT, &t), MPI_ERR_ARG);
    MT_ERR(MPI_Type_commit(NULL), MPI_ERR_ARG);
    MT_ERR(MPI_Type_indexed(2, NULL, x, MPI_INT, &t), MPI_ERR_ARG);
    MT_ERR(MPI_Type_create_indexed_block(2, -1, x, MPI_INT, &t), MPI_ERR_ARG);
    MT_ERR(MPI_Type_create_hindexed(-1, x, NULL, MPI_INT, &t), MPI_ERR_COUNT);
}

/* 1 if the data bytes (value, then the int at its aligned offset) of pairs
 * @p i of @p a and @p j of @p b agree; @p ext is the C struct's size */
static int pair_same(const char *a, int i, const char *b, int j, MPI_Datatype pair)
{
    MPI_Aint lb, ext;
    int sz, v, o;

    MPI_Type_get_extent(pair, &lb, &ext);
    MPI_Type_size(pair, &sz);
    v = sz - (int)sizeof(int);
    o = (v + 3) & ~3;
    return memcmp(a + i * ext, b + j * ext, (size_t)v) == 0 &&
           memcmp(a + i * ext + o, b + j * ext + o, sizeof(int)) == 0;
}

/*
 * Non-contiguous types holding value+index pairs move and pack like any
 * other (they were refused with MPI_ERR_TYPE until session 20, when the
 * padded pairs' own sends stopped moving their C struct: mpi_int.h): a
 * vector of every pair type through Sendrecv into the pair type, a
 * Pack/Unpack round trip and Bcast; a struct of an int and a pair;
 * contiguous(4, DOUBLE_INT) and a contiguous vector of it.
 */
static void check_pair_types(int rank)
{
    const MPI_Datatype pairs[] = { MPI_DOUBLE_INT, MPI_FLOAT_INT, MPI_LONG_INT,
                                   MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INT };
    struct { double v; int i; } in[4] = { { 1.5, 1 }, { 2.5, 2 }, { 3.5, 3 }, { 4.5, 4 } },
                                out[4];
    long double x[64], y[64];
    MPI_Datatype t, c, st, types[2] = { MPI_INT, MPI_DOUBLE_INT };
    int bl[2] = { 1, 1 }, sz, psz, pos;
    MPI_Aint disp[2] = { 0, 32 };
    char buf[512];

    for (size_t b = 0; b < sizeof(x); b++) {
        ((unsigned char *)x)[b] = (unsigned char)(b % 251 + 1);
    }
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); ++k) {
        MT_OK(MPI_Type_vector(2, 1, 2, pairs[k], &t));
        MT_OK(MPI_Type_commit(&t));
        MT_OK(MPI_Type_size(pairs[k], &psz));
        MT_OK(MPI_Type_size(t, &sz));
        MT_EQ(sz, 2 * psz);
        MT_OK(MPI_Pack_size(1, t, MPI_COMM_WORLD, &sz));
        MT_EQ(sz, 2 * psz);
        memset(y, 0, sizeof(y));
        MT_OK(MPI_Sendrecv(x, 1, t, rank, 0, y, 2, pairs[k], rank, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        MT_CHECK(pair_same((char *)x, 0, (char *)y, 0, pairs[k]));
        MT_CHECK(pair_same((char *)x, 2, (char *)y, 1, pairs[k]));
        pos = 0;
        MT_OK(MPI_Pack(x, 1, t, buf, 512, &pos, MPI_COMM_WORLD));
        MT_EQ(pos, 2 * psz);
        memset(y, 0, sizeof(y));
        pos = 0;
        MT_OK(MPI_Unpack(buf, 512, &pos, y, 1, t, MPI_COMM_WORLD));
        MT_CHECK(pair_same((char *)x, 0, (char *)y, 0, pairs[k]));
        MT_CHECK(pair_same((char *)x, 2, (char *)y, 2, pairs[k]));
        MT_OK(MPI_Bcast(x, 1, t, 0, MPI_COMM_WORLD));   /* collectives expand pairs */
        MT_OK(MPI_Type_free(&t));
    }
    /* a pair type inside a struct with another type: 16 packed bytes */
    MT_OK(MPI_Type_create_struct(2, bl, disp, types, &st));
    MT_OK(MPI_Type_commit(&st));
    memset(y, 0, sizeof(y));
    MT_OK(MPI_Sendrecv(x, 1, st, rank, 0, y, 1, st, rank, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    MT_CHECK(memcmp(x, y, sizeof(int)) == 0);
    MT_CHECK(pair_same((char *)x + 32, 0, (char *)y + 32, 0, MPI_DOUBLE_INT));
    MT_OK(MPI_Pack_size(1, st, MPI_COMM_WORLD, &sz));
    MT_EQ(sz, 16);
    MT_OK(MPI_Type_free(&st));
    /* contiguous(4, DOUBLE_INT) and the vector(4, 1, 1) of it move the data */
    MT_OK(MPI_Type_contiguous(4, MPI_DOUBLE_INT, &c));
    MT_OK(MPI_Type_vector(4, 1, 1, MPI_DOUBLE_INT, &t));
    MT_OK(MPI_Type_commit(&c));
    MT_OK(MPI_Type_commit(&t));
    memset(out, 0, sizeof(out));
    MT_OK(MPI_Sendrecv(in, 1, c, rank, 9, out, 1, t, rank, 9, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; ++i) {
        MT_CHECK(out[i].v == in[i].v && out[i].i == in[i].i);
    }
    MT_OK(MPI_Type_free(&c));
    MT_OK(MPI_Type_free(&t));
}

/*
 * MPI_Cancel of a started persistent receive into a non-contiguous type:
 * nothing is sent on the tag, so the cancel succeeds and the request
 * completes cancelled (the receive was once left running forever), then
 * the request restarts and cancels again.
 */
static void check_persist_cancel(int rank)
{
    MPI_Request req;
    MPI_Status st;
    int buf[12] = { 0 }, done, flag;

    MT_OK(MPI_Recv_init(buf, 1, vec, rank, 77, MPI_COMM_WORLD, &req));
    for (int round = 0; round < 2; ++round) {
        MT_OK(MPI_Start(&req));
        MT_OK(MPI_Cancel(&req));
        done = 0;
        for (long i = 0; i < 1000000 && !done; ++i) {
            MT_OK(MPI_Test(&req, &done, &st));
        }
        MT_CHECK(done);
        flag = 0;
        MT_OK(MPI_Test_cancelled(&st, &flag));
        MT_EQ(flag, 1);
    }
    MT_OK(MPI_Request_free(&req));
    MT_CHECK(req == MPI_REQUEST_NULL);
}

/*
 * "startnomem" (release builds only: a sanitizer reserves too much address
 * space): with the address space capped, MPI_Start of a ~2 GiB persistent
 * receive into a derived type succeeds, since the engine receives straight
 * into the type's memory and allocates no packed copy of the message (it
 * once needed one, and returned MPI_ERR_NO_MEM here); the receive is then
 * cancelled.
 */
static void check_start_nomem(int rank)
{
    struct rlimit rl = { .rlim_cur = (rlim_t)1 << 30, .rlim_max = RLIM_INFINITY }, cur;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    MPI_Request req;
    int buf[12] = { 0 };

    MT_CHECK(f != NULL && fscanf(f, "%lu", &pages) == 1);
    fclose(f);
    rl.rlim_cur += (rlim_t)pages * 4096;     /* 1 GiB beyond what is mapped now */
    MT_CHECK(getrlimit(RLIMIT_AS, &cur) == 0);
    rl.rlim_max = cur.rlim_max;
    MT_CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
    MT_OK(MPI_Recv_init(buf, 0x7fffffff / 24, vec, rank, 78, MPI_COMM_WORLD, &req));
    MT_OK(MPI_Start(&req));
    MT_OK(MPI_Cancel(&req));
    MPI_Status st;
    int flag = 0;
    MT_OK(MPI_Wait(&req, &st));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Request_free(&req));
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        /* MPI_ERRORS_ARE_FATAL: an uncommitted type ends the job, naming the call */
        int x[4] = { 0 };
        MT_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
        MPI_Send(x, 1, vec, rank, 0, MPI_COMM_WORLD);
        MT_FAIL("MPI_Send of an uncommitted type returned");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    MT_OK(MPI_Type_commit(&vec));
    check_extents();
    check_contents();
    check_elements();
    check_pack();
    check_bottom();
    check_errors();
    check_persist_cancel(rank);
    check_pair_types(rank);
    if (argc > 1 && strcmp(argv[1], "startnomem") == 0) {
        check_start_nomem(rank);
    }
    MT_OK(MPI_Type_free(&vec));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("mpi_dt_intro: passed on %d ranks\n", size);
    }
    MPI_Finalize();
    return 0;
}
