/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write gate's rules by name (src/exec/gate_rules.c over
 * src/lib/policy/protect_names.c): what is refused, what git's normal work
 * keeps, and how roots, carve-outs and literal protections combine.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_rules.h"
#include "protect_names.h"

static const char *const names[] = { ".vscode", ".mcp.json", ".claude", ".cordon*", NULL };

Test(protect_names, git_code_entries_at_any_depth)
{
	static const char *const refused[] = {
		".git", "a/b/.git", ".git/config", "sub/.git/config", "x/y/z/.git/hooks/pre-commit",
		".git/hooks", ".git/info/attributes", ".git/commondir", ".git/config.worktree",
		".git/modules/lib/config", ".git/modules/lib/hooks/post-checkout", ".git/worktrees/w/gitdir",
		".git/worktrees/w/config.worktree", ".git/modules/a/modules/b/config", NULL,
	};
	static const char *const kept[] = {
		".git/index", ".git/index.lock", ".git/HEAD", ".git/objects/ab/cdef", ".git/refs/heads/config",
		".git/logs/refs/heads/hooks", ".git/COMMIT_EDITMSG", ".git/packed-refs", ".git/worktrees/w/index",
		".git/modules/lib/objects/pack/p.pack", ".gitignore", "src/git/config", "config", NULL,
	};

	for (size_t i = 0; refused[i]; i++)
		cr_assert_not_null(protect_match_git(refused[i]), "%s should be refused", refused[i]);
	for (size_t i = 0; kept[i]; i++)
		cr_assert_null(protect_match_git(kept[i]), "%s should be writable", kept[i]);
}

Test(protect_names, names_at_any_depth_not_below_node_modules)
{
	cr_assert_str_eq(protect_match_names(names, ".vscode"), ".vscode");
	cr_assert_str_eq(protect_match_names(names, "pkg/.vscode/tasks.json"), ".vscode");
	cr_assert_str_eq(protect_match_names(names, "a/b/c/.mcp.json"), ".mcp.json");
	cr_assert_str_eq(protect_match_names(names, "x/.cordon-profile.json"), ".cordon*");
	cr_assert_null(protect_match_names(names, "pkg/vscode/tasks.json"));
	cr_assert_null(protect_match_names(names, "pkg/.vscode-extra"));
	cr_assert_null(protect_match_names(names, "node_modules/dep/.vscode/settings.json"));
	cr_assert_str_eq(protect_match_names(names, ".claude/node_modules/x"), ".claude");
	/* entries with a '/' are literal paths, not names */
	cr_assert_null(protect_match_names((const char *const[]){ ".git/hooks", NULL }, "a/.git/hooks"));
}

static struct gate_rules rules(void)
{
	static struct gate_root roots[] = {
		{ .path = "/ws", .len = 3 },
		{ .path = "/home/u", .len = 7 },
		{ .path = "/home/u/.cache/pip", .len = 18 },
	};
	static struct gate_path lits[] = {
		{ .root = 0, .rel = ".envrc" },
		{ .root = 1, .rel = ".", .prefix = true },   /* /home/u/.* */
		{ .root = 1, .rel = "bin" },                 /* a PATH directory */
	};
	static struct gate_path carve[] = { { .root = 0, .rel = "vendor" } };

	return (struct gate_rules){ .roots = roots, .n_roots = 3, .names = names, .git = true,
				    .lits = lits, .n_lits = 3, .carve = carve, .n_carve = 1 };
}

Test(gate_rules, literal_name_git_and_carve_outs)
{
	struct gate_rules g = rules();

	cr_assert_not_null(gate_rules_check(&g, "/ws/.envrc", false));
	cr_assert_not_null(gate_rules_check(&g, "/ws/pkg/.vscode/tasks.json", false));
	cr_assert_not_null(gate_rules_check(&g, "/ws/sub/.git/config", false));
	cr_assert_null(gate_rules_check(&g, "/ws/sub/.git/index.lock", false));
	cr_assert_null(gate_rules_check(&g, "/ws/src/main.c", false));
	/* --unprotect lifts the rules by name, never a literal */
	cr_assert_null(gate_rules_check(&g, "/ws/vendor/.git/config", false));
	cr_assert_null(gate_rules_check(&g, "/ws/vendor/.vscode", false));
	/* HOME: every dot-entry, none new, PATH dirs; not its projects */
	cr_assert_not_null(gate_rules_check(&g, "/home/u/.bashrc", false));
	cr_assert_not_null(gate_rules_check(&g, "/home/u/.ssh/authorized_keys", false));
	cr_assert_not_null(gate_rules_check(&g, "/home/u/.newdot", false));
	cr_assert_not_null(gate_rules_check(&g, "/home/u/bin/ls", false));
	cr_assert_null(gate_rules_check(&g, "/home/u/project/notes.txt", false));
	/* the longest root wins: a cache below a dot-entry is its own root */
	cr_assert_null(gate_rules_check(&g, "/home/u/.cache/pip/wheel", false));
	cr_assert_not_null(gate_rules_check(&g, "/home/u/.cache/other", false));
	/* outside every root: the mounts decide, not the gate */
	cr_assert_null(gate_rules_check(&g, "/etc/passwd", false));
	cr_assert_null(gate_rules_check(&g, "/wsx/.envrc", false));
}

Test(gate_rules, a_rename_of_what_holds_a_literal)
{
	struct gate_rules g = rules();
	static struct gate_path deep[] = { { .root = 0, .rel = "conf/hook.sh" } };

	g.lits = deep;
	g.n_lits = 1;
	cr_assert_not_null(gate_rules_check(&g, "/ws/conf", true), "moving conf/ would carry conf/hook.sh along");
	cr_assert_null(gate_rules_check(&g, "/ws/conf", false));
	cr_assert_null(gate_rules_check(&g, "/ws/confx", true));
}

/* A real tree: a bare repository is found by what it holds. */
Test(gate_rules, git_install_mkdir_and_bare_repositories)
{
	char ws[] = "/tmp/cordon-gate-git-XXXXXX", path[256], cmd[512];
	struct gate_root root;
	static struct gate_path lits[] = { { .root = 0, .rel = ".git/config" }, { .root = 0, .rel = ".git/hooks" } };
	struct gate_rules g = { .roots = &root, .n_roots = 1, .git = true, .lits = lits, .n_lits = 2 };

	cr_assert_not_null(mkdtemp(ws));
	root = (struct gate_root){ .path = ws, .len = strlen(ws) };
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir -p b.git/objects b.git/refs half/refs .git && echo ref > b.git/HEAD && mkdir x", ws);
	cr_assert_eq(system(cmd), 0);

#define AT(rel) (snprintf(path, sizeof(path), "%s/%s", ws, rel), path)
	/* an empty .git may be made, never one below git's code */
	cr_assert(gate_rules_git_mkdir(&g, AT("sub/.git")));
	cr_assert(gate_rules_git_mkdir(&g, AT(".git")), "only the catalogue's literals below it");
	cr_assert_not(gate_rules_git_mkdir(&g, AT(".git/hooks/.git")));
	cr_assert_not(gate_rules_git_mkdir(&g, AT("b.git/hooks/.git")), "below a bare repository's hooks");
	cr_assert_not(gate_rules_git_mkdir(&g, AT("sub/.gitx")));
	/* a config is installed validated below a .git or in a bare repository */
	cr_assert(gate_rules_git_config(&g, AT(".git/config")), "the literal steps aside for the install");
	cr_assert(gate_rules_git_config(&g, AT("a/.git/modules/m/config")));
	cr_assert(gate_rules_git_config(&g, AT("b.git/config")));
	cr_assert(gate_rules_git_config(&g, AT("b.git/config.worktree")));
	cr_assert_not(gate_rules_git_config(&g, AT(".git/hooks/config")));
	cr_assert_not(gate_rules_git_config(&g, AT("half/config")), "not a repository: an ordinary file");
	cr_assert_not(gate_rules_git_config(&g, AT("x/config")));
	/* a bare repository's code entries are protected like a .git's */
	cr_assert_not_null(gate_rules_check(&g, AT("b.git/config"), false));
	cr_assert_not_null(gate_rules_check(&g, AT("b.git/hooks/post-update"), false));
	cr_assert_not_null(gate_rules_check(&g, AT("b.git/info/attributes"), false));
	cr_assert_null(gate_rules_check(&g, AT("b.git/objects/ab/cd"), false));
	cr_assert_null(gate_rules_check(&g, AT("b.git/description"), false));
	cr_assert_null(gate_rules_check(&g, AT("half/config"), false));
	cr_assert_null(gate_rules_check(&g, AT("x/hooks/useThing.js"), false));
	/* without --protect-git nothing of it */
	g.git = false;
	cr_assert_not(gate_rules_git_config(&g, AT("b.git/config")));
	cr_assert_not(gate_rules_git_mkdir(&g, AT("sub/.git")));
#undef AT
	snprintf(cmd, sizeof(cmd), "rm -rf %s", ws);
	(void)!system(cmd);
}
