/*
 * fuzz_ib_frame.c: libFuzzer target for the verbs transport's RC frame
 * checks (transport/ib/ib_wire.c), driven as its receive path
 * (transport/ib/ib_iface.c) drives them: decode, check against the state of
 * the peer whose QP the frame arrived on, then take the returned credits
 * and hand the body to the active-message handler (here: read every byte).
 *
 * Input: byte 0 = job size (1..64), byte 1 = the receiver's rank; then
 * records, each one op byte and, for a receive, a 2-byte length and that
 * many bytes. Op bit 7 set: we send a data frame (bit 6 clear) or a credit
 * frame to rank op & 63, spending one credit of that window if we hold one
 * (so returned credits can be accepted). Op bit 7 clear: a frame arrives on
 * the QP of rank op & 63, or on a QP of no endpoint when that is no peer.
 * Checked beyond "no crash": every received frame sits in an exact-size
 * allocation (ASan sees any over-read); an accepted frame names a sender
 * in the job, not ourselves, the QP's peer; its body is exactly the bytes
 * after the header (none for a credit frame); credits never exceed their
 * windows; a rejection always comes with a reason; a header re-encoded
 * from an accepted frame decodes to the same frame.
 */
#include "ib/ib_wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RANKS 64

typedef struct peer {
    int credits, ctl_credits;
} peer_t;

static void check(int cond)
{
    if (!cond) {
        abort();
    }
}

static volatile uint8_t sink;

/* The frame an honest sender would build from @p f decodes to the same. */
static void reencode(const loom_tl_ib_frame_t *f, size_t len, int job_size, int me)
{
    uint8_t *out = malloc(len);
    loom_tl_ib_frame_t again;

    if (out == NULL) {
        return;
    }
    memcpy(out, &f->hdr, sizeof(f->hdr));
    if (f->body_len > 0) {
        memcpy(out + sizeof(f->hdr), f->body, f->body_len);
    }
    check(loom_tl_ib_frame_decode(out, len, job_size, me, NULL, 0, &again) == LOOM_OK);
    check(memcmp(&again.hdr, &f->hdr, sizeof(f->hdr)) == 0 && again.body_len == f->body_len);
    free(out);
}

/* What ib_iface.c does with a frame that passed both checks. */
static void accept(const loom_tl_ib_frame_t *f, const uint8_t *buf, size_t len, peer_t *p)
{
    size_t i;

    p->credits += f->hdr.credits;
    p->ctl_credits += f->hdr.ctl_credits;
    check(p->credits <= LOOM_TL_IB_CREDITS && p->ctl_credits <= LOOM_TL_IB_CTL_CREDITS);
    if (f->hdr.type == LOOM_TL_IB_FRAME_DATA) {
        check(f->body == buf + sizeof(f->hdr) && f->body_len == len - sizeof(f->hdr));
        for (i = 0; i < f->body_len; ++i) {
            sink ^= f->body[i];   /* the handler reads every byte */
        }
    } else {
        check(f->hdr.type == LOOM_TL_IB_FRAME_CREDIT && f->body == NULL && f->body_len == 0 &&
              len == sizeof(f->hdr));
    }
}

static void receive(const uint8_t *bytes, size_t len, int qp_peer, int job_size, int me,
                    peer_t *peers)
{
    uint8_t *buf = malloc(len ? len : 1);   /* exact size: ASan catches over-reads */
    loom_tl_ib_frame_t f;
    char why[160];
    peer_t *p = qp_peer >= 0 ? &peers[qp_peer] : NULL;

    if (buf == NULL) {
        return;
    }
    memcpy(buf, bytes, len);
    why[0] = '\0';
    if (loom_tl_ib_frame_decode(buf, len, job_size, me, why, sizeof(why), &f) != LOOM_OK) {
        check(why[0] != '\0' && memchr(why, '\0', sizeof(why)) != NULL);
    } else if (loom_tl_ib_frame_check_peer(&f, qp_peer, p ? p->credits : 0,
                                           p ? p->ctl_credits : 0, why,
                                           sizeof(why)) != LOOM_OK) {
        check(why[0] != '\0');
    } else {
        check(f.hdr.src < (uint32_t)job_size && (int)f.hdr.src != me &&
              (int)f.hdr.src == qp_peer && len >= sizeof(f.hdr) && len <= LOOM_TL_IB_FRAME);
        reencode(&f, len, job_size, me);
        accept(&f, buf, len, p);
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    peer_t peers[MAX_RANKS];
    int job_size, me, i;
    size_t pos = 2;

    if (size < 2) {
        return 0;
    }
    job_size = 1 + data[0] % MAX_RANKS;
    me = data[1] % job_size;
    for (i = 0; i < MAX_RANKS; ++i) {
        peers[i] = (peer_t){ LOOM_TL_IB_CREDITS, LOOM_TL_IB_CTL_CREDITS };
    }
    while (pos < size) {
        uint8_t op = data[pos++];
        int rank = op & 63;
        size_t len;

        if (op & 0x80) {   /* we send: spend a credit */
            int *c = (op & 0x40) ? &peers[rank].ctl_credits : &peers[rank].credits;
            *c -= *c > 0;
            continue;
        }
        if (pos + 2 > size) {
            break;
        }
        len = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
        pos += 2;
        len = len < size - pos ? len : size - pos;
        receive(data + pos, len, rank < job_size && rank != me ? rank : -1, job_size, me,
                peers);
        pos += len;
    }
    return 0;
}
