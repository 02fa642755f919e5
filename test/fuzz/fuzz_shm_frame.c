/*
 * fuzz_shm_frame.c: libFuzzer target for the shared-memory transport's
 * frames: the SPSC ring (transport/shm/shm_ring.h: reserve, commit, peek,
 * release, with the producer and the consumer interleaved as the input
 * says) and the consumer's decoder of non-AM frames, loom_shm_get_frame
 * (transport/shm/shm_get.c: GET_REQ and GET_DATA of pipelined gets), over a
 * peer whose gets are in flight.
 *
 * Input: a sequence of operations. 'P' len(2) type(1) bytes: the producer
 * writes a frame of that type (len is clamped to the slot, as am_send
 * does); 'C': the consumer takes one frame and dispatches it as the shm
 * progress loop does (AM frames are read whole; the others go to
 * loom_shm_get_frame); 'G' idx len(2): start a pipelined get on slot idx of
 * that length. Checked beyond "no crash": frames come out in order with the
 * length and bytes that went in, a ring never holds more than nslots, a
 * completed get received exactly its length, and the decoder writes only
 * inside the get's buffer (ASan: each buffer is its own allocation).
 *
 * The consumer loop itself (loom_shm_peer_poll) is static in shm_iface.c
 * (it now fails the peer on a frame longer than a slot): a separable "take
 * and validate a frame" function would let this target call it; here the
 * loop is mirrored, with the same check.
 */
#include "shm/shm_int.h"
#include "shm/shm_ring.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Every dropped frame is logged: the library's lines (fprintf to the stderr
 * stream) go to /dev/null unless FUZZ_VERBOSE is set. Sanitizer and
 * libFuzzer reports write to file descriptor 2 and its own stream, so they
 * still show.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    FILE *null = getenv("FUZZ_VERBOSE") ? NULL : fopen("/dev/null", "w");

    (void)argc;
    (void)argv;
    if (null != NULL) {
        stderr = null;
    }
    return 0;
}

#define NSLOTS    4u
#define SLOT_SIZE 256u

typedef struct get_comp {
    loom_tl_comp_t comp;
    int            done;
} get_comp_t;

static void get_done(loom_tl_comp_t *c, loom_status_t st)
{
    get_comp_t *gc = (get_comp_t *)c;
    if (st != LOOM_OK || gc->done) {
        __builtin_trap();                  /* completed twice */
    }
    gc->done = 1;
}

static const char *const hosts[] = { "fuzz0", "fuzz1" };
static const loom_bootstrap_info_t job = { .rank = 0, .size = 2, .hostnames = hosts };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static loom_shm_iface_t iface;
    static loom_shm_peer_t peer;
    static get_comp_t comps[LOOM_SHM_MAX_GETS];
    uint8_t *bufs[LOOM_SHM_MAX_GETS] = { 0 };
    void *ring = aligned_alloc(LOOM_CACHE_LINE, loom_shm_ring_bytes(NSLOTS, SLOT_SIZE));
    uint8_t expect[NSLOTS][SLOT_SIZE];
    uint32_t expect_len[NSLOTS];
    uint64_t produced = 0, consumed = 0;
    size_t off = 0;

    if (ring == NULL) {
        return 0;
    }
    memset(&iface, 0, sizeof(iface));
    memset(&peer, 0, sizeof(peer));
    iface.job = &job;
    peer.iface = &iface;
    peer.world_rank = 1;
    peer.max_frame = loom_shm_ring_max_frame(SLOT_SIZE);
    peer.gets_free = ~(uint64_t)0;
    loom_shm_ring_format(ring, NSLOTS, SLOT_SIZE);
    loom_shm_ring_tx_init(&peer.tx, ring, NSLOTS, SLOT_SIZE);
    loom_shm_ring_rx_init(&peer.rx, ring, NSLOTS, SLOT_SIZE);

    while (off < size) {
        uint8_t op = data[off++];
        if (op == 'P' && off + 3 <= size) {
            uint32_t len = (uint32_t)(data[off] | data[off + 1] << 8) % (peer.max_frame + 1);
            uint16_t type = data[off + 2] % 4;
            loom_shm_slot_t *slot;
            off += 3;
            len = (uint32_t)(len < size - off ? len : size - off);
            slot = loom_shm_ring_tx_reserve(&peer.tx);
            if (slot == NULL) {
                if (produced - consumed != NSLOTS) {
                    __builtin_trap();      /* refused while not full */
                }
                continue;
            }
            memcpy(slot->data, data + off, len);
            memcpy(expect[produced % NSLOTS], data + off, len);
            expect_len[produced % NSLOTS] = len;
            off += len;
            loom_shm_ring_tx_commit(&peer.tx, slot, len, type);
            ++produced;
        } else if (op == 'C') {
            loom_shm_slot_t *slot = loom_shm_ring_rx_peek(&peer.rx);
            if (slot == NULL) {
                if (produced != consumed) {
                    __builtin_trap();      /* a published frame was not seen */
                }
                continue;
            }
            if (slot->len > peer.max_frame || slot->len != expect_len[consumed % NSLOTS] ||
                memcmp(slot->data, expect[consumed % NSLOTS], slot->len) != 0) {
                __builtin_trap();          /* not what was sent */
            }
            if (slot->type != LOOM_SHM_FRAME_AM) {
                loom_shm_get_frame(&peer, slot);
                /* served requests are streamed by loom_shm_get_push, which
                 * needs a live iface: forget them */
                peer.stream_head = peer.stream_count = 0;
                iface.nstreams = 0;
            }
            loom_shm_ring_rx_release(&peer.rx);
            ++consumed;
        } else if (op == 'G' && off + 3 <= size) {
            uint32_t idx = data[off] % LOOM_SHM_MAX_GETS;
            size_t len = (size_t)(data[off + 1] | data[off + 2] << 8) % 4096 + 1;
            off += 3;
            if (!(peer.gets_free >> idx & 1)) {
                continue;
            }
            free(bufs[idx]);
            bufs[idx] = malloc(len);
            if (bufs[idx] == NULL) {
                break;
            }
            comps[idx].comp.cb = get_done;
            comps[idx].done = 0;
            peer.gets[idx] = (loom_shm_get_op_t){ .comp = &comps[idx].comp, .local = bufs[idx],
                                                  .len = len, .received = 0,
                                                  .gen = peer.gets[idx].gen };
            peer.gets_free &= ~((uint64_t)1 << idx);
            ++iface.ngets;
        }
    }
    for (uint32_t i = 0; i < LOOM_SHM_MAX_GETS; ++i) {
        if (comps[i].done && peer.gets[i].received != peer.gets[i].len) {
            __builtin_trap();
        }
        comps[i].done = 0;
        free(bufs[i]);
    }
    free(ring);
    return 0;
}
