/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A serve session's wire, the session's side (serve_wire.h has the
 * frames): wait for the server's word, hand it one command. The server's
 * side, which decodes, is the runner's (src/exec/serve.c).
 */
#include <errno.h>

#include "cleanup.h"
#include "msgbuf.h"
#include "msgframe.h"
#include "serve_wire.h"

int serve_wire_wait_ready(int sock)
{
	struct msg_frame f = {};
	int r = msg_frame_read(sock, 16, &f);
	bool ready = r > 0 && f.type == SERVE_MSG_READY && f.nfds == 0;

	msg_frame_done(&f);
	if (r < 0)
		return r;
	return ready ? 0 : r == 0 ? -ECONNRESET : -EBADMSG;
}

int serve_wire_send(int sock, const struct serve_wire_run *q)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(MSG_FRAME_MAX);
	int fds[4] = { q->stdio[0], q->stdio[1], q->stdio[2], q->ctl }, r;

	if (!b)
		return -ENOMEM;
	if (!q->argv || !q->argv[0] || !q->cwd || q->n_rlimits > SERVE_RLIMITS_MAX)
		return -EINVAL;
	if ((r = msgbuf_put_cstring(b, q->cwd)) < 0 || (r = msgbuf_put_u64(b, q->cwd_dev)) < 0 ||
	    (r = msgbuf_put_u64(b, q->cwd_ino)) < 0 ||
	    (r = msgbuf_put_strv(b, (char *const *)q->argv, SERVE_ARGV_MAX, SERVE_STRING_MAX)) < 0 ||
	    (r = msgbuf_put_strv(b, q->env ? (char *const *)q->env : (char *const[]){ NULL }, SERVE_ENV_MAX,
				 SERVE_STRING_MAX)) < 0 ||
	    (r = msgbuf_put_u32(b, (uint32_t)q->n_rlimits)) < 0)
		return r;
	for (size_t i = 0; i < q->n_rlimits; i++)
		if ((r = msgbuf_put_u32(b, (uint32_t)q->rlimit_resource[i])) < 0 ||
		    (r = msgbuf_put_u64(b, q->rlimit_value[i])) < 0)
			return r;
	/* its cgroup first: the server holds it for the request that follows */
	if (q->cgroup_procs >= 0 && (r = msg_frame_write(sock, SERVE_MSG_CGROUP, NULL, &q->cgroup_procs, 1)) < 0)
		return r;
	return msg_frame_write(sock, SERVE_MSG_RUN, b, fds, 4);
}
