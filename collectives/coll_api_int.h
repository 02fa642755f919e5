/*
 * coll_api_int.h: the pieces of the public-call layer shared by
 * coll_api.c and coll_api_rooted.c (validation, launch, LOOM_ERRORS).
 */
#ifndef LOOM_COLL_API_INT_H
#define LOOM_COLL_API_INT_H

#include "coll_int.h"
#include "coll_comm_int.h"
#include "p2p_int.h"   /* loom_p2p_error: the LOOM_ERRORS policy */

#include <stddef.h>
#include <stdint.h>

loom_status_t loom_coll_begin(loom_comm_t comm, const char *who, const char *name,
                              loom_datatype_t dt, loom_request_t *req_p);
loom_status_t loom_coll_launch(loom_request_t req, loom_coll_type_t type, size_t bytes,
                               int local, loom_request_t *req_p);
loom_status_t loom_coll_fail(loom_request_t req, loom_status_t st, const char *who);
loom_status_t loom_coll_finish(loom_status_t st, loom_request_t *req_p, const char *who);
loom_status_t loom_coll_check_buf(const void *buf, size_t count, const char *what,
                                  const char *who);
loom_status_t loom_coll_check_count(const loom_coll_state_t *s, size_t count,
                                    size_t blocks, const char *who);
loom_status_t loom_coll_check_root(const loom_coll_state_t *s, int root, const char *who);
loom_status_t loom_coll_check_req(const loom_request_t *req_p, const char *who);
loom_status_t loom_coll_check_alias(const void *sbuf, size_t sbytes, const void *rbuf,
                                    size_t rbytes, const char *who);
loom_status_t loom_coll_check_vec(const loom_coll_state_t *s, const size_t *counts,
                                  const size_t *displs, const char *what, const char *who,
                                  size_t *total_p, size_t *extent_p);

/**
 * Can a blocking gather, scatter (@p root), allgather or alltoall (@p type)
 * take the fast member of the selected algorithm? Only calls the request
 * path would accept as they are: blocks of a positive size within the shm
 * slots, a valid root, this rank's input (@p own: sendbuf, a scatter's
 * recvbuf) present, the whole buffer (@p whole: the root's, or every rank's
 * recvbuf) present and apart from @p own (or @p own in place). Anything
 * else takes the request path, which reports it (coll_api.c, below the
 * rooted calls of coll_api_rooted.c that use it too).
 * @return the algorithm, or NULL.
 */
const loom_coll_alg_t *loom_coll_move_fast(const void *own, const void *whole, size_t count,
                                           loom_datatype_t dt, int root, loom_comm_t comm,
                                           loom_coll_type_t type);

/* Largest byte count of one buffer: no C object is larger than PTRDIFF_MAX. */
#define LOOM_COLL_MAX_BYTES ((size_t)PTRDIFF_MAX)

/** Do [a, a + alen) and [b, b + blen) share a byte? */
static inline int loom_coll_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

    return alen > 0 && blen > 0 && x < y + blen && y < x + alen;
}

/*
 * The algorithm the selection gives the blocking call of @p type on @p bytes
 * (remembered per communicator for the last size), when its fast member
 * may run now (loom_coll_comm_fast_ready); NULL otherwise: the comm is not
 * valid, has no collective state yet (its first collective takes the
 * request path, which creates it), or its segment is not set up or busy.
 */
static inline const loom_coll_alg_t *loom_coll_blocking_alg(loom_comm_t comm,
                                                            loom_coll_type_t type,
                                                            size_t bytes)
{
    loom_coll_comm_t *cc;

    if (loom_unlikely(comm == LOOM_COMM_NULL || comm->magic != LOOM_COMM_MAGIC) ||
        (cc = comm->coll_priv) == NULL || !loom_coll_comm_fast_ready(cc)) {
        return NULL;
    }
    if (loom_likely(cc->fast_alg[type] != NULL && cc->fast_bytes[type] == bytes)) {
        return cc->fast_alg[type];
    }
    return loom_coll_select_blocking(cc, comm, type, bytes);
}

#endif /* LOOM_COLL_API_INT_H */
