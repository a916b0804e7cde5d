/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Backend selection against real and fake bwraps: a pin is never probed, only
 * success is memoised, a reset re-probes, and the per-user disk cache is
 * trusted only while its cheap checks hold.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "common.h"
#include "probe.h"

static char dir[] = "/tmp/cordon-select-XXXXXX";
static char bin[300], log_path[300], fake[300], cache_home[300];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(log_path, sizeof(log_path), "%s/log", dir);
	snprintf(fake, sizeof(fake), "%s/bin/bwrap", dir);
	snprintf(cache_home, sizeof(cache_home), "%s/cache", dir);
	cr_assert_eq(mkdir(bin, 0755), 0);
	char path[600];
	snprintf(path, sizeof(path), "%s:/usr/bin:/bin", bin);
	setenv("PATH", path, 1);
	setenv("XDG_CACHE_HOME", cache_home, 1);
	unsetenv("CORDON_BACKEND");
	/* the native runner is not part of these tests */
	cordon_set_runner_path("/nonexistent/cordon");
}

static void teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(select, .init = setup, .fini = teardown);

/* A bwrap that records each call and fails. */
static void install_broken_bwrap(void)
{
	FILE *f;

	unlink(fake);
	f = fopen(fake, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\necho probed >> '%s'\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", log_path);
	fclose(f);
	cr_assert_eq(chmod(fake, 0755), 0);
}

/* The real bwrap, behind a wrapper that records each call. */
static void install_real_bwrap(void)
{
	FILE *f;

	unlink(fake);
	f = fopen(fake, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\necho probed >> '%s'\nexec /usr/bin/bwrap \"$@\"\n", log_path);
	fclose(f);
	cr_assert_eq(chmod(fake, 0755), 0);
}

static int probes_logged(void)
{
	FILE *f = fopen(log_path, "r");
	int n = 0, ch;

	if (!f)
		return 0;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

static struct cordon_backend_info sel(unsigned flags)
{
	struct cordon_backend_info info;

	cr_assert_eq(cordon_backend_select(flags, &info), 0);
	return info;
}

Test(select, pinned_backend_is_never_probed)
{
	install_broken_bwrap();
	setenv("CORDON_BACKEND", "bwrap", 1);
	struct cordon_backend_info info = sel(CORDON_SELECT_DISK_CACHE);
	cr_assert_eq(info.backend, CORDON_BACKEND_BWRAP);
	cr_assert(info.pinned);
	cr_assert_str_eq(info.path, fake);
	/* never probed, still honest: partial, and the runner is not there */
	cr_assert_eq(info.grade, CORDON_GRADE_PARTIAL);
	cr_assert(info.lacks & CORDON_LACKS_RUNNER);
	cr_assert_eq(probes_logged(), 0, "a pinned backend was probed");
}

Test(select, bad_pin_fails_closed)
{
	struct cordon_backend_info info;

	setenv("CORDON_BACKEND", "bwarp", 1);
	cr_assert_eq(cordon_backend_select(0, &info), -EINVAL);
}

Test(select, pinned_unavailable)
{
	setenv("CORDON_BACKEND", "unavailable", 1);
	cr_assert_eq(sel(0).backend, CORDON_BACKEND_UNAVAILABLE);
}

Test(select, only_success_is_memoised_and_reset_reprobes)
{
	live_skip_unless(access("/usr/bin/bwrap", X_OK) == 0, "bubblewrap is not installed");

	install_broken_bwrap();
	cr_assert_eq(sel(0).backend, CORDON_BACKEND_UNAVAILABLE);
	int after_fail = probes_logged();
	cr_assert_eq(after_fail, 2, "expected the full and the partial probe, got %d", after_fail);
	cr_assert_eq(sel(0).backend, CORDON_BACKEND_UNAVAILABLE);
	cr_assert_eq(probes_logged(), 4, "failure was memoised");

	install_real_bwrap();
	struct cordon_backend_info info = sel(0);
	cr_assert_eq(info.backend, CORDON_BACKEND_BWRAP);
	/* bwrap never enforces all native does; the runner is absent here */
	cr_assert_eq(info.grade, CORDON_GRADE_PARTIAL);
	cr_assert(info.lacks & CORDON_LACKS_RUNNER);
	cr_assert_not(info.pinned);
	int after_success = probes_logged();

	install_broken_bwrap();
	cr_assert_eq(sel(0).backend, CORDON_BACKEND_BWRAP, "success was not memoised");
	cr_assert_eq(probes_logged(), after_success);

	cordon_reset_backend_cache();
	cr_assert_eq(sel(0).backend, CORDON_BACKEND_UNAVAILABLE, "reset did not re-probe");
	cr_assert_gt(probes_logged(), after_success);
}

Test(select, fake_bwrap_that_runs_nothing_is_not_trusted)
{
	FILE *f = fopen(fake, "w");
	struct cordon_probe_report rep;

	cr_assert_not_null(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	chmod(fake, 0755);
	cr_assert_eq(cordon_probe_backend(CORDON_BACKEND_BWRAP, 2000, &rep), 0);
	cr_assert_not(rep.usable, "a bwrap that exits 0 without running the probe was trusted");
}

/* The cache file this build's runner is given (one file per runner). */
static void cache_file(char *buf, size_t size)
{
	_cleanup_free_ char *p = NULL;

	cr_assert_eq(probe_cache_path(&p), 0);
	cr_assert(strncmp(p, cache_home, strlen(cache_home)) == 0, "%s is not below %s", p, cache_home);
	snprintf(buf, size, "%s", p);
}

Test(select, disk_cache_written_private_and_trusted_only_while_valid)
{
	char path[400];
	struct stat st;

	live_skip_unless(access("/usr/bin/bwrap", X_OK) == 0, "bubblewrap is not installed");
	install_real_bwrap();
	struct cordon_backend_info info = sel(CORDON_SELECT_DISK_CACHE);
	cr_assert_eq(info.backend, CORDON_BACKEND_BWRAP);
	cr_assert_not(info.from_cache);
	cache_file(path, sizeof(path));
	cr_assert_eq(stat(path, &st), 0, "no cache file at %s", path);
	cr_assert_eq(st.st_mode & 0777, 0600);

	/* A new process (simulated by a reset) trusts it without probing. */
	int n = probes_logged();
	cordon_reset_backend_cache();
	info = sel(CORDON_SELECT_DISK_CACHE);
	cr_assert(info.from_cache);
	cr_assert_eq(info.backend, CORDON_BACKEND_BWRAP);
	cr_assert(info.lacks & CORDON_LACKS_RUNNER, "the cache lost what bwrap lacks");
	cr_assert_eq(probes_logged(), n, "a valid cache still probed");

	/* A loose mode is not ours: probe again. */
	cr_assert_eq(chmod(path, 0644), 0);
	cordon_reset_backend_cache();
	info = sel(CORDON_SELECT_DISK_CACHE);
	cr_assert_not(info.from_cache);
	cr_assert_gt(probes_logged(), n);

	/* The runner binary changing identity makes it stale. */
	n = probes_logged();
	cordon_reset_backend_cache();
	install_real_bwrap(); /* a new inode at the same path */
	info = sel(CORDON_SELECT_DISK_CACHE);
	cr_assert_not(info.from_cache);
	cr_assert_gt(probes_logged(), n);

	/* Garbage is stale, never "assume it works". */
	FILE *f = fopen(path, "w");
	fputs("cordon-probe-cache 1\nbackend=bwrap\ngrade=full\n", f);
	fclose(f);
	struct cordon_backend_info tmp;
	cr_assert_lt(probe_cache_load(path, &tmp), 0);

	/* --refresh ignores a valid cache. */
	cordon_reset_backend_cache();
	(void)sel(CORDON_SELECT_DISK_CACHE);
	n = probes_logged();
	cordon_reset_backend_cache();
	info = sel(CORDON_SELECT_DISK_CACHE | CORDON_SELECT_REFRESH);
	cr_assert_not(info.from_cache);
	cr_assert_gt(probes_logged(), n);
}

Test(select, cache_never_chooses_the_binary)
{
	/* A cache file that is valid in every cheap check but names another
	 * binary than the one cordon would pick (say, planted by a sandbox
	 * that could write ~/.cache) is not trusted: selection probes again
	 * and uses the real bwrap. */
	char path[400], other[400];
	struct cordon_backend_info planted = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL };
	struct cordon_backend_info loaded;

	live_skip_unless(access("/usr/bin/bwrap", X_OK) == 0, "bubblewrap is not installed");
	install_real_bwrap();
	snprintf(other, sizeof(other), "%s/evil-runner", dir);
	FILE *f = fopen(other, "w");
	cr_assert_not_null(f);
	fputs("#!/bin/sh\necho pwned\n", f);
	fclose(f);
	chmod(other, 0755);
	snprintf(planted.path, sizeof(planted.path), "%s", other);
	cache_file(path, sizeof(path));
	cr_assert_eq(probe_cache_store(path, &planted), 0);
	cr_assert_eq(probe_cache_load(path, &loaded), 0, "the planted cache passes the cheap checks");
	cr_assert_str_eq(loaded.path, other);

	cordon_reset_backend_cache();
	struct cordon_backend_info info = sel(CORDON_SELECT_DISK_CACHE);
	cr_assert_not(info.from_cache, "a cache naming another binary was trusted");
	cr_assert_eq(info.backend, CORDON_BACKEND_BWRAP);
	cr_assert_str_eq(info.path, fake, "selection must use the bwrap found on PATH, not the planted one");
}

Test(select, cache_never_names_a_weaker_backend)
{
	/* A planted cache naming bwrap, while the native runner can work
	 * here: a fresh probe would pick native, so the file is not trusted.
	 * Control: with no runner (native plainly unusable) the same file is. */
	const char *cordon = getenv("CORDON");
	struct cordon_backend_info planted = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL }, info;
	char path[400];

	live_skip_unless(access("/usr/bin/bwrap", X_OK) == 0, "bubblewrap is not installed");
	live_skip_unless(cordon && access(cordon, X_OK) == 0, "$CORDON is not the built cordon");
	install_real_bwrap();
	snprintf(planted.path, sizeof(planted.path), "%s", fake);
	cache_file(path, sizeof(path));

	cordon_reset_backend_cache();
	(void)sel(CORDON_SELECT_DISK_CACHE); /* makes the cache directory */
	cr_assert_eq(probe_cache_store(path, &planted), 0);
	cordon_reset_backend_cache();
	info = sel(CORDON_SELECT_DISK_CACHE);
	cr_assert(info.from_cache, "control: without a runner a cached bwrap is trusted");

	cordon_set_runner_path(cordon);
	cr_assert_eq(probe_cache_store(path, &planted), 0);
	cordon_reset_backend_cache();
	info = sel(CORDON_SELECT_DISK_CACHE);
	cr_assert_not(info.from_cache, "a planted weaker backend was trusted");
	cr_assert_eq(info.backend, CORDON_BACKEND_NATIVE, "a fresh probe picks native here");
}
