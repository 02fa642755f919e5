/*
 * prog_multihost.c: the rank program of the multi-host tests
 * (test_multihost.sh). It uses the bootstrap and the PMIx client directly,
 * so it tests loomrun's daemons and routing alone. Modes:
 *
 *   info HOSTS      HOSTS lists the expected host of every rank ("a,a,b,b"):
 *                   each rank checks size, every rank's host, its local rank
 *                   and local size and the local peer list against it, then
 *                   publishes a blob, fences and checks every peer's blob;
 *                   prints "OK info rank=R host=H"
 *   dmodex          raw PMIx: put a key, commit, fence WITHOUT collecting
 *                   data, then get every peer's key: the ones on other hosts
 *                   come through the launchers' direct modex; "OK dmodex rank=R"
 *   sleep S         fence, print "READY rank=R pid=P host=H", sleep S
 *                   seconds, fence again, finish ("OK sleep rank=R")
 *   cat             rank 0 copies stdin to stdout; everyone fences
 */
#include "bootstrap_int.h"

#include <pmix.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const loom_bootstrap_info_t *job;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
    va_list ap;

    printf("FAIL rank=%d ", job ? job->rank : -1);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    exit(1);
}

static void init(void)
{
    if (loom_bootstrap_init(&job) != LOOM_OK) {
        fail("loom_bootstrap_init failed");
    }
}

static void fence(void)
{
    if (loom_bootstrap_fence() != LOOM_OK) {
        fail("fence failed");
    }
}

/* The expected host of rank @p r from "a,a,b,b" (static buffer). */
static const char *expected_host(const char *list, int r)
{
    static char buf[256];
    const char *p = list;

    for (int i = 0; i < r && p != NULL; ++i) {
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    if (p == NULL) {
        return "";
    }
    snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(p, ","), p);
    return buf;
}

static void check_place(const char *hosts)
{
    int local = 0, my_local = -1, nhosts = 0;
    char mine[256];

    snprintf(mine, sizeof(mine), "%s", expected_host(hosts, job->rank));
    if (expected_host(hosts, job->size - 1)[0] == '\0' || expected_host(hosts, job->size)[0]) {
        fail("job size %d does not match the host list %s", job->size, hosts);
    }
    for (int r = 0; r < job->size; ++r) {
        const char *want = expected_host(hosts, r);
        if (strcmp(job->hostnames[r], want) != 0) {
            fail("host of rank %d is %s, not %s", r, job->hostnames[r], want);
        }
        if (strcmp(want, mine) == 0) {
            if (local >= job->local_size || job->local_peers[local] != r) {
                fail("local peers disagree with the host list at rank %d", r);
            }
            my_local = r == job->rank ? local : my_local;
            ++local;
        }
        nhosts += job->node_of_rank[r] + 1 > nhosts;
    }
    if (local != job->local_size || my_local != job->local_rank) {
        fail("local size/rank wrong (local size %d)", job->local_size);
    }
}

static void check_modex(void)
{
    char key[] = "mh.blob", buf[64];

    snprintf(buf, sizeof(buf), "blob-of-%d-%s", job->rank, job->hostnames[job->rank]);
    if (loom_bootstrap_put(key, buf, strlen(buf) + 1) != LOOM_OK) {
        fail("put failed");
    }
    fence();
    for (int r = 0; r < job->size; ++r) {
        char got[64], want[64];
        size_t len = sizeof(got);
        snprintf(want, sizeof(want), "blob-of-%d-%s", r, job->hostnames[r]);
        if (loom_bootstrap_get(r, key, got, &len) != LOOM_OK || strcmp(got, want) != 0) {
            fail("blob of rank %d missing or wrong", r);
        }
    }
}

/* Raw PMIx: data of peers on other hosts without a collecting fence. */
static int mode_dmodex(void)
{
    pmix_proc_t me, peer;
    pmix_value_t val, *got;
    pmix_info_t info;
    bool collect = false;
    uint32_t size;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fail("PMIx_Init failed");
    }
    PMIX_PROC_LOAD(&peer, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&peer, PMIX_JOB_SIZE, NULL, 0, &got) != PMIX_SUCCESS) {
        fail("no PMIX_JOB_SIZE");
    }
    size = got->data.uint32;
    PMIX_VALUE_RELEASE(got);
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_UINT32;
    val.data.uint32 = 1000u + me.rank;
    if (PMIx_Put(PMIX_GLOBAL, "mh.dmdx", &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS) {
        fail("put/commit failed");
    }
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (PMIx_Fence(NULL, 0, &info, 1) != PMIX_SUCCESS) {
        fail("fence without data failed");
    }
    for (uint32_t r = 0; r < size; ++r) {
        PMIX_PROC_LOAD(&peer, me.nspace, r);
        if (PMIx_Get(&peer, "mh.dmdx", NULL, 0, &got) != PMIX_SUCCESS) {
            fail("PMIx_Get of rank %d's key failed", (int)r);
        }
        if (got->type != PMIX_UINT32 || got->data.uint32 != 1000u + r) {
            fail("wrong value from rank %d", (int)r);
        }
        PMIX_VALUE_RELEASE(got);
    }
    PMIx_Fence(NULL, 0, NULL, 0);
    printf("OK dmodex rank=%u size=%u\n", me.rank, size);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}

static void mode_cat(void)
{
    char buf[4096];
    size_t n;

    if (job->rank == 0) {
        while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
            fwrite(buf, 1, n, stdout);
        }
        fflush(stdout);
    }
    fence();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "dmodex") == 0) {
        return mode_dmodex();
    }
    init();
    if (strcmp(mode, "info") == 0 && argc > 2) {
        check_place(argv[2]);
        check_modex();
        printf("OK info rank=%d host=%s\n", job->rank, job->hostnames[job->rank]);
    } else if (strcmp(mode, "sleep") == 0 && argc > 2) {
        fence();
        printf("READY rank=%d pid=%d host=%s\n", job->rank, (int)getpid(),
               job->hostnames[job->rank]);
        sleep((unsigned)atoi(argv[2]));
        fence();
        printf("OK sleep rank=%d\n", job->rank);
    } else if (strcmp(mode, "cat") == 0) {
        mode_cat();
    } else {
        fprintf(stderr, "usage: %s info HOSTS | dmodex | sleep S | cat\n", argv[0]);
        return 2;
    }
    loom_bootstrap_finalize();
    return 0;
}
