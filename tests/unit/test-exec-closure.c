/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The execute-closure against the real loader: every closure of a real
 * binary is compared with what `ldd` (glibc's own loader, in trace mode)
 * says, in both directions; libraries with RPATH/RUNPATH/$ORIGIN are
 * compiled here with cc (skipped when there is none); "#!" chains are
 * compared with what the kernel does when it executes them; malformed ELF
 * files and caches are refused; the memo opens each file once.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "elf_reader.h"
#include "exec_closure.h"
#include "exec_closure_ld.h"
#include "exec_closure_memo.h"
#include "ldcache.h"
#include "shebang.h"
#include "strv.h"

extern char **environ;

static char dir[] = "/tmp/cordon-closure-XXXXXX";
static char *real_dir;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	real_dir = realpath(dir, NULL);
	cr_assert_not_null(real_dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
	free(real_dir);
}

TestSuite(closure, .init = setup, .fini = teardown);

static char *at(const char *rel)
{
	static char buf[8][PATH_MAX];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", real_dir, rel);
	return buf[i];
}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	cr_assert_eq(chmod(path, mode), 0);
}

static void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text), 0755);
}

static char *canonical(const char *path)
{
	char *r = realpath(path, NULL);

	cr_assert_not_null(r, "realpath %s", path);
	return r;
}

/* The files ldd names for path (canonical), plus path itself. */
static char **ldd_files(const char *path, char ***ret_not_found)
{
	char cmd[PATH_MAX + 32], line[PATH_MAX + 256];
	char **files = NULL, **not_found = NULL;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ldd '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_geq(strv_consume(&files, canonical(path)), 0);
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *arrow = strstr(line, "=>"), *end;

		if (arrow)
			p = arrow + 2;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "not found", 9) == 0) {
			char *name = line;
			while (*name == ' ' || *name == '\t')
				name++;
			name[strcspn(name, " ")] = '\0';
			cr_assert_geq(strv_push(&not_found, name), 0);
			continue;
		}
		if (*p != '/')
			continue; /* linux-vdso.so.1, statically linked */
		end = p + strcspn(p, " \n");
		*end = '\0';
		char *c = canonical(p);
		if (strv_contains(files, c))
			free(c);
		else
			cr_assert_geq(strv_consume(&files, c), 0);
	}
	pclose(f);
	if (ret_not_found)
		*ret_not_found = not_found;
	else
		strv_free(not_found);
	return files;
}

static char **closure_files(struct exec_closure *c, const char *path, const char *search_path)
{
	struct cordon_error err = {};
	char **files = NULL;
	int r = exec_closure_of(c, path, search_path, &files, &err);

	cr_assert_eq(r, 0, "closure of %s: %d %s", path, r, err.message);
	return files;
}

/* ours == ldd's, plus ld.so.cache (which the loader reads, ldd does not list). */
static void assert_matches_ldd(char *const *ours, const char *path)
{
	_cleanup_strv_free_ char **theirs = ldd_files(path, NULL);
	_cleanup_free_ char *cache = canonical(LDCACHE_PATH);

	STRV_FOREACH(t, theirs)
		cr_expect(strv_contains(ours, *t), "%s: ldd names %s, the closure does not", path, *t);
	STRV_FOREACH(o, ours)
		cr_expect(strv_contains(theirs, *o) || strcmp(*o, cache) == 0, "%s: the closure has %s, ldd does not",
			  path, *o);
}

/* The largest ELF files directly in /usr/bin (not symlinks), by size. */
static char **largest_elf_binaries(size_t n)
{
	FILE *f = popen("ls -S /usr/bin", "r");
	char **out = NULL, line[PATH_MAX];
	size_t got = 0;

	cr_assert_not_null(f);
	while (got < n && fgets(line, sizeof(line), f)) {
		char path[PATH_MAX + 16], magic[4];
		struct stat st;
		int fd;

		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), "/usr/bin/%s", line);
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, magic, 4) == 4 && memcmp(magic, ELFMAG, 4) == 0) {
			cr_assert_geq(strv_push(&out, path), 0);
			got++;
		}
		close(fd);
	}
	pclose(f);
	return out;
}

static bool have_cc(void)
{
	return system("cc --version >/dev/null 2>&1") == 0;
}

static void cc(const char *args)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "cd '%s' && cc %s 2>&1", real_dir, args);
	cr_assert_eq(system(cmd), 0, "cc %s", args);
}

/* ---- real binaries against ldd ------------------------------------------ */

Test(closure, bin_sh_matches_ldd)
{
	struct exec_closure *c = NULL;

	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **files = closure_files(c, "/bin/sh", NULL);
	_cleanup_free_ char *sh = canonical("/bin/sh");
	cr_assert_str_eq(files[0], sh, "the binary comes first, canonical");
	assert_matches_ldd(files, "/bin/sh");
	cr_assert_null(exec_closure_missing(c)[0]);
	exec_closure_free(c);
}

Test(closure, git_matches_ldd)
{
	struct exec_closure *c = NULL;

	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **files = closure_files(c, "/usr/bin/git", NULL);
	assert_matches_ldd(files, "/usr/bin/git");
	exec_closure_free(c);
}

Test(closure, symlink_is_canonical)
{
	struct exec_closure *c = NULL;

	cr_assert_eq(symlink("/usr/bin/git", at("git-link")), 0);
	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **files = closure_files(c, at("git-link"), NULL);
	_cleanup_free_ char *git = canonical("/usr/bin/git");
	cr_assert_str_eq(files[0], git);
	cr_assert_not(strv_contains(files, at("git-link")));
	exec_closure_free(c);
}

/* 20 binaries into one closure: each file opened and parsed once. */
Test(closure, memo_opens_each_object_once, .timeout = 120)
{
	_cleanup_strv_free_ char **bins = largest_elf_binaries(20);
	struct exec_closure *c = NULL;
	struct exec_closure_stats st, again;
	struct cordon_error err = {};
	size_t n_files = 0;
	dev_t devs[EXEC_CLOSURE_MAX_FILES];
	ino_t inos[EXEC_CLOSURE_MAX_FILES];
	size_t n_ids = 0;
	_cleanup_free_ char *cache = canonical(LDCACHE_PATH);

	cr_assert_eq(strv_length(bins), 20);
	cr_assert_eq(exec_closure_new(&c), 0);
	STRV_FOREACH(b, bins)
		cr_assert_eq(exec_closure_add(c, *b, NULL, &err), 0, "%s: %s", *b, err.message);
	exec_closure_stats(c, &st);

	/* distinct identities among the files (hard links are one object) */
	for (const char *const *f = exec_closure_files(c); *f; f++, n_files++) {
		struct stat s;
		bool seen = false;

		if (strcmp(*f, cache) == 0)
			continue;
		cr_assert_eq(stat(*f, &s), 0);
		for (size_t i = 0; i < n_ids; i++)
			seen |= devs[i] == s.st_dev && inos[i] == s.st_ino;
		if (!seen) {
			devs[n_ids] = s.st_dev;
			inos[n_ids++] = s.st_ino;
		}
	}
	cr_assert_gt(n_ids, 20);
	cr_assert_eq(st.unique_objects, n_ids, "unique objects %lu, distinct files %zu", st.unique_objects, n_ids);
	cr_assert_eq(st.elf_parses, n_ids, "every ELF object parsed exactly once");
	cr_assert_eq(st.opens, n_ids + 1, "opened once each, plus ld.so.cache: %lu opens", st.opens);
	cr_assert_eq(st.ldcache_loads, 1);

	/* the same 20 again: nothing is opened, resolved or looked up anew */
	STRV_FOREACH(b, bins)
		cr_assert_eq(exec_closure_add(c, *b, NULL, &err), 0);
	exec_closure_stats(c, &again);
	cr_assert_eq(again.opens, st.opens);
	cr_assert_eq(again.resolves, st.resolves);
	cr_assert_eq(again.elf_parses, st.elf_parses);
	cr_assert_eq(again.adds_memoised, st.adds_memoised + 20);

	/* and each closure is what the loader says */
	STRV_FOREACH(b, bins) {
		_cleanup_strv_free_ char **files = closure_files(c, *b, NULL);
		assert_matches_ldd(files, *b);
	}
	exec_closure_free(c);
}

Test(closure, one_more_binary_opens_only_itself)
{
	struct exec_closure *c = NULL;
	struct exec_closure_stats a, b;
	struct cordon_error err = {};

	cr_assert_eq(exec_closure_new(&c), 0);
	cr_assert_eq(exec_closure_add(c, "/usr/bin/git", NULL, &err), 0, "%s", err.message);
	exec_closure_stats(c, &a);
	/* git-shell needs the same libraries as git */
	cr_assert_eq(exec_closure_add(c, "/usr/bin/git-shell", NULL, &err), 0, "%s", err.message);
	exec_closure_stats(c, &b);
	cr_assert_eq(b.opens - a.opens, 1, "%lu opens for one more binary", b.opens - a.opens);
	cr_assert_eq(b.elf_parses - a.elf_parses, 1);
	exec_closure_free(c);
}

/* What `ld.so --help` lists as its system search path is the table's. */
Test(closure, system_dirs_are_the_loaders)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};
	struct object *sh;
	const char *canon_sh;
	char cmd[PATH_MAX + 32], line[PATH_MAX];
	const char *const *ours;
	char **theirs = NULL;
	FILE *f;

	cr_assert_eq(exec_closure_new(&c), 0);
	cr_assert_eq(closure_object_at(c, "/bin/sh", &sh, &canon_sh, &err), 0);
	cr_assert_eq(sh->kind, OBJECT_ELF);
	ours = closure_system_dirs(sh->elf->elf_class, sh->elf->machine);
	cr_assert_not_null(ours, "no loader rules for this machine (%u)", sh->elf->machine);

	snprintf(cmd, sizeof(cmd), "'%s' --help", sh->elf->interp);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		if (!strstr(line, "(system search path)"))
			continue;
		while (*p == ' ')
			p++;
		p[strcspn(p, " ")] = '\0';
		cr_assert_geq(strv_push(&theirs, p), 0);
	}
	pclose(f);
	cr_assert_eq(strv_length(theirs), strv_length((char *const *)ours));
	for (size_t i = 0; theirs[i]; i++)
		cr_expect_str_eq(ours[i], theirs[i]);
	strv_free(theirs);
	exec_closure_free(c);
}

/* ---- scripts ------------------------------------------------------------ */

Test(closure, env_python_script)
{
	struct exec_closure *c = NULL;
	const char *python = "/usr/bin/python3";

	if (access(python, X_OK) < 0)
		cr_skip_test("no %s", python);
	write_text(at("tool.py"), "#!/usr/bin/env python3\nprint('hi')\n");
	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **files = closure_files(c, at("tool.py"), "/usr/bin:/bin");
	_cleanup_strv_free_ char **env = ldd_files("/usr/bin/env", NULL);
	_cleanup_strv_free_ char **py = ldd_files(python, NULL);

	cr_assert_str_eq(files[0], at("tool.py"));
	STRV_FOREACH(f, env)
		cr_expect(strv_contains(files, *f), "env's %s missing", *f);
	STRV_FOREACH(f, py)
		cr_expect(strv_contains(files, *f), "python's %s missing", *f);
	cr_assert_null(exec_closure_missing(c)[0]);
	exec_closure_free(c);
}

Test(closure, env_split_string_and_missing_program)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};

	write_text(at("a"), "#!/usr/bin/env -S VAR=1 sh -e\necho\n");
	write_text(at("b"), "#!/usr/bin/env no-such-program-here\n");
	write_text(at("q"), "#!/usr/bin/env -S \"sh\"\n");
	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **files = closure_files(c, at("a"), "/usr/bin:/bin");
	_cleanup_free_ char *sh = canonical("/bin/sh");
	cr_assert(strv_contains(files, sh), "env -S's program");

	cr_assert_eq(exec_closure_add(c, at("b"), "/usr/bin:/bin", &err), 0);
	cr_assert_not_null(exec_closure_missing(c)[0]);
	cr_assert(strstr(exec_closure_missing(c)[0], "no-such-program-here"), "%s", exec_closure_missing(c)[0]);

	cr_assert_eq(exec_closure_add(c, at("q"), "/usr/bin:/bin", &err), -ENOEXEC);
	cr_assert(strstr(err.message, "quotes"), "%s", err.message);
	exec_closure_free(c);
}

/* A script running itself through env must not recurse forever. */
Test(closure, env_loop_terminates)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};
	char text[PATH_MAX + 32];

	cr_assert_eq(mkdir(at("bin"), 0755), 0);
	snprintf(text, sizeof(text), "#!/usr/bin/env loopy\n");
	write_text(at("bin/loopy"), text);
	cr_assert_eq(exec_closure_new(&c), 0);
	cr_assert_eq(exec_closure_add(c, at("bin/loopy"), at("bin"), &err), 0, "%s", err.message);
	exec_closure_free(c);
}

Test(closure, interpreter_that_is_a_script)
{
	struct exec_closure *c = NULL;
	char text[PATH_MAX + 32];

	write_text(at("inner"), "#!/bin/sh\nexec \"$@\"\n");
	snprintf(text, sizeof(text), "#!%s\n", at("inner"));
	write_text(at("outer"), text);
	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **files = closure_files(c, at("outer"), NULL);
	_cleanup_strv_free_ char **sh = ldd_files("/bin/sh", NULL);
	cr_assert(strv_contains(files, at("outer")));
	cr_assert(strv_contains(files, at("inner")));
	STRV_FOREACH(f, sh)
		cr_expect(strv_contains(files, *f), "sh's %s missing", *f);
	exec_closure_free(c);
}

/* What the kernel does with a chain of n scripts ending in /bin/sh: 0 when
 * it runs, else the errno of the failed exec. */
static int kernel_runs_chain(const char *first)
{
	char *argv[] = { (char *)first, NULL };
	pid_t pid;
	int status, r;

	r = posix_spawn(&pid, first, NULL, NULL, argv, environ);
	if (r != 0)
		return r;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void make_chain(int n)
{
	char name[32], text[PATH_MAX + 32];

	for (int i = 1; i <= n; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		if (i == n)
			snprintf(text, sizeof(text), "#!/bin/sh\nexit 0\n");
		else
			snprintf(text, sizeof(text), "#!%s/c%d\n", real_dir, i + 1);
		write_text(at(name), text);
	}
}

Test(closure, shebang_depth_as_the_kernel)
{
	for (int n = EXEC_CLOSURE_MAX_INTERP_DEPTH - 1; n <= EXEC_CLOSURE_MAX_INTERP_DEPTH + 2; n++) {
		struct exec_closure *c = NULL;
		struct cordon_error err = {};
		int kernel, ours;

		make_chain(n);
		kernel = kernel_runs_chain(at("c1"));
		cr_assert_eq(exec_closure_new(&c), 0);
		ours = exec_closure_add(c, at("c1"), NULL, &err);
		cr_expect(kernel == 0 || kernel == ELOOP, "chain of %d: kernel says %d", n, kernel);
		cr_expect_eq(ours == 0, kernel == 0, "chain of %d scripts: kernel %d, closure %d (%s)", n, kernel, ours,
			     err.message);
		if (kernel == ELOOP)
			cr_expect_eq(ours, -ELOOP);
		exec_closure_free(c);
	}
}

Test(closure, shebang_loop_refused)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};
	char text[PATH_MAX + 32];

	snprintf(text, sizeof(text), "#!%s/y\n", real_dir);
	write_text(at("x"), text);
	snprintf(text, sizeof(text), "#!%s/x\n", real_dir);
	write_text(at("y"), text);
	cr_assert_eq(exec_closure_new(&c), 0);
	cr_assert_eq(exec_closure_add(c, at("x"), NULL, &err), -ELOOP);
	cr_assert(strstr(err.message, "interpreters"), "%s", err.message);
	exec_closure_free(c);
}

Test(closure, other_files_are_themselves)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};

	write_text(at("plain"), "echo no shebang\n");
	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **files = closure_files(c, at("plain"), NULL);
	cr_assert_eq(strv_length(files), 1);
	cr_assert_str_eq(files[0], at("plain"));

	cr_assert_eq(exec_closure_add(c, at("nothing-here"), NULL, &err), -ENOENT);
	cr_assert_eq(exec_closure_add(c, "relative/path", NULL, &err), -EINVAL);
	cr_assert_eq(exec_closure_add(c, real_dir, NULL, &err), -EACCES);
	cr_assert_eq(symlink("loop", at("loop")), 0);
	cr_assert_eq(exec_closure_add(c, at("loop"), NULL, &err), -ELOOP);
	exec_closure_free(c);
}

/* ---- libraries compiled here: RPATH, RUNPATH, $ORIGIN, missing ---------- */

static void build_libs(void)
{
	cr_assert_eq(mkdir(at("lib"), 0755), 0);
	cr_assert_eq(mkdir(at("bin"), 0755), 0);
	write_text(at("b.c"), "int b(void) { return 2; }\n");
	write_text(at("a.c"), "int b(void); int a(void) { return b() - 1; }\n");
	write_text(at("m.c"), "int a(void); int main(void) { return a() - 1; }\n");
	cc("-shared -fPIC -o lib/libb.so b.c");
	cc("-shared -fPIC -o lib/liba.so a.c -Llib -lb");
}

/* exe RPATH=$ORIGIN/../lib reaches liba, and libb through liba's loader
 * chain; with RUNPATH instead, libb is not found (RUNPATH is not
 * inherited): the closure says so exactly where ldd does. */
Test(closure, rpath_origin_and_runpath)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};
	_cleanup_strv_free_ char **ldd_missing = NULL;

	if (!have_cc())
		cr_skip_test("no cc");
	build_libs();
	cc("-o bin/rp m.c -Llib -la -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../lib'");
	cc("-o bin/rn m.c -Llib -la -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib'");
	cr_assert_eq(system(at("bin/rp")), 0, "the RPATH binary runs");

	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **rp = closure_files(c, at("bin/rp"), NULL);
	cr_assert(strv_contains(rp, at("lib/liba.so")));
	cr_assert(strv_contains(rp, at("lib/libb.so")));
	assert_matches_ldd(rp, at("bin/rp"));
	cr_assert_null(exec_closure_missing(c)[0]);

	cr_assert_eq(exec_closure_add(c, at("bin/rn"), NULL, &err), 0, "%s", err.message);
	_cleanup_strv_free_ char **rn = closure_files(c, at("bin/rn"), NULL);
	_cleanup_strv_free_ char **ldd_rn = ldd_files(at("bin/rn"), &ldd_missing);
	cr_assert(strv_contains(rn, at("lib/liba.so")));
	cr_assert_not(strv_contains(rn, at("lib/libb.so")));
	cr_assert(strv_contains(ldd_missing, "libb.so"), "ldd agrees libb.so is not found");
	cr_assert_not(strv_contains(ldd_rn, at("lib/libb.so")));
	cr_assert_not_null(exec_closure_missing(c)[0]);
	cr_assert(strstr(exec_closure_missing(c)[0], "libb.so (needed by "), "%s", exec_closure_missing(c)[0]);
	cr_assert(strstr(exec_closure_missing(c)[0], "liba.so"), "%s", exec_closure_missing(c)[0]);
	exec_closure_free(c);
}

Test(closure, missing_library_is_listed)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};

	if (!have_cc())
		cr_skip_test("no cc");
	build_libs();
	cc("-o bin/m m.c -Llib -Wl,--no-as-needed -la -lb -Wl,-rpath,'$ORIGIN/../lib'");
	cr_assert_eq(unlink(at("lib/liba.so")), 0);
	cr_assert_eq(exec_closure_new(&c), 0);
	cr_assert_eq(exec_closure_add(c, at("bin/m"), NULL, &err), 0, "%s", err.message);
	cr_assert_not_null(exec_closure_missing(c)[0]);
	cr_assert(strstr(exec_closure_missing(c)[0], "liba.so (needed by "), "%s", exec_closure_missing(c)[0]);
	cr_assert(strv_contains((char *const *)exec_closure_files(c), at("lib/libb.so")));
	exec_closure_free(c);
}

Test(closure, malformed_library_refused)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};
	char junk[64] = ELFMAG;

	if (!have_cc())
		cr_skip_test("no cc");
	build_libs();
	cc("-o bin/m m.c -Llib -Wl,--no-as-needed -la -lb -Wl,-rpath,'$ORIGIN/../lib'");
	write_file(at("lib/libb.so"), junk, sizeof(junk), 0644);
	cr_assert_eq(exec_closure_new(&c), 0);
	cr_assert_eq(exec_closure_add(c, at("bin/m"), NULL, &err), -ENOEXEC);
	cr_assert(strstr(err.message, "libb.so"), "%s", err.message);
	cr_assert(strstr(err.message, "needed by"), "%s", err.message);
	exec_closure_free(c);
}

/* glibc-hwcaps variants: the loader picks one by CPU; the gate takes all. */
Test(closure, hwcaps_variants_all_taken)
{
	struct exec_closure *c = NULL;

#ifndef __x86_64__
	cr_skip_test("the glibc-hwcaps names here are x86-64's");
#endif
	if (!have_cc())
		cr_skip_test("no cc");
	build_libs();
	cr_assert_eq(mkdir(at("lib/glibc-hwcaps"), 0755), 0);
	cr_assert_eq(mkdir(at("lib/glibc-hwcaps/x86-64-v2"), 0755), 0);
	cc("-shared -fPIC -o lib/glibc-hwcaps/x86-64-v2/libb.so b.c");
	cc("-o bin/m m.c -Llib -Wl,--no-as-needed -la -lb -Wl,-rpath,'$ORIGIN/../lib'");
	cr_assert_eq(exec_closure_new(&c), 0);
	_cleanup_strv_free_ char **files = closure_files(c, at("bin/m"), NULL);
	_cleanup_strv_free_ char **theirs = ldd_files(at("bin/m"), NULL);
	cr_assert(strv_contains(files, at("lib/libb.so")));
	cr_assert(strv_contains(files, at("lib/glibc-hwcaps/x86-64-v2/libb.so")));
	STRV_FOREACH(t, theirs)
		cr_expect(strv_contains(files, *t), "ldd's %s not in the closure", *t);
	exec_closure_free(c);
}

/* ---- malformed ELF files ------------------------------------------------- */

static void assert_refused(const char *name, const void *data, size_t len, const char *why)
{
	struct exec_closure *c = NULL;
	struct cordon_error err = {};

	write_file(at(name), data, len, 0755);
	cr_assert_eq(exec_closure_new(&c), 0);
	cr_assert_eq(exec_closure_add(c, at(name), NULL, &err), -ENOEXEC, "%s accepted", name);
	cr_assert(strstr(err.message, why), "%s: '%s' lacks '%s'", name, err.message, why);
	cr_assert_str_eq(err.file, at(name));
	exec_closure_free(c);
}

static uint8_t *read_prefix(const char *path, size_t n)
{
	uint8_t *buf = malloc(n);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert_not_null(buf);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, buf, n), (ssize_t)n);
	close(fd);
	return buf;
}

Test(closure, malformed_elf_refused)
{
	_cleanup_free_ uint8_t *hdr = read_prefix("/bin/true", 4096);
	_cleanup_free_ uint8_t *pristine = read_prefix("/bin/true", 64);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)hdr;

	cr_assert_eq(hdr[EI_CLASS], ELFCLASS64, "this test patches a 64-bit little-endian header");
	assert_refused("truncated", hdr, 40, "truncated ELF header");

	eh->e_phoff = 1ull << 40;
	assert_refused("phoff", hdr, 4096, "program headers lie past the end");

	memcpy(hdr, pristine, 64);
	eh->e_phnum = 0xffff;
	assert_refused("phnum", hdr, 4096, "program headers (1 to");

	eh->e_phnum = 1;
	eh->e_phentsize = 7;
	assert_refused("phentsize", hdr, 4096, "program header entries of 7 bytes");

	eh->e_phentsize = sizeof(Elf64_Phdr);
	hdr[EI_CLASS] = 9;
	assert_refused("class", hdr, 4096, "unknown ELF class");
}

/* ---- the ELF reader on synthetic files: both classes, both byte orders -- */

struct elf_build {
	uint8_t buf[8192];
	size_t len;
	bool is64, big;
	size_t dyn_off; /* the dynamic entries; the first is the first DT_NEEDED */
};

static void put(struct elf_build *b, size_t off, uint64_t v, size_t width)
{
	for (size_t i = 0; i < width; i++)
		b->buf[off + (b->big ? width - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

/* ELF header, PT_LOAD (the whole file), PT_INTERP, PT_DYNAMIC; then the
 * interpreter, the string table and the dynamic entries. */
static void build_elf(struct elf_build *b, bool is64, bool big, unsigned machine, const char *interp,
		      const char *const *needed, const char *runpath)
{
	size_t eh = is64 ? 64 : 52, ph = is64 ? 56 : 32, dyn = is64 ? 16 : 8, w = is64 ? 8 : 4;
	size_t phoff = eh, interp_off = phoff + 3 * ph, str_off, dyn_off, o, n_dyn = 0;
	uint64_t base = 0x400000;
	size_t name_off[64];
	size_t n_needed = 0, runpath_off = 0;

	memset(b, 0, sizeof(*b));
	b->is64 = is64;
	b->big = big;
	memcpy(b->buf, ELFMAG, SELFMAG);
	b->buf[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	b->buf[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	b->buf[EI_VERSION] = EV_CURRENT;

	strcpy((char *)b->buf + interp_off, interp);
	str_off = interp_off + strlen(interp) + 1;
	o = str_off + 1; /* offset 0 of a string table is "" */
	for (; needed && needed[n_needed]; n_needed++) {
		name_off[n_needed] = o - str_off;
		strcpy((char *)b->buf + o, needed[n_needed]);
		o += strlen(needed[n_needed]) + 1;
	}
	if (runpath) {
		runpath_off = o - str_off;
		strcpy((char *)b->buf + o, runpath);
		o += strlen(runpath) + 1;
	}
	dyn_off = (o + 7) & ~(size_t)7;
	b->dyn_off = dyn_off;
	for (size_t i = 0; i < n_needed; i++, n_dyn++) {
		put(b, dyn_off + n_dyn * dyn, DT_NEEDED, w);
		put(b, dyn_off + n_dyn * dyn + w, name_off[i], w);
	}
	if (runpath) {
		put(b, dyn_off + n_dyn * dyn, DT_RUNPATH, w);
		put(b, dyn_off + n_dyn * dyn + w, runpath_off, w);
		n_dyn++;
	}
	put(b, dyn_off + n_dyn * dyn, DT_STRTAB, w);
	put(b, dyn_off + n_dyn * dyn + w, base + str_off, w);
	n_dyn++;
	put(b, dyn_off + n_dyn * dyn, DT_STRSZ, w);
	put(b, dyn_off + n_dyn * dyn + w, o - str_off, w);
	n_dyn++;
	n_dyn++; /* DT_NULL */
	b->len = dyn_off + n_dyn * dyn;

	put(b, 16, ET_DYN, 2);
	put(b, 18, machine, 2);
	put(b, 20, EV_CURRENT, 4);
	put(b, is64 ? 32 : 28, phoff, w);               /* e_phoff */
	put(b, is64 ? 52 : 40, eh, 2);                  /* e_ehsize */
	put(b, is64 ? 54 : 42, ph, 2);                  /* e_phentsize */
	put(b, is64 ? 56 : 44, 3, 2);                   /* e_phnum */

	/* p_type, p_offset, p_vaddr, p_filesz for each */
	struct {
		uint32_t type;
		uint64_t off, len;
	} seg[3] = { { PT_LOAD, 0, b->len }, { PT_INTERP, interp_off, strlen(interp) + 1 },
		     { PT_DYNAMIC, dyn_off, n_dyn * dyn } };
	for (int i = 0; i < 3; i++) {
		size_t p = phoff + (size_t)i * ph;
		put(b, p, seg[i].type, 4);
		put(b, p + (is64 ? 8 : 4), seg[i].off, w);              /* p_offset */
		put(b, p + (is64 ? 16 : 8), base + seg[i].off, w);      /* p_vaddr */
		put(b, p + (is64 ? 32 : 16), seg[i].len, w);            /* p_filesz */
		put(b, p + (is64 ? 40 : 20), seg[i].len, w);            /* p_memsz */
	}
}

static int read_built(const struct elf_build *b, struct elf_info **ret, struct cordon_error *err)
{
	struct elf_source src = { .fd = -1, .data = b->buf, .size = b->len };

	return elf_read_info(&src, ret, err);
}

Test(closure, reader_both_classes_both_byte_orders)
{
	static const char *const needed[] = { "libone.so.1", "libtwo.so.2", NULL };

	for (int is64 = 0; is64 <= 1; is64++)
		for (int big = 0; big <= 1; big++) {
			struct elf_build b;
			struct elf_info *info = NULL;
			struct cordon_error err = {};

			build_elf(&b, is64, big, is64 ? EM_PPC64 : EM_PPC, "/lib/ld.so.1", needed, "$ORIGIN/../lib");
			cr_assert_eq(read_built(&b, &info, &err), 0, "class %d big %d: %s", is64, big, err.message);
			cr_assert_eq(info->elf_class, is64 ? ELFCLASS64 : ELFCLASS32);
			cr_assert_eq(info->data, big ? ELFDATA2MSB : ELFDATA2LSB);
			cr_assert_eq(info->machine, is64 ? EM_PPC64 : EM_PPC);
			cr_assert_str_eq(info->interp, "/lib/ld.so.1");
			cr_assert_eq(info->n_needed, 2);
			cr_assert_str_eq(info->needed[0], "libone.so.1");
			cr_assert_str_eq(info->needed[1], "libtwo.so.2");
			cr_assert_str_eq(info->runpath, "$ORIGIN/../lib");
			cr_assert_null(info->rpath);
			elf_info_free(info);
		}
}

Test(closure, reader_refuses_out_of_bounds)
{
	static const char *const needed[] = { "libone.so.1", NULL };
	struct elf_build b;
	struct elf_info *info = NULL;
	struct cordon_error err = {};
	size_t dyn_ph = 64 + 2 * 56;

	/* a dynamic section claiming a million entries */
	build_elf(&b, true, false, EM_X86_64, "/lib/ld.so", needed, NULL);
	put(&b, dyn_ph + 32, 16ull << 20, 8);
	cr_assert_eq(read_built(&b, &info, &err), -ENOEXEC);
	cr_assert(strstr(err.message, "dynamic section of"), "%s", err.message);

	/* a string offset past the string table */
	build_elf(&b, true, false, EM_X86_64, "/lib/ld.so", needed, NULL);
	put(&b, b.dyn_off + 8, 1u << 30, 8);
	cr_assert_eq(read_built(&b, &info, &err), -ENOEXEC);
	cr_assert(strstr(err.message, "outside the dynamic string table"), "%s", err.message);

	/* PT_INTERP without its NUL */
	build_elf(&b, true, false, EM_X86_64, "/lib/ld.so", needed, NULL);
	put(&b, 64 + 56 + 32, strlen("/lib/ld.so"), 8);
	cr_assert_eq(read_built(&b, &info, &err), -ENOEXEC);
	cr_assert(strstr(err.message, "PT_INTERP"), "%s", err.message);

	/* every truncation of a valid file is refused or read, never a crash */
	build_elf(&b, false, true, EM_PPC, "/lib/ld.so.1", needed, "/x");
	for (size_t len = 0; len < b.len; len++) {
		struct elf_source src = { .fd = -1, .data = b.buf, .size = len };
		int r = elf_read_info(&src, &info, &err);
		cr_assert(r == -ENOEXEC, "truncated to %zu: %d", len, r);
	}
}

/* ---- ld.so.cache ---------------------------------------------------------- */

Test(closure, ldcache_real_file)
{
	struct ldcache *cache = NULL;
	struct cordon_error err = {};
	const struct ldcache_entry *e;
	char line[256];
	unsigned long listed = 0;
	size_t n;
	FILE *f;

	cr_assert_eq(ldcache_load(LDCACHE_PATH, &cache, &err), 0, "%s", err.message);
	f = popen("ldconfig -p 2>/dev/null || /sbin/ldconfig -p", "r");
	cr_assert_not_null(f);
	if (fgets(line, sizeof(line), f))
		listed = strtoul(line, NULL, 10);
	pclose(f);
	cr_assert_gt(listed, 0);
	cr_assert_eq(ldcache_entries(cache), listed, "ldconfig -p lists %lu", listed);

	e = ldcache_find(cache, "libc.so.6", &n);
	cr_assert_geq(n, 1);
	cr_assert_eq(access(e[0].path, R_OK), 0, "%s", e[0].path);
	cr_assert_null(ldcache_find(cache, "libnot-a-library.so.0", &n));
	ldcache_free(cache);
}

static size_t build_cache(uint8_t *buf, uint8_t endian_flags)
{
	const char *names = "libx.so.1\0/opt/lib/libx.so.1\0";
	size_t names_len = 30, strings = 48 + 24;

	memset(buf, 0, 256);
	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	*(uint32_t *)(buf + 20) = 1;
	*(uint32_t *)(buf + 24) = (uint32_t)names_len;
	buf[28] = endian_flags;
	*(int32_t *)(buf + 48) = 0x303;
	*(uint32_t *)(buf + 52) = (uint32_t)strings;
	*(uint32_t *)(buf + 56) = (uint32_t)strings + 10;
	memcpy(buf + strings, names, names_len);
	return strings + names_len;
}

Test(closure, ldcache_synthetic)
{
	uint8_t buf[256];
	struct ldcache *cache = NULL;
	struct cordon_error err = {};
	const struct ldcache_entry *e;
	uint8_t host = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 2 : 3;
	size_t len = build_cache(buf, host), n;

	cr_assert_eq(ldcache_parse(buf, len, &cache, &err), 0, "%s", err.message);
	e = ldcache_find(cache, "libx.so.1", &n);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(e[0].path, "/opt/lib/libx.so.1");
	cr_assert_eq(e[0].flags, 0x303);
	ldcache_free(cache);

	len = build_cache(buf, host == 2 ? 3 : 2);
	cr_assert_eq(ldcache_parse(buf, len, &cache, &err), -ENOEXEC);
	cr_assert(strstr(err.message, "byte order"), "%s", err.message);

	len = build_cache(buf, host);
	*(uint32_t *)(buf + 20) = 100000; /* more entries than the file holds */
	cr_assert_eq(ldcache_parse(buf, len, &cache, &err), -ENOEXEC);

	cr_assert_eq(ldcache_parse((const uint8_t *)"hello", 5, &cache, &err), -ENOEXEC);
}

/* ---- "#!" lines as the kernel reads them ---------------------------------- */

static void shebang_ok(const char *line, const char *interp, const char *arg)
{
	char *i = NULL, *a = NULL;
	struct cordon_error err = {};

	cr_assert_eq(shebang_parse(line, strlen(line), &i, &a, &err), 1, "%s: %s", line, err.message);
	cr_assert_str_eq(i, interp);
	if (arg)
		cr_assert_str_eq(a, arg);
	else
		cr_assert_null(a, "%s: unexpected argument '%s'", line, a);
	free(i);
	free(a);
}

Test(closure, shebang_lines)
{
	char long_line[400];
	char *i = NULL, *a = NULL;
	struct cordon_error err = {};

	shebang_ok("#!/bin/sh\n", "/bin/sh", NULL);
	shebang_ok("#! /bin/sh -e \n", "/bin/sh", "-e");
	shebang_ok("#!/usr/bin/env  python3 -u\t\nx", "/usr/bin/env", "python3 -u");
	shebang_ok("#!/bin/sh", "/bin/sh", NULL); /* no newline, file ends */
	cr_assert_eq(shebang_parse("#!\n", 3, &i, &a, &err), -ENOEXEC);
	cr_assert_eq(shebang_parse("#!   \n", 6, &i, &a, &err), -ENOEXEC);
	cr_assert_eq(shebang_parse("echo\n", 5, &i, &a, &err), 0);

	/* an interpreter path cut off at 256 bytes is refused... */
	memset(long_line, 'a', sizeof(long_line));
	memcpy(long_line, "#!/", 3);
	cr_assert_eq(shebang_parse(long_line, sizeof(long_line), &i, &a, &err), -ENOEXEC);
	/* ...a cut-off argument is not */
	long_line[10] = ' ';
	cr_assert_eq(shebang_parse(long_line, sizeof(long_line), &i, &a, &err), 1);
	cr_assert_eq(strlen(i), 8);
	cr_assert_eq(strlen(a), SHEBANG_MAX - 1 - 11);
	free(i);
	free(a);
}

Test(closure, env_arguments)
{
	char *name = NULL;
	struct cordon_error err = {};

	cr_assert_eq(shebang_env_program("python3", &name, &err), 0);
	cr_assert_str_eq(name, "python3");
	free(name);
	cr_assert_eq(shebang_env_program("-S -i -u HOME A=1 B=2 node --x", &name, &err), 0);
	cr_assert_str_eq(name, "node");
	free(name);
	cr_assert_eq(shebang_env_program("--split-string=-- perl -w", &name, &err), 0);
	cr_assert_str_eq(name, "perl");
	free(name);
	cr_assert_eq(shebang_env_program("-S ${X}", &name, &err), -ENOEXEC);
	cr_assert_eq(shebang_env_program("-i python3", &name, &err), -ENOEXEC);
	cr_assert_eq(shebang_env_program("-S A=1", &name, &err), -ENOEXEC);
}
