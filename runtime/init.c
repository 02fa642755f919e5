/*
 * init.c: loom_init and loom_finalize, the one place that sees every layer
 * it starts.
 *
 * init: configuration (every component's table: runtime_config.c) -> the
 * engine's policy and hang-report signal (p2p) -> bootstrap, PMIx (base)
 * -> the point-to-point engine with its transports (p2p_setup.c) -> the
 * collectives' configuration and selection.
 * Each step undoes the ones before it when a later one fails.
 *
 * finalize: finish every send and exchange BYE with every rank (so nothing
 * is in flight), one last fence, then stop the engine, free the user ops,
 * leave the bootstrap.
 */
#include "p2p_setup_int.h"
#include "runtime_config_int.h"
#include "coll_select.h"
#include "op_int.h"
#include "mt_int.h"
#include "log_int.h"

loom_status_t loom_init(int *argc_p, char ***argv_p)
{
    LOOM_MT_GUARD();
    const loom_bootstrap_info_t *job;
    loom_status_t st;

    (void)argc_p;
    (void)argv_p;
    st = loom_p2p_check_state("loom_init", 0);
    if (st == LOOM_OK) {
        st = loom_runtime_config_load();
    }
    if (st == LOOM_OK) {
        st = loom_p2p_configure();
        if (st != LOOM_OK) {
            loom_runtime_config_unload();
        }
    }
    if (st != LOOM_OK) {
        return st;
    }
    st = loom_bootstrap_init(&job);
    if (st != LOOM_OK) {
        goto err_signal;
    }
    st = loom_p2p_start(job);
    if (st != LOOM_OK) {
        goto err_bootstrap;
    }
    st = loom_coll_init();
    if (st != LOOM_OK) {
        goto err_p2p;
    }
    return LOOM_OK;

err_p2p:
    loom_p2p_stop(0);
err_bootstrap:
    loom_bootstrap_finalize();
err_signal:
    loom_p2p_unconfigure();
    loom_runtime_config_unload();   /* a retry reads the environment again */
    return st;
}

loom_status_t loom_finalize(void)
{
    LOOM_MT_GUARD();
    loom_status_t st = loom_p2p_check_state("loom_finalize", 1);

    if (st != LOOM_OK) {
        return st;
    }
    st = loom_p2p_drain();
    if (st == LOOM_OK) {
        st = loom_bootstrap_fence();
    }
    loom_p2p_stop(1);
    loom_op_cleanup();
    loom_bootstrap_finalize();
    loom_p2p_unconfigure();
    return st;
}

/* the granted level: FUNNELED unless loom_init_thread asked for another */
static int loom_thread_level = LOOM_THREAD_FUNNELED;

loom_status_t loom_init_thread(int *argc_p, char ***argv_p, int required, int *provided_p)
{
    LOOM_MT_GUARD();
    loom_status_t st;

    if (provided_p == NULL) {
        loom_error("runtime", "loom_init_thread: provided_p is NULL");
        return LOOM_ERR_INVALID_ARG;
    }
    if (required < LOOM_THREAD_SINGLE || required > LOOM_THREAD_MULTIPLE) {
        loom_error("runtime", "loom_init_thread: thread level %d is not one of "
                   "LOOM_THREAD_SINGLE (0) .. LOOM_THREAD_MULTIPLE (3)", required);
        return LOOM_ERR_INVALID_ARG;
    }
    st = loom_init(argc_p, argv_p);
    if (st != LOOM_OK) {
        return st;
    }
    loom_thread_level = required;
    if (required == LOOM_THREAD_MULTIPLE) {
        loom_mt_enable();   /* no other thread calls before we return */
    }
    *provided_p = required;
    return LOOM_OK;
}

int loom_query_thread(void)
{
    LOOM_MT_GUARD();
    return loom_thread_level;
}

int loom_initialized(void)
{
    LOOM_MT_GUARD();
    return loom_p2p_started();
}

int loom_finalized(void)
{
    LOOM_MT_GUARD();
    return loom_p2p_stopped();
}
