/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The persisted probe result, so a short-lived `cordon run` does not pay a
 * probe (a spawn) on every call. It is trusted only after cheap checks that
 * spawn nothing: same format version, kernel release, uid, Landlock ABI and
 * user-namespace limit, and the runner binary still has the identity it had
 * (device, inode, size, mtime). Anything else — missing, unreadable, foreign
 * owner, loose mode, oversized, malformed, stale — means "probe again".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "fileio.h"
#include "fnv.h"
#include "probe.h"

#define CACHE_VERSION "cordon-probe-cache 2"
#define CACHE_MAX_BYTES 4096

/* The cache is one file per runner: several cordon builds or installs
 * (a checkout, a package, CI) used by one user would otherwise overwrite
 * each other's answer, and each run would probe again and write the file
 * (a disk write and ~500 system calls on the launch's path). The name
 * holds an FNV-1a hash (fnv.h) of the runner's path; the runner's identity inside
 * the file is still what decides. */
int probe_cache_path(char **ret)
{
	const char *xdg = secure_getenv("XDG_CACHE_HOME");
	const char *home = secure_getenv("HOME");
	const char *runner = cordon_runner_path();
	uint64_t h = fnv1a_str(runner ? runner : "");
	char *p = NULL;
	int n;

	/* asprintf's pointer is undefined when it fails: its result decides */
	if (xdg && xdg[0] == '/')
		n = asprintf(&p, "%s/cordon/backend-%016" PRIx64, xdg, h);
	else if (home && home[0] == '/')
		n = asprintf(&p, "%s/.cache/cordon/backend-%016" PRIx64, home, h);
	else
		return -ENOENT;
	if (n < 0)
		return -ENOMEM;
	*ret = p;
	return 0;
}

/* The facts that must match for a cached answer to still hold. */
static int current_key(const char *runner, char *buf, size_t size)
{
	struct utsname u;
	struct stat st;
	char userns[32] = "";

	if (uname(&u) < 0)
		return -errno;
	if (read_small("/proc/sys/user/max_user_namespaces", userns, sizeof(userns)) < 0)
		snprintf(userns, sizeof(userns), "?");
	userns[strcspn(userns, "\n")] = '\0';
	if (!runner || runner[0] != '/' || stat(runner, &st) < 0)
		return -ESTALE;
	snprintf(buf, size,
		 "kernel=%s\nuid=%u\nlandlock_abi=%d\nuserns=%s\n"
		 "runner=%s\nrunner_id=%" PRIu64 ":%" PRIu64 ":%" PRId64 ":%" PRId64 ".%09ld\n",
		 u.release, (unsigned)getuid(), cordon_landlock_abi(), userns, runner,
		 (uint64_t)st.st_dev, (uint64_t)st.st_ino, (int64_t)st.st_size,
		 (int64_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return 0;
}

int probe_cache_load(const char *path, struct cordon_backend_info *ret)
{
	char buf[CACHE_MAX_BYTES + 1], key[2048], backend[32], grade[32], runner[PATH_MAX];
	unsigned lacks;
	_cleanup_close_ int fd = -1;
	struct stat st;
	const char *body;
	ssize_t l;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* Only a file we wrote ourselves: ours, private, small. */
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) || st.st_size > CACHE_MAX_BYTES)
		return -ESTALE;
	l = read(fd, buf, CACHE_MAX_BYTES + 1);
	if (l < 0)
		return -errno;
	if (l > CACHE_MAX_BYTES || memchr(buf, '\0', (size_t)l))
		return -ESTALE;
	buf[l] = '\0';

	/* line 1: version; then backend=, grade=, lacks=, runner=; then the key verbatim */
	if (sscanf(buf, CACHE_VERSION "\nbackend=%31[a-z]\ngrade=%31[a-z]\nlacks=%u\nrunner=%4095[^\n]\n",
		   backend, grade, &lacks, runner) != 4 || lacks > (CORDON_LACKS_NAMESPACES | CORDON_LACKS_RUNNER))
		return -ESTALE;
	body = strstr(buf, "\nkernel=");
	if (!body)
		return -ESTALE;
	body++;

	struct cordon_backend_info info = {};
	if (cordon_backend_from_string(backend, &info.backend) < 0 ||
	    cordon_grade_from_string(grade, &info.grade) < 0 ||
	    info.backend == CORDON_BACKEND_UNAVAILABLE)
		return -ESTALE;
	if (current_key(runner, key, sizeof(key)) < 0 || strcmp(body, key) != 0)
		return -ESTALE;
	snprintf(info.path, sizeof(info.path), "%s", runner);
	info.lacks = lacks;
	*ret = info;
	return 0;
}

static int mkdir_parents(const char *path)
{
	_cleanup_free_ char *dir = strdup(path);

	if (!dir)
		return -ENOMEM;
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

int probe_cache_store(const char *path, const struct cordon_backend_info *info)
{
	char key[2048], tmp[PATH_MAX + 32];
	_cleanup_free_ char *content = NULL;
	int fd, r;
	size_t len;

	if (info->backend == CORDON_BACKEND_UNAVAILABLE || info->path[0] != '/')
		return -EINVAL;
	r = current_key(info->path, key, sizeof(key));
	if (r < 0)
		return r;
	if (asprintf(&content, CACHE_VERSION "\nbackend=%s\ngrade=%s\nlacks=%u\nrunner=%s\n%s",
		     cordon_backend_to_string(info->backend), cordon_grade_to_string(info->grade),
		     info->lacks, info->path, key) < 0)
		return -ENOMEM;
	len = strlen(content);
	if (len > CACHE_MAX_BYTES)
		return -E2BIG;
	r = mkdir_parents(path);
	if (r < 0)
		return r;

	/* Write a private temp file beside it, then rename over: readers see
	 * the old file or the new one, never half of one. */
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, content, len) != (ssize_t)len || fsync(fd) < 0) {
		r = -errno ?: -EIO;
		close(fd);
		unlink(tmp);
		return r;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}
