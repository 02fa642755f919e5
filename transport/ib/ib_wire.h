/*
 * ib_wire.h: the wire format of the verbs transport's RC frames and their
 * receive-side validation, without any verbs call (so it is unit-tested by
 * test/verbs/test_ib_wire.c and fuzzed by test/fuzz/fuzz_ib_frame.c on any
 * host; transport/ib/ib_iface.c calls it on every receive completion).
 *
 * Design. Every RC frame starts with an 8-byte transport header: the
 * sender's world rank, the data and credit-frame credits it returns, and a
 * type. A DATA frame carries the caller's bytes after it (at most
 * LOOM_TL_IB_FRAME in all); a CREDIT frame is the header alone. Host byte
 * order: jobs are homogeneous, as for every other loom wire format.
 *
 * A received frame passes two checks before anything acts on it:
 * loom_tl_ib_frame_decode (stateless: length, sender rank in the job and
 * not ourselves, a known type, each credit count within its window) and
 * loom_tl_ib_frame_check_peer (against the receiver's state: the sender is
 * the peer of the QP the frame arrived on, and the credits it returns do
 * not push ours past the window, which an honest peer cannot do because it
 * returns only what it consumed). Either failure is a protocol violation
 * by the peer: the caller fails the endpoint naming both ends and the QP;
 * nothing reads past the bytes received. Both fill a caller's text buffer
 * with the reason (values and limits) only on failure, so the fast path
 * formats nothing.
 */
#ifndef LOOM_TL_IB_WIRE_H
#define LOOM_TL_IB_WIRE_H

#include <loom.h>

#include <stddef.h>
#include <stdint.h>

#define LOOM_TL_IB_FRAME        8192  /* bytes per eager buffer, transport header included */
#define LOOM_TL_IB_CREDITS      16    /* data frames a peer may have in flight to us */
#define LOOM_TL_IB_CTL_CREDITS  2     /* credit-only frames a peer may have in flight */

/* Frame types in the transport header. */
enum {
    LOOM_TL_IB_FRAME_DATA = 1,
    LOOM_TL_IB_FRAME_CREDIT = 2,
};

/* Transport header of every RC frame. */
typedef struct loom_tl_ib_hdr {
    uint32_t src;          /* sender's world rank */
    uint16_t credits;      /* data credits returned to the receiver of this frame */
    uint8_t  ctl_credits;  /* credit-frame credits returned */
    uint8_t  type;
} loom_tl_ib_hdr_t;

_Static_assert(sizeof(loom_tl_ib_hdr_t) == 8, "ib transport header is 8 bytes on the wire");

/** A received frame as decoded: its header and what am_cb is handed. */
typedef struct loom_tl_ib_frame {
    loom_tl_ib_hdr_t hdr;
    const uint8_t   *body;      /* DATA: the caller's bytes; CREDIT: NULL */
    size_t           body_len;  /* DATA: len - header; CREDIT: 0 */
} loom_tl_ib_frame_t;

/**
 * @brief Validate the @p len bytes at @p data as one RC frame.
 *
 * Checks the length (a whole header, at most LOOM_TL_IB_FRAME; a CREDIT
 * frame has no body), the sender (below @p job_size, not @p my_rank), the
 * type and each returned credit count against its window.
 * @param why      on failure, the reason with the offending value and limit
 *                 (@p why_len bytes, may be 0 with @p why NULL)
 * @param frame_p  on success, the header and the body (pointing into @p data)
 * @return LOOM_OK, LOOM_ERR_TRUNCATED (length) or LOOM_ERR_INVALID_ARG (a field).
 */
loom_status_t loom_tl_ib_frame_decode(const void *data, size_t len, int job_size, int my_rank,
                                      char *why, size_t why_len, loom_tl_ib_frame_t *frame_p);

/**
 * @brief Check a decoded frame against the receiver's state for its sender.
 *
 * @param qp_peer      rank whose QP the frame arrived on, -1 when that QP is
 *                     no endpoint's (a frame must never arrive there)
 * @param credits      data credits we hold toward the sender now
 * @param ctl_credits  credit-frame credits we hold toward the sender now
 * @param why          on failure, the reason (as for loom_tl_ib_frame_decode)
 * @return LOOM_OK, or LOOM_ERR_INVALID_ARG when the sender is not the QP's
 *         peer or the returned credits exceed what we have outstanding.
 */
loom_status_t loom_tl_ib_frame_check_peer(const loom_tl_ib_frame_t *frame, int qp_peer,
                                          int credits, int ctl_credits, char *why,
                                          size_t why_len);

#endif /* LOOM_TL_IB_WIRE_H */
