/*
 * p2p_error.c: the engine's error policy and the words of its messages,
 * low in the p2p stack (docs/p2p.md "The files as a stack").
 *
 * loom_p2p_error applies LOOM_ERRORS to a failed call: return the code
 * (LOOM_ERRORS=return, or outside init/finalize) or abort the job naming
 * the call and the error. Every file that ends a user's call with an error
 * uses it (the API files, comm.c, the collectives), so it sits below all of
 * them and reads only the engine's state. Its test is inline as well
 * (loom_p2p_error_inline, p2p_engine_int.h) for p2p.c, where the compiler
 * inlined it while both were one file: an error branch that is a plain
 * call there costs the fast path a saved register. The helper beside it only
 * words a message (a truncated receive); it too calls nothing of the
 * engine. (A peer's host name for messages, loom_p2p_peer_host, is inline
 * in p2p_engine_int.h: the error branches of the fast paths inline it.)
 */
#include "p2p_engine_int.h"
#include "log_int.h"

#include <stdio.h>

void loom_p2p_error_abort(loom_status_t status, const char *op)
{
    char msg[160];

    snprintf(msg, sizeof(msg), "%s failed: %s (%s); LOOM_ERRORS=return makes errors "
             "return instead", op, loom_strerror(status), loom_status_name(status));
    loom_abort(1, msg);
}

loom_status_t loom_p2p_error(loom_status_t status, const char *op)
{
    return loom_p2p_error_inline(status, op);
}

void loom_p2p_log_truncation(loom_request_t req, size_t msg_len)
{
    loom_p2p_req_t *rq = loom_p2p_req(req);

    loom_error("p2p", "receive on '%s': message of %zu bytes from rank %d tag %d "
               "truncated to the %zu-byte receive buffer", req->comm ? req->comm->name : "?",
               msg_len, req->msg.source, req->msg.tag, rq->len);
}
