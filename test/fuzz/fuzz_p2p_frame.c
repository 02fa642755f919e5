/*
 * fuzz_p2p_frame.c: libFuzzer target for the point-to-point wire protocol:
 * frames handed to the engine's active-message handler loom_p2p_am_handler
 * (p2p/p2p_recv.c), the decoder every transport delivers into, in a
 * singleton engine (loom_init without a launcher).
 *
 * Input: a sequence of frames, each a 2-byte little-endian length (its top
 * bit: deliver the frame in place, as a byte-stream transport offers a
 * frame still arriving, see deliver()) and that many bytes; before them byte 0 says how many receives to pre-post
 * (ANY_SOURCE/ANY_TAG, 8-byte buffers, so matched frames and truncation are
 * reached too). After the frames, every message that arrived is received
 * (probe + recv on both contexts of WORLD and SELF) and the posted receives
 * are cancelled, so state never accumulates across inputs.
 *
 * The protocol trusts its peer with one thing: an RTS names an address
 * (and key) of the sender that the receiver reads, here with the self
 * transport's memcpy. So every whole RTS has its address replaced by this
 * target's source buffer and its length cut to that buffer's size; the rest
 * of it (tag, context, sreq, pushed bytes) is the fuzzer's; so do the
 * pieces an RTS of an unpacked typed send carries (tame_rts_pieces). ACK, FIN and NAK
 * name sends by table index and generation (p2p_sreq.c), never by pointer,
 * and are fuzzed as they come, as are EAGER_SYNC (whose ACK comes back to
 * this process), RNDV_DATA and the push state. At the end of the input a
 * RNDV_DATA still announced counts as lost (the stream ended), so the
 * receives waiting for it end too.
 */
#include "p2p_engine_int.h"
#include "p2p_proto_int.h"
#include "p2p_int.h"
#include "comm_int.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_POSTED 8

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("LOOM_ERRORS", "return", 1);
    setenv("LOOM_LOG", "error", 1);
    unsetenv("PMIX_NAMESPACE");
    if (loom_init(NULL, NULL) != LOOM_OK || loom_size() != 1) {
        fprintf(stderr, "fuzz_p2p_frame: loom_init as a singleton failed\n");
        abort();
    }
    /* malformed frames are logged, one line each: the library's lines go to
     * /dev/null unless FUZZ_VERBOSE is set (sanitizer and libFuzzer reports
     * write to file descriptor 2 and their own stream, and still show) */
    if (getenv("FUZZ_VERBOSE") == NULL) {
        FILE *null = fopen("/dev/null", "w");
        if (null != NULL) {
            stderr = null;
        }
    }
    return 0;
}

/* what every RTS points at: the only memory a fuzzed frame makes us read */
static uint8_t rts_src[1u << 16];

/*
 * The pieces an RTS of a typed send that did not pack carries (after the
 * header) are addresses too: each is moved into rts_src. One whose pieces
 * would be read from the sender's memory (LOOM_P2P_RTS_RIOV_REMOTE) loses
 * its flags (and is then a malformed frame).
 */
static void tame_rts_pieces(uint8_t *f, size_t len)
{
    uint8_t *flags = f + offsetof(loom_p2p_hdr_t, reserved);

    if (*flags & LOOM_P2P_RTS_RIOV_REMOTE) {
        *flags = 0;
        return;
    }
    for (size_t at = sizeof(loom_p2p_hdr_rts_t); at + sizeof(struct iovec) <= len;
         at += sizeof(struct iovec)) {
        struct iovec v;

        memcpy(&v, f + at, sizeof(v));
        v.iov_len %= sizeof(rts_src) + 1;
        v.iov_base = rts_src + (uintptr_t)v.iov_base % (sizeof(rts_src) - v.iov_len + 1);
        memcpy(f + at, &v, sizeof(v));
    }
}

/*
 * A pipelined RTS (LOOM_P2P_RTS_PIPE) points at a packed copy whose
 * LOOM_P2P_PIPE_HDR-byte header counts the bytes packed so far. A live
 * sender packs the whole message before its send call returns, so the
 * count always reaches the length; a count that never grows is a sender
 * that never returns (a hung peer), which this target cannot model. So
 * each pipelined RTS of an input gets a copy of its own whose count says
 * "all packed" (a shared one could be lowered under an earlier receive by
 * a later, shorter message); past MAX_PIPE of them the flag is dropped.
 */
#define MAX_PIPE 8
static uint8_t rts_pipe[MAX_PIPE][LOOM_P2P_PIPE_HDR + sizeof(rts_src)]
    __attribute__((aligned(64)));
static unsigned pipe_used;   /* of rts_pipe, in this input */

static uint64_t tame_rts_pipe(uint8_t *f, uint64_t mlen)
{
    uint8_t *flags = f + offsetof(loom_p2p_hdr_t, reserved);
    uint8_t *copy;

    if (!(*flags & LOOM_P2P_RTS_PIPE)) {
        return (uint64_t)(uintptr_t)rts_src;
    }
    if (pipe_used == MAX_PIPE) {
        *flags &= (uint8_t)~LOOM_P2P_RTS_PIPE;
        return (uint64_t)(uintptr_t)rts_src;
    }
    copy = rts_pipe[pipe_used++];
    memcpy(copy, &mlen, sizeof(mlen));
    return (uint64_t)(uintptr_t)(copy + LOOM_P2P_PIPE_HDR);
}

/* a whole RTS (with pieces or not) reads rts_src (or its pipelined copy), at most all of it */
static void tame_rts(uint8_t *f, size_t len)
{
    uint64_t addr, mlen;

    if (len < sizeof(loom_p2p_hdr_rts_t) || f[0] != LOOM_P2P_RTS) {
        return;
    }
    tame_rts_pieces(f, len);
    memcpy(&mlen, f + offsetof(loom_p2p_hdr_t, len), sizeof(mlen));
    mlen %= sizeof(rts_src) + 1;
    memcpy(f + offsetof(loom_p2p_hdr_t, len), &mlen, sizeof(mlen));
    addr = tame_rts_pipe(f, mlen);
    memcpy(f + offsetof(loom_p2p_hdr_rts_t, raddr), &addr, sizeof(addr));
}

/* receive everything that is waiting on one context of @p comm */
static void drain(loom_comm_t comm, uint32_t which)
{
    loom_msg_status_t st;
    loom_request_t req;

    while (loom_p2p_probe_int(LOOM_ANY_SOURCE, LOOM_ANY_TAG, comm, which, &st)) {
        void *buf = malloc(st.bytes + 1);
        if (buf == NULL ||
            loom_p2p_irecv_int(buf, st.bytes, LOOM_ANY_SOURCE, LOOM_ANY_TAG, comm, which,
                               &req) != LOOM_OK) {
            abort();
        }
        if (!req->complete) {
            __builtin_trap();              /* probed, so it must match at once */
        }
        if (req->msg.bytes != st.bytes) {
            __builtin_trap();
        }
        loom_request_release(req);
        free(buf);
    }
}

/*
 * Hand @p frame to the engine as a transport does: whole, or (@p place,
 * and long enough) as a byte stream would, its head offered to
 * loom_p2p_am_place, the rest written where the engine says if taken
 * (ASan checks the destination), then the end reported, as a success or,
 * for odd lengths, as a failed connection. (A real transport then reports
 * the peer failed; here the peer stays up, so that one input can go on:
 * the engine must stay consistent either way.)
 */
static void deliver(const uint8_t *frame, size_t len, int place)
{
    size_t have = len / 2 > LOOM_TL_PLACE_HEAD ? len / 2 : LOOM_TL_PLACE_HEAD;
    loom_tl_place_t pl = { NULL, 0 };

    if (!place || len <= have) {
        loom_p2p_am_handler(&loom_p2p_engine, 0, frame, len);
        return;
    }
    if (!loom_p2p_am_place(&loom_p2p_engine, 0, frame, have, len, &pl)) {
        loom_p2p_am_handler(&loom_p2p_engine, 0, frame, len);
        return;
    }
    if (pl.keep > len - have || (pl.keep != 0 && pl.dst == NULL)) {
        __builtin_trap();
    }
    if (pl.keep != 0) {
        memcpy(pl.dst, frame + have, pl.keep);
    }
    loom_p2p_am_place_done(&loom_p2p_engine, 0, (len & 1) ? LOOM_ERR_CONNECTION : LOOM_OK);
    if (loom_p2p_engine.peers[0].place_req != NULL) {
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t rbufs[MAX_POSTED][8];
    loom_request_t posted[MAX_POSTED];
    uint32_t ctxs[3];
    size_t nposted, off = 1;

    if (size < 1) {
        return 0;
    }
    ctxs[0] = loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_P2P);
    ctxs[1] = loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_COLL);
    ctxs[2] = loom_comm_ctx(LOOM_COMM_SELF, LOOM_CTX_P2P);
    pipe_used = 0;
    nposted = data[0] % (MAX_POSTED + 1);
    for (size_t i = 0; i < nposted; ++i) {
        if (loom_irecv(rbufs[i], 8, LOOM_BYTE, LOOM_ANY_SOURCE, LOOM_ANY_TAG,
                       LOOM_COMM_WORLD, &posted[i]) != LOOM_OK) {
            abort();
        }
    }
    while (off + 2 <= size) {
        size_t len = data[off] | (size_t)(data[off + 1] & 0x7f) << 8;
        int place = data[off + 1] >> 7;
        uint8_t *frame;

        off += 2;
        len = len < size - off ? len : size - off;
        frame = malloc(len + 1);              /* exact size: ASan sees overreads */
        if (frame == NULL) {
            abort();
        }
        memcpy(frame, data + off, len);
        off += len;
        /* keep matched frames on live contexts so they can be drained */
        if (len >= sizeof(loom_p2p_hdr_t) && (frame[0] == LOOM_P2P_EAGER ||
                                               frame[0] == LOOM_P2P_EAGER_SYNC ||
                                               frame[0] == LOOM_P2P_RTS)) {
            uint32_t ctx = ctxs[frame[4] % 3];
            memcpy(frame + 4, &ctx, sizeof(ctx));
        }
        tame_rts(frame, len);
        deliver(frame, len, place);
        free(frame);
    }
    if (loom_p2p_engine.peers[0].push_req != NULL || loom_p2p_engine.peers[0].push_ux != NULL) {
        loom_p2p_push_lost(0);            /* the stream ended before its RNDV_DATA */
    }
    for (size_t i = 0; i < nposted; ++i) {
        loom_cancel(&posted[i]);
        loom_wait(&posted[i], LOOM_STATUS_IGNORE);
    }
    drain(LOOM_COMM_WORLD, LOOM_CTX_P2P);
    drain(LOOM_COMM_WORLD, LOOM_CTX_COLL);
    drain(LOOM_COMM_SELF, LOOM_CTX_P2P);
    /* the FINs and ACKs this process sent itself (named sends never exist
     * here: dropped), delivered so nothing piles up across inputs */
    for (int i = 0; i < 2; ++i) {
        loom_progress();
    }
    if (loom_p2p_engine.match.num_unexp != 0 || loom_p2p_engine.match.num_posted != 0) {
        __builtin_trap();                  /* something was lost in the queues */
    }
    return 0;
}
