/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The filter the runner loads is the one libseccomp builds from syscall_filter.c
 * today: the build-time program and a fresh compilation are identical. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "syscall_filter.h"

/* gate: the notification filter for these NOTIFY_* bits instead of the main one */
static void compare_opts(struct seccomp_opts o, unsigned gate)
{
	const struct sock_filter *pre;
	struct sock_filter insn;
	scmp_filter_ctx ctx = NULL;
	char err[256] = "";
	size_t n, i = 0;
	FILE *f = tmpfile();

	cr_assert_not_null(f);
	if (gate) {
		cr_assert_eq(seccomp_precompiled_notify(gate, &pre, &n), 0);
		cr_assert_gt(n, 5);
		cr_assert_eq(seccomp_build_notify(gate, &ctx, err, sizeof(err)), 0, "%s", err);
	} else {
		cr_assert_eq(seccomp_precompiled(&o, &pre, &n), 0);
		cr_assert_gt(n, 10);
		cr_assert_eq(seccomp_build(&o, &ctx, err, sizeof(err)), 0, "%s", err);
	}
	cr_assert_eq(seccomp_export_bpf(ctx, fileno(f)), 0);
	seccomp_release(ctx);
	rewind(f);
	while (fread(&insn, sizeof(insn), 1, f) == 1) {
		cr_assert_lt(i, n, "the fresh filter is longer than the precompiled one");
		cr_assert(memcmp(&insn, &pre[i], sizeof(insn)) == 0, "instruction %zu differs", i);
		i++;
	}
	cr_assert_eq(i, n, "the fresh filter is shorter than the precompiled one");
	fclose(f);
}

static void compare_one(bool deny_inet, unsigned gate)
{
	compare_opts((struct seccomp_opts){ .deny_inet = deny_inet }, gate);
}

static void compare(bool deny_inet)
{
	compare_one(deny_inet, 0);
}

Test(seccomp_bpf, precompiled_notify_filters_match_libseccomp)
{
	compare_one(false, NOTIFY_UNIX);
	compare_one(false, NOTIFY_CREATE);
	compare_one(false, NOTIFY_UNIX | NOTIFY_CREATE);
}

/* The gates' programs notify (and so differ from both main programs):
 * some instruction returns SECCOMP_RET_USER_NOTIF; the union is longer
 * than either part; an unknown set is refused. */
Test(seccomp_bpf, notify_programs_notify)
{
	const unsigned sets[] = { NOTIFY_UNIX, NOTIFY_CREATE, NOTIFY_UNIX | NOTIFY_CREATE };
	const struct sock_filter *pre;
	size_t n, len[3];

	for (size_t s = 0; s < 3; s++) {
		size_t notify = 0;

		cr_assert_eq(seccomp_precompiled_notify(sets[s], &pre, &n), 0);
		for (size_t i = 0; i < n; i++)
			if (pre[i].code == (BPF_RET | BPF_K) &&
			    (pre[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
				notify++;
		cr_assert_geq(notify, 1, "no instruction returns USER_NOTIF");
		len[s] = n;
	}
	cr_assert_gt(len[2], len[0]);
	cr_assert_gt(len[2], len[1]);
	cr_assert_eq(seccomp_precompiled_notify(0, &pre, &n), -EINVAL);
	cr_assert_eq(seccomp_precompiled_notify(4, &pre, &n), -EINVAL);
}

Test(seccomp_bpf, precompiled_default_matches_libseccomp)
{
	compare(false);
}

Test(seccomp_bpf, precompiled_deny_inet_matches_libseccomp)
{
	compare(true);
}

Test(seccomp_bpf, the_two_programs_differ)
{
	const struct seccomp_opts a = { .deny_inet = false }, b = { .deny_inet = true };
	const struct sock_filter *pa, *pb;
	size_t na, nb;

	cr_assert_eq(seccomp_precompiled(&a, &pa, &na), 0);
	cr_assert_eq(seccomp_precompiled(&b, &pb, &nb), 0);
	cr_assert(na != nb || memcmp(pa, pb, na * sizeof(*pa)) != 0);
	const struct seccomp_opts bad = { .allow_userns = true };
	cr_assert_eq(seccomp_precompiled(&bad, &pa, &na), -EINVAL);
}

/* The programs of a sandbox that fences execution: the same rules and a
 * few more (no memfd at all, no executable SysV segment). */
Test(seccomp_bpf, precompiled_deny_memfd_matches_libseccomp)
{
	const struct seccomp_opts plain = { .deny_inet = false }, none = { .deny_memfd = true };
	const struct sock_filter *pa, *pb;
	size_t na, nb;

	compare_opts(none, 0);
	compare_opts((struct seccomp_opts){ .deny_inet = true, .deny_memfd = true }, 0);
	cr_assert_eq(seccomp_precompiled(&plain, &pa, &na), 0);
	cr_assert_eq(seccomp_precompiled(&none, &pb, &nb), 0);
	cr_assert_gt(nb, na, "the memfd rules are missing");
}

/* The proxy's one program (src/proxy/confine.c): made at build time by
 * libseccomp like the runner's, the runner's rules and more; only with
 * memfd refused and inet sockets allowed. */
Test(seccomp_bpf, precompiled_proxy_matches_libseccomp)
{
	const struct seccomp_opts runner = { .deny_memfd = true }, proxy = { .deny_memfd = true, .no_spawn = true };
	const struct sock_filter *pa, *pb;
	size_t na, nb;

	compare_opts(proxy, 0);
	cr_assert_eq(seccomp_precompiled(&runner, &pa, &na), 0);
	cr_assert_eq(seccomp_precompiled(&proxy, &pb, &nb), 0);
	cr_assert(na != nb || memcmp(pa, pb, na * sizeof(*pa)) != 0, "the proxy's rules are missing");
	cr_assert_eq(seccomp_precompiled(&(struct seccomp_opts){ .no_spawn = true }, &pb, &nb), -EINVAL);
	cr_assert_eq(seccomp_precompiled(&(struct seccomp_opts){ .no_spawn = true, .deny_memfd = true,
								 .deny_inet = true }, &pb, &nb), -EINVAL);
}

/* Every main program (the runner's four, the proxy's) tests the number of
 * each call that reaches another process's fds, memory or kernel objects
 * (a rule the comparison above would carry away unseen if it went): the
 * live test (tests/live/test-seccomp.c) makes the attempts. */
Test(seccomp_bpf, every_program_names_the_cross_process_calls)
{
	static const long nrs[] = { 438 /* pidfd_getfd */, 440 /* process_madvise */,
				    448 /* process_mrelease */, __NR_kcmp, __NR_process_vm_readv, __NR_ptrace };
	const struct seccomp_opts progs[] = {
		{ 0 }, { .deny_inet = true }, { .deny_memfd = true }, { .deny_inet = true, .deny_memfd = true },
		{ .deny_memfd = true, .no_spawn = true },
	};

	for (size_t p = 0; p < sizeof(progs) / sizeof(progs[0]); p++) {
		const struct sock_filter *pre;
		size_t n;

		cr_assert_eq(seccomp_precompiled(&progs[p], &pre, &n), 0);
		for (size_t k = 0; k < sizeof(nrs) / sizeof(nrs[0]); k++) {
			bool found = false;

			for (size_t i = 0; i < n && !found; i++)
				found = pre[i].code == (BPF_JMP | BPF_JEQ | BPF_K) && pre[i].k == (unsigned)nrs[k];
			cr_assert(found, "program %zu does not test syscall %ld", p, nrs[k]);
		}
	}
}
