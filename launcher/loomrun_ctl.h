/*
 * loomrun_ctl.h: the control protocol between the loomrun head and its
 * daemons (one TCP connection per daemon, opened by the daemon).
 *
 * Design. A frame is an 8-byte header (body length, message type, both
 * big-endian uint32) and a body laid out by the type's field spec (the
 * table in loomrun_ctl.c): 'u' a uint32, 'i' an int32, 's' a string (uint32
 * length counting its NUL, the bytes, the NUL; no NUL inside), 'b' a blob
 * (uint32 length, bytes), 'L' a list of strings (uint32 count, strings) and
 * 'I' an array of uint32 (count, values). Big-endian throughout: hosts of
 * different byte order can share a job.
 *
 * The decoder (loomrun_ctl_decode) is pure: it takes bytes as they came
 * from the socket, checks every length against the frame and the frame
 * against LOOMRUN_CTL_MAX_FRAME, and fills a message whose strings and
 * blobs point into the caller's buffer (no allocation), so a fuzzer can
 * drive it directly. A frame that does not parse ends the connection.
 *
 * The first frame on a connection must be HELLO with the job's secret (16
 * random bytes the head drew and gave the daemon on its stdin); the head
 * sends nothing before a valid HELLO, and drops (with a message naming the
 * remote address) a connection whose first frame is anything else, whose
 * secret is wrong, or that stays silent for LOOMRUN_CTL_HELLO_TIMEOUT_S.
 */
#ifndef LOOMRUN_CTL_H
#define LOOMRUN_CTL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define LOOMRUN_CTL_MAGIC      0x4c4d524eu  /* "LMRN" */
#define LOOMRUN_CTL_VERSION    1
#define LOOMRUN_CTL_HDR_LEN    8
#define LOOMRUN_CTL_MAX_FIELDS 8
#define LOOMRUN_CTL_HELLO_TIMEOUT_S 10.0
#define LOOMRUN_CTL_MAX_FRAME  (256u << 20) /* fence blobs of large jobs fit */

/** Message types; the comment is the body's field spec. */
typedef enum loomrun_ctl_type {
    LOOMRUN_CTL_HELLO = 1,   /* d->h "uuuusb": magic, version, node, pid, host, secret */
    LOOMRUN_CTL_JOB,         /* h->d "uuusssLLLI": flags, nranks, node, nspace, cwd,
                                head's host, node names, argv, env (VAR=value
                                exports), node of each rank */
    LOOMRUN_CTL_STARTED,     /* d->h "uu": rank, pid */
    LOOMRUN_CTL_OUTPUT,      /* d->h "uuub": rank, fd (1|2), end_line, bytes */
    LOOMRUN_CTL_STDIN,       /* h->d "b": bytes for rank 0; empty = EOF */
    LOOMRUN_CTL_EXIT,        /* d->h "uuuuu": rank, pid, wait status, connected, finalized */
    LOOMRUN_CTL_ABORT,       /* d->h "uis": rank, status, message */
    LOOMRUN_CTL_SIGNAL,      /* h->d "u": signal for every rank */
    LOOMRUN_CTL_FENCE,       /* d->h "usb": nodes taking part, fence id, contribution */
    LOOMRUN_CTL_FENCE_DONE,  /* h->d "isb": pmix status, fence id, everyone's data */
    LOOMRUN_CTL_DMDX_REQ,    /* any "uuu": origin node, request id, rank */
    LOOMRUN_CTL_DMDX_RESP,   /* any "uuib": origin node, request id, pmix status, data */
    LOOMRUN_CTL_ERROR,       /* d->h "us": exit status for loomrun, why the daemon
                                cannot run its part of the job */
    LOOMRUN_CTL_SHUTDOWN,    /* h->d "u": 1 after a clean job (finalize PMIx), else 0 */
    LOOMRUN_CTL_NOTE,        /* d->h "ui": rank, the peer it saw fail (-1: unknown);
                                sent before that rank's EXIT or ABORT. Added last,
                                within version 1: head and daemons are one binary */
    LOOMRUN_CTL_NTYPES
} loomrun_ctl_type_t;

enum {
    LOOMRUN_CTL_JOB_TAG = 1, LOOMRUN_CTL_JOB_QUIET = 2,
    LOOMRUN_CTL_JOB_REPORT_BINDINGS = 4,
    LOOMRUN_CTL_JOB_BIND_SHIFT = 3,   /* bits 3-4: the --bind-to mode (LOOMRUN_BIND_*) */
    LOOMRUN_CTL_JOB_BIND_MASK = 3u << 3,
};

/** A list of strings inside a frame: walk it with loomrun_ctl_list_next. */
typedef struct loomrun_ctl_list {
    const uint8_t *p;      /* first entry (its length word) */
    uint32_t       n;
} loomrun_ctl_list_t;

/** A decoded frame; pointers refer to the buffer given to the decoder. */
typedef struct loomrun_ctl_msg {
    uint32_t            type;
    uint32_t            u[LOOMRUN_CTL_MAX_FIELDS];     /* 'u' and 'i', in order */
    int                 nu;
    const char         *s[LOOMRUN_CTL_MAX_FIELDS];     /* 's', NUL-terminated */
    int                 ns;
    const uint8_t      *blob;                          /* 'b' (at most one) */
    size_t              blob_len;
    loomrun_ctl_list_t  list[LOOMRUN_CTL_MAX_FIELDS];  /* 'L' */
    int                 nlist;
    const uint8_t      *arr;                           /* 'I' (at most one), big-endian */
    uint32_t            arr_n;
} loomrun_ctl_msg_t;

/** A growing byte buffer (frames being built or waiting to be written). */
typedef struct loomrun_buf {
    uint8_t *p;
    size_t   len, cap;
} loomrun_buf_t;

/**
 * Decode the frame at the start of @p buf (@p len bytes available).
 * @return 1 and *used_p = frame size when a whole valid frame is there;
 *         0 when more bytes are needed; -1 when the bytes cannot be a
 *         valid frame (@p why says what is wrong).
 */
int loomrun_ctl_decode(const uint8_t *buf, size_t len, loomrun_ctl_msg_t *msg,
                       size_t *used_p, char *why, size_t wlen);

/** The next string of a list (advances @p l); NULL when none is left. */
const char *loomrun_ctl_list_next(loomrun_ctl_list_t *l);

/** Element @p i of the message's 'I' array. */
uint32_t loomrun_ctl_arr(const loomrun_ctl_msg_t *msg, uint32_t i);

/**
 * Append one frame of @p type to @p b; the variadic arguments follow the
 * type's spec: 'u' unsigned, 'i' int, 's' const char *, 'b' const void * and
 * size_t, 'L' char *const * and int, 'I' const int * and int.
 * @return 0, or -1 (out of memory, or the frame would exceed the limit).
 */
int loomrun_ctl_pack(loomrun_buf_t *b, loomrun_ctl_type_t type, ...);

/** loomrun_ctl_pack with a va_list. */
int loomrun_ctl_vpack(loomrun_buf_t *b, loomrun_ctl_type_t type, va_list ap);

/** The name of a message type, for messages. */
const char *loomrun_ctl_type_name(uint32_t type);

/** Release a buffer's memory. */
void loomrun_buf_free(loomrun_buf_t *b);

#endif /* LOOMRUN_CTL_H */
