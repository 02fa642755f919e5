// mpi_cxx_header.cc: mpi.h as a C++ program meets it, built by
// test/mpi/test_mpi_api.sh with loomcxx -std=c++11 -Wall -Wextra -Werror
// (and -pedantic). It uses handles, constants and callbacks where C++ is
// stricter than C (constant expressions, pointer conversions, function
// pointer types, aggregate initializers, overloads), then runs a few calls:
// the new predefined datatypes, a predefined attribute callback, and
// generated stubs (error class, nulled output handle, the call's name).
// Prints "cxx header: OK" and exits 0, or names each failed check.
#include <mpi.h>

#include <complex>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char *what)
{
    if (!ok) {
        std::printf("FAIL: %s\n", what);
        ++failures;
    }
}

// Constants must be constant expressions usable in switch and static_assert.
static_assert(MPI_VERSION == 3 && MPI_SUBVERSION == 1, "MPI 3.1");
static_assert(MPI_ERR_LASTCODE >= MPI_T_ERR_INVALID, "MPI_T error classes counted");
static_assert(MPI_MAX_PORT_NAME > 0 && MPI_MAX_DATAREP_STRING > 0, "limits");
static_assert((MPI_MODE_RDWR & MPI_MODE_CREATE) == 0, "file modes are bits");
static_assert((MPI_MODE_NOCHECK & MPI_MODE_NOSTORE) == 0, "RMA asserts are bits");
static_assert(sizeof(MPI_F08_status) >= 3 * sizeof(MPI_Fint), "F08 status");

const char *compare_name(int result)
{
    switch (result) {
    case MPI_IDENT: return "ident";
    case MPI_CONGRUENT: return "congruent";
    case MPI_SIMILAR: return "similar";
    case MPI_UNEQUAL: return "unequal";
    default: return "?";
    }
}

// Overloads on handle types: each handle is its own type in C++.
int kind(MPI_Comm) { return 1; }
int kind(MPI_Datatype) { return 2; }
int kind(MPI_Op) { return 3; }
int kind(MPI_Win) { return 4; }
int kind(MPI_File) { return 5; }

// A user reduction, stored through the typedef'd function type.
void max_abs(void *in, void *inout, int *len, MPI_Datatype *)
{
    const int *a = static_cast<const int *>(in);
    int *b = static_cast<int *>(inout);
    for (int i = 0; i < *len; i++) {
        const int x = a[i] < 0 ? -a[i] : a[i];
        b[i] = x > b[i] ? x : b[i];
    }
}

void errh(MPI_Comm *, int *, ...) {}

void check_types()
{
    const MPI_Datatype types[] = { MPI_INT, MPI_C_DOUBLE_COMPLEX, MPI_CXX_BOOL,
                                   MPI_CXX_FLOAT_COMPLEX, MPI_INTEGER, MPI_REAL8,
                                   MPI_2INTEGER, MPI_DOUBLE_COMPLEX, MPI_LOGICAL };
    const int sizes[] = { 4, 16, static_cast<int>(sizeof(bool)), 8, 4, 8, 8, 16, 4 };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        int size = -1;
        check(MPI_Type_size(types[i], &size) == MPI_SUCCESS && size == sizes[i],
              "MPI_Type_size of a new predefined type");
    }
    check(MPI_INTEGER16 == MPI_DATATYPE_NULL, "MPI_INTEGER16 (optional) is null");

    // Complex values move between ranks (here: to self).
    std::complex<double> out[2] = { { 1.5, -2.0 }, { 3.0, 4.25 } }, in[2];
    MPI_Status st;
    check(MPI_Sendrecv(out, 2, MPI_CXX_DOUBLE_COMPLEX, 0, 7, in, 2, MPI_C_DOUBLE_COMPLEX, 0,
                       7, MPI_COMM_SELF, &st) == MPI_SUCCESS &&
              in[0] == out[0] && in[1] == out[1],
          "complex values sent to self");
    int count = -1;
    check(MPI_Get_count(&st, MPI_C_DOUBLE_COMPLEX, &count) == MPI_SUCCESS && count == 2,
          "MPI_Get_count of complex values");
}

void check_callbacks()
{
    MPI_Comm_copy_attr_function *copy = MPI_COMM_DUP_FN;
    MPI_Comm_delete_attr_function *del = MPI_COMM_NULL_DELETE_FN;
    MPI_Type_copy_attr_function *tcopy = MPI_TYPE_NULL_COPY_FN;
    MPI_Win_copy_attr_function *wcopy = MPI_WIN_DUP_FN;
    MPI_Copy_function *old_copy = MPI_NULL_COPY_FN;
    MPI_Datarep_conversion_function *conv = MPI_CONVERSION_FN_NULL;
    int value = 42, flag = 0;
    void *copied = nullptr;

    check(copy(MPI_COMM_WORLD, 1, nullptr, &value, &copied, &flag) == MPI_SUCCESS &&
              flag == 1 && copied == &value,
          "MPI_COMM_DUP_FN copies the attribute value");
    check(del(MPI_COMM_WORLD, 1, &value, nullptr) == MPI_SUCCESS, "MPI_COMM_NULL_DELETE_FN");
    flag = 1;
    check(tcopy(MPI_INT, 1, nullptr, &value, &copied, &flag) == MPI_SUCCESS && flag == 0,
          "MPI_TYPE_NULL_COPY_FN does not copy");
    check(wcopy != nullptr && old_copy != nullptr && conv == nullptr, "callback constants");
}

void check_stubs()
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win win = reinterpret_cast<MPI_Win>(&failures);
    /* windows exist (test/mpi/mpi_rma.c): created from C++, freed, nulled */
    check(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS &&
              MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL,
          "MPI_Win_create_dynamic + MPI_Win_free from C++");
    MPI_File fh = reinterpret_cast<MPI_File>(&failures);
    check(MPI_File_open(MPI_COMM_WORLD, "/nonexistent", MPI_MODE_RDONLY, MPI_INFO_NULL,
                        &fh) == MPI_ERR_UNSUPPORTED_OPERATION &&
              fh == MPI_FILE_NULL,
          "MPI_File_open: unsupported, file nulled");
    MPI_Datatype etype = MPI_INT, ftype = MPI_INT;
    MPI_Offset disp = 0;
    char rep[MPI_MAX_DATAREP_STRING];
    check(MPI_File_get_view(fh, &disp, &etype, &ftype, rep) == MPI_ERR_UNSUPPORTED_OPERATION &&
              etype == MPI_DATATYPE_NULL && ftype == MPI_DATATYPE_NULL,
          "MPI_File_get_view: both datatypes nulled");
    char port[MPI_MAX_PORT_NAME];
    check(MPI_Open_port(MPI_INFO_NULL, port) == MPI_ERR_UNSUPPORTED_OPERATION,
          "MPI_Open_port: unsupported");
    int provided = -1;
    check(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_ERR_UNSUPPORTED_OPERATION,
          "MPI_T_init_thread: unsupported");
    check(MPI_Pcontrol(1) == MPI_SUCCESS, "MPI_Pcontrol succeeds (no profiler)");

    // The user handler sees the error too.
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    check(MPI_Comm_create_errhandler(errh, &eh) == MPI_SUCCESS, "errhandler from C++");
    MPI_Errhandler_free(&eh);
}

}  // namespace

int main(int argc, char **argv)
{
    check(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    int rank = -1, result = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
    check(std::strcmp(compare_name(result), "ident") == 0, "MPI_Comm_compare in a switch");
    check(kind(MPI_COMM_WORLD) == 1 && kind(MPI_INT) == 2 && kind(MPI_SUM) == 3 &&
              kind(MPI_WIN_NULL) == 4 && kind(MPI_FILE_NULL) == 5,
          "handle types overload");

    // MPI_IN_PLACE and MPI_STATUS_IGNORE convert where C++ is strict.
    std::vector<int> v(3, rank - 5);
    MPI_Op op = MPI_OP_NULL;
    MPI_User_function *fn = max_abs;
    check(MPI_Op_create(fn, 1, &op) == MPI_SUCCESS, "MPI_Op_create from C++");
    std::vector<int> in(3, -7);
    check(MPI_Reduce_local(in.data(), v.data(), 3, MPI_INT, op) == MPI_SUCCESS && v[0] == 7,
          "MPI_Reduce_local with a user op");
    int size = 0, sum = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sum = rank;
    check(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
                  MPI_SUCCESS && sum == size * (size - 1) / 2,
          "MPI_Allreduce with MPI_IN_PLACE");
    MPI_Op_free(&op);
    int *weights = MPI_UNWEIGHTED;
    int *errcodes = MPI_ERRCODES_IGNORE;
    char **argv_null = MPI_ARGV_NULL;
    MPI_Fint *fstatus = MPI_F_STATUS_IGNORE;
    check(weights != MPI_WEIGHTS_EMPTY && errcodes == nullptr && argv_null == nullptr &&
              fstatus == nullptr && MPI_STATUS_IGNORE == nullptr,
          "special addresses");

    check_types();
    check_callbacks();
    check_stubs();

    MPI_Finalize();
    if (failures == 0 && rank == 0) {
        std::printf("cxx header: OK\n");
    }
    return failures == 0 ? 0 : 1;
}
