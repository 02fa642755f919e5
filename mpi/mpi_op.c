/*
 * mpi_op.c: MPI reduction operations.
 *
 * Predefined MPI ops are loom's predefined ops. A user op (MPI_Op_create)
 * needs the MPI datatype the reduction was called with, which loom's user
 * function does not receive (it gets the loom basic type and a count of
 * basic elements). So a user op is bound lazily, once per datatype it is
 * used with, to its own loom user op whose argument is the binding; the
 * trampoline turns loom's count back into the MPI count (count / n for a
 * contiguous type of n basic elements) and calls the user function with the
 * MPI datatype. Bindings are made on first use (the only allocation) and
 * freed with the op.
 *
 * MPI_Op_free may come while a nonblocking reduction still uses the op
 * (MPI-3.1 5.9.5: freeing marks it; pending operations complete). So a
 * binding carries what the trampoline needs (the user function, the
 * retained datatype) and does not point back at the MPI op; MPI_Op_free
 * frees the MPI op and hands each binding's loom op to loom_op_free, and
 * loom retires it (loom_mpi_op_binding_release frees the binding) once no
 * reduction in flight holds it.
 *
 * Each binding is a loom user op whose unit is the datatype's size
 * (loom_op_create_unit), so loom's collectives cut vectors only between
 * elements of the user's datatype and the trampoline always gets a whole
 * number of them: the user function sees the datatype handle the
 * collective was called with and a count in its elements, as MPI requires
 * (a function that walks triples of MPI_Type_contiguous(3, MPI_DOUBLE) is
 * never handed a piece that starts inside a triple).
 *
 * A non-contiguous derived type gets a "layout" binding instead
 * (loom_mpi_op_resolve_layout, used by mpi_dtype_red.c): the reduction
 * moves count x extent bytes laid out as the type, the unit is the
 * extent, and the trampoline hands the function element origins (the
 * bytes start at the true lower bound) and a count of whole elements.
 */
#include "mpi_int.h"
#include "mpi_f2c_int.h"
#include "dt_int.h"
#include "mt_int.h"

#include <limits.h>
#include <stdlib.h>

struct loom_mpi_op_binding {
    MPI_User_function     *fn;     /* the op's function (the op may be freed first) */
    MPI_Datatype           dt;     /* retained while bound */
    int                    layout; /* dt non-contiguous, its elements laid out as bytes */
    size_t                 ext;    /* layout: the element unit, dt's extent */
    ptrdiff_t              tlb;    /* layout: dt's true lower bound */
    loom_op_t              lop;
    loom_mpi_op_binding_t *next;
};

#define LOOM_MPI_OP_DEFINE_(ident, lop_, mpi_name)                                 \
    struct loom_mpi_op loom_mpi_op_##ident = {                                     \
        .magic = LOOM_MPI_OP_MAGIC, .op = (lop_), .commute = 1, .predefined = 1,   \
        .name = mpi_name,                                                          \
    };
LOOM_MPI_OP_DEFINE_(max,     LOOM_MAX,     "MPI_MAX")
LOOM_MPI_OP_DEFINE_(min,     LOOM_MIN,     "MPI_MIN")
LOOM_MPI_OP_DEFINE_(sum,     LOOM_SUM,     "MPI_SUM")
LOOM_MPI_OP_DEFINE_(prod,    LOOM_PROD,    "MPI_PROD")
LOOM_MPI_OP_DEFINE_(land,    LOOM_LAND,    "MPI_LAND")
LOOM_MPI_OP_DEFINE_(band,    LOOM_BAND,    "MPI_BAND")
LOOM_MPI_OP_DEFINE_(lor,     LOOM_LOR,     "MPI_LOR")
LOOM_MPI_OP_DEFINE_(bor,     LOOM_BOR,     "MPI_BOR")
LOOM_MPI_OP_DEFINE_(lxor,    LOOM_LXOR,    "MPI_LXOR")
LOOM_MPI_OP_DEFINE_(bxor,    LOOM_BXOR,    "MPI_BXOR")
LOOM_MPI_OP_DEFINE_(minloc,  LOOM_MINLOC,  "MPI_MINLOC")
LOOM_MPI_OP_DEFINE_(maxloc,  LOOM_MAXLOC,  "MPI_MAXLOC")
LOOM_MPI_OP_DEFINE_(replace, LOOM_REPLACE, "MPI_REPLACE")
#undef LOOM_MPI_OP_DEFINE_

/* Call fn on @p count elements of @p dt (@p ext apart), in pieces whose count fits an int. */
static void loom_mpi_op_call(MPI_User_function *fn, const void *in, void *inout,
                             size_t count, MPI_Datatype dt, size_t ext)
{
    MPI_Datatype arg_dt = dt;

    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;

        fn((void *)in, inout, &len, &arg_dt);
        in    = (const char *)in + (size_t)len * ext;
        inout = (char *)inout + (size_t)len * ext;
        count -= (size_t)len;
    }
}

/* loom's count is in basic elements, a multiple of the unit (b->dt->n) */
static void loom_mpi_op_trampoline(const void *in, void *inout, size_t count,
                                   loom_datatype_t ldt, void *arg)
{
    loom_mpi_op_binding_t *b = arg;
    size_t n = b->dt->n;

    (void)ldt;
    if (b->layout) {
        /* bytes of whole elements, each starting at its first data byte (true lb) */
        loom_mpi_op_call(b->fn, (const char *)in - b->tlb, (char *)inout - b->tlb,
                         count / b->ext, b->dt, b->ext);
    } else if (n != 0) {
        loom_mpi_op_call(b->fn, in, inout, count / n, b->dt, loom_mpi_type_extent(b->dt));
    }
}

/* loom retires a binding's op: the binding goes with it */
static void loom_mpi_op_binding_release(void *arg)
{
    loom_mpi_op_binding_t *b = arg;

    loom_mpi_type_release(b->dt);
    free(b);
}

static loom_mpi_op_binding_t *loom_mpi_op_bind(MPI_Op op, MPI_Datatype dt, int layout)
{
    loom_mpi_op_binding_t *b = calloc(1, sizeof(*b));
    ptrdiff_t lb, ext, text;

    if (b == NULL) {
        return NULL;
    }
    b->fn = op->fn;
    b->dt = dt;
    b->layout = layout;
    if (layout) {   /* mpi_dtype_red.c checked: 0 < true extent <= extent */
        loom_dt_get_extent(dt->ldt, &lb, &ext);
        loom_dt_get_true_extent(dt->ldt, &b->tlb, &text);
        b->ext = (size_t)ext;
    }
    if (loom_op_create_unit(loom_mpi_op_trampoline, b, op->commute,
                            layout ? b->ext : loom_mpi_type_extent(dt), &b->lop) != LOOM_OK) {
        free(b);
        return NULL;
    }
    (void)loom_op_set_release(b->lop, loom_mpi_op_binding_release);
    loom_mpi_type_retain(dt);
    b->next = op->bindings;
    op->bindings = b;
    return b;
}

/* The loom op of @p op on @p dt (@p layout: see loom_mpi_op_resolve_layout). */
static int loom_mpi_op_resolve_as(MPI_Op op, MPI_Datatype dt, int layout, loom_op_t *lop_p)
{
    loom_mpi_op_binding_t *b;

    if (op == MPI_OP_NULL || op->magic != LOOM_MPI_OP_MAGIC) {
        return MPI_ERR_OP;
    }
    if (op->predefined) {
        *lop_p = op->op;
        return MPI_SUCCESS;
    }
    for (b = op->bindings; b != NULL; b = b->next) {
        if (b->dt == dt && b->layout == layout) {
            *lop_p = b->lop;
            return MPI_SUCCESS;
        }
    }
    b = loom_mpi_op_bind(op, dt, layout);
    if (b == NULL) {
        return MPI_ERR_NO_MEM;
    }
    *lop_p = b->lop;
    return MPI_SUCCESS;
}

int loom_mpi_op_resolve(MPI_Op op, MPI_Datatype dt, loom_op_t *lop_p)
{
    return loom_mpi_op_resolve_as(op, dt, 0, lop_p);
}

int loom_mpi_op_resolve_layout(MPI_Op op, MPI_Datatype dt, loom_op_t *lop_p)
{
    return loom_mpi_op_resolve_as(op, dt, 1, lop_p);
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    LOOM_MT_GUARD();
    MPI_Op o;

    if (user_fn == NULL || op == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Op_create", "%s is NULL",
                              user_fn == NULL ? "user_fn" : "op");
    }
    o = calloc(1, sizeof(*o));
    if (o == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, "MPI_Op_create",
                              "out of memory for an operation");
    }
    o->magic   = LOOM_MPI_OP_MAGIC;
    o->op      = LOOM_OP_NULL;
    o->fn      = user_fn;
    o->commute = commute != 0;
    o->name    = "user";
    *op = o;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op *op)
{
    LOOM_MT_GUARD();
    loom_mpi_op_binding_t *b, *next;
    MPI_Op o;

    if (op == NULL || *op == MPI_OP_NULL || (*op)->magic != LOOM_MPI_OP_MAGIC) {
        return loom_mpi_raise(NULL, MPI_ERR_OP, "MPI_Op_free", "invalid operation");
    }
    o = *op;
    if (o->predefined) {
        return loom_mpi_raise(NULL, MPI_ERR_OP, "MPI_Op_free",
                              "%s is predefined and cannot be freed", o->name);
    }
    for (b = o->bindings; b != NULL; b = next) {
        next = b->next;
        /* loom frees b when no reduction holds its op any more; after
         * MPI_Finalize loom has released its user ops already */
        if (loom_mpi_state == LOOM_MPI_STATE_INITIALIZED) {
            loom_op_free(&b->lop);
        } else {
            loom_mpi_op_binding_release(b);
        }
    }
    loom_mpi_handle_forget(LOOM_MPI_H_OP, o);
    o->magic = LOOM_MPI_DEAD_MAGIC;
    free(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    LOOM_MT_GUARD();
    if (op == MPI_OP_NULL || op->magic != LOOM_MPI_OP_MAGIC) {
        return loom_mpi_raise(NULL, MPI_ERR_OP, "MPI_Op_commutative", "invalid operation");
    }
    if (commute == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Op_commutative", "commute is NULL");
    }
    *commute = op->commute;
    return MPI_SUCCESS;
}
