/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pack store and its lock (issue 24): `cordon pack install|list|show|
 * verify|remove`, and the resolver every use of OWNER/NAME/PROFILE goes
 * through. The lock pins each pack's version, pack.json's hash, every
 * file's hash and the signer's key; each use reads the pack once into
 * memory (pack_image.c: signature against the trust file, hashes), checks
 * it against the lock, and hands the loader the bytes it checked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "cleanup.h"
#include "cordon/pack.h"
#include "dirat.h"
#include "error.h"
#include "fileio.h"
#include "pack_image.h"
#include "pack_rules.h"
#include "pack_summary.h"
#include "path.h"
#include "profile.h"
#include "profile_find.h"

#define LOCK_MAX_BYTES (4 * 1024 * 1024)

/* The pack an install is checking: its profiles' extends of their own
 * pack resolve here (the CLI is single-threaded while it installs). */
static const struct pack_image *staged;
/* The unsigned pack of `cordon run --insecure-local`, for this process. */
static struct pack_image *insecure;

static char *b64(const uint8_t *p, size_t n)
{
	char *s = malloc(4 * ((n + 2) / 3) + 1);

	if (s)
		EVP_EncodeBlock((unsigned char *)s, p, (int)n);
	return s;
}

static int lock_read(const struct pack_paths *paths, json_t **ret)
{
	_cleanup_free_ char *file = path_join(paths->store, "lock.json"), *text = NULL;
	size_t len = 0;
	json_error_t jerr;
	int r;

	if (!file)
		return -ENOMEM;
	r = read_file_capped(file, LOCK_MAX_BYTES, true, &text, &len);
	if (r == -ENOENT) {
		*ret = json_object();
		return *ret ? 0 : -ENOMEM;
	}
	if (r < 0)
		return r;
	*ret = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!*ret || !json_is_object(*ret)) {
		json_decref(*ret);
		return -EBADMSG;
	}
	return 0;
}

/* Write text to dir/name through a temporary file and a rename. */
static int write_atomic(int dirfd, const char *name, const char *text, size_t len)
{
	char tmp[300];
	_cleanup_close_ int fd = -1;
	size_t off = 0;

	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			(void)unlinkat(dirfd, tmp, 0);
			return w < 0 ? -errno : -EIO;
		}
		off += (size_t)w;
	}
	if (fsync(fd) < 0 || renameat(dirfd, tmp, dirfd, name) < 0) {
		int r = -errno;

		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	return 0;
}

static int store_open(const struct pack_paths *paths, bool create)
{
	int fd;

	if (create) {
		_cleanup_free_ char *parent = strdup(paths->store);
		char *slash;

		if (!parent)
			return -ENOMEM;
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			(void)mkdir(parent, 0700);
		}
		if (mkdir(paths->store, 0700) < 0 && errno != EEXIST)
			return -errno;
	}
	fd = open(paths->store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int lock_write(const struct pack_paths *paths, json_t *lock)
{
	_cleanup_free_ char *text = json_dumps(lock, JSON_INDENT(2) | JSON_SORT_KEYS);
	_cleanup_close_ int fd = store_open(paths, true);

	if (!text)
		return -ENOMEM;
	if (fd < 0)
		return fd;
	return write_atomic(fd, "lock.json", text, strlen(text));
}

static json_t *lock_entry_new(const struct pack_image *img)
{
	_cleanup_free_ char *signer = b64(img->signer, img->signer_len);
	json_t *e = json_object(), *files = json_object();
	char hex[65];

	if (!signer || !e || !files) {
		json_decref(e);
		json_decref(files);
		return NULL;
	}
	for (size_t i = 0; i < img->m->n_files; i++) {
		pack_sha256_hex(img->file_text[i], img->file_len[i], hex);
		json_object_set_new(files, img->m->files[i].path, json_string(hex));
	}
	for (size_t i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", img->manifest_sha256[i]);
	json_object_set_new(e, "version", json_string(img->m->version));
	json_object_set_new(e, "signer", json_string(signer));
	json_object_set_new(e, "manifest_sha256", json_string(hex));
	json_object_set_new(e, "files", files);
	return e;
}

/* Split OWNER/NAME[/PROFILE]. */
static int split_name(const char *full, char owner[65], char name[65], char profile[65], bool with_profile)
{
	const char *a = strchr(full, '/'), *b = a ? strchr(a + 1, '/') : NULL;
	size_t la, lb;

	if (!a || (with_profile != !!b))
		return -EINVAL;
	la = (size_t)(a - full);
	lb = b ? (size_t)(b - a - 1) : strlen(a + 1);
	if (la > 64 || lb > 64 || !profile_pack_part_ok(full, la) || !profile_pack_part_ok(a + 1, lb))
		return -EINVAL;
	memcpy(owner, full, la);
	owner[la] = '\0';
	memcpy(name, a + 1, lb);
	name[lb] = '\0';
	if (b) {
		if (strlen(b + 1) > 64 || !profile_pack_part_ok(b + 1, strlen(b + 1)))
			return -EINVAL;
		strcpy(profile, b + 1);
	}
	return 0;
}

/* Read the installed pack owner/name and check it against the lock: the
 * verification every use makes. */
static int installed_image(const struct pack_paths *paths, const char *owner, const char *name, struct pack_image **ret,
			   struct cordon_error *reterr)
{
	_cleanup_(json_decrefp) json_t *lock = NULL;
	_cleanup_free_ char *signer = NULL;
	_cleanup_close_ int store = -1, dir = -1;
	struct pack_image *img = NULL;
	char full[140], rel[140], hex[65];
	json_t *e, *files;
	int r;

	snprintf(full, sizeof(full), "%s/%s", owner, name);
	r = lock_read(paths, &lock);
	if (r < 0)
		return error_set(reterr, r == -ENOMEM ? r : -EBADMSG, "the pack lock cannot be read: %s", strerror(-r));
	e = json_object_get(lock, full);
	if (!e)
		return error_set(reterr, -ENOENT, "the pack %s is not installed (cordon pack install)", full);
	store = store_open(paths, false);
	snprintf(rel, sizeof(rel), "%s/%s", owner, name);
	dir = store < 0 ? store : openat(store, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return error_set(reterr, -ENOENT, "the pack %s is in the lock but not in the store", full);
	r = pack_image_read(dir, paths, true, &img, reterr);
	if (r < 0)
		return r;
	signer = b64(img->signer, img->signer_len);
	for (size_t i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", img->manifest_sha256[i]);
	files = json_object_get(e, "files");
	if (!signer)
		r = -ENOMEM;
	else if (strcmp(img->m->owner, owner) || strcmp(img->m->name, name))
		r = error_set(reterr, -EPERM, "the store's %s holds the pack %s/%s", full, img->m->owner, img->m->name);
	else if (!json_is_string(json_object_get(e, "signer")) ||
		 strcmp(json_string_value(json_object_get(e, "signer")), signer) != 0)
		r = error_set(reterr, -EKEYREJECTED,
			      "%s is signed by another key than the one its install accepted (cordon pack install, on "
			      "a terminal, accepts a new key)",
			      full);
	else if (!json_is_string(json_object_get(e, "manifest_sha256")) ||
		 strcmp(json_string_value(json_object_get(e, "manifest_sha256")), hex) != 0 ||
		 !json_is_string(json_object_get(e, "version")) ||
		 strcmp(json_string_value(json_object_get(e, "version")), img->m->version) != 0)
		r = error_set(reterr, -EPERM, "%s's pack.json is not the one the lock pins", full);
	else if (!json_is_object(files) || json_object_size(files) != img->m->n_files)
		r = error_set(reterr, -EPERM, "%s's files are not the ones the lock pins", full);
	for (size_t i = 0; r >= 0 && i < img->m->n_files; i++) {
		const char *want = json_string_value(json_object_get(files, img->m->files[i].path));

		pack_sha256_hex(img->file_text[i], img->file_len[i], hex);
		if (!want || strcmp(want, hex) != 0)
			r = error_set(reterr, -EPERM, "%s: %.200s is not the file the lock pins", full,
				      img->m->files[i].path);
	}
	if (r < 0) {
		pack_image_free(img);
		return r;
	}
	*ret = img;
	return 0;
}

static int resolve(const char *full, char **ret_text, size_t *ret_len, struct cordon_error *reterr)
{
	struct pack_paths paths = {};
	struct pack_image *img = NULL;
	const struct pack_image *from;
	char owner[65], name[65], profile[65];
	const char *text;
	size_t len;
	int r;

	if (split_name(full, owner, name, profile, true) < 0)
		return error_set(reterr, -EINVAL, "not OWNER/NAME/PROFILE");
	from = staged;
	if (insecure && strcmp(insecure->m->owner, owner) == 0 && strcmp(insecure->m->name, name) == 0)
		from = insecure;
	if (from && strcmp(from->m->owner, owner) == 0 && strcmp(from->m->name, name) == 0) {
		text = pack_image_profile(from, profile, &len);
		if (!text)
			return error_set(reterr, -ENOENT, "the pack has no profile \"%s\"", profile);
		*ret_text = strndup(text, len);
		*ret_len = len;
		return *ret_text ? 0 : -ENOMEM;
	}
	r = pack_paths_default(&paths);
	if (r < 0)
		return error_set(reterr, r, "no HOME: the pack store cannot be found");
	r = installed_image(&paths, owner, name, &img, reterr);
	pack_paths_done(&paths);
	if (r < 0)
		return r;
	text = pack_image_profile(img, profile, &len);
	if (!text)
		r = error_set(reterr, -ENOENT, "the pack %s/%s has no profile \"%s\"", owner, name, profile);
	else
		r = pack_rules_check(text, len, owner, name, reterr);
	if (r >= 0) {
		*ret_text = malloc(len + 1);
		if (!*ret_text)
			r = -ENOMEM;
		else {
			memcpy(*ret_text, text, len);
			(*ret_text)[len] = '\0';
			*ret_len = len;
		}
	}
	pack_image_free(img);
	return r;
}

void cordon_pack_enable(void)
{
	profile_set_pack_resolver(resolve);
}

/* ---- install ------------------------------------------------------------- */

static int check_profiles(const struct pack_image *img, struct cordon_error *reterr)
{
	for (size_t i = 0; i < img->m->n_profiles; i++) {
		const char *pname = img->m->profiles[i].name, *text;
		struct profile_env env = { .inspect = true, .data_profile_dir = "", .user_profile_dir = "" };
		struct cordon_profile *p = NULL;
		struct cordon_error e = {};
		char full[200];
		size_t len = 0;
		int r;

		text = pack_image_profile(img, pname, &len);
		r = pack_rules_check(text, len, img->m->owner, img->m->name, reterr);
		if (r < 0)
			return error_prefix(reterr, r, "the profile \"%s\" is refused", pname);
		/* the profile loader reads it as every use will: a valid profile */
		snprintf(full, sizeof(full), "%s/%s/%s", img->m->owner, img->m->name, pname);
		staged = img;
		r = profile_load(full, &env, &p, &e);
		staged = NULL;
		if (r < 0)
			return error_set(reterr, r == -ENOMEM ? r : -EINVAL, "the profile \"%s\" is refused: %s", pname,
					 e.message);
		if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS || p->lift_credentials.n || p->bypass_credentials.n ||
		    p->bypass_persistence.n || p->bypass_system_write.n || p->allow_unix_sockets.n ||
		    p->net == PROFILE_NET_HOST || p->net_rules[CORDON_NET_ALLOW_ADDRESS])
			r = error_set(reterr, -EPERM,
				      "the profile \"%s\" is refused: it grants what a pack may not (danger-full-access, "
				      "network host, addresses, unix sockets, bypass or lift)",
				      pname);
		profile_free(p);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Remove name below dirfd and all it holds, never following a link. */
static int remove_tree_at(int at, const char *name, unsigned depth)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int fd;

	if (depth > 16)
		return -ELOOP;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0) < 0 ? -errno : 0;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			(void)remove_tree_at(dirfd(d), de->d_name, depth + 1);
	closedir(d);
	return unlinkat(at, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

/* Write img's verified bytes into store/OWNER/NAME (replacing it whole). */
static int store_write(const struct pack_paths *paths, const struct pack_image *img)
{
	_cleanup_close_ int store = store_open(paths, true), owner = -1, dir = -1;
	char tmp[100], old[100];
	int r = 0;

	if (store < 0)
		return store;
	if (mkdirat(store, img->m->owner, 0700) < 0 && errno != EEXIST)
		return -errno;
	owner = openat(store, img->m->owner, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (owner < 0)
		return -errno;
	snprintf(tmp, sizeof(tmp), ".%s.new.%d", img->m->name, (int)getpid());
	snprintf(old, sizeof(old), ".%s.old.%d", img->m->name, (int)getpid());
	if (mkdirat(owner, tmp, 0700) < 0)
		return -errno;
	dir = openat(owner, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	r = write_atomic(dir, "pack.json", img->manifest_text, img->manifest_len);
	if (r >= 0)
		r = write_atomic(dir, "pack.json.sig", img->sig_text, img->sig_len);
	for (size_t i = 0; r >= 0 && i < img->m->n_files; i++) {
		const char *path = img->m->files[i].path, *slash = strrchr(path, '/');
		_cleanup_close_ int sub = -1;

		if (slash) {
			sub = dir_make_open_at(dir, path, (size_t)(slash - path), 0700);
			if (sub < 0) {
				r = sub;
				break;
			}
		}
		r = write_atomic(slash ? sub : dir, slash ? slash + 1 : path, img->file_text[i], img->file_len[i]);
	}
	if (r >= 0) {
		bool had = renameat(owner, img->m->name, owner, old) == 0;

		if (renameat(owner, tmp, owner, img->m->name) < 0) {
			r = -errno;
			if (had)
				(void)renameat(owner, old, owner, img->m->name);
		} else if (had)
			(void)remove_tree_at(owner, old, 0);
	}
	if (r < 0)
		(void)remove_tree_at(owner, tmp, 0);
	return r;
}

int cordon_pack_insecure_local(const char *dir, char *name, size_t size, struct cordon_error *reterr)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct pack_image *img = NULL;
	int r;

	if (fd < 0)
		return error_set(reterr, -errno, "not a pack directory: %s", strerror(errno));
	r = pack_image_read(fd, NULL, true, &img, reterr);
	if (r < 0)
		return r;
	r = check_profiles(img, reterr);
	if (r < 0) {
		pack_image_free(img);
		return r;
	}
	snprintf(name, size, "%s/%s", img->m->owner, img->m->name);
	pack_image_free(insecure);
	insecure = img;
	return 0;
}

int cordon_pack_install(const char *src, cordon_pack_confirm_fn confirm, void *ctx, struct cordon_error *reterr)
{
	_cleanup_(json_decrefp) json_t *lock = NULL;
	_cleanup_free_ char *now = NULL, *before = NULL, *text = NULL, *signer = NULL;
	_cleanup_close_ int dir = -1;
	struct pack_paths paths = {};
	struct pack_image *img = NULL, *old = NULL;
	bool needs_terminal = false;
	struct cordon_error why = {};
	char full[140];
	size_t size = 0;
	FILE *f = NULL;
	json_t *e;
	int r;

	if (strstr(src, "://"))
		return error_set(reterr, -EPROTONOSUPPORT,
				 "%.100s: a pack is installed from a directory or an https:// URL only", src);
	dir = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return error_set(reterr, -errno, "%s: not a pack directory: %s", src, strerror(errno));
	r = pack_paths_default(&paths);
	if (r < 0)
		return error_set(reterr, r, "no HOME: the pack store cannot be found");
	r = pack_image_read(dir, &paths, true, &img, reterr);
	if (r < 0)
		goto out;
	r = check_profiles(img, reterr);
	if (r < 0)
		goto out;
	snprintf(full, sizeof(full), "%s/%s", img->m->owner, img->m->name);
	r = lock_read(&paths, &lock);
	if (r < 0) {
		r = error_set(reterr, r, "the pack lock cannot be read: %s", strerror(-r));
		goto out;
	}
	r = pack_summary(img, &now);
	if (r < 0)
		goto out;
	f = open_memstream(&text, &size);
	if (!f || !(signer = b64(img->signer, img->signer_len))) {
		r = -ENOMEM;
		goto out;
	}
	e = json_object_get(lock, full);
	fprintf(f, "%s %s (%s)\nsigned by %s's key, trusted by %s\n", full, img->m->version, img->m->description,
		img->m->owner, img->trust_file);
	if (e) {
		const char *v = json_string_value(json_object_get(e, "version"));
		const char *k = json_string_value(json_object_get(e, "signer"));
		struct pack_manifest cmp = {};

		if (installed_image(&paths, img->m->owner, img->m->name, &old, &why) >= 0 &&
		    pack_summary(old, &before) >= 0) {
			fprintf(f, "replaces version %s; what the grants change:\n", old->m->version);
			pack_summary_diff(f, now, before, '-');
			pack_summary_diff(f, before, now, '+');
		} else
			fprintf(f, "replaces version %s (which does not verify: %s); it grants:\n%s", v ? v : "?",
				why.message, now);
		if (v && sscanf(v, "%u.%u.%u", &cmp.version_parts[0], &cmp.version_parts[1],
				&cmp.version_parts[2]) == 3 &&
		    pack_version_cmp(img->m, &cmp) < 0) {
			fprintf(f, "version %s is LOWER than the installed %s\n", img->m->version, v);
			needs_terminal = true;
		}
		if (!k || strcmp(k, signer) != 0) {
			fprintf(f, "the SIGNER KEY CHANGED from the one the installed version was accepted with\n");
			needs_terminal = true;
		}
	} else
		fprintf(f, "it grants:\n%s", now);
	if (fclose(f) != 0) {
		f = NULL;
		r = -ENOMEM;
		goto out;
	}
	f = NULL;
	if (!confirm || !confirm(ctx, text, needs_terminal)) {
		r = error_set(reterr, -ECANCELED, "%s was not installed: not confirmed%s", full,
			      needs_terminal ? " (a lower version or a new signer key is accepted only on a terminal)"
					     : "");
		goto out;
	}
	r = store_write(&paths, img);
	if (r < 0) {
		r = error_set(reterr, r, "%s cannot be written to %s: %s", full, paths.store, strerror(-r));
		goto out;
	}
	e = lock_entry_new(img);
	if (!e || json_object_set_new(lock, full, e) < 0) {
		r = -ENOMEM;
		goto out;
	}
	r = lock_write(&paths, lock);
	if (r < 0)
		r = error_set(reterr, r, "the pack lock cannot be written: %s", strerror(-r));
out:
	if (f)
		fclose(f);
	pack_image_free(img);
	pack_image_free(old);
	pack_paths_done(&paths);
	return r;
}

int cordon_pack_list(char **ret_text, struct cordon_error *reterr)
{
	_cleanup_(json_decrefp) json_t *lock = NULL;
	struct pack_paths paths = {};
	const char *key;
	json_t *e;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	r = pack_paths_default(&paths);
	if (r < 0)
		return error_set(reterr, r, "no HOME: the pack store cannot be found");
	r = lock_read(&paths, &lock);
	pack_paths_done(&paths);
	if (r < 0)
		return error_set(reterr, r, "the pack lock cannot be read: %s", strerror(-r));
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	json_object_foreach(lock, key, e)
		fprintf(f, "%s %s\n", key, json_string_value(json_object_get(e, "version")) ?: "?");
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret_text = buf;
	return 0;
}

int cordon_pack_show(const char *full, char **ret_text, struct cordon_error *reterr)
{
	struct pack_paths paths = {};
	struct pack_image *img = NULL;
	char owner[65], name[65];
	int r;

	if (split_name(full, owner, name, NULL, false) < 0)
		return error_set(reterr, -EINVAL, "\"%.100s\" is not OWNER/NAME", full);
	r = pack_paths_default(&paths);
	if (r < 0)
		return error_set(reterr, r, "no HOME: the pack store cannot be found");
	r = installed_image(&paths, owner, name, &img, reterr);
	pack_paths_done(&paths);
	if (r < 0)
		return r;
	r = pack_summary(img, ret_text);
	pack_image_free(img);
	return r;
}

int cordon_pack_verify(const char *full, char **ret_text, struct cordon_error *reterr)
{
	_cleanup_(json_decrefp) json_t *lock = NULL;
	struct pack_paths paths = {};
	const char *key;
	json_t *e;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int r, worst = 0;

	r = pack_paths_default(&paths);
	if (r < 0)
		return error_set(reterr, r, "no HOME: the pack store cannot be found");
	r = lock_read(&paths, &lock);
	if (r < 0) {
		pack_paths_done(&paths);
		return error_set(reterr, r, "the pack lock cannot be read: %s", strerror(-r));
	}
	if (full && !json_object_get(lock, full)) {
		pack_paths_done(&paths);
		return error_set(reterr, -ENOENT, "the pack %.100s is not installed", full);
	}
	f = open_memstream(&buf, &size);
	if (!f) {
		pack_paths_done(&paths);
		return -ENOMEM;
	}
	json_object_foreach(lock, key, e) {
		struct pack_image *img = NULL;
		struct cordon_error why = {};
		char owner[65], name[65];

		if (full && strcmp(full, key) != 0)
			continue;
		if (split_name(key, owner, name, NULL, false) < 0)
			r = error_set(&why, -EBADMSG, "not OWNER/NAME in the lock");
		else
			r = installed_image(&paths, owner, name, &img, &why);
		pack_image_free(img);
		if (r < 0 && worst == 0) {
			worst = r;
			error_set(reterr, r, "%s: %s", key, why.message);
		}
		fprintf(f, "%s: %s\n", key, r < 0 ? why.message : "verified");
	}
	pack_paths_done(&paths);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret_text = buf;
	return worst;
}

int cordon_pack_remove(const char *full, struct cordon_error *reterr)
{
	_cleanup_(json_decrefp) json_t *lock = NULL;
	_cleanup_close_ int store = -1, owner_fd = -1;
	struct pack_paths paths = {};
	char owner[65], name[65];
	int r;

	if (split_name(full, owner, name, NULL, false) < 0)
		return error_set(reterr, -EINVAL, "\"%.100s\" is not OWNER/NAME", full);
	r = pack_paths_default(&paths);
	if (r < 0)
		return error_set(reterr, r, "no HOME: the pack store cannot be found");
	r = lock_read(&paths, &lock);
	if (r >= 0 && json_object_del(lock, full) < 0)
		r = error_set(reterr, -ENOENT, "the pack %s is not installed", full);
	else if (r >= 0)
		r = lock_write(&paths, lock);
	if (r >= 0 && (store = store_open(&paths, false)) >= 0 &&
	    (owner_fd = openat(store, owner, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
		(void)remove_tree_at(owner_fd, name, 0);
	pack_paths_done(&paths);
	return r;
}
