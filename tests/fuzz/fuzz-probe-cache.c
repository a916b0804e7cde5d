/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe_cache_load on arbitrary file contents. The cache lives in the
 * user's ~/.cache, which a sandbox granted ~/.cache can write, so its
 * parser reads untrusted bytes: it must never crash, and whatever it
 * accepts must name a real backend and an absolute runner path (selection
 * then refuses any path it would not pick itself).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cordon_backend_info info;
	int fd;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/cordon-fuzz-cache-%d", (int)getpid());
		atexit(remove_file);
	}
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);

	if (probe_cache_load(path, &info) == 0) {
		if (info.backend == CORDON_BACKEND_UNAVAILABLE || info.path[0] != '/')
			abort();
	}
	return 0;
}
