/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The caller's passwd home: pw_dir of getuid(), as getpwuid_r(3) answers.
 *
 * getpwuid_r costs about 0.1 ms the first time in a process (a tenth of
 * `cordon run`'s own start): glibc asks nscd first (two sockets, two
 * failed connects where it does not run), then reads nsswitch.conf and
 * sets up its NSS state. Where nsswitch.conf names plain "files" first for
 * passwd, the answer for a uid that /etc/passwd holds is that file's first
 * entry for it, whatever sources follow (a found entry ends the lookup);
 * that entry is read here with glibc's own parser (fgetpwent_r), as its
 * files source reads it (entries named +... or -... skipped). Anything
 * else - no nsswitch.conf, no passwd line or two of them, another first
 * source, an action after files, a uid that /etc/passwd does not hold, an
 * entry too long or a file unreadable - asks getpwuid_r, as before.
 */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "fileio.h"
#include "passwd_home.h"

#define NSSWITCH_MAX 16384 /* a larger nsswitch.conf: getpwuid_r reads it */
#define PWENT_MAX 16384    /* one entry's strings, as getpwuid_r was given */

/* nsswitch.conf's one passwd line (glibc reads the name as written, and a
 * later line would replace an earlier one) starts with "files", and no
 * action follows it: a uid the files source finds is the answer. */
static bool nss_files_first(const char *conf)
{
	unsigned n_passwd = 0;
	bool files_first = false;

	for (const char *line = conf, *next; *line; line = next) {
		size_t end = strcspn(line, "\n"), c = strcspn(line, "#\n"), i = 0, name, len;

		next = line[end] ? line + end + 1 : line + end;

		end = c; /* a comment runs to the end of its line */
		while (i < end && isspace((unsigned char)line[i]))
			i++;
		name = i;
		while (i < end && !isspace((unsigned char)line[i]) && line[i] != ':')
			i++;
		len = i - name;
		while (i < end && isspace((unsigned char)line[i]))
			i++;
		if (len != 6 || i >= end || line[i] != ':' || strncmp(line + name, "passwd", 6) != 0)
			continue;
		n_passwd++;
		i++;
		while (i < end && isspace((unsigned char)line[i]))
			i++;
		len = 0;
		while (i + len < end && !isspace((unsigned char)line[i + len]) && line[i + len] != '[')
			len++;
		files_first = len == 5 && strncmp(line + i, "files", 5) == 0;
		i += len;
		while (i < end && isspace((unsigned char)line[i]))
			i++;
		if (i < end && line[i] == '[')
			files_first = false; /* [SUCCESS=continue] and the like */
	}
	return n_passwd == 1 && files_first;
}

int passwd_home_files(const char *nsswitch_conf, const char *passwd_file, uid_t uid, char **ret,
		      struct cordon_error *reterr)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *buf = NULL;
	char conf[NSSWITCH_MAX];
	struct passwd pwd, *pw;
	int l, r;

	l = read_small(nsswitch_conf, conf, sizeof(conf));
	if (l < 0 || (size_t)l >= sizeof(conf) - 1 || strlen(conf) != (size_t)l || !nss_files_first(conf))
		return 0;
	f = fopen(passwd_file, "re");
	if (!f)
		return 0;
	buf = malloc(PWENT_MAX);
	if (!buf)
		return error_set(reterr, -ENOMEM, "out of memory");
	for (;;) {
		r = fgetpwent_r(f, &pwd, buf, PWENT_MAX, &pw);
		if (r != 0)
			return 0; /* not there (ENOENT), or an entry too long: NSS answers */
		if (pw->pw_uid == uid && pw->pw_name[0] != '+' && pw->pw_name[0] != '-')
			break;
	}
	if (!pw->pw_dir || pw->pw_dir[0] != '/') {
		*ret = NULL;
		return 1;
	}
	*ret = strdup(pw->pw_dir);
	if (!*ret)
		return error_set(reterr, -ENOMEM, "out of memory");
	return 1;
}

int passwd_home(char **ret, struct cordon_error *reterr)
{
	struct passwd pwd, *pw = NULL;
	char buf[PWENT_MAX], *home = NULL;
	uid_t uid = getuid();
	int r;

	r = passwd_home_files("/etc/nsswitch.conf", "/etc/passwd", uid, &home, reterr);
	if (r < 0)
		return r;
	if (r == 0 && getpwuid_r(uid, &pwd, buf, sizeof(buf), &pw) == 0 && pw && pw->pw_dir && pw->pw_dir[0] == '/') {
		home = strdup(pw->pw_dir);
		if (!home)
			return error_set(reterr, -ENOMEM, "out of memory");
	}
	*ret = home;
	return 0;
}
