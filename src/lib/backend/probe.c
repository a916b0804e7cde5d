/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Backend selection. This file owns the one process-wide cache: the winner
 * of the probe chain (only success is memoised). A pinned backend is the
 * operator's assertion that the host is capable and is never probed.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "cleanup.h"
#include "policy.h"
#include "probe.h"
#include "process.h"
#include "provider.h"
#include "runner_path.h"

#define PROBE_TIMEOUT_MS 2000

static const enum cordon_backend chain[] = {
#if defined(__linux__)
	CORDON_BACKEND_NATIVE,
	CORDON_BACKEND_BWRAP,
#elif defined(__APPLE__)
	CORDON_BACKEND_SEATBELT,
#endif
	CORDON_BACKEND_UNAVAILABLE,
};

/* The process-wide state: the pin and the memoised probe (the runner path
 * is runner_path.c's).
 * Every access holds state_lock. It is recursive because a probe run under
 * it selects again (a pinned light fallback); holding it across the probe
 * is what makes concurrent first callers wait for one probe instead of
 * racing. */
static struct {
	bool pinned_set;
	enum cordon_backend pinned;
	bool memo_set;
	struct cordon_backend_info memo;
	char fallback_reason[512]; /* why chain[0] was passed over, when memo is a later one */
} state;
static pthread_mutex_t state_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void unlockp(pthread_mutex_t **m)
{
	if (*m)
		pthread_mutex_unlock(*m);
}

/* Hold state_lock until the end of the scope. */
#define STATE_LOCKED                                                              \
	_cleanup_(unlockp) pthread_mutex_t *_held = (pthread_mutex_lock(&state_lock), &state_lock)

CORDON_API const enum cordon_backend *cordon_backend_chain(void)
{
	return chain;
}

CORDON_API int cordon_pin_backend(enum cordon_backend b)
{
	switch (b) {
	case CORDON_BACKEND_NATIVE:
	case CORDON_BACKEND_BWRAP:
	case CORDON_BACKEND_SEATBELT:
	case CORDON_BACKEND_UNAVAILABLE: {
		STATE_LOCKED;

		state.pinned_set = true;
		state.pinned = b;
		return 0;
	}
	}
	return -EINVAL;
}

CORDON_API int cordon_warm(void)
{
	int r = policy_warm(NULL);

	if (r < 0)
		return r;
	(void)cordon_runner_path();
	return 0;
}

CORDON_API int cordon_probe_backend(enum cordon_backend b, int timeout_ms,
				    struct cordon_probe_report *ret)
{
	const struct provider *prov = provider_for(b);
	struct cordon_probe_report rep = { .backend = b };
	uint64_t start = now_usec();
	int r;

	if (!ret || timeout_ms <= 0)
		return -EINVAL;
	if (!prov) {
		snprintf(rep.reason, sizeof(rep.reason), "'unavailable' never enforces anything");
		*ret = rep;
		return 0;
	}
	r = prov->probe(timeout_ms, &rep);
	if (r < 0)
		return r;
	rep.backend = b;
	if (!rep.duration_us)
		rep.duration_us = now_usec() - start;
	*ret = rep;
	return 0;
}

static int pinned_from_env(enum cordon_backend *ret)
{
	const char *env = secure_getenv("CORDON_BACKEND");

	if (!env || !*env)
		return 0;
	if (cordon_backend_from_string(env, ret) < 0)
		return -EINVAL; /* fail closed: a typo must not fall back to probing */
	return 1;
}

static int pinned_info(enum cordon_backend b, struct cordon_backend_info *ret)
{
	struct cordon_backend_info info = { .backend = b, .grade = CORDON_GRADE_FULL, .pinned = true };
	_cleanup_free_ char *path = NULL;

	switch (b) {
	case CORDON_BACKEND_NATIVE:
		snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
		break;
	case CORDON_BACKEND_BWRAP:
		if (find_executable("bwrap", &path) == 0)
			snprintf(info.path, sizeof(info.path), "%s", path);
		else
			snprintf(info.path, sizeof(info.path), "bwrap");
		/* what bwrap enforces is never all native does */
		info.grade = CORDON_GRADE_PARTIAL;
		info.lacks = bwrap_lacks_unprobed();
		break;
	case CORDON_BACKEND_SEATBELT:
		snprintf(info.path, sizeof(info.path), "/usr/bin/sandbox-exec");
		break;
	case CORDON_BACKEND_UNAVAILABLE:
		break;
	}
	*ret = info;
	return 0;
}

int probe_backend_info(enum cordon_backend b, struct cordon_backend_info *ret)
{
	switch (b) {
	case CORDON_BACKEND_NATIVE:
	case CORDON_BACKEND_BWRAP:
	case CORDON_BACKEND_SEATBELT:
	case CORDON_BACKEND_UNAVAILABLE:
		return pinned_info(b, ret);
	}
	return -EINVAL;
}

/* The cache may only say which backend works here, never which binary to
 * run: a file that names any other binary than the one we would pick
 * anyway is not trusted. (A sandbox that can write the cache, say through a
 * writable ~/.cache, must not be able to choose what the next cordon runs
 * outside any sandbox.) */
static bool cached_path_is_ours(const struct cordon_backend_info *info)
{
	_cleanup_free_ char *path = NULL;

	switch (info->backend) {
	case CORDON_BACKEND_NATIVE:
		return strcmp(info->path, cordon_runner_path()) == 0;
	case CORDON_BACKEND_BWRAP:
		return find_executable("bwrap", &path) == 0 && strcmp(info->path, path) == 0;
	case CORDON_BACKEND_SEATBELT:
		return strcmp(info->path, "/usr/bin/sandbox-exec") == 0;
	case CORDON_BACKEND_UNAVAILABLE:
		break;
	}
	return false;
}

/* The first backend of the chain cannot work here, as far as a look costs
 * nothing (its binary or the kernel feature it needs is missing): only then
 * may the cache name a later one. */
static bool first_cheaply_unusable(char *why, size_t n)
{
#if defined(__linux__)
	if (runner_check(why, n) < 0)
		return true;
	if (cordon_landlock_abi() < 1) {
		snprintf(why, n, "Landlock is unavailable");
		return true;
	}
	return false;
#else
	(void)why;
	(void)n;
	return false;
#endif
}

void probe_fallback_reason(char *buf, size_t n)
{
	STATE_LOCKED;
	snprintf(buf, n, "%s", state.fallback_reason);
}

CORDON_API void cordon_reset_backend_cache(void)
{
	STATE_LOCKED;
	state.memo_set = false;
}

CORDON_API int cordon_backend_select(unsigned flags, struct cordon_backend_info *ret)
{
	_cleanup_free_ char *cache = NULL;
	enum cordon_backend b;
	int r;

	if (!ret)
		return -EINVAL;
	STATE_LOCKED;
	if (state.pinned_set)
		return pinned_info(state.pinned, ret);
	r = pinned_from_env(&b);
	if (r < 0)
		return r;
	if (r > 0)
		return pinned_info(b, ret);

	if (state.memo_set && !(flags & CORDON_SELECT_REFRESH)) {
		*ret = state.memo;
		return 0;
	}

	if (flags & CORDON_SELECT_DISK_CACHE)
		(void)probe_cache_path(&cache);
	if (cache && !(flags & CORDON_SELECT_REFRESH)) {
		struct cordon_backend_info info;
		char why[sizeof(state.fallback_reason)] = "";

		/* The file may name the best this platform has, at full grade,
		 * or a later one when the best plainly cannot work: a sandbox
		 * that can write it (a writable ~/.cache) must not make a later
		 * run pick a weaker backend than a fresh probe would. */
		if (probe_cache_load(cache, &info) == 0 && cached_path_is_ours(&info) &&
		    (info.backend == chain[0] ? info.grade == CORDON_GRADE_FULL : first_cheaply_unusable(why, sizeof(why)))) {
			info.from_cache = true;
			/* the runner may have gone since: never nest one that is not there */
			if (info.backend == CORDON_BACKEND_BWRAP)
				info.lacks |= bwrap_lacks_unprobed();
			state.memo = info;
			state.memo_set = true;
			snprintf(state.fallback_reason, sizeof(state.fallback_reason), "%s", why);
			*ret = info;
			return 0;
		}
	}

	state.fallback_reason[0] = '\0';
	for (const enum cordon_backend *c = chain; *c != CORDON_BACKEND_UNAVAILABLE; c++) {
		struct cordon_probe_report rep;

		r = cordon_probe_backend(*c, PROBE_TIMEOUT_MS, &rep);
		if (r < 0 || !rep.usable) {
			if (c == chain)
				snprintf(state.fallback_reason, sizeof(state.fallback_reason), "%s",
					 r < 0 ? strerror(-r) : rep.reason);
			continue;
		}
		state.memo = (struct cordon_backend_info){ .backend = *c, .grade = rep.grade, .lacks = rep.lacks };
		snprintf(state.memo.path, sizeof(state.memo.path), "%s", rep.path);
		state.memo_set = true;
		if (cache)
			(void)probe_cache_store(cache, &state.memo);
		*ret = state.memo;
		return 0;
	}

	/* Nothing works: not memoised, so a later call probes again. */
	*ret = (struct cordon_backend_info){ .backend = CORDON_BACKEND_UNAVAILABLE };
	return 0;
}
