/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-launch memo of lstat, stat and readlink answers (statmemo.h): an
 * open-addressed table per thread, capped; when it is full a call asks the
 * kernel again rather than growing.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "fnv.h"
#include "statmemo.h"
#include "strarena.h"

/* A launch looks at a few hundred paths; past this many, ask each time. */
#define STATMEMO_SLOTS	  1024u
#define STATMEMO_MAX_KEPT (STATMEMO_SLOTS * 3 / 4)

enum memo_kind { MEMO_LSTAT = 1, MEMO_STAT, MEMO_READLINK };

struct memo_entry {
	uint64_t hash;
	enum memo_kind kind;
	int err;	/* 0 or -errno */
	struct stat st; /* MEMO_LSTAT, MEMO_STAT */
	char *target;	/* MEMO_READLINK, when err is 0 */
	char path[];
};

struct statmemo {
	struct memo_entry *slot[STATMEMO_SLOTS];
	size_t kept;
	struct strarena mem; /* the entries and targets: a few hundred a launch, freed at once */
};

_Static_assert(_Alignof(struct memo_entry) <= STRARENA_ALIGN, "memo entries live in a strarena");

static _Thread_local struct statmemo *memo;

bool statmemo_open(void)
{
	if (memo)
		return false;
	memo = calloc(1, sizeof(*memo));
	return memo != NULL;
}

void statmemo_close(bool opened)
{
	if (!opened || !memo)
		return;
	strarena_free(&memo->mem);
	free(memo);
	memo = NULL;
}

/* The kept answer for (kind, path); else NULL, and *free_slot is where a
 * new one goes (NULL: no memo, or it is full). */
static struct memo_entry *memo_find(enum memo_kind kind, const char *path, uint64_t *hash,
				    struct memo_entry ***free_slot)
{
	uint64_t h = fnv1a_str(path) ^ (uint64_t)kind;

	*hash = h;
	*free_slot = NULL;
	if (!memo)
		return NULL;
	for (size_t i = 0; i < STATMEMO_SLOTS; i++) {
		struct memo_entry **s = &memo->slot[(h + i) % STATMEMO_SLOTS];

		if (!*s) {
			if (memo->kept < STATMEMO_MAX_KEPT)
				*free_slot = s;
			return NULL;
		}
		if ((*s)->hash == h && (*s)->kind == kind && strcmp((*s)->path, path) == 0)
			return *s;
	}
	return NULL;
}

/* A new entry for path, put in slot (when there is one). */
static struct memo_entry *memo_keep(struct memo_entry **slot, enum memo_kind kind, const char *path, uint64_t hash,
				    int err)
{
	size_t n = strlen(path) + 1;
	struct memo_entry *e;

	if (!slot || !(e = (struct memo_entry *)strarena_alloc(&memo->mem, sizeof(*e) + n)))
		return NULL;
	memset(e, 0, sizeof(*e));
	e->hash = hash;
	e->kind = kind;
	e->err = err;
	memcpy(e->path, path, n);
	*slot = e;
	memo->kept++;
	return e;
}

static int memo_stat(enum memo_kind kind, const char *path, struct stat *st)
{
	struct memo_entry *e, **slot;
	uint64_t h;
	int r;

	e = memo_find(kind, path, &h, &slot);
	if (!e && kind == MEMO_STAT) {
		/* stat is lstat where the last component is no symlink (or
		 * was not reached: the same error either way) */
		struct memo_entry **unused;
		uint64_t lh;

		e = memo_find(MEMO_LSTAT, path, &lh, &unused);
		if (e && e->err == 0 && S_ISLNK(e->st.st_mode))
			e = NULL;
	}
	if (e) {
		if (e->err == 0)
			*st = e->st;
		return e->err;
	}
	r = (kind == MEMO_LSTAT ? lstat(path, st) : stat(path, st)) < 0 ? -errno : 0;
	e = memo_keep(slot, kind, path, h, r);
	if (e && r == 0)
		e->st = *st;
	return r;
}

int statmemo_lstat(const char *path, struct stat *st)
{
	return memo_stat(MEMO_LSTAT, path, st);
}

int statmemo_stat(const char *path, struct stat *st)
{
	return memo_stat(MEMO_STAT, path, st);
}

ssize_t statmemo_readlink(const char *path, char *buf, size_t size)
{
	char target[PATH_MAX];
	const char *t = target;
	struct memo_entry *e, **slot;
	uint64_t h;
	ssize_t n;
	int err = 0;

	if (size < 2)
		return -EINVAL;
	e = memo_find(MEMO_READLINK, path, &h, &slot);
	if (e) {
		if (e->err < 0)
			return e->err;
		t = e->target;
	} else {
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			err = -errno;
		else if ((size_t)n >= sizeof(target) - 1)
			err = -ENAMETOOLONG;
		else
			target[n] = '\0';
		if (err < 0) {
			(void)memo_keep(slot, MEMO_READLINK, path, h, err);
			return err;
		}
		/* kept only with its target (else asked again next time) */
		char *copy = slot ? strarena_dup(&memo->mem, target) : NULL;
		if (copy && (e = memo_keep(slot, MEMO_READLINK, path, h, 0)))
			e->target = copy;
	}
	n = (ssize_t)strlen(t);
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, t, (size_t)n + 1);
	return n;
}
