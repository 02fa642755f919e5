/*
 * p2p.c: the public point-to-point calls: argument checks, LOOM_PROC_NULL
 * and the blocking fast path (the error policy, LOOM_ERRORS, is p2p_error.c).
 *
 * loom_send of a message within the eager limit to a peer with nothing
 * queued is a straight line: validate, build a 24-byte header on the stack,
 * am_send. No request, no allocation. Anything else (back-pressure,
 * rendezvous, ssend) takes the nonblocking path and waits.
 *
 * loom_recv from one peer with nothing posted or unexpected is the
 * mirror image when the peer's transport can peek (am_peek): spin on the
 * peer's next frame and copy an eager message for this receive straight
 * out of it. Anything else goes through a posted request.
 */
#include "p2p_engine_int.h"
#include "datatype_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <sys/types.h>

/* the checks' slow half: find what is wrong and say so */
static loom_status_t loom_p2p_check_slow(const void *buf, size_t count,
                                         loom_datatype_t dt, int rank, int tag,
                                         loom_comm_t comm, int is_recv, const char *op)
{
    loom_status_t st = loom_comm_check(comm, op);
    size_t dsize = loom_datatype_size(dt);

    if (st != LOOM_OK) {
        return st;
    }
    if (dsize == 0) {
        loom_error("p2p", "%s: datatype %d is not valid (0..%d)", op, (int)dt,
                   LOOM_DATATYPE_COUNT - 1);
        return LOOM_ERR_INVALID_TYPE;
    }
    if (count > (size_t)SSIZE_MAX / dsize) {
        loom_error("p2p", "%s: count %zu (as signed: %zd) is negative or too large for "
                   "datatype %s", op, count, (ssize_t)count, loom_datatype_name(dt));
        return LOOM_ERR_INVALID_COUNT;
    }
    if (buf == NULL && count > 0) {
        loom_error("p2p", "%s: buffer is NULL with count %zu", op, count);
        return LOOM_ERR_INVALID_BUFFER;
    }
    if (!(rank == LOOM_PROC_NULL || (rank >= 0 && rank < comm->remote_size) ||
          (is_recv && rank == LOOM_ANY_SOURCE))) {
        loom_error("p2p", "%s: rank %d is not valid for communicator '%s' of size %d "
                   "(0..%d%s, or LOOM_PROC_NULL)", op, rank, comm->name,
                   comm->remote_size, comm->remote_size - 1, is_recv ? ", LOOM_ANY_SOURCE" : "");
        return LOOM_ERR_INVALID_RANK;
    }
    if (!(tag >= 0 || (is_recv && tag == LOOM_ANY_TAG))) {
        loom_error("p2p", "%s: tag %d is not valid (0..%d%s)", op, tag, LOOM_TAG_UB,
                   is_recv ? ", or LOOM_ANY_TAG" : "");
        return LOOM_ERR_INVALID_TAG;
    }
    return LOOM_ERR_INTERNAL;
}

/* validate a point-to-point call; *bytes_p is the message size */
static inline loom_status_t loom_p2p_check(const void *buf, size_t count,
                                           loom_datatype_t dt, int rank, int tag,
                                           loom_comm_t comm, int is_recv,
                                           const char *op, size_t *bytes_p)
{
    size_t bytes;

    if (loom_likely(loom_p2p_engine.state == LOOM_STATE_INIT && comm != NULL &&
                    comm->magic == LOOM_COMM_MAGIC && (unsigned)dt < LOOM_DATATYPE_COUNT)) {
        /* a multiply and an overflow flag, not a division, on every call */
        if (loom_likely(!__builtin_mul_overflow(count, loom_datatype_size_unchecked(dt),
                                                &bytes) &&
                        bytes <= (size_t)SSIZE_MAX &&
                        (buf != NULL || count == 0) &&
                        ((unsigned)rank < (unsigned)comm->remote_size ||
                         rank == LOOM_PROC_NULL || (is_recv && rank == LOOM_ANY_SOURCE)) &&
                        (tag >= 0 || (is_recv && tag == LOOM_ANY_TAG)))) {
            *bytes_p = bytes;
            return LOOM_OK;
        }
    }
    *bytes_p = 0;
    return loom_p2p_check_slow(buf, count, dt, rank, tag, comm, is_recv, op);
}

static void loom_p2p_status_proc_null(loom_msg_status_t *status)
{
    if (status != LOOM_STATUS_IGNORE) {
        status->source    = LOOM_PROC_NULL;
        status->tag       = LOOM_ANY_TAG;
        status->error     = LOOM_OK;
        status->cancelled = 0;
        status->bytes     = 0;
    }
}

/* a request that is already complete, for LOOM_PROC_NULL */
static loom_status_t loom_p2p_req_proc_null(loom_comm_t comm, loom_request_t *req_p)
{
    loom_request_t req = loom_request_alloc(LOOM_REQ_RECV, comm);

    if (req == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    loom_match_posted_prep(&loom_p2p_req(req)->posted, 0, LOOM_PROC_NULL, LOOM_ANY_TAG);
    loom_request_complete(req, LOOM_OK);
    loom_p2p_status_proc_null(&req->msg);
    *req_p = req;
    return LOOM_OK;
}

/* blocking send, general case: start, then wait */
static loom_status_t loom_p2p_send_wait(const void *buf, size_t bytes, int dest,
                                        int tag, loom_comm_t comm, unsigned flags,
                                        const char *op)
{
    loom_request_t req;
    loom_progress_waiter_t w;
    loom_status_t st = loom_p2p_isend_int(buf, bytes, dest, tag, comm, LOOM_CTX_P2P,
                                          flags, &req);

    if (st == LOOM_OK) {
        loom_progress_waiter_init(&w, op);
        while (!req->complete) {
            loom_progress_wait_step(&w);
        }
        loom_progress_waiter_fini(&w);
        st = req->status;
        loom_request_release(req);
    }
    return st < 0 ? loom_p2p_error_inline(st, op) : st;
}

/* loom_send's everything-else: errors, LOOM_PROC_NULL, rendezvous, back-pressure */
static __attribute__((noinline)) loom_status_t
loom_p2p_send_slow(const void *buf, size_t count, loom_datatype_t dt, int dest, int tag,
                   loom_comm_t comm)
{
    size_t bytes;
    loom_status_t st = loom_p2p_check(buf, count, dt, dest, tag, comm, 0, "loom_send",
                                      &bytes);

    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error_inline(st, "loom_send");
    }
    if (dest == LOOM_PROC_NULL) {
        return LOOM_OK;
    }
    return loom_p2p_send_wait(buf, bytes, dest, tag, comm, 0, "loom_send");
}

/*
 * The eager fast path is a straight line with no call but the transport's
 * am_send: the checks of loom_p2p_check for a send to a real rank, the
 * peer, one header on the stack. Anything else goes to the slow path,
 * which checks again and says what is wrong.
 */
loom_status_t loom_send(const void *buf, size_t count, loom_datatype_t dt, int dest,
                        int tag, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    size_t bytes;

    if (loom_likely(loom_p2p_engine.state == LOOM_STATE_INIT && comm != NULL &&
                    comm->magic == LOOM_COMM_MAGIC && (unsigned)dt < LOOM_DATATYPE_COUNT &&
                    !__builtin_mul_overflow(count, loom_datatype_size_unchecked(dt),
                                            &bytes) &&
                    bytes <= (size_t)SSIZE_MAX && (buf != NULL || count == 0) &&
                    (unsigned)dest < (unsigned)comm->remote_size && tag >= 0)) {
        loom_p2p_peer_t *peer = &loom_p2p_engine.peers[loom_comm_peer_world(comm, dest)];

        if (loom_likely(bytes <= peer->eager_limit && loom_list_is_empty(&peer->pending) &&
                        peer->failed == LOOM_OK)) {
            loom_p2p_hdr_t h = { .type = LOOM_P2P_EAGER,
                                 .ctx = loom_comm_ctx(comm, LOOM_CTX_P2P),
                                 .src = comm->rank, .tag = tag, .len = bytes };
            if (loom_likely(loom_tl_ep_am_send(peer->ep, &h, sizeof(h), buf, bytes) ==
                            LOOM_OK)) {
                return LOOM_OK;
            }
        }
    }
    return loom_p2p_send_slow(buf, count, dt, dest, tag, comm);
}

loom_status_t loom_ssend(const void *buf, size_t count, loom_datatype_t dt, int dest,
                         int tag, loom_comm_t comm)
{
    LOOM_MT_GUARD();
    size_t bytes;
    loom_status_t st = loom_p2p_check(buf, count, dt, dest, tag, comm, 0, "loom_ssend",
                                      &bytes);

    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error_inline(st, "loom_ssend");
    }
    if (dest == LOOM_PROC_NULL) {
        return LOOM_OK;
    }
    return loom_p2p_send_wait(buf, bytes, dest, tag, comm, LOOM_P2P_FLAG_SYNC,
                              "loom_ssend");
}

/* peeks between progress passes on loom_recv's direct path, and in all
 * before it hands over to a posted request (hang reports list requests).
 * A pass takes tens of ns and, when the frame lands during it, delivers
 * the frame as unexpected: with a pass every 16 peeks an 8 B ping-pong
 * took 6 ns longer one way than with one every 256. */
#define LOOM_P2P_DIRECT_POLLS 256u
#define LOOM_P2P_DIRECT_SPINS 4096u

/* spin on the peer's next frame: it (and *len_p), or NULL to hand over */
static inline const void *loom_p2p_recv_direct_wait(loom_p2p_peer_t *peer, size_t *len_p)
{
    const loom_p2p_engine_t *e = &loom_p2p_engine;
    unsigned spins = loom_progress_crowded() ? 1 : LOOM_P2P_DIRECT_SPINS;
    const void *data;

    /* nothing posted (no earlier receive can claim the frame) and nothing
     * unexpected (no earlier message can match this receive); a progress
     * pass below may change either */
    while ((e->match.num_posted | e->match.num_unexp) == 0 && peer->failed == LOOM_OK) {
        if ((data = loom_tl_ep_am_peek(peer->ep, len_p)) != NULL) {
            return data;
        }
        loom_cpu_relax();
        /* MULTIPLE: not while another thread waits for the engine lock
         * (the general path's passes hand it over) */
        if (--spins == 0 || loom_unlikely(loom_mt_someone_waits())) {
            break;
        }
        if (spins % LOOM_P2P_DIRECT_POLLS == 0) {
            loom_progress_int();   /* the other peers, queued frames, collectives */
        }
    }
    return NULL;
}

/* field @p f of the p2p header at @p frame, read in place (no aligned copy) */
#define LOOM_P2P_HDR_FIELD(frame, f, out) \
    memcpy(&(out), (const char *)(frame) + offsetof(loom_p2p_hdr_t, f), sizeof(out))

/*
 * loom_recv's direct path, for a receive from one peer whose transport can
 * peek: take the peer's next frame in place when it is an eager message
 * for this receive that fits (no request, no matching queue, no callback).
 * Anything else (another tag or communicator, rendezvous, ssend,
 * truncation, a failure, a wait long enough to be reported) is left where
 * it is for the general path, so MPI order holds. @return 1 when received.
 */
static inline int loom_p2p_recv_direct(void *buf, size_t bytes, int src, int tag,
                                       loom_comm_t comm, loom_msg_status_t *status)
{
    loom_p2p_peer_t *peer = &loom_p2p_engine.peers[loom_comm_peer_world(comm, src)];
    const uint8_t *frame;
    size_t len;
    uint32_t ctx;
    int32_t hsrc, htag;

    if (!peer->can_peek || (frame = loom_p2p_recv_direct_wait(peer, &len)) == NULL ||
        len < sizeof(loom_p2p_hdr_t) || frame[0] != LOOM_P2P_EAGER) {
        return 0;
    }
    LOOM_P2P_HDR_FIELD(frame, ctx, ctx);
    LOOM_P2P_HDR_FIELD(frame, src, hsrc);
    LOOM_P2P_HDR_FIELD(frame, tag, htag);
    len -= sizeof(loom_p2p_hdr_t);
    if (ctx != loom_comm_ctx(comm, LOOM_CTX_P2P) || hsrc != src ||
        (htag != tag && tag != LOOM_ANY_TAG) || len > bytes) {
        return 0;
    }
    loom_copy_small(buf, frame + sizeof(loom_p2p_hdr_t), len);
    loom_tl_ep_am_consume(peer->ep);
    if (status != LOOM_STATUS_IGNORE) {
        status->source    = hsrc;
        status->tag       = htag;
        status->error     = LOOM_OK;
        status->cancelled = 0;
        status->bytes     = len;
    }
    return 1;
}

loom_status_t loom_recv(void *buf, size_t count, loom_datatype_t dt, int src, int tag,
                        loom_comm_t comm, loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    size_t bytes;
    loom_request_t req;
    loom_status_t st = loom_p2p_check(buf, count, dt, src, tag, comm, 1, "loom_recv",
                                      &bytes);

    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error_inline(st, "loom_recv");
    }
    if (loom_unlikely(src == LOOM_PROC_NULL)) {
        loom_p2p_status_proc_null(status);
        return LOOM_OK;
    }
    if (src >= 0 && loom_p2p_recv_direct(buf, bytes, src, tag, comm, status)) {
        return LOOM_OK;
    }
    st = loom_p2p_irecv_int(buf, bytes, src, tag, comm, LOOM_CTX_P2P, &req);
    if (st == LOOM_OK) {
        if (!req->complete) {
            loom_progress_wait_on(req, src >= 0 ? loom_comm_peer_world(comm, src) : -1,
                                  "loom_recv");
        }
        if (status != LOOM_STATUS_IGNORE) {
            *status = req->msg;
        }
        st = req->status;
        loom_p2p_req_release(req);
    }
    return st < 0 ? loom_p2p_error_inline(st, "loom_recv") : st;
}

static loom_status_t loom_p2p_isend_common(const void *buf, size_t count,
                                           loom_datatype_t dt, int dest, int tag,
                                           loom_comm_t comm, unsigned flags,
                                           loom_request_t *req_p, const char *op)
{
    size_t bytes;
    loom_status_t st = loom_p2p_check(buf, count, dt, dest, tag, comm, 0, op, &bytes);

    if (loom_likely(st == LOOM_OK) && loom_unlikely(req_p == NULL)) {
        loom_error("p2p", "%s: req_p is NULL", op);
        st = LOOM_ERR_INVALID_ARG;
    }
    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error_inline(st, op);
    }
    if (loom_unlikely(dest == LOOM_PROC_NULL)) {
        st = loom_p2p_req_proc_null(comm, req_p);
    } else {
        st = loom_p2p_isend_int(buf, bytes, dest, tag, comm, LOOM_CTX_P2P, flags, req_p);
    }
    return st < 0 ? loom_p2p_error_inline(st, op) : st;
}

loom_status_t loom_isend(const void *buf, size_t count, loom_datatype_t dt, int dest,
                         int tag, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_p2p_isend_common(buf, count, dt, dest, tag, comm, 0, req_p, "loom_isend");
}

loom_status_t loom_issend(const void *buf, size_t count, loom_datatype_t dt, int dest,
                          int tag, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    return loom_p2p_isend_common(buf, count, dt, dest, tag, comm, LOOM_P2P_FLAG_SYNC,
                                 req_p, "loom_issend");
}

loom_status_t loom_irecv(void *buf, size_t count, loom_datatype_t dt, int src, int tag,
                         loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    size_t bytes;
    loom_status_t st = loom_p2p_check(buf, count, dt, src, tag, comm, 1, "loom_irecv",
                                      &bytes);

    if (loom_likely(st == LOOM_OK) && loom_unlikely(req_p == NULL)) {
        loom_error("p2p", "loom_irecv: req_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (loom_unlikely(st != LOOM_OK)) {
        return loom_p2p_error_inline(st, "loom_irecv");
    }
    if (loom_unlikely(src == LOOM_PROC_NULL)) {
        st = loom_p2p_req_proc_null(comm, req_p);
    } else {
        st = loom_p2p_irecv_int(buf, bytes, src, tag, comm, LOOM_CTX_P2P, req_p);
    }
    return st < 0 ? loom_p2p_error_inline(st, "loom_irecv") : st;
}

/* ---- probe, cancel, count --------------------------------------------------------- */

static loom_status_t loom_p2p_probe_check(int src, int tag, loom_comm_t comm,
                                          const char *op)
{
    size_t bytes;
    char dummy;

    return loom_p2p_check(&dummy, 0, LOOM_BYTE, src, tag, comm, 1, op, &bytes);
}

loom_status_t loom_iprobe(int src, int tag, loom_comm_t comm, int *flag_p,
                          loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_p2p_probe_check(src, tag, comm, "loom_iprobe");

    if (st == LOOM_OK && flag_p == NULL) {
        loom_error("p2p", "loom_iprobe: flag_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_iprobe");
    }
    if (src == LOOM_PROC_NULL) {
        loom_p2p_status_proc_null(status);
        *flag_p = 1;
        return LOOM_OK;
    }
    *flag_p = loom_p2p_probe_int(src, tag, comm, LOOM_CTX_P2P, status);
    if (!*flag_p) {
        loom_progress_poll_user();
        *flag_p = loom_p2p_probe_int(src, tag, comm, LOOM_CTX_P2P, status);
    }
    return LOOM_OK;
}

/*
 * A blocking probe that nothing can satisfy any more: its named source
 * failed, or (LOOM_ANY_SOURCE) a rank of the communicator failed while it
 * waited (as a pending wildcard receive fails). @return the error or LOOM_OK.
 */
static loom_status_t loom_p2p_probe_failed(int src, loom_comm_t comm, unsigned failures)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;

    if (src >= 0) {
        return e->peers[loom_comm_peer_world(comm, src)].failed;
    }
    if (e->peer_failures == failures) {
        return LOOM_OK;
    }
    for (int r = 0; r < comm->remote_size; ++r) {
        loom_status_t st = e->peers[loom_comm_peer_world(comm, r)].failed;
        if (st != LOOM_OK) {
            return st;
        }
    }
    return LOOM_OK;
}

static int loom_p2p_mprobe_take(int src, int tag, loom_comm_t comm, loom_message_t *msg_p,
                                loom_msg_status_t *status);

/*
 * The wait of a blocking probe (msg_p NULL) or matched probe (msg_p: the
 * message is taken out of matching into *msg_p), until a message matches
 * or nothing can satisfy it any more. @return LOOM_OK or the error of op.
 */
static loom_status_t loom_p2p_probe_wait(int src, int tag, loom_comm_t comm,
                                         loom_message_t *msg_p, loom_msg_status_t *status,
                                         const char *op)
{
    loom_progress_waiter_t w;
    unsigned failures = loom_p2p_engine.peer_failures;
    loom_status_t st = LOOM_OK;

    loom_progress_waiter_init(&w, op);
    w.probe_comm = comm;
    w.probe_src  = src;
    w.probe_tag  = tag;
    while (!(msg_p != NULL ? loom_p2p_mprobe_take(src, tag, comm, msg_p, status)
                           : loom_p2p_probe_int(src, tag, comm, LOOM_CTX_P2P, status))) {
        st = loom_p2p_probe_failed(src, comm, failures);
        if (loom_unlikely(st != LOOM_OK)) {
            break;
        }
        loom_progress_wait_step(&w);
    }
    loom_progress_waiter_fini(&w);
    if (st != LOOM_OK) {
        loom_error("p2p", "%s: source %d%s on '%s': %s", op, src,
                   src == LOOM_ANY_SOURCE ? " (any)" : "", comm->name,
                   src >= 0 ? "that rank failed" : "a rank of the communicator failed");
        return loom_p2p_error_inline(st, op);
    }
    return LOOM_OK;
}

loom_status_t loom_probe(int src, int tag, loom_comm_t comm, loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_p2p_probe_check(src, tag, comm, "loom_probe");

    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_probe");
    }
    if (src == LOOM_PROC_NULL) {
        loom_p2p_status_proc_null(status);
        return LOOM_OK;
    }
    return loom_p2p_probe_wait(src, tag, comm, NULL, status, "loom_probe");
}

loom_status_t loom_cancel(loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    loom_request_t req;

    if (loom_p2p_engine.state != LOOM_STATE_INIT) {
        return loom_comm_check(LOOM_COMM_WORLD, "loom_cancel");
    }
    if (req_p == NULL || *req_p == LOOM_REQUEST_NULL) {
        loom_error("p2p", "loom_cancel: %s", req_p == NULL ? "req_p is NULL" :
                   "the request is LOOM_REQUEST_NULL");
        return loom_p2p_error_inline(LOOM_ERR_INVALID_REQUEST, "loom_cancel");
    }
    req = *req_p;
    if (req->kind == 0 || req->kind > LOOM_REQ_GENERIC || req->user_freed) {
        loom_error("p2p", "loom_cancel: request %p is not active", (void *)req);
        return loom_p2p_error_inline(LOOM_ERR_INVALID_REQUEST, "loom_cancel");
    }
    if (req->kind == LOOM_REQ_SEND) {
        /* an unmatched ssend or rendezvous is withdrawn if the receiver still
         * holds it unexpected; anything else completes as sent (not cancelled) */
        loom_p2p_send_cancel(req);
        return LOOM_OK;
    }
    if (req->kind != LOOM_REQ_RECV) {
        loom_error("p2p", "loom_cancel: collective request %p cannot be cancelled",
                   (void *)req);
        return loom_p2p_error_inline(LOOM_ERR_UNSUPPORTED, "loom_cancel");
    }
    if (!req->complete && !req->inactive) {
        loom_p2p_recv_cancel(req);  /* no effect once matched */
    }
    return LOOM_OK;
}

loom_status_t loom_get_count(const loom_msg_status_t *st, loom_datatype_t dt,
                             size_t *count_p)
{
    LOOM_MT_GUARD();
    size_t dsize = loom_datatype_size(dt);

    if (st == NULL || count_p == NULL) {
        loom_error("p2p", "loom_get_count: %s is NULL", st == NULL ? "status" : "count_p");
        return LOOM_ERR_INVALID_ARG;
    }
    if (dsize == 0) {
        loom_error("p2p", "loom_get_count: datatype %d is not valid (0..%d)", (int)dt,
                   LOOM_DATATYPE_COUNT - 1);
        return LOOM_ERR_INVALID_TYPE;
    }
    *count_p = st->bytes / dsize;
    return LOOM_OK;
}

unsigned loom_p2p_peer_failures(void)
{
    return loom_p2p_engine.peer_failures;
}

loom_status_t loom_p2p_peer_failed(int world_rank)
{
    return loom_p2p_engine.peers[world_rank].failed;
}

/* ---- persistent requests ------------------------------------------------------------ */

loom_status_t loom_send_init(const void *buf, size_t count, loom_datatype_t dt, int dest,
                             int tag, int sync, loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    size_t bytes;
    loom_status_t st = loom_p2p_check(buf, count, dt, dest, tag, comm, 0, "loom_send_init",
                                      &bytes);

    if (st == LOOM_OK && req_p == NULL) {
        loom_error("p2p", "loom_send_init: req_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (st == LOOM_OK) {
        st = loom_request_persist_p2p((void *)buf, bytes, dest, tag,
                                      sync ? LOOM_P2P_FLAG_SYNC : 0, 0, comm, req_p);
    }
    return st < 0 ? loom_p2p_error_inline(st, "loom_send_init") : st;
}

loom_status_t loom_recv_init(void *buf, size_t count, loom_datatype_t dt, int src, int tag,
                             loom_comm_t comm, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    size_t bytes;
    loom_status_t st = loom_p2p_check(buf, count, dt, src, tag, comm, 1, "loom_recv_init",
                                      &bytes);

    if (st == LOOM_OK && req_p == NULL) {
        loom_error("p2p", "loom_recv_init: req_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (st == LOOM_OK) {
        st = loom_request_persist_p2p(buf, bytes, src, tag, 0, 1, comm, req_p);
    }
    return st < 0 ? loom_p2p_error_inline(st, "loom_recv_init") : st;
}

/* ---- matched probe ------------------------------------------------------------------- */

/* take a message matching (src, tag) out of matching: 1 and *msg_p, or 0 */
static int loom_p2p_mprobe_take(int src, int tag, loom_comm_t comm, loom_message_t *msg_p,
                                loom_msg_status_t *status)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_match_unexp_t *u = loom_match_unexp_take(&e->match,
                                                  loom_comm_ctx(comm, LOOM_CTX_P2P), src, tag);
    struct loom_message *msg;

    if (u == NULL) {
        return 0;
    }
    msg = malloc(sizeof(*msg));
    if (msg == NULL) {
        loom_error("p2p", "loom_mprobe: out of memory for a message handle");
        loom_abort(1, "out of memory for a matched-probe message handle");
    }
    msg->comm = comm;
    msg->ux   = loom_container_of(u, loom_p2p_unexp_t, m);
    loom_list_add_tail(&e->probed, &msg->list);
    if (status != LOOM_STATUS_IGNORE) {
        status->source    = u->src;
        status->tag       = u->tag;
        status->error     = LOOM_OK;
        status->cancelled = 0;
        status->bytes     = msg->ux->len;
    }
    *msg_p = msg;
    return 1;
}

static loom_status_t loom_p2p_mprobe_check(int src, int tag, loom_comm_t comm,
                                           loom_message_t *msg_p, const char *op)
{
    loom_status_t st = loom_p2p_probe_check(src, tag, comm, op);

    if (st == LOOM_OK && msg_p == NULL) {
        loom_error("p2p", "%s: msg_p is NULL", op);
        st = LOOM_ERR_INVALID_ARG;
    }
    return st;
}

loom_status_t loom_improbe(int src, int tag, loom_comm_t comm, int *flag_p,
                           loom_message_t *msg_p, loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_p2p_mprobe_check(src, tag, comm, msg_p, "loom_improbe");

    if (st == LOOM_OK && flag_p == NULL) {
        loom_error("p2p", "loom_improbe: flag_p is NULL");
        st = LOOM_ERR_INVALID_ARG;
    }
    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_improbe");
    }
    if (src == LOOM_PROC_NULL) {
        loom_p2p_status_proc_null(status);
        *msg_p  = LOOM_MESSAGE_NO_PROC;
        *flag_p = 1;
        return LOOM_OK;
    }
    *flag_p = loom_p2p_mprobe_take(src, tag, comm, msg_p, status);
    if (!*flag_p) {
        loom_progress_poll_user();
        *flag_p = loom_p2p_mprobe_take(src, tag, comm, msg_p, status);
    }
    return LOOM_OK;
}

loom_status_t loom_mprobe(int src, int tag, loom_comm_t comm, loom_message_t *msg_p,
                          loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_p2p_mprobe_check(src, tag, comm, msg_p, "loom_mprobe");

    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_mprobe");
    }
    if (src == LOOM_PROC_NULL) {
        loom_p2p_status_proc_null(status);
        *msg_p = LOOM_MESSAGE_NO_PROC;
        return LOOM_OK;
    }
    return loom_p2p_probe_wait(src, tag, comm, msg_p, status, "loom_mprobe");
}

loom_status_t loom_imrecv(void *buf, size_t count, loom_datatype_t dt,
                          loom_message_t *msg_p, loom_request_t *req_p)
{
    LOOM_MT_GUARD();
    struct loom_message *msg;
    loom_request_t req;
    loom_p2p_req_t *rq;
    size_t bytes;
    loom_status_t st;

    if (msg_p == NULL || *msg_p == LOOM_MESSAGE_NULL || req_p == NULL) {
        loom_error("p2p", "loom_imrecv: %s", msg_p == NULL ? "msg_p is NULL" :
                   req_p == NULL ? "req_p is NULL" :
                   "the message is LOOM_MESSAGE_NULL (not from a matched probe)");
        return loom_p2p_error_inline(req_p == NULL || msg_p == NULL ? LOOM_ERR_INVALID_ARG
                                                             : LOOM_ERR_INVALID_REQUEST,
                              "loom_imrecv");
    }
    msg = *msg_p;
    st = loom_p2p_check(buf, count, dt, LOOM_PROC_NULL, 0,
                        msg == LOOM_MESSAGE_NO_PROC ? LOOM_COMM_SELF : msg->comm, 1,
                        "loom_imrecv", &bytes);
    if (st != LOOM_OK) {
        return loom_p2p_error_inline(st, "loom_imrecv");
    }
    if (msg == LOOM_MESSAGE_NO_PROC) {
        *msg_p = LOOM_MESSAGE_NULL;
        st = loom_p2p_req_proc_null(LOOM_COMM_SELF, req_p);
        return st < 0 ? loom_p2p_error_inline(st, "loom_imrecv") : st;
    }
    req = loom_request_alloc(LOOM_REQ_RECV, msg->comm);
    if (req == NULL) {
        return loom_p2p_error_inline(LOOM_ERR_NO_MEMORY, "loom_imrecv");
    }
    rq = loom_p2p_req(req);
    rq->buf  = buf;
    rq->len  = bytes;
    rq->peer = -1;
    loom_p2p_mrecv_take(req, msg_p, req_p);
    return LOOM_OK;
}

void loom_p2p_mrecv_take(loom_request_t req, loom_message_t *msg_p, loom_request_t *req_p)
{
    loom_message_t msg = *msg_p;

    loom_match_posted_prep(&loom_p2p_req(req)->posted, msg->ux->m.ctx, msg->ux->m.src,
                           msg->ux->m.tag);
    *msg_p = LOOM_MESSAGE_NULL;
    *req_p = req;
    loom_list_del(&msg->list);   /* received: off the probed list */
    loom_p2p_unexp_deliver(req, msg->ux);   /* eager: copies or unpacks; RTS: starts the gets */
    free(msg);
}

loom_status_t loom_mrecv(void *buf, size_t count, loom_datatype_t dt, loom_message_t *msg_p,
                         loom_msg_status_t *status)
{
    LOOM_MT_GUARD();
    loom_request_t req;
    loom_status_t st = loom_imrecv(buf, count, dt, msg_p, &req);

    if (st != LOOM_OK) {
        return st;
    }
    if (!req->complete) {
        loom_progress_wait_on(req, -1, "loom_mrecv");
    }
    if (status != LOOM_STATUS_IGNORE) {
        *status = req->msg;
    }
    st = req->status;
    loom_p2p_req_release(req);
    return st < 0 ? loom_p2p_error_inline(st, "loom_mrecv") : st;
}
