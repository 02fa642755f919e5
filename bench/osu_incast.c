/*
 * osu_incast: many senders, one receiver (OSU-style output).
 *
 *   ranks 1..n-1: (skip + iterations) x [W x Isend(size) to rank 0 -> Waitall]
 *   rank 0:       keeps W receives from MPI_ANY_SOURCE posted (MPI_Waitsome,
 *                 repost) until every sender's messages arrived
 *
 * Each sender sends M = iterations x W messages per size after a warm-up
 * of skip x W; no acknowledgement between windows, so a fast sender can run
 * ahead and the receiver's library must apply back-pressure. Rank 0 times
 * everything on its own clock from the synchronization before the timed
 * part: aggregate bandwidth (MB/s, 10^6 bytes) and message rate over all
 * senders, and, per sender, the time its last message arrived; the largest
 * and smallest of those are the fairness columns (a starved sender shows as
 * a max far above the min).
 *
 * Validation (on by default, untimed, before the warm-up of each size,
 * OSU_VALIDATE_ROUNDS rounds): every sender sends V messages (the validation
 * window, <= 16 MiB per sender) whose first 8 bytes carry (sequence,
 * sender) and the rest a pattern of (size, round, sequence, sender); rank 0
 * receives them with blocking MPI_Recv(MPI_ANY_SOURCE) and checks the
 * status (count, tag), that each sender's messages arrive in the order sent
 * (MPI's non-overtaking rule), the data, and that each sender sent exactly
 * V. Sizes start at 8 bytes so the header fits.
 */
#include "osu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INCAST_TAG 300   /* timed messages; validation round r uses tag 301 + r */
#define INCAST_HDR 8     /* uint32 sequence + uint32 sender */

static const osu_bench_desc_t incast_desc = {
    .name = "osu_incast", .title = "OSU-style MPI Incast Test", .kind = OSU_KIND_BANDWIDTH,
    .show_size = 1, .has_window = 1, .exact_np = 0, .elem_size = 1, .min_size = 8,
    .max_size = 1 << 20, .iterations = 20, .iterations_large = 4, .skip = 2,
    .skip_large = 1,
};

/** Rank 0's view of one timed incast (times from its start, in seconds). */
typedef struct incast_result {
    double total_s;        /**< until the last message of any sender */
    double sender_max_s;   /**< latest "last message" over senders */
    double sender_min_s;   /**< earliest "last message" over senders */
} incast_result_t;

/* Validation message @p seq of @p sender: header, then a pattern. */
static void incast_fill(char *buf, size_t size, int round, int seq, int sender)
{
    uint32_t hdr[2] = { (uint32_t)seq, (uint32_t)sender };

    memcpy(buf, hdr, INCAST_HDR);
    osu_fill(buf + INCAST_HDR, size - INCAST_HDR, osu_seed(size, round, seq, sender));
}

/* Validation rounds have tags of their own: a sender that finished one
 * round (or the timed part of the last size) may already send the next. */
static int incast_vtag(int round)
{
    return INCAST_TAG + 1 + round;
}

/* Check one validation message on rank 0; @p next is the sender's expected
 * sequence number. Returns the error count (0 or 1). */
static int incast_check_one(const osu_ctx_t *ctx, const char *buf, size_t size, int round,
                            const MPI_Status *st, int next, int nmsg)
{
    int src = st->MPI_SOURCE;
    uint32_t hdr[2];
    char what[80];

    if (osu_check_status(ctx, st, src, incast_vtag(round), size) != 0)
        return 1;
    memcpy(hdr, buf, INCAST_HDR);
    if (hdr[1] != (uint32_t)src || hdr[0] != (uint32_t)next || next >= nmsg) {
        fprintf(stderr, "%s: validation failed on rank %d, size %zu: message from rank %d "
                "carries (sequence %u, sender %u), expected (sequence %d, sender %d): %s\n",
                ctx->desc->name, ctx->rank, size, src, hdr[0], hdr[1], next, src,
                next >= nmsg ? "more messages than sent" : "lost, reordered or corrupt");
        return 1;
    }
    snprintf(what, sizeof(what), "message %d of %d from rank %d", next + 1, nmsg, src);
    return osu_check(ctx, buf + INCAST_HDR, size - INCAST_HDR,
                     osu_seed(size, round, next, src), size, what);
}

/* Rank 0's side of a validation round. Returns its error count. */
static int incast_validate_recv(const osu_ctx_t *ctx, char *rbuf, size_t size, int round,
                                int nmsg)
{
    int senders = ctx->nranks - 1, errors = 0;
    int *next = calloc((size_t)ctx->nranks, sizeof(int));

    if (next == NULL) {
        fprintf(stderr, "%s: rank 0: out of memory for %d senders\n", ctx->desc->name,
                senders);
        return 1;
    }
    for (long i = 0; i < (long)senders * nmsg; i++) {
        MPI_Status st;

        osu_poison(rbuf, size, osu_seed(size, round, 0, 0));
        MPI_Recv(rbuf, (int)size, MPI_CHAR, MPI_ANY_SOURCE, incast_vtag(round), MPI_COMM_WORLD,
                 &st);
        if (st.MPI_SOURCE < 1 || st.MPI_SOURCE >= ctx->nranks) {
            fprintf(stderr, "%s: rank 0: message from impossible source %d\n",
                    ctx->desc->name, st.MPI_SOURCE);
            errors++;
            continue;
        }
        errors += incast_check_one(ctx, rbuf, size, round, &st, next[st.MPI_SOURCE], nmsg);
        next[st.MPI_SOURCE]++;
    }
    for (int s = 1; s < ctx->nranks; s++) {
        if (next[s] != nmsg) {
            fprintf(stderr, "%s: validation failed on rank 0, size %zu: %d messages from "
                    "rank %d, expected %d\n", ctx->desc->name, size, next[s], s, nmsg);
            errors++;
        }
    }
    free(next);
    return errors;
}

/* One checked round; returns this rank's error count. */
static int incast_validate(const osu_ctx_t *ctx, char *sbuf, char *rbuf, size_t size,
                           int round)
{
    static MPI_Request reqs[OSU_MAX_WINDOW];
    int nmsg = osu_validation_window(ctx, size);

    if (ctx->rank == 0)
        return incast_validate_recv(ctx, rbuf, size, round, nmsg);
    for (int k = 0; k < nmsg; k++) {
        char *slot = sbuf + (size_t)k * size;

        incast_fill(slot, size, round, k, ctx->rank);
        MPI_Isend(slot, (int)size, MPI_CHAR, 0, incast_vtag(round), MPI_COMM_WORLD, &reqs[k]);
    }
    MPI_Waitall(nmsg, reqs, MPI_STATUSES_IGNORE);
    return 0;
}

/* A sender's timed part: @p windows windows of W messages. */
static void incast_send(const osu_ctx_t *ctx, const char *sbuf, size_t size, int windows)
{
    static MPI_Request reqs[OSU_MAX_WINDOW];
    int w = ctx->opt.window;

    for (int i = 0; i < windows; i++) {
        for (int j = 0; j < w; j++)
            MPI_Isend(sbuf, (int)size, MPI_CHAR, 0, INCAST_TAG, MPI_COMM_WORLD, &reqs[j]);
        MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
    }
}

/* Post the receive of slot @p j unless all @p total are posted already. */
static void incast_post(char *rbuf, size_t size, int j, MPI_Request *req, long *posted,
                        long total)
{
    if (*posted == total)
        return;
    (*posted)++;
    MPI_Irecv(rbuf + (size_t)j * size, (int)size, MPI_CHAR, MPI_ANY_SOURCE, INCAST_TAG,
              MPI_COMM_WORLD, req);
}

/* Rank 0's timed part: receive @p per_sender messages from every sender
 * into W slots kept posted; fills @p res (times from @p t0). */
static void incast_recv(const osu_ctx_t *ctx, char *rbuf, size_t size, long per_sender,
                        double t0, incast_result_t *res)
{
    static MPI_Request reqs[OSU_MAX_WINDOW];
    static MPI_Status sts[OSU_MAX_WINDOW];
    static int idx[OSU_MAX_WINDOW];
    long total = per_sender * (ctx->nranks - 1), posted = 0, done = 0;
    long *got = calloc((size_t)ctx->nranks, sizeof(long));
    int w = ctx->opt.window, nout;

    res->sender_max_s = 0.0;
    res->sender_min_s = 1e300;
    for (int j = 0; j < w; j++) {
        reqs[j] = MPI_REQUEST_NULL;
        incast_post(rbuf, size, j, &reqs[j], &posted, total);
    }
    while (done < total) {
        MPI_Waitsome(w, reqs, &nout, idx, sts);
        for (int k = 0; k < nout; k++) {
            int j = idx[k], s = sts[k].MPI_SOURCE;

            done++;
            if (got != NULL && s > 0 && s < ctx->nranks && ++got[s] == per_sender) {
                double t = MPI_Wtime() - t0;

                res->sender_max_s = t > res->sender_max_s ? t : res->sender_max_s;
                res->sender_min_s = t < res->sender_min_s ? t : res->sender_min_s;
            }
            incast_post(rbuf, size, j, &reqs[j], &posted, total);
        }
    }
    res->total_s = MPI_Wtime() - t0;
    free(got);
}

/* Warm-up, then the timed incast of one size (result valid on rank 0). */
static void incast_time(const osu_ctx_t *ctx, char *sbuf, char *rbuf, size_t size,
                        incast_result_t *res)
{
    int iters, skip;
    long w = ctx->opt.window;

    osu_loop_counts(ctx, size, &iters, &skip);
    osu_sync(ctx);
    if (skip > 0) {
        if (ctx->rank == 0)
            incast_recv(ctx, rbuf, size, skip * w, MPI_Wtime(), res);
        else
            incast_send(ctx, sbuf, size, skip);
        osu_sync(ctx);
    }
    if (ctx->rank == 0)
        incast_recv(ctx, rbuf, size, iters * w, MPI_Wtime(), res);
    else
        incast_send(ctx, sbuf, size, iters);
}

static void incast_print_header(const osu_ctx_t *ctx)
{
    int iters, skip;

    if (ctx->rank != 0)
        return;
    osu_loop_counts(ctx, ctx->opt.min_size, &iters, &skip);
    printf("# %s (loom-bench 1.0)\n", incast_desc.title);
    printf("# %d sender%s -> rank 0, window %d, %d x %d messages per sender per size "
           "(%d above %d bytes)\n", ctx->nranks - 1, ctx->nranks == 2 ? "" : "s",
           ctx->opt.window, iters, ctx->opt.window, ctx->opt.iterations_large, OSU_LARGE_SIZE);
    printf("%-10s%*s%*s%*s%*s%s\n", "# Size", OSU_FIELD_WIDTH, "MB/s", OSU_FIELD_WIDTH,
           "Messages/s", OSU_FIELD_WIDTH, "Max-sender(us)", OSU_FIELD_WIDTH, "Min-sender(us)",
           ctx->opt.validation_column ? "        Validation" : "");
    fflush(stdout);
}

static void incast_print(const osu_ctx_t *ctx, size_t size, const incast_result_t *r,
                         int valid)
{
    int iters, skip;
    double msgs;

    if (ctx->rank != 0)
        return;
    osu_loop_counts(ctx, size, &iters, &skip);
    msgs = (double)iters * ctx->opt.window * (ctx->nranks - 1);
    printf("%-10zu%*.*f%*.*f%*.*f%*.*f", size, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION,
           msgs * (double)size / 1e6 / r->total_s, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION,
           msgs / r->total_s, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, r->sender_max_s * 1e6,
           OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, r->sender_min_s * 1e6);
    if (ctx->opt.validation_column)
        printf("%18s", valid ? "Pass" : "Fail");
    printf("\n");
    fflush(stdout);
}

/* Largest buffer per rank: the receiver's W slots or a sender's validation window. */
static size_t incast_buffer_bytes(const osu_ctx_t *ctx)
{
    size_t need = INCAST_HDR;

    for (size_t s = ctx->opt.min_size; s <= ctx->opt.max_size; s = osu_next_size(ctx, s)) {
        size_t v = s * (size_t)osu_validation_window(ctx, s);
        size_t w = s * (size_t)ctx->opt.window;

        need = v > need ? v : need;
        need = w > need ? w : need;
    }
    return need;
}

int main(int argc, char **argv)
{
    osu_ctx_t ctx;
    int status, failed = 0, valid;
    incast_result_t res = { 1.0, 0.0, 0.0 };
    char *sbuf, *rbuf;
    size_t bytes;

    if (!osu_init(&ctx, &incast_desc, &argc, &argv, &status))
        return osu_finish(&ctx, status);
    if (ctx.opt.min_size < INCAST_HDR) {
        if (ctx.rank == 0)
            fprintf(stderr, "osu_incast: sizes start at %d bytes (the sequence header), "
                    "not %zu\n", INCAST_HDR, ctx.opt.min_size);
        return osu_finish(&ctx, 1);
    }
    osu_limit_max_size(&ctx, (size_t)ctx.opt.window);
    bytes = incast_buffer_bytes(&ctx);
    sbuf = osu_alloc(&ctx, ctx.rank == 0 ? 1 : bytes);
    rbuf = osu_alloc(&ctx, ctx.rank == 0 ? bytes : 1);
    incast_print_header(&ctx);
    for (size_t size = ctx.opt.min_size; size <= ctx.opt.max_size;
         size = osu_next_size(&ctx, size)) {
        int errors = 0;

        for (int round = 0; ctx.opt.validate && round < OSU_VALIDATE_ROUNDS; round++)
            errors += incast_validate(&ctx, sbuf, rbuf, size, round);
        errors = ctx.opt.validate ? osu_agree(&ctx, errors) : 0;
        valid = errors == 0;
        if (!valid)
            failed = osu_report_failure(&ctx, size, errors);
        if (!valid && !ctx.opt.validation_column)
            break;
        incast_time(&ctx, sbuf, rbuf, size, &res);
        incast_print(&ctx, size, &res, valid);
    }
    free(sbuf);
    free(rbuf);
    return osu_finish(&ctx, failed);
}
