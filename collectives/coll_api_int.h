/*
 * coll_api_int.h: the pieces of the public-call layer shared by
 * coll_api.c and coll_api_rooted.c (validation, launch, LOOM_ERRORS).
 */
#ifndef LOOM_COLL_API_INT_H
#define LOOM_COLL_API_INT_H

#include "coll_int.h"

/* core/p2p.c: LOOM_ERRORS policy (declared in the engine's private header) */
loom_status_t loom_p2p_error(loom_status_t status, const char *op);

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
loom_status_t loom_coll_check_vec(const size_t *counts, const size_t *displs, int n,
                                  const char *what, const char *who);
size_t loom_coll_vec_total(const size_t *counts, int n);

#endif /* LOOM_COLL_API_INT_H */
