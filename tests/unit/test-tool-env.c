/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tool_env_value_reaches: the paths in a value a caller hands a tool, read
 * whatever the variable (no list of names), against the roots a sandbox of
 * the session can write. Each refusal beside a value that passes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool_env.h"

static char base[] = "/var/tmp/cordon-toolenv-XXXXXX";
static char ws[256], outside[256], link_in[256];
static const char *roots[3];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(base));
	snprintf(ws, sizeof(ws), "%s/ws", base);
	snprintf(outside, sizeof(outside), "%s/etc", base);
	snprintf(link_in, sizeof(link_in), "%s/link", base);
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(outside, 0755), 0);
	/* a link outside every root that leads into one */
	cr_assert_eq(symlink(ws, link_in), 0);
	roots[0] = ws;
	roots[1] = "/tmp";
	roots[2] = NULL;
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	(void)system(cmd);
}

TestSuite(tool_env, .init = setup, .fini = teardown);

static bool reaches(const char *value, char *what, size_t size)
{
	return tool_env_value_reaches(value, roots, what, size);
}

static void expect_refused(const char *value, const char *want)
{
	char what[256] = "";

	cr_expect(reaches(value, what, sizeof(what)), "%s passed", value);
	cr_expect_str_eq(what, want, "%s", value);
}

static void expect_passes(const char *value)
{
	char what[256] = "";

	cr_expect(!reaches(value, what, sizeof(what)), "%s refused at %s", value, what);
}

/* the value and the piece named, each a format with arg */
#define FMT(fmt, arg)                                        \
	({                                                   \
		static char _b[1024];                        \
		snprintf(_b, sizeof(_b), fmt, arg);          \
		(const char *)_b;                            \
	})
#define refused(fmt, arg, piece) expect_refused(FMT(fmt, arg), FMT(piece, arg))
#define passes(fmt, arg) expect_passes(FMT(fmt, arg))

Test(tool_env, a_value_leading_into_a_writable_root_is_found_wherever_it_is)
{
	/* the whole value: KUBECONFIG, OPENSSL_CONF, GIT_CONFIG_GLOBAL ... */
	refused("%s/kubeconfig", ws, "%s/kubeconfig");
	passes("%s/kubeconfig", outside);
	/* the root itself, and through "." and repeated '/' */
	refused("%s", ws, "%s");
	refused("%s/./x//y", ws, "%s/./x//y");
	/* a list: PYTHONPATH, PATH */
	refused("/usr/lib/python3:%s/lib", ws, "%s/lib");
	passes("/usr/lib/python3:%s/lib", outside);
	/* a command line: GIT_SSH_COMMAND, PAGER, LESSOPEN, NODE_OPTIONS */
	refused("ssh -F %s/ssh_config", ws, "%s/ssh_config");
	refused("--require=%s/x.js", ws, "%s/x.js");
	refused("--require %s/x.js", ws, "%s/x.js");
	refused("less -R |%s/filter %%s", ws, "%s/filter");
	refused("'%s/evil'", ws, "%s/evil");
	refused("@%s/args", ws, "%s/args");
	refused("file://%s/conf", ws, "//%s/conf"); /* the piece after "file:" */
	/* an option glued to its path: -I/x, -L/x */
	refused("-O2 -I%s/include", ws, "%s/include");
	passes("-O2 -I%s/include", outside);
	/* a link outside the roots that leads into one: canonical too */
	refused("%s/x", link_in, "%s/x");
	/* a ".." after which the kernel would follow a link a sandbox made */
	refused("%s/../etc/x", outside, "%s/../etc/x");
	/* the caller's own fds and directory */
	refused("%s", "/dev/stdin", "%s");
	refused("%s", "/proc/self/cwd/x.cnf", "%s");
	refused("%s", "/dev/fd/0", "%s");
	passes("%s", "/dev/null");
	/* relative to the caller's directory */
	refused("%s", "./x.js", "%s");
	expect_refused("--require ../x.js", "../x.js");
	/* inside a longer path is not a path: /var/tmp is not /tmp */
	passes("%s", "/var/tmp/x");
	refused("%s", "/tmp/x", "%s");
	/* no path at all */
	passes("%s", "1");
	passes("%s", "Jane Doe <jane@example.com>");
	passes("%s", "");
	passes("%s", "a/b");
}
