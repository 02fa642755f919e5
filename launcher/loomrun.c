/*
 * loomrun.c: start a loom job on this host or on several.
 *
 *     loomrun -n N [options] prog [args]
 *     loomrun --host a:2,b:2 [options] prog [args]
 *
 * Hosts a PMIx server (loomrun_pmix.c) for the ranks of this host, forks
 * them (loomrun_proc.c) and runs one event loop (loomrun_loop.c) until
 * every rank is gone. With --host or --hostfile, the ranks are placed on
 * the hosts (loomrun_hosts.c) and this loomrun is the head: it starts a
 * daemon on every other host (loomrun_head.c, loomrun_daemon.c) and routes
 * their fences, direct modex requests, output and exits.
 *
 * PMIx_server_finalize runs only after a clean job; the private tmpdir and
 * the job's /dev/shm segments are removed on every way out, by the head and
 * by every daemon; if one of them is killed outright, by its cleanup
 * guardian (loomrun_guard.c).
 */
#include "loomrun_int.h"

#include <loom.h>
#include "compiler_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOOMRUN_EXIT_USAGE    2
#define LOOMRUN_EXIT_NOTFOUND 127
#define LOOMRUN_EXIT_TIMEOUT  124

/* ---- options ---------------------------------------------------------------- */

static void loomrun_usage(FILE *out)
{
    fprintf(out,
"usage: loomrun -n N [options] prog [args...]\n"
"       loomrun --host a:2,b:2 [-n N] [options] prog [args...]\n"
"Start N ranks of prog on this host, or on the hosts given, hosting the PMIx\n"
"server they connect to.\n"
"\n"
"  -n, -np N          number of ranks (1..%d; default with hosts: every slot)\n"
"  -x VAR[=value]     export VAR (with this value, or loomrun's own) to every rank\n"
"      --tag-output   prefix every output line with \"[rank] \"\n"
"      --timeout S    stop the job after S seconds (exit status %d); first ask the\n"
"                     ranks where they are blocked (SIGUSR1) and print a summary\n"
"      --report-raw   also print the ranks' own \"loom-report\" lines (hang reports)\n"
"      --bind-to core|hwthread|none  bind each rank to its own core (the default\n"
"                     when a host's ranks fit on its cores; unbound otherwise)\n"
"      --report-bindings  print where each rank is bound\n"
"  -q, --quiet        no notices from loomrun (failures are still reported)\n"
"  -h, --help         this help\n"
"  -V, --version      loomrun's version\n"
"\n"
"Several hosts:\n"
"  -H, --host LIST    hosts and slots: a:2,b:2 (a host without :N has 1 slot)\n"
"      --hostfile F   one host per line: \"name slots=N\" (Open MPI syntax)\n"
"      --map-by slot|node  fill each host's slots in turn (default), or deal\n"
"                     ranks round robin over the hosts\n"
"      --oversubscribe     place more ranks than slots\n"
"      --launch-agent CMD  how to start loomrun on another host (default\n"
"                     \"ssh -x -o BatchMode=yes\"): CMD HOST loomrun --daemon ...\n"
"      --hostname NAME     the name of this host in the host list\n"
"      --launch-timeout S  seconds a daemon may take to call back (default 60)\n"
"\n"
"stdin goes to rank 0; stdout and stderr of every rank come back line by line.\n"
"Exit status: 0 when every rank exits 0; otherwise the status of the rank that\n"
"failed first in cause (not a rank that failed because a peer did): 128+signal\n"
"if it was killed, its code modulo 256 if it aborted (1 if that is 0), 1 if it\n"
"exited without finalizing; 128+signal if loomrun was interrupted, %d on timeout,\n"
"%d for usage errors, 127 if the program is not found, 1 if a host could\n"
"not be reached or its daemon was lost.\n"
"On the first failure the job is torn down: SIGTERM, then SIGKILL 2 s later.\n"
"Ranks get LOOM_OVERSUBSCRIBED=1 when they outnumber their host's cores.\n",
            LOOMRUN_MAX_RANKS, LOOMRUN_EXIT_TIMEOUT, LOOMRUN_EXIT_TIMEOUT,
            LOOMRUN_EXIT_USAGE);
}

static int loomrun_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int loomrun_usage_error(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "loomrun: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(loomrun --help shows the options)\n");
    return LOOMRUN_EXIT_USAGE;
}

/* The value of option argv[*i] (inline "--opt=v" or the next word). */
static const char *loomrun_optval(int argc, char **argv, int *i, const char *inline_val)
{
    if (inline_val != NULL) {
        return inline_val;
    }
    if (*i + 1 >= argc) {
        return NULL;
    }
    return argv[++*i];
}

static int loomrun_parse_count(const char *v, int *n_p)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < 1 || n > LOOMRUN_MAX_RANKS) {
        return -1;
    }
    *n_p = (int)n;
    return 0;
}

static int loomrun_valid_export(const char *x)
{
    size_t len = strcspn(x, "=");

    if (len == 0 || !(x[0] == '_' || (x[0] >= 'A' && x[0] <= 'Z') ||
                      (x[0] >= 'a' && x[0] <= 'z'))) {
        return 0;
    }
    for (size_t i = 1; i < len; ++i) {
        char c = x[i];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9'))) {
            return 0;
        }
    }
    return 1;
}

/* The multi-host options; -1 to go on, or an exit status. */
static int loomrun_parse_multi(loomrun_opts_t *o, const char *name, int argc, char **argv,
                               int *i, const char *eq)
{
    const char *v = NULL;
    char why[512];

    if (strcmp(name, "--oversubscribe") == 0) {
        o->oversubscribe = 1;
        return -1;
    }
    if (strcmp(name, "-H") && strcmp(name, "--host") && strcmp(name, "--hostfile") &&
        strcmp(name, "--machinefile") && strcmp(name, "--map-by") &&
        strcmp(name, "--launch-agent") && strcmp(name, "--hostname") &&
        strcmp(name, "--launch-timeout")) {
        return loomrun_usage_error("unknown option '%s'", argv[*i]);
    }
    v = loomrun_optval(argc, argv, i, eq);
    if (v == NULL) {
        return loomrun_usage_error("%s needs a value", name);
    }
    if (!strcmp(name, "-H") || !strcmp(name, "--host")) {
        if (loomrun_hosts_parse_list(o, v, why, sizeof(why)) != 0) {
            return loomrun_usage_error("--host %s: %s", v, why);
        }
    } else if (!strcmp(name, "--hostfile") || !strcmp(name, "--machinefile")) {
        if (loomrun_hosts_parse_file(o, v, why, sizeof(why)) != 0) {
            return loomrun_usage_error("--hostfile: %s", why);
        }
    } else if (!strcmp(name, "--map-by")) {
        if (strcmp(v, "slot") && strcmp(v, "node")) {
            return loomrun_usage_error("--map-by takes slot or node, not '%s'", v);
        }
        o->map_by = strcmp(v, "node") == 0 ? LOOMRUN_MAP_NODE : LOOMRUN_MAP_SLOT;
    } else if (!strcmp(name, "--launch-agent")) {
        if (strspn(v, " \t") == strlen(v)) {
            return loomrun_usage_error("--launch-agent needs a command");
        }
        o->launch_agent = v;
    } else if (!strcmp(name, "--hostname")) {
        o->hostname = v;
    } else {
        char *end;
        o->launch_timeout = strtod(v, &end);
        if (end == v || *end != '\0' || !(o->launch_timeout > 0) ||
            !isfinite(o->launch_timeout)) {
            return loomrun_usage_error("--launch-timeout needs a positive number of "
                                       "seconds, not '%s'", v);
        }
    }
    return -1;
}

/* One option at argv[*i]; returns -1 to go on, or an exit status. */
static int loomrun_parse_one(loomrun_opts_t *o, int argc, char **argv, int *i)
{
    char *arg = argv[*i], *eq = NULL, name[64];
    const char *v;

    snprintf(name, sizeof(name), "%s", arg);
    if (strncmp(arg, "--", 2) == 0 && (eq = strchr(arg, '=')) != NULL) {
        name[LOOM_MIN((size_t)(eq - arg), sizeof(name) - 1)] = '\0';
        ++eq;
    }
    if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
        loomrun_usage(stdout);
        return 0;
    }
    if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
        printf("loomrun (loom) %s\n", LOOM_VERSION_STRING);
        return 0;
    }
    if (!strcmp(name, "--tag-output")) {
        o->tag_output = 1;
    } else if (!strcmp(name, "--report-raw")) {
        o->report_raw = 1;
    } else if (!strcmp(name, "--report-bindings")) {
        o->report_bindings = 1;
    } else if (!strcmp(name, "--bind-to")) {
        v = loomrun_optval(argc, argv, i, eq);
        if (v == NULL || (o->bind = loomrun_bind_parse(v)) < 0) {
            return loomrun_usage_error("--bind-to takes core, hwthread or none, not '%s'",
                                       v ? v : "");
        }
    } else if (!strcmp(name, "-q") || !strcmp(name, "--quiet")) {
        o->quiet = 1;
    } else if (!strcmp(name, "-n") || !strcmp(name, "-np") || !strcmp(name, "--np") ||
               !strcmp(name, "--n")) {
        v = loomrun_optval(argc, argv, i, eq);
        if (v == NULL || loomrun_parse_count(v, &o->nranks) != 0) {
            return loomrun_usage_error("-n needs a number of ranks from 1 to 4096, "
                                       "not '%s'", v ? v : "");
        }
    } else if (!strcmp(name, "-x")) {
        v = loomrun_optval(argc, argv, i, NULL);
        if (v == NULL || !loomrun_valid_export(v)) {
            return loomrun_usage_error("-x needs VAR or VAR=value (VAR a variable "
                                       "name), not '%s'", v ? v : "");
        }
        o->exports[o->nexports++] = (char *)v;
    } else if (!strcmp(name, "--timeout")) {
        char *end;
        v = loomrun_optval(argc, argv, i, eq);
        o->timeout = v ? strtod(v, &end) : -1;
        if (v == NULL || end == v || *end != '\0' || !(o->timeout > 0) ||
            !isfinite(o->timeout)) {
            return loomrun_usage_error("--timeout needs a positive number of seconds, "
                                       "not '%s'", v ? v : "");
        }
    } else {
        return loomrun_parse_multi(o, name, argc, argv, i, eq);
    }
    return -1;
}

/* Parse the command line; returns -1 to run, or the status to exit with. */
static int loomrun_parse_args(loomrun_opts_t *o, int argc, char **argv)
{
    int i, rc;

    memset(o, 0, sizeof(*o));
    o->exports = calloc((size_t)argc, sizeof(char *));
    if (o->exports == NULL) {
        fprintf(stderr, "loomrun: out of memory\n");
        return 1;
    }
    for (i = 1; i < argc && argv[i][0] == '-'; ++i) {
        if (!strcmp(argv[i], "--")) {
            ++i;
            break;
        }
        if ((rc = loomrun_parse_one(o, argc, argv, &i)) >= 0) {
            return rc;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "loomrun: no program to run\n");
        loomrun_usage(stderr);
        return LOOMRUN_EXIT_USAGE;
    }
    if (o->nranks == 0 && o->nhosts == 0) {
        return loomrun_usage_error("how many ranks? give -n N (before %s)", argv[i]);
    }
    if (o->nranks == 0) {
        long slots = 0;
        for (int h = 0; h < o->nhosts; ++h) {
            slots += o->hosts[h].slots;
        }
        if (slots > LOOMRUN_MAX_RANKS) {
            return loomrun_usage_error("the hosts have %ld slots: give -n N (at most %d)",
                                       slots, LOOMRUN_MAX_RANKS);
        }
        o->nranks = (int)slots;
    }
    if (o->launch_timeout == 0) {
        o->launch_timeout = 60;
    }
    o->argv = &argv[i];
    return -1;
}

/* ---- setup ------------------------------------------------------------------- */

/* Make sure fds 0-2 exist so no pipe of ours lands on them. */
static void loomrun_std_fds(void)
{
    for (int fd = 0; fd < 3; ++fd) {
        if (fcntl(fd, F_GETFD) < 0) {
            int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (nfd >= 0 && nfd != fd) {
                dup2(nfd, fd);
                close(nfd);
            }
        }
    }
}

/* Where the ranks go, and which node (if any) is this host. */
static int loomrun_place(loomrun_job_t *job)
{
    char why[512];

    job->my_node = 0;
    if (job->opts.nhosts == 0) {
        if (loomrun_map_single(job->host, job->opts.nranks, &job->map) != 0) {
            fprintf(stderr, "loomrun: out of memory\n");
            return LOOMRUN_EXIT_USAGE;
        }
        return -1;
    }
    if (loomrun_map_build(job->opts.hosts, job->opts.nhosts, job->opts.nranks,
                          job->opts.map_by, job->opts.oversubscribe, &job->map, why,
                          sizeof(why)) != 0) {
        return loomrun_usage_error("%s", why);
    }
    job->my_node = -1;
    for (int n = 0; n < job->map.nnodes && job->my_node < 0; ++n) {
        if (loomrun_hosts_is_local(job->map.names[n], job->opts.hostname)) {
            job->my_node = n;
        }
    }
    if (job->opts.hostname != NULL) {
        snprintf(job->host, sizeof(job->host), "%s", job->opts.hostname);
    }
    return -1;
}

/* The program of this node's ranks; NULL (message printed) if not found. */
static char *loomrun_program(const loomrun_job_t *job)
{
    char *path;

    if (job->my_node < 0) {
        return strdup(job->opts.argv[0]);   /* resolved by the daemons */
    }
    path = loomrun_proc_resolve(job->opts.argv[0]);
    if (path == NULL) {
        fprintf(stderr, "loomrun: %s: no such executable program%s\n", job->opts.argv[0],
                strchr(job->opts.argv[0], '/') ? "" : " in PATH");
    }
    return path;
}

static void loomrun_free_opts(loomrun_job_t *job)
{
    for (int h = 0; h < job->opts.nhosts; ++h) {
        free(job->opts.hosts[h].name);
    }
    free(job->opts.hosts);
    free(job->opts.exports);
    loomrun_map_free(&job->map);
}

/* PMIx server for this node's ranks, the daemons, this node's ranks. */
static int loomrun_start(loomrun_loop_t *lp, const char *path)
{
    loomrun_job_t *job = lp->job;

    if (job->my_node >= 0) {
        /* The server's hwloc discovery of PCI devices reads the whole PCI
         * name database: useless here, and it made each start take seconds
         * under AddressSanitizer. Only loomrun's own process is affected
         * (the ranks' environment is already built); a user setting wins. */
        setenv("HWLOC_COMPONENTS", "-pci", 0);
        if (loomrun_pmix_init(job) != 0) {
            return -1;
        }
        job->pmix_up = 1;
    }
    if (lp->role->start(lp) != 0) {
        loomrun_fail(lp, 1, "the job could not be started on every host");
        return 0;
    }
    if (job->my_node >= 0 &&
        (loomrun_pmix_register_job(job) != 0 || loomrun_launch(lp, path) != 0)) {
        /* the ranks already started must go: report and tear down */
        loomrun_fail(lp, 1, "the job could not be started");
    }
    return 0;
}

int main(int argc, char **argv)
{
    loomrun_job_t job;
    loomrun_loop_t lp;
    char *path = NULL;
    int rc;

    if (argc > 1 && strcmp(argv[1], "--daemon") == 0) {
        return loomrun_daemon_main(argc, argv);
    }
    if (argc > 1 && strcmp(argv[1], "--guard") == 0) {
        return loomrun_guard_exec_main(argc, argv);
    }
    memset(&job, 0, sizeof(job));
    memset(&lp, 0, sizeof(lp));
    lp.job = &job;
    job.event_rfd = job.event_wfd = job.stdin_wfd = job.guard_fd = -1;
    job.note_rfd = job.note_wfd = -1;
    gethostname(job.host, sizeof(job.host) - 1);
    rc = loomrun_parse_args(&job.opts, argc, argv);
    if (rc < 0) {
        rc = loomrun_place(&job);
    }
    if (rc < 0 && (path = loomrun_program(&job)) == NULL) {
        rc = LOOMRUN_EXIT_NOTFOUND;
    }
    if (rc >= 0) {
        loomrun_free_opts(&job);
        return rc;
    }
    /* the one place the role is chosen: other hosts in the job make a head */
    loomrun_role_set(&lp, job.map.nnodes > 1 || job.my_node < 0 ? &loomrun_role_head
                                                                : &loomrun_role_single);
    snprintf(job.nspace, sizeof(job.nspace), "loomrun.%.32s.%ld.%lx", job.host,
             (long)getpid(), (unsigned long)time(NULL) & 0xffffff);
    loomrun_std_fds();
    loomrun_guard_start(&job, "loomrun");
    if (loomrun_signals_init(&lp) != 0 || loomrun_job_init(&job) != 0 ||
        loomrun_proc_build_env(&job) != 0 || loomrun_hang_init(&job) != 0 ||
        loomrun_start(&lp, path) != 0) {
        lp.failed = 1;
        lp.exit_status = 1;
        goto out_cleanup;
    }
    if (job.opts.timeout > 0) {
        lp.job_deadline = loomrun_now() + job.opts.timeout;
    }
    loomrun_loop_run(&lp);
    if (!lp.failed && job.pmix_up) {
        loomrun_pmix_finalize(&job);
    }
out_cleanup:
    lp.role->stop(&lp);
    loomrun_proc_remove_shm(&job);
    loomrun_proc_remove_tree(job.tmpdir);
    loomrun_guard_stop(&job);
    free(path);
    fflush(stdout);
    fflush(stderr);
    if (lp.failed) {
        /* the PMIx thread may still be busy with dead clients: leave without
         * running the library's destructors (they crashed in 4.2.2) */
        _exit(lp.exit_status);
    }
    loomrun_hang_fini(&job);
    loomrun_proc_free_env(job.env);
    free(job.ranks);
    free(job.bind_sets);
    loomrun_free_opts(&job);
    return 0;
}
