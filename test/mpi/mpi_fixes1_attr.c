/*
 * mpi_fixes1_attr.c: attribute delete callbacks that change the attribute
 * list they are called from (regression for MPICH's attr/attrdelete).
 *
 * A delete callback may delete other attributes of the same object, and
 * may create keyvals (growing loom's keyval table). Loom used to keep a
 * pointer into the list (and into the keyval table) across the callback,
 * then write through it: a use after free and a double free at finalize.
 * Checked here on MPI_COMM_WORLD (MPI_Comm_delete_attr), on a duplicate
 * (MPI_Comm_free deletes everything) and on MPI_COMM_SELF (MPI_Finalize);
 * every callback must run exactly once. Run under ASan for the full check.
 */
#include "mpi_test_util.h"

static int key_a, key_b, key_c;
static int deleted[3];     /* calls of the delete callback per key (a, b, c) */
static int grow_keyvals;   /* the "b" callback also creates this many keyvals */

static int count_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    ++deleted[(int)(MPI_Aint)extra];
    return MPI_SUCCESS;
}

/* key_b's callback: deletes key_a and key_c of the same communicator */
static int delete_others(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval;
    (void)val;
    (void)extra;
    ++deleted[1];
    for (int i = 0; i < grow_keyvals; ++i) {
        int k;

        MT_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k,
                                     NULL));
        MT_OK(MPI_Comm_free_keyval(&k));
    }
    MT_OK(MPI_Comm_delete_attr(comm, key_a));
    MT_OK(MPI_Comm_delete_attr(comm, key_c));
    return MPI_SUCCESS;
}

static void make_keys(void)
{
    MT_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key_a, (void *)0));
    MT_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_others, &key_b, (void *)1));
    MT_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key_c, (void *)2));
}

static void set_keys(MPI_Comm comm)
{
    deleted[0] = deleted[1] = deleted[2] = 0;
    MT_OK(MPI_Comm_set_attr(comm, key_a, (void *)1));
    MT_OK(MPI_Comm_set_attr(comm, key_b, (void *)2));
    MT_OK(MPI_Comm_set_attr(comm, key_c, (void *)3));
}

static void check_gone(MPI_Comm comm)
{
    int flag = 1;
    void *v;

    MT_EQ(deleted[0], 1);
    MT_EQ(deleted[1], 1);
    MT_EQ(deleted[2], 1);
    MT_OK(MPI_Comm_get_attr(comm, key_a, &v, &flag));
    MT_EQ(flag, 0);
    MT_OK(MPI_Comm_get_attr(comm, key_b, &v, &flag));
    MT_EQ(flag, 0);
    MT_OK(MPI_Comm_get_attr(comm, key_c, &v, &flag));
    MT_EQ(flag, 0);
}

int main(int argc, char **argv)
{
    MPI_Comm dup;

    MT_OK(MPI_Init(&argc, &argv));
    make_keys();

    /* explicit delete of the middle attribute; then with a growing table */
    for (grow_keyvals = 0; grow_keyvals <= 64; grow_keyvals += 64) {
        set_keys(MPI_COMM_WORLD);
        MT_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key_b));
        check_gone(MPI_COMM_WORLD);
    }

    /* the attributes go with their communicator: MPI_Comm_free */
    set_keys(MPI_COMM_WORLD);
    MT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key_b));
    check_gone(MPI_COMM_WORLD);
    deleted[0] = deleted[1] = deleted[2] = 0;
    MT_OK(MPI_Comm_free(&dup));
    MT_EQ(deleted[0], 1);
    MT_EQ(deleted[1], 1);
    MT_EQ(deleted[2], 1);

    /* and MPI_COMM_SELF's at MPI_Finalize */
    set_keys(MPI_COMM_SELF);
    MT_OK(MPI_Finalize());
    if (deleted[0] != 1 || deleted[1] != 1 || deleted[2] != 1) {
        fprintf(stderr, "MPI_COMM_SELF delete callbacks at finalize: %d %d %d calls\n",
                deleted[0], deleted[1], deleted[2]);
        return 1;
    }
    printf("mpi_fixes1_attr: ok\n");
    return 0;
}
