/*
 * mpi_info.c: MPI info objects, MPI_INFO_ENV, and the communicator hints
 * (MPI_Comm_set_info / MPI_Comm_get_info).
 *
 * Design (see mpi_info_int.h): an MPI_Info is a magic-tagged handle around
 * an ordered key/value store. MPI's limits are enforced here: a key must be
 * 1..MPI_MAX_INFO_KEY-1 characters (MPI_ERR_INFO_KEY), a value
 * 1..MPI_MAX_INFO_VAL-1 (MPI_ERR_INFO_VALUE); deleting a missing key is
 * MPI_ERR_INFO_NOKEY and an out-of-range nthkey MPI_ERR_ARG. MPI_INFO_ENV
 * is a static object whose keys (command, argv, maxprocs, host, arch, wdir,
 * thread_level) are computed on its first use from /proc/self/cmdline and
 * the runtime; it can be read and duplicated, not modified or freed
 * (MPI_ERR_INFO). Errors go to MPI_COMM_WORLD's handler (no info has one).
 *
 * Communicator hints live in the communicator's extension (mpi_attr_int.h):
 * set_info merges the given keys into them, get_info returns a new info
 * with a copy, and MPI_Comm_dup copies them (loom_mpi_attr_copy_all).
 * loom acts on no communicator hint yet, so every hint is kept as given.
 */
#include "mpi_f2c_int.h"
#include "mpi_info_int.h"
#include "mpi_attr_int.h"
#include "mt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct loom_mpi_info loom_mpi_info_env = {
    .magic = LOOM_MPI_INFO_MAGIC, .predefined = 1,
};

/* ---- the pure store ------------------------------------------------------------------ */

static ptrdiff_t loom_mpi_kvstore_index(const loom_mpi_kvstore_t *s, const char *key)
{
    for (size_t i = 0; i < s->n; ++i) {
        if (strcmp(s->items[i].key, key) == 0) {
            return (ptrdiff_t)i;
        }
    }
    return -1;
}

int loom_mpi_kvstore_set(loom_mpi_kvstore_t *s, const char *key, const char *value)
{
    ptrdiff_t idx = loom_mpi_kvstore_index(s, key);
    char *v = strdup(value), *k = NULL;
    loom_mpi_kv_t *grown;

    if (v == NULL) {
        return -1;
    }
    if (idx >= 0) {
        free(s->items[idx].value);
        s->items[idx].value = v;
        return 0;
    }
    if (s->n == s->cap) {
        grown = realloc(s->items, (s->cap ? 2 * s->cap : 4) * sizeof(*grown));
        if (grown == NULL) {
            free(v);
            return -1;
        }
        s->items = grown;
        s->cap   = s->cap ? 2 * s->cap : 4;
    }
    k = strdup(key);
    if (k == NULL) {
        free(v);
        return -1;
    }
    s->items[s->n++] = (loom_mpi_kv_t){ .key = k, .value = v };
    return 0;
}

const char *loom_mpi_kvstore_get(const loom_mpi_kvstore_t *s, const char *key)
{
    ptrdiff_t idx = loom_mpi_kvstore_index(s, key);

    return idx >= 0 ? s->items[idx].value : NULL;
}

int loom_mpi_kvstore_delete(loom_mpi_kvstore_t *s, const char *key)
{
    ptrdiff_t idx = loom_mpi_kvstore_index(s, key);

    if (idx < 0) {
        return 0;
    }
    free(s->items[idx].key);
    free(s->items[idx].value);
    memmove(&s->items[idx], &s->items[idx + 1],
            (s->n - (size_t)idx - 1) * sizeof(s->items[0]));
    --s->n;
    return 1;
}

const char *loom_mpi_kvstore_nthkey(const loom_mpi_kvstore_t *s, size_t n)
{
    return n < s->n ? s->items[n].key : NULL;
}

int loom_mpi_kvstore_merge(loom_mpi_kvstore_t *dst, const loom_mpi_kvstore_t *src)
{
    for (size_t i = 0; i < src->n; ++i) {
        if (loom_mpi_kvstore_set(dst, src->items[i].key, src->items[i].value) != 0) {
            return -1;
        }
    }
    return 0;
}

void loom_mpi_kvstore_clear(loom_mpi_kvstore_t *s)
{
    for (size_t i = 0; i < s->n; ++i) {
        free(s->items[i].key);
        free(s->items[i].value);
    }
    free(s->items);
    *s = (loom_mpi_kvstore_t){ 0 };
}

/* ---- MPI_INFO_ENV ------------------------------------------------------------------------ */

/* command = argv[0], argv = the other arguments joined by spaces. */
static void loom_mpi_info_env_cmdline(loom_mpi_kvstore_t *s)
{
    char buf[4096], args[MPI_MAX_INFO_VAL] = "";
    size_t len, off, used = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");

    if (f == NULL) {
        return;
    }
    len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = '\0';
    if (len == 0) {
        return;
    }
    (void)loom_mpi_kvstore_set(s, "command", buf);
    for (off = strlen(buf) + 1; off < len; off += strlen(buf + off) + 1) {
        int n = snprintf(args + used, sizeof(args) - used, "%s%s", used ? " " : "",
                         buf + off);
        if (n < 0 || (size_t)n >= sizeof(args) - used) {
            break;  /* keep whole arguments that fit MPI_MAX_INFO_VAL */
        }
        used += (size_t)n;
    }
    if (used > 0) {
        (void)loom_mpi_kvstore_set(s, "argv", args);
    }
}

static void loom_mpi_info_env_fill(void)
{
    static const char *const levels[] = {
        "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
        "MPI_THREAD_MULTIPLE",
    };
    loom_mpi_kvstore_t *s = &loom_mpi_info_env.store;
    char buf[MPI_MAX_INFO_VAL];
    struct utsname u;
    int level = MPI_THREAD_SINGLE;

    if (loom_mpi_info_env.filled) {
        return;
    }
    loom_mpi_info_env.filled = 1;
    loom_mpi_info_env_cmdline(s);
    if (loom_mpi_state == LOOM_MPI_STATE_INITIALIZED) {
        snprintf(buf, sizeof(buf), "%d", loom_size());
        (void)loom_mpi_kvstore_set(s, "maxprocs", buf);
    }
    if (gethostname(buf, sizeof(buf)) == 0) {
        buf[sizeof(buf) - 1] = '\0';
        (void)loom_mpi_kvstore_set(s, "host", buf);
    }
    if (uname(&u) == 0) {
        (void)loom_mpi_kvstore_set(s, "arch", u.machine);
    }
    if (getcwd(buf, sizeof(buf)) != NULL) {
        (void)loom_mpi_kvstore_set(s, "wdir", buf);
    }
    if (PMPI_Query_thread(&level) == MPI_SUCCESS && level >= 0 && level <= 3) {
        (void)loom_mpi_kvstore_set(s, "thread_level", levels[level]);
    }
}

/* ---- helpers ------------------------------------------------------------------------------ */

int loom_mpi_info_is_valid(MPI_Info info)
{
    return info != MPI_INFO_NULL && info->magic == LOOM_MPI_INFO_MAGIC;
}

void loom_mpi_info_release(MPI_Info info)
{
    if (loom_mpi_info_is_valid(info) && !info->predefined) {
        loom_mpi_kvstore_clear(&info->store);
        info->magic = LOOM_MPI_DEAD_MAGIC;
        free(info);
    }
}

static MPI_Info loom_mpi_info_alloc(void)
{
    MPI_Info info = calloc(1, sizeof(*info));

    if (info != NULL) {
        info->magic = LOOM_MPI_INFO_MAGIC;
    }
    return info;
}

int loom_mpi_info_copy(MPI_Info src, MPI_Info *dst_p)
{
    MPI_Info info = loom_mpi_info_alloc();

    if (info == NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (src == MPI_INFO_ENV) {
        loom_mpi_info_env_fill();
    }
    if (src != MPI_INFO_NULL && loom_mpi_kvstore_merge(&info->store, &src->store) != 0) {
        loom_mpi_info_release(info);
        return MPI_ERR_NO_MEM;
    }
    *dst_p = info;
    return MPI_SUCCESS;
}

/* Check @p info for @p call (and fill MPI_INFO_ENV); @p modify refuses MPI_INFO_ENV. */
static int loom_mpi_info_arg(MPI_Info info, int modify, const char *call)
{
    if (!loom_mpi_info_is_valid(info)) {
        return loom_mpi_raise(NULL, MPI_ERR_INFO, call, "%p is not an info object%s",
                              (void *)info, info == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : "");
    }
    if (info->predefined) {
        if (modify) {
            return loom_mpi_raise(NULL, MPI_ERR_INFO, call,
                                  "MPI_INFO_ENV is predefined and read-only");
        }
        loom_mpi_info_env_fill();
    }
    return MPI_SUCCESS;
}

/* Check a key: non-NULL, 1..MPI_MAX_INFO_KEY-1 characters. */
static int loom_mpi_info_key_arg(const char *key, const char *call)
{
    size_t len;

    if (key == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_INFO_KEY, call, "key is NULL");
    }
    len = strnlen(key, MPI_MAX_INFO_KEY);
    if (len == 0 || len >= MPI_MAX_INFO_KEY) {
        return loom_mpi_raise(NULL, MPI_ERR_INFO_KEY, call,
                              "key '%.*s%s' is %s (1 to %d characters)", 16, key,
                              len > 16 ? "..." : "", len == 0 ? "empty" : "too long",
                              MPI_MAX_INFO_KEY - 1);
    }
    return MPI_SUCCESS;
}

/* ---- MPI calls ---------------------------------------------------------------------------- */

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    LOOM_MT_GUARD();
    if (info == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Info_create", "info is NULL");
    }
    *info = loom_mpi_info_alloc();
    if (*info == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, "MPI_Info_create",
                              "out of memory for an info object");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    LOOM_MT_GUARD();
    size_t vlen;
    int rc = loom_mpi_info_arg(info, 1, "MPI_Info_set");

    if (rc == MPI_SUCCESS) {
        rc = loom_mpi_info_key_arg(key, "MPI_Info_set");
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (value == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_INFO_VALUE, "MPI_Info_set",
                              "value of key '%s' is NULL", key);
    }
    vlen = strnlen(value, MPI_MAX_INFO_VAL);
    if (vlen == 0 || vlen >= MPI_MAX_INFO_VAL) {
        return loom_mpi_raise(NULL, MPI_ERR_INFO_VALUE, "MPI_Info_set",
                              "value of key '%s' is %s (1 to %d characters)", key,
                              vlen == 0 ? "empty" : "too long", MPI_MAX_INFO_VAL - 1);
    }
    if (loom_mpi_kvstore_set(&info->store, key, value) != 0) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, "MPI_Info_set",
                              "out of memory setting key '%s'", key);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    LOOM_MT_GUARD();
    const char *v;
    int rc = loom_mpi_info_arg(info, 0, "MPI_Info_get");

    if (rc == MPI_SUCCESS) {
        rc = loom_mpi_info_key_arg(key, "MPI_Info_get");
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (value == NULL || flag == NULL || valuelen < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Info_get", "%s",
                              valuelen < 0 ? "valuelen is negative"
                              : value == NULL ? "value is NULL" : "flag is NULL");
    }
    v = loom_mpi_kvstore_get(&info->store, key);
    *flag = v != NULL;
    if (v != NULL) {  /* MPI: at most valuelen characters, plus the terminator */
        size_t n = strnlen(v, (size_t)valuelen);
        memcpy(value, v, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    LOOM_MT_GUARD();
    const char *v;
    int rc = loom_mpi_info_arg(info, 0, "MPI_Info_get_valuelen");

    if (rc == MPI_SUCCESS) {
        rc = loom_mpi_info_key_arg(key, "MPI_Info_get_valuelen");
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (valuelen == NULL || flag == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Info_get_valuelen", "%s is NULL",
                              valuelen == NULL ? "valuelen" : "flag");
    }
    v = loom_mpi_kvstore_get(&info->store, key);
    *flag = v != NULL;
    if (v != NULL) {
        *valuelen = (int)strlen(v);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_info_arg(info, 1, "MPI_Info_delete");

    if (rc == MPI_SUCCESS) {
        rc = loom_mpi_info_key_arg(key, "MPI_Info_delete");
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!loom_mpi_kvstore_delete(&info->store, key)) {
        return loom_mpi_raise(NULL, MPI_ERR_INFO_NOKEY, "MPI_Info_delete",
                              "key '%s' is not set", key);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_info_arg(info, 0, "MPI_Info_dup");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newinfo == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Info_dup", "newinfo is NULL");
    }
    rc = loom_mpi_info_copy(info, newinfo);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(NULL, rc, "MPI_Info_dup", "out of memory copying %zu keys",
                              info->store.n);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info *info)
{
    LOOM_MT_GUARD();
    int rc;

    if (info == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Info_free", "info is NULL");
    }
    rc = loom_mpi_info_arg(*info, 1, "MPI_Info_free");
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    loom_mpi_handle_forget(LOOM_MPI_H_INFO, *info);
    loom_mpi_info_release(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    LOOM_MT_GUARD();
    int rc = loom_mpi_info_arg(info, 0, "MPI_Info_get_nkeys");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nkeys == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys", "nkeys is NULL");
    }
    *nkeys = (int)info->store.n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    LOOM_MT_GUARD();
    const char *k;
    int rc = loom_mpi_info_arg(info, 0, "MPI_Info_get_nthkey");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (key == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey", "key is NULL");
    }
    k = n < 0 ? NULL : loom_mpi_kvstore_nthkey(&info->store, (size_t)n);
    if (k == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey",
                              "n = %d is not in 0..%zu (the info has %zu keys)", n,
                              info->store.n ? info->store.n - 1 : 0, info->store.n);
    }
    snprintf(key, MPI_MAX_INFO_KEY, "%s", k);
    return MPI_SUCCESS;
}

/* ---- communicator hints ------------------------------------------------------------------- */

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_set_info", &lcomm);

    if (rc != MPI_SUCCESS || info == MPI_INFO_NULL) {
        return rc;  /* MPI_INFO_NULL: no new hints */
    }
    rc = loom_mpi_info_arg(info, 0, "MPI_Comm_set_info");
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm->ext == NULL) {
        comm->ext = calloc(1, sizeof(*comm->ext));
    }
    if (comm->ext != NULL && comm->ext->hints == MPI_INFO_NULL) {
        comm->ext->hints = loom_mpi_info_alloc();
    }
    if (comm->ext == NULL || comm->ext->hints == MPI_INFO_NULL ||
        loom_mpi_kvstore_merge(&comm->ext->hints->store, &info->store) != 0) {
        return loom_mpi_raise(comm, MPI_ERR_NO_MEM, "MPI_Comm_set_info",
                              "out of memory storing %zu hints", info->store.n);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    LOOM_MT_GUARD();
    loom_comm_t lcomm;
    int rc = loom_mpi_comm_arg(comm, "MPI_Comm_get_info", &lcomm);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (info_used == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_get_info", "info_used is NULL");
    }
    rc = loom_mpi_info_copy(comm->ext != NULL ? comm->ext->hints : MPI_INFO_NULL,
                            info_used);
    if (rc != MPI_SUCCESS) {
        return loom_mpi_raise(comm, rc, "MPI_Comm_get_info",
                              "out of memory for the hints' copy");
    }
    return MPI_SUCCESS;
}
