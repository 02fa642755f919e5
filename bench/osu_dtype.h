/**
 * @file osu_dtype.h
 * @brief What the derived-datatype benchmarks (osu_column, osu_struct,
 * osu_halo, dt_pack) share beyond osu_util.h: their own options, a timed
 * ping-pong of (buffer, count, datatype), and exact cell values.
 *
 * Design: each benchmark describes its data with an MPI derived datatype
 * and validates by an independent model of the layout, never through the
 * datatype engine under test: the sender's memory holds known values, the
 * receiver's memory is poisoned first, and after the transfer every byte
 * of the receive buffer is checked: inside the type map it must be the
 * corresponding sender byte, outside it the poison (so a type that writes
 * one byte too many fails as surely as one that loses data).
 */
#ifndef LOOM_BENCH_OSU_DTYPE_H
#define LOOM_BENCH_OSU_DTYPE_H

#include "osu_util.h"

/**
 * @brief Remove "-<flag> VALUE" (or "-<flag>VALUE") from argv before
 * osu_init() sees it: the shared parser refuses options it does not know.
 * @return the value, or @p dflt when the flag is absent.
 */
const char *osu_dt_take_opt(int *argc, char **argv, char flag, const char *dflt);

/**
 * @brief OSU's ping-pong of @p count instances of @p type between ranks 0
 * and 1 (rank 0 sends from @p sbuf and receives the reply into @p rbuf;
 * rank 1 receives into @p rbuf and sends it back from there). Returns the one-way latency in us on rank 0.
 */
double osu_dt_pingpong(const osu_ctx_t *ctx, void *sbuf, void *rbuf, int count,
                       MPI_Datatype type, size_t size);

/** @brief An exact double (< 2^24) for cell @p i of rank @p r in round @p round. */
double osu_dt_value(size_t i, int r, int round);

/** @brief Print a validation failure (stderr) for cell/byte @p at; returns 1. */
int osu_dt_fail(const osu_ctx_t *ctx, size_t size, const char *what, size_t at,
                double got, double want);

#endif /* LOOM_BENCH_OSU_DTYPE_H */
