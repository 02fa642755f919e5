/*
 * mpi_win.c: MPI window objects: creation (Win_create, Win_allocate,
 * Win_allocate_shared, Win_create_dynamic), Win_free, attach/detach,
 * Win_shared_query, group, name, info, error handlers, and the errors of
 * every window call.
 *
 * Each call validates what MPI knows (handles, sizes, disp units), calls
 * the one-sided layer (rma/rma_int.h) once and raises a failure through
 * the window's error handler (MPI_ERRORS_ARE_FATAL by default, as for
 * communicators; a new window takes its communicator's handler, as Open
 * MPI and MPICH do). The rma layer's own statuses map to MPI_ERR_RMA_SYNC,
 * _RANGE, _FLAVOR, _SHARED, _ATTACH, MPI_ERR_LOCKTYPE and MPI_ERR_DISP.
 * Info keys (no_locks, accumulate_ordering, same_size, ...) are all
 * accepted and kept for Win_get_info; no_locks is passed on as a hint.
 */
#include "mpi_win_int.h"
#include "mpi_f2c_int.h"
#include "mpi_group_int.h"
#include "mpi_info_int.h"
#include "mt_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

int loom_mpi_win_class_of(loom_status_t st)
{
    switch ((int)st) {
    case (int)LOOM_RMA_ERR_SYNC:     return MPI_ERR_RMA_SYNC;
    case (int)LOOM_RMA_ERR_RANGE:    return MPI_ERR_RMA_RANGE;
    case (int)LOOM_RMA_ERR_FLAVOR:   return MPI_ERR_RMA_FLAVOR;
    case (int)LOOM_RMA_ERR_SHARED:   return MPI_ERR_RMA_SHARED;
    case (int)LOOM_RMA_ERR_ATTACH:   return MPI_ERR_RMA_ATTACH;
    case (int)LOOM_RMA_ERR_LOCKTYPE: return MPI_ERR_LOCKTYPE;
    case (int)LOOM_RMA_ERR_DISP:     return MPI_ERR_DISP;
    default:                         return loom_mpi_class_of(st);
    }
}

static void loom_mpi_win_fatal(MPI_Win win, int errclass, const char *call,
                               const char *detail) __attribute__((noreturn));

static void loom_mpi_win_fatal(MPI_Win win, int errclass, const char *call,
                               const char *detail)
{
    char msg[768];

    snprintf(msg, sizeof(msg), "%s on window %s%s: %s%s%s; the error handler is "
             "MPI_ERRORS_ARE_FATAL, aborting the job", call, win->name,
             win->name[0] ? "" : "(unnamed)", loom_mpi_class_name(errclass) ?
             loom_mpi_class_name(errclass) : "error", detail[0] ? ": " : "", detail);
    loom_abort(errclass, msg);
}

int loom_mpi_win_raise(MPI_Win win, int errclass, const char *call, const char *fmt, ...)
{
    char detail[512] = "";
    va_list ap;
    int code = errclass;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (errclass == MPI_SUCCESS) {
        return MPI_SUCCESS;
    }
    if (win == MPI_WIN_NULL || win->magic != LOOM_MPI_WIN_MAGIC) {
        return loom_mpi_raise(NULL, errclass, call, "%s", detail);
    }
    switch (win->errh->kind) {
    case LOOM_MPI_ERRH_FATAL:
        loom_mpi_win_fatal(win, errclass, call, detail);
    case LOOM_MPI_ERRH_USER: {
        /* the handler may call MPI or longjmp out: not under the engine lock */
        unsigned depth = loom_mt_callout_begin();

        ((MPI_Win_errhandler_function *)(void *)win->errh->fn)(&win, &code);
        loom_mt_callout_end(depth);
        break;
    }
    case LOOM_MPI_ERRH_RETURN:
        break;
    }
    return code;
}

int loom_mpi_win_raise_loom(MPI_Win win, loom_status_t st, const char *call)
{
    if (st == LOOM_OK) {
        return MPI_SUCCESS;
    }
    return loom_mpi_win_raise(win, loom_mpi_win_class_of(st), call, "%s",
                              loom_rma_strerror(st));
}

int loom_mpi_win_bad(MPI_Win win, const char *call)
{
    if (loom_mpi_state != LOOM_MPI_STATE_INITIALIZED) {
        return loom_mpi_raise(NULL, MPI_ERR_OTHER, call, "MPI is not initialized");
    }
    return loom_mpi_raise(NULL, MPI_ERR_WIN, call, "%p is not a window", (void *)win);
}

/* ---- creation ---- */

static void loom_mpi_errh_drop(MPI_Errhandler errh)
{
    if (--errh->refs == 0 && errh->kind == LOOM_MPI_ERRH_USER) {
        errh->magic = LOOM_MPI_DEAD_MAGIC;
        free(errh);
    }
}

static void loom_mpi_win_hints(MPI_Info info, loom_rma_hints_t *h)
{
    char val[32];
    int flag = 0;

    memset(h, 0, sizeof(*h));
    if (info != MPI_INFO_NULL &&
        PMPI_Info_get(info, "no_locks", (int)sizeof(val) - 1, val, &flag) == MPI_SUCCESS &&
        flag) {
        h->no_locks = strcmp(val, "true") == 0;
    }
}

static int loom_mpi_win_new(void *base, MPI_Aint size, int disp_unit, loom_rma_flavor_t fl,
                            MPI_Info info, MPI_Comm comm, MPI_Win *win, const char *call)
{
    loom_rma_hints_t hints;
    loom_comm_t lcomm;
    MPI_Win w;
    loom_status_t st;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (win == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "win is NULL");
    }
    if (size < 0) {
        return loom_mpi_raise(comm, MPI_ERR_SIZE, call, "size %lld is negative",
                              (long long)size);
    }
    if (disp_unit <= 0) {
        return loom_mpi_raise(comm, MPI_ERR_DISP, call, "disp_unit %d is not positive",
                              disp_unit);
    }
    if (loom_comm_is_inter(lcomm)) {
        return loom_mpi_raise(comm, MPI_ERR_COMM, call, "windows need an intracommunicator");
    }
    if ((w = calloc(1, sizeof(*w))) == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory for a window");
    }
    loom_mpi_win_hints(info, &hints);
    st = loom_rma_win_create(base, (size_t)size, disp_unit, fl, &hints, lcomm, &w->rwin);
    if (st != LOOM_OK) {
        free(w);
        return loom_mpi_raise(comm, loom_mpi_win_class_of(st), call, "rank %d: %s",
                              loom_comm_rank(lcomm), loom_rma_strerror(st));
    }
    w->magic = LOOM_MPI_WIN_MAGIC;
    w->errh = comm->errh;
    ++w->errh->refs;
    PMPI_Comm_group(comm, &w->group);
    w->attr_base      = loom_rma_win_base(w->rwin);
    w->attr_size      = (MPI_Aint)loom_rma_win_size(w->rwin);
    w->attr_disp_unit = disp_unit;
    w->attr_flavor    = (int)fl;   /* loom_rma_flavor_t = MPI_WIN_FLAVOR_* */
    w->attr_model     = MPI_WIN_UNIFIED;
    loom_rma_win_fast(w->rwin, &w->fast);
    if (info != MPI_INFO_NULL && loom_mpi_win_ext(w) != NULL) {
        PMPI_Win_set_info(w, info);
    }
    *win = w;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    LOOM_MT_GUARD();
    return loom_mpi_win_new(base, size, disp_unit, LOOM_RMA_FLAVOR_CREATE, info, comm, win,
                            "MPI_Win_create");
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      void *baseptr, MPI_Win *win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_new(NULL, size, disp_unit, LOOM_RMA_FLAVOR_ALLOCATE, info, comm,
                              win, "MPI_Win_allocate");

    if (rc == MPI_SUCCESS && baseptr != NULL) {
        *(void **)baseptr = loom_rma_win_base((*win)->rwin);
    }
    return rc;
}

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_win_new(NULL, size, disp_unit, LOOM_RMA_FLAVOR_SHARED, info, comm,
                              win, "MPI_Win_allocate_shared");

    if (rc == MPI_SUCCESS && baseptr != NULL) {
        *(void **)baseptr = loom_rma_win_base((*win)->rwin);
    }
    return rc;
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    LOOM_MT_GUARD();
    return loom_mpi_win_new(NULL, 0, 1, LOOM_RMA_FLAVOR_DYNAMIC, info, comm, win,
                            "MPI_Win_create_dynamic");
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    LOOM_MT_GUARD();
    MPI_Win w;
    loom_status_t st;
    int rc;

    if (win == NULL || !loom_mpi_win_valid(*win)) {
        return loom_mpi_win_bad(win ? *win : MPI_WIN_NULL, "MPI_Win_free");
    }
    w = *win;
    st = loom_rma_win_idle(w->rwin);   /* before anything is undone (attributes) */
    if (st != LOOM_OK) {
        return loom_mpi_win_raise_loom(w, st, "MPI_Win_free");
    }
    if (w->ext != NULL) {
        rc = loom_mpi_attr_delete_all(LOOM_MPI_ATTR_WIN, w, w->ext);
        if (rc != MPI_SUCCESS) {
            return loom_mpi_win_raise(w, rc, "MPI_Win_free", "an attribute delete callback "
                                      "failed");
        }
    }
    st = loom_rma_win_free(w->rwin);
    if (st == LOOM_RMA_ERR_SYNC) {
        return loom_mpi_win_raise_loom(w, st, "MPI_Win_free");
    }
    loom_mpi_handle_forget(LOOM_MPI_H_WIN, w);   /* MPI_Win_f2c of it: MPI_WIN_NULL */
    loom_mpi_objext_free(&w->ext);
    PMPI_Group_free(&w->group);
    loom_mpi_errh_drop(w->errh);
    w->magic = LOOM_MPI_DEAD_MAGIC;
    free(w);
    *win = MPI_WIN_NULL;
    /* the window is gone: raised on MPI_COMM_WORLD's handler, with the RMA class */
    return st == LOOM_OK ? MPI_SUCCESS
                         : loom_mpi_raise(NULL, loom_mpi_win_class_of(st), "MPI_Win_free",
                                          "a pending operation failed: %s",
                                          loom_rma_strerror(st));
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_attach");
    }
    if (size < 0) {
        return loom_mpi_win_raise(win, MPI_ERR_SIZE, "MPI_Win_attach", "size %lld",
                                  (long long)size);
    }
    return loom_mpi_win_raise_loom(win, loom_rma_win_attach(win->rwin, base, (size_t)size),
                                   "MPI_Win_attach");
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_detach");
    }
    return loom_mpi_win_raise_loom(win, loom_rma_win_detach(win->rwin, base),
                                   "MPI_Win_detach");
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                          void *baseptr)
{
    LOOM_MT_GUARD();
    size_t sz;
    int du;
    void *b;
    loom_status_t st;

    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_shared_query");
    }
    if (size == NULL || disp_unit == NULL || baseptr == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Win_shared_query",
                                  "an output argument is NULL");
    }
    st = loom_rma_win_shared_query(win->rwin, rank, &sz, &du, &b);
    if (st != LOOM_OK) {
        return loom_mpi_win_raise_loom(win, st, "MPI_Win_shared_query");
    }
    *size = (MPI_Aint)sz;
    *disp_unit = du;
    *(void **)baseptr = b;
    return MPI_SUCCESS;
}

/* ---- group, name, info ---- */

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_get_group");
    }
    if (group == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Win_get_group", "group is NULL");
    }
    return PMPI_Group_excl(win->group, 0, NULL, group);   /* a new handle, same members */
}

int loom_mpi_win_group_ranks(MPI_Win win, MPI_Group group, const char *call,
                             int **ranks_p, int *n_p)
{
    loom_comm_t lcomm = loom_rma_win_comm(win->rwin);
    int size = loom_comm_size(lcomm), *ranks;

    if (!loom_mpi_group_valid(group)) {
        return loom_mpi_win_raise(win, MPI_ERR_GROUP, call, "invalid group %p", (void *)group);
    }
    if ((ranks = malloc(((size_t)group->size + 1) * sizeof(int))) == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0; i < group->size; ++i) {
        int r = 0;

        while (r < size && loom_comm_world_rank(lcomm, r) != group->world[i]) {
            ++r;
        }
        if (r == size) {
            free(ranks);
            return loom_mpi_win_raise(win, MPI_ERR_GROUP, call, "member %d of the group "
                                      "(world rank %d) is not in the window", i,
                                      group->world[i]);
        }
        ranks[i] = r;
    }
    *ranks_p = ranks;
    *n_p = group->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_set_name");
    }
    if (win_name == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Win_set_name", "win_name is NULL");
    }
    snprintf(win->name, sizeof(win->name), "%s", win_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_get_name");
    }
    if (win_name == NULL || resultlen == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Win_get_name", "%s is NULL",
                                  win_name == NULL ? "win_name" : "resultlen");
    }
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", win->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    LOOM_MT_GUARD();
    loom_mpi_objext_t **ext_p;
    MPI_Info copy;
    int rc;

    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_set_info");
    }
    if (info != MPI_INFO_NULL && !loom_mpi_info_is_valid(info)) {
        return loom_mpi_win_raise(win, MPI_ERR_INFO, "MPI_Win_set_info", "invalid info");
    }
    ext_p = loom_mpi_win_ext(win);
    if (*ext_p == NULL && (*ext_p = calloc(1, sizeof(**ext_p))) == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_NO_MEM, "MPI_Win_set_info", "out of memory");
    }
    if ((rc = loom_mpi_info_copy(info, &copy)) != MPI_SUCCESS) {
        return loom_mpi_win_raise(win, rc, "MPI_Win_set_info", "copying the info");
    }
    loom_mpi_info_release((*ext_p)->hints);
    (*ext_p)->hints = copy;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    LOOM_MT_GUARD();
    int rc;

    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_get_info");
    }
    if (info_used == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Win_get_info", "info_used is NULL");
    }
    rc = loom_mpi_info_copy(win->ext ? win->ext->hints : MPI_INFO_NULL, info_used);
    return rc == MPI_SUCCESS ? rc : loom_mpi_win_raise(win, rc, "MPI_Win_get_info", "copy");
}

/* ---- error handlers ---- */

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_set_errhandler");
    }
    if (errhandler == MPI_ERRHANDLER_NULL || errhandler->magic != LOOM_MPI_ERRH_MAGIC ||
        (errhandler->kind == LOOM_MPI_ERRH_USER &&
         errhandler->domain != LOOM_MPI_ERRH_ON_WIN)) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Win_set_errhandler",
                                  "error handler %p is not one for windows",
                                  (void *)errhandler);
    }
    ++errhandler->refs;
    loom_mpi_errh_drop(win->errh);
    win->errh = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_get_errhandler");
    }
    if (errhandler == NULL) {
        return loom_mpi_win_raise(win, MPI_ERR_ARG, "MPI_Win_get_errhandler",
                                  "errhandler is NULL");
    }
    ++win->errh->refs;
    *errhandler = win->errh;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_win_valid(win)) {
        return loom_mpi_win_bad(win, "MPI_Win_call_errhandler");
    }
    loom_mpi_win_raise(win, errorcode, "MPI_Win_call_errhandler",
                       "raised by the application");
    return MPI_SUCCESS;
}

/* ---- attributes (the store is mpi_attr.c's) ---- */

loom_mpi_objext_t **loom_mpi_win_ext(MPI_Win win)
{
    return loom_mpi_win_valid(win) ? &win->ext : NULL;
}

int loom_mpi_win_predef_attr(MPI_Win win, int keyval, void *value_p)
{
    switch (keyval) {
    case MPI_WIN_BASE:          *(void **)value_p = win->attr_base;       return 1;
    case MPI_WIN_SIZE:          *(void **)value_p = &win->attr_size;      return 1;
    case MPI_WIN_DISP_UNIT:     *(void **)value_p = &win->attr_disp_unit; return 1;
    case MPI_WIN_CREATE_FLAVOR: *(void **)value_p = &win->attr_flavor;    return 1;
    case MPI_WIN_MODEL:         *(void **)value_p = &win->attr_model;     return 1;
    default:                    return 0;
    }
}
