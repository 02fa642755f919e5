/*
 * progress.c: the progress engine.
 *
 * One pass polls every open transport (which delivers frames to the p2p
 * engine's am handler and completes gets), then retries frames and gets
 * that met back-pressure, then runs every active generic request
 * (collectives). Blocking calls loop over passes; a pass that finds nothing
 * yields the CPU when ranks outnumber cores, and after LOOM_PROGRESS_TIMEOUT
 * seconds without events the rank reports what it is waiting for
 * (p2p_report.c); so does a pass that finds the SIGUSR1 flag set. Polling
 * calls (loom_progress, loom_test, ...) count as the bottom waiter, so a
 * loop of them (the collectives' on-node fast path, a user's test loop)
 * reports too; the user's polling calls also yield after an empty pass when
 * oversubscribed (the collectives' fast path decides its yields itself).
 *
 * MPI_THREAD_MULTIPLE: every pass starts by letting other threads in when
 * one waits for the engine lock (loom_mt_yield, base/mt.c), so a thread
 * blocked in a wait holds the lock only while a pass runs; a thread alone
 * pays a load of the waiter count. An idle waiter that gives its core away
 * on an oversubscribed node releases the lock around the sched_yield
 * (loom_mt_sched_yield), so a thread asleep in the mutex can use the time
 * slice instead of waking to a lock still held; so does one whose rank has
 * more threads idle in blocking loops than its share of the cores
 * (loom_progress_crowded). Only the outermost level
 * yields: a pass that runs inside another (a collective's step that waits)
 * may sit in the outer pass's walk of the engine's lists, which another
 * thread's call could change. The stacks of blocking loops (waiters,
 * fast-path collectives) are the yielding thread's: it takes them along and
 * leaves them empty for the next holder of the lock, so they stay per
 * thread.
 */
#include "p2p_engine_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <sched.h>

/*
 * One pass. Inline into the blocking loops: a blocking call spins here, and
 * the fewer instructions a pass that finds nothing takes, the sooner the
 * rank sees the line a peer just wrote. The rare duties (queued frames,
 * collectives, transports that serve nobody, the SIGUSR1 report) are one
 * test each.
 */
static inline int loom_progress_pass_body(loom_p2p_engine_t *e)
{
    int n = 0;

    for (int i = 0; i < e->num_busy; ++i) {
        n += loom_tl_iface_progress(e->busy_ifaces[i]);
    }
    if (loom_unlikely(e->num_idle != 0) && (++e->idle_tick % LOOM_P2P_IDLE_POLL) == 0) {
        for (int i = 0; i < e->num_idle; ++i) {
            n += loom_tl_iface_progress(e->idle_ifaces[i]);
        }
    }
    if (loom_unlikely(!loom_list_is_empty(&e->pending_peers) ||
                      !loom_list_is_empty(&e->get_retry))) {
        n += loom_p2p_pending_progress();
    }
    if (!loom_list_is_empty(&e->generic_active)) {
        n += loom_request_generic_progress();
    }
    if (loom_unlikely(loom_p2p_report_asked)) {
        loom_p2p_report_asked_run();   /* SIGUSR1 (loomrun --timeout) */
    }
    if (loom_unlikely(loom_progress_hook != NULL)) {
        n += loom_progress_hook();     /* a layer above (rma: window targets) */
    }
    return n;
}

/*
 * Let other threads in (@p yield_fn: loom_mt_yield between passes,
 * loom_mt_sched_yield when idle); this thread's loop stacks go along.
 */
static void loom_progress_mt_yield(loom_p2p_engine_t *e, void (*yield_fn)(void))
{
    loom_progress_waiter_t *waiter = e->waiter;
    loom_progress_coll_t   *coll   = loom_progress_coll_top;

    e->waiter = NULL;
    loom_progress_coll_top = NULL;
    yield_fn();
    e->waiter = waiter;
    loom_progress_coll_top = coll;
}

/*
 * A pass pins the lock while it runs: a pass nested in it (a collective's
 * step that waits) does not yield, nor does a user callback run from it
 * release the lock (loom_mt_callout_begin). It yields only when a thread
 * waits for the lock: one thread alone keeps it.
 */
static __attribute__((noinline)) int loom_progress_pass_mt(loom_p2p_engine_t *e)
{
    int n;

    if (loom_mt_pinned == 0 && loom_unlikely(loom_mt_someone_waits())) {
        loom_progress_mt_yield(e, loom_mt_yield);
    }
    loom_mt_pin();
    n = loom_progress_pass_body(e);
    loom_mt_unpin();
    return n;
}

/* One pass; in MULTIPLE mode the outermost pass first lets other threads in. */
static inline int loom_progress_pass(loom_p2p_engine_t *e)
{
    if (loom_unlikely(loom_mt_is_active())) {
        return loom_progress_pass_mt(e);
    }
    return loom_progress_pass_body(e);
}

/*
 * Give the core away (ranks outnumber cores). In MULTIPLE mode not with the
 * engine lock held: the outermost level releases it around the sched_yield.
 */
static void loom_progress_sched_yield(void)
{
    if (loom_unlikely(loom_mt_is_active())) {
        loom_progress_mt_yield(&loom_p2p_engine, loom_mt_sched_yield);
        return;
    }
    sched_yield();
}

loom_progress_hook_fn_t loom_progress_hook;

void loom_progress_hook_set(loom_progress_hook_fn_t fn)
{
    loom_progress_hook = fn;
}

int loom_progress_int(void)
{
    return loom_progress_pass(&loom_p2p_engine);
}

/* the waiter of polling calls (loom_progress, loom_test, ...): the bottom of
 * the stack of blocking loops, so the engine always has one to report */
static loom_progress_waiter_t loom_progress_poll_waiter;

void loom_progress_setup(void)
{
    loom_progress_waiter_t *w = &loom_progress_poll_waiter;

    loom_p2p_engine.waiter = NULL;
    loom_progress_coll_top = NULL;
    loom_progress_waiter_init(w, "loom_progress");
}

/* idle passes between clock reads (a clock read costs about as much as a pass) */
#define LOOM_PROGRESS_CLOCK_INTERVAL 4096u

/*
 * A pass of @p w found nothing: every LOOM_PROGRESS_CLOCK_INTERVAL such
 * passes read the clock (so a SIGUSR1 report knows how long this rank has
 * waited) and, past LOOM_PROGRESS_TIMEOUT, report once per idle stretch.
 */
static __attribute__((noinline)) void loom_progress_idle_clock(loom_progress_waiter_t *w)
{
    double now = loom_wtime(), timeout = loom_p2p_engine.progress_timeout;

    if (w->start == 0) {
        w->start = now;
    } else if (timeout > 0 && !w->reported && now - w->start >= timeout) {
        w->reported = 1;
        loom_p2p_report_write(w, now - w->start, 1);
    }
}

static inline void loom_progress_idle_tick(loom_progress_waiter_t *w)
{
    if (loom_unlikely((++w->idle % LOOM_PROGRESS_CLOCK_INTERVAL) == 0)) {
        loom_progress_idle_clock(w);
    }
}

static inline void loom_progress_busy(loom_progress_waiter_t *w)
{
    w->idle     = 0;
    w->start    = 0;
    w->reported = 0;
}

int loom_progress_poll(void)
{
    int n = loom_progress_pass(&loom_p2p_engine);

    if (n != 0) {
        loom_progress_busy(&loom_progress_poll_waiter);
    } else {
        loom_progress_idle_tick(&loom_progress_poll_waiter);
    }
    return n;
}

/*
 * A user's polling call (loom_test, loom_iprobe, loom_progress, ...) that
 * found nothing gives the CPU away when ranks outnumber cores, as a blocking
 * wait does: a test loop otherwise burns its whole time slice while the rank
 * it waits for cannot run (4 ranks on 2 cores: ~4.4 ms per ring round). Only
 * an empty pass yields, so a poll that moved data costs no syscall, and a
 * loop with compute between its tests yields once per test at most; one
 * predictable branch on a flag the pass just read is all the other case pays.
 */
int loom_progress_poll_user(void)
{
    int n = loom_progress_poll();

    if (n == 0 && loom_unlikely(loom_progress_crowded())) {
        loom_progress_sched_yield();
    }
    return n;
}

int loom_progress(void)
{
    LOOM_MT_GUARD();
    if (loom_unlikely(loom_p2p_engine.state != LOOM_STATE_INIT)) {
        return 0;
    }
    return loom_progress_poll_user();
}

int loom_progress_oversubscribed(void)
{
    return loom_p2p_engine.oversubscribed;
}

void loom_progress_idle(void)
{
    if (loom_p2p_engine.oversubscribed) {
        loom_progress_sched_yield();
    }
}

/*
 * Ranks may fit the cores while their threads do not: 2 ranks on 2 cores
 * with 2 threads each waiting in MPI calls. Then every idle loop spins
 * against three other threads for two cores, the thread a message waits
 * for gets a core only when a time slice ends, and the rate swings
 * 100-fold from run to run (osu_mt_rate -t 2: 0.3-40 M messages/s;
 * yielding: 12 M every run). So in MULTIPLE mode the threads of this rank
 * idle in a blocking loop are counted (from the loop's first empty pass to
 * its end), and an idle loop gives its core away, as on an oversubscribed
 * node, while more of them idle than the rank's share of the cores
 * (bootstrap's threads_fit, assuming the other ranks run as many); one
 * thread alone keeps spinning (loom_progress_crowded).
 *
 * How soon (loom_progress_yield_verdict): a crowded wait first spins
 * LOOM_MT_IDLE_SPIN empty passes (default 64, a few microseconds), since
 * the reply it waits for usually comes within a round trip and a yield
 * at the first empty pass hands the core to a thread with nothing to do:
 * two thread pairs ping-ponging on two cores then switch threads on
 * nearly every message (osu_latency_mt -t 2: 3-25 us a hop, about 1.7
 * sched_yield calls per round trip) instead of running a pair at a time
 * (0.1-0.4 us). And a wait on one request whose pass moved frames that did
 * not complete it yields at once: they were most likely another thread's,
 * which now has work. Ranks outnumbering cores still yield at every empty
 * pass (that thread's peer needs the core).
 *
 * Idle threads are not the only ones that may need the core: a sibling
 * woken from the program's own barrier, or computing between two calls, is
 * runnable but not counted, and two threads of different pairs, one per
 * core, each waiting for a thread that cannot run, spun a whole time slice
 * (perf sched: 3.4 ms each; osu_latency_mt's first round trips, 4-10 us a
 * hop at its first size in about half the runs). So in MULTIPLE mode even
 * an uncrowded wait yields once it has been idle LOOM_PROGRESS_MT_LONE_SPIN
 * (1024) passes in a row, a few tens of microseconds; with nobody else
 * runnable on the core the yield returns at once.
 */
atomic_int loom_progress_mt_idlers;

static __attribute__((noinline)) void loom_progress_mt_idle(loom_progress_waiter_t *w)
{
    w->mt_idle = 1;
    atomic_fetch_add_explicit(&loom_progress_mt_idlers, 1, memory_order_relaxed);
}

void loom_progress_mt_idle_end(loom_progress_waiter_t *w)
{
    w->mt_idle = 0;
    atomic_fetch_sub_explicit(&loom_progress_mt_idlers, 1, memory_order_relaxed);
}

/* the pass of @p w found nothing: count it idle, yield when the rule says */
static void loom_progress_wait_idle(loom_progress_waiter_t *w)
{
    const loom_p2p_engine_t *e = &loom_p2p_engine;

    if (loom_unlikely(loom_mt_is_active()) && !w->mt_idle) {
        loom_progress_mt_idle(w);
    }
    if (loom_progress_yield_verdict(loom_progress_crowded(), e->oversubscribed,
                                    loom_mt_is_active(), 0, 0, w->idle, e->mt_idle_spin)) {
        loom_progress_sched_yield();
    }
    loom_progress_idle_tick(w);
}

void loom_progress_wait_step(loom_progress_waiter_t *w)
{
    if (loom_progress_pass(&loom_p2p_engine) != 0) {
        loom_progress_busy(w);
        return;
    }
    loom_progress_wait_idle(w);
}

/*
 * MULTIPLE, crowded: @p moved frames did not complete @p req, the request
 * this thread waits on, so they were most likely another thread's (a reply
 * it waits for): that thread now has work and this core may be the one it
 * needs.
 */
static void loom_progress_wait_moved(loom_request_t req)
{
    const loom_p2p_engine_t *e = &loom_p2p_engine;

    if (loom_progress_yield_verdict(loom_progress_crowded(), e->oversubscribed, 1, 1,
                                    req->complete, 0, e->mt_idle_spin)) {
        loom_progress_sched_yield();
    }
}

/* transport polls between full passes while a call waits on one peer */
#define LOOM_PROGRESS_DIRECT_POLLS 16u

void loom_progress_wait_on(loom_request_t req, int world_peer, const char *what)
{
    loom_p2p_engine_t *e = &loom_p2p_engine;
    loom_tl_iface_t *direct = NULL;
    loom_progress_waiter_t w;

    /* crowded ranks yield on every idle pass instead of spinning */
    if (world_peer >= 0 && !loom_progress_crowded() && e->peers[world_peer].ep != NULL) {
        direct = e->peers[world_peer].ep->iface;
    }
    loom_progress_waiter_init(&w, what);
    while (!req->complete) {
        int n = 0;

        if (direct != NULL) {
            unsigned k = LOOM_PROGRESS_DIRECT_POLLS;
            do {
                n += loom_tl_iface_progress(direct);
            } while (!req->complete && --k != 0);
            if (req->complete) {
                break;
            }
        }
        n += loom_progress_pass(e);
        if (n == 0) {
            loom_progress_wait_idle(&w);
            continue;
        }
        loom_progress_busy(&w);   /* frames flowed: not an idle stretch */
        if (loom_unlikely(loom_mt_is_active())) {
            loom_progress_wait_moved(req);
        }
    }
    loom_progress_waiter_fini(&w);
}
