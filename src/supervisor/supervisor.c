/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The supervisor: set-up before the session (binaries and their identity,
 * hashed in a thread while the session starts; the audit log, the approval
 * backends, the session's endpoint), then one libevent loop that drives the
 * session and everything it asks for, then the end: every tool still
 * running is killed, the log closed, the hasher stopped.
 */
#include <errno.h>
#include <event2/thread.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "call.h"
#include "call_run.h"
#include "cleanup.h"
#include "endpoint.h"
#include "cred_chan.h"
#include "cred_store.h"
#include "crypto.h"
#include "errbuf.h"
#include "open_url.h"
#include "supervisor.h"
#include "tool_bin.h"
#include "tool_homes.h"
#include "tools.h"

/* How long the end waits for killed tools to be reaped. */
#define SUP_END_MS 5000

static int backend_lookup(void *ctx, const char *name, struct cordon_approval_backend *ret)
{
	return cordon_tools_backend(ctx, name, ret);
}

int supervisor_new(const struct supervisor_config *cfg, struct supervisor **ret, char *err, size_t errlen)
{
	static bool threads;
	struct supervisor *s;
	struct event_config *ec;
	struct cordon_error e = {};
	char id[64];
	int r;

	if (!threads) {
		if (evthread_use_pthreads() < 0)
			return errbuf_set(err, errlen, -ENOSYS, "libevent has no thread support");
		threads = true;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->session_fd[0] = s->session_fd[1] = -1;
	s->session_pidfd = -1;
	s->homes_held = -1;
	s->accept = call_accept;
	s->profile = cfg->profile;
	s->tools = cordon_profile_tools(cfg->profile);
	if (!s->tools) {
		supervisor_free(s);
		return errbuf_set(err, errlen, -EINVAL, "the profile has no command_policies");
	}
	/* poll, not epoll: the session's stdin may be a regular file */
	ec = event_config_new();
	if (ec)
		event_config_avoid_method(ec, "epoll");
	s->base = ec ? event_base_new_with_config(ec) : NULL;
	if (ec)
		event_config_free(ec);
	if (!s->base) {
		supervisor_free(s);
		return -ENOMEM;
	}
	r = cordon_shim_path(&s->shim_path);
	if (r < 0) {
		supervisor_free(s);
		return errbuf_set(err, errlen, r, "cannot find cordon-shim (beside cordon, or CORDON_SHIM): %s",
			    strerror(-r));
	}
	r = cordon_toolbox_new(cfg->profile, cfg->path_env, cfg->session_writable, s->shim_path, &s->box, &e);
	if (r < 0) {
		supervisor_free(s);
		return errbuf_set(err, errlen, r, "%s", e.message);
	}
	r = tool_bins_record(s, err, errlen);
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		supervisor_free(s);
		return r;
	}
	r = audit_new_session_id(id, sizeof(id));
	if (r >= 0 && !(s->session_id = strdup(id)))
		r = -ENOMEM;
	if (r >= 0) {
		struct audit_session as = {
			.session_id = s->session_id,
			.profile = cfg->profile_name ? cfg->profile_name : cordon_profile_name(cfg->profile),
			.profile_file = cordon_profile_file(cfg->profile),
			.workspace = cordon_profile_workspace(cfg->profile),
		};

		r = audit_open(cfg->audit_dir, &as, &s->audit);
		if (r < 0) {
			supervisor_free(s);
			return errbuf_set(err, errlen, r, "cannot open the audit log: %s", strerror(-r));
		}
		/* the logs are the supervisor's: no sandbox reads another
		 * session's calls, nor its own */
		_cleanup_free_ char *dir = NULL;
		struct cordon_error he = {};

		r = audit_dir_path(cfg->audit_dir, &dir);
		if (r >= 0 && (r = cordon_toolbox_hide(s->box, dir, &he)) < 0) {
			supervisor_free(s);
			return errbuf_set(err, errlen, r, "cannot hide the audit directory: %s", he.message);
		}
		/* and the signed heads: the second place a cut log is caught */
		free(dir);
		dir = NULL;
		r = audit_heads_dir_path(cfg->audit_dir, &dir);
		if (r >= 0 && (r = cordon_toolbox_hide(s->box, dir, &he)) < 0) {
			supervisor_free(s);
			return errbuf_set(err, errlen, r, "cannot hide the audit heads directory: %s", he.message);
		}
	}
	if (r < 0) {
		supervisor_free(s);
		return errbuf_set(err, errlen, r, "cannot name the session: %s", strerror(-r));
	}
	/* the credentials' values, read once (captures wait for their first
	 * use), in secure memory; none of them readable by a sandbox */
	r = cred_store_new(s->tools->creds, cfg->path_env, s->audit, &s->creds, err, errlen);
	if (r < 0) {
		supervisor_free(s);
		return r;
	}
	cred_store_set_base(s->creds, s->base);
	/* each tool's HOME its own, made here, outside every sandbox */
	r = tool_homes_new(s->session_id, &s->homes, &s->homes_held, err, errlen);
	if (r >= 0 && (r = cordon_toolbox_set_homes(s->box, s->homes, &e)) < 0)
		errbuf_set(err, errlen, r, "the tools' homes: %s", e.message);
	if (r < 0) {
		supervisor_free(s);
		return r;
	}
	r = approvals_new(backend_lookup, (void *)s->tools, cordon_tools_backend_names(s->tools), &s->approvals, err,
			  errlen);
	if (r < 0) {
		supervisor_free(s);
		return r;
	}
	/* the resolved profile (every tool's sandbox in it), as approvals bind it */
	_cleanup_free_ char *policy = NULL;

	r = cordon_profile_to_json(cfg->profile, &policy);
	if (r >= 0)
		r = sha256_hex(policy, strlen(policy), s->policy_digest);
	if (r < 0) {
		supervisor_free(s);
		return errbuf_set(err, errlen, r, "cannot digest the profile: %s", strerror(-r));
	}
	r = approve_pool_new(APPROVE_POOL_WORKERS, APPROVE_POOL_PER_SANDBOX, APPROVE_POOL_PENDING, &s->approve_pool);
	if (r < 0) {
		supervisor_free(s);
		return errbuf_set(err, errlen, r, "cannot make the approval pool: %s", strerror(-r));
	}
	r = endpoint_new(s, CORDON_TOOLS_SESSION, &s->session_ep, &s->session_fd[1]);
	if (r < 0) {
		supervisor_free(s);
		return errbuf_set(err, errlen, r, "cannot make the session's broker socket: %s", strerror(-r));
	}
	*ret = s;
	return 0;
}

int supervisor_session_policy(struct supervisor *s, struct cordon_policy *p, struct cordon_error *reterr)
{
	return cordon_toolbox_session_policy(s->box, p, reterr);
}

const char *supervisor_session_id(const struct supervisor *s)
{
	return s->session_id;
}

const struct audit_seal *supervisor_audit_seal(const struct supervisor *s)
{
	return s->seal.sealed ? &s->seal : NULL;
}

size_t supervisor_denials(const struct supervisor *s, const struct supervisor_denial **ret, size_t *ret_omitted)
{
	*ret = s->denials;
	*ret_omitted = s->denials_omitted;
	return s->n_denials;
}

static void on_session_done(void *arg)
{
	struct supervisor *s = arg;

	s->session_ended = true;
	event_base_loopbreak(s->base);
}

/* Every call dropped and its tool killed; wait (bounded) until they are
 * reaped. A call whose approval is still being asked stays behind. */
static void end_calls(struct supervisor *s)
{
	struct timeval tick = { .tv_sec = 0, .tv_usec = 50000 };

	calls_kill_all(s);
	for (int waited = 0; s->live_calls > s->approving && waited < SUP_END_MS; waited += 50) {
		event_base_loopexit(s->base, &tick);
		event_base_dispatch(s->base);
	}
}

/* A terminal prompt is up (approve.h): the session's runner, which relays
 * our terminal into the agent's pseudo-terminal, stops reading it until
 * the answer is in. A signal through the pidfd never reaches another
 * process, also once the runner is gone. */
static void hold_session_terminal(void *ctx, bool on)
{
	struct supervisor *s = ctx;

	(void)syscall(SYS_pidfd_send_signal, s->session_pidfd, on ? SIGSTOP : SIGCONT, NULL, 0);
}

int supervisor_run(struct supervisor *s, const struct cordon_confined *c, const struct cordon_run_opts *o,
		   struct cordon_result **ret)
{
	struct cordon_run_opts so = *o;
	struct cordon_error e = {};
	int r;

	so.broker_fd = s->session_fd[1];
	/* a process holding credentials (undumpable, its secure heap mapped)
	 * forks no runner that keeps its memory: the runner is exec'd, a
	 * fresh image */
	if (s->creds)
		so.runner_main = NULL;
	/* the session goes on after a run: every runner is reaped here */
	so.return_at_end = false;
	/* the session's proxy: what the session may spend, if anything (a
	 * field past the first release's: the whole struct is read) */
	so.size = sizeof(so);
	{
		char err[512];

		/* the session's policy asked for one (toolbox_creds_apply):
		 * a consumer, or on the proxy of a session with credentials */
		int chan = -1;

		r = cred_store_table_fd(s->creds, cordon_toolbox_creds(s->box), CORDON_TOOLS_SESSION,
					c->credentials_fd > 2, &so.credentials_fd, &chan, err, sizeof(err));
		if (r >= 0 && chan >= 0 && (r = cred_chan_new(s, chan, CORDON_TOOLS_SESSION)) < 0)
			snprintf(err, sizeof(err), "the credential channel: %s", strerror(-r));
		if (r < 0) {
			close(s->session_fd[1]);
			s->session_fd[1] = -1;
			fprintf(stderr, "cordon: the session cannot start: %s\n", err);
			return r;
		}
	}
	r = cordon_spawn_confined(c, &so, NULL, &s->session, &e);
	if (so.credentials_fd >= 0)
		close(so.credentials_fd);
	close(s->session_fd[1]);
	s->session_fd[1] = -1;
	if (r < 0)
		return r;
	/* the runner relays our terminal only when the agent has one of its own */
	if (cordon_child_terminal(s->session) && s->approvals) {
		s->session_pidfd = fcntl(cordon_child_pidfd(s->session), F_DUPFD_CLOEXEC, 3);
		if (s->session_pidfd >= 0)
			approvals_set_terminal_hold(s->approvals, hold_session_terminal, s);
	}
	r = child_watch_new(s->base, s->session, on_session_done, s, &s->session_watch);
	if (r < 0) {
		cordon_child_kill(s->session);
		return r;
	}
	while (!s->session_ended)
		if (event_base_dispatch(s->base) < 0) {
			cordon_child_kill(s->session);
			break;
		}
	end_calls(s);
	/* a host opener still handing a URL over finishes first (bounded):
	 * cordon ends whatever the session leaves behind */
	open_urls_wait(s->open_urls, OPEN_URLS_WAIT_MS);
	/* the log ends with the session, signed: what the caller prints */
	(void)audit_close_sealed(s->audit, &s->seal);
	s->audit = NULL;
	if (!s->session_ended)
		return -EIO;
	return cordon_collect(s->session, ret);
}

struct supervisor *supervisor_free(struct supervisor *s)
{
	if (!s)
		return NULL;
	child_watch_free(s->session_watch);
	cordon_child_free(s->session);
	while (s->endpoints)
		endpoint_free(s->endpoints);
	for (int i = 0; i < 2; i++)
		if (s->session_fd[i] >= 0)
			close(s->session_fd[i]);
	cred_chan_free_all(s);
	cred_store_free(s->creds);
	open_urls_state_free(s->open_urls);
	s->open_urls = NULL;
	audit_close(s->audit);
	s->audit = NULL;
	/* A worker thread still out (an approval nobody answered) will touch
	 * the loop and the backends when it returns: they stay. Queued ones
	 * are dropped. */
	approve_pool_free(s->approve_pool);
	s->approve_pool = NULL;
	if (s->approving == 0) {
		if (s->session_pidfd >= 0)
			close(s->session_pidfd);
		approvals_free(s->approvals);
		if (s->base)
			event_base_free(s->base);
	}
	/* no call can need a hash any more */
	s->hasher = identity_hasher_free(s->hasher);
	cordon_toolbox_free(s->box);
	/* every tool is gone (end_calls): what they left in their HOMEs too */
	tool_homes_remove(s->homes);
	free(s->homes);
	if (s->homes_held >= 0)
		close(s->homes_held);
	tool_bins_free(s);
	free(s->shim_path);
	free(s->session_id);
	if (s->approving == 0)
		free(s);
	return NULL;
}
