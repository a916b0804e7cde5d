/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sandbox's trust in the session CA (see trust.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "credtable.h"
#include "policy.h"
#include "runner.h"
#include "trust.h"

/* a bundle or a file larger than this is not a certificate store */
#define TRUST_FILE_MAX (8 * 1024 * 1024)

size_t trust_env_add(char **envp, size_t k)
{
	static const char java[] = "JAVA_TOOL_OPTIONS=";
	size_t at;
	char *merged;

	for (size_t i = 0; policy_trust_env[i]; i++)
		envp[k++] = (char *)policy_trust_env[i];
	at = k;
	/* the JVM: its store, added to the options already there (the
	 * proxy's, netproxy.h; the host's never pass, an injection variable) */
	for (size_t i = 0; i < k && at == k; i++)
		if (strncmp(envp[i], java, sizeof(java) - 1) == 0)
			at = i;
	if (asprintf(&merged, "%s%s%s", java, at < k ? envp[at] + sizeof(java) - 1 : "",
		     at < k ? " " TRUST_JAVA_OPTIONS : TRUST_JAVA_OPTIONS) >= 0)
		envp[at == k ? k++ : at] = merged; /* lives as long as the process */
	envp[k] = NULL;
	return k;
}

void trust_read_public(struct exec_ctx *x)
{
	uint32_t hash = 0;
	int r = credtable_read_public(x->plan->credentials_fd, &x->trust_ca_pem, &hash, &x->trust_java_store,
				      &x->trust_java_store_n);

	if (r < 0) {
		errno = -r;
		exec_die("credentials", "cannot read the credential table's public part from fd %d: %m",
			 x->plan->credentials_fd);
	}
	x->trust_ca_hash = hash;
}

static const char *const bundles[] = { "ca-certificates.crt", "ca-bundle.crt", "cert.pem", "tls-ca-bundle.pem", NULL };

static bool is_bundle(const char *name)
{
	for (size_t i = 0; bundles[i]; i++)
		if (strcmp(name, bundles[i]) == 0)
			return true;
	return false;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* from/name (symlinks followed) into to/name, then extra. */
static int copy_file(int from, int to, const char *name, const char *extra)
{
	_cleanup_close_ int in = openat(from, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	_cleanup_close_ int out = -1;
	char buf[65536];
	size_t total = 0;
	ssize_t n;
	struct stat st;
	int r;

	if (in < 0 || fstat(in, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	out = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		total += (size_t)n;
		if (total > TRUST_FILE_MAX)
			return -EFBIG;
		if ((r = write_all(out, buf, (size_t)n)) < 0)
			return r;
	}
	if (n < 0)
		return -errno;
	if (extra && ((r = write_all(out, "\n", 1)) < 0 || (r = write_all(out, extra, strlen(extra))) < 0))
		return r;
	return 0;
}

static int copy_entry(int from, int to, const char *dir, const char *name, const char *ca)
{
	char target[4096], path[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (is_bundle(name))
		return copy_file(from, to, name, ca);
	if (S_ISLNK(st.st_mode)) {
		n = readlinkat(from, name, target, sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		return symlinkat(target, to, name) < 0 ? -errno : 0;
	}
	if (S_ISREG(st.st_mode))
		return copy_file(from, to, name, NULL);
	if (S_ISDIR(st.st_mode)) {
		/* a directory below (/etc/ssl/certs/java, /etc/pki/tls/certs):
		 * the host's, bound in as it is */
		_cleanup_close_ int sub = openat(from, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		char src[64];

		if (sub < 0 || mkdirat(to, name, 0755) < 0)
			return -errno;
		snprintf(src, sizeof(src), "/proc/self/fd/%d", sub);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		return mount(src, path, NULL, MS_BIND | MS_REC, NULL) < 0 ? -errno : 0;
	}
	return 0; /* sockets, devices: not certificates */
}

/* The JVM's store, beside the bundle it was made from. */
static int add_java_store(int to, const unsigned char *store, size_t n)
{
	_cleanup_close_ int out = openat(to, TRUST_JAVA_STORE_NAME, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (out < 0)
		return -errno;
	return write_all(out, (const char *)store, n);
}

/* The CA and its "HASH.N" link, N the first free one in the host's
 * directory (from): the copy holds the same names, the overlay shows them. */
static int add_ca(int from, int to, const char *ca, unsigned hash)
{
	_cleanup_close_ int out = openat(to, "cordon-session-ca.pem", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	struct stat st;
	char link[32];
	int r;

	if (out < 0)
		return -errno;
	if ((r = write_all(out, ca, strlen(ca))) < 0)
		return r;
	for (int n = 0; n < 100; n++) {
		snprintf(link, sizeof(link), "%08x.%d", hash, n);
		if (fstatat(from, link, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (errno != ENOENT)
			return -errno;
		return symlinkat("cordon-session-ca.pem", to, link) < 0 ? -errno : 0;
	}
	return -EEXIST;
}

/* What differs from the host's directory: its bundles with the CA added,
 * the CA and its hash link, the JVM's store. */
static int add_ours(const struct exec_ctx *x, const char *dir, int from, int to)
{
	int r;

	for (size_t i = 0; bundles[i]; i++) {
		r = copy_file(from, to, bundles[i], x->trust_ca_pem);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	if ((r = add_ca(from, to, x->trust_ca_pem, x->trust_ca_hash)) < 0)
		return r;
	if (x->trust_java_store && strcmp(dir, "/etc/ssl/certs") == 0)
		return add_java_store(to, x->trust_java_store, x->trust_java_store_n);
	return 0;
}

/* The tmpfs at dir (ours, read-only by now) over the host's directory: one
 * read-only overlay, instead of a copy of every entry (some 300 links on a
 * Debian host, each a stat, a readlink and a symlink, on every start). */
static int overlay(const char *dir, int from, int to)
{
	char opts[128];

	snprintf(opts, sizeof(opts), "lowerdir=/proc/self/fd/%d:/proc/self/fd/%d", to, from);
	return mount("overlay", dir, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0 ? -errno : 0;
}

/* The rest of the host's directory copied beside ours: where there is no
 * overlay (an older kernel, layers stacked too deep). */
static int copy_rest(int from, int to, const char *dir, const char *ca)
{
	DIR *d = fdopendir(dup(from));
	struct dirent *e;
	int r = 0;

	if (!d)
		return -errno;
	while (r == 0 && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !is_bundle(e->d_name))
			r = copy_entry(from, to, dir, e->d_name, ca);
	closedir(d);
	return r;
}

/* dir, in this mount namespace: the host's with the CA added, read-only.
 * done[]: the directories already treated (one reached twice through a
 * symlink is treated once). */
static void treat_dir(const struct exec_ctx *x, const char *dir, struct stat *done, size_t *n_done)
{
	_cleanup_close_ int from = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int to = -1;
	const unsigned long ro = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
	struct stat st;
	int r;

	if (from < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return;
		exec_die("trust", "%s: %m", dir);
	}
	if (fstat(from, &st) < 0)
		exec_die("trust", "%s: %m", dir);
	for (size_t i = 0; i < *n_done; i++)
		if (done[i].st_dev == st.st_dev && done[i].st_ino == st.st_ino)
			return;
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=32m") < 0)
		exec_die("trust", "cannot mount a tmpfs on %s: %m", dir);
	to = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (to < 0)
		exec_die("trust", "%s: %m", dir);
	r = add_ours(x, dir, from, to);
	if (r == 0 && mount(NULL, dir, NULL, ro, NULL) < 0)
		r = -errno;
	if (r == 0 && overlay(dir, from, to) < 0) {
		/* no overlay: ours made whole, a copy */
		if (mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ||
		    (r = copy_rest(from, to, dir, x->trust_ca_pem)) < 0 || mount(NULL, dir, NULL, ro, NULL) < 0)
			r = r < 0 ? r : -errno;
	}
	if (r < 0) {
		errno = -r;
		exec_die("trust", "cannot build %s with the session CA: %m", dir);
	}
	/* both the host's directory and what is now at dir: a later path
	 * that reaches either (a symlink, a subdirectory) is not treated twice */
	done[(*n_done)++] = st;
	if (stat(dir, &done[(*n_done)++]) < 0)
		exec_die("trust", "%s: %m", dir);
}

void trust_mount(struct exec_ctx *x, size_t step)
{
	static const char *const dirs[] = { "/etc/ssl/certs", "/etc/pki/tls", "/etc/pki/tls/certs", NULL };
	struct stat done[8];
	size_t n_done = 0;

	for (size_t i = 0; dirs[i]; i++)
		treat_dir(x, dirs[i], done, &n_done);
}
