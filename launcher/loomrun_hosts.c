/*
 * loomrun_hosts.c: host lists (--host, --hostfile) and rank placement.
 *
 * Pure functions of their arguments (and of this host's name for
 * loomrun_hosts_is_local), so the launcher suite checks them without
 * starting anything.
 *
 * Syntax, as in Open MPI: --host "a:2,b:2" (a host without ":N" has one
 * slot); a hostfile has one host per line, "name [slots=N] [max_slots=M]"
 * (max_slots is accepted and ignored), "name:N" also works, '#' starts a
 * comment. A host given twice gets the sum of its slots.
 *
 * Placement: by slot (default) fills the first host's slots with ranks
 * 0, 1, ..., then the next host; by node deals ranks round robin over the
 * hosts that still have a free slot. With --oversubscribe the ranks beyond
 * the slots are dealt round robin over all hosts; without it they are an
 * error. Nodes of the job are the hosts that got a rank, in list order.
 */
#include "loomrun_int.h"
#include "compiler_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOMRUN_MAX_SLOTS 65536

static int loomrun_host_name_ok(const char *name, size_t len)
{
    if (len == 0 || len > 255) {
        return 0;
    }
    for (size_t i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)name[i];
        if (!(isalnum(c) || c == '-' || c == '.' || c == '_')) {
            return 0;
        }
    }
    return 1;
}

/* Add @p slots to host @p name (len bytes), creating it if new. */
static int loomrun_hosts_add(loomrun_opts_t *o, const char *name, size_t len, long slots,
                             char *why, size_t wlen)
{
    loomrun_host_t *grown;

    if (!loomrun_host_name_ok(name, len)) {
        snprintf(why, wlen, "'%.*s' is not a host name (letters, digits, '-', '.', '_')",
                 (int)LOOM_MIN(len, 300), name);
        return -1;
    }
    if (slots < 1 || slots > LOOMRUN_MAX_SLOTS) {
        snprintf(why, wlen, "host %.*s: slots must be 1..%d, not %ld", (int)len, name,
                 LOOMRUN_MAX_SLOTS, slots);
        return -1;
    }
    for (int i = 0; i < o->nhosts; ++i) {
        if (strlen(o->hosts[i].name) == len && strncmp(o->hosts[i].name, name, len) == 0) {
            o->hosts[i].slots = (int)LOOM_MIN(o->hosts[i].slots + slots, LOOMRUN_MAX_SLOTS);
            return 0;
        }
    }
    if (o->nhosts == LOOMRUN_MAX_NODES) {
        snprintf(why, wlen, "more than %d hosts", LOOMRUN_MAX_NODES);
        return -1;
    }
    grown = realloc(o->hosts, (size_t)(o->nhosts + 1) * sizeof(*grown));
    if (grown == NULL || (grown[o->nhosts].name = strndup(name, len)) == NULL) {
        o->hosts = grown ? grown : o->hosts;
        snprintf(why, wlen, "out of memory");
        return -1;
    }
    grown[o->nhosts++].slots = (int)slots;
    o->hosts = grown;
    return 0;
}

static int loomrun_parse_slots(const char *s, size_t len, long *slots_p)
{
    char buf[16], *end;

    if (len == 0 || len >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    *slots_p = strtol(buf, &end, 10);
    return (errno != 0 || *end != '\0') ? -1 : 0;
}

int loomrun_hosts_parse_list(loomrun_opts_t *o, const char *list, char *why, size_t wlen)
{
    const char *p = list;

    if (*p == '\0') {
        snprintf(why, wlen, "empty host list");
        return -1;
    }
    while (*p != '\0') {
        size_t len = strcspn(p, ","), nlen = strcspn(p, ",:");
        long slots = 1;

        if (nlen < len && loomrun_parse_slots(p + nlen + 1, len - nlen - 1, &slots) != 0) {
            snprintf(why, wlen, "'%.*s': the slots after ':' must be a number",
                     (int)LOOM_MIN(len, 300), p);
            return -1;
        }
        if (loomrun_hosts_add(o, p, nlen, slots, why, wlen) != 0) {
            return -1;
        }
        p += len;
        if (*p == ',') {
            ++p;
            if (*p == '\0') {
                snprintf(why, wlen, "host list ends with ','");
                return -1;
            }
        }
    }
    return 0;
}

/* One hostfile line (comment already cut); blank lines are fine. */
static int loomrun_hosts_file_line(loomrun_opts_t *o, char *line, char *why, size_t wlen)
{
    char *save = NULL, *word = strtok_r(line, " \t\r\n", &save), *colon;
    long slots = 1;

    if (word == NULL) {
        return 0;
    }
    colon = strchr(word, ':');
    if (colon != NULL && loomrun_parse_slots(colon + 1, strlen(colon + 1), &slots) != 0) {
        snprintf(why, wlen, "'%s': the slots after ':' must be a number", word);
        return -1;
    }
    for (char *kv; (kv = strtok_r(NULL, " \t\r\n", &save)) != NULL;) {
        if (strncmp(kv, "slots=", 6) == 0) {
            if (loomrun_parse_slots(kv + 6, strlen(kv + 6), &slots) != 0) {
                snprintf(why, wlen, "'%s': slots= needs a number", kv);
                return -1;
            }
        } else if (strncmp(kv, "max_slots=", 10) != 0 && strncmp(kv, "max-slots=", 10) != 0) {
            snprintf(why, wlen, "unknown attribute '%s' (slots=N is understood)", kv);
            return -1;
        }
    }
    return loomrun_hosts_add(o, word, colon ? (size_t)(colon - word) : strlen(word), slots,
                             why, wlen);
}

int loomrun_hosts_parse_file(loomrun_opts_t *o, const char *path, char *why, size_t wlen)
{
    FILE *f = fopen(path, "r");
    char line[1024], msg[512];
    int lineno = 0, before = o->nhosts;

    if (f == NULL) {
        snprintf(why, wlen, "cannot read hostfile %s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        ++lineno;
        line[strcspn(line, "#")] = '\0';
        if (loomrun_hosts_file_line(o, line, msg, sizeof(msg)) != 0) {
            snprintf(why, wlen, "%s:%d: %s", path, lineno, msg);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    if (o->nhosts == before) {
        snprintf(why, wlen, "hostfile %s names no host", path);
        return -1;
    }
    return 0;
}

/* ---- placement --------------------------------------------------------------- */

void loomrun_map_free(loomrun_map_t *map)
{
    if (map->names != NULL) {
        for (int n = 0; n < map->nnodes; ++n) {
            free(map->names[n]);
        }
    }
    free(map->names);
    free(map->node_of);
    free(map->first);
    free(map->count);
    free(map->ranks);
    memset(map, 0, sizeof(*map));
}

/* Host of every rank into @p host_of; -1 when the slots do not suffice. */
static int loomrun_map_assign(const loomrun_host_t *hosts, int nhosts, int nranks,
                              int map_by, int oversubscribe, int *host_of)
{
    int *used = calloc((size_t)nhosts, sizeof(int));
    int r = 0, h = 0;

    if (used == NULL) {
        return -1;
    }
    if (map_by == LOOMRUN_MAP_SLOT) {
        for (h = 0; h < nhosts && r < nranks; ++h) {
            for (; used[h] < hosts[h].slots && r < nranks; ++used[h]) {
                host_of[r++] = h;
            }
        }
    } else {
        for (int placed = 1; placed && r < nranks;) {
            placed = 0;
            for (h = 0; h < nhosts && r < nranks; ++h) {
                if (used[h] < hosts[h].slots) {
                    ++used[h];
                    host_of[r++] = h;
                    placed = 1;
                }
            }
        }
    }
    for (h = 0; oversubscribe && r < nranks; h = (h + 1) % nhosts) {
        host_of[r++] = h;
    }
    free(used);
    return r == nranks ? 0 : -1;
}

/* Group the ranks by node (nodes = hosts with a rank, in list order). */
static int loomrun_map_group(const loomrun_host_t *hosts, int nhosts, int nranks,
                             const int *host_of, loomrun_map_t *map)
{
    int *node_of_host = malloc((size_t)nhosts * sizeof(int)), k = 0;

    map->names   = calloc((size_t)nhosts, sizeof(char *));
    map->first   = calloc((size_t)nhosts, sizeof(int));
    map->count   = calloc((size_t)nhosts, sizeof(int));
    map->node_of = malloc((size_t)nranks * sizeof(int));
    map->ranks   = malloc((size_t)nranks * sizeof(int));
    if (node_of_host == NULL || map->names == NULL || map->first == NULL ||
        map->count == NULL || map->node_of == NULL || map->ranks == NULL) {
        free(node_of_host);
        return -1;
    }
    for (int h = 0; h < nhosts; ++h) {
        node_of_host[h] = -1;
    }
    for (int r = 0; r < nranks; ++r) {
        int h = host_of[r];
        if (node_of_host[h] < 0) {
            node_of_host[h] = map->nnodes;
            map->names[map->nnodes] = strdup(hosts[h].name);
            if (map->names[map->nnodes++] == NULL) {
                free(node_of_host);
                return -1;
            }
        }
        map->node_of[r] = node_of_host[h];
        ++map->count[map->node_of[r]];
    }
    for (int n = 0; n < map->nnodes; ++n) {
        map->first[n] = k;
        k += map->count[n];
        map->count[n] = 0;
    }
    for (int r = 0; r < nranks; ++r) {
        int n = map->node_of[r];
        map->ranks[map->first[n] + map->count[n]++] = r;
    }
    free(node_of_host);
    return 0;
}

int loomrun_map_build(const loomrun_host_t *hosts, int nhosts, int nranks, int map_by,
                      int oversubscribe, loomrun_map_t *map, char *why, size_t wlen)
{
    int *host_of = malloc((size_t)nranks * sizeof(int));
    long slots = 0;
    int rc = -1;

    memset(map, 0, sizeof(*map));
    for (int h = 0; h < nhosts; ++h) {
        slots += hosts[h].slots;
    }
    if (host_of == NULL) {
        snprintf(why, wlen, "out of memory");
    } else if (nhosts < 1) {
        snprintf(why, wlen, "no host to run on");
    } else if (loomrun_map_assign(hosts, nhosts, nranks, map_by, oversubscribe, host_of) != 0) {
        snprintf(why, wlen, "%d ranks do not fit the %ld slots of %d host(s) "
                 "(give more slots, or --oversubscribe)", nranks, slots, nhosts);
    } else if (loomrun_map_group(hosts, nhosts, nranks, host_of, map) != 0) {
        snprintf(why, wlen, "out of memory");
    } else {
        rc = 0;
    }
    free(host_of);
    if (rc != 0) {
        loomrun_map_free(map);
    }
    return rc;
}

int loomrun_map_single(const char *host, int nranks, loomrun_map_t *map)
{
    loomrun_host_t h = { .name = (char *)(uintptr_t)host, .slots = nranks };
    char why[64];

    return loomrun_map_build(&h, 1, nranks, LOOMRUN_MAP_SLOT, 1, map, why, sizeof(why));
}

int loomrun_hosts_is_local(const char *name, const char *override)
{
    char me[256] = "";
    size_t short_len;

    if (override != NULL) {
        return strcmp(name, override) == 0;
    }
    if (strcmp(name, "localhost") == 0) {
        return 1;
    }
    if (gethostname(me, sizeof(me) - 1) != 0) {
        return 0;
    }
    if (strcmp(name, me) == 0) {
        return 1;
    }
    /* "node1" names "node1.cluster" and the other way round */
    short_len = strcspn(me, ".");
    if (strcspn(name, ".") == short_len && strncmp(name, me, short_len) == 0 &&
        (name[short_len] == '\0' || me[short_len] == '\0')) {
        return 1;
    }
    return 0;
}

int loomrun_map_from(char *const *names, int nnodes, const int *node_of, int nranks,
                     loomrun_map_t *map)
{
    loomrun_host_t *hosts = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof(*hosts));
    int rc = -1;

    memset(map, 0, sizeof(*map));
    if (hosts == NULL || nnodes < 1) {
        free(hosts);
        return -1;
    }
    for (int n = 0; n < nnodes; ++n) {
        hosts[n].name  = names[n];
        hosts[n].slots = 1;
    }
    for (int r = 0; r < nranks; ++r) {
        if (node_of[r] < 0 || node_of[r] >= nnodes) {
            goto out_free;
        }
    }
    /* every node must get a rank, or the indices would shift */
    rc = loomrun_map_group(hosts, nnodes, nranks, node_of, map);
    if (rc == 0 && map->nnodes != nnodes) {
        rc = -1;
    }
    for (int n = 0; rc == 0 && n < nnodes; ++n) {
        rc = strcmp(map->names[n], names[n]) == 0 ? 0 : -1;   /* same order */
    }
    if (rc != 0) {
        loomrun_map_free(map);
    }
out_free:
    free(hosts);
    return rc;
}
