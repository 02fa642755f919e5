/*
 * loomrun_route.c: what the head routes between the nodes' PMIx servers.
 *
 * Fences: every node taking part hands its server's contribution up (the
 * head's own through the event pipe, the daemons' as FENCE frames), keyed
 * by an id naming the participating procs, which is the same string on
 * every node. When all have arrived, the contributions are concatenated in
 * node order (what a PMIx server expects from its host: the blobs of all
 * servers, one after another) and the result goes back to each.
 *
 * Direct modex: a server asks its host for the data of a proc on another
 * node; the request (origin node, the origin's request number, rank) goes
 * to the proc's node, whose server answers once the proc has committed;
 * the answer goes back to the origin. A request for a node whose daemon
 * has not called back yet waits for it.
 */
#include "loomrun_head.h"

#include <stdlib.h>
#include <string.h>

/* ---- fences and direct modex ------------------------------------------------------ */

static void loomrun_fence_free(loomrun_fence_t *f, int nnodes)
{
    for (int n = 0; f->blobs != NULL && n < nnodes; ++n) {
        loomrun_buf_free(&f->blobs[n]);
    }
    free(f->blobs);
    free(f->arrived);
    free(f->id);
    free(f);
}

/* Everyone is in: concatenate in node order and answer every node. */
static void loomrun_head_fence_complete(loomrun_loop_t *lp, loomrun_fence_t *f)
{
    loomrun_head_t *h = lp->head;
    int nnodes = lp->job->map.nnodes, status = PMIX_SUCCESS;
    loomrun_buf_t all = { 0 };
    size_t total = 0;

    for (int n = 0; n < nnodes; ++n) {
        total += f->blobs[n].len;
    }
    if (total > 0 && (all.p = malloc(total)) == NULL) {
        status = PMIX_ERR_NOMEM;
    }
    for (int n = 0; all.p != NULL && n < nnodes; ++n) {
        if (f->blobs[n].len > 0) {
            memcpy(all.p + all.len, f->blobs[n].p, f->blobs[n].len);
        }
        all.len += f->blobs[n].len;
    }
    for (int n = 0; n < nnodes; ++n) {
        if (f->arrived[n] && n != lp->job->my_node && h->nodes[n].conn.fd >= 0) {
            loomrun_conn_send(&h->nodes[n].conn, LOOMRUN_CTL_FENCE_DONE, status, f->id,
                              (const void *)all.p, all.len);
        }
    }
    if (f->local != NULL) {
        loomrun_pmix_fence_done(f->local, status, all.p, all.len);
        f->local = NULL;
    }
    loomrun_buf_free(&all);
}

/* Node @p n contributes to fence @p id (taking part: @p nnodes nodes). */
void loomrun_head_fence_add(loomrun_loop_t *lp, int n, const char *id, int nnodes,
                            const void *data, size_t len, loomrun_coll_t *local)
{
    loomrun_head_t *h = lp->head;
    int total = lp->job->map.nnodes;
    loomrun_fence_t *f, **pp;

    for (pp = &h->fences; *pp != NULL && strcmp((*pp)->id, id) != 0; pp = &(*pp)->next) {
    }
    if ((f = *pp) == NULL) {
        f = calloc(1, sizeof(*f));
        if (f == NULL || (f->id = strdup(id)) == NULL ||
            (f->arrived = calloc((size_t)total, 1)) == NULL ||
            (f->blobs = calloc((size_t)total, sizeof(*f->blobs))) == NULL) {
            loomrun_fail(lp, 1, "out of memory gathering fence %s", id);
            if (f != NULL) {
                loomrun_fence_free(f, total);
            }
            loomrun_coll_free(local);
            return;
        }
        f->nexpected = nnodes < 1 || nnodes > total ? total : nnodes;
        *pp = f;
    }
    if (f->arrived[n]) {
        loomrun_fail(lp, 1, "host %s contributed twice to fence %s", lp->job->map.names[n], id);
        loomrun_coll_free(local);
        return;
    }
    f->arrived[n] = 1;
    f->local = local ? local : f->local;
    if (len > 0 && (f->blobs[n].p = malloc(len)) != NULL) {
        memcpy(f->blobs[n].p, data, len);
        f->blobs[n].len = len;
    }
    if (++f->narrived == f->nexpected) {
        *pp = f->next;
        loomrun_head_fence_complete(lp, f);
        loomrun_fence_free(f, total);
    }
}

/* Send (or keep for later) a request to the node of its rank. */
void loomrun_head_dmdx_route(loomrun_loop_t *lp, loomrun_dmdx_t *d)
{
    loomrun_head_t *h = lp->head;
    int target = lp->job->map.node_of[d->rank];

    if (target == lp->job->my_node) {
        if (loomrun_pmix_dmodex_serve(lp->job, d) == 0) {
            return;
        }
        loomrun_conn_send(&h->nodes[d->origin].conn, LOOMRUN_CTL_DMDX_RESP, d->origin, d->id,
                          d->status, (const void *)NULL, (size_t)0);
        free(d);
        return;
    }
    if (h->nodes[target].conn.fd >= 0) {
        loomrun_conn_send(&h->nodes[target].conn, LOOMRUN_CTL_DMDX_REQ, d->origin, d->id,
                          d->rank);
        d->sent = 1;
    }
    if (d->origin == lp->job->my_node || !d->sent) {
        d->next = h->reqs;   /* ours, or waiting for its target to call back */
        h->reqs = d;
    } else {
        free(d);
    }
}

/* An answer for request @p id of node @p origin. */
void loomrun_head_dmdx_answer(loomrun_loop_t *lp, int origin, uint32_t id, int status,
                              const void *data, size_t len)
{
    loomrun_head_t *h = lp->head;

    if (origin != lp->job->my_node) {
        if (h->nodes[origin].conn.fd >= 0) {
            loomrun_conn_send(&h->nodes[origin].conn, LOOMRUN_CTL_DMDX_RESP, origin, id,
                              status, data, len);
        }
        return;
    }
    for (loomrun_dmdx_t **pp = &h->reqs; *pp != NULL; pp = &(*pp)->next) {
        loomrun_dmdx_t *d = *pp;
        if (d->origin == origin && d->id == id) {
            *pp = d->next;
            loomrun_pmix_dmodex_done(d, status, data, len);
            return;
        }
    }
}

void loomrun_head_event(loomrun_loop_t *lp, const loomrun_event_t *ev)
{
    loomrun_head_t *h = lp->head;

    if (ev->type == LOOMRUN_EVENT_FENCE) {
        loomrun_coll_t *c = ev->ptr;
        loomrun_head_fence_add(lp, lp->job->my_node, c->id, c->nnodes, c->data, c->ndata, c);
    } else if (ev->type == LOOMRUN_EVENT_DMODEX) {
        loomrun_dmdx_t *d = ev->ptr;
        d->id = ++h->next_req;
        loomrun_head_dmdx_route(lp, d);
    } else if (ev->type == LOOMRUN_EVENT_DMODEX_DONE) {
        loomrun_dmdx_t *d = ev->ptr;
        loomrun_head_dmdx_answer(lp, d->origin, d->id, d->status, d->data, d->ndata);
        free(d->data);
        free(d);
    }
}

/* Node @p n called back: send what waited for it. */
void loomrun_head_flush_reqs(loomrun_loop_t *lp, int n)
{
    loomrun_head_t *h = lp->head;

    for (loomrun_dmdx_t **pp = &h->reqs; *pp != NULL;) {
        loomrun_dmdx_t *d = *pp;
        if (d->sent || lp->job->map.node_of[d->rank] != n) {
            pp = &d->next;
            continue;
        }
        loomrun_conn_send(&h->nodes[n].conn, LOOMRUN_CTL_DMDX_REQ, d->origin, d->id, d->rank);
        d->sent = 1;
        if (d->origin != lp->job->my_node) {
            *pp = d->next;
            free(d);
        } else {
            pp = &d->next;
        }
    }
}

/* The job is over: what never completed goes (its PMIx callers are gone). */
void loomrun_head_free_routes(loomrun_head_t *h, int nnodes)
{
    while (h->fences != NULL) {
        loomrun_fence_t *f = h->fences;
        h->fences = f->next;
        loomrun_coll_free(f->local);
        loomrun_fence_free(f, nnodes);
    }
    while (h->reqs != NULL) {
        loomrun_dmdx_t *d = h->reqs;
        h->reqs = d->next;
        free(d->data);
        free(d);
    }
}
