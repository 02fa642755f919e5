/*
 * coll_comm.c: the collectives' state of a communicator (coll_comm_int.h),
 * made at its first collective: whether every rank is on this node (the
 * on-node algorithms' eligibility), whether ranks outnumber cores, and the
 * segment, CMA verdict and records the other files keep in it. At the
 * bottom of the collectives' stack: the mismatch check, the segment's
 * set-up and the selection all read it, and it calls none of them.
 */
#include "coll_comm_int.h"
#include "bootstrap_int.h"
#include "p2p_config_int.h"
#include "p2p_int.h"

#include <stdlib.h>
#include <sys/mman.h>

static void loom_coll_comm_free(loom_comm_t comm)
{
    loom_coll_comm_t *cc = comm->coll_priv;

    if (cc == NULL) {
        return;
    }
    if (cc->base != NULL) {
        munmap(cc->base, cc->size);
    }
    free(cc->cma_tmp);
    free(cc);
    comm->coll_priv = NULL;
}

/*
 * May the on-node algorithms use a shared segment? Only when LOOM_TRANSPORTS
 * is unset or lists shm: a user who keeps the job off shared memory (to
 * test tcp, or because /dev/shm is unusable) keeps its collectives off it
 * too.
 */
static int loom_coll_shm_allowed(void)
{
    return loom_p2p_transport_allowed("shm");
}

loom_coll_comm_t *loom_coll_comm_get(loom_comm_t comm)
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
    cc->oversub = loom_progress_oversubscribed();
    info = loom_bootstrap_info();
    cc->eligible = info != NULL && info->node_of_rank != NULL && comm->size > 1 &&
                   loom_coll_shm_allowed();
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
    return cc != NULL && cc->eligible && cc->state != LOOM_COLL_SHM_FAILED;
}

int loom_coll_comm_one_node(loom_comm_t comm)
{
    loom_coll_comm_t *cc = loom_coll_comm_get(comm);
    return cc != NULL && cc->eligible;
}
