/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The controlled commands' binaries: each opened once at session start,
 * its identity taken, its content hashed in a thread while the session
 * starts (identity_hasher.c); each call's tool is checked against that
 * record on the fd it is run from.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errbuf.h"
#include "tool_bin.h"

const struct tool_bin *tool_bin_find(const struct supervisor *s, const char *name)
{
	for (size_t i = 0; i < s->n_bins; i++)
		if (strcmp(s->bins[i].name, name) == 0)
			return &s->bins[i];
	return NULL;
}

int tool_bin_check(struct supervisor *s, const struct tool_bin *b, int fd, char *why, size_t n)
{
	struct file_identity want = b->id;
	int r = identity_check_file(fd, &want, why, n);

	if (r <= 0)
		return r;
	/* its times moved: only the content hashed at start can tell */
	r = identity_hasher_wait(s->hasher, b->hash_job, SUP_HASH_WAIT_MS, want.sha256, why, n);
	if (r < 0)
		return r;
	return identity_check_content(fd, &want, why, n);
}

int tool_bins_record(struct supervisor *s, char *err, size_t n)
{
	const char *const *names = cordon_tools_commands(s->tools);
	size_t count = 0;
	int r;

	while (names[count])
		count++;
	s->bins = calloc(count ? count : 1, sizeof(*s->bins));
	if (!s->bins)
		return -ENOMEM;
	r = identity_hasher_new(count, &s->hasher);
	if (r < 0)
		return r;
	for (size_t i = 0; i < count; i++) {
		const char *path = cordon_toolbox_executable(s->box, names[i]);
		struct tool_bin *b = &s->bins[s->n_bins];
		int fd;

		if (!path)
			return errbuf_set(err, n, -ENOENT, "%s: no executable was resolved", names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errbuf_set(err, n, -errno, "%s: %s: %s", names[i], path, strerror(errno));
		r = identity_stat(fd, &b->id);
		if (r < 0) {
			close(fd);
			return errbuf_set(err, n, r, "%s: %s: cannot record its identity: %s", names[i], path, strerror(-r));
		}
		r = identity_hasher_add(s->hasher, fd, &b->id, &b->hash_job);
		if (r < 0)
			return errbuf_set(err, n, r, "%s: %s: cannot hash it: %s", names[i], path, strerror(-r));
		b->name = strdup(names[i]);
		b->path = strdup(path);
		if (!b->name || !b->path)
			return -ENOMEM;
		s->n_bins++;
	}
	r = identity_hasher_start(s->hasher);
	if (r < 0)
		return errbuf_set(err, n, r, "cannot start hashing the controlled binaries: %s", strerror(-r));
	return 0;
}

void tool_bins_free(struct supervisor *s)
{
	for (size_t i = 0; i < s->n_bins; i++) {
		free(s->bins[i].name);
		free(s->bins[i].path);
	}
	free(s->bins);
	s->bins = NULL;
	s->n_bins = 0;
}
