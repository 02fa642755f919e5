/*
 * mpi_errors.c: error classes, loom status -> MPI class mapping, error
 * handlers (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, user handlers) and
 * the one place every MPI call reports a failure: loom_mpi_raise().
 *
 * Codes and classes added by the program (mpi_errclass.c) pass through
 * loom_mpi_raise unchanged: the handler and the caller see the code, the
 * message names its class. Error handlers are created for one kind of
 * object (communicator, window, file) and may only be attached to that
 * kind (MPI-3.1 8.3); the window calls are mpi_win.c's; files do not exist
 * yet, so on files only MPI_FILE_NULL (whose handler
 * is the default for files opened later, MPI_ERRORS_RETURN at start) works.
 */
#include "mpi_int.h"
#include "mpi_f2c_int.h"
#include "mpi_errclass_int.h"
#include "log_int.h"
#include "mt_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loom_mpi_errhandler loom_mpi_errors_are_fatal = {
    .magic = LOOM_MPI_ERRH_MAGIC, .kind = LOOM_MPI_ERRH_FATAL, .refs = 1,
};
struct loom_mpi_errhandler loom_mpi_errors_return = {
    .magic = LOOM_MPI_ERRH_MAGIC, .kind = LOOM_MPI_ERRH_RETURN, .refs = 1,
};

typedef struct loom_mpi_err_entry {
    const char *name;
    const char *desc;
} loom_mpi_err_entry_t;

static const loom_mpi_err_entry_t loom_mpi_err_table[] = {
#define LOOM_MPI_ERR_ENTRY_(name, value, desc) [value] = { #name, desc },
    LOOM_MPI_ERR_MAP(LOOM_MPI_ERR_ENTRY_)
#undef LOOM_MPI_ERR_ENTRY_
};

_Static_assert(LOOM_ARRAY_SIZE(loom_mpi_err_table) == MPI_ERR_LASTCODE + 1,
               "MPI_ERR_LASTCODE must be the last class of LOOM_MPI_ERR_MAP");

const char *loom_mpi_class_name(int errclass)
{
    if (errclass < 0 || errclass > MPI_ERR_LASTCODE) {
        return NULL;
    }
    return loom_mpi_err_table[errclass].name;
}

/*
 * loom status -> MPI class. A cancelled operation completes successfully in
 * MPI (the status says it was cancelled), so LOOM_ERR_CANCELED is success.
 * Failures of peers and transports have no class of their own in MPI-3.1.
 */
int loom_mpi_class_of(loom_status_t status)
{
    switch (status) {
    case LOOM_OK:
    case LOOM_INPROGRESS:
    case LOOM_ERR_CANCELED:       return MPI_SUCCESS;
    case LOOM_ERR_INVALID_ARG:    return MPI_ERR_ARG;
    case LOOM_ERR_NO_MEMORY:      return MPI_ERR_NO_MEM;
    case LOOM_ERR_UNSUPPORTED:    return MPI_ERR_UNSUPPORTED_OPERATION;
    case LOOM_ERR_TRUNCATED:      return MPI_ERR_TRUNCATE;
    case LOOM_ERR_INVALID_RANK:   return MPI_ERR_RANK;
    case LOOM_ERR_INVALID_TAG:    return MPI_ERR_TAG;
    case LOOM_ERR_INVALID_COUNT:  return MPI_ERR_COUNT;
    case LOOM_ERR_INVALID_TYPE:   return MPI_ERR_TYPE;
    case LOOM_ERR_INVALID_OP:     return MPI_ERR_OP;
    case LOOM_ERR_INVALID_COMM:   return MPI_ERR_COMM;
    case LOOM_ERR_INVALID_REQUEST:return MPI_ERR_REQUEST;
    case LOOM_ERR_INVALID_BUFFER: return MPI_ERR_BUFFER;
    case LOOM_ERR_INVALID_ROOT:   return MPI_ERR_ROOT;
    case LOOM_ERR_IO:             return MPI_ERR_IO;
    case LOOM_ERR_INTERNAL:       return MPI_ERR_INTERN;
    case LOOM_ERR_NO_RESOURCE:
    case LOOM_ERR_NOT_INITIALIZED:
    case LOOM_ERR_ALREADY_INIT:
    case LOOM_ERR_FINALIZED:
    case LOOM_ERR_CONFIG:
    case LOOM_ERR_TIMEOUT:
    case LOOM_ERR_NOT_FOUND:
    case LOOM_ERR_BOOTSTRAP:
    case LOOM_ERR_PEER_FAILED:
    case LOOM_ERR_TRANSPORT:
    case LOOM_ERR_UNREACHABLE:
    case LOOM_ERR_CONNECTION:     return MPI_ERR_OTHER;
    }
    return MPI_ERR_UNKNOWN;
}

void loom_mpi_status_convert(MPI_Status *statuses, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        statuses[i].MPI_ERROR = loom_mpi_class_of((loom_status_t)statuses[i].MPI_ERROR);
    }
}

static MPI_Comm loom_mpi_raise_comm(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || comm->magic != LOOM_MPI_COMM_MAGIC) {
        return MPI_COMM_WORLD;
    }
    return comm;
}

static const char *loom_mpi_comm_label(MPI_Comm comm, char *buf, size_t len)
{
    if (comm->name[0] != '\0') {
        return comm->name;
    }
    snprintf(buf, len, "communicator %p", (void *)comm);
    return buf;
}

static void loom_mpi_fatal(MPI_Comm comm, int errclass, const char *call,
                           const char *detail) __attribute__((noreturn));

static void loom_mpi_fatal(MPI_Comm comm, int errclass, const char *call,
                           const char *detail)
{
    char msg[768];
    char label[64];

    snprintf(msg, sizeof(msg), "%s on %s: %s (%s)%s%s; the error handler is "
             "MPI_ERRORS_ARE_FATAL, aborting the job", call,
             loom_mpi_comm_label(comm, label, sizeof(label)),
             loom_mpi_class_name(errclass), loom_mpi_err_table[errclass].desc,
             detail[0] != '\0' ? ": " : "", detail);
    loom_abort(errclass, msg);
}

static int loom_mpi_raise_v(MPI_Comm comm, int errclass, const char *call,
                            const char *fmt, va_list ap)
{
    char detail[512] = "";
    MPI_Errhandler errh;
    int code = errclass;

    if (errclass == MPI_SUCCESS) {
        return MPI_SUCCESS;
    }
    if (loom_mpi_errcode_class(errclass) < 0) {
        errclass = code = MPI_ERR_UNKNOWN;
    }
    comm = loom_mpi_raise_comm(comm);
    errh = comm->errh;
    if (fmt != NULL) {
        vsnprintf(detail, sizeof(detail), fmt, ap);
    }
    if (errclass > MPI_ERR_LASTCODE) {  /* added code: report its added class */
        snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
                 "%scode %d of class %d%s%s", detail[0] != '\0' ? "; " : "", code,
                 loom_mpi_errcode_class(code), loom_mpi_errcode_string(code)[0] ? ": " : "",
                 loom_mpi_errcode_string(code));
        errclass = MPI_ERR_OTHER;  /* for the name printed below only */
    }
    switch (errh->kind) {
    case LOOM_MPI_ERRH_FATAL:
        loom_mpi_fatal(comm, errclass, call, detail);
    case LOOM_MPI_ERRH_USER:
        loom_debug("mpi", "%s: %s: %s (user error handler)", call,
                   loom_mpi_class_name(errclass), detail);
        {
            /* a handler may longjmp out: it must not keep the engine lock */
            unsigned depth = loom_mt_callout_begin();

            errh->fn(&comm, &code);
            loom_mt_callout_end(depth);
        }
        break;
    case LOOM_MPI_ERRH_RETURN:
        loom_debug("mpi", "%s: %s: %s (returned)", call, loom_mpi_class_name(errclass),
                   detail);
        break;
    }
    return code;
}

int loom_mpi_raise(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = loom_mpi_raise_v(comm, errclass, call, fmt, ap);
    va_end(ap);
    return rc;
}

int loom_mpi_raise_loom(MPI_Comm comm, loom_status_t st, const char *call)
{
    int errclass = loom_mpi_class_of(st);

    if (errclass == MPI_SUCCESS) {
        return MPI_SUCCESS;
    }
    return loom_mpi_raise(comm, errclass, call, "loom reported %s (%s)",
                          loom_status_name(st), loom_strerror(st));
}

/* ---- MPI calls -------------------------------------------------------------------- */

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    LOOM_MT_GUARD();
    int len;

    if (string == NULL || resultlen == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Error_string", "%s is NULL",
                              string == NULL ? "string" : "resultlen");
    }
    if (loom_mpi_errcode_class(errorcode) < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Error_string",
                              "error code %d is not one of 0..%d", errorcode,
                              loom_mpi_errcode_last());
    }
    if (errorcode > MPI_ERR_LASTCODE) {  /* added: its string, "" if none */
        len = snprintf(string, MPI_MAX_ERROR_STRING, "%s",
                       loom_mpi_errcode_string(errorcode));
        *resultlen = len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1;
        return MPI_SUCCESS;
    }
    len = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s",
                   loom_mpi_err_table[errorcode].name, loom_mpi_err_table[errorcode].desc);
    *resultlen = len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int *errorclass)
{
    LOOM_MT_GUARD();
    if (errorclass == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Error_class", "errorclass is NULL");
    }
    if (loom_mpi_errcode_class(errorcode) < 0) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Error_class",
                              "error code %d is not one of 0..%d", errorcode,
                              loom_mpi_errcode_last());
    }
    *errorclass = loom_mpi_errcode_class(errorcode);  /* predefined: itself */
    return MPI_SUCCESS;
}

static int loom_mpi_errh_is_valid(MPI_Errhandler errh)
{
    return errh != MPI_ERRHANDLER_NULL && errh->magic == LOOM_MPI_ERRH_MAGIC;
}

static void loom_mpi_errh_release(MPI_Errhandler errh)
{
    if (--errh->refs == 0 && errh->kind == LOOM_MPI_ERRH_USER) {
        errh->magic = LOOM_MPI_DEAD_MAGIC;
        free(errh);
    }
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    LOOM_MT_GUARD();
    if (loom_mpi_comm_get(comm) == LOOM_COMM_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_COMM, "MPI_Comm_set_errhandler",
                              "invalid communicator %p", (void *)comm);
    }
    if (!loom_mpi_errh_is_valid(errhandler)) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler",
                              "invalid error handler %p", (void *)errhandler);
    }
    if (errhandler->domain != LOOM_MPI_ERRH_ON_COMM) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler",
                              "error handler %p was created for %s, not communicators",
                              (void *)errhandler,
                              errhandler->domain == LOOM_MPI_ERRH_ON_WIN ? "windows"
                                                                          : "files");
    }
    ++errhandler->refs;
    loom_mpi_errh_release(comm->errh);
    comm->errh = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    LOOM_MT_GUARD();
    if (loom_mpi_comm_get(comm) == LOOM_COMM_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_COMM, "MPI_Comm_get_errhandler",
                              "invalid communicator %p", (void *)comm);
    }
    if (errhandler == NULL) {
        return loom_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_get_errhandler",
                              "errhandler is NULL");
    }
    ++comm->errh->refs;  /* the caller frees it with MPI_Errhandler_free */
    *errhandler = comm->errh;
    return MPI_SUCCESS;
}

/* A user error handler for objects of @p domain calling @p fn. */
static int loom_mpi_errh_create(MPI_Comm_errhandler_function *fn, int domain,
                                MPI_Errhandler *errhandler, const char *call)
{
    MPI_Errhandler errh;

    if (fn == NULL || errhandler == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL",
                              fn == NULL ? "function" : "errhandler");
    }
    errh = calloc(1, sizeof(*errh));
    if (errh == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                              "out of memory for an error handler");
    }
    errh->magic  = LOOM_MPI_ERRH_MAGIC;
    errh->kind   = LOOM_MPI_ERRH_USER;
    errh->fn     = fn;
    errh->refs   = 1;
    errh->domain = domain;
    *errhandler = errh;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn,
                                MPI_Errhandler *errhandler)
{
    LOOM_MT_GUARD();
    return loom_mpi_errh_create(fn, LOOM_MPI_ERRH_ON_COMM, errhandler,
                                "MPI_Comm_create_errhandler");
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    LOOM_MT_GUARD();
    if (errhandler == NULL || !loom_mpi_errh_is_valid(*errhandler)) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Errhandler_free",
                              "invalid error handler");
    }
    /* Predefined handlers are static: freeing a handle to one just drops it. */
    if ((*errhandler)->kind != LOOM_MPI_ERRH_USER) {
        *errhandler = MPI_ERRHANDLER_NULL;
        return MPI_SUCCESS;
    }
    loom_mpi_handle_forget(LOOM_MPI_H_ERRH, *errhandler);
    loom_mpi_errh_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    LOOM_MT_GUARD();
    if (loom_mpi_comm_get(comm) == LOOM_COMM_NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_COMM, "MPI_Comm_call_errhandler",
                              "invalid communicator %p", (void *)comm);
    }
    loom_mpi_raise(comm, errorcode, "MPI_Comm_call_errhandler",
                   "raised by the application");
    return MPI_SUCCESS;  /* MPI: success if the handler returned */
}

/* ---- windows and files ----------------------------------------------------------------- */

/* The error handler of files opened later, and of MPI_FILE_NULL (MPI-3.1 13.7). */
static MPI_Errhandler loom_mpi_file_errh = MPI_ERRORS_RETURN;

static int loom_mpi_no_file(MPI_File file, const char *call)
{
    return loom_mpi_raise(NULL, MPI_ERR_FILE, call, "%p is not a file (loom has no "
                          "MPI-IO; only MPI_FILE_NULL has an error handler)",
                          (void *)file);
}

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    LOOM_MT_GUARD();
    return loom_mpi_errh_create((MPI_Comm_errhandler_function *)win_errhandler_fn,
                                LOOM_MPI_ERRH_ON_WIN, errhandler,
                                "MPI_Win_create_errhandler");
}

/* MPI_Win_set/get/call_errhandler: mpi_win.c (they need the window object) */

#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    LOOM_MT_GUARD();
    return loom_mpi_errh_create((MPI_Comm_errhandler_function *)file_errhandler_fn,
                                LOOM_MPI_ERRH_ON_FILE, errhandler,
                                "MPI_File_create_errhandler");
}

#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    LOOM_MT_GUARD();
    if (file != MPI_FILE_NULL) {
        return loom_mpi_no_file(file, "MPI_File_set_errhandler");
    }
    if (!loom_mpi_errh_is_valid(errhandler) ||
        (errhandler->kind == LOOM_MPI_ERRH_USER &&
         errhandler->domain != LOOM_MPI_ERRH_ON_FILE)) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_File_set_errhandler",
                              "%p is not a predefined or file error handler",
                              (void *)errhandler);
    }
    ++errhandler->refs;
    loom_mpi_errh_release(loom_mpi_file_errh);
    loom_mpi_file_errh = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    LOOM_MT_GUARD();
    if (file != MPI_FILE_NULL) {
        return loom_mpi_no_file(file, "MPI_File_get_errhandler");
    }
    if (errhandler == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_File_get_errhandler",
                              "errhandler is NULL");
    }
    ++loom_mpi_file_errh->refs;
    *errhandler = loom_mpi_file_errh;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    LOOM_MT_GUARD();
    MPI_File file = fh;
    int code = errorcode;

    if (fh != MPI_FILE_NULL) {
        return loom_mpi_no_file(fh, "MPI_File_call_errhandler");
    }
    switch (loom_mpi_file_errh->kind) {
    case LOOM_MPI_ERRH_FATAL: {
        char msg[128];

        snprintf(msg, sizeof(msg), "MPI_File_call_errhandler on MPI_FILE_NULL: error "
                 "code %d; the file error handler is MPI_ERRORS_ARE_FATAL, aborting "
                 "the job", errorcode);
        loom_abort(errorcode, msg);
    }
    case LOOM_MPI_ERRH_USER:
        ((MPI_File_errhandler_function *)loom_mpi_file_errh->fn)(&file, &code);
        break;
    case LOOM_MPI_ERRH_RETURN:
        break;
    }
    return MPI_SUCCESS;
}
