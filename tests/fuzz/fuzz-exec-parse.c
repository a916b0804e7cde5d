/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's plan parser (src/exec/parse.c, plan_fd.c) and its compiler
 * (plan.c) on arbitrary bytes. The first byte chooses the form:
 *   even: the rest is an argv, its words split at NUL, after "exec";
 *   odd:  the rest is a sealed memfd plan's bytes (runner_plan.c's form),
 *         read through `exec --plan-fd N -- true`, and the same words
 *         parsed again inline: both ways must agree.
 * The parse returns 0 or a documented -errno with a reason; on failure
 * nothing is left to free and no fd is named but a well-formed status fd;
 * on success every list keeps its caps and checks (normal paths, valid
 * names, no injection or proxy variable in --setenv) and the command is
 * not empty; the plan compiles to 0 or -errno with a reason. Leaks and
 * reads past the input are ASan's to find.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "parse.h"
#include "plan.h"
#include "policy.h"
#include "runner_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* far past what the runner's line or a plan holds in a test of this size,
 * and under RUNNER_PLAN_MAX */
#define FUZZ_INPUT_MAX (256 * 1024)
#define FUZZ_WORDS_MAX 4096

static bool rc_documented(int r)
{
	return r == -EINVAL || r == -E2BIG || r == -ENAMETOOLONG || r == -ENOMEM || r == -EPERM || r == -EBADF ||
	       r == -EIO;
}

static void check_list(const struct exec_list *l, bool paths)
{
	CHECK(l->n <= EXEC_MAX_LIST);
	CHECK(l->v && l->v[l->n] == NULL);
	CHECK(l->n < l->cap); /* within the slots counted for it */
	for (size_t i = 0; i < l->n; i++) {
		CHECK(l->v[i]);
		if (paths)
			CHECK(strlen(l->v[i]) <= EXEC_MAX_PATH && exec_path_is_normal(l->v[i]) &&
			      strcmp(l->v[i], "/") != 0);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(l->v[i], l->v[j]) != 0); /* a repeat is kept once */
	}
}

static bool fd_ok(int fd)
{
	return fd == -1 || (fd >= 3 && fd <= EXEC_MAX_STATUS_FD);
}

/* What the parse returned is consistent; the plan compiles or says why. */
static void check_result(int r, struct exec_flags *f, const char *err)
{
	if (r < 0) {
		CHECK(rc_documented(r) && err[0]);
		CHECK(!f->storage && !f->plan_argv && !f->plan_buf && !f->command);
		CHECK(fd_ok(f->status_fd));
		CHECK(f->exec_fd == -1 && f->broker_fd == -1 && f->credentials_fd == -1);
		return;
	}
	CHECK(r == 0);
	if (f->help)
		return;
	CHECK(f->command && f->command[0] && f->command[0][0]);
	CHECK(f->isolation == CORDON_ISOLATION_FULL || f->isolation == CORDON_ISOLATION_LIGHT);
	CHECK(fd_ok(f->status_fd) && fd_ok(f->exec_fd) && fd_ok(f->broker_fd) && fd_ok(f->credentials_fd));
	CHECK(f->serve_fd == 0 || (f->serve_fd >= 3 && f->serve_fd <= EXEC_MAX_STATUS_FD));
	CHECK(f->broker_fd < 0 || (f->broker_fd != f->status_fd && f->broker_fd != f->exec_fd));
	CHECK(f->credentials_fd < 0 || f->net == CORDON_NET_PROXY || f->net == CORDON_NET_ALLOW);
	CHECK(!(f->shim.n || f->shim_path) || f->broker_fd >= 0);
	CHECK(!f->exec.n || f->exec_gate);
	const struct exec_list *paths[] = { &f->write,	   &f->read,	   &f->exec,	    &f->deny_exec,
					    &f->deny_read, &f->deny_absent, &f->read_host, &f->home_hide,
					    &f->home_grant, &f->home_link,	&f->home_filtered, &f->protect,
					    &f->unprotect, &f->allow_unix };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		check_list(paths[i], true);
	check_list(&f->protect_name, false);
	check_list(&f->allow_domain, false);
	check_list(&f->deny_domain, false);
	check_list(&f->allow_address, false);
	check_list(&f->shim, false);
	check_list(&f->keep_env, false);
	check_list(&f->setenv, false);
	for (size_t i = 0; i < f->keep_env.n; i++)
		CHECK(env_name_valid(f->keep_env.v[i], true) && !env_name_is_injection(f->keep_env.v[i]));
	for (size_t i = 0; i < f->setenv.n; i++)
		CHECK(env_name_valid(f->setenv.v[i], false) && !env_name_is_injection(f->setenv.v[i]) &&
		      !env_name_is_proxy(f->setenv.v[i]));

	struct plan p;
	char perr[512] = "";
	int pr = plan_compile(f, &p, perr, sizeof(perr));

	CHECK(pr == 0 || (pr < 0 && perr[0]));
	if (pr == 0)
		plan_done(&p);
}

/* The words of buf[0..len) split at NUL (a last word without one counts);
 * NULL when there are more than FUZZ_WORDS_MAX. */
static char **split_words(char *buf, size_t len, const char *first, const char *const *tail, int *ret_argc)
{
	size_t n = 0, k = 0;
	char **v;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\0';
	if (n > FUZZ_WORDS_MAX)
		return NULL;
	v = calloc(n + 8, sizeof(char *));
	if (!v)
		return NULL;
	v[k++] = (char *)first;
	for (size_t at = 0; at < len; at += strlen(buf + at) + 1)
		v[k++] = buf + at;
	for (; tail && *tail; tail++)
		v[k++] = (char *)*tail;
	v[k] = NULL;
	*ret_argc = (int)k;
	return v;
}

static void fuzz_argv(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), **argv;
	struct exec_flags f;
	char err[512];
	int argc, r;

	if (!buf)
		return;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv = split_words(buf, size, "exec", NULL, &argc);
	if (argv) {
		/* a --plan-fd here would read whatever fd it names: the plan form is the other branch */
		for (int i = 1; i < argc; i++)
			if (strcmp(argv[i], "--plan-fd") == 0)
				goto out;
		memset(err, 0, sizeof(err));
		r = exec_parse(argc, argv, &f, err, sizeof(err));
		check_result(r, &f, err);
		if (r == 0)
			exec_flags_done(&f);
	}
out:
	free(argv);
	free(buf);
}

static int sealed_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	if ((size && write(fd, data, size) != (ssize_t)size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void fuzz_plan(const uint8_t *data, size_t size)
{
	static const char *const tail[] = { "--", "true", NULL };
	char fdstr[16], err[512], err2[512], *buf = NULL, **inline_argv = NULL;
	struct exec_flags f, g;
	int fd, r, r2, argc;
	bool plan_words_ok;

	fd = sealed_memfd(data, size);
	if (fd < 0)
		return;
	snprintf(fdstr, sizeof(fdstr), "%d", fd);
	char *argv[] = { "exec", "--plan-fd", fdstr, "--", "true", NULL };

	memset(err, 0, sizeof(err));
	r = exec_parse(5, argv, &f, err, sizeof(err));
	check_result(r, &f, err);
	/* read, the plan's fd is closed; refused, it may still be open */
	if (fcntl(fd, F_GETFD) >= 0)
		close(fd);

	/* The same words inline parse the same way: the plan is a flag line
	 * moved out of argv, nothing more (when it is well formed: ended,
	 * not empty, with no "--" or "--plan-fd" of its own). */
	plan_words_ok = size > 0 && data[size - 1] == '\0';
	buf = malloc(size + 1);
	if (plan_words_ok && buf) {
		memcpy(buf, data, size);
		buf[size] = '\0';
		inline_argv = split_words(buf, size, "exec", tail, &argc);
		for (int i = 1; inline_argv && i < argc - 2; i++)
			if (strcmp(inline_argv[i], "--") == 0 || strcmp(inline_argv[i], "--plan-fd") == 0)
				plan_words_ok = false;
	}
	if (plan_words_ok && inline_argv) {
		memset(err2, 0, sizeof(err2));
		r2 = exec_parse(argc, inline_argv, &g, err2, sizeof(err2));
		check_result(r2, &g, err2);
		CHECK(r2 == r || (r < 0 && r2 == 0 && size > RUNNER_PLAN_MAX));
		/* --help stops the parse where it stands: only that it was asked */
		if (r == 0 && r2 == 0)
			CHECK(f.help == g.help);
		if (r == 0 && r2 == 0 && !f.help) {
			CHECK(f.net == g.net && f.isolation == g.isolation &&
			      f.status_fd == g.status_fd && f.write.n == g.write.n && f.setenv.n == g.setenv.n &&
			      f.keep_env.n == g.keep_env.n && f.protect.n == g.protect.n &&
			      f.deny_read.n == g.deny_read.n && f.required == g.required);
			CHECK(strcmp(f.command[0], g.command[0]) == 0);
		}
		if (r2 == 0)
			exec_flags_done(&g);
	}
	if (r == 0)
		exec_flags_done(&f);
	free(inline_argv);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > FUZZ_INPUT_MAX)
		return 0;
	if (data[0] & 1)
		fuzz_plan(data + 1, size - 1);
	else
		fuzz_argv(data + 1, size - 1);
	return 0;
}
