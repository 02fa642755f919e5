/*
 * mpi_errclass.c: error classes, codes and strings added by the program
 * (MPI-3.1 8.5). See mpi_errclass_int.h for the numbering; MPI_Error_class
 * and MPI_Error_string (mpi_errors.c) and loom_mpi_raise look added values
 * up here, and the MPI_LASTUSEDCODE attribute reads loom_mpi_errcode_last().
 */
#include "mpi_int.h"
#include "mpi_errclass_int.h"
#include "mt_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct loom_mpi_errcode {
    int   errclass;
    char *string;   /* NULL: none set */
} loom_mpi_errcode_t;

static loom_mpi_errcode_t *loom_mpi_errcodes;
static size_t              loom_mpi_errcodes_len;
static size_t              loom_mpi_errcodes_cap;

static loom_mpi_errcode_t *loom_mpi_errcode_added(int code)
{
    size_t idx;

    if (code <= MPI_ERR_LASTCODE) {
        return NULL;
    }
    idx = (size_t)(code - MPI_ERR_LASTCODE - 1);
    return idx < loom_mpi_errcodes_len ? &loom_mpi_errcodes[idx] : NULL;
}

int loom_mpi_errcode_last(void)
{
    return MPI_ERR_LASTCODE + (int)loom_mpi_errcodes_len;
}

int loom_mpi_errcode_class(int code)
{
    loom_mpi_errcode_t *e;

    if (code >= 0 && code <= MPI_ERR_LASTCODE) {
        return code;
    }
    e = loom_mpi_errcode_added(code);
    return e != NULL ? e->errclass : -1;
}

const char *loom_mpi_errcode_string(int code)
{
    loom_mpi_errcode_t *e = loom_mpi_errcode_added(code);

    if (e == NULL) {
        return NULL;
    }
    return e->string != NULL ? e->string : "";
}

void loom_mpi_errcode_cleanup(void)
{
    for (size_t i = 0; i < loom_mpi_errcodes_len; ++i) {
        free(loom_mpi_errcodes[i].string);
    }
    free(loom_mpi_errcodes);
    loom_mpi_errcodes = NULL;
    loom_mpi_errcodes_len = loom_mpi_errcodes_cap = 0;
}

/* Hand out the next value with class @p errclass (-1: the value itself). */
static int loom_mpi_errcode_new(int errclass, const char *call, int *value_p)
{
    loom_mpi_errcode_t *grown;
    size_t cap;
    int value;

    if (loom_mpi_errcodes_len == loom_mpi_errcodes_cap) {
        cap = loom_mpi_errcodes_cap ? 2 * loom_mpi_errcodes_cap : 16;
        if (cap > (size_t)(INT32_MAX - MPI_ERR_LASTCODE - 1)) {
            return loom_mpi_raise(NULL, MPI_ERR_OTHER, call, "no error codes left");
        }
        grown = realloc(loom_mpi_errcodes, cap * sizeof(*grown));
        if (grown == NULL) {
            return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                                  "out of memory for %zu error codes", cap);
        }
        loom_mpi_errcodes     = grown;
        loom_mpi_errcodes_cap = cap;
    }
    value = MPI_ERR_LASTCODE + 1 + (int)loom_mpi_errcodes_len;
    loom_mpi_errcodes[loom_mpi_errcodes_len++] = (loom_mpi_errcode_t){
        .errclass = errclass < 0 ? value : errclass, .string = NULL,
    };
    *value_p = value;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int *errorclass)
{
    LOOM_MT_GUARD();
    if (errorclass == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Add_error_class",
                              "errorclass is NULL");
    }
    return loom_mpi_errcode_new(-1, "MPI_Add_error_class", errorclass);
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    LOOM_MT_GUARD();
    if (errorcode == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Add_error_code", "errorcode is NULL");
    }
    if (loom_mpi_errcode_class(errorclass) != errorclass) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Add_error_code",
                              "%d is not an error class (predefined 0..%d, or added)",
                              errorclass, MPI_ERR_LASTCODE);
    }
    return loom_mpi_errcode_new(errorclass, "MPI_Add_error_code", errorcode);
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char *string)
{
    LOOM_MT_GUARD();
    loom_mpi_errcode_t *e = loom_mpi_errcode_added(errorcode);
    char *copy;

    if (e == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Add_error_string",
                              "%d is not an added error code or class (the strings of "
                              "0..%d are predefined)", errorcode, MPI_ERR_LASTCODE);
    }
    if (string == NULL || strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING) {
        return loom_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Add_error_string",
                              "the string is %s (at most %d characters)",
                              string == NULL ? "NULL" : "too long",
                              MPI_MAX_ERROR_STRING - 1);
    }
    copy = strdup(string);
    if (copy == NULL) {
        return loom_mpi_raise(NULL, MPI_ERR_NO_MEM, "MPI_Add_error_string",
                              "out of memory for the string of code %d", errorcode);
    }
    free(e->string);
    e->string = copy;
    return MPI_SUCCESS;
}
