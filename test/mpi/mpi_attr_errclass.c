/*
 * mpi_attr_errclass.c: errors and environment: added error classes, codes
 * and strings (MPI_Error_class / MPI_Error_string know them, the
 * MPI_LASTUSEDCODE attribute follows), MPI_Comm_call_errhandler with a user
 * handler, window and file error handlers (MPI_FILE_NULL holds the default
 * file handler), freeing predefined handlers, library version, thread
 * main, MPI_Aint arithmetic, the MPI_Count queries and the status setters.
 * With the argument "fatalfile" it makes MPI_ERRORS_ARE_FATAL the file
 * handler and calls it: the job must end (checked by the driver).
 */
#include "mpi_test_util.h"

#include <string.h>

static int handler_calls;
static int handler_code;

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    ++handler_calls;
    handler_code = *code;
}

static void file_handler(MPI_File *file, int *code, ...)
{
    MT_CHECK(*file == MPI_FILE_NULL);
    ++handler_calls;
    handler_code = *code;
}

static void win_handler(MPI_Win *win, int *code, ...)
{
    (void)win;
    (void)code;
}

static void test_error_classes(void)
{
    char str[MPI_MAX_ERROR_STRING], big[MPI_MAX_ERROR_STRING + 8];
    int c1, c2, code1, code2, cls, len, *last, flag;

    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    MT_CHECK(flag == 1 && *last == MPI_ERR_LASTCODE);
    MT_OK(MPI_Add_error_class(&c1));
    MT_CHECK(c1 > MPI_ERR_LASTCODE);
    MT_OK(MPI_Add_error_class(&c2));
    MT_OK(MPI_Add_error_code(c1, &code1));
    MT_OK(MPI_Add_error_code(MPI_ERR_ARG, &code2));   /* codes of predefined classes too */
    MT_CHECK(c1 != c2 && code1 != code2 && code1 != c1 && code2 > MPI_ERR_LASTCODE);
    MT_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    MT_CHECK(flag == 1 && *last >= c1 && *last >= c2 && *last >= code1 && *last >= code2);
    MT_OK(MPI_Error_class(c1, &cls));
    MT_EQ(cls, c1);
    MT_OK(MPI_Error_class(code1, &cls));
    MT_EQ(cls, c1);
    MT_OK(MPI_Error_class(code2, &cls));
    MT_EQ(cls, MPI_ERR_ARG);
    MT_OK(MPI_Error_string(code1, str, &len));        /* no string yet: empty */
    MT_EQ(len, 0);
    MT_OK(MPI_Add_error_string(code1, "loom test: code one"));
    MT_OK(MPI_Add_error_string(c2, "loom test: class two"));
    MT_OK(MPI_Error_string(code1, str, &len));
    MT_CHECK(strcmp(str, "loom test: code one") == 0 && len == (int)strlen(str));
    MT_OK(MPI_Add_error_string(code1, "replaced"));
    MT_OK(MPI_Error_string(code1, str, &len));
    MT_CHECK(strcmp(str, "replaced") == 0);
    MT_OK(MPI_Error_string(c2, str, &len));
    MT_CHECK(strcmp(str, "loom test: class two") == 0);
    /* errors */
    MT_ERR(MPI_Add_error_string(MPI_ERR_ARG, "no"), MPI_ERR_ARG);   /* predefined */
    MT_ERR(MPI_Add_error_code(code1, &code2), MPI_ERR_ARG);         /* not a class */
    MT_ERR(MPI_Add_error_code(*last + 100, &code2), MPI_ERR_ARG);
    memset(big, 'e', sizeof(big));
    big[sizeof(big) - 1] = '\0';
    MT_ERR(MPI_Add_error_string(code1, big), MPI_ERR_ARG);
    MT_ERR(MPI_Error_class(*last + 1, &cls), MPI_ERR_ARG);

    /* a user handler receives the added code */
    {
        MPI_Errhandler eh;
        MPI_Comm c;

        MT_OK(MPI_Comm_create_errhandler(comm_handler, &eh));
        MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MT_OK(MPI_Comm_set_errhandler(c, eh));
        MT_OK(MPI_Errhandler_free(&eh));
        handler_calls = 0;
        MT_OK(MPI_Comm_call_errhandler(c, code1));
        MT_CHECK(handler_calls == 1 && handler_code == code1);
        MT_OK(MPI_Comm_free(&c));
    }
}

static void test_win_file_handlers(void)
{
    MPI_Errhandler eh, got, wh, pre = MPI_ERRORS_RETURN;

    /* MPI_FILE_NULL holds the default file handler: MPI_ERRORS_RETURN at start */
    MT_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    MT_CHECK(got == MPI_ERRORS_RETURN);
    MT_OK(MPI_Errhandler_free(&got));
    MT_OK(MPI_File_create_errhandler(file_handler, &eh));
    MT_OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    MT_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    MT_CHECK(got == eh);
    MT_OK(MPI_Errhandler_free(&got));
    handler_calls = 0;
    MT_OK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_FILE));
    MT_CHECK(handler_calls == 1 && handler_code == MPI_ERR_FILE);
    MT_ERR(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_ERR_ARG);  /* file kind */
    MT_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MT_OK(MPI_Errhandler_free(&eh));
    MT_CHECK(eh == MPI_ERRHANDLER_NULL);
    /* windows: handlers can be created; there is no window to attach them to */
    MT_OK(MPI_Win_create_errhandler(win_handler, &wh));
    MT_ERR(MPI_File_set_errhandler(MPI_FILE_NULL, wh), MPI_ERR_ARG);
    MT_ERR(MPI_Win_set_errhandler(MPI_WIN_NULL, wh), MPI_ERR_WIN);
    MT_ERR(MPI_Win_get_errhandler(MPI_WIN_NULL, &got), MPI_ERR_WIN);
    MT_ERR(MPI_Win_call_errhandler(MPI_WIN_NULL, MPI_ERR_WIN), MPI_ERR_WIN);
    MT_OK(MPI_Errhandler_free(&wh));
    /* freeing a handle to a predefined handler is allowed */
    MT_OK(MPI_Errhandler_free(&pre));
    MT_CHECK(pre == MPI_ERRHANDLER_NULL);
}

static void test_environment(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1, flag = -1;
    char buf[16];
    MPI_Aint a, b;

    MT_OK(MPI_Get_library_version(version, &len));
    MT_CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && strstr(version, "loom"));
    MT_OK(MPI_Is_thread_main(&flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Get_address(&buf[3], &a));
    MT_OK(MPI_Get_address(&buf[11], &b));
    MT_EQ(MPI_Aint_diff(b, a), 8);
    MT_EQ(MPI_Aint_add(a, 8), b);
}

static void test_count_queries(void)
{
    MPI_Datatype t3;
    MPI_Count size, lb, extent, elems;
    MPI_Aint alb, aext;
    MPI_Status st;
    int count, flag;

    MT_OK(MPI_Type_size_x(MPI_DOUBLE_INT, &size));
    MT_EQ(size, sizeof(double) + sizeof(int));
    MT_OK(MPI_Type_get_extent_x(MPI_DOUBLE_INT, &lb, &extent));
    MT_CHECK(lb == 0 && extent == 16);
    MT_OK(MPI_Type_get_true_extent(MPI_DOUBLE_INT, &alb, &aext));
    MT_CHECK(alb == 0 && aext == 12);
    MT_OK(MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t3));
    MT_OK(MPI_Type_commit(&t3));
    MT_OK(MPI_Type_get_true_extent_x(t3, &lb, &extent));
    MT_CHECK(lb == 0 && extent == 2 * 16 + 12);
    MT_OK(MPI_Type_size_x(t3, &size));
    MT_EQ(size, 36);
    /* status setters: Get_elements(_x) and Get_count read them back */
    memset(&st, 0, sizeof(st));
    MT_OK(MPI_Status_set_elements(&st, MPI_INT, 7));
    MT_OK(MPI_Get_elements_x(&st, MPI_INT, &elems));
    MT_EQ(elems, 7);
    MT_OK(MPI_Get_count(&st, MPI_INT, &count));
    MT_EQ(count, 7);
    MT_OK(MPI_Status_set_elements_x(&st, t3, 12));   /* 12 basic = 6 pairs = 2 x t3 */
    MT_OK(MPI_Get_elements_x(&st, t3, &elems));
    MT_EQ(elems, 12);
    MT_OK(MPI_Get_count(&st, t3, &count));
    MT_EQ(count, 2);
    MT_ERR(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
    MT_ERR(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE);
    MT_OK(MPI_Status_set_cancelled(&st, 1));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 1);
    MT_OK(MPI_Status_set_cancelled(&st, 0));
    MT_OK(MPI_Test_cancelled(&st, &flag));
    MT_EQ(flag, 0);
    MT_ERR(MPI_Type_size_x(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);
    MT_OK(MPI_Type_free(&t3));
}

int main(int argc, char **argv)
{
    MT_OK(MPI_Init(&argc, &argv));
    MT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (argc > 1 && strcmp(argv[1], "fatalfile") == 0) {
        /* the driver expects this to end the job, naming the call */
        MT_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL));
        MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO);
        MT_FAIL("MPI_File_call_errhandler returned under MPI_ERRORS_ARE_FATAL");
    }
    test_error_classes();
    test_win_file_handlers();
    test_environment();
    test_count_queries();
    MT_PASS("mpi_attr_errclass");
    MT_OK(MPI_Finalize());
    return 0;
}
