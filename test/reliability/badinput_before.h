/*
 * badinput_before.h: rows run before loom_init (see prog_badinput.c).
 * B(name, expected status, text the log must contain, known bug or NULL, call)
 */
B(send_before_init, LOOM_ERR_NOT_INITIALIZED, "loom_send: called before loom_init()", NULL,
  loom_send(sbuf, 1, LOOM_INT32, 0, 0, W))
B(irecv_before_init, LOOM_ERR_NOT_INITIALIZED, "loom_irecv: called before loom_init()", NULL,
  loom_irecv(rbuf, 1, LOOM_INT32, 0, 0, W, &stale_req))
B(barrier_before_init, LOOM_ERR_NOT_INITIALIZED, "loom_barrier: called before loom_init()",
  NULL, loom_barrier(W))
B(wait_before_init, LOOM_ERR_NOT_INITIALIZED, "loom_wait: called before loom_init()", NULL,
  loom_wait(&stale_req, LOOM_STATUS_IGNORE))
B(comm_size_before_init, LOOM_ERR_NOT_INITIALIZED, "before loom_init()", NULL,
  int_call(loom_comm_size(W), LOOM_ERR_NOT_INITIALIZED))
B(finalize_before_init, LOOM_ERR_NOT_INITIALIZED, "loom_finalize: loom is not initialized",
  NULL, loom_finalize())
