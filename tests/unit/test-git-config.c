/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* git's config syntax (git_config_parse.c) and the safe list (git_config_safe.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "git_config_parse.h"
#include "git_config_safe.h"
#include "protect_names.h"

static struct git_config parse(const char *text)
{
	struct git_config c = {};

	cr_assert_eq(git_config_parse(text, strlen(text), &c), 0, "%s", text);
	return c;
}

static int check(const char *text, const char *current, char *key)
{
	struct git_config c = parse(text), cur = {};
	const char *why = NULL;
	int r;

	if (current)
		cur = parse(current);
	r = git_config_check(&c, current ? &cur : NULL, key, 256, &why);
	git_config_clear(&c);
	git_config_clear(&cur);
	return r;
}

Test(git_config, parses_what_git_writes_and_its_quirks)
{
	struct git_config c = parse("\xef\xbb\xbf[core]\r\n\tbare\n\tFileMode = tru\\\n  e ; c\n"
				    "[Remote \"Or\\\"ig\"] url = \"a b\"#x\n[branch.Main]\n\tmerge=\n");

	cr_assert_eq(c.n, 4);
	cr_assert_str_eq(c.v[0].key, "bare");
	cr_assert_null(c.v[0].value);
	cr_assert_str_eq(c.v[1].key, "filemode");
	cr_assert_str_eq(c.v[1].value, "tru  e", "as git reads it");
	cr_assert_str_eq(c.v[2].section, "remote");
	cr_assert_str_eq(c.v[2].subsection, "Or\"ig");
	cr_assert_str_eq(c.v[2].value, "a b");
	cr_assert_str_eq(c.v[3].subsection, "main", "the legacy form is lower case");
	cr_assert_str_eq(c.v[3].value, "");
	git_config_clear(&c);
}

Test(git_config, refuses_what_git_refuses)
{
	static const char *const bad[] = {
		"key = v\n",                    /* no section */
		"[core\n",                      /* unterminated header */
		"[core \"x]\n",                 /* unterminated subsection */
		"[core]\n\tk = \"open\n",       /* unterminated quote */
		"[core]\n\tk = \\q\n",          /* unknown escape */
		"[core]\n\t9k = v\n",           /* a key starts with a letter */
		"[core]\n\tk v\n",              /* neither '=' nor the end */
		"[]\n",
	};
	struct git_config c = {};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(git_config_parse(bad[i], strlen(bad[i]), &c), -EINVAL, "%s", bad[i]);
	cr_assert_eq(git_config_parse("[a]\0", 4, &c), -EINVAL, "a NUL");
}

Test(git_config, is_capped)
{
	size_t n = GIT_CONFIG_PARSE_MAX_BYTES + 1;
	char *big = malloc(n);
	struct git_config c = {};

	cr_assert_not_null(big);
	memset(big, '#', n);
	cr_assert_eq(git_config_parse(big, n, &c), -EFBIG);
	free(big);
}

Test(git_config, serialises_to_the_same_entries)
{
	struct git_config c = parse("[remote \"a\\\\b\"]\n\turl = \"x\\ty\\n\\\"z\\\\\"\n\tflag\n[core]\n\tbare = false\n"),
			  again = {};
	char *text = NULL;
	size_t len = 0;

	cr_assert_eq(git_config_serialise(&c, &text, &len), 0);
	cr_assert_eq(git_config_parse(text, len, &again), 0, "%s", text);
	cr_assert_eq(again.n, c.n);
	for (size_t i = 0; i < c.n; i++) {
		cr_assert_str_eq(again.v[i].key, c.v[i].key);
		cr_assert((!again.v[i].value && !c.v[i].value) || strcmp(again.v[i].value, c.v[i].value) == 0);
	}
	cr_assert_str_eq(again.v[0].subsection, "a\\b");
	free(text);
	git_config_clear(&c);
	git_config_clear(&again);
}

Test(git_config, safe_list)
{
	char key[256];

	cr_assert_eq(check("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
			   "\tlogallrefupdates = true\n[user]\n\temail = a@b\n[init]\n\tdefaultBranch = main\n"
			   "[remote \"origin\"]\n\turl = git@h:p.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
			   "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[extensions]\n\tobjectformat = sha256\n",
			   NULL, key),
		     0);
	static const char *const refused[][2] = {
		{ "[core]\n\tfsmonitor = x\n", "core.fsmonitor" },
		{ "[core]\n\thooksPath = /x\n", "core.hookspath" },
		{ "[core]\n\tsshCommand = x\n", "core.sshcommand" },
		{ "[core]\n\tpager = x\n", "core.pager" },
		{ "[core]\n\teditor = x\n", "core.editor" },
		{ "[alias]\n\tst = !x\n", "alias.st" },
		{ "[include]\n\tpath = /x\n", "include.path" },
		{ "[includeIf \"gitdir:/\"]\n\tpath = /x\n", "includeif.gitdir:/.path" },
		{ "[filter \"x\"]\n\tclean = x\n", "filter.x.clean" },
		{ "[diff \"x\"]\n\ttextconv = x\n", "diff.x.textconv" },
		{ "[credential]\n\thelper = x\n", "credential.helper" },
		{ "[url \"ext::x\"]\n\tinsteadOf = https://\n", "url.ext::x.insteadof" },
		{ "[init]\n\ttemplateDir = /x\n", "init.templatedir" },
		{ "[pull]\n\trebase = true\n", "pull.rebase" },
		{ "[remote \"o\"]\n\tuploadpack = x\n", "remote.o.uploadpack" },
		{ "[remote \"o\"]\n\turl = ext::sh -c x\n", "remote.o.url" },
		{ "[remote \"o\"]\n\turl = fd::3\n", "remote.o.url" },
		{ "[remote \"o\"]\n\turl = gopher://x/y\n", "remote.o.url" },
		{ "[submodule \"s\"]\n\turl = -u:x\n", "submodule.s.url" },
		{ "[branch \"m\"]\n\tremote = ext::x\n", "branch.m.remote" },
		{ "[user]\n\tname = \"a\\nb\"\n", "user.name" },
		{ "[user \"x\"]\n\tname = a\n", "user.x.name" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cr_assert_eq(check(refused[i][0], NULL, key), -EPERM, "%s", refused[i][0]);
		cr_assert_str_eq(key, refused[i][1]);
	}
}

Test(git_config, existing_remotes_keep_their_url_and_the_hosts_keys_carry_over)
{
	char key[256];
	const char *cur = "[core]\n\thooksPath = /h\n[remote \"origin\"]\n\turl = https://a/x\n";

	cr_assert_eq(check("[core]\n\thooksPath = /h\n[remote \"origin\"]\n\turl = https://a/x\n[user]\n\temail = e\n", cur,
			   key),
		     0, "the host's own key, unchanged, and a safe one added");
	cr_assert_eq(check("[core]\n\thooksPath = /other\n[remote \"origin\"]\n\turl = https://a/x\n", cur, key), -EPERM);
	cr_assert_str_eq(key, "core.hookspath");
	cr_assert_eq(check("[core]\n\thooksPath = /h\n[remote \"origin\"]\n\turl = https://evil/x\n", cur, key), -EPERM);
	cr_assert_str_eq(key, "remote.origin.url");
	cr_assert_eq(check("[core]\n\thooksPath = /h\n", cur, key), -EPERM, "a remote removed");
	cr_assert_eq(check("[core]\n\thooksPath = /h\n[remote \"origin\"]\n\turl = https://a/x\n[remote \"b\"]\n\turl = /p\n",
			   cur, key),
		     0, "a new remote");
}

Test(git_config, plain_urls)
{
	static const char *const plain[] = { "https://h/p", "ssh://u@h/p", "file:///p", "u@h:p", "h:p", "/p", "../p", "p" };
	static const char *const not_plain[] = { "ext::sh", "fd::3", "http://h/p", "git://h/p", "x://h", "-oX=y:p",
						 "u@-h:p", ":p", "https://-x", "" };

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		cr_assert(git_url_plain(plain[i]), "%s", plain[i]);
	for (size_t i = 0; i < sizeof(not_plain) / sizeof(not_plain[0]); i++)
		cr_assert_not(git_url_plain(not_plain[i]), "%s", not_plain[i]);
}

Test(git_config, config_names)
{
	cr_assert(protect_git_config_name(".git/config"));
	cr_assert(protect_git_config_name("a/.git/config.worktree"));
	cr_assert(protect_git_config_name(".git/modules/s/config"));
	cr_assert(protect_git_config_name(".git/worktrees/w/config.worktree"));
	cr_assert_not(protect_git_config_name(".git/hooks/config"));
	cr_assert_not(protect_git_config_name(".git/objects/config"));
	cr_assert_not(protect_git_config_name("config"));
	cr_assert_not(protect_git_config_name(".git/config.lock"));
	cr_assert(protect_git_entry_name("a/.git"));
	cr_assert_not(protect_git_entry_name("a/.gitx"));
}
