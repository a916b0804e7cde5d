/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A pack read once into memory and verified (signature, trust file,
 * hashes): the bytes install writes and every use parses.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "allowed_signers.h"
#include "cleanup.h"
#include "error.h"
#include "fileio.h"
#include "pack_image.h"
#include "path.h"
#include "sshsig.h"

int pack_paths_default(struct pack_paths *ret)
{
	const char *xdg = secure_getenv("XDG_CONFIG_HOME"), *home = secure_getenv("HOME");
	_cleanup_free_ char *config = NULL;
	struct pack_paths p = {};

	if (xdg && xdg[0] == '/')
		config = strdup(xdg);
	else if (home && home[0] == '/')
		config = path_join(home, ".config");
	else
		return -ENOENT;
	if (!config)
		return -ENOMEM;
	p.trust_system = strdup("/etc/cordon/allowed_signers");
	p.trust_user = path_join(config, "cordon/allowed_signers");
	p.store = path_join(config, "cordon/packs");
	if (!p.trust_system || !p.trust_user || !p.store) {
		pack_paths_done(&p);
		return -ENOMEM;
	}
	*ret = p;
	return 0;
}

void pack_paths_done(struct pack_paths *p)
{
	free(p->trust_system);
	free(p->trust_user);
	free(p->store);
	*p = (struct pack_paths){};
}

void pack_image_free(struct pack_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; img->file_text && i < img->m->n_files; i++)
		free(img->file_text[i]);
	free(img->file_text);
	free(img->file_len);
	pack_manifest_free(img->m);
	free(img->manifest_text);
	free(img->sig_text);
	free(img->signer);
	free(img->trust_file);
	free(img);
}

void pack_sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char h[32];
	unsigned int n = 0;

	EVP_Digest(data, len, h, &n, EVP_sha256(), NULL);
	for (size_t i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", h[i]);
}

/* rel below dirfd, no symlink anywhere, a regular file, at most max bytes. */
static int read_beneath(int dirfd, const char *rel, size_t max, char **ret, size_t *ret_len)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((size_t)st.st_size > max)
		return -EFBIG;
	return read_fd_capped(fd, max, ret, ret_len);
}

/* The trust file: the system's if it exists (an administrator's choice),
 * else the user's; missing or empty refuses. */
static int read_trust(const struct pack_paths *paths, struct allowed_signers **ret, char **ret_file,
		      struct cordon_error *reterr)
{
	_cleanup_free_ char *text = NULL;
	const char *file = paths->trust_system;
	size_t len = 0;
	int r;

	r = read_file_capped(file, ALLOWED_SIGNERS_MAX_BYTES, true, &text, &len);
	if (r == -ENOENT) {
		file = paths->trust_user;
		r = read_file_capped(file, ALLOWED_SIGNERS_MAX_BYTES, true, &text, &len);
	}
	if (r == -ENOENT)
		return error_set(reterr, -EKEYREJECTED, "no trust file (%s, else %s): no pack can be verified",
				 paths->trust_system, paths->trust_user);
	if (r < 0)
		return error_set(reterr, r, "the trust file %s cannot be read: %s", file, strerror(-r));
	r = allowed_signers_parse(text, len, ret, reterr);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return error_prefix(reterr, -EKEYREJECTED, "the trust file %s is refused", file);
	if ((*ret)->n == 0) {
		allowed_signers_free(*ret);
		*ret = NULL;
		return error_set(reterr, -EKEYREJECTED, "the trust file %s lists no signer", file);
	}
	*ret_file = strdup(file);
	if (!*ret_file) {
		allowed_signers_free(*ret);
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

static bool is_listed(const struct pack_manifest *m, const char *rel)
{
	return strcmp(rel, "pack.json") == 0 || strcmp(rel, "pack.json.sig") == 0 || pack_manifest_file(m, rel);
}

/* Nothing in the tree at dirfd but directories and the listed regular,
 * non-executable files. */
static int scan_strict(int at, const char *prefix, const struct pack_manifest *m, unsigned depth, size_t *count,
		       struct cordon_error *reterr)
{
	_cleanup_close_ int fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (depth > 8)
		return error_set(reterr, -EPERM, "the pack's directories are nested deeper than 8");
	d = fdopendir(fd);
	if (!d)
		return -errno;
	fd = -1;
	while (r >= 0 && (de = readdir(d))) {
		char rel[512];
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++*count > PACK_MAX_ENTRIES) {
			r = error_set(reterr, -EPERM, "the pack holds more than %d entries", PACK_MAX_ENTRIES);
			break;
		}
		snprintf(rel, sizeof(rel), "%s%s%s", prefix, prefix[0] ? "/" : "", de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sub =
				openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			r = sub < 0 ? -errno : scan_strict(sub, rel, m, depth + 1, count, reterr);
		} else if (!S_ISREG(st.st_mode))
			r = error_set(reterr, -EPERM, "%.200s: a pack holds regular files only (%s)", rel,
				      S_ISLNK(st.st_mode) ? "a symbolic link" : "a device, FIFO or socket");
		else if (st.st_mode & 0111)
			r = error_set(reterr, -EPERM, "%.200s: a pack may not ship executables", rel);
		else if (st.st_nlink > 1)
			r = error_set(reterr, -EPERM, "%.200s: a pack's file may not be a hard link", rel);
		else if (!is_listed(m, rel))
			r = error_set(reterr, -EPERM, "%.200s: not listed in pack.json's \"files\"", rel);
	}
	closedir(d);
	return r;
}

int pack_signed_manifest(const struct pack_paths *paths, const char *manifest, size_t manifest_len,
			 const char *sig_text, size_t sig_len, struct pack_manifest **ret, uint8_t **ret_signer,
			 size_t *ret_signer_len, char **ret_trust_file, struct cordon_error *reterr)
{
	struct allowed_signers *trust = NULL;
	struct sshsig *sig = NULL;
	struct pack_manifest *m = NULL;
	char *trust_file = NULL;
	int r;

	r = read_trust(paths, &trust, &trust_file, reterr);
	if (r < 0)
		return r;
	r = sshsig_parse(sig_text, sig_len, &sig, reterr);
	if (r >= 0)
		r = sshsig_verify(sig, PACK_NAMESPACE, manifest, manifest_len, reterr);
	if (r < 0) {
		r = r == -ENOMEM ? r : error_prefix(reterr, -EKEYREJECTED, "pack.json.sig");
		goto out;
	}
	/* the manifest is parsed only once its signature holds */
	r = pack_manifest_parse(manifest, manifest_len, &m, reterr);
	if (r < 0)
		goto out;
	r = allowed_signers_check(trust, m->owner, sig->pubkey, sig->pubkey_len, PACK_NAMESPACE, time(NULL), reterr);
	if (r < 0) {
		r = error_prefix(reterr, -EKEYREJECTED, "the signer of %s/%s is not trusted for the owner \"%s\"",
				 m->owner, m->name, m->owner);
		goto out;
	}
	*ret_signer = malloc(sig->pubkey_len);
	if (!*ret_signer) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(*ret_signer, sig->pubkey, sig->pubkey_len);
	*ret_signer_len = sig->pubkey_len;
	*ret = TAKE_PTR(m);
	*ret_trust_file = TAKE_PTR(trust_file);
	r = 0;
out:
	pack_manifest_free(m);
	free(trust_file);
	sshsig_free(sig);
	allowed_signers_free(trust);
	return r;
}

int pack_image_read(int dirfd, const struct pack_paths *paths, bool strict, struct pack_image **ret,
		    struct cordon_error *reterr)
{
	struct pack_image *img;
	char hex[65];
	size_t total = 0, count = 0;
	int r;

	img = calloc(1, sizeof(*img));
	if (!img)
		return -ENOMEM;
	r = read_beneath(dirfd, "pack.json", PACK_MANIFEST_MAX_BYTES, &img->manifest_text, &img->manifest_len);
	if (r < 0) {
		r = error_set(reterr, r == -ENOMEM ? r : -ENOENT, "pack.json cannot be read: %s",
			      r == -EFBIG ? "too large" : strerror(-r));
		goto out;
	}
	if (!paths) {
		/* --insecure-local: no signature, no trust, said by the caller */
		r = pack_manifest_parse(img->manifest_text, img->manifest_len, &img->m, reterr);
		if (r < 0)
			goto out;
		goto files;
	}
	r = read_beneath(dirfd, "pack.json.sig", SSHSIG_MAX_ARMORED, &img->sig_text, &img->sig_len);
	if (r < 0) {
		r = error_set(reterr, r == -ENOMEM ? r : -EKEYREJECTED,
			      "no signature: pack.json.sig cannot be read: %s",
			      r == -EFBIG ? "too large" : strerror(-r));
		goto out;
	}
	r = pack_signed_manifest(paths, img->manifest_text, img->manifest_len, img->sig_text, img->sig_len, &img->m,
				 &img->signer, &img->signer_len, &img->trust_file, reterr);
	if (r < 0)
		goto out;
files:
	{
		unsigned int n = 0;

		EVP_Digest(img->manifest_text, img->manifest_len, img->manifest_sha256, &n, EVP_sha256(), NULL);
	}
	if (strict) {
		r = scan_strict(dirfd, "", img->m, 0, &count, reterr);
		if (r < 0)
			goto out;
	}
	img->file_text = calloc(img->m->n_files, sizeof(*img->file_text));
	img->file_len = calloc(img->m->n_files, sizeof(*img->file_len));
	if (!img->file_text || !img->file_len) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < img->m->n_files; i++) {
		const struct pack_file *f = &img->m->files[i];
		char want[65];

		r = read_beneath(dirfd, f->path, PACK_MAX_FILE_BYTES, &img->file_text[i], &img->file_len[i]);
		if (r < 0) {
			r = r == -ENOMEM ? r
					 : error_set(reterr, -EPERM, "%.200s cannot be read: %s", f->path,
						     r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
			goto out;
		}
		total += img->file_len[i];
		if (total > PACK_MAX_TOTAL_BYTES) {
			r = error_set(reterr, -EPERM, "the pack's files are larger than %d bytes together",
				      PACK_MAX_TOTAL_BYTES);
			goto out;
		}
		pack_sha256_hex(img->file_text[i], img->file_len[i], hex);
		for (size_t k = 0; k < 32; k++)
			snprintf(want + 2 * k, 3, "%02x", f->sha256[k]);
		if (strcmp(hex, want) != 0) {
			r = error_set(reterr, -EPERM,
				      "%.200s does not match its SHA-256 in pack.json (it was changed after signing)",
				      f->path);
			goto out;
		}
	}
	*ret = img;
	img = NULL;
	r = 0;
out:
	pack_image_free(img);
	return r;
}

const char *pack_image_profile(const struct pack_image *img, const char *name, size_t *ret_len)
{
	const struct pack_profile_entry *e = pack_manifest_profile(img->m, name);

	if (!e)
		return NULL;
	for (size_t i = 0; i < img->m->n_files; i++)
		if (strcmp(img->m->files[i].path, e->file) == 0) {
			*ret_len = img->file_len[i];
			return img->file_text[i];
		}
	return NULL;
}
