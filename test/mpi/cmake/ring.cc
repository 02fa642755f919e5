// ring.cc: the C++ twin of ring.c (a std::vector token, sum checked).
#include <mpi.h>
#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<long> mine(4, rank), sum(4, 0);
    MPI_Allreduce(mine.data(), sum.data(), 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const long want = static_cast<long>(size) * (size - 1) / 2;
    bool ok = true;
    for (long v : sum) {
        ok = ok && v == want;
    }
    if (rank == 0) {
        std::printf("ring_cxx: sum %ld over %d ranks%s\n", sum[0], size, ok ? "" : " WRONG");
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
