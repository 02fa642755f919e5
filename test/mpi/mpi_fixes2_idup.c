/*
 * mpi_fixes2_idup.c: several MPI_Comm_idup in flight at once on different
 * but overlapping parents (found by MPICH's comm/comm_idup_overlap), with
 * blocking MPI_Comm_dup / MPI_Comm_split on WORLD run while they are
 * pending. Each rank starts its idups in its own order (rotated by rank),
 * which is legal across communicators and is what made two idups agree on
 * one context id. Then every new communicator carries traffic: a ring of
 * messages whose payload names the communicator, with every receive posted
 * before any send and the sends in reverse order, so communicators sharing
 * a context would mix them up; and an allreduce. An intercommunicator
 * (even | odd ranks) is idup'ed among them too (its id and its hidden local
 * communicator's must not collide either). Several rounds, freeing
 * everything in between.
 *   argv[1]: rounds (default 4)
 */
#include "mpi_test_util.h"

#define NPAR 5              /* parents */
#define NNEW (NPAR + 2)     /* idups + the blocking dup and split */

static int rank, size;

/* the parents: overlapping groups, some in another rank order */
static void make_parents(MPI_Comm par[NPAR])
{
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &par[0]));
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &par[1]));
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1 ? MPI_UNDEFINED : 0, rank,
                         &par[2]));
    MT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 0, rank, &par[3]));
    MT_OK(MPI_Comm_dup(par[1], &par[4]));
}

/* idup every parent I belong to, in my own order (rotated by rank, reversed
 * on odd ranks), blocking ones between */
static void start_all(MPI_Comm par[NPAR], MPI_Comm nc[NNEW], MPI_Request req[NPAR])
{
    for (int i = 0; i < NPAR; ++i) {
        int p = (rank % 2 ? NPAR - 1 - i + rank : i + rank) % NPAR;

        nc[p]  = MPI_COMM_NULL;
        req[p] = MPI_REQUEST_NULL;
        if (par[p] != MPI_COMM_NULL) {
            MT_OK(MPI_Comm_idup(par[p], &nc[p], &req[p]));
        }
        /* blocking constructors at the same step everywhere */
        if (i == 1) {
            MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &nc[NPAR]));
        } else if (i == 2) {
            MT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &nc[NPAR + 1]));
        }
    }
}

/* ring traffic on every new communicator at once, payload = its index */
static void traffic(MPI_Comm nc[NNEW], MPI_Comm par[NPAR])
{
    MPI_Request rr[NNEW], sr[NNEW];
    int in[NNEW], out[NNEW];

    for (int c = 0; c < NNEW; ++c) {
        int r, n;

        rr[c] = sr[c] = MPI_REQUEST_NULL;
        in[c] = -1;
        if (nc[c] == MPI_COMM_NULL) {
            continue;
        }
        MT_OK(MPI_Comm_rank(nc[c], &r));
        MT_OK(MPI_Comm_size(nc[c], &n));
        MT_OK(MPI_Irecv(&in[c], 1, MPI_INT, (r + n - 1) % n, 7, nc[c], &rr[c]));
    }
    for (int c = NNEW - 1; c >= 0; --c) {
        int r, n;

        if (nc[c] == MPI_COMM_NULL) {
            continue;
        }
        MT_OK(MPI_Comm_rank(nc[c], &r));
        MT_OK(MPI_Comm_size(nc[c], &n));
        out[c] = 1000 * c + r;
        MT_OK(MPI_Isend(&out[c], 1, MPI_INT, (r + 1) % n, 7, nc[c], &sr[c]));
    }
    MT_OK(MPI_Waitall(NNEW, sr, MPI_STATUSES_IGNORE));
    MT_OK(MPI_Waitall(NNEW, rr, MPI_STATUSES_IGNORE));
    for (int c = 0; c < NNEW; ++c) {
        int r, n, sum = 0, cmp = -1;

        if (nc[c] == MPI_COMM_NULL) {
            continue;
        }
        MT_OK(MPI_Comm_rank(nc[c], &r));
        MT_OK(MPI_Comm_size(nc[c], &n));
        MT_EQ(in[c], 1000 * c + (r + n - 1) % n);
        MT_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, nc[c]));
        MT_EQ(sum, n * (n - 1) / 2);
        if (c < NPAR) {
            MT_OK(MPI_Comm_compare(nc[c], par[c], &cmp));
            MT_EQ(cmp, MPI_CONGRUENT);
        }
    }
}

/* the idup of an intercommunicator: congruent, and its allreduce sums the remote ranks */
static void check_inter(MPI_Comm c, MPI_Comm parent)
{
    int rs = 0, r = -1, sum = -1, cmp = -1;

    MT_OK(MPI_Comm_compare(c, parent, &cmp));
    MT_EQ(cmp, MPI_CONGRUENT);
    MT_OK(MPI_Comm_remote_size(c, &rs));
    MT_OK(MPI_Comm_rank(c, &r));
    MT_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
    MT_EQ(sum, rs * (rs - 1) / 2);
}

int main(int argc, char **argv)
{
    MPI_Comm par[NPAR], nc[NNEW];
    MPI_Request req[NPAR];
    MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL, inew = MPI_COMM_NULL;
    int rounds = argc > 1 ? atoi(argv[1]) : 4;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_parents(par);
    if (size >= 2) {
        MT_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        MT_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 5, &inter));
    }
    for (int k = 0; k < rounds; ++k) {
        MPI_Request ireq = MPI_REQUEST_NULL;

        if (inter != MPI_COMM_NULL && rank % 2 == 1) {
            MT_OK(MPI_Comm_idup(inter, &inew, &ireq));  /* before the others here */
        }
        start_all(par, nc, req);
        if (inter != MPI_COMM_NULL && rank % 2 == 0) {
            MT_OK(MPI_Comm_idup(inter, &inew, &ireq));  /* after them here */
        }
        MT_OK(MPI_Waitall(NPAR, req, MPI_STATUSES_IGNORE));
        MT_OK(MPI_Wait(&ireq, MPI_STATUS_IGNORE));
        traffic(nc, par);
        if (inter != MPI_COMM_NULL) {
            check_inter(inew, inter);
            MT_OK(MPI_Comm_free(&inew));
        }
        for (int c = 0; c < NNEW; ++c) {
            if (nc[c] != MPI_COMM_NULL) {
                MT_OK(MPI_Comm_free(&nc[c]));
            }
        }
    }
    for (int p = 0; p < NPAR; ++p) {
        if (par[p] != MPI_COMM_NULL) {
            MT_OK(MPI_Comm_free(&par[p]));
        }
    }
    if (inter != MPI_COMM_NULL) {
        MT_OK(MPI_Comm_free(&inter));
        MT_OK(MPI_Comm_free(&half));
    }
    MT_PASS("mpi_fixes2_idup");
    MPI_Finalize();
    return 0;
}
