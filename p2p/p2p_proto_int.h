/*
 * p2p_proto_int.h: the point-to-point wire protocol.
 *
 * Every active-message frame starts with a one-byte type. Matched frames
 * (EAGER, EAGER_SYNC, RTS) carry the matching key and the message length:
 *
 *   EAGER       hdr(24) + payload            standard/buffered small message
 *   EAGER_SYNC  hdr(24) + sreq(8) + payload  ssend: receiver ACKs when matched
 *   RTS         hdr(24) + sreq + raddr + rkey + pushed  rendezvous request-to-
 *               send: the receiver, once matched, get()s [raddr+pushed,
 *               raddr+len) and sends FIN
 *   RTS flagged LOOM_P2P_RTS_RIOV (reserved[0]) + payload: a typed send
 *               that did not pack (same host, a transport with get_riov):
 *               rsvd = its n pieces (struct iovec, in its address space,
 *               inside the region of rkey, in stream order); the payload is
 *               the n pieces, or with LOOM_P2P_RTS_RIOV_REMOTE the key of
 *               the piece array at raddr, exposed until FIN
 *   RTS flagged LOOM_P2P_RTS_PIPE: a typed send packed while the receiver
 *               reads (same host, a transport with get_riov): raddr is the
 *               packed copy, whose first rsvd bytes are ready; the 64
 *               bytes before raddr (inside the region of rkey) start with
 *               a uint64 counting the bytes packed so far (UINT64_MAX: the
 *               pack failed), written after those bytes; no payload
 *   RTS flagged LOOM_P2P_RTS_SELF: a typed send to this very process with
 *               small pieces, not packed: the receive finds the send by
 *               sreq in this process's table, and copies from its (buf,
 *               count, type) itself (one pass where both types are the
 *               same), kept with a reference on the type until FIN;
 *               refused from any other rank or naming no such send; no
 *               payload
 *   RNDV_DATA(sreq) + the first `pushed` bytes of that message, sent right
 *               behind its RTS where the transport asks for it
 *               (caps.rndv_push: TCP, whose get costs a request trip), so
 *               they travel while the receiver's get request does
 *   ACK(sreq)   the EAGER_SYNC was matched: the ssend completes
 *   FIN(sreq)   the receiver finished reading a rendezvous buffer
 *   BYE         finalize: the sender will send nothing more (frames are
 *               ordered per pair, so everything it sent before has arrived)
 *   NAK(sreq)   finalize: the receiver finalized with this RTS or EAGER_SYNC
 *               unmatched (it will post no receive now): the send completes
 *               with LOOM_ERR_CANCELED and a warning instead of waiting forever;
 *               also the answer to CANCEL when the message was still unmatched
 *   CANCEL(sreq) the sender cancels its RTS or EAGER_SYNC: a receiver that
 *               still holds it unexpected drops it and answers NAK (the send
 *               completes cancelled); one that matched it says nothing (the
 *               ACK/FIN completes the send, not cancelled)
 *   AM          hdr_am(16) + payload: a frame of a layer above the engine
 *               (rma/), never matched: handed to the function registered
 *               for its id (p2p_am.c) from the progress pass, in the peer's
 *               frame stream like any other frame (session 16)
 *
 * The small header is 24 bytes so an 8-byte message plus the shared-memory
 * slot header fits one 64-byte cache line. @c src is the sender's rank in
 * the communicator (so a receive never translates ranks); the transport
 * gives the world rank separately for replies. sreq is an id of the
 * sender's request (a slot and generation, p2p/p2p_sreq.c, never a
 * pointer), echoed back verbatim in ACK/FIN.
 *
 * Frames are read with memcpy into local structs: transports promise no
 * alignment of the delivered buffer.
 */
#ifndef LOOM_P2P_PROTO_INT_H
#define LOOM_P2P_PROTO_INT_H

#include "tl.h"

#include <stdint.h>

typedef enum loom_p2p_frame_type {
    LOOM_P2P_EAGER = 1,
    LOOM_P2P_EAGER_SYNC,
    LOOM_P2P_RTS,
    LOOM_P2P_ACK,
    LOOM_P2P_FIN,
    LOOM_P2P_BYE,
    LOOM_P2P_NAK,
    LOOM_P2P_RNDV_DATA,
    LOOM_P2P_CANCEL,
    LOOM_P2P_AM,
} loom_p2p_frame_type_t;

/** Header of every matched frame. */
typedef struct loom_p2p_hdr {
    uint8_t  type;
    uint8_t  reserved[3];
    uint32_t ctx;      /* communicator context (+ LOOM_CTX_COLL) */
    int32_t  src;      /* sender's rank in the communicator */
    int32_t  tag;
    uint64_t len;      /* message length in bytes */
} loom_p2p_hdr_t;

typedef struct loom_p2p_hdr_sync {
    loom_p2p_hdr_t base;
    uint64_t       sreq;
} loom_p2p_hdr_sync_t;

typedef struct loom_p2p_hdr_rts {
    loom_p2p_hdr_t base;
    uint64_t       sreq;
    uint64_t       raddr;
    loom_tl_rkey_t rkey;
    uint32_t       pushed;   /* bytes a RNDV_DATA frame brings next (0: none) */
    uint32_t       rsvd;     /* LOOM_P2P_RTS_RIOV: the sender's pieces;
                              * LOOM_P2P_RTS_PIPE: bytes packed when it left */
} loom_p2p_hdr_rts_t;

/* RTS base.reserved[0]: the sender did not pack (see above) */
#define LOOM_P2P_RTS_RIOV        0x01u
/* with it: the pieces stay at raddr; the payload is their array's key */
#define LOOM_P2P_RTS_RIOV_REMOTE 0x02u
/* RTS base.reserved[0]: packed while read (see above); alone */
#define LOOM_P2P_RTS_PIPE        0x04u
/* RTS base.reserved[0]: a typed send to this process, not packed (see above); alone */
#define LOOM_P2P_RTS_SELF        0x08u
/*
 * A pipelined RTS's raddr is LOOM_P2P_PIPE_HDR bytes into the sender's
 * copy; the header's first 8 bytes count the bytes packed so far, and only
 * grow (the sender packs all before its send call returns), or say
 * LOOM_P2P_PIPE_FAILED.
 */
#define LOOM_P2P_PIPE_HDR        ((size_t)64)
#define LOOM_P2P_PIPE_FAILED     UINT64_MAX

/** ACK, FIN, BYE, NAK, CANCEL; and RNDV_DATA, followed by its bytes. */
typedef struct loom_p2p_hdr_ctl {
    uint8_t  type;
    uint8_t  reserved[7];
    uint64_t sreq;
} loom_p2p_hdr_ctl_t;

/** AM: a layer's frame (p2p_am.c); @c src as in the matched header. */
typedef struct loom_p2p_hdr_am {
    uint8_t  type;
    uint8_t  id;        /* the handler registered with loom_p2p_am_set */
    uint8_t  reserved[2];
    uint32_t ctx;       /* communicator context the layer sent on */
    int32_t  src;       /* sender's rank in that communicator */
    uint32_t reserved2; /* keeps the payload 8-byte aligned in the frame */
} loom_p2p_hdr_am_t;

/** Largest header an eager frame carries (eager limit = max_am - this). */
#define LOOM_P2P_EAGER_HDR_MAX sizeof(loom_p2p_hdr_sync_t)
/** Largest header of any frame (room reserved in queued frames). */
#define LOOM_P2P_HDR_MAX sizeof(loom_p2p_hdr_rts_t)

_Static_assert(sizeof(loom_p2p_hdr_t) == 24, "small header must stay 24 bytes");
_Static_assert(sizeof(loom_p2p_hdr_ctl_t) == 16, "control header is 16 bytes");
_Static_assert(sizeof(loom_p2p_hdr_am_t) == 16, "AM header is 16 bytes");
_Static_assert(sizeof(loom_p2p_hdr_rts_t) == 80, "RTS header is 80 bytes");

#endif /* LOOM_P2P_PROTO_INT_H */
