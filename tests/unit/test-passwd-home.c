/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* passwd_home.c: /etc/passwd read directly only where nsswitch.conf lets
 * files answer first; every other case is left to getpwuid_r. */
#include <criterion/criterion.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "passwd_home.h"

static char dir[] = "/tmp/cordon-test-pwhome-XXXXXX";
static char conf[256], passwd[256];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/nsswitch.conf", dir);
	snprintf(passwd, sizeof(passwd), "%s/passwd", dir);
}

static void teardown(void)
{
	unlink(conf);
	unlink(passwd);
	rmdir(dir);
}

static const char passwd_text[] = "# a comment\n"
				  "root:x:0:0:root:/root:/bin/bash\n"
				  "+:x:1000:1000::/plus:/bin/sh\n"
				  "alice:x:1000:1000:Alice:/home/alice:/bin/sh\n"
				  "alias:x:1000:1000::/home/alias:/bin/sh\n"
				  "svc:x:1001:1001::relative:/bin/sh\n";

/* 1 and the home when files answers; 0 (and *ret untouched) otherwise */
static int lookup(const char *nsswitch, uid_t uid, char **ret)
{
	struct cordon_error e = {};

	test_write_file(conf, nsswitch);
	test_write_file(passwd, passwd_text);
	*ret = (char *)"untouched";
	return passwd_home_files(conf, passwd, uid, ret, &e);
}

Test(passwd_home, files_first_answers_from_the_file, .init = setup, .fini = teardown)
{
	static const char *const confs[] = {
		"passwd: files\n",
		"passwd:         files systemd\ngroup: files\n",
		"# passwd: sss\n\tpasswd\t:\tfiles   ldap # a comment\n",
		"group: sss files\npasswd: files\n", /* another database's sources are not passwd's */
	};
	char *home;

	for (size_t i = 0; i < sizeof(confs) / sizeof(confs[0]); i++) {
		cr_assert_eq(lookup(confs[i], 1000, &home), 1, "%s", confs[i]);
		/* the first entry of the uid, +/- entries skipped as the files source does */
		cr_assert_str_eq(home, "/home/alice", "%s", confs[i]);
		free(home);
	}
	cr_assert_eq(lookup("passwd: files\n", 0, &home), 1);
	cr_assert_str_eq(home, "/root");
	free(home);
	/* an entry whose home is not absolute: none, as before */
	cr_assert_eq(lookup("passwd: files\n", 1001, &home), 1);
	cr_assert_null(home);
}

Test(passwd_home, anything_else_asks_nss, .init = setup, .fini = teardown)
{
	static const char *const confs[] = {
		"",                                       /* no passwd line: glibc's default */
		"group: files\n",                         /* the same */
		"passwd: sss files\n",                    /* another source first */
		"passwd: compat\n",                       /* +/- lines mean something there */
		"passwd: files [SUCCESS=continue] ldap\n", /* an action after files */
		"passwd: files[SUCCESS=continue] ldap\n",
		"passwd: files [NOTFOUND=return]\n", /* any action: not read here */
		"passwd: files\npasswd: ldap\n",          /* two lines: which one glibc takes is its own */
		"passwd files\n",                         /* not a database line */
		"passwd: filesx\n",
		"passwd:\n",
		"# passwd: files\n",
		"PASSWD: files\n",                       /* not glibc's name for it: its default applies */
	};
	char *home;

	for (size_t i = 0; i < sizeof(confs) / sizeof(confs[0]); i++) {
		cr_assert_eq(lookup(confs[i], 1000, &home), 0, "%s", confs[i]);
		cr_assert_str_eq(home, "untouched", "%s", confs[i]);
	}
	/* a uid the file does not hold: another source may */
	cr_assert_eq(lookup("passwd: files systemd\n", 4242, &home), 0);
	/* no nsswitch.conf, or no passwd file */
	unlink(conf);
	cr_assert_eq(passwd_home_files(conf, passwd, 1000, &home, NULL), 0);
	test_write_file(conf, "passwd: files\n");
	unlink(passwd);
	cr_assert_eq(passwd_home_files(conf, passwd, 1000, &home, NULL), 0);
	cr_assert_str_eq(home, "untouched");
}

/* What the policy gets is what getpwuid_r says, for whoever runs this. */
Test(passwd_home, same_as_getpwuid)
{
	struct passwd pwd, *pw = NULL;
	char buf[16384], *home = NULL;

	cr_assert_eq(passwd_home(&home, NULL), 0);
	cr_assert_eq(getpwuid_r(getuid(), &pwd, buf, sizeof(buf), &pw), 0);
	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/') {
		cr_assert_null(home);
		return;
	}
	cr_assert_not_null(home);
	cr_assert_str_eq(home, pw->pw_dir);
	free(home);
}
