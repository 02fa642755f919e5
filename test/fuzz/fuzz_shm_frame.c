/*
 * fuzz_shm_frame.c: libFuzzer target for the shared-memory transport's
 * frames (transport/shm/shm_int.h): the fast box, an SPSC ring
 * (shm_ring.h: reserve, commit, peek, release, with the producer and the
 * consumer interleaved as the input says); the receive FIFO of many
 * producers (shm_fifo.h: claims, publishes in any order, the consumer in
 * claim order); and the consumer's decoder of non-AM frames,
 * loom_shm_get_frame (shm_get.c: GET_REQ and GET_DATA of pipelined gets),
 * over a peer whose gets are in flight.
 *
 * Input: a sequence of operations. 'P' len(2) type(1) bytes: the box's
 * producer writes a frame of that type (len clamped to the slot, as
 * am_send does); 'C': the box's consumer takes one frame and dispatches it
 * as the shm progress loop does (AM frames are read whole; the others go
 * to loom_shm_get_frame); 'F' src(1) len(1) bytes: a FIFO producer claims
 * a cell and fills it, unpublished; 'U' k(1): the k-th claim still
 * unpublished is published; 'R': the FIFO's consumer takes one frame;
 * 'G' idx len(2): start a pipelined get on slot idx of that length.
 * Checked beyond "no crash": frames come out in order with the length and
 * bytes that went in (the FIFO's in claim order, with their claimer), a
 * ring or FIFO never holds more than its cells and refuses only when full,
 * the FIFO's consumer sees nothing while the oldest claim is unpublished,
 * a completed get received exactly its length, and the decoder writes
 * only inside the get's buffer (ASan: each buffer is its own allocation).
 *
 * The consumer loops themselves are static in shm_iface.c; here they are
 * mirrored, with the same length check.
 */
#include "shm/shm_int.h"
#include "shm/shm_ring.h"
#include "shm/shm_fifo.h"

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
#define NCELLS    4u
#define CELL_SIZE 64u
#define CELL_DATA (CELL_SIZE - LOOM_SHM_SLOT_HDR)

/* The FIFO's side of one input: its memory, ends, and what was claimed. */
typedef struct fifo_model {
    void              *mem;
    loom_shm_fifo_tx_t tx;
    loom_shm_fifo_rx_t rx;
    struct {
        loom_shm_slot_t *cell;
        uint64_t         pos;
        uint32_t         len;
        uint16_t         src;
        int              published;
        uint8_t          bytes[CELL_DATA];
    } claim[NCELLS];                  /* by position % NCELLS */
    uint64_t claimed, taken;
} fifo_model_t;

/* 'F': claim a cell for producer src and fill it (unpublished). */
static size_t fifo_claim(fifo_model_t *f, const uint8_t *data, size_t size, size_t off)
{
    uint16_t src = data[off] % 8;
    uint32_t len = data[off + 1] % (CELL_DATA + 1);
    uint64_t pos;
    loom_shm_slot_t *cell;

    off += 2;
    len = (uint32_t)(len < size - off ? len : size - off);
    cell = loom_shm_fifo_tx_claim(&f->tx, src, &pos);
    if (cell == NULL) {
        if (f->claimed - f->taken != NCELLS) {
            __builtin_trap();          /* refused while not full */
        }
        return off + len;
    }
    if (pos != f->claimed || loom_shm_fifo_src(cell) != src) {
        __builtin_trap();              /* claims out of order, or the claimer lost */
    }
    memcpy(cell->data, data + off, len);
    f->claim[pos % NCELLS].cell = cell;
    f->claim[pos % NCELLS].pos = pos;
    f->claim[pos % NCELLS].len = len;
    f->claim[pos % NCELLS].src = src;
    f->claim[pos % NCELLS].published = 0;
    memcpy(f->claim[pos % NCELLS].bytes, data + off, len);
    ++f->claimed;
    return off + len;
}

/* 'U': publish the k-th claim not yet published. */
static void fifo_publish(fifo_model_t *f, uint8_t k)
{
    for (uint64_t p = f->taken; p < f->claimed; ++p) {
        if (!f->claim[p % NCELLS].published && k-- == 0) {
            loom_shm_fifo_tx_publish(&f->tx, f->claim[p % NCELLS].cell, p,
                                     f->claim[p % NCELLS].len, LOOM_SHM_FRAME_AM);
            f->claim[p % NCELLS].published = 1;
            return;
        }
    }
}

/* 'R': the consumer takes the oldest frame, if published. */
static void fifo_take(fifo_model_t *f)
{
    loom_shm_slot_t *cell = loom_shm_fifo_rx_peek(&f->rx);
    const int ready = f->taken < f->claimed && f->claim[f->taken % NCELLS].published;

    if ((cell != NULL) != ready) {
        __builtin_trap();              /* seen while unpublished, or missed when published */
    }
    if (cell == NULL) {
        return;
    }
    if (cell->len != f->claim[f->taken % NCELLS].len ||
        loom_shm_fifo_src(cell) != f->claim[f->taken % NCELLS].src ||
        memcmp(cell->data, f->claim[f->taken % NCELLS].bytes, cell->len) != 0) {
        __builtin_trap();              /* not what was sent, or not by whom */
    }
    loom_shm_fifo_rx_release(&f->rx);
    if (loom_shm_fifo_src(f->claim[f->taken % NCELLS].cell) != UINT32_MAX) {
        __builtin_trap();              /* a freed cell still names a claimer */
    }
    ++f->taken;
}

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
    static fifo_model_t fifo;
    static loom_shm_ring_tx_t tx;
    static loom_shm_ring_rx_t rx;
    uint8_t *bufs[LOOM_SHM_MAX_GETS] = { 0 };
    void *ring = aligned_alloc(LOOM_CACHE_LINE, loom_shm_ring_bytes(NSLOTS, SLOT_SIZE));
    uint8_t expect[NSLOTS][SLOT_SIZE];
    uint32_t expect_len[NSLOTS];
    uint64_t produced = 0, consumed = 0;
    size_t off = 0;

    memset(&fifo, 0, sizeof(fifo));
    fifo.mem = aligned_alloc(LOOM_CACHE_LINE, loom_shm_fifo_bytes(NCELLS, CELL_SIZE));
    if (ring == NULL || fifo.mem == NULL) {
        free(ring);
        free(fifo.mem);
        return 0;
    }
    memset(fifo.mem, 0, loom_shm_fifo_bytes(NCELLS, CELL_SIZE));   /* zero: empty */
    loom_shm_fifo_tx_init(&fifo.tx, fifo.mem, NCELLS, CELL_SIZE);
    loom_shm_fifo_rx_init(&fifo.rx, fifo.mem, NCELLS, CELL_SIZE);
    memset(&iface, 0, sizeof(iface));
    memset(&peer, 0, sizeof(peer));
    iface.job = &job;
    peer.iface = &iface;
    peer.world_rank = 1;
    peer.max_frame = loom_shm_ring_max_frame(SLOT_SIZE);
    peer.gets_free = ~(uint64_t)0;
    loom_shm_ring_format(ring, NSLOTS, SLOT_SIZE);
    loom_shm_ring_tx_init(&tx, ring, NSLOTS, SLOT_SIZE);
    loom_shm_ring_rx_init(&rx, ring, NSLOTS, SLOT_SIZE);

    while (off < size) {
        uint8_t op = data[off++];
        if (op == 'P' && off + 3 <= size) {
            uint32_t len = (uint32_t)(data[off] | data[off + 1] << 8) % (peer.max_frame + 1);
            uint16_t type = data[off + 2] % 4;
            loom_shm_slot_t *slot;
            off += 3;
            len = (uint32_t)(len < size - off ? len : size - off);
            slot = loom_shm_ring_tx_reserve(&tx);
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
            loom_shm_ring_tx_commit(&tx, slot, len, type);
            ++produced;
        } else if (op == 'C') {
            loom_shm_slot_t *slot = loom_shm_ring_rx_peek(&rx);
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
                loom_shm_get_frame(&peer, slot->type, slot->data, slot->len);
                /* served requests are streamed by loom_shm_get_push, which
                 * needs a live iface: forget them */
                peer.stream_head = peer.stream_count = 0;
                iface.nstreams = 0;
            }
            loom_shm_ring_rx_release(&rx);
            ++consumed;
        } else if (op == 'F' && off + 2 <= size) {
            off = fifo_claim(&fifo, data, size, off);
        } else if (op == 'U' && off + 1 <= size) {
            fifo_publish(&fifo, data[off++]);
        } else if (op == 'R') {
            fifo_take(&fifo);
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
    free(fifo.mem);
    return 0;
}
