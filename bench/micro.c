/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Micro-benchmarks of libcordon, printed as one JSON object on stdout.
 *
 *   confine   cordon_confine_with per call (confine + free), workspace-write,
 *             net none, for the native and the bwrap backend infos
 *   classify  cordon_classify over 100 MiB of realistic merged output
 *             (compiler, test-runner, package-manager and git lines), exit 1,
 *             no denial anywhere (the whole buffer is scanned) and a denial
 *             on the last line
 *   probe     cold: cordon_reset_backend_cache + cordon_backend_select
 *             without the disk cache (spawns the runner's probe); from the
 *             per-user disk cache; memoised (in-process)
 *
 * Built and run by bench/compare (or bench/build-micro):
 *   cc -O2 -Iinclude bench/micro.c BUILD/src/lib/libcordon-static.a -ljansson
 * usage: micro WORKSPACE RUNNER [CLASSIFY_MIB]
 * Every loop is bounded by a count and by wall time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cordon/cordon.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stats {
	double min, median, max;
	int n;
};

static struct stats summarise(double *v, int n)
{
	struct stats s = { 0 };

	if (n <= 0)
		return s;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.n = n;
	return s;
}

static void print_stats(const char *key, struct stats s, const char *unit, bool last)
{
	printf("    \"%s\": {\"unit\": \"%s\", \"min\": %.4f, \"median\": %.4f, \"max\": %.4f, \"samples\": %d}%s\n",
	       key, unit, s.min, s.median, s.max, s.n, last ? "" : ",");
}

/* ---- confine ------------------------------------------------------------ */

#define CONFINE_BATCH 2000
#define CONFINE_BATCHES 40
#define CONFINE_MAX_NS (3ull * 1000000000u)

static int bench_confine(const struct cordon_backend_info *info, const struct cordon_policy *p,
			 struct stats *ret, size_t *ret_argc)
{
	static const char *const argv[] = { "sh", "-c", "npm test", NULL };
	double per_call[CONFINE_BATCHES];
	uint64_t deadline = now_ns() + CONFINE_MAX_NS;
	int n = 0;

	for (int b = 0; b < CONFINE_BATCHES && now_ns() < deadline; b++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < CONFINE_BATCH; i++) {
			struct cordon_confined *c = NULL;
			int r = cordon_confine_with(info, argv, p, &c, NULL);

			if (r < 0)
				return r;
			if (ret_argc && b == 0 && i == 0) {
				size_t k = 0;
				while (c->argv[k])
					k++;
				*ret_argc = k;
			}
			cordon_confined_free(c);
		}
		per_call[n++] = (double)(now_ns() - t0) / CONFINE_BATCH;
	}
	*ret = summarise(per_call, n);
	return 0;
}

/* ---- classify ----------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
	/* xorshift64*: deterministic, so every run scans the same bytes. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* Lines an agent's commands typically print; none contains a denial or
 * fatal signature (checked at start-up against the confined value). */
static const char *const templates[] = {
	"cc -Iinclude -Isrc/lib -O2 -g -Wall -Wextra -c src/lib/module_%u.c -o build/module_%u.o",
	"src/lib/parser_%u.c:%u:17: warning: unused variable 'tmp' [-Wunused-variable]",
	"  %u | \tint tmp = compute_offset(ctx, %u);",
	"      |     ^~~",
	"tests/test_api_%u.py::test_roundtrip[case-%u] PASSED                    [ 42%%]",
	"tests/test_api_%u.py::test_timeout[%u] FAILED                          [ 43%%]",
	"E       AssertionError: expected 200, got %u (request id %u)",
	"npm http fetch GET 200 registry/pkg-%u/-/pkg-%u-1.2.3.tgz 35ms (cache hit)",
	"added %u packages, and audited %u packages in 3s",
	"commit 3f1c9e0a7b%u5d2e4c6f8a0b1c2d3e4f5a6b7c8d9e0f%u",
	"Author: Dev Eloper <dev%u@example.invalid>  Date: Mon Nov %u 10:00:00 2025 +0000",
	"-rw-r--r-- 1 user user %u Nov 29 08:51 file_%u.txt",
	"{\"level\":\"info\",\"ts\":%u,\"msg\":\"request served\",\"status\":200,\"bytes\":%u}",
	"[%u/%u] Linking target src/cli/cordon",
	"ok %u - parses flag --write (%u ms)",
	"    at Object.<anonymous> (/work/app/src/handler_%u.js:%u:13)",
};

static char *make_output(size_t size)
{
	char *buf = malloc(size + 1);
	size_t off = 0;

	if (!buf)
		return NULL;
	while (off < size) {
		char line[256];
		const char *t = templates[rng() % (sizeof(templates) / sizeof(templates[0]))];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		int n = snprintf(line, sizeof(line), t, rng() % 5000, rng() % 900);
#pragma GCC diagnostic pop
		size_t k;

		if (n < 0)
			n = 0;
		k = (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
		line[k++] = '\n';
		if (k > size - off)
			k = size - off;
		memcpy(buf + off, line, k);
		off += k;
	}
	buf[size] = '\0';
	return buf;
}

#define CLASSIFY_REPS 7
#define CLASSIFY_MAX_NS (20ull * 1000000000u)

static int bench_classify(const struct cordon_confined *c, const char *out, size_t len,
			  struct stats *ret, const char **ret_verdict)
{
	double gbps[CLASSIFY_REPS];
	uint64_t deadline = now_ns() + CLASSIFY_MAX_NS;
	int n = 0;

	for (int i = 0; i < CLASSIFY_REPS && now_ns() < deadline; i++) {
		struct cordon_classification cl = { 0 };
		uint64_t t0 = now_ns(), dt;
		int r = cordon_classify(c, 1, out, len, &cl);

		dt = now_ns() - t0;
		if (r < 0)
			return r;
		*ret_verdict = cordon_verdict_to_string(cl.verdict);
		free(cl.line);
		gbps[n++] = (double)len / (double)(dt ? dt : 1); /* bytes per ns = GB/s */
	}
	*ret = summarise(gbps, n);
	return 0;
}

/* ---- probe -------------------------------------------------------------- */

#define PROBE_REPS 15
#define PROBE_MAX_NS (20ull * 1000000000u)
#define MEMO_CALLS 1000000

static int bench_probe(unsigned flags, struct stats *ret, char *backend, size_t n_backend)
{
	double ms[PROBE_REPS];
	uint64_t deadline = now_ns() + PROBE_MAX_NS;
	int n = 0;

	for (int i = 0; i < PROBE_REPS && now_ns() < deadline; i++) {
		struct cordon_backend_info info;
		uint64_t t0;
		int r;

		cordon_reset_backend_cache();
		t0 = now_ns();
		r = cordon_backend_select(flags, &info);
		ms[n++] = (double)(now_ns() - t0) / 1e6;
		if (r < 0)
			return r;
		snprintf(backend, n_backend, "%s%s", cordon_backend_to_string(info.backend),
			 info.from_cache ? " (disk cache)" : "");
	}
	*ret = summarise(ms, n);
	return 0;
}

int main(int argc, char **argv)
{
	struct cordon_policy *p = NULL;
	struct cordon_error err = { 0 };
	struct cordon_backend_info native = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	struct cordon_backend_info bwrap = { .backend = CORDON_BACKEND_BWRAP, .grade = CORDON_GRADE_FULL };
	struct cordon_confined *c_native = NULL, *c_bwrap = NULL;
	static const char *const probe_argv[] = { "true", NULL };
	struct stats s_native, s_bwrap, s_cl_none, s_cl_end, s_cold, s_disk, s_memo;
	size_t argc_native = 0, argc_bwrap = 0, mib, len;
	const char *v_none = "", *v_end = "";
	char b_cold[64] = "", b_disk[64] = "";
	char *out;
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: %s WORKSPACE RUNNER [CLASSIFY_MIB]\n", argv[0]);
		return 2;
	}
	mib = argc > 3 ? strtoul(argv[3], NULL, 10) : 100;
	if (mib == 0 || mib > 1024)
		mib = 100;

	r = cordon_set_runner_path(argv[2]);
	if (r < 0 || (r = cordon_warm()) < 0) {
		fprintf(stderr, "micro: runner/warm: %s\n", strerror(-r));
		return 1;
	}
	r = cordon_policy_new("workspace-write", argv[1], &p, &err);
	if (r < 0) {
		fprintf(stderr, "micro: policy: %s\n", err.message);
		return 1;
	}
	snprintf(native.path, sizeof(native.path), "%s", argv[2]);
	snprintf(bwrap.path, sizeof(bwrap.path), "%s", "/usr/bin/bwrap");

	if ((r = bench_confine(&native, p, &s_native, &argc_native)) < 0 ||
	    (r = bench_confine(&bwrap, p, &s_bwrap, &argc_bwrap)) < 0) {
		fprintf(stderr, "micro: confine: %s\n", strerror(-r));
		return 1;
	}

	/* classify: the native confined value (its signatures). */
	if ((r = cordon_confine_with(&native, probe_argv, p, &c_native, NULL)) < 0 ||
	    (r = cordon_confine_with(&bwrap, probe_argv, p, &c_bwrap, NULL)) < 0) {
		fprintf(stderr, "micro: confine: %s\n", strerror(-r));
		return 1;
	}
	len = mib << 20;
	out = make_output(len);
	if (!out) {
		fprintf(stderr, "micro: out of memory\n");
		return 1;
	}
	if ((r = bench_classify(c_native, out, len, &s_cl_none, &v_none)) < 0) {
		fprintf(stderr, "micro: classify: %s\n", strerror(-r));
		return 1;
	}
	{
		static const char tail[] = "touch: cannot touch '/etc/x': Read-only file system\n";
		memcpy(out + len - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
	}
	if ((r = bench_classify(c_native, out, len, &s_cl_end, &v_end)) < 0) {
		fprintf(stderr, "micro: classify: %s\n", strerror(-r));
		return 1;
	}

	/* probe: cold (no disk cache), from the disk cache, memoised. */
	if ((r = bench_probe(0, &s_cold, b_cold, sizeof(b_cold))) < 0 ||
	    (r = bench_probe(CORDON_SELECT_DISK_CACHE, &s_disk, b_disk, sizeof(b_disk))) < 0) {
		fprintf(stderr, "micro: probe: %s\n", strerror(-r));
		return 1;
	}
	{
		double per_call[10];
		int n = 0;
		struct cordon_backend_info info;

		for (int b = 0; b < 10; b++) {
			uint64_t t0 = now_ns();

			for (int i = 0; i < MEMO_CALLS / 10; i++)
				(void)cordon_backend_select(CORDON_SELECT_DISK_CACHE, &info);
			per_call[n++] = (double)(now_ns() - t0) / (MEMO_CALLS / 10);
		}
		s_memo = summarise(per_call, n);
	}

	printf("{\n  \"confine\": {\n");
	print_stats("native", s_native, "ns/call", false);
	print_stats("bwrap", s_bwrap, "ns/call", false);
	printf("    \"argc_native\": %zu, \"argc_bwrap\": %zu, \"calls_per_sample\": %d\n  },\n",
	       argc_native, argc_bwrap, CONFINE_BATCH);
	printf("  \"classify\": {\n    \"bytes\": %zu,\n", len);
	print_stats("no_denial", s_cl_none, "GB/s", false);
	print_stats("denial_on_last_line", s_cl_end, "GB/s", false);
	printf("    \"verdicts\": [\"%s\", \"%s\"]\n  },\n", v_none, v_end);
	printf("  \"probe\": {\n");
	print_stats("cold", s_cold, "ms", false);
	print_stats("disk_cache", s_disk, "ms", false);
	print_stats("memoised", s_memo, "ns/call", false);
	printf("    \"selected_cold\": \"%s\", \"selected_disk\": \"%s\"\n  }\n}\n", b_cold, b_disk);

	cordon_confined_free(c_native);
	cordon_confined_free(c_bwrap);
	cordon_policy_free(p);
	free(out);
	return 0;
}
