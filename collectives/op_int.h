/*
 * op_int.h: reduction operations as the collectives layer sees them.
 *
 * Every predefined operation is a table of kernels indexed by datatype; a
 * NULL entry means "not defined for this type" (MPI's rules: arithmetic on
 * every numeric type, logical and bitwise on integers, bitwise also on
 * bytes, minloc/maxloc on the value+index pairs, replace on everything;
 * sum and prod only on complex, land/lor/lxor only on bool).
 * User operations live in a small growable table after the predefined ones;
 * one may carry a unit, the byte size of its element (loom_op_create_unit),
 * and is then only ever applied to whole elements (loom_op_unit).
 * A kernel computes inout[i] = in[i] op inout[i], so a reduction that must
 * respect rank order folds from the highest rank down (see coll_int.h).
 */
#ifndef LOOM_OP_INT_H
#define LOOM_OP_INT_H

#include <loom.h>

#include <stddef.h>

/** A predefined kernel: inout[i] = in[i] op inout[i] for @p n elements. */
typedef void (*loom_op_kernel_fn_t)(const void *in, void *inout, size_t n);

/**
 * Check that @p op is defined for @p dt; logs "<who>: operation 'band' is
 * not defined for datatype 'double'" and returns LOOM_ERR_INVALID_OP (or
 * LOOM_ERR_INVALID_TYPE for a bad type) otherwise.
 */
loom_status_t loom_op_check(loom_op_t op, loom_datatype_t dt, const char *who);

/** 1 if @p op is commutative (every predefined op is; user ops say so). */
int loom_op_is_commutative(loom_op_t op);

/**
 * Apply a checked @p op (no validation, no logging): the collectives' inner
 * loop. inout[i] = in[i] op inout[i] for @p count elements.
 */
void loom_op_apply(loom_op_t op, const void *in, void *inout, size_t count,
                   loom_datatype_t dt);

/**
 * The kernel of predefined @p op on @p dt, for callers that resolve it once
 * and call it on a fast path (coll_fast.c). NULL for user operations, for
 * LOOM_REPLACE (a memmove in loom_op_apply) and for pairs loom_op_check
 * rejects: those go through loom_op_apply.
 */
loom_op_kernel_fn_t loom_op_kernel(loom_op_t op, loom_datatype_t dt);

/**
 * 1 if in op inout gives the same bits as inout op in for predefined @p op
 * on @p dt, so a fold may take its operands in either order: sum and
 * product (for floating point up to which NaN's payload a NaN result
 * carries, which C leaves to the compiler anyway), the logical and bitwise
 * operations, and min/max/minloc/maxloc on integers. Not min/max on
 * floating point (signed zeros, NaN), user operations or replace.
 */
int loom_op_commutes_exactly(loom_op_t op, loom_datatype_t dt);

/**
 * Basic elements of @p dt in one element of @p op: 1 for predefined
 * operations and for user operations made without a unit, unit / size of
 * @p dt for loom_op_create_unit() (which loom_op_check() has verified is a
 * whole number). Collectives cut vectors only at multiples of it.
 */
size_t loom_op_unit(loom_op_t op, loom_datatype_t dt);

/**
 * Hold user operation @p op (no-op for a predefined one) while a collective
 * uses it: loom_op_free() then only marks it, and the slot is retired (and
 * its release callback run) at the last loom_op_release().
 */
void loom_op_retain(loom_op_t op);

/** Drop a hold taken by loom_op_retain(). */
void loom_op_release(loom_op_t op);

/**
 * 1 if @p count elements of @p dt are a whole number of @p op's elements
 * (checked op and type). No division unless the op's element spans several
 * datatype elements (a predefined op or a unit-less user op never does).
 */
static inline int loom_op_count_whole(loom_op_t op, loom_datatype_t dt, size_t count)
{
    size_t unit = (int)op < LOOM_OP_PREDEFINED_COUNT ? 1 : loom_op_unit(op, dt);

    return unit <= 1 || count % unit == 0;
}

/** Release every user operation (at finalize). */
void loom_op_cleanup(void);

#endif /* LOOM_OP_INT_H */
