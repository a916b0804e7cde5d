/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon pack install https://...`: the pack fetched beside its base URL
 * (BASE/pack.json, BASE/pack.json.sig, then BASE/FILE for each file the
 * signed manifest lists, nothing else), each under its cap, into a private
 * staging directory below the store, then installed from there as a
 * directory is (read once, verified again, those bytes installed). The
 * transfer itself is the caller's (libcurl, https only, in the CLI).
 * A .tar (pack_tar.c) is unpacked into such a directory the same way, and
 * a .tar.gz once the host's gzip, confined, has decompressed it (pack_gunzip.c).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cordon/pack.h"
#include "dirat.h"
#include "error.h"
#include "fileio.h"
#include "pack_gunzip.h"
#include "pack_image.h"
#include "pack_tar.h"
#include "path.h"
#include "sshsig.h"

#define URL_MAX 2048

static int write_new(int dirfd, const char *name, const char *data, size_t len)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += (size_t)w;
	}
	return 0;
}

static int fetch_into(cordon_pack_fetch_fn fetch, void *fctx, const char *base, const char *rel, size_t max, int dirfd,
		      char **ret, size_t *ret_len, struct cordon_error *reterr)
{
	_cleanup_free_ char *url = NULL, *data = NULL;
	const char *slash = strrchr(rel, '/');
	_cleanup_close_ int sub = -1;
	size_t len = 0;
	int r;

	if (asprintf(&url, "%s/%s", base, rel) < 0)
		return -ENOMEM;
	r = fetch(fctx, url, max, &data, &len, reterr);
	if (r < 0)
		return r;
	if (slash) {
		sub = dir_make_open_at(dirfd, rel, (size_t)(slash - rel), 0700);
		if (sub < 0)
			return error_set(reterr, sub, "staging %s: %s", rel, strerror(-sub));
	}
	r = write_new(slash ? sub : dirfd, slash ? slash + 1 : rel, data, len);
	if (r < 0)
		return error_set(reterr, r, "staging %s: %s", rel, strerror(-r));
	if (ret) {
		*ret = TAKE_PTR(data);
		*ret_len = len;
	}
	return 0;
}

/* Remove the staging tree (made by us, no links in it: staged with
 * O_NOFOLLOW and O_EXCL). */
static void remove_staging(const char *dir)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *de;

	d = opendir(dir);
	if (d) {
		while ((de = readdir(d))) {
			struct stat st;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
				remove_staging(path);
			else
				(void)unlink(path);
		}
		closedir(d);
	}
	(void)rmdir(dir);
}

/* The private staging directory, below the store (hidden from every
 * sandbox), mode 0700: *ret_stage its path, *ret_fd open on it. Nothing is
 * left behind on failure. */
static int staging_make(const struct pack_paths *paths, char **ret_stage, int *ret_fd, struct cordon_error *reterr)
{
	char *stage = NULL;
	int fd, r;

	(void)mkdir(paths->store, 0700);
	if (asprintf(&stage, "%s/.staging-XXXXXX", paths->store) < 0)
		return -ENOMEM;
	if (!mkdtemp(stage)) {
		r = error_set(reterr, -errno, "cannot make a staging directory in %s: %s", paths->store,
			      strerror(errno));
		free(stage);
		return r;
	}
	fd = open(stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		remove_staging(stage);
		free(stage);
		return r;
	}
	*ret_stage = stage;
	*ret_fd = fd;
	return 0;
}

int cordon_pack_install_url(const char *url, cordon_pack_fetch_fn fetch, void *fctx, cordon_pack_confirm_fn confirm,
			    void *ctx, struct cordon_error *reterr)
{
	_cleanup_free_ char *base = NULL, *stage = NULL, *manifest = NULL, *sig = NULL, *signer = NULL, *trust = NULL;
	_cleanup_close_ int dirfd = -1;
	struct pack_paths paths = {};
	struct pack_manifest *m = NULL;
	size_t manifest_len = 0, sig_len = 0, signer_len = 0, total = 0;
	int r;

	if (strncmp(url, "https://", 8) != 0 || strlen(url) > URL_MAX || strpbrk(url, "?#\\ \t\r\n"))
		return error_set(reterr, -EINVAL,
				 "a pack's URL is https://HOST/PATH (the directory holding pack.json), at most %d bytes",
				 URL_MAX);
	base = strdup(url);
	if (!base)
		return -ENOMEM;
	while (strlen(base) > 8 && base[strlen(base) - 1] == '/')
		base[strlen(base) - 1] = '\0';
	r = pack_paths_default(&paths);
	if (r < 0)
		return error_set(reterr, r, "no HOME: the pack store cannot be found");
	r = staging_make(&paths, &stage, &dirfd, reterr);
	if (r < 0)
		goto out;
	r = fetch_into(fetch, fctx, base, "pack.json", PACK_MANIFEST_MAX_BYTES, dirfd, &manifest, &manifest_len,
		       reterr);
	if (r >= 0)
		r = fetch_into(fetch, fctx, base, "pack.json.sig", SSHSIG_MAX_ARMORED, dirfd, &sig, &sig_len, reterr);
	if (r < 0)
		goto out;
	/* nothing more is fetched before the manifest's signature holds */
	r = pack_signed_manifest(&paths, manifest, manifest_len, sig, sig_len, &m, (uint8_t **)&signer, &signer_len,
				 &trust, reterr);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < m->n_files; i++) {
		_cleanup_free_ char *data = NULL;
		size_t len = 0;

		r = fetch_into(fetch, fctx, base, m->files[i].path, PACK_MAX_FILE_BYTES, dirfd, &data, &len, reterr);
		if (r < 0)
			goto out;
		total += len;
		if (total > PACK_MAX_TOTAL_BYTES) {
			r = error_set(reterr, -EFBIG, "the pack's files are larger than %d bytes together",
				      PACK_MAX_TOTAL_BYTES);
			goto out;
		}
	}
	r = cordon_pack_install(stage, confirm, ctx, reterr);
out:
	if (stage)
		remove_staging(stage);
	pack_manifest_free(m);
	pack_paths_done(&paths);
	return r;
}

struct unpack {
	int dirfd;
	struct cordon_error *reterr;
};

static int unpack_entry(void *ctx, const char *path, bool is_dir, const char *data, size_t len)
{
	const struct unpack *u = ctx;
	const char *slash = strrchr(path, '/');
	_cleanup_close_ int sub = -1;
	int r;

	if (is_dir) {
		sub = dir_make_open_at(u->dirfd, path, strlen(path), 0700);
		return sub < 0 ? error_set(u->reterr, sub, "%.200s: %s", path, strerror(-sub)) : 0;
	}
	if (slash) {
		sub = dir_make_open_at(u->dirfd, path, (size_t)(slash - path), 0700);
		if (sub < 0)
			return error_set(u->reterr, sub, "%.200s: %s", path, strerror(-sub));
	}
	r = write_new(slash ? sub : u->dirfd, slash ? slash + 1 : path, data, len);
	return r < 0 ? error_set(u->reterr, r, "%.200s: %s", path, strerror(-r)) : 0;
}

/* The archive's tar bytes: a .tar read as is, a gzip stream (by its magic,
 * whatever the name) decompressed by pack_gunzip.c, each under the cap. */
static int read_archive(const char *file, char **ret, size_t *ret_len, struct cordon_error *reterr)
{
	_cleanup_close_ int fd = open(file, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	unsigned char magic[2];
	struct stat st;
	ssize_t n;
	int r;

	if (fd < 0 || fstat(fd, &st) < 0)
		return error_set(reterr, -errno, "%.200s: %s", file, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return error_set(reterr, -EINVAL, "%.200s: not a regular file", file);
	if (st.st_size > PACK_TAR_MAX_BYTES)
		return error_set(reterr, -EFBIG, "%.200s: the archive is larger than 16 MiB", file);
	n = pread(fd, magic, sizeof(magic), 0);
	if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		r = pack_gunzip(fd, PACK_TAR_MAX_BYTES, ret, ret_len, reterr);
		return r < 0 ? error_prefix(reterr, r, "%.200s", file) : r;
	}
	r = read_fd_capped(fd, PACK_TAR_MAX_BYTES, ret, ret_len);
	if (r < 0)
		return error_set(reterr, r, "%.200s: %s", file,
				 r == -EFBIG ? "the archive is larger than 16 MiB" : strerror(-r));
	return 0;
}

int cordon_pack_install_archive(const char *file, cordon_pack_confirm_fn confirm, void *ctx,
				struct cordon_error *reterr)
{
	_cleanup_free_ char *data = NULL, *stage = NULL;
	_cleanup_close_ int dirfd = -1;
	struct pack_paths paths = {};
	size_t len = 0;
	int r;

	r = read_archive(file, &data, &len, reterr);
	if (r < 0)
		return r;
	r = pack_paths_default(&paths);
	if (r < 0)
		return error_set(reterr, r, "no HOME: the pack store cannot be found");
	r = staging_make(&paths, &stage, &dirfd, reterr);
	if (r < 0)
		goto out;
	r = pack_tar_walk(data, len, unpack_entry, &(struct unpack){ dirfd, reterr }, reterr);
	if (r >= 0)
		r = cordon_pack_install(stage, confirm, ctx, reterr);
out:
	if (stage)
		remove_staging(stage);
	pack_paths_done(&paths);
	return r;
}
