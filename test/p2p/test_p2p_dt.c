/*
 * test_p2p_dt.c: the native point-to-point calls on derived datatypes
 * (loom_send_dt, ...; p2p/p2p_dt.c) in one process (a singleton job,
 * self-sends: the self transport's am_send_pack, and a rendezvous read
 * through the receive bounce since self has no get_iov).
 *
 * The type comes from the engine (dt_int.h): a vector of int32, 4 blocks of
 * 2 with stride 3, whose map the test writes down itself (ints 0,1 3,4 6,7
 * 9,10 of each instance of extent 11 ints). Every receive is checked int
 * by int, gaps included. Also: derived to bytes and back, eager and
 * rendezvous, expected and unexpected; ssend; persistent (type released
 * right after init); matched probe; cancel of a posted typed receive;
 * truncation (status bytes = capacity); the contiguous shortcut from
 * buf + true lb; PROC_NULL; a NULL or uncommitted type. Runs with
 * LOOM_ERRORS=return so errors come back as codes.
 */
#include "p2p_inject.h"   /* fill/holds; cunit_main.h, loom.h, the engine's headers */
#include "dt_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXT   11          /* ints per instance of vec() */
#define EAGER 3           /* instances: 96 bytes of data */
#define RNDV  40000       /* instances: 1.28 MB of data, past any eager limit */

static loom_dt_t *vec(void)
{
    loom_dt_t *t = NULL;

    CU_ASSERT_EQUAL_FATAL(loom_dt_create_vector(4, 2, 3, loom_dt_basic(LOOM_INT32), &t),
                          LOOM_OK);
    CU_ASSERT_EQUAL_FATAL(loom_dt_commit(t), LOOM_OK);
    return t;
}

/* int i of the buffer is in vec()'s map */
static int in_map(size_t i)
{
    return (i % EXT) % 3 != 2;
}

/* the sender's buffer: map ints hold k = their stream index, gaps -1 */
static int32_t *vec_buf(size_t count, int fill_map)
{
    int32_t *b = malloc(count * EXT * sizeof(int32_t));
    int32_t k = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    for (size_t i = 0; i < count * EXT; ++i) {
        b[i] = fill_map && in_map(i) ? k++ : -1;
    }
    return b;
}

/* the first @p nints stream ints arrived in map order, every other int is -1 */
static int vec_holds(const int32_t *b, size_t count, size_t nints)
{
    int32_t k = 0;

    for (size_t i = 0; i < count * EXT; ++i) {
        int32_t want = in_map(i) && (size_t)k < nints ? k : -1;
        if (in_map(i)) {
            ++k;
        }
        if (b[i] != want) {
            fprintf(stderr, "int %zu is %d, expected %d\n", i, b[i], want);
            return 0;
        }
    }
    return 1;
}

static void check_pair(size_t count, int unexpected)
{
    loom_dt_t *t = vec();
    int32_t *s = vec_buf(count, 1), *r = vec_buf(count, 0);
    loom_request_t rq, sq;
    loom_msg_status_t st;

    if (unexpected) {
        CU_ASSERT_EQUAL(loom_isend_dt(s, count, t, 0, 1, LOOM_COMM_WORLD, &sq), LOOM_OK);
        CU_ASSERT_EQUAL(loom_recv_dt(r, count, t, 0, 1, LOOM_COMM_WORLD, &st), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&sq, NULL), LOOM_OK);
    } else {
        CU_ASSERT_EQUAL(loom_irecv_dt(r, count, t, 0, 1, LOOM_COMM_WORLD, &rq), LOOM_OK);
        loom_dt_release(t);   /* the receive keeps its own reference */
        t = vec();
        CU_ASSERT_EQUAL(loom_send_dt(s, count, t, 0, 1, LOOM_COMM_WORLD), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&rq, &st), LOOM_OK);
    }
    CU_ASSERT_EQUAL(st.bytes, count * 8 * sizeof(int32_t));
    CU_ASSERT(vec_holds(r, count, count * 8));
    loom_dt_release(t);
    free(s);
    free(r);
}

static void test_derived_pairs(void)
{
    check_pair(EAGER, 0);
    check_pair(EAGER, 1);
    check_pair(RNDV, 0);
    check_pair(RNDV, 1);
}

/* derived -> int32 bytes (packed order) and int32 -> derived (scattered) */
static void test_to_from_bytes(void)
{
    static const size_t counts[2] = { EAGER, RNDV };

    for (int c = 0; c < 2; ++c) {
        size_t count = counts[c], n = count * 8;
        loom_dt_t *t = vec();
        int32_t *s = vec_buf(count, 1), *r = vec_buf(count, 0);
        int32_t *flat = malloc(n * sizeof(int32_t));
        loom_request_t q;

        CU_ASSERT_PTR_NOT_NULL_FATAL(flat);
        CU_ASSERT_EQUAL(loom_irecv(flat, n, LOOM_INT32, 0, 2, LOOM_COMM_WORLD, &q), LOOM_OK);
        CU_ASSERT_EQUAL(loom_ssend_dt(s, count, t, 0, 2, LOOM_COMM_WORLD), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&q, NULL), LOOM_OK);
        for (size_t k = 0; k < n; ++k) {
            if (flat[k] != (int32_t)k) {
                CU_FAIL("packed order");
                break;
            }
        }
        CU_ASSERT_EQUAL(loom_irecv_dt(r, count, t, 0, 3, LOOM_COMM_WORLD, &q), LOOM_OK);
        CU_ASSERT_EQUAL(loom_send(flat, n, LOOM_INT32, 0, 3, LOOM_COMM_WORLD), LOOM_OK);
        CU_ASSERT_EQUAL(loom_wait(&q, NULL), LOOM_OK);
        CU_ASSERT(vec_holds(r, count, n));
        loom_dt_release(t);
        free(s);
        free(r);
        free(flat);
    }
}

/* count + 1 instances into count: the first count arrive, TRUNCATED, bytes = capacity */
static void test_truncate(void)
{
    static const size_t counts[2] = { EAGER, RNDV };

    for (int c = 0; c < 2; ++c) {
        size_t count = counts[c];
        loom_dt_t *t = vec();
        int32_t *s = vec_buf(count + 1, 1), *r = vec_buf(count + 1, 0);
        loom_request_t q;
        loom_msg_status_t st;

        CU_ASSERT_EQUAL(loom_isend_dt(s, count + 1, t, 0, 4, LOOM_COMM_WORLD, &q), LOOM_OK);
        CU_ASSERT_EQUAL(loom_recv_dt(r, count, t, 0, 4, LOOM_COMM_WORLD, &st),
                        LOOM_ERR_TRUNCATED);
        CU_ASSERT_EQUAL(loom_wait(&q, NULL), LOOM_OK);
        CU_ASSERT_EQUAL(st.bytes, count * 8 * sizeof(int32_t));
        CU_ASSERT(vec_holds(r, count + 1, count * 8));
        loom_dt_release(t);
        free(s);
        free(r);
    }
}

static void test_persistent_and_mprobe(void)
{
    loom_dt_t *t = vec();
    int32_t *s = vec_buf(RNDV, 1), *r = vec_buf(RNDV, 0);
    loom_request_t arr[2];
    loom_message_t msg;
    loom_msg_status_t st;

    CU_ASSERT_EQUAL(loom_recv_init_dt(r, EAGER, t, 0, 5, LOOM_COMM_WORLD, &arr[0]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send_init_dt(s, EAGER, t, 0, 5, 1, LOOM_COMM_WORLD, &arr[1]),
                    LOOM_OK);
    loom_dt_release(t);   /* the requests hold it */
    for (int round = 0; round < 3; ++round) {
        memset(r, 0xff, EAGER * EXT * sizeof(int32_t));
        CU_ASSERT_EQUAL(loom_startall(2, arr), LOOM_OK);
        CU_ASSERT_EQUAL(loom_waitall(2, arr, NULL), LOOM_OK);
        CU_ASSERT(vec_holds(r, EAGER, EAGER * 8));
    }
    CU_ASSERT_EQUAL(loom_request_free(&arr[0]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_request_free(&arr[1]), LOOM_OK);
    /* matched probe of a rendezvous, received into the type */
    t = vec();
    memset(r, 0xff, RNDV * EXT * sizeof(int32_t));
    CU_ASSERT_EQUAL(loom_isend_dt(s, RNDV, t, 0, 6, LOOM_COMM_WORLD, &arr[1]), LOOM_OK);
    CU_ASSERT_EQUAL(loom_mprobe(0, 6, LOOM_COMM_WORLD, &msg, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.bytes, RNDV * 8 * sizeof(int32_t));
    CU_ASSERT_EQUAL(loom_mrecv_dt(r, RNDV, t, &msg, &st), LOOM_OK);
    CU_ASSERT_PTR_NULL(msg);
    CU_ASSERT_EQUAL(loom_wait(&arr[1], NULL), LOOM_OK);
    CU_ASSERT(vec_holds(r, RNDV, RNDV * 8));
    loom_dt_release(t);
    free(s);
    free(r);
}

/* a posted typed receive cancelled; the contiguous shortcut; PROC_NULL; bad types */
static void test_cancel_contig_errors(void)
{
    loom_dt_t *t = vec(), *one = NULL, *raw = NULL;
    int32_t buf[16], x[16];
    loom_request_t q;
    loom_msg_status_t st;

    CU_ASSERT_EQUAL(loom_irecv_dt(buf, 1, t, 0, 7, LOOM_COMM_WORLD, &q), LOOM_OK);
    CU_ASSERT_EQUAL(loom_cancel(&q), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&q, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.cancelled, 1);
    /* a vector of whole rows is contiguous: the byte path, 2 x 6 ints */
    CU_ASSERT_EQUAL(loom_dt_create_vector(2, 3, 3, loom_dt_basic(LOOM_INT32), &one), LOOM_OK);
    CU_ASSERT_EQUAL(loom_dt_commit(one), LOOM_OK);
    CU_ASSERT(loom_dt_is_contig(one, 2));
    for (int i = 0; i < 16; ++i) {
        buf[i] = i;
        x[i] = -1;
    }
    CU_ASSERT_EQUAL(loom_irecv_dt(x, 2, one, 0, 8, LOOM_COMM_WORLD, &q), LOOM_OK);
    CU_ASSERT_EQUAL(loom_send_dt(buf, 2, one, 0, 8, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_wait(&q, &st), LOOM_OK);
    CU_ASSERT_EQUAL(st.bytes, 48);
    for (int i = 0; i < 16; ++i) {
        CU_ASSERT_EQUAL(x[i], i < 12 ? i : -1);
    }
    CU_ASSERT_EQUAL(loom_send_dt(buf, 1, t, LOOM_PROC_NULL, 0, LOOM_COMM_WORLD), LOOM_OK);
    CU_ASSERT_EQUAL(loom_recv_dt(buf, 1, t, LOOM_PROC_NULL, 0, LOOM_COMM_WORLD, &st),
                    LOOM_OK);
    CU_ASSERT_EQUAL(st.source, LOOM_PROC_NULL);
    CU_ASSERT_EQUAL(loom_send_dt(buf, 1, NULL, 0, 0, LOOM_COMM_WORLD), LOOM_ERR_INVALID_TYPE);
    CU_ASSERT_EQUAL(loom_dt_create_vector(2, 1, 2, loom_dt_basic(LOOM_INT32), &raw), LOOM_OK);
    CU_ASSERT_EQUAL(loom_isend_dt(buf, 1, raw, 0, 0, LOOM_COMM_WORLD, &q),
                    LOOM_ERR_INVALID_TYPE);   /* not committed */
    CU_ASSERT_EQUAL(loom_send_dt(buf, 1, t, 5, 0, LOOM_COMM_WORLD), LOOM_ERR_INVALID_RANK);
    CU_ASSERT_EQUAL(loom_irecv_dt(buf, 1, t, 0, -7, LOOM_COMM_WORLD, &q),
                    LOOM_ERR_INVALID_TAG);
    loom_dt_release(raw);
    loom_dt_release(one);
    loom_dt_release(t);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "derived to derived: eager and rendezvous, expected and unexpected",
          test_derived_pairs },
        { "derived to bytes (ssend) and bytes to derived", test_to_from_bytes },
        { "truncation of eager and rendezvous typed receives", test_truncate },
        { "persistent typed requests and a matched probe", test_persistent_and_mprobe },
        { "cancel, contiguous shortcut, PROC_NULL, bad arguments", test_cancel_contig_errors },
        { NULL, NULL },
    };

    return loom_test_run_singleton("p2p_dt", cases);
}
