/*
 * badinput_table.h: the main bad-input table (see prog_badinput.c), run
 * between loom_init and loom_finalize on every rank with LOOM_ERRORS=return.
 * R(name, expected status, text the log must contain ($N = size,
 *   $M = size - 1), known bug or NULL, call)
 * Rows whose call is collective fail locally, before any message is sent,
 * so every rank may run them alone.
 */

/* ---- ranks ---- */
R(send_rank_negative, LOOM_ERR_INVALID_RANK,
  "loom_send: rank -5 is not valid for communicator 'WORLD' of size $N (0..$M", NULL,
  loom_send(sbuf, 1, LOOM_INT32, -5, 0, W))
R(send_rank_any_source, LOOM_ERR_INVALID_RANK, "loom_send: rank -1 is not valid", NULL,
  loom_send(sbuf, 1, LOOM_INT32, LOOM_ANY_SOURCE, 0, W))
R(send_rank_size, LOOM_ERR_INVALID_RANK, "rank $N is not valid for communicator 'WORLD' of size $N",
  NULL, loom_send(sbuf, 1, LOOM_INT32, size, 0, W))
R(send_rank_int_max, LOOM_ERR_INVALID_RANK, "rank 2147483647 is not valid", NULL,
  loom_send(sbuf, 1, LOOM_INT32, INT_MAX, 0, W))
R(ssend_rank_size, LOOM_ERR_INVALID_RANK, "loom_ssend: rank $N is not valid", NULL,
  loom_ssend(sbuf, 1, LOOM_INT32, size, 0, W))
R(isend_rank_size, LOOM_ERR_INVALID_RANK, "loom_isend: rank $N is not valid", NULL,
  loom_isend(sbuf, 1, LOOM_INT32, size, 0, W, &stale_req))
R(recv_rank_minus3, LOOM_ERR_INVALID_RANK,
  "loom_recv: rank -3 is not valid for communicator 'WORLD' of size $N (0..$M, LOOM_ANY_SOURCE",
  NULL, loom_recv(rbuf, 1, LOOM_INT32, -3, 0, W, LOOM_STATUS_IGNORE))
R(irecv_rank_size, LOOM_ERR_INVALID_RANK, "loom_irecv: rank $N is not valid", NULL,
  loom_irecv(rbuf, 1, LOOM_INT32, size, 0, W, &stale_req))
R(probe_rank_size, LOOM_ERR_INVALID_RANK, "loom_probe: rank $N is not valid", NULL,
  loom_probe(size, 0, W, LOOM_STATUS_IGNORE))
R(self_rank_1, LOOM_ERR_INVALID_RANK, "rank 1 is not valid for communicator 'SELF' of size 1",
  NULL, loom_send(sbuf, 1, LOOM_INT32, 1, 0, LOOM_COMM_SELF))
R(world_rank_out_of_range, LOOM_ERR_INVALID_RANK,
  "loom_comm_world_rank: rank $N is out of range for communicator 'WORLD' of size $N", NULL,
  int_call(loom_comm_world_rank(W, size), LOOM_ERR_INVALID_RANK))

/* ---- tags ---- */
R(send_tag_negative, LOOM_ERR_INVALID_TAG, "loom_send: tag -1 is not valid (0..2147483647)",
  NULL, loom_send(sbuf, 1, LOOM_INT32, 0, -1, W))
R(send_tag_int_min, LOOM_ERR_INVALID_TAG, "tag -2147483648 is not valid (0..2147483647)", NULL,
  loom_send(sbuf, 1, LOOM_INT32, 0, INT_MIN, W))
R(recv_tag_minus2, LOOM_ERR_INVALID_TAG,
  "loom_recv: tag -2 is not valid (0..2147483647, or LOOM_ANY_TAG)", NULL,
  loom_recv(rbuf, 1, LOOM_INT32, 0, -2, W, LOOM_STATUS_IGNORE))
R(irecv_tag_negative, LOOM_ERR_INVALID_TAG, "loom_irecv: tag -7 is not valid", NULL,
  loom_irecv(rbuf, 1, LOOM_INT32, 0, -7, W, &stale_req))
R(iprobe_tag_negative, LOOM_ERR_INVALID_TAG, "loom_iprobe: tag -9 is not valid", NULL,
  loom_iprobe(0, -9, W, &(int){ 0 }, LOOM_STATUS_IGNORE))

/* ---- counts ---- */
R(send_count_minus1, LOOM_ERR_INVALID_COUNT,
  "loom_send: count 18446744073709551615 (as signed: -1) is negative or too large for datatype int32",
  NULL, loom_send(sbuf, (size_t)-1, LOOM_INT32, 0, 0, W))
R(send_count_too_large, LOOM_ERR_INVALID_COUNT, "too large for datatype int64", NULL,
  loom_send(sbuf, (size_t)SSIZE_MAX / 4, LOOM_INT64, 0, 0, W))
R(irecv_count_negative, LOOM_ERR_INVALID_COUNT, "loom_irecv: count 18446744073709551611 (as signed: -5)",
  NULL, loom_irecv(rbuf, (size_t)-5, LOOM_INT32, 0, 0, W, &stale_req))
R(allreduce_count_overflow, LOOM_ERR_INVALID_COUNT,
  "loom_allreduce: count 18446744073709551615 x 1 blocks of 4 bytes overflows", NULL,
  loom_allreduce(sbuf, rbuf, SIZE_MAX, LOOM_INT32, LOOM_SUM, W))
R(allgather_count_overflow, LOOM_ERR_INVALID_COUNT,
  "loom_allgather: count 4611686018427387904 x $N blocks of 4 bytes overflows", NULL,
  loom_allgather(sbuf, rbuf, (size_t)1 << 62, LOOM_INT32, W))
R(bcast_count_negative, LOOM_ERR_INVALID_COUNT, "loom_bcast: count 18446744073709551615",
  NULL, loom_bcast(sbuf, (size_t)-1, LOOM_INT32, 0, W))

/* ---- datatypes ---- */
R(send_type_negative, LOOM_ERR_INVALID_TYPE, "loom_send: datatype -1 is not valid (0..21)",
  NULL, loom_send(sbuf, 1, (loom_datatype_t)-1, 0, 0, W))
R(send_type_count, LOOM_ERR_INVALID_TYPE, "datatype 22 is not valid (0..21)", NULL,
  loom_send(sbuf, 1, LOOM_DATATYPE_COUNT, 0, 0, W))
R(recv_type_999, LOOM_ERR_INVALID_TYPE, "loom_recv: datatype 999 is not valid", NULL,
  loom_recv(rbuf, 1, (loom_datatype_t)999, 0, 0, W, LOOM_STATUS_IGNORE))
R(allreduce_type_bad, LOOM_ERR_INVALID_TYPE, "loom_allreduce: datatype 99 is not a loom datatype",
  NULL, loom_allreduce(sbuf, rbuf, 1, (loom_datatype_t)99, LOOM_SUM, W))
R(bcast_type_bad, LOOM_ERR_INVALID_TYPE, "loom_bcast: datatype -3", NULL,
  loom_bcast(sbuf, 1, (loom_datatype_t)-3, 0, W))
R(get_count_type_bad, LOOM_ERR_INVALID_TYPE, "loom_get_count: datatype 42 is not valid (0..21)",
  NULL, get_count_bad_type())

/* ---- reduction operations ---- */
R(allreduce_op_999, LOOM_ERR_INVALID_OP, "loom_allreduce: operation 999", NULL,
  loom_allreduce(sbuf, rbuf, 1, LOOM_INT32, (loom_op_t)999, W))
R(allreduce_op_null, LOOM_ERR_INVALID_OP, "loom_allreduce: operation 0", NULL,
  loom_allreduce(sbuf, rbuf, 1, LOOM_INT32, LOOM_OP_NULL, W))
R(allreduce_band_float, LOOM_ERR_INVALID_OP,
  "loom_allreduce: operation 'band' is not defined for datatype 'float'", NULL,
  loom_allreduce(sbuf, rbuf, 1, LOOM_FLOAT, LOOM_BAND, W))
R(reduce_minloc_int32, LOOM_ERR_INVALID_OP, "operation 'minloc' is not defined for datatype 'int32'",
  NULL, loom_reduce(sbuf, rbuf, 1, LOOM_INT32, LOOM_MINLOC, 0, W))
R(allreduce_freed_user_op, LOOM_ERR_INVALID_OP, "is neither predefined nor a live user", NULL,
  loom_allreduce(sbuf, rbuf, 1, LOOM_INT32, freed_op, W))
R(op_reduce_null_in, LOOM_ERR_INVALID_BUFFER, "loom_op_reduce: in is NULL with count 4", NULL,
  loom_op_reduce(LOOM_SUM, NULL, rbuf, 4, LOOM_INT32))
R(op_create_null_fn, LOOM_ERR_INVALID_ARG, "loom_op_create: fn is NULL", NULL,
  loom_op_create(NULL, NULL, 1, &freed_op))
R(op_free_predefined, LOOM_ERR_INVALID_OP, "loom_op_free: operation 1 is not a live user operation",
  NULL, free_predefined_op())
R(op_free_twice, LOOM_ERR_INVALID_OP, "is not a live user operation", NULL, double_op_free())

/* ---- communicators ---- */
R(send_comm_null, LOOM_ERR_INVALID_COMM, "loom_send: communicator is LOOM_COMM_NULL", NULL,
  loom_send(sbuf, 1, LOOM_INT32, 0, 0, LOOM_COMM_NULL))
R(send_not_a_comm, LOOM_ERR_INVALID_COMM, "is not a communicator", NULL,
  loom_send(sbuf, 1, LOOM_INT32, 0, 0, NOTCOMM))
R(barrier_comm_null, LOOM_ERR_INVALID_COMM, "loom_barrier: communicator is LOOM_COMM_NULL", NULL,
  loom_barrier(LOOM_COMM_NULL))
R(comm_rank_null, LOOM_ERR_INVALID_COMM, "loom_comm_rank: communicator is LOOM_COMM_NULL", NULL,
  int_call(loom_comm_rank(LOOM_COMM_NULL), LOOM_ERR_INVALID_COMM))
R(send_freed_comm, LOOM_ERR_INVALID_COMM, "loom_send: communicator", NULL,
  loom_send(sbuf, 1, LOOM_INT32, 0, 0, freed_comm))
R(freed_comm_named, LOOM_ERR_INVALID_COMM, "was freed", NULL,
  loom_irecv(rbuf, 1, LOOM_INT32, 0, 0, freed_comm, &stale_req))
R(barrier_freed_comm, LOOM_ERR_INVALID_COMM, "loom_barrier: communicator", NULL,
  loom_barrier(freed_comm))
R(dup_freed_comm, LOOM_ERR_INVALID_COMM, "was freed", NULL, dup_freed_out())
R(comm_free_twice, LOOM_ERR_INVALID_COMM, "loom_comm_free: communicator", NULL,
  double_comm_free())
R(comm_free_null_ptr, LOOM_ERR_INVALID_ARG, "loom_comm_free: comm_p is NULL", NULL,
  loom_comm_free(NULL))
R(comm_free_world, LOOM_ERR_INVALID_COMM, "loom_comm_free: LOOM_COMM_WORLD cannot be freed", NULL,
  free_world())
R(comm_free_self, LOOM_ERR_INVALID_COMM, "loom_comm_free: LOOM_COMM_SELF cannot be freed", NULL,
  free_self())
R(comm_dup_null_out, LOOM_ERR_INVALID_ARG, "loom_comm_dup: newcomm_p is NULL", NULL,
  loom_comm_dup(W, NULL))
R(comm_split_null_out, LOOM_ERR_INVALID_ARG, "loom_comm_split: newcomm_p is NULL", NULL,
  split_null_out())
R(comm_dup_comm_null, LOOM_ERR_INVALID_COMM, "loom_comm_dup: communicator is LOOM_COMM_NULL",
  NULL, loom_comm_dup(LOOM_COMM_NULL, &freed_comm))

/* ---- buffers ---- */
R(send_null_buffer, LOOM_ERR_INVALID_BUFFER, "loom_send: buffer is NULL with count 4", NULL,
  loom_send(NULL, 4, LOOM_INT32, 0, 0, W))
R(recv_null_buffer, LOOM_ERR_INVALID_BUFFER, "loom_recv: buffer is NULL with count 1", NULL,
  loom_recv(NULL, 1, LOOM_INT32, 0, 0, W, LOOM_STATUS_IGNORE))
R(isend_null_req, LOOM_ERR_INVALID_ARG, "loom_isend: req_p is NULL", NULL,
  loom_isend(sbuf, 1, LOOM_INT32, 0, 0, W, NULL))
R(irecv_null_req, LOOM_ERR_INVALID_ARG, "loom_irecv: req_p is NULL", NULL,
  loom_irecv(rbuf, 1, LOOM_INT32, 0, 0, W, NULL))
R(iprobe_null_flag, LOOM_ERR_INVALID_ARG, "loom_iprobe: flag_p is NULL", NULL,
  loom_iprobe(0, 0, W, NULL, LOOM_STATUS_IGNORE))
R(get_count_null_status, LOOM_ERR_INVALID_ARG, "loom_get_count: status is NULL", NULL,
  loom_get_count(NULL, LOOM_INT32, &counts[0]))
R(bcast_null_buffer, LOOM_ERR_INVALID_BUFFER, "loom_bcast: buf is NULL with count 3", NULL,
  loom_bcast(NULL, 3, LOOM_INT32, 0, W))
R(allreduce_null_sendbuf, LOOM_ERR_INVALID_BUFFER, "loom_allreduce: sendbuf is NULL with count 2",
  NULL, loom_allreduce(NULL, rbuf, 2, LOOM_INT32, LOOM_SUM, W))
R(allgather_null_recvbuf, LOOM_ERR_INVALID_BUFFER, "loom_allgather: recvbuf is NULL", NULL,
  loom_allgather(sbuf, NULL, 1, LOOM_INT32, W))
R(ibarrier_null_req, LOOM_ERR_INVALID_ARG, "loom_ibarrier: req_p is NULL", NULL,
  loom_ibarrier(W, NULL))
R(ibcast_null_req, LOOM_ERR_INVALID_ARG, "loom_ibcast: req_p is NULL",
  NULL, loom_ibcast(sbuf, 1, LOOM_INT32, 0, W, NULL))
R(iallreduce_null_req, LOOM_ERR_INVALID_ARG, "loom_iallreduce: req_p is NULL",
  NULL,
  loom_iallreduce(sbuf, rbuf, 1, LOOM_INT32, LOOM_SUM, W, NULL))
R(ialltoall_null_req, LOOM_ERR_INVALID_ARG, "loom_ialltoall: req_p is NULL",
  NULL, loom_ialltoall(sbuf, rbuf, 1, LOOM_INT32, W, NULL))
R(allgatherv_null_counts, LOOM_ERR_INVALID_ARG, "loom_allgatherv: recvcounts or displs is NULL",
  NULL, loom_allgatherv(sbuf, 1, rbuf, NULL, NULL, LOOM_INT32, W))
R(alltoallv_null_counts, LOOM_ERR_INVALID_ARG, "loom_alltoallv: send counts is NULL", NULL,
  loom_alltoallv(sbuf, NULL, displs, rbuf, counts, displs, LOOM_INT32, W))

/* ---- in-place misuse and aliasing ---- */
R(allreduce_recvbuf_in_place, LOOM_ERR_INVALID_BUFFER,
  "loom_allreduce: LOOM_IN_PLACE is not valid as recvbuf", NULL,
  loom_allreduce(sbuf, LOOM_IN_PLACE, 1, LOOM_INT32, LOOM_SUM, W))
R(bcast_buf_in_place, LOOM_ERR_INVALID_BUFFER, "loom_bcast: LOOM_IN_PLACE is not valid as buf",
  NULL, loom_bcast(LOOM_IN_PLACE, 1, LOOM_INT32, 0, W))
R(reduce_in_place_non_root, LOOM_ERR_INVALID_BUFFER,
  "loom_reduce: LOOM_IN_PLACE is valid only at the root", NULL,
  loom_reduce(LOOM_IN_PLACE, rbuf, 1, LOOM_INT32, LOOM_SUM, other_root(), W))
R(gather_in_place_non_root, LOOM_ERR_INVALID_BUFFER,
  "loom_gather: LOOM_IN_PLACE is valid only at the root", NULL,
  loom_gather(LOOM_IN_PLACE, rbuf, 1, LOOM_INT32, other_root(), W))
R(scatter_in_place_non_root, LOOM_ERR_INVALID_BUFFER,
  "loom_scatter: LOOM_IN_PLACE is valid only at the root", NULL,
  loom_scatter(sbuf, LOOM_IN_PLACE, 1, LOOM_INT32, other_root(), W))
R(allreduce_aliased_buffers, LOOM_ERR_INVALID_BUFFER, "alias", NULL,
  loom_allreduce(rbuf, rbuf, 4, LOOM_INT32, LOOM_SUM, W))
R(allgather_aliased_buffers, LOOM_ERR_INVALID_BUFFER, "alias", NULL,
  loom_allgather(rbuf, rbuf, 1, LOOM_INT32, W))

/* ---- roots ---- */
R(bcast_root_negative, LOOM_ERR_INVALID_ROOT,
  "loom_bcast: root -1 is out of range for communicator WORLD of $N ranks", NULL,
  loom_bcast(sbuf, 1, LOOM_INT32, -1, W))
R(bcast_root_size, LOOM_ERR_INVALID_ROOT, "loom_bcast: root $N is out of range", NULL,
  loom_bcast(sbuf, 1, LOOM_INT32, size, W))
R(reduce_root_size, LOOM_ERR_INVALID_ROOT, "loom_reduce: root $N is out of range", NULL,
  loom_reduce(sbuf, rbuf, 1, LOOM_INT32, LOOM_SUM, size, W))
R(gather_root_negative, LOOM_ERR_INVALID_ROOT, "loom_gather: root -2 is out of range", NULL,
  loom_gather(sbuf, rbuf, 1, LOOM_INT32, -2, W))
R(scatterv_root_size, LOOM_ERR_INVALID_ROOT, "loom_scatterv: root $N is out of range", NULL,
  loom_scatterv(sbuf, counts, displs, rbuf, 1, LOOM_INT32, size, W))

/* ---- mismatched vector arguments (detectable locally) ---- */
R(gatherv_root_count_mismatch, LOOM_ERR_INVALID_COUNT,
  "loom_gatherv: the root sends 3 elements but recvcounts", NULL, gatherv_count_mismatch())
R(allgatherv_count_mismatch, LOOM_ERR_INVALID_COUNT, "sends 2 elements but recvcounts", NULL,
  allgatherv_count_mismatch())
R(allgatherv_counts_overflow, LOOM_ERR_INVALID_COUNT, "overflow", NULL,
  allgatherv_count_overflow())
R(alltoallv_counts_overflow, LOOM_ERR_INVALID_COUNT, "overflow", NULL,
  alltoallv_count_overflow())

/* ---- requests ---- */
R(wait_null_pointer, LOOM_ERR_INVALID_ARG, "loom_wait: the request pointer is NULL", NULL,
  loom_wait(NULL, LOOM_STATUS_IGNORE))
R(test_null_flag, LOOM_ERR_INVALID_ARG, "loom_test: flag_p is NULL", NULL, test_flag_null())
R(request_free_twice, LOOM_ERR_INVALID_REQUEST, "loom_request_free: request", NULL,
  double_request_free())
R(wait_released_request, LOOM_ERR_INVALID_REQUEST,
  "is not active (already completed or freed)", NULL, wait_stale())
R(test_released_request, LOOM_ERR_INVALID_REQUEST, "loom_test: request", NULL, test_stale())
R(waitall_null_array, LOOM_ERR_INVALID_ARG, "loom_waitall: the request array is NULL with n = 2",
  NULL, loom_waitall(2, NULL, NULL))
R(waitall_released_request, LOOM_ERR_INVALID_REQUEST, "loom_waitall: request", NULL,
  waitall_with_stale())
R(waitany_null_index, LOOM_ERR_INVALID_ARG, "loom_waitany: index_p is NULL", NULL,
  waitany_index_null())
R(testall_null_flag, LOOM_ERR_INVALID_ARG, "loom_testall: flag_p is NULL", NULL,
  testall_flag_null())
R(testany_null_flag, LOOM_ERR_INVALID_ARG, "loom_testany: flag_p is NULL", NULL,
  testany_flag_null())
R(cancel_null_request, LOOM_ERR_INVALID_REQUEST, "loom_cancel: the request is LOOM_REQUEST_NULL",
  NULL, cancel_null_request())
R(start_not_persistent, LOOM_ERR_INVALID_REQUEST, "is not persistent", NULL,
  start_not_persistent())

/* ---- init ---- */
R(init_twice, LOOM_ERR_ALREADY_INIT, "loom_init: already initialized", NULL,
  loom_init(NULL, NULL))
