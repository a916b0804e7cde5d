/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_load_buffer on arbitrary bytes. Whatever it refuses must say why
 * (and where, for anything wrong with the text); whatever it accepts must
 * write back to JSON that loads to the same profile, and answer "why"
 * questions without failing. command_policies is compiled and its
 * decisions asked too; the same bytes loaded for a run load the same
 * commands (the supervisor runs them).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "profile.h"
#include "tools.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct profile_env env = {
	.workspace = "/nonexistent/cordon-fuzz/ws",
	.home = "/nonexistent/cordon-fuzz/home",
	.tmpdir = "/tmp",
	.xdg_config_home = "/nonexistent/cordon-fuzz/home/.config",
	.user_profile_dir = "",
	.data_profile_dir = "",
	.system_gitconfig = "",
	.inspect = true,
};

/* Every edge of the compiled policies, asked: a decision or a sandbox for
 * each, never a failure, every list there. */
static void ask_tools(const struct cordon_tools *t)
{
	static const char *const argv[] = { "push", "--force", "origin", NULL };
	static const char *const envp[] = { "CI=true", "GIT_DIR=/a", "NOEQUALS", NULL };
	const char *const *names = cordon_tools_commands(t);

	for (size_t i = 0; names[i]; i++) {
		/* the session, and the first commands as the caller */
		for (size_t j = 0; j < 16 && (j == 0 || names[j - 1]); j++) {
			const char *caller = j == 0 ? CORDON_TOOLS_SESSION : names[j - 1];
			struct cordon_tool_decision d;
			struct cordon_tool_sandbox sb;
			struct cordon_approval_backend b;
			int r;

			CHECK(cordon_tools_decide(t, caller, names[i], argv, envp, &d) == 0);
			CHECK(d.action == CORDON_TOOL_ALLOW || d.action == CORDON_TOOL_DENY ||
			      d.action == CORDON_TOOL_APPROVE);
			CHECK(d.rule[0] == '/');
			/* an approval always has a backend to ask, and it exists */
			CHECK(d.action != CORDON_TOOL_APPROVE || cordon_tools_backend(t, d.backend, &b) == 0);
			r = cordon_tools_sandbox(t, caller, names[i], &sb);
			CHECK(r == 0 || r == -EPERM);
			CHECK(r != 0 || (sb.fs_read && sb.fs_write && sb.exec_paths && sb.allow_vars && sb.set_vars));
			/* no sandbox only for an edge that is not there: a deny */
			CHECK(r == 0 || d.action == CORDON_TOOL_DENY);
		}
		CHECK(cordon_tools_executable(t, names[i]) != NULL);
		CHECK(cordon_tools_can_use(t, names[i]) != NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cordon_profile *p = NULL, *p2 = NULL;
	struct cordon_error err = { 0 };
	struct profile_decision d;
	char *s = NULL, *s2 = NULL;
	int r;

	r = profile_load_buffer((const char *)data, size, "fuzz.json", &env, &p, &err);
	if (r < 0) {
		/* validate's one pass over the same bytes: each error said,
		 * never more than asked for, never a loop */
		struct cordon_error errs[8];
		const struct cordon_profile_opts o = { .workspace = "/nonexistent/cordon-fuzz/ws" };
		int n = cordon_profile_validate_buffer((const char *)data, size, "fuzz.json", &o, errs, 8);

		CHECK(n == -ENOMEM || (n >= 0 && n <= 8));
		for (int i = 0; i < n; i++)
			CHECK(errs[i].message[0] != '\0');
		CHECK(r == -EINVAL || r == -EFBIG || r == -ENOMEM || r == -E2BIG || r == -ELOOP ||
		      r == -ENAMETOOLONG || r == -EPERM || r == -ERANGE || r == -EOPNOTSUPP || r == -ENOENT ||
		      r == -EISDIR || r == -EACCES || r == -ENOTDIR ||
		      r == -ENOPKG /* a pack's OWNER/NAME/PROFILE without the supervisor's resolver */);
		CHECK(r == -ENOMEM || err.message[0] != '\0');
		CHECK(p == NULL);
		return 0;
	}
	CHECK(p);
	CHECK(p->chain && p->chain[0]);

	r = profile_to_json(p, &s);
	CHECK(r == 0 || r == -EINVAL); /* -EINVAL: a path that is not UTF-8 */
	if (r == 0) {
		r = profile_load_buffer(s, strlen(s), "fuzz.json", &env, &p2, &err);
		CHECK(r == 0);
		CHECK(profile_to_json(p2, &s2) == 0);
		CHECK(strcmp(s, s2) == 0);
	}

	for (int op = PROFILE_OP_READ; op <= PROFILE_OP_EXEC; op++) {
		CHECK(profile_why_path(p, "/nonexistent/cordon-fuzz/ws/x", (enum profile_op)op, &d) == 0);
		CHECK(profile_why_path(p, "/nonexistent/cordon-fuzz/home/.ssh/id", (enum profile_op)op, &d) == 0);
		CHECK(!d.allow || p->mode == CORDON_MODE_DANGER_FULL_ACCESS);
	}
	CHECK(profile_why_host(p, "example.com", 443, &d) == 0);
	if (p->tools) {
		struct profile_env strict = env;
		struct cordon_profile *run = NULL;

		ask_tools(p->tools);
		strict.inspect = false;
		CHECK(profile_load_buffer((const char *)data, size, "fuzz.json", &strict, &run, &err) == 0);
		CHECK(run && run->tools && run->tools->n_commands == p->tools->n_commands);
		profile_free(run);
	}
	CHECK(d.allow == (p->net == PROFILE_NET_HOST || p->mode == CORDON_MODE_DANGER_FULL_ACCESS));

	free(s);
	free(s2);
	profile_free(p);
	profile_free(p2);
	return 0;
}
