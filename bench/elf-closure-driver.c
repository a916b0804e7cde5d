/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Driver for bench/elf-closure: one session's execute-closure of the given
 * binaries, timed, printed as one JSON object on stdout.
 *
 *   elf-closure-driver [--list] [--then FILE] FILE...
 *
 * Adds every FILE to one struct exec_closure (wall and CPU time of all adds), then,
 * with --then, adds FILE once more and times that add alone (the cost of one
 * more binary once the libraries are memoised). --list prints the files and
 * the missing entries instead of the JSON (to compare with ldd).
 * Built by meson (bench/meson.build) against libcordon's static library:
 * exec_closure.h is internal to the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "exec_closure.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* user + system CPU time of this process: what the adds cost, whatever
 * else the machine is doing */
static unsigned long long cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((unsigned long long)ru.ru_utime.tv_sec + (unsigned long long)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((unsigned long long)ru.ru_utime.tv_usec + (unsigned long long)ru.ru_stime.tv_usec) * 1000ull;
}

static int add(struct exec_closure *c, const char *path)
{
	struct cordon_error err = {};
	int r = exec_closure_add(c, path, NULL, &err);

	if (r < 0)
		fprintf(stderr, "elf-closure-driver: %s: %s\n", path, err.message[0] ? err.message : strerror(-r));
	return r;
}

int main(int argc, char **argv)
{
	struct exec_closure *c = NULL;
	struct exec_closure_stats before, st;
	const char *then = NULL;
	unsigned long long t0, c0, all_ns, all_cpu_ns, then_ns = 0;
	size_t n_files = 0, n_missing = 0;
	int list = 0, i = 1, failed = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--list") == 0) {
			list = 1;
		} else if (strcmp(argv[i], "--then") == 0 && i + 1 < argc) {
			then = argv[++i];
		} else {
			fprintf(stderr, "usage: elf-closure-driver [--list] [--then FILE] FILE...\n");
			return 2;
		}
	}
	if (exec_closure_new(&c) < 0)
		return 1;

	c0 = cpu_ns();
	t0 = now_ns();
	for (int k = i; k < argc; k++)
		failed |= add(c, argv[k]) < 0;
	all_ns = now_ns() - t0;
	all_cpu_ns = cpu_ns() - c0;
	exec_closure_stats(c, &before);
	if (then) {
		t0 = now_ns();
		failed |= add(c, then) < 0;
		then_ns = now_ns() - t0;
	}
	exec_closure_stats(c, &st);

	for (const char *const *f = exec_closure_files(c); *f; f++, n_files++)
		if (list)
			printf("file %s\n", *f);
	for (const char *const *m = exec_closure_missing(c); *m; m++, n_missing++)
		if (list)
			printf("missing %s\n", *m);
	if (!list)
		printf("{\"binaries\": %d, \"wall_ns\": %llu, \"cpu_ns\": %llu, \"then_ns\": %llu, \"files\": %zu, \"missing\": %zu, "
		       "\"opens\": %lu, \"reads\": %lu, \"elf_parses\": %lu, \"script_parses\": %lu, "
		       "\"unique_objects\": %lu, \"identity_hits\": %lu, \"resolves\": %lu, \"resolve_hits\": %lu, "
		       "\"lookups\": %lu, \"lookup_hits\": %lu, \"ldcache_loads\": %lu, "
		       "\"then_opens\": %lu, \"then_resolves\": %lu, \"then_lookups\": %lu}\n",
		       argc - i, all_ns, all_cpu_ns, then_ns, n_files, n_missing, st.opens, st.reads, st.elf_parses,
		       st.script_parses, st.unique_objects, st.identity_hits, st.resolves, st.resolve_hits, st.lookups,
		       st.lookup_hits, st.ldcache_loads, st.opens - before.opens, st.resolves - before.resolves,
		       st.lookups - before.lookups);
	exec_closure_free(c);
	return failed ? 1 : 0;
}
