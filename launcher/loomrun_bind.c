/*
 * loomrun_bind.c: binding each local rank to its own core.
 *
 * A rank that the scheduler moves between cores loses its cache and, with
 * shared-memory rings, pays the move on every message; Open MPI binds for
 * the same reason. The plan is made per host, from what loomrun itself may
 * run on (its affinity mask, so `taskset`, cgroup cpusets and Slurm
 * allocations are respected):
 *
 *   allowed cpus --group by core (sysfs core_cpus_list)--> cores 0..C-1
 *   local rank i --> core i % C   (--bind-to core: every hwthread of it)
 *               --> cpu  i % N   (--bind-to hwthread)
 *
 * The default (auto) binds to cores when the host's ranks fit on its
 * cores, and leaves them unbound otherwise: oversubscribed ranks yield to
 * each other and need the scheduler free to place them. Binding is applied
 * in the child between fork and exec, so the program's first page touches
 * already happen on its core. A failed bind is reported and the rank runs
 * unbound: binding is an optimisation, not a condition for running.
 */
#include "loomrun_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const loomrun_bind_names[] = {
    [LOOMRUN_BIND_AUTO] = "auto", [LOOMRUN_BIND_NONE] = "none",
    [LOOMRUN_BIND_CORE] = "core", [LOOMRUN_BIND_HWTHREAD] = "hwthread",
};

int loomrun_bind_parse(const char *name)
{
    for (int i = 0; i < (int)(sizeof(loomrun_bind_names) / sizeof(loomrun_bind_names[0])); ++i) {
        if (strcmp(name, loomrun_bind_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

int loomrun_bind_allowed(cpu_set_t *set)
{
    long n;

    CPU_ZERO(set);
    if (sched_getaffinity(0, sizeof(*set), set) == 0 && CPU_COUNT(set) > 0) {
        return CPU_COUNT(set);
    }
    n = sysconf(_SC_NPROCESSORS_ONLN);
    n = n < 1 ? 1 : (n > CPU_SETSIZE ? CPU_SETSIZE : n);
    for (long c = 0; c < n; ++c) {
        CPU_SET((int)c, set);
    }
    return (int)n;
}

/* The hwthreads sharing cpu @p c's core, from sysfs; just @p c if unknown. */
static void loomrun_bind_siblings(int c, cpu_set_t *out)
{
    static const char *const files[] = { "core_cpus_list", "thread_siblings_list" };
    char path[128], line[1024];
    FILE *f = NULL;

    CPU_ZERO(out);
    for (size_t i = 0; f == NULL && i < sizeof(files) / sizeof(files[0]); ++i) {
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", c, files[i]);
        f = fopen(path, "r");
    }
    if (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        /* "0-1,4,6-7" */
        for (char *p = line; *p != '\0' && *p != '\n';) {
            char *end;
            long lo = strtol(p, &end, 10), hi = lo;
            if (end == p) {
                break;
            }
            if (*end == '-') {
                p = end + 1;
                hi = strtol(p, &end, 10);
            }
            for (long k = lo; k <= hi && k < CPU_SETSIZE && k >= 0; ++k) {
                CPU_SET((int)k, out);
            }
            p = *end == ',' ? end + 1 : end;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    if (!CPU_ISSET(c, out)) {
        CPU_ZERO(out);
        CPU_SET(c, out);
    }
}

/* The allowed cpus as binding units: cores (hwthread siblings together) or
 * single hwthreads. @return the number of units written to @p units. */
static int loomrun_bind_units(const cpu_set_t *allowed, int by_core, cpu_set_t *units)
{
    cpu_set_t taken;
    int n = 0;

    CPU_ZERO(&taken);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (!CPU_ISSET(c, allowed) || CPU_ISSET(c, &taken)) {
            continue;
        }
        if (by_core) {
            loomrun_bind_siblings(c, &units[n]);
            CPU_AND(&units[n], &units[n], allowed);
        } else {
            CPU_ZERO(&units[n]);
            CPU_SET(c, &units[n]);
        }
        CPU_OR(&taken, &taken, &units[n]);
        ++n;
    }
    return n;
}

int loomrun_bind_plan(loomrun_job_t *job)
{
    int n = job->my_node, here, mode = job->opts.bind, nunits, ncpus;
    cpu_set_t allowed, *units;

    free(job->bind_sets);
    job->bind_sets = NULL;
    if (n < 0 || mode == LOOMRUN_BIND_NONE) {
        return 0;
    }
    here  = job->map.count[n];
    ncpus = loomrun_bind_allowed(&allowed);
    units = calloc((size_t)ncpus, sizeof(*units));
    if (units == NULL) {
        goto err_nomem;
    }
    nunits = loomrun_bind_units(&allowed, mode != LOOMRUN_BIND_HWTHREAD, units);
    if (mode == LOOMRUN_BIND_AUTO && here > nunits) {
        free(units);    /* oversubscribed: leave placement to the scheduler */
        return 0;
    }
    if (here > nunits && !job->opts.quiet) {
        fprintf(stderr, "loomrun: note: --bind-to %s on %s: %d ranks on %d %s%s; "
                "ranks share them\n", loomrun_bind_names[mode], job->host, here, nunits,
                mode == LOOMRUN_BIND_HWTHREAD ? "hwthread" : "core", nunits == 1 ? "" : "s");
    }
    job->bind_sets = calloc((size_t)job->opts.nranks, sizeof(*job->bind_sets));
    if (job->bind_sets == NULL) {
        free(units);
        goto err_nomem;
    }
    for (int i = 0; i < here; ++i) {
        job->bind_sets[job->map.ranks[job->map.first[n] + i]] = units[i % nunits];
    }
    free(units);
    return 0;

err_nomem:
    fprintf(stderr, "loomrun: out of memory planning the binding of %d ranks on %s\n",
            job->map.count[n], job->host);
    return -1;
}

/* "0-3,6" for a report line. */
static void loomrun_bind_format(const cpu_set_t *set, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && len < cap; ++c) {
        int hi = c;
        if (!CPU_ISSET(c, set)) {
            continue;
        }
        while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set)) {
            ++hi;
        }
        len += (size_t)snprintf(buf + len, cap - len, hi == c ? "%s%d" : "%s%d-%d",
                                len ? "," : "", c, hi);
        c = hi;
    }
}

void loomrun_bind_report(const loomrun_job_t *job, int r)
{
    char cpus[256];

    if (!job->opts.report_bindings) {
        return;
    }
    if (job->bind_sets == NULL) {
        fprintf(stderr, "loomrun: rank %d on %s: not bound\n", r, job->host);
        return;
    }
    loomrun_bind_format(&job->bind_sets[r], cpus, sizeof(cpus));
    fprintf(stderr, "loomrun: rank %d on %s bound to cpu%s %s\n", r, job->host,
            CPU_COUNT(&job->bind_sets[r]) == 1 ? "" : "s", cpus);
}
