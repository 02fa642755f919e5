/*
 * mpi_unsupported.c: calls outside loom's MPI subset that programs may still
 * reference. Each links, sets its output handles to the null handle, and
 * raises MPI_ERR_UNSUPPORTED_OPERATION naming the call and the missing
 * feature, so a program fails loudly (MPI_ERRORS_ARE_FATAL) or can take
 * another path (MPI_ERRORS_RETURN); it never gets silently wrong results.
 */
#include "mpi_int.h"

static int loom_mpi_unsupported(MPI_Comm comm, const char *call, const char *what)
{
    if (comm != MPI_COMM_NULL && comm->magic != LOOM_MPI_COMM_MAGIC) {
        comm = MPI_COMM_NULL;  /* raised on MPI_COMM_WORLD */
    }
    return loom_mpi_raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                          "%s is outside loom's MPI subset (%s)", call,
                          what);
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                    MPI_Comm comm, MPI_Win *win)
{
    (void)base;
    (void)size;
    (void)disp_unit;
    (void)info;
    if (win != NULL) {
        *win = MPI_WIN_NULL;
    }
    return loom_mpi_unsupported(comm, "MPI_Win_create",
                                "one-sided communication (windows)");
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      void *baseptr, MPI_Win *win)
{
    (void)size;
    (void)disp_unit;
    (void)info;
    (void)baseptr;
    if (win != NULL) {
        *win = MPI_WIN_NULL;
    }
    return loom_mpi_unsupported(comm, "MPI_Win_allocate",
                                "one-sided communication (windows)");
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    (void)win;
    return loom_mpi_unsupported(NULL, "MPI_Win_free",
                                "one-sided communication (windows)");
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert_, MPI_Win win)
{
    (void)assert_;
    (void)win;
    return loom_mpi_unsupported(NULL, "MPI_Win_fence",
                                "one-sided communication (windows)");
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert_, MPI_Win win)
{
    (void)lock_type;
    (void)rank;
    (void)assert_;
    (void)win;
    return loom_mpi_unsupported(NULL, "MPI_Win_lock",
                                "one-sided communication (windows)");
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    (void)rank;
    (void)win;
    return loom_mpi_unsupported(NULL, "MPI_Win_unlock",
                                "one-sided communication (windows)");
}

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)win;
    return loom_mpi_unsupported(NULL, "MPI_Put", "one-sided communication (RMA)");
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)win;
    return loom_mpi_unsupported(NULL, "MPI_Get", "one-sided communication (RMA)");
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void *origin_addr, int origin_count,
                    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                    int target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPI_Win win)
{
    (void)origin_addr;
    (void)origin_count;
    (void)origin_datatype;
    (void)target_rank;
    (void)target_disp;
    (void)target_count;
    (void)target_datatype;
    (void)op;
    (void)win;
    return loom_mpi_unsupported(NULL, "MPI_Accumulate", "one-sided communication (RMA)");
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    (void)ndims;
    (void)dims;
    (void)periods;
    (void)reorder;
    if (comm_cart != NULL) {
        *comm_cart = MPI_COMM_NULL;
    }
    return loom_mpi_unsupported(comm_old, "MPI_Cart_create", "process topologies");
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    (void)rank;
    (void)maxdims;
    (void)coords;
    return loom_mpi_unsupported(comm, "MPI_Cart_coords", "process topologies");
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    (void)coords;
    (void)rank;
    return loom_mpi_unsupported(comm, "MPI_Cart_rank", "process topologies");
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                    int *rank_dest)
{
    (void)direction;
    (void)disp;
    (void)rank_source;
    (void)rank_dest;
    return loom_mpi_unsupported(comm, "MPI_Cart_shift", "process topologies");
}

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    (void)nnodes;
    (void)ndims;
    (void)dims;
    return loom_mpi_unsupported(NULL, "MPI_Dims_create", "process topologies");
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    (void)nnodes;
    (void)index;
    (void)edges;
    (void)reorder;
    if (comm_graph != NULL) {
        *comm_graph = MPI_COMM_NULL;
    }
    return loom_mpi_unsupported(comm_old, "MPI_Graph_create", "process topologies");
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)indegree;
    (void)sources;
    (void)sourceweights;
    (void)outdegree;
    (void)destinations;
    (void)destweights;
    (void)info;
    (void)reorder;
    if (comm_dist_graph != NULL) {
        *comm_dist_graph = MPI_COMM_NULL;
    }
    return loom_mpi_unsupported(comm_old, "MPI_Dist_graph_create_adjacent",
                                "process topologies");
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    (void)count;
    (void)blocklength;
    (void)stride;
    (void)oldtype;
    if (newtype != NULL) {
        *newtype = MPI_DATATYPE_NULL;
    }
    return loom_mpi_unsupported(NULL, "MPI_Type_vector", "non-contiguous datatypes");
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    (void)count;
    (void)blocklength;
    (void)stride;
    (void)oldtype;
    if (newtype != NULL) {
        *newtype = MPI_DATATYPE_NULL;
    }
    return loom_mpi_unsupported(NULL, "MPI_Type_create_hvector",
                                "non-contiguous datatypes");
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    (void)count;
    (void)array_of_blocklengths;
    (void)array_of_displacements;
    (void)oldtype;
    if (newtype != NULL) {
        *newtype = MPI_DATATYPE_NULL;
    }
    return loom_mpi_unsupported(NULL, "MPI_Type_indexed", "non-contiguous datatypes");
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    (void)count;
    (void)array_of_blocklengths;
    (void)array_of_displacements;
    (void)array_of_types;
    if (newtype != NULL) {
        *newtype = MPI_DATATYPE_NULL;
    }
    return loom_mpi_unsupported(NULL, "MPI_Type_create_struct",
                                "non-contiguous datatypes");
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    (void)ndims;
    (void)array_of_sizes;
    (void)array_of_subsizes;
    (void)array_of_starts;
    (void)order;
    (void)oldtype;
    if (newtype != NULL) {
        *newtype = MPI_DATATYPE_NULL;
    }
    return loom_mpi_unsupported(NULL, "MPI_Type_create_subarray",
                                "non-contiguous datatypes");
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    (void)oldtype;
    (void)lb;
    (void)extent;
    if (newtype != NULL) {
        *newtype = MPI_DATATYPE_NULL;
    }
    return loom_mpi_unsupported(NULL, "MPI_Type_create_resized",
                                "non-contiguous datatypes (resized extents)");
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
              int outsize, int *position, MPI_Comm comm)
{
    (void)inbuf;
    (void)incount;
    (void)datatype;
    (void)outbuf;
    (void)outsize;
    (void)position;
    return loom_mpi_unsupported(comm, "MPI_Pack", "packing");
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    (void)inbuf;
    (void)insize;
    (void)position;
    (void)outbuf;
    (void)outcount;
    (void)datatype;
    return loom_mpi_unsupported(comm, "MPI_Unpack", "packing");
}

#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info,
                    int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    (void)command;
    (void)argv;
    (void)maxprocs;
    (void)info;
    (void)root;
    (void)array_of_errcodes;
    if (intercomm != NULL) {
        *intercomm = MPI_COMM_NULL;
    }
    return loom_mpi_unsupported(comm, "MPI_Comm_spawn", "dynamic process management");
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)datatype;
    (void)op;
    return loom_mpi_unsupported(comm, "MPI_Scan", "prefix reductions (no native scan)");
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)datatype;
    (void)op;
    return loom_mpi_unsupported(comm, "MPI_Exscan", "prefix reductions (no native scan)");
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)recvcounts;
    (void)datatype;
    (void)op;
    return loom_mpi_unsupported(comm, "MPI_Reduce_scatter",
                                "per-rank counts; use MPI_Reduce_scatter_block");
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    (void)buf;
    (void)count;
    (void)datatype;
    (void)dest;
    (void)tag;
    return loom_mpi_unsupported(comm, "MPI_Bsend", "buffered-mode sends");
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    (void)buffer;
    (void)size;
    return loom_mpi_unsupported(NULL, "MPI_Buffer_attach", "buffered-mode sends");
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    (void)buf;
    (void)count;
    (void)datatype;
    (void)dest;
    (void)tag;
    if (request != NULL) {
        *request = MPI_REQUEST_NULL;
    }
    return loom_mpi_unsupported(comm, "MPI_Send_init", "persistent requests");
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    (void)buf;
    (void)count;
    (void)datatype;
    (void)source;
    (void)tag;
    if (request != NULL) {
        *request = MPI_REQUEST_NULL;
    }
    return loom_mpi_unsupported(comm, "MPI_Recv_init", "persistent requests");
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    (void)request;
    return loom_mpi_unsupported(NULL, "MPI_Start", "persistent requests");
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    (void)count;
    (void)array_of_requests;
    return loom_mpi_unsupported(NULL, "MPI_Startall", "persistent requests");
}

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    if (info != NULL) {
        *info = MPI_INFO_NULL;
    }
    return loom_mpi_unsupported(NULL, "MPI_Info_create",
                                "info objects (pass MPI_INFO_NULL)");
}

#pragma weak MPI_File_open = PMPI_File_open
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                   MPI_File *fh)
{
    (void)filename;
    (void)amode;
    (void)info;
    if (fh != NULL) {
        *fh = MPI_FILE_NULL;
    }
    return loom_mpi_unsupported(comm, "MPI_File_open", "MPI-IO");
}
