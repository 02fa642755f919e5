/*
 * mpi_rma_s17.c: session 17 of the one-sided layer: on a Win_create window
 * whose ranks share a host (CMA), puts and gets of 1 to LOOM_RMA_CMA_MSG
 * bytes go by active message, larger ones by process_vm_writev/readv.
 *
 *   mix K    every rank to every other, K rounds: under lock_all, puts of
 *            sizes on both sides of the limit (one of them through a
 *            vector target type) into distinct slots of one target, no
 *            flush between them; flush; gets of every slot back, some as
 *            R-forms; flush; every byte checked. Then the same under
 *            fence, and each target checks its own slots after a barrier.
 *   path T DIR
 *            np 2, which path each size took, told apart without timing:
 *            T is the limit the driver set (LOOM_RMA_CMA_MSG), DIR a
 *            directory for the side channel (files: the ranks tell each
 *            other where they are without an MPI call). A request by
 *            message is served only in the target's MPI calls, a CMA one
 *            never needs them. Put: rank 1 leaves its last MPI call, says
 *            so, and spins on its memory: a message-sized put must not
 *            land within 300 ms, a larger one must land (30 s at most).
 *            Get: rank 0 tests an Rget for 300 ms while rank 1 makes no
 *            MPI call: complete by CMA at once, never by message.
 *
 * usage: mpi_rma_s17 mix [K] | path T DIR
 */
#include "mpi_test_util.h"

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { NSIZES = 6, SLOT = 65536 + 64 };

static const int sizes[NSIZES] = { 1, 8, 4095, 4096, 4097, 65536 };
static int rank, size;

/* the byte @p i of what @p origin writes in round @p k, slot @p s */
static unsigned char pat(int origin, int k, int s, long i)
{
    return (unsigned char)(origin * 37 + k * 11 + s * 5 + i * 3 + 1);
}

MT_OWN_DATA static void fill(unsigned char *b, long n, int origin, int k, int s)
{
    for (long i = 0; i < n; ++i) {
        b[i] = pat(origin, k, s, i);
    }
}

MT_OWN_DATA static void check(const unsigned char *b, long n, int origin, int k, int s,
                              const char *what)
{
    for (long i = 0; i < n; ++i) {
        if (b[i] != pat(origin, k, s, i)) {
            MT_FAIL("%s: origin %d round %d size %d: byte %ld is %d, expected %d", what,
                    origin, k, sizes[s], i, b[i], pat(origin, k, s, i));
        }
    }
}

/* slot of @p origin's size @p s in a target's window (bytes) */
static MPI_Aint slot_of(int origin, int s)
{
    return ((MPI_Aint)origin * NSIZES + s) * SLOT;
}

/*
 * One round to @p t: every size put, then read back. Size index 4 (4097 B)
 * and 2 (4095 B) go through a vector target type of 1-byte blocks at stride
 * 1 with a hole: blocks of (n - 1) and 1 bytes, so the target bytes are
 * contiguous after all but the type is not.
 */
static void mix_round(MPI_Win win, int t, int k, unsigned char *src, unsigned char *dst,
                      int fence)
{
    MPI_Request rq[NSIZES];
    int nrq = 0;

    for (int s = 0; s < NSIZES; ++s) {
        fill(src + (size_t)s * SLOT, sizes[s], rank, k, s);
        memset(dst + (size_t)s * SLOT, 0, (size_t)sizes[s]);
    }
    for (int s = 0; s < NSIZES; ++s) {
        unsigned char *b = src + (size_t)s * SLOT;

        if (s == 2 || s == 4) {
            int lens[2] = { sizes[s] - 1, 1 };
            MPI_Aint disps[2] = { 0, sizes[s] - 1 };
            MPI_Datatype ty;

            MT_OK(MPI_Type_create_hindexed(2, lens, disps, MPI_BYTE, &ty));
            MT_OK(MPI_Type_commit(&ty));
            MT_OK(MPI_Put(b, sizes[s], MPI_BYTE, t, slot_of(rank, s), 1, ty, win));
            MT_OK(MPI_Type_free(&ty));
        } else if (k % 2 == 1 && !fence) {
            MT_OK(MPI_Rput(b, sizes[s], MPI_BYTE, t, slot_of(rank, s), sizes[s], MPI_BYTE,
                           win, &rq[nrq++]));
        } else {
            MT_OK(MPI_Put(b, sizes[s], MPI_BYTE, t, slot_of(rank, s), sizes[s], MPI_BYTE, win));
        }
    }
    MT_OK(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));
    } else {
        MT_OK(MPI_Win_flush(t, win));
    }
    nrq = 0;
    for (int s = 0; s < NSIZES; ++s) {
        unsigned char *b = dst + (size_t)s * SLOT;

        if (k % 2 == 0 && !fence) {
            MT_OK(MPI_Rget(b, sizes[s], MPI_BYTE, t, slot_of(rank, s), sizes[s], MPI_BYTE, win,
                           &rq[nrq++]));
        } else {
            MT_OK(MPI_Get(b, sizes[s], MPI_BYTE, t, slot_of(rank, s), sizes[s], MPI_BYTE, win));
        }
    }
    if (nrq > 0) {
        MT_OK(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));   /* the R-forms: data here */
        for (int s = 0; s < NSIZES; ++s) {
            check(dst + (size_t)s * SLOT, sizes[s], rank, k, s, "Rget before the flush");
        }
    }
    if (fence) {
        MT_OK(MPI_Win_fence(0, win));
    } else {
        MT_OK(MPI_Win_flush(t, win));
    }
    for (int s = 0; s < NSIZES; ++s) {
        check(dst + (size_t)s * SLOT, sizes[s], rank, k, s, fence ? "get (fence)" : "get");
    }
}

static void mix(int rounds)
{
    size_t bytes = (size_t)size * NSIZES * SLOT;
    unsigned char *mem = calloc(1, bytes), *src = malloc((size_t)NSIZES * SLOT),
                  *dst = malloc((size_t)NSIZES * SLOT);
    MPI_Win win;

    MT_CHECK(mem != NULL && src != NULL && dst != NULL);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int fence = 0; fence < 2; ++fence) {
        if (fence) {
            MT_OK(MPI_Win_fence(0, win));
        } else {
            MT_OK(MPI_Win_lock_all(0, win));
        }
        for (int k = 0; k < rounds; ++k) {
            for (int d = 1; d < size || (size == 1 && d == 1); ++d) {
                mix_round(win, (rank + d) % size, k, src, dst, fence);
            }
        }
        if (fence) {
            MT_OK(MPI_Win_fence(0, win));
        } else {
            MT_OK(MPI_Win_unlock_all(win));
        }
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int o = 0; o < size; ++o) {   /* the last round of every origin, read here */
            for (int s = 0; s < NSIZES && (o != rank || size == 1); ++s) {
                check(mem + slot_of(o, s), sizes[s], o, rounds - 1, s, "at the target");
            }
        }
        MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MT_OK(MPI_Win_free(&win));
    free(mem);
    free(src);
    free(dst);
}

/* ---- path: which sizes went by message, told apart without timing ---- */

static const char *sigdir;   /* the side channel: files in the driver's directory */

static void sig_name(char *out, size_t len, const char *what, int step)
{
    snprintf(out, len, "%s/s17.%s.%d", sigdir, what, step);
}

/* tell the other rank, without an MPI call, that this rank reached @p what */
static void sig_post(const char *what, int step)
{
    char name[4096];

    sig_name(name, sizeof(name), what, step);
    mt_file_touch(name);
}

/* wait (no MPI call) for the other rank's sig_post(@p what, @p step), then remove it */
static void sig_wait(const char *what, int step)
{
    char name[4096];

    sig_name(name, sizeof(name), what, step);
    if (!mt_file_await(name, 60.0)) {
        MT_FAIL("the other rank never reached %s (step %d): no %s after 60 s", what, step,
                name);
    }
}

/* spin (no MPI call) until @p n bytes at @p p hold @p v, or @p secs pass; 1 if they did */
MT_OWN_DATA static int spin_for(volatile unsigned char *p, long n, unsigned char v, double secs)
{
    double end = mt_now() + secs;

    do {
        long i = 0;

        while (i < n && p[i] == v) {
            ++i;
        }
        if (i == n) {
            return 1;
        }
    } while (mt_now() < end);
    return 0;
}

/*
 * A put of @p n bytes, rank 0 to rank 1, issued once rank 1 has left its
 * last MPI call: by message it cannot land before rank 1's next one.
 */
static void path_put(MPI_Win win, volatile unsigned char *mem, unsigned char *buf, int n,
                     int by_msg, int step)
{
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        memset(buf, 0x5a, (size_t)n);
        sig_wait("put-ready", step);
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        MT_OK(MPI_Put(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
        MT_OK(MPI_Win_unlock(1, win));   /* by message: done when rank 1 calls MPI below */
    } else {
        sig_post("put-ready", step);
        if (by_msg && spin_for(mem, n, 0x5a, 0.3)) {
            MT_FAIL("a put of %d bytes landed while this target made no MPI call: "
                    "process_vm_writev, where the limit says message", n);
        }
        if (!by_msg && !spin_for(mem, n, 0x5a, 30.0)) {
            MT_FAIL("a put of %d bytes did not land in 30 s while this target made no MPI "
                    "call: a message, where the limit says process_vm_writev", n);
        }
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        MT_CHECK(spin_for(mem, n, 0x5a, 0.0));
        memset((void *)mem, 0, (size_t)n);
    }
}

/*
 * An Rget of @p n bytes, rank 0 from rank 1, while rank 1 makes no MPI
 * call: by CMA it is complete at once, by message not until rank 1's next
 * MPI call (rank 0 tests it for 300 ms first).
 */
static void path_get(MPI_Win win, volatile unsigned char *mem, unsigned char *buf, int n,
                     int by_msg, int step)
{
    if (rank == 1) {
        memset((void *)mem, 0x11, (size_t)n);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_Request rq;
        int done = 0;
        double end;

        memset(buf, 0, (size_t)n);
        sig_wait("get-ready", step);
        MT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        MT_OK(MPI_Rget(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win, &rq));
        for (end = mt_now() + 0.3; !done && mt_now() < end;) {
            MT_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        }
        sig_post("get-tested", step);
        if (by_msg && done) {
            MT_FAIL("an Rget of %d bytes completed while its target made no MPI call: "
                    "process_vm_readv, where the limit says message", n);
        }
        if (!by_msg && !done) {
            MT_FAIL("an Rget of %d bytes was not complete after 300 ms while its target "
                    "made no MPI call: a message, where the limit says process_vm_readv", n);
        }
        MT_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        MT_OK(MPI_Win_unlock(1, win));
        MT_CHECK(spin_for(buf, n, 0x11, 0.0));
    } else {
        sig_post("get-ready", step);
        sig_wait("get-tested", step);
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void path(long limit)
{
    size_t bytes = 65536;
    unsigned char *mem = calloc(1, bytes), *buf = malloc(bytes);
    MPI_Win win;

    MT_CHECK(size == 2 && mem != NULL && buf != NULL);
    MT_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int s = 0; s < NSIZES; ++s) {
        int by_msg = sizes[s] <= limit;

        path_put(win, mem, buf, sizes[s], by_msg, s);
        path_get(win, mem, buf, sizes[s], by_msg, s);
    }
    MT_OK(MPI_Win_free(&win));
    free(mem);
    free(buf);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "mix";

    MT_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "mix") == 0) {
        mix(argc > 2 ? atoi(argv[2]) : 20);
    } else if (strcmp(mode, "path") == 0 && argc > 3) {
        sigdir = argv[3];
        path(atol(argv[2]));
    } else {
        MT_FAIL("usage: mpi_rma_s17 mix [K] | path LIMIT DIR");
    }
    MT_OK(MPI_Barrier(MPI_COMM_WORLD));
    MT_PASS("mpi_rma_s17");
    MPI_Finalize();
    return 0;
}
