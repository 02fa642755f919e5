/*
 * mpi_request.c: completion calls (Wait/Test families), Request_free,
 * Cancel, and the side storage of nonblocking v-collectives.
 *
 * An MPI_Request is a loom request and an MPI_Status has the layout of a
 * loom_msg_status_t, so arrays go to loom_waitall & co. unchanged; only the
 * error field is converted afterwards (loom status -> MPI class). Waitsome
 * and Testsome are loom_waitany/loom_test over the array.
 *
 * Side storage: a nonblocking v-collective needs its size_t count and
 * displacement arrays until it completes. They hang off a short list keyed
 * by the request; every completion call checks the list only when it is not
 * empty, so plain point-to-point traffic never pays for it.
 */
#include "mpi_int.h"
#include "mpi_f2c_int.h"
#include "mpi_p2pext_int.h"
#include "request_int.h"
#include "mt_int.h"

#include <pthread.h>

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(MPI_Status) == sizeof(loom_msg_status_t) &&
               offsetof(MPI_Status, MPI_SOURCE) == offsetof(loom_msg_status_t, source) &&
               offsetof(MPI_Status, MPI_TAG) == offsetof(loom_msg_status_t, tag) &&
               offsetof(MPI_Status, MPI_ERROR) == offsetof(loom_msg_status_t, error) &&
               offsetof(MPI_Status, loom_cancelled_) ==
                   offsetof(loom_msg_status_t, cancelled) &&
               offsetof(MPI_Status, loom_bytes_) == offsetof(loom_msg_status_t, bytes) &&
               sizeof(loom_status_t) == sizeof(int),
               "MPI_Status must have the layout of loom_msg_status_t");

/* ---- side storage ------------------------------------------------------------------ */

static loom_mpi_side_t *loom_mpi_side_list;
size_t loom_mpi_side_count;
static size_t loom_mpi_side_orphans;

loom_mpi_side_t *loom_mpi_side_alloc(size_t nelem)
{
    loom_mpi_side_t *side = malloc(sizeof(*side) + nelem * sizeof(size_t));

    if (side != NULL) {
        side->req      = MPI_REQUEST_NULL;
        side->next     = NULL;
        side->idx      = -1;
        side->owner    = NULL;
        side->orphaned = 0;
    }
    return side;
}

void loom_mpi_side_attach(loom_mpi_side_t *side, MPI_Request req)
{
    if (req == MPI_REQUEST_NULL) {
        free(side);
        return;
    }
    side->req  = req;
    side->next = loom_mpi_side_list;
    loom_mpi_side_list = side;
    ++loom_mpi_side_count;
}

static void loom_mpi_side_unlink(loom_mpi_side_t **pp)
{
    loom_mpi_side_t *side = *pp;

    *pp = side->next;
    --loom_mpi_side_count;
    if (side->orphaned) {
        --loom_mpi_side_orphans;
    }
    free(side);
}

/*
 * The side storage of the requests of reqs[] (a completion call's array,
 * also the call's token) is claimed by that call: idx and owner say which
 * element it belongs to. Entries claimed by another call are left alone:
 * under MPI_THREAD_MULTIPLE another thread's completion call may be waiting
 * on them (a wait yields the engine lock), and its sweep needs its marks.
 * Two calls at once never hold the same request (MPI forbids it), so they
 * never claim the same entry.
 */
void loom_mpi_side_mark(size_t n, const MPI_Request reqs[])
{
    for (loom_mpi_side_t *s = loom_mpi_side_list; s != NULL; s = s->next) {
        if (s->owner == reqs) {     /* left over by a call that did not sweep */
            s->owner = NULL;
            s->idx   = -1;
        }
        for (size_t i = 0; i < n && !s->orphaned && s->owner == NULL; ++i) {
            if (reqs[i] == s->req) {
                s->idx   = (long)i;
                s->owner = reqs;
            }
        }
    }
}

/* Free the side storage of reqs[]' completed requests; release the others. */
void loom_mpi_side_sweep(size_t n, const MPI_Request reqs[])
{
    loom_mpi_side_t **pp = &loom_mpi_side_list;

    while (*pp != NULL) {
        loom_mpi_side_t *s = *pp;

        if (s->owner != reqs) {
            pp = &s->next;
        } else if (s->idx >= 0 && (size_t)s->idx < n && reqs[s->idx] == MPI_REQUEST_NULL) {
            loom_mpi_side_unlink(pp);
        } else {
            s->idx   = -1;
            s->owner = NULL;
            pp = &s->next;
        }
    }
}

void loom_mpi_side_reap(int wait)
{
    loom_mpi_side_t **pp = &loom_mpi_side_list;
    int flag;

    /* a test runs progress, which could let another thread change the list
     * under this walk (MPI_THREAD_MULTIPLE); wait=1 is finalize's, alone */
    loom_mt_pin();
    while (loom_mpi_side_orphans > 0 && *pp != NULL) {
        loom_mpi_side_t *s = *pp;

        if (s->orphaned) {
            flag = 0;
            if (wait) {
                loom_wait(&s->req, LOOM_STATUS_IGNORE);
            } else {
                loom_test(&s->req, &flag, LOOM_STATUS_IGNORE);
            }
            if (s->req == MPI_REQUEST_NULL) {
                loom_mpi_side_unlink(pp);
                continue;
            }
        }
        pp = &s->next;
    }
    loom_mt_unpin();
}

/* Find the side storage of @p req (NULL if it has none). */
static loom_mpi_side_t *loom_mpi_side_find(MPI_Request req)
{
    for (loom_mpi_side_t *s = loom_mpi_side_list; s != NULL; s = s->next) {
        if (s->req == req && !s->orphaned) {
            return s;
        }
    }
    return NULL;
}

/*
 * The blocking-call scratch lives across the call's wait, during which
 * (MPI_THREAD_MULTIPLE) another thread's blocking call may need scratch of
 * its own: in MULTIPLE mode each thread has its own buffer, freed when the
 * thread exits (a pthread key's destructor) or at MPI_Finalize (the
 * finalizing thread's). The other levels keep the one static buffer.
 */
typedef struct loom_mpi_scratch_buf {
    size_t *buf;
    size_t  len;
} loom_mpi_scratch_buf_t;

static loom_mpi_scratch_buf_t loom_mpi_scratch_one;
static _Thread_local loom_mpi_scratch_buf_t loom_mpi_scratch_mine;
static pthread_key_t  loom_mpi_scratch_key;
static pthread_once_t loom_mpi_scratch_once = PTHREAD_ONCE_INIT;

static void loom_mpi_scratch_thread_exit(void *arg)
{
    loom_mpi_scratch_buf_t *b = arg;

    free(b->buf);
    b->buf = NULL;
    b->len = 0;
}

static void loom_mpi_scratch_key_make(void)
{
    (void)pthread_key_create(&loom_mpi_scratch_key, loom_mpi_scratch_thread_exit);
}

static loom_mpi_scratch_buf_t *loom_mpi_scratch_this(void)
{
    if (!loom_mt_active) {
        return &loom_mpi_scratch_one;
    }
    (void)pthread_once(&loom_mpi_scratch_once, loom_mpi_scratch_key_make);
    if (loom_mpi_scratch_mine.buf == NULL) {
        (void)pthread_setspecific(loom_mpi_scratch_key, &loom_mpi_scratch_mine);
    }
    return &loom_mpi_scratch_mine;
}

size_t *loom_mpi_scratch(size_t nelem)
{
    loom_mpi_scratch_buf_t *b = loom_mpi_scratch_this();
    size_t *grown;

    if (nelem <= b->len) {
        return b->buf;
    }
    grown = realloc(b->buf, nelem * sizeof(size_t));
    if (grown == NULL) {
        return NULL;
    }
    b->buf = grown;
    b->len = nelem;
    return grown;
}

void loom_mpi_scratch_free(void)
{
    loom_mpi_scratch_buf_t *b = loom_mpi_scratch_this();

    free(b->buf);
    b->buf = NULL;
    b->len = 0;
}

/* ---- helpers ---------------------------------------------------------------------------- */

/* The communicator whose error handler a failed request reaches. */
static MPI_Comm loom_mpi_req_comm(size_t n, const MPI_Request reqs[])
{
    for (size_t i = 0; i < n; ++i) {
        if (reqs[i] != MPI_REQUEST_NULL) {
            return loom_mpi_comm_of(reqs[i]->comm);
        }
    }
    return MPI_COMM_WORLD;
}

static void loom_mpi_status_empty(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE      = MPI_ANY_SOURCE;
        status->MPI_TAG         = MPI_ANY_TAG;
        status->MPI_ERROR       = MPI_SUCCESS;
        status->loom_cancelled_ = 0;
        status->loom_bytes_     = 0;
    }
}

/* Around every completion call: reap orphans, then mark / sweep side storage. */
static inline void loom_mpi_complete_begin(size_t n, const MPI_Request reqs[])
{
    if (__builtin_expect(loom_mpi_side_count > 0, 0)) {
        loom_mpi_side_reap(0);
        loom_mpi_side_mark(n, reqs);
    }
}

static inline void loom_mpi_complete_end(size_t n, const MPI_Request reqs[])
{
    if (__builtin_expect(loom_mpi_side_count > 0, 0)) {
        loom_mpi_side_sweep(n, reqs);
    }
}

static int loom_mpi_array_args(int count, const MPI_Request reqs[], const char *call)
{
    if (count < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_COUNT, call, "count %d is negative", count);
    }
    if (count > 0 && reqs == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, call, "requests array is NULL");
    }
    return MPI_SUCCESS;
}

/*
 * Finish a multiple-completion call that failed with @p st: statuses of
 * requests still pending say MPI_ERR_PENDING and the call returns
 * MPI_ERR_IN_STATUS (or the class itself when statuses are ignored).
 */
static int loom_mpi_multi_error(MPI_Comm comm, loom_status_t st, size_t n,
                                const MPI_Request reqs[], MPI_Status statuses[],
                                const char *call)
{
    if (statuses == MPI_STATUSES_IGNORE) {
        return loom_mpi_raise_loom(comm, st, call);
    }
    for (size_t i = 0; i < n; ++i) {
        if (reqs[i] != MPI_REQUEST_NULL) {
            statuses[i].MPI_ERROR = MPI_ERR_PENDING;
        }
    }
    return loom_mpi_raise(comm, MPI_ERR_IN_STATUS, call,
                          "at least one request failed (first: %s, %s); see the "
                          "statuses' MPI_ERROR", loom_status_name(st), loom_strerror(st));
}

/* ---- single completion ------------------------------------------------------------------- */

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    LOOM_MT_GUARD();
    MPI_Comm comm;
    loom_status_t st;

    if (request == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, "MPI_Wait", "request is NULL");
    }
    if (*request == MPI_REQUEST_NULL) {
        loom_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    comm = loom_mpi_req_comm(1, request);
    loom_mpi_complete_begin(1, request);
    int serr = loom_mpi_status_error_get(status);
    st = loom_wait(request, (loom_msg_status_t *)status);
    loom_mpi_complete_end(1, request);
    loom_mpi_status_error_put(status, serr);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Wait");
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    LOOM_MT_GUARD();
    MPI_Comm comm;
    loom_status_t st;

    if (request == NULL || flag == NULL) {
        return loom_mpi_raise(NULL, request == NULL ? MPI_ERR_REQUEST : MPI_ERR_ARG,
                              "MPI_Test", "%s is NULL", request == NULL ? "request" : "flag");
    }
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        loom_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    comm = loom_mpi_req_comm(1, request);
    loom_mpi_complete_begin(1, request);
    int serr = loom_mpi_status_error_get(status);
    st = loom_test(request, flag, (loom_msg_status_t *)status);
    loom_mpi_complete_end(1, request);
    loom_mpi_status_error_put(status, serr);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Test");
}

/* ---- multiple completion ------------------------------------------------------------------ */

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    LOOM_MT_GUARD();
    MPI_Comm comm;
    loom_status_t st;
    int rc = loom_mpi_array_args(count, requests, "MPI_Waitall");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    comm = loom_mpi_req_comm((size_t)count, requests);
    loom_mpi_complete_begin((size_t)count, requests);
    st = loom_waitall((size_t)count, requests, (loom_msg_status_t *)statuses);
    loom_mpi_complete_end((size_t)count, requests);
    if (statuses != MPI_STATUSES_IGNORE) {
        loom_mpi_status_convert(statuses, (size_t)count);
    }
    if (st != LOOM_OK && loom_mpi_class_of(st) != MPI_SUCCESS) {
        return loom_mpi_multi_error(comm, st, (size_t)count, requests, statuses,
                                    "MPI_Waitall");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    LOOM_MT_GUARD();
    MPI_Comm comm;
    loom_status_t st;
    int rc = loom_mpi_array_args(count, requests, "MPI_Testall");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
    }
    comm = loom_mpi_req_comm((size_t)count, requests);
    loom_mpi_complete_begin((size_t)count, requests);
    st = loom_testall((size_t)count, requests, flag, (loom_msg_status_t *)statuses);
    loom_mpi_complete_end((size_t)count, requests);
    if (*flag && statuses != MPI_STATUSES_IGNORE) {
        loom_mpi_status_convert(statuses, (size_t)count);
    }
    if (st != LOOM_OK && loom_mpi_class_of(st) != MPI_SUCCESS) {
        return loom_mpi_multi_error(comm, st, (size_t)count, requests, statuses,
                                    "MPI_Testall");
    }
    return MPI_SUCCESS;
}

static int loom_mpi_all_null(int count, const MPI_Request reqs[])
{
    for (int i = 0; i < count; ++i) {
        /* an inactive persistent request counts as null (MPI-3.1 3.7.5) */
        if (reqs[i] != MPI_REQUEST_NULL && !loom_request_is_inactive(reqs[i])) {
            return 0;
        }
    }
    return 1;
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    LOOM_MT_GUARD();
    MPI_Comm comm;
    loom_status_t st;
    size_t idx = (size_t)-1;
    int rc = loom_mpi_array_args(count, requests, "MPI_Waitany");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (index == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Waitany", "index is NULL");
    }
    if (loom_mpi_all_null(count, requests)) {
        *index = MPI_UNDEFINED;
        loom_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    comm = loom_mpi_req_comm((size_t)count, requests);
    loom_mpi_complete_begin((size_t)count, requests);
    int serr = loom_mpi_status_error_get(status);
    st = loom_waitany((size_t)count, requests, &idx, (loom_msg_status_t *)status);
    loom_mpi_complete_end((size_t)count, requests);
    loom_mpi_status_error_put(status, serr);
    *index = idx == (size_t)-1 ? MPI_UNDEFINED : (int)idx;
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Waitany");
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                 MPI_Status *status)
{
    LOOM_MT_GUARD();
    MPI_Comm comm;
    loom_status_t st;
    size_t idx = (size_t)-1;
    int rc = loom_mpi_array_args(count, requests, "MPI_Testany");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (index == NULL || flag == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Testany", "%s is NULL",
                              index == NULL ? "index" : "flag");
    }
    if (loom_mpi_all_null(count, requests)) {  /* MPI: no active request = flag true */
        *flag  = 1;
        *index = MPI_UNDEFINED;
        loom_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    comm = loom_mpi_req_comm((size_t)count, requests);
    loom_mpi_complete_begin((size_t)count, requests);
    int serr = loom_mpi_status_error_get(status);
    st = loom_testany((size_t)count, requests, &idx, flag, (loom_msg_status_t *)status);
    loom_mpi_complete_end((size_t)count, requests);
    loom_mpi_status_error_put(status, serr);
    *index = (*flag && idx != (size_t)-1) ? (int)idx : MPI_UNDEFINED;
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Testany");
}

/*
 * Collect every other request of the array that is already complete (after
 * one completed at indices[0] when @p have_first). Returns the first failure.
 */
static loom_status_t loom_mpi_collect_some(int incount, MPI_Request requests[],
                                           int *outcount, int indices[],
                                           MPI_Status statuses[])
{
    loom_status_t first_err = LOOM_OK, st;
    int flag;

    for (int i = 0; i < incount; ++i) {
        MPI_Status *s;

        if (requests[i] == MPI_REQUEST_NULL || loom_request_is_inactive(requests[i])) {
            continue;
        }
        s = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[*outcount];
        flag = 0;
        st = loom_test(&requests[i], &flag, (loom_msg_status_t *)s);
        if (flag) {
            indices[(*outcount)++] = i;
            if (st != LOOM_OK && first_err == LOOM_OK) {
                first_err = st;
            }
        }
    }
    return first_err;
}

static int loom_mpi_some(int incount, MPI_Request requests[], int *outcount,
                         int indices[], MPI_Status statuses[], int wait, const char *call)
{
    MPI_Comm comm;
    loom_status_t st = LOOM_OK, st2;
    size_t idx = (size_t)-1;
    int rc = loom_mpi_array_args(incount, requests, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (outcount == NULL || (incount > 0 && indices == NULL)) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                              outcount == NULL ? "outcount" : "indices");
    }
    if (loom_mpi_all_null(incount, requests)) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    comm = loom_mpi_req_comm((size_t)incount, requests);
    loom_mpi_complete_begin((size_t)incount, requests);
    *outcount = 0;
    if (wait) {
        st = loom_waitany((size_t)incount, requests, &idx,
                          (loom_msg_status_t *)(statuses == MPI_STATUSES_IGNORE
                                                    ? NULL : &statuses[0]));
        if (idx != (size_t)-1) {
            indices[(*outcount)++] = (int)idx;
        }
    }
    st2 = loom_mpi_collect_some(incount, requests, outcount, indices, statuses);
    st = st != LOOM_OK ? st : st2;
    loom_mpi_complete_end((size_t)incount, requests);
    if (statuses != MPI_STATUSES_IGNORE) {
        loom_mpi_status_convert(statuses, (size_t)*outcount);
    }
    if (st != LOOM_OK && loom_mpi_class_of(st) != MPI_SUCCESS) {
        /* Only the completed ones have statuses here: none are pending. */
        return statuses == MPI_STATUSES_IGNORE
                   ? loom_mpi_raise_loom(comm, st, call)
                   : loom_mpi_raise(comm, MPI_ERR_IN_STATUS, call,
                                    "a request failed (%s); see the statuses' MPI_ERROR",
                                    loom_status_name(st));
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    LOOM_MT_GUARD();
    return loom_mpi_some(incount, requests, outcount, indices, statuses, 1,
                         "MPI_Waitsome");
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    LOOM_MT_GUARD();
    return loom_mpi_some(incount, requests, outcount, indices, statuses, 0,
                         "MPI_Testsome");
}

/* ---- free, cancel ------------------------------------------------------------------------- */

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request *request)
{
    LOOM_MT_GUARD();
    loom_mpi_side_t *side;
    MPI_Comm comm;
    loom_status_t st;

    if (request == NULL || *request == MPI_REQUEST_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, "MPI_Request_free",
                              "request is %s", request == NULL ? "NULL" : "MPI_REQUEST_NULL");
    }
    loom_mpi_handle_forget(LOOM_MPI_H_REQUEST, *request);
    if ((*request)->ext == LOOM_REQ_EXT_PERSIST) {
        loom_mpi_dt_persist_forget(*request);
    }
    if ((*request)->ext == LOOM_REQ_EXT_GREQ) {
        return loom_mpi_greq_free(request);
    }
    side = loom_mpi_side_count > 0 ? loom_mpi_side_find(*request) : NULL;
    if (side != NULL) {
        /* Keep the loom request: its arrays go when a later call finds it done. */
        side->orphaned = 1;
        ++loom_mpi_side_orphans;
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    comm = loom_mpi_req_comm(1, request);
    st = loom_request_free(request);
    return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Request_free");
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request *request)
{
    LOOM_MT_GUARD();
    MPI_Comm comm;
    loom_status_t st;

    if (request == NULL || *request == MPI_REQUEST_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_REQUEST, "MPI_Cancel",
                              "request is %s", request == NULL ? "NULL" : "MPI_REQUEST_NULL");
    }
    if ((*request)->ext != LOOM_REQ_EXT_NONE) {
        return loom_mpi_ext_cancel(*request);
    }
    comm = loom_mpi_req_comm(1, request);
    switch ((*request)->kind) {
    case LOOM_REQ_SEND:
        /*
         * An unmatched ssend or rendezvous send is withdrawn if its receiver
         * still holds it; any other send completes normally and
         * MPI_Test_cancelled says false (MPI allows a cancel to fail).
         */
    case LOOM_REQ_RECV:
        st = loom_cancel(request);
        return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Cancel");
    default:
        if (loom_mpi_dt_cancel(*request, &st)) {   /* a receive into a derived type */
            return st == LOOM_OK ? MPI_SUCCESS : loom_mpi_raise_loom(comm, st, "MPI_Cancel");
        }
        return loom_mpi_raise(comm, MPI_ERR_REQUEST, "MPI_Cancel",
                              "collective requests cannot be cancelled (MPI-3.1 5.12)");
    }
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    LOOM_MT_GUARD();
    if (status == MPI_STATUS_IGNORE || flag == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Test_cancelled", "%s is NULL",
                              flag == NULL ? "flag" : "status");
    }
    *flag = status->loom_cancelled_ != 0;
    return MPI_SUCCESS;
}
