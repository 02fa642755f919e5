/*
 * test_rndv_nomem.c: an RTS whose pieces the receiver has no memory for.
 *
 * An RTS flagged LOOM_P2P_RTS_RIOV_REMOTE announces up to one piece per 16
 * bytes of the message (the decoder's bound), so a big message may ask the
 * receiver for gigabytes of piece array. When that malloc fails, only the
 * receive it matched fails (LOOM_ERR_NO_MEMORY); the process goes on.
 *
 * Design: a singleton engine; a forked child (loom_abort there does not end
 * the suite) reserves a 1 GiB receive buffer (mapped, never touched), caps
 * its address space at 256 MiB above what it maps, posts the receive and
 * hands the engine's frame decoder an RTS from itself announcing 2^26
 * pieces (1 GiB of array) for a 1 GiB message. Exit code 0: the receive
 * failed with LOOM_ERR_NO_MEMORY and a later message still arrives.
 * Skipped under sanitizers (their allocators die on a failed mmap).
 */
#include "../common/cunit_main.h"
#include <loom.h>
#include "p2p_engine_int.h"
#include "p2p_proto_int.h"
#include "comm_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NOMEM_SKIP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NOMEM_SKIP 1
#endif
#endif

#define BIG ((size_t)1 << 30)

#ifndef NOMEM_SKIP

/* the address space: what is mapped now plus @p extra bytes */
static int cap_address_space(size_t extra)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    struct rlimit rl;

    if (f == NULL || fscanf(f, "%lu", &pages) != 1) {
        if (f != NULL) {
            fclose(f);
        }
        return -1;
    }
    fclose(f);
    if (getrlimit(RLIMIT_AS, &rl) != 0) {
        return -1;
    }
    rl.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + extra;
    return setrlimit(RLIMIT_AS, &rl);
}

/* the child: 0 when the receive failed alone with LOOM_ERR_NO_MEMORY */
static int nomem_child(void)
{
    struct {
        loom_p2p_hdr_rts_t h;
        loom_tl_rkey_t     key;
    } f;
    void *buf = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    loom_request_t req;
    int v = 41, got = 0;

    if (buf == MAP_FAILED || cap_address_space((size_t)256 << 20) != 0 ||
        loom_irecv(buf, BIG, LOOM_BYTE, 0, 7, LOOM_COMM_WORLD, &req) != LOOM_OK) {
        return 2;
    }
    memset(&f, 0, sizeof(f));
    f.h.base.type        = LOOM_P2P_RTS;
    f.h.base.reserved[0] = LOOM_P2P_RTS_RIOV | LOOM_P2P_RTS_RIOV_REMOTE;
    f.h.base.ctx         = loom_comm_ctx(LOOM_COMM_WORLD, LOOM_CTX_P2P);
    f.h.base.src         = 0;
    f.h.base.tag         = 7;
    f.h.base.len         = BIG;
    f.h.sreq             = 12345;
    f.h.raddr            = (uint64_t)(uintptr_t)&f;
    f.h.rsvd             = (uint32_t)(BIG / sizeof(struct iovec));   /* the largest allowed */
    loom_p2p_am_handler(NULL, 0, &f, sizeof(f));
    if (loom_wait(&req, LOOM_STATUS_IGNORE) != LOOM_ERR_NO_MEMORY) {
        return 3;
    }
    /* the engine still works: a message to itself arrives */
    if (loom_send(&v, 1, LOOM_INT32, 0, 8, LOOM_COMM_WORLD) != LOOM_OK ||
        loom_recv(&got, 1, LOOM_INT32, 0, 8, LOOM_COMM_WORLD, LOOM_STATUS_IGNORE) != LOOM_OK) {
        return 4;
    }
    return got == 41 ? 0 : 5;
}
#endif

static void test_riov_nomem_fails_one_receive(void)
{
#ifdef NOMEM_SKIP
    CU_PASS("skipped under a sanitizer (its allocator dies on a failed mmap)");
#else
    pid_t pid;
    int status = -1;

    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        _exit(nomem_child());
    }
    CU_ASSERT_FATAL(pid > 0);
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
#endif
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "no memory for an RTS's remote pieces fails that receive only",
          test_riov_nomem_fails_one_receive },
        { NULL, NULL },
    };
    int rc;

    setenv("LOOM_ERRORS", "return", 1);
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    if (loom_init(NULL, NULL) != LOOM_OK) {
        fprintf(stderr, "loom_init failed\n");
        return 1;
    }
    rc = loom_test_run_suite("p2p_rndv_nomem", cases, NULL, NULL);
    return loom_finalize() == LOOM_OK ? rc : 1;
}
