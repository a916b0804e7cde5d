/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A bounded reader of ustar archives (POSIX.1-1988 headers, 512-byte
 * blocks) for packs: the shapes a pack may not have are refused here, by
 * name, before anything is written (pack_tar.h says which).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "pack_image.h"
#include "pack_tar.h"

#define BLOCK 512

/* An octal field: digits, then NULs or spaces. */
static int octal(const char *f, size_t n, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i = 0;
	bool any = false;

	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v > (UINT64_MAX >> 3))
			return -EBADMSG;
		v = v << 3 | (uint64_t)(f[i] - '0');
		any = true;
	}
	for (; i < n; i++)
		if (f[i] != '\0' && f[i] != ' ')
			return -EBADMSG;
	if (!any)
		return -EBADMSG;
	*ret = v;
	return 0;
}

static bool checksum_ok(const unsigned char *h)
{
	uint64_t want;
	unsigned sum = 0;

	if (octal((const char *)h + 148, 8, &want) < 0)
		return false;
	for (size_t i = 0; i < BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return sum == want;
}

/* A field's text, up to its NUL or its end. */
static size_t field_len(const char *f, size_t n)
{
	const char *z = memchr(f, '\0', n);

	return z ? (size_t)(z - f) : n;
}

/* Relative, plain components of [A-Za-z0-9._-], none "." or "..". */
static bool path_ok(const char *p)
{
	size_t comp = 0;

	if (!p[0] || p[0] == '/')
		return false;
	for (const char *s = p;; s++) {
		if (*s == '/' || *s == '\0') {
			if (comp == 0 || (comp == 1 && s[-1] == '.') || (comp == 2 && s[-1] == '.' && s[-2] == '.'))
				return false;
			if (*s == '\0')
				return true;
			comp = 0;
			continue;
		}
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' ||
		      *s == '_' || *s == '-'))
			return false;
		comp++;
	}
}

static const char *kind_name(char t)
{
	switch (t) {
	case '1':
		return "a hard link";
	case '2':
		return "a symbolic link";
	case '3':
	case '4':
		return "a device";
	case '6':
		return "a FIFO";
	case 'x':
	case 'g':
		return "a pax extended header";
	case 'L':
	case 'K':
		return "a GNU long name";
	default:
		return "an entry of an unknown type";
	}
}

int pack_tar_walk(const char *data, size_t len, pack_tar_entry_fn fn, void *ctx, struct cordon_error *reterr)
{
	char (*seen)[256 + 2] = NULL;
	size_t n_seen = 0, off = 0, total = 0;
	int r = 0;

	if (len > PACK_TAR_MAX_BYTES)
		return error_set(reterr, -EBADMSG, "the archive is larger than %d bytes", PACK_TAR_MAX_BYTES);
	seen = calloc(PACK_MAX_ENTRIES, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	while (r >= 0) {
		const unsigned char *h = (const unsigned char *)data + off;
		char path[256 + 2];
		size_t nl, pl, path_len;
		uint64_t size, mode;
		char type;

		if (len - off < BLOCK) {
			r = error_set(reterr, -EBADMSG, "the archive ends inside a header (no end blocks)");
			break;
		}
		if (h[0] == '\0') {
			/* the end: a zero block (all of it) */
			for (size_t i = 0; i < BLOCK; i++)
				if (h[i]) {
					r = error_set(reterr, -EBADMSG, "a header with an empty name");
					break;
				}
			break;
		}
		if (memcmp(h + 257, "ustar", 5) != 0 || !checksum_ok(h)) {
			r = error_set(reterr, -EBADMSG, "not a ustar archive, or a header's checksum is wrong");
			break;
		}
		type = (char)h[156];
		nl = field_len((const char *)h, 100);
		pl = field_len((const char *)h + 345, 155);
		if (pl)
			snprintf(path, sizeof(path), "%.*s/%.*s", (int)pl, (const char *)h + 345, (int)nl,
				 (const char *)h);
		else
			snprintf(path, sizeof(path), "%.*s", (int)nl, (const char *)h);
		if (strncmp(path, "./", 2) == 0)
			memmove(path, path + 2, strlen(path + 2) + 1);
		path_len = strlen(path);
		if (type == '5' && path_len && path[path_len - 1] == '/')
			path[--path_len] = '\0';
		if (octal((const char *)h + 124, 12, &size) < 0 || octal((const char *)h + 100, 8, &mode) < 0) {
			r = error_set(reterr, -EBADMSG, "%.100s: a header's size or mode is not octal", path);
			break;
		}
		if (type != '0' && type != '\0' && type != '5') {
			r = error_set(reterr, -EPERM, "%.200s: a pack holds regular files only (%s)", path,
				      kind_name(type));
			break;
		}
		if (path_len == 0 && type == '5') {
			/* "./" itself */
			off += BLOCK;
			continue;
		}
		if (!path_ok(path)) {
			r = error_set(reterr, -EPERM,
				      "%.200s: not a plain relative path (absolute, \"..\", \".\" or odd characters)",
				      path);
			break;
		}
		if (type != '5' && (mode & 0111)) {
			r = error_set(reterr, -EPERM, "%.200s: a pack may not ship executables", path);
			break;
		}
		for (size_t i = 0; i < n_seen; i++)
			if (strcmp(seen[i], path) == 0) {
				r = error_set(reterr, -EPERM, "%.200s: appears twice in the archive", path);
				break;
			}
		if (r < 0)
			break;
		if (n_seen >= PACK_MAX_ENTRIES) {
			r = error_set(reterr, -EPERM, "the archive holds more than %d entries", PACK_MAX_ENTRIES);
			break;
		}
		memcpy(seen[n_seen++], path, path_len + 1);
		off += BLOCK;
		if (type == '5') {
			if (size != 0) {
				r = error_set(reterr, -EBADMSG, "%.200s: a directory with a size", path);
				break;
			}
			r = fn(ctx, path, true, NULL, 0);
			continue;
		}
		if (size > PACK_MAX_FILE_BYTES || size > len - off) {
			r = error_set(reterr, size > PACK_MAX_FILE_BYTES ? -EPERM : -EBADMSG, "%.200s: %s", path,
				      size > PACK_MAX_FILE_BYTES ? "larger than 1 MiB" : "the archive ends inside it");
			break;
		}
		total += size;
		if (total > PACK_MAX_TOTAL_BYTES) {
			r = error_set(reterr, -EPERM, "the archive's files are larger than %d bytes together",
				      PACK_MAX_TOTAL_BYTES);
			break;
		}
		r = fn(ctx, path, false, data + off, size);
		off += (size + BLOCK - 1) / BLOCK * BLOCK;
		if (off > len) {
			r = error_set(reterr, -EBADMSG, "the archive ends inside a file's last block");
			break;
		}
	}
	free(seen);
	return r;
}
