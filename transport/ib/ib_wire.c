/*
 * ib_wire.c: validation of received RC frames (design in ib_wire.h). No
 * verbs: linked into the fuzz library, which leaves the rest of
 * transport/ib out.
 */
#include "ib_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The reason of a rejection, when the caller wants one. */
__attribute__((format(printf, 3, 4)))
static void loom_tl_ib_wire_why(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;

    if (why == NULL || why_len == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

static loom_status_t loom_tl_ib_frame_check_hdr(const loom_tl_ib_hdr_t *h, size_t len,
                                                int job_size, int my_rank, char *why,
                                                size_t why_len)
{
    if (job_size <= 0 || h->src >= (uint32_t)job_size || h->src == (uint32_t)my_rank) {
        loom_tl_ib_wire_why(why, why_len, "sender rank %u %s (job of %d ranks)", h->src,
                            h->src == (uint32_t)my_rank ? "is the receiver itself" :
                            "out of range", job_size);
        return LOOM_ERR_INVALID_ARG;
    }
    if (h->type != LOOM_TL_IB_FRAME_DATA && h->type != LOOM_TL_IB_FRAME_CREDIT) {
        loom_tl_ib_wire_why(why, why_len, "unknown frame type %u from rank %u", h->type,
                            h->src);
        return LOOM_ERR_INVALID_ARG;
    }
    if (h->credits > LOOM_TL_IB_CREDITS || h->ctl_credits > LOOM_TL_IB_CTL_CREDITS) {
        loom_tl_ib_wire_why(why, why_len, "rank %u returns %u data and %u credit-frame "
                            "credits (windows %d and %d)", h->src, h->credits,
                            h->ctl_credits, LOOM_TL_IB_CREDITS, LOOM_TL_IB_CTL_CREDITS);
        return LOOM_ERR_INVALID_ARG;
    }
    if (h->type == LOOM_TL_IB_FRAME_CREDIT && len != sizeof(*h)) {
        loom_tl_ib_wire_why(why, why_len, "credit frame of %zu bytes from rank %u "
                            "(a credit frame is the %zu-byte header alone)", len, h->src,
                            sizeof(*h));
        return LOOM_ERR_TRUNCATED;
    }
    return LOOM_OK;
}

loom_status_t loom_tl_ib_frame_decode(const void *data, size_t len, int job_size, int my_rank,
                                      char *why, size_t why_len, loom_tl_ib_frame_t *frame_p)
{
    loom_tl_ib_frame_t f;
    loom_status_t status;

    if (data == NULL || len < sizeof(f.hdr) || len > LOOM_TL_IB_FRAME) {
        loom_tl_ib_wire_why(why, why_len, "frame of %zu bytes (header %zu, frame at most %d)",
                            data == NULL ? (size_t)0 : len, sizeof(f.hdr), LOOM_TL_IB_FRAME);
        return LOOM_ERR_TRUNCATED;
    }
    memcpy(&f.hdr, data, sizeof(f.hdr));
    status = loom_tl_ib_frame_check_hdr(&f.hdr, len, job_size, my_rank, why, why_len);
    if (status != LOOM_OK) {
        return status;
    }
    if (f.hdr.type == LOOM_TL_IB_FRAME_DATA) {
        f.body = (const uint8_t *)data + sizeof(f.hdr);
        f.body_len = len - sizeof(f.hdr);
    } else {
        f.body = NULL;
        f.body_len = 0;
    }
    *frame_p = f;
    return LOOM_OK;
}

loom_status_t loom_tl_ib_frame_check_peer(const loom_tl_ib_frame_t *frame, int qp_peer,
                                          int credits, int ctl_credits, char *why,
                                          size_t why_len)
{
    const loom_tl_ib_hdr_t *h = &frame->hdr;

    if (qp_peer < 0 || h->src != (uint32_t)qp_peer) {
        if (qp_peer < 0) {
            loom_tl_ib_wire_why(why, why_len, "frame claiming rank %u arrived on a QP of no "
                                "known peer", h->src);
        } else {
            loom_tl_ib_wire_why(why, why_len, "frame claiming rank %u arrived on the QP of "
                                "rank %d", h->src, qp_peer);
        }
        return LOOM_ERR_INVALID_ARG;
    }
    if (credits < 0 || ctl_credits < 0 ||
        credits + h->credits > LOOM_TL_IB_CREDITS ||
        ctl_credits + h->ctl_credits > LOOM_TL_IB_CTL_CREDITS) {
        loom_tl_ib_wire_why(why, why_len, "rank %u returns %u data and %u credit-frame "
                            "credits while only %d and %d are outstanding", h->src,
                            h->credits, h->ctl_credits, LOOM_TL_IB_CREDITS - credits,
                            LOOM_TL_IB_CTL_CREDITS - ctl_credits);
        return LOOM_ERR_INVALID_ARG;
    }
    return LOOM_OK;
}
