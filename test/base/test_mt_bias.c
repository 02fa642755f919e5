/*
 * test_mt_bias.c: the engine lock's bias (base/mt.c) under the cases a
 * review found or feared, each with an exact check:
 *
 * - a stale owner: a thread that read the bias as its own, stalled before
 *   its "inside" store (as a preempted thread does), and ran that store and
 *   its back-out only after the bias had moved to another thread that is now
 *   inside. It must not get in beside that thread. The stall is a seam of
 *   mt_int.h (LOOM_MT_TEST_WINDOW, defined here before the include, so only
 *   this file's inline copy of the fast path has it; libloom has none).
 * - an owner thread that exits with the bias: the bias is given back (not
 *   left to a token a new thread may reuse), and another thread gets in;
 *   also when it ends inside the lock (pthread_exit from a callback), and
 *   its exit does not wait for the lock (the joiner may hold it).
 * - fork() while another thread holds the lock through the bias: the child
 *   (only the forking thread lives) takes the lock instead of waiting for a
 *   thread it does not have (an alarm turns a hang into a failure).
 * - no membarrier (a seccomp filter makes it fail with ENOSYS, then EPERM, in a forked
 *   child): no bias is ever given and the word alone keeps exclusion.
 * - a stress run: threads that take turns being alone (so the bias moves
 *   among them) and race, plus short-lived threads that get the bias and
 *   exit, all bumping a non-atomic counter; an atomic occupancy count
 *   catches two threads inside at once, and the final count is exact.
 */
#include <semaphore.h>
#include <stdatomic.h>

static void test_window(void);
#define LOOM_MT_TEST_WINDOW() test_window()

#include "../common/cunit_main.h"
#include "mt_int.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/membarrier.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#else
#define UNDER_TSAN 0
#endif

/* ---- the seam: stall one acquisition between its bias check and store */

static _Thread_local int stall_here;
static sem_t stalled, resume;

static void test_window(void)
{
    if (stall_here) {
        stall_here = 0;
        sem_post(&stalled);
        while (sem_wait(&resume) != 0) {
        }
    }
}

/* take the lock alone until it is biased to us; @return 1 if it is */
static int make_biased(void)
{
    for (int k = 0; k < 4096; ++k) {
        LOOM_MT_GUARD();
    }
    return atomic_load(&loom_mt_bias) == loom_mt_self();
}

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

    nanosleep(&ts, NULL);
}

static atomic_int stale_inside, stale_was_biased;

static void *stale_thread(void *arg)
{
    (void)arg;
    atomic_store(&stale_was_biased, make_biased());
    stall_here = 1;
    loom_mt_lock();   /* reads the bias as ours, then stalls in the seam */
    atomic_store(&stale_inside, 1);
    loom_mt_unlock();
    return NULL;
}

static void test_stale_owner(void)
{
    pthread_t th;
    int beside = 0;

    if (!loom_mt_bias_enabled()) {
        return;   /* nothing biased, nothing stale */
    }
    atomic_store(&stale_inside, 0);
    sem_init(&stalled, 0, 0);
    sem_init(&resume, 0, 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, stale_thread, NULL), 0);
    while (sem_wait(&stalled) != 0) {
    }
    CU_ASSERT_EQUAL(atomic_load(&stale_was_biased), 1);
    CU_ASSERT_EQUAL(make_biased(), 1);   /* revoked the stalled one, then biased to us */
    loom_mt_lock();                      /* inside through the bias */
    sem_post(&resume);
    for (int k = 0; k < 200 && !beside; ++k) {
        sleep_us(1000);
        beside = atomic_load(&stale_inside);
    }
    CU_ASSERT_EQUAL(beside, 0);   /* the stale thread waited for us */
    loom_mt_unlock();
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(atomic_load(&stale_inside), 1);
    sem_destroy(&stalled);
    sem_destroy(&resume);
}

/* ---- an owner thread exits with the bias */

static uintptr_t exited_token;

static void *exiting_owner(void *arg)
{
    (void)arg;
    exited_token = make_biased() ? loom_mt_self() : 0;
    return NULL;
}

static void test_owner_exits(void)
{
    pthread_t th;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, exiting_owner, NULL), 0);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(exited_token != 0, loom_mt_bias_enabled());
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_bias), 0);   /* given back at exit */
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_word), 0);
    loom_mt_lock();
    CU_ASSERT_EQUAL(loom_mt_held(), 1);
    loom_mt_unlock();
}

/* ---- an owner thread that ends inside the lock (pthread_exit from a callback) */

static atomic_int late_got_in;

static void *exit_inside(void *arg)
{
    if (arg != NULL) {
        (void)make_biased();
    }
    loom_mt_lock();
    loom_mt_lock();
    loom_mt_pin();
    pthread_exit(NULL);
}

static void *late_taker(void *arg)
{
    (void)arg;
    loom_mt_lock();
    atomic_store(&late_got_in, 1);
    loom_mt_unlock();
    return NULL;
}

/* @p biased: the exiting thread holds the lock through the bias, else the word */
static void owner_exits_inside(int biased)
{
    pthread_t th;
    int got = 0;

    atomic_store(&late_got_in, 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, exit_inside, biased ? &got : NULL), 0);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, late_taker, NULL), 0);
    for (int k = 0; k < 5000 && !got; ++k) {
        sleep_us(1000);
        got = atomic_load(&late_got_in);
    }
    CU_ASSERT_EQUAL_FATAL(got, 1);   /* else the taker hangs: the lock died with its holder */
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(loom_mt_pinned, 0);
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_bias), 0);
}

static void test_owner_exits_inside(void)
{
    owner_exits_inside(1);
    owner_exits_inside(0);
}

/* ---- a thread exits while the thread joining it holds the lock */

static void *biased_then_exit(void *arg)
{
    (void)arg;
    atomic_store(&stale_was_biased, make_biased());
    sem_post(&stalled);
    while (sem_wait(&resume) != 0) {
    }
    return NULL;
}

static void test_exit_joined_under_lock(void)
{
    pthread_t th;
    struct timespec until;
    int rc;

    sem_init(&stalled, 0, 0);
    sem_init(&resume, 0, 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, biased_then_exit, NULL), 0);
    while (sem_wait(&stalled) != 0) {
    }
    CU_ASSERT_EQUAL(atomic_load(&stale_was_biased), loom_mt_bias_enabled());
    loom_mt_lock();   /* revokes its bias; a user callback run under the lock joins it */
    sem_post(&resume);
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    rc = pthread_timedjoin_np(th, NULL, &until);
    CU_ASSERT_EQUAL(rc, 0);   /* its exit did not wait for the lock we hold */
    loom_mt_unlock();
    if (rc != 0) {
        pthread_join(th, NULL);
    }
    sem_destroy(&stalled);
    sem_destroy(&resume);
}

/* ---- fork while another thread is inside through the bias */

static void *inside_owner(void *arg)
{
    (void)arg;
    atomic_store(&stale_was_biased, make_biased());
    loom_mt_lock();
    sem_post(&stalled);
    while (sem_wait(&resume) != 0) {
    }
    loom_mt_unlock();
    return NULL;
}

static void test_fork_child(void)
{
    pthread_t th;
    pid_t pid;
    int status = 0;

    if (UNDER_TSAN) {
        return;   /* TSan does not support threads in a multi-threaded fork's child */
    }
    sem_init(&stalled, 0, 0);
    sem_init(&resume, 0, 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, inside_owner, NULL), 0);
    while (sem_wait(&stalled) != 0) {
    }
    CU_ASSERT_EQUAL(atomic_load(&stale_was_biased), loom_mt_bias_enabled());
    pid = fork();
    if (pid == 0) {
        alarm(10);   /* a child that waits for the absent owner dies of SIGALRM */
        loom_mt_lock();
        loom_mt_unlock();
        _exit(atomic_load(&loom_mt_word) == 0 ? 0 : 3);
    }
    CU_ASSERT_FATAL(pid > 0);
    waitpid(pid, &status, 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    sem_post(&resume);
    pthread_join(th, NULL);
    sem_destroy(&stalled);
    sem_destroy(&resume);
}

/* ---- the stress run (used in the seccomp child too) */

#define STRESS_THREADS 4
static long counter;
static atomic_int occupancy, overlaps, turn;
static atomic_long made;   /* bumps each thread counted on its own */
static atomic_int biased_rounds;   /* rounds whose alone stretch ended biased */
static int stress_rounds, stress_alone, stress_race;

static void bump(void)
{
    LOOM_MT_GUARD();
    if (atomic_fetch_add_explicit(&occupancy, 1, memory_order_relaxed) != 0) {
        atomic_fetch_add_explicit(&overlaps, 1, memory_order_relaxed);
    }
    ++counter;
    atomic_fetch_sub_explicit(&occupancy, 1, memory_order_relaxed);
}

static void *stress_worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    long n = 0;

    for (int r = 0; r < stress_rounds; ++r) {
        for (int spins = 0; atomic_load(&turn) % STRESS_THREADS != me; ++spins) {
            if (spins > 64) {
                sched_yield();
            }
            bump();   /* race the one whose turn it is */
            ++n;
        }
        for (int k = 0; k < stress_alone; ++k) {
            bump();   /* mostly alone: the bias comes to us */
        }
        n += stress_alone;
        if (atomic_load(&loom_mt_bias) == loom_mt_self()) {
            atomic_fetch_add(&biased_rounds, 1);
        }
        atomic_fetch_add(&turn, 1);
        for (int k = 0; k < stress_race; ++k) {
            bump();
        }
        n += stress_race;
    }
    atomic_fetch_add(&made, n);
    return NULL;
}

static void *stress_exiter(void *arg)
{
    (void)arg;
    for (int k = 0; k < 1200; ++k) {
        bump();
    }
    atomic_fetch_add(&made, 1200);
    return NULL;
}

/* @return 1 when the run was exact: no overlap, counter == bumps made */
static int stress_run(int exiters)
{
    pthread_t th[STRESS_THREADS];

    counter = 0;
    atomic_store(&overlaps, 0);
    atomic_store(&turn, 0);
    atomic_store(&made, 0);
    atomic_store(&biased_rounds, 0);
    for (intptr_t i = 0; i < STRESS_THREADS; ++i) {
        if (pthread_create(&th[i], NULL, stress_worker, (void *)i) != 0) {
            return 0;
        }
    }
    for (int e = 0; e < exiters; ++e) {
        pthread_t x;

        if (pthread_create(&x, NULL, stress_exiter, NULL) != 0) {
            return 0;
        }
        pthread_join(x, NULL);
    }
    for (int i = 0; i < STRESS_THREADS; ++i) {
        pthread_join(th[i], NULL);
    }
    return atomic_load(&overlaps) == 0 && counter == atomic_load(&made);
}

static void stress_size(void)
{
    stress_rounds = UNDER_TSAN ? 4 : 20;
    stress_alone  = 2500;
    stress_race   = 300;
}

static void test_stress(void)
{
    stress_size();
    CU_ASSERT_EQUAL(stress_run(UNDER_TSAN ? 4 : 40), 1);
    CU_ASSERT_EQUAL(atomic_load(&overlaps), 0);
    CU_ASSERT_EQUAL(counter, atomic_load(&made));
    CU_ASSERT_EQUAL(atomic_load(&occupancy), 0);
    /* the bias did move among the threads (about every round does) */
    CU_ASSERT_EQUAL(atomic_load(&biased_rounds) > 0, loom_mt_bias_enabled());
    CU_ASSERT_EQUAL(atomic_load(&loom_mt_word) != 0 || loom_mt_held(), 0);
}

/* ---- no membarrier: a seccomp filter fails it with ENOSYS */

/* make membarrier fail with @p err in this process (seccomp filter) */
static int deny_membarrier(int err)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };

    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
           prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

static void no_membarrier(int err)
{
    pid_t pid;
    int status = 0;

    if (UNDER_TSAN) {
        return;   /* threads in a forked child: not under TSan */
    }
    pid = fork();
    if (pid == 0) {
        alarm(60);
        if (!deny_membarrier(err)) {
            _exit(10);
        }
        if (syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) != -1 || errno != err) {
            _exit(11);
        }
        loom_mt_enable();   /* registration fails now */
        if (loom_mt_bias_enabled() || make_biased()) {
            _exit(12);
        }
        stress_size();
        if (!stress_run(8)) {
            _exit(13);
        }
        _exit(atomic_load(&loom_mt_bias) == 0 ? 0 : 14);
    }
    CU_ASSERT_FATAL(pid > 0);
    waitpid(pid, &status, 0);
    CU_ASSERT(WIFEXITED(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

static void test_no_membarrier(void)
{
    no_membarrier(ENOSYS);   /* an old kernel */
    no_membarrier(EPERM);    /* a container's seccomp profile */
}

static void test_enable(void)
{
    loom_mt_enable();
    CU_ASSERT_EQUAL(loom_mt_is_active(), 1);
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "enable", test_enable },
        { "no membarrier: no bias, exclusion by the word", test_no_membarrier },
        { "a stale owner's late store does not let it in beside the new owner",
          test_stale_owner },
        { "an owner thread that exits gives the bias back", test_owner_exits },
        { "an owner thread that ends inside the lock lets it go", test_owner_exits_inside },
        { "a thread exits while its joiner holds the lock", test_exit_joined_under_lock },
        { "fork while a biased owner is inside", test_fork_child },
        { "stress: bias moving among threads, owners exiting", test_stress },
        { NULL, NULL },
    };
    return loom_test_run_suite("engine lock bias", cases, NULL, NULL);
}
