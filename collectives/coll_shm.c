/*
 * coll_shm.c: creation, mapping and ordering of the per-communicator
 * collective segment (see coll_shm.h).
 *
 *   rank 0                              rank q > 0
 *   shm_open(O_CREAT|O_EXCL), zero
 *   send "created" (status byte) ---->  recv, shm_open + mmap
 *   recv "mapped" from every q   <----  send "mapped" (status byte)
 *   shm_unlink
 */
#include "coll_shm.h"
#include "bootstrap_int.h"
#include "log_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

enum { SHM_NONE = 0, SHM_SETUP, SHM_READY, SHM_FAILED };

typedef struct loom_coll_comm {
    int       eligible;      /* every rank on this node */
    int       state;         /* SHM_* */
    void     *base;
    size_t    size;
    uint64_t  next_seq;      /* number given to the next shm operation */
    uint64_t  done_seq;      /* last shm operation completed here */
    char      name[128];
} loom_coll_comm_t;

#define SHM_RANK_BYTES (sizeof(loom_coll_shm_ctl_t) + 2 * LOOM_COLL_SHM_MAX_BYTES)

static void loom_coll_comm_free(loom_comm_t comm)
{
    loom_coll_comm_t *cc = comm->coll_priv;

    if (cc == NULL) {
        return;
    }
    if (cc->base != NULL) {
        munmap(cc->base, cc->size);
    }
    free(cc);
    comm->coll_priv = NULL;
}

static loom_coll_comm_t *loom_coll_comm_get(loom_comm_t comm)
{
    const loom_bootstrap_info_t *info;
    loom_coll_comm_t *cc = comm->coll_priv;
    int my_node;

    if (loom_likely(cc != NULL)) {
        return cc;
    }
    cc = calloc(1, sizeof(*cc));
    if (cc == NULL) {
        return NULL;
    }
    info = loom_bootstrap_info();
    cc->eligible = info != NULL && info->node_of_rank != NULL && comm->size > 1;
    if (cc->eligible) {
        my_node = info->node_of_rank[loom_comm_to_world(comm, comm->rank)];
        for (int r = 0; r < comm->size; ++r) {
            if (info->node_of_rank[loom_comm_to_world(comm, r)] != my_node) {
                cc->eligible = 0;
                break;
            }
        }
    }
    comm->coll_priv      = cc;
    comm->coll_priv_free = loom_coll_comm_free;
    return cc;
}

int loom_coll_shm_eligible(loom_comm_t comm)
{
    loom_coll_comm_t *cc = loom_coll_comm_get(comm);
    return cc != NULL && cc->eligible && cc->state != SHM_FAILED;
}

loom_coll_shm_ctl_t *loom_coll_shm_ctl(const loom_coll_state_t *s, int r)
{
    loom_coll_comm_t *cc = s->shm;
    return (loom_coll_shm_ctl_t *)(void *)((char *)cc->base + (size_t)r * SHM_RANK_BYTES);
}

void *loom_coll_shm_slot(const loom_coll_state_t *s, int r)
{
    return (char *)loom_coll_shm_ctl(s, r) + sizeof(loom_coll_shm_ctl_t) +
           (size_t)(s->shm_seq & 1) * LOOM_COLL_SHM_MAX_BYTES;
}

static void loom_coll_shm_name(loom_coll_comm_t *cc, loom_comm_t comm)
{
    const loom_bootstrap_info_t *info = loom_bootstrap_info();
    const char *job = info && info->jobid ? info->jobid : "nojob";

    /* split gives every color the same context id: the creator's world rank
     * tells the colors' segments apart */
    snprintf(cc->name, sizeof(cc->name), "/loom-%s-coll-%u-%d", job, comm->context_id,
             loom_comm_to_world(comm, 0));
    for (char *c = cc->name + 1; *c; ++c) {
        if (*c == '/') {
            *c = '_';
        }
    }
}

/* Create (rank 0) or open (others) and map the segment. */
static loom_status_t loom_coll_shm_map(loom_coll_comm_t *cc, loom_comm_t comm, int create)
{
    int fd, flags = O_RDWR | (create ? O_CREAT | O_EXCL : 0);
    void *base;

    cc->size = LOOM_ALIGN_UP((size_t)comm->size * SHM_RANK_BYTES, (size_t)4096);
    fd = shm_open(cc->name, flags, 0600);
    if (fd < 0 && create && errno == EEXIST) {
        /* left over by a killed job with the same id: replace it */
        shm_unlink(cc->name);
        fd = shm_open(cc->name, flags, 0600);
    }
    if (fd < 0) {
        loom_error("coll", "%s: shm_open(%s) for the collective segment: %m",
                   comm->name, cc->name);
        return LOOM_ERR_IO;
    }
    if (create && ftruncate(fd, (off_t)cc->size) != 0) {
        loom_error("coll", "%s: ftruncate(%s, %zu): %m", comm->name, cc->name, cc->size);
        close(fd);
        shm_unlink(cc->name);
        return LOOM_ERR_IO;
    }
    base = mmap(NULL, cc->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        loom_error("coll", "%s: mmap of %zu bytes of %s: %m", comm->name, cc->size,
                   cc->name);
        if (create) {
            shm_unlink(cc->name);
        }
        return LOOM_ERR_IO;
    }
    cc->base = base;
    return LOOM_OK;
}

enum { SETUP_START = 0, SETUP_NOTIFY, SETUP_COLLECT, SETUP_OPEN, SETUP_ANSWER, SETUP_DONE };

/* One batch of 1-byte messages between rank 0 and ranks [s->peer, ...). */
static loom_status_t loom_coll_shm_batch(loom_coll_state_t *s, int send, uint8_t *bytes)
{
    loom_status_t st;

    while (s->nreq < LOOM_COLL_MAX_REQS && s->peer < s->size) {
        st = send ? loom_coll_send(s, &bytes[0], 1, s->peer)
                  : loom_coll_recv(s, &bytes[s->peer % LOOM_COLL_MAX_REQS], 1, s->peer);
        if (st != LOOM_OK) {
            return st;
        }
        ++s->peer;
    }
    return LOOM_OK;
}

/* The setup handshake; runs inside the first shm operation on a comm. */
static loom_status_t loom_coll_shm_setup(loom_coll_state_t *s, loom_coll_comm_t *cc)
{
    uint8_t *msg = s->inline_tmp; /* [0] what we send; [0..7] what we receive */
    loom_status_t st;

    for (;;) {
        switch (s->step) {
        case SETUP_START:
            loom_coll_shm_name(cc, s->comm);
            if (s->rank == 0) {
                msg[0] = loom_coll_shm_map(cc, s->comm, 1) == LOOM_OK;
                s->peer = 1;
                s->step = SETUP_NOTIFY;
            } else {
                if ((st = loom_coll_recv(s, &msg[8], 1, 0)) != LOOM_OK) {
                    return st;
                }
                s->step = SETUP_OPEN;
            }
            break;
        case SETUP_NOTIFY:   /* rank 0: "created" to every rank, in batches */
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            if (s->peer == s->size) {
                s->peer = 1;
                s->step = SETUP_COLLECT;
                break;
            }
            if ((st = loom_coll_shm_batch(s, 1, msg)) != LOOM_OK) {
                return st;
            }
            break;
        case SETUP_COLLECT:  /* rank 0: every rank's "mapped" */
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            for (int i = 0; i < LOOM_COLL_MAX_REQS; ++i) {
                msg[0] &= msg[8 + i] | (uint8_t)(s->peer <= 1);
            }
            if (s->peer == s->size) {
                s->step = SETUP_DONE;
                break;
            }
            memset(&msg[8], 1, LOOM_COLL_MAX_REQS);
            if ((st = loom_coll_shm_batch(s, 0, &msg[8])) != LOOM_OK) {
                return st;
            }
            break;
        case SETUP_OPEN:     /* rank q: map once rank 0 created */
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            msg[0] = msg[8] && loom_coll_shm_map(cc, s->comm, 0) == LOOM_OK;
            if ((st = loom_coll_send(s, &msg[0], 1, 0)) != LOOM_OK) {
                return st;
            }
            s->step = SETUP_ANSWER;
            break;
        case SETUP_ANSWER:
            if ((st = loom_coll_wait(s)) != LOOM_OK) {
                return st;
            }
            s->step = SETUP_DONE;
            break;
        case SETUP_DONE:
            if (s->rank == 0 && cc->base != NULL) {
                shm_unlink(cc->name);
            }
            if (!msg[0]) {
                cc->state = SHM_FAILED;
                loom_error("coll", "%s: the collective shared-memory segment %s could "
                           "not be set up on every rank", s->comm->name, cc->name);
                return LOOM_ERR_IO;
            }
            cc->state = SHM_READY;
            return LOOM_OK;
        }
        if (s->nreq > 0 && (st = loom_coll_wait(s)) != LOOM_OK) {
            return st;  /* in progress, or a failed message */
        }
    }
}

loom_status_t loom_coll_shm_enter(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc;
    loom_status_t st;

    if (s->shm == NULL) {            /* first call: take this operation's number */
        cc = loom_coll_comm_get(s->comm);
        if (cc == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        s->shm     = cc;
        s->shm_seq = ++cc->next_seq;
        s->step    = SETUP_START;
        s->peer    = 0;
    }
    cc = s->shm;
    if (cc->done_seq + 1 != s->shm_seq) {
        return LOOM_INPROGRESS;      /* an earlier shm operation is still running */
    }
    if (cc->state != SHM_READY) {
        if (cc->state == SHM_FAILED) {
            return LOOM_ERR_IO;
        }
        cc->state = SHM_SETUP;
        st = loom_coll_shm_setup(s, cc);
        if (st != LOOM_OK) {
            return st;
        }
        s->peer = 0;
    }
    return LOOM_OK;
}

void loom_coll_shm_leave(loom_coll_state_t *s)
{
    loom_coll_comm_t *cc = s->shm;
    cc->done_seq = s->shm_seq;
}

int loom_coll_shm_all_arrived(loom_coll_state_t *s)
{
    while (s->peer < s->size) {
        loom_coll_shm_ctl_t *c = loom_coll_shm_ctl(s, s->peer);
        if (atomic_load_explicit(&c->arrived, memory_order_acquire) < s->shm_seq) {
            return 0;
        }
        ++s->peer;
    }
    return 1;
}
