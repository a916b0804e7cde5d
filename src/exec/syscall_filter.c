/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading the runner's seccomp filters: BPF programs that
 * libseccomp compiled at build time from syscall_filter_build.c, so a
 * launch neither compiles a filter nor links libseccomp.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "errbuf.h"
#include "seccomp_bpf.h"
#include "syscall_filter.h"

static int check_no_new_privs(char *err, size_t errlen)
{
	/* The caller sets no_new_privs; we check rather than set it, so a
	 * runner that forgot is caught here instead of silently mended. */
	int r = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);

	if (r < 0)
		return errbuf_set(err, errlen, -errno, "seccomp: cannot read no_new_privs: %s", strerror(errno));
	if (r != 1)
		return errbuf_set(err, errlen, -EPERM, "seccomp: no_new_privs is not set");
	return 0;
}

int seccomp_precompiled(const struct seccomp_opts *o, const struct sock_filter **ret, size_t *ret_len)
{
	if (!o || o->allow_userns)
		return -EINVAL;
	if (o->no_spawn) {
		/* the proxy's one program */
		if (!o->deny_memfd || o->deny_inet)
			return -EINVAL;
		*ret = seccomp_bpf_proxy;
		*ret_len = ELEMENTSOF(seccomp_bpf_proxy);
		return 0;
	}
	if (o->deny_memfd) {
		*ret = o->deny_inet ? seccomp_bpf_deny_inet_nomemfd : seccomp_bpf_default_nomemfd;
		*ret_len = o->deny_inet ? ELEMENTSOF(seccomp_bpf_deny_inet_nomemfd)
					: ELEMENTSOF(seccomp_bpf_default_nomemfd);
		return 0;
	}
	*ret = o->deny_inet ? seccomp_bpf_deny_inet : seccomp_bpf_default;
	*ret_len = o->deny_inet ? ELEMENTSOF(seccomp_bpf_deny_inet) : ELEMENTSOF(seccomp_bpf_default);
	return 0;
}

int seccomp_apply(const struct seccomp_opts *o, char *err, size_t errlen)
{
	const struct sock_filter *insns;
	struct sock_fprog prog;
	size_t n;
	int r;

	if (!o)
		return errbuf_set(err, errlen, -EINVAL, "seccomp: no options");
	if (o->allow_userns)
		return errbuf_set(err, errlen, -EINVAL, "seccomp: allow_userns is reserved and must be false");
	r = check_no_new_privs(err, errlen);
	if (r < 0)
		return r;
	r = seccomp_precompiled(o, &insns, &n);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: no precompiled filter");
	prog = (struct sock_fprog){ .len = (unsigned short)n, .filter = (struct sock_filter *)insns };
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return errbuf_set(err, errlen, -errno, "seccomp: cannot load the filter: %s", strerror(errno));
	return 0;
}

int seccomp_precompiled_notify(unsigned which, const struct sock_filter **ret, size_t *ret_len)
{
	switch (which) {
	case NOTIFY_UNIX:
		*ret = seccomp_bpf_notify_unix;
		*ret_len = ELEMENTSOF(seccomp_bpf_notify_unix);
		return 0;
	case NOTIFY_CREATE:
		*ret = seccomp_bpf_notify_create;
		*ret_len = ELEMENTSOF(seccomp_bpf_notify_create);
		return 0;
	case NOTIFY_UNIX | NOTIFY_CREATE:
		*ret = seccomp_bpf_notify_both;
		*ret_len = ELEMENTSOF(seccomp_bpf_notify_both);
		return 0;
	case NOTIFY_CREATE | NOTIFY_READ:
		*ret = seccomp_bpf_notify_create_read;
		*ret_len = ELEMENTSOF(seccomp_bpf_notify_create_read);
		return 0;
	case NOTIFY_UNIX | NOTIFY_CREATE | NOTIFY_READ:
		*ret = seccomp_bpf_notify_all;
		*ret_len = ELEMENTSOF(seccomp_bpf_notify_all);
		return 0;
	case NOTIFY_UNIX | NOTIFY_NET:
		*ret = seccomp_bpf_notify_net;
		*ret_len = ELEMENTSOF(seccomp_bpf_notify_net);
		return 0;
	case NOTIFY_UNIX | NOTIFY_CREATE | NOTIFY_NET:
		*ret = seccomp_bpf_notify_net_create;
		*ret_len = ELEMENTSOF(seccomp_bpf_notify_net_create);
		return 0;
	case NOTIFY_UNIX | NOTIFY_CREATE | NOTIFY_READ | NOTIFY_NET:
		*ret = seccomp_bpf_notify_net_all;
		*ret_len = ELEMENTSOF(seccomp_bpf_notify_net_all);
		return 0;
	default:
		return -EINVAL;
	}
}

int seccomp_apply_notify(unsigned which, int *ret_listener, char *err, size_t errlen)
{
	const struct sock_filter *insns;
	struct sock_fprog prog;
	size_t n;
	long fd;
	int r;

	r = check_no_new_privs(err, errlen);
	if (r < 0)
		return r;
	r = seccomp_precompiled_notify(which, &insns, &n);
	if (r < 0)
		return errbuf_set(err, errlen, r, "seccomp: no notification filter for %#x", which);
	prog = (struct sock_fprog){ .len = (unsigned short)n, .filter = (struct sock_filter *)insns };
	/* WAIT_KILLABLE_RECV (5.19): once init has taken a notification, only
	 * a fatal signal ends the wait, so a signal cannot make the kernel
	 * restart a call init has already performed (a connect done twice, a
	 * datagram sent twice). Older kernels: without it. */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0)
		return errbuf_set(err, errlen, -errno, "seccomp: cannot load the notification filter: %s",
			    strerror(errno));
	*ret_listener = (int)fd;
	return 0;
}
