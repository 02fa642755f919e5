/*
 * mpi_attr.c: keyvals and attributes on communicators, datatypes and
 * windows (MPI-3.1 6.7), the deprecated MPI-1 forms (MPI_Keyval_create,
 * MPI_Attr_put/get/delete) and the predefined callbacks.
 *
 * Design (see mpi_attr_int.h): one keyval table for every kind, one
 * generic attribute list per object reached through the object's `ext`
 * pointer; the kind-specific MPI calls only find the list and name the
 * call. Callbacks are stored as generic function pointers and cast back to
 * the kind's type when called, so one store serves comm, type and window.
 * The predefined communicator attributes (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE)
 * are not stored: MPI_Comm_get_attr computes them, on every communicator,
 * and set/delete refuse them with MPI_ERR_KEYVAL.
 *
 * Windows (mpi_win.c) keep their attributes here through
 * loom_mpi_win_ext(); the predefined MPI_WIN_BASE ... MPI_WIN_MODEL are
 * computed by mpi_win.c on get.
 */
#include "mpi_attr_int.h"
#include "mpi_win_int.h"
#include "mt_int.h"

#include <stdlib.h>
#include <string.h>

typedef void (*loom_mpi_any_fn_t)(void);

typedef struct loom_mpi_keyval {
    loom_mpi_attr_kind_t kind;
    int                  refs;    /* user handle (until freed) + attributes */
    int                  freed;   /* MPI_*_free_keyval called */
    loom_mpi_any_fn_t    copy_fn;
    loom_mpi_any_fn_t    delete_fn;
    void                *extra;
} loom_mpi_keyval_t;

static loom_mpi_keyval_t *loom_mpi_keyvals;
static size_t             loom_mpi_keyvals_len;
static size_t             loom_mpi_keyvals_cap;

static const char *const loom_mpi_attr_kind_names[] = {
    [LOOM_MPI_ATTR_COMM] = "communicator",
    [LOOM_MPI_ATTR_TYPE] = "datatype",
    [LOOM_MPI_ATTR_WIN]  = "window",
};

/* ---- keyval table -------------------------------------------------------------- */

/* The live keyval @p keyval (any kind), or NULL. */
static loom_mpi_keyval_t *loom_mpi_keyval_get(int keyval)
{
    size_t idx;

    if (keyval < LOOM_MPI_KEYVAL_BASE) {
        return NULL;
    }
    idx = (size_t)(keyval - LOOM_MPI_KEYVAL_BASE);
    if (idx >= loom_mpi_keyvals_len || loom_mpi_keyvals[idx].refs == 0) {
        return NULL;
    }
    return &loom_mpi_keyvals[idx];
}

static void loom_mpi_keyval_release(loom_mpi_keyval_t *kv)
{
    if (--kv->refs == 0) {
        memset(kv, 0, sizeof(*kv));  /* slot stays retired: never reused */
    }
}

static int loom_mpi_keyval_new(loom_mpi_attr_kind_t kind, loom_mpi_any_fn_t copy_fn,
                               loom_mpi_any_fn_t delete_fn, void *extra, int *keyval_p)
{
    loom_mpi_keyval_t *grown;
    size_t cap;

    if (loom_mpi_keyvals_len == loom_mpi_keyvals_cap) {
        cap = loom_mpi_keyvals_cap ? 2 * loom_mpi_keyvals_cap : 16;
        if (cap > (size_t)(INT32_MAX - LOOM_MPI_KEYVAL_BASE)) {
            return MPI_ERR_KEYVAL;
        }
        grown = realloc(loom_mpi_keyvals, cap * sizeof(*grown));
        if (grown == NULL) {
            return MPI_ERR_NO_MEM;
        }
        loom_mpi_keyvals     = grown;
        loom_mpi_keyvals_cap = cap;
    }
    loom_mpi_keyvals[loom_mpi_keyvals_len] = (loom_mpi_keyval_t){
        .kind = kind, .refs = 1, .copy_fn = copy_fn, .delete_fn = delete_fn,
        .extra = extra,
    };
    *keyval_p = LOOM_MPI_KEYVAL_BASE + (int)loom_mpi_keyvals_len++;
    return MPI_SUCCESS;
}

/*
 * The keyval @p keyval of @p kind for @p call, or NULL after raising
 * MPI_ERR_KEYVAL naming what is wrong. @p for_set refuses freed keyvals.
 */
static loom_mpi_keyval_t *loom_mpi_keyval_check(loom_mpi_attr_kind_t kind, int keyval,
                                                int for_set, MPI_Comm ecomm,
                                                const char *call, int *rc_p)
{
    loom_mpi_keyval_t *kv = loom_mpi_keyval_get(keyval);
    const char *why = NULL;

    if (keyval >= 1 && keyval <= LOOM_MPI_KEYVAL_PREDEF_MAX) {
        why = kind == LOOM_MPI_ATTR_COMM ? "is predefined and cannot be set, deleted or freed"
                                         : "is a predefined communicator keyval";
    } else if (kv == NULL) {
        why = "is not a keyval (never created, or freed and no longer in use)";
    } else if (kv->kind != kind) {
        why = kind == LOOM_MPI_ATTR_COMM ? "is not a communicator keyval"
            : kind == LOOM_MPI_ATTR_TYPE ? "is not a datatype keyval"
                                         : "is not a window keyval";
    } else if (for_set && kv->freed) {
        why = "was freed (attributes already set with it stay readable)";
    }
    if (why != NULL) {
        *rc_p = loom_mpi_raise(ecomm, MPI_ERR_KEYVAL, call, "keyval %d %s", keyval, why);
        return NULL;
    }
    *rc_p = MPI_SUCCESS;
    return kv;
}

/* ---- callbacks --------------------------------------------------------------------- */

static int loom_mpi_attr_call_copy(loom_mpi_attr_kind_t kind, loom_mpi_keyval_t *kv,
                                   int keyval, void *obj, void *in, void **out_p,
                                   int *flag_p)
{
    *flag_p = 0;
    if (kv->copy_fn == NULL) {
        return MPI_SUCCESS;
    }
    switch (kind) {
    case LOOM_MPI_ATTR_COMM:
        return ((MPI_Comm_copy_attr_function *)kv->copy_fn)(
            (MPI_Comm)obj, keyval, kv->extra, in, out_p, flag_p);
    case LOOM_MPI_ATTR_TYPE:
        return ((MPI_Type_copy_attr_function *)kv->copy_fn)(
            (MPI_Datatype)obj, keyval, kv->extra, in, out_p, flag_p);
    case LOOM_MPI_ATTR_WIN:
        return ((MPI_Win_copy_attr_function *)kv->copy_fn)(
            (MPI_Win)obj, keyval, kv->extra, in, out_p, flag_p);
    }
    return MPI_ERR_INTERN;
}

static int loom_mpi_attr_call_delete(loom_mpi_attr_kind_t kind, loom_mpi_keyval_t *kv,
                                     int keyval, void *obj, void *value)
{
    if (kv->delete_fn == NULL) {
        return MPI_SUCCESS;
    }
    switch (kind) {
    case LOOM_MPI_ATTR_COMM:
        return ((MPI_Comm_delete_attr_function *)kv->delete_fn)(
            (MPI_Comm)obj, keyval, value, kv->extra);
    case LOOM_MPI_ATTR_TYPE:
        return ((MPI_Type_delete_attr_function *)kv->delete_fn)(
            (MPI_Datatype)obj, keyval, value, kv->extra);
    case LOOM_MPI_ATTR_WIN:
        return ((MPI_Win_delete_attr_function *)kv->delete_fn)(
            (MPI_Win)obj, keyval, value, kv->extra);
    }
    return MPI_ERR_INTERN;
}

/* ---- attribute lists ----------------------------------------------------------------- */

static loom_mpi_objext_t *loom_mpi_objext_get(loom_mpi_objext_t **ext_p)
{
    if (*ext_p == NULL) {
        *ext_p = calloc(1, sizeof(**ext_p));
    }
    return *ext_p;
}

void loom_mpi_objext_free(loom_mpi_objext_t **ext_p)
{
    loom_mpi_objext_t *ext = *ext_p;
    loom_mpi_attr_t *a, *next;

    if (ext == NULL) {
        return;
    }
    for (a = ext->attrs; a != NULL; a = next) {
        loom_mpi_keyval_t *kv = loom_mpi_keyval_get(a->keyval);

        next = a->next;
        if (kv != NULL) {
            loom_mpi_keyval_release(kv);
        }
        free(a);
    }
    loom_mpi_info_release(ext->hints);
    free(ext);
    *ext_p = NULL;
}

/* The link pointing at @p keyval's attribute in @p ext, or NULL. */
static loom_mpi_attr_t **loom_mpi_attr_find(loom_mpi_objext_t *ext, int keyval)
{
    if (ext == NULL) {
        return NULL;
    }
    for (loom_mpi_attr_t **pp = &ext->attrs; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->keyval == keyval) {
            return pp;
        }
    }
    return NULL;
}

/*
 * Delete the attribute at *pp of @p ext (callback first); on a callback
 * error keep it. The attribute leaves the list BEFORE its callback runs: the
 * callback may delete (or set) other attributes of the same object, which
 * frees or relinks the node *pp lives in, so neither pp nor the keyval
 * table slot (a callback may create keyvals and grow the table) is used
 * after the call.
 */
static int loom_mpi_attr_unlink(loom_mpi_attr_kind_t kind, void *obj,
                                loom_mpi_objext_t *ext, loom_mpi_attr_t **pp)
{
    loom_mpi_attr_t *a = *pp;
    loom_mpi_keyval_t *kv = loom_mpi_keyval_get(a->keyval);
    int rc;

    if (kv == NULL) {
        return MPI_ERR_INTERN;  /* an attribute holds a reference */
    }
    *pp = a->next;
    rc = loom_mpi_attr_call_delete(kind, kv, a->keyval, obj, a->value);
    if (rc != MPI_SUCCESS) {  /* kept: back at the head (its place may be gone) */
        a->next    = ext->attrs;
        ext->attrs = a;
        return rc;
    }
    kv = loom_mpi_keyval_get(a->keyval);
    if (kv != NULL) {
        loom_mpi_keyval_release(kv);
    }
    free(a);
    return MPI_SUCCESS;
}

int loom_mpi_attr_delete_all(loom_mpi_attr_kind_t kind, void *obj, loom_mpi_objext_t *ext)
{
    int rc;

    if (ext == NULL) {
        return MPI_SUCCESS;
    }
    while (ext->attrs != NULL) {
        rc = loom_mpi_attr_unlink(kind, obj, ext, &ext->attrs);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Copy one attribute @p a onto the tail *@p tail_p if its callback says so. */
static int loom_mpi_attr_copy_one(loom_mpi_attr_kind_t kind, void *oldobj,
                                  const loom_mpi_attr_t *a, loom_mpi_attr_t ***tail_p)
{
    loom_mpi_keyval_t *kv = loom_mpi_keyval_get(a->keyval);
    loom_mpi_attr_t *copy;
    void *out = NULL;
    int flag = 0, rc;

    if (kv == NULL) {
        return MPI_ERR_INTERN;
    }
    rc = loom_mpi_attr_call_copy(kind, kv, a->keyval, oldobj, a->value, &out, &flag);
    if (rc != MPI_SUCCESS || !flag) {
        return rc;
    }
    copy = malloc(sizeof(*copy));
    if (copy == NULL) {
        return MPI_ERR_NO_MEM;
    }
    copy->keyval = a->keyval;
    copy->value  = out;
    copy->next   = NULL;
    ++kv->refs;
    **tail_p = copy;
    *tail_p  = &copy->next;
    return MPI_SUCCESS;
}

int loom_mpi_attr_copy_all(loom_mpi_attr_kind_t kind, void *oldobj,
                           loom_mpi_objext_t *old, void *newobj,
                           loom_mpi_objext_t **new_p)
{
    loom_mpi_objext_t *ext;
    loom_mpi_attr_t **tail;
    int rc = MPI_SUCCESS;

    if (old == NULL || (old->attrs == NULL && old->hints == MPI_INFO_NULL)) {
        return MPI_SUCCESS;
    }
    ext = loom_mpi_objext_get(new_p);
    if (ext == NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (old->hints != MPI_INFO_NULL && ext->hints == MPI_INFO_NULL) {
        rc = loom_mpi_info_copy(old->hints, &ext->hints);
    }
    tail = &ext->attrs;
    while (*tail != NULL) {
        tail = &(*tail)->next;
    }
    for (const loom_mpi_attr_t *a = old->attrs; a != NULL && rc == MPI_SUCCESS; a = a->next) {
        rc = loom_mpi_attr_copy_one(kind, oldobj, a, &tail);
    }
    if (rc != MPI_SUCCESS) {
        (void)loom_mpi_attr_delete_all(kind, newobj, ext);  /* undo the copies */
        loom_mpi_objext_free(new_p);
    }
    return rc;
}

/* ---- generic set / get / delete ---------------------------------------------------- */

static int loom_mpi_attr_set(loom_mpi_attr_kind_t kind, void *obj,
                             loom_mpi_objext_t **ext_p, int keyval, void *value,
                             MPI_Comm ecomm, const char *call)
{
    loom_mpi_keyval_t *kv;
    loom_mpi_objext_t *ext;
    loom_mpi_attr_t **pp, *a;
    int rc;

    kv = loom_mpi_keyval_check(kind, keyval, 1, ecomm, call, &rc);
    if (kv == NULL) {
        return rc;
    }
    ext = loom_mpi_objext_get(ext_p);
    if (ext == NULL) {
        return loom_mpi_raise(ecomm, MPI_ERR_NO_MEM, call, "out of memory for attributes");
    }
    pp = loom_mpi_attr_find(ext, keyval);
    if (pp != NULL) {  /* MPI: the old value's delete callback runs first */
        rc = loom_mpi_attr_unlink(kind, obj, ext, pp);
        if (rc != MPI_SUCCESS) {
            return loom_mpi_raise(ecomm, rc, call, "the delete callback of keyval %d "
                                  "returned error %d for the value being replaced",
                                  keyval, rc);
        }
    }
    a = malloc(sizeof(*a));
    if (a == NULL) {
        return loom_mpi_raise(ecomm, MPI_ERR_NO_MEM, call, "out of memory for an attribute");
    }
    a->keyval  = keyval;
    a->value   = value;
    a->next    = ext->attrs;
    ext->attrs = a;
    ++kv->refs;
    return MPI_SUCCESS;
}

static int loom_mpi_attr_get(loom_mpi_attr_kind_t kind, loom_mpi_objext_t *ext,
                             int keyval, void *value, int *flag, MPI_Comm ecomm,
                             const char *call)
{
    loom_mpi_attr_t **pp;
    int rc;

    if (value == NULL || flag == NULL) {
        return loom_mpi_raise(ecomm, MPI_ERR_ARG, call, "%s is NULL",
                              value == NULL ? "attribute_val" : "flag");
    }
    if (loom_mpi_keyval_check(kind, keyval, 0, ecomm, call, &rc) == NULL) {
        return rc;
    }
    pp = loom_mpi_attr_find(ext, keyval);
    *flag = pp != NULL;
    if (pp != NULL) {
        *(void **)value = (*pp)->value;
    }
    return MPI_SUCCESS;
}

static int loom_mpi_attr_delete(loom_mpi_attr_kind_t kind, void *obj,
                                loom_mpi_objext_t *ext, int keyval, MPI_Comm ecomm,
                                const char *call)
{
    loom_mpi_attr_t **pp;
    int rc;

    if (loom_mpi_keyval_check(kind, keyval, 0, ecomm, call, &rc) == NULL) {
        return rc;
    }
    pp = loom_mpi_attr_find(ext, keyval);
    if (pp == NULL) {
        return MPI_SUCCESS;  /* nothing attached: nothing to delete */
    }
    rc = loom_mpi_attr_unlink(kind, obj, ext, pp);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(ecomm, rc, call, "the delete callback of keyval %d "
                              "returned error %d", keyval, rc);
    }
    return MPI_SUCCESS;
}

static int loom_mpi_keyval_create(loom_mpi_attr_kind_t kind, loom_mpi_any_fn_t copy_fn,
                                  loom_mpi_any_fn_t delete_fn, int *keyval, void *extra,
                                  const char *call)
{
    int rc;

    if (keyval == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "keyval is NULL");
    }
    rc = loom_mpi_keyval_new(kind, copy_fn, delete_fn, extra, keyval);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(NULL, rc, call, "cannot create a %s keyval (%zu exist)",
                              loom_mpi_attr_kind_names[kind], loom_mpi_keyvals_len);
    }
    return MPI_SUCCESS;
}

static int loom_mpi_keyval_free(loom_mpi_attr_kind_t kind, int *keyval, const char *call)
{
    loom_mpi_keyval_t *kv;
    int rc;

    if (keyval == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "keyval is NULL");
    }
    kv = loom_mpi_keyval_check(kind, *keyval, 1, NULL, call, &rc);
    if (kv == NULL) {
        return rc;
    }
    kv->freed = 1;
    loom_mpi_keyval_release(kv);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* ---- lifecycle ------------------------------------------------------------------------ */

int loom_mpi_attr_finalize_self(void)
{
    int rc = loom_mpi_attr_delete_all(LOOM_MPI_ATTR_COMM, MPI_COMM_SELF,
                                      loom_mpi_comm_self.ext);

    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(NULL, rc, "MPI_Finalize", "a delete callback of an "
                              "MPI_COMM_SELF attribute returned error %d", rc);
    }
    return MPI_SUCCESS;
}

void loom_mpi_attr_cleanup(void)
{
    MPI_Datatype dt;

    loom_mpi_objext_free(&loom_mpi_comm_self.ext);
    loom_mpi_objext_free(&loom_mpi_comm_world.ext);
    for (size_t i = 0; (dt = loom_mpi_type_predefined(i)) != MPI_DATATYPE_NULL; ++i) {
        loom_mpi_objext_free(&dt->ext);
    }
    free(loom_mpi_keyvals);
    loom_mpi_keyvals     = NULL;
    loom_mpi_keyvals_len = loom_mpi_keyvals_cap = 0;
}

/* ---- predefined callbacks ------------------------------------------------------------- */

#define LOOM_MPI_NULL_COPY_FN_(name, H)                                                   \
    int name(H oldobj, int keyval, void *extra_state, void *in, void *out, int *flag)     \
    {                                                                                     \
        (void)oldobj; (void)keyval; (void)extra_state; (void)in; (void)out;               \
        *flag = 0;                                                                        \
        return MPI_SUCCESS;                                                               \
    }
#define LOOM_MPI_DUP_FN_(name, H)                                                         \
    int name(H oldobj, int keyval, void *extra_state, void *in, void *out, int *flag)     \
    {                                                                                     \
        (void)oldobj; (void)keyval; (void)extra_state;                                    \
        *(void **)out = in;                                                               \
        *flag = 1;                                                                        \
        return MPI_SUCCESS;                                                               \
    }
#define LOOM_MPI_NULL_DELETE_FN_(name, H)                                                 \
    int name(H obj, int keyval, void *value, void *extra_state)                           \
    {                                                                                     \
        (void)obj; (void)keyval; (void)value; (void)extra_state;                          \
        return MPI_SUCCESS;                                                               \
    }

LOOM_MPI_NULL_COPY_FN_(loom_mpi_comm_null_copy_fn, MPI_Comm)
LOOM_MPI_DUP_FN_(loom_mpi_comm_dup_fn, MPI_Comm)
LOOM_MPI_NULL_DELETE_FN_(loom_mpi_comm_null_delete_fn, MPI_Comm)
LOOM_MPI_NULL_COPY_FN_(loom_mpi_type_null_copy_fn, MPI_Datatype)
LOOM_MPI_DUP_FN_(loom_mpi_type_dup_fn, MPI_Datatype)
LOOM_MPI_NULL_DELETE_FN_(loom_mpi_type_null_delete_fn, MPI_Datatype)
LOOM_MPI_NULL_COPY_FN_(loom_mpi_win_null_copy_fn, MPI_Win)
LOOM_MPI_DUP_FN_(loom_mpi_win_dup_fn, MPI_Win)
LOOM_MPI_NULL_DELETE_FN_(loom_mpi_win_null_delete_fn, MPI_Win)

/* ---- communicators ------------------------------------------------------------------- */

/* Values of the predefined attributes (MPI returns pointers to them). */
static int loom_mpi_attr_tag_ub = LOOM_TAG_UB;
static int loom_mpi_attr_host = MPI_PROC_NULL;
static int loom_mpi_attr_io = MPI_ANY_SOURCE;  /* every rank can do I/O */
static int loom_mpi_attr_wtime_is_global = 0;
static int loom_mpi_attr_universe_size;
static int loom_mpi_attr_lastusedcode;

/* Predefined keyval @p keyval: a pointer to its value, or NULL (not set). */
static int *loom_mpi_attr_predefined(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB:          return &loom_mpi_attr_tag_ub;
    case MPI_HOST:            return &loom_mpi_attr_host;
    case MPI_IO:              return &loom_mpi_attr_io;
    case MPI_WTIME_IS_GLOBAL: return &loom_mpi_attr_wtime_is_global;
    case MPI_UNIVERSE_SIZE:
        loom_mpi_attr_universe_size = loom_size();
        return &loom_mpi_attr_universe_size;
    case MPI_LASTUSEDCODE:
        loom_mpi_attr_lastusedcode = loom_mpi_errcode_last();
        return &loom_mpi_attr_lastusedcode;
    default:                  /* MPI_APPNUM: no MPMD launch, not set */
        return NULL;
    }
}

static int loom_mpi_comm_get_attr_as(MPI_Comm comm, int keyval, void *value, int *flag,
                                     const char *call)
{
    loom_comm_t lcomm;
    int *val;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (keyval < 1 || keyval > LOOM_MPI_KEYVAL_PREDEF_MAX) {
        return loom_mpi_attr_get(LOOM_MPI_ATTR_COMM, comm->ext, keyval, value, flag, comm,
                                 call);
    }
    if (value == NULL || flag == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL",
                              value == NULL ? "attribute_val" : "flag");
    }
    val = loom_mpi_attr_predefined(keyval);
    *flag = val != NULL;
    if (val != NULL) {
        *(int **)value = val;
    }
    return MPI_SUCCESS;
}

static int loom_mpi_comm_set_attr_as(MPI_Comm comm, int keyval, void *value,
                                     const char *call)
{
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return loom_mpi_attr_set(LOOM_MPI_ATTR_COMM, comm, &comm->ext, keyval, value, comm,
                             call);
}

static int loom_mpi_comm_delete_attr_as(MPI_Comm comm, int keyval, const char *call)
{
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, call, &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return loom_mpi_attr_delete(LOOM_MPI_ATTR_COMM, comm, comm->ext, keyval, comm, call);
}

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state)
{
    LOOM_MT_GUARD();
    return loom_mpi_keyval_create(LOOM_MPI_ATTR_COMM, (loom_mpi_any_fn_t)comm_copy_attr_fn,
                                  (loom_mpi_any_fn_t)comm_delete_attr_fn, comm_keyval,
                                  extra_state, "MPI_Comm_create_keyval");
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    LOOM_MT_GUARD();
    return loom_mpi_keyval_free(LOOM_MPI_ATTR_COMM, comm_keyval, "MPI_Comm_free_keyval");
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    LOOM_MT_GUARD();
    return loom_mpi_comm_set_attr_as(comm, comm_keyval, attribute_val, "MPI_Comm_set_attr");
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    LOOM_MT_GUARD();
    return loom_mpi_comm_get_attr_as(comm, comm_keyval, attribute_val, flag,
                                     "MPI_Comm_get_attr");
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    LOOM_MT_GUARD();
    return loom_mpi_comm_delete_attr_as(comm, comm_keyval, "MPI_Comm_delete_attr");
}

/* ---- deprecated MPI-1 forms: communicator keyvals under other names ------------------ */

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                       int *keyval, void *extra_state)
{
    LOOM_MT_GUARD();
    return loom_mpi_keyval_create(LOOM_MPI_ATTR_COMM, (loom_mpi_any_fn_t)copy_fn,
                                  (loom_mpi_any_fn_t)delete_fn, keyval, extra_state,
                                  "MPI_Keyval_create");
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    LOOM_MT_GUARD();
    return loom_mpi_keyval_free(LOOM_MPI_ATTR_COMM, keyval, "MPI_Keyval_free");
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    LOOM_MT_GUARD();
    return loom_mpi_comm_set_attr_as(comm, keyval, attribute_val, "MPI_Attr_put");
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    LOOM_MT_GUARD();
    return loom_mpi_comm_get_attr_as(comm, keyval, attribute_val, flag, "MPI_Attr_get");
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    LOOM_MT_GUARD();
    return loom_mpi_comm_delete_attr_as(comm, keyval, "MPI_Attr_delete");
}

/* ---- datatypes -------------------------------------------------------------------------- */

static int loom_mpi_attr_type_bad(MPI_Datatype dt, const char *call)
{
    return loom_mpi_raise(NULL, MPI_ERR_TYPE, call, "%p is not a datatype%s", (void *)dt,
                          dt == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
}

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn,
                            int *type_keyval, void *extra_state)
{
    LOOM_MT_GUARD();
    return loom_mpi_keyval_create(LOOM_MPI_ATTR_TYPE, (loom_mpi_any_fn_t)type_copy_attr_fn,
                                  (loom_mpi_any_fn_t)type_delete_attr_fn, type_keyval,
                                  extra_state, "MPI_Type_create_keyval");
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *type_keyval)
{
    LOOM_MT_GUARD();
    return loom_mpi_keyval_free(LOOM_MPI_ATTR_TYPE, type_keyval, "MPI_Type_free_keyval");
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_attr_type_bad(datatype, "MPI_Type_set_attr");
    }
    return loom_mpi_attr_set(LOOM_MPI_ATTR_TYPE, datatype, &datatype->ext, type_keyval,
                             attribute_val, NULL, "MPI_Type_set_attr");
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                       int *flag)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_attr_type_bad(datatype, "MPI_Type_get_attr");
    }
    return loom_mpi_attr_get(LOOM_MPI_ATTR_TYPE, datatype->ext, type_keyval,
                             attribute_val, flag, NULL, "MPI_Type_get_attr");
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    LOOM_MT_GUARD();
    if (!loom_mpi_type_is_valid(datatype)) {
        return loom_mpi_attr_type_bad(datatype, "MPI_Type_delete_attr");
    }
    return loom_mpi_attr_delete(LOOM_MPI_ATTR_TYPE, datatype, datatype->ext, type_keyval,
                                NULL, "MPI_Type_delete_attr");
}

/* ---- windows: the store above; the object is mpi_win.c's ------------------------------ */

static int loom_mpi_attr_win_bad(MPI_Win win, const char *call)
{
    return loom_mpi_win_bad(win, call);
}

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn,
                           int *win_keyval, void *extra_state)
{
    LOOM_MT_GUARD();
    return loom_mpi_keyval_create(LOOM_MPI_ATTR_WIN, (loom_mpi_any_fn_t)win_copy_attr_fn,
                                  (loom_mpi_any_fn_t)win_delete_attr_fn, win_keyval,
                                  extra_state, "MPI_Win_create_keyval");
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int *win_keyval)
{
    LOOM_MT_GUARD();
    return loom_mpi_keyval_free(LOOM_MPI_ATTR_WIN, win_keyval, "MPI_Win_free_keyval");
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    LOOM_MT_GUARD();
    loom_mpi_objext_t **ext_p = loom_mpi_win_ext(win);

    if (ext_p == NULL) {
        return loom_mpi_attr_win_bad(win, "MPI_Win_set_attr");
    }
    return loom_mpi_attr_set(LOOM_MPI_ATTR_WIN, win, ext_p, win_keyval, attribute_val,
                             NULL, "MPI_Win_set_attr");
}

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    LOOM_MT_GUARD();
    loom_mpi_objext_t **ext_p = loom_mpi_win_ext(win);

    if (ext_p == NULL) {
        return loom_mpi_attr_win_bad(win, "MPI_Win_get_attr");
    }
    if (attribute_val != NULL && flag != NULL &&
        loom_mpi_win_predef_attr(win, win_keyval, attribute_val)) {
        *flag = 1;   /* MPI_WIN_BASE ... MPI_WIN_MODEL: computed, never stored */
        return MPI_SUCCESS;
    }
    return loom_mpi_attr_get(LOOM_MPI_ATTR_WIN, *ext_p, win_keyval, attribute_val, flag,
                             NULL, "MPI_Win_get_attr");
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    LOOM_MT_GUARD();
    loom_mpi_objext_t **ext_p = loom_mpi_win_ext(win);

    if (ext_p == NULL) {
        return loom_mpi_attr_win_bad(win, "MPI_Win_delete_attr");
    }
    return loom_mpi_attr_delete(LOOM_MPI_ATTR_WIN, win, *ext_p, win_keyval, NULL,
                                "MPI_Win_delete_attr");
}
