/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ELF reader (elf_reader.c) on arbitrary bytes: the execute-closure
 * parses every binary and library a tool may run, any of which a user or
 * a package may have written, so the reader takes untrusted input. It must
 * never crash or read out of bounds, and what it accepts must respect its
 * caps. Every input is read twice, from memory and through a memfd (the
 * pread path with a prefetched head, as the closure reads files), and both
 * readings must agree.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;

static void check(const struct elf_info *info)
{
	if (info->elf_class != 1 && info->elf_class != 2)
		abort();
	if (info->n_needed > ELF_MAX_NEEDED || info->needed[info->n_needed])
		abort();
	for (size_t i = 0; i < info->n_needed; i++)
		if (!info->needed[i][0] || strlen(info->needed[i]) >= ELF_MAX_STRING)
			abort();
	if (info->interp && (!info->interp[0] || strlen(info->interp) >= ELF_MAX_STRING))
		abort();
}

static int same_string(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_source mem = { .fd = -1, .data = data, .size = size };
	struct elf_source file = { .size = size };
	struct elf_info *a = NULL, *b = NULL;
	struct cordon_error err = {};
	int ra, rb;

	if (memfd < 0) {
		memfd = memfd_create("fuzz-elf", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
	}
	if (ftruncate(memfd, 0) < 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	file.fd = memfd;
	file.head = data;
	file.head_len = size < ELF_HEAD_SIZE ? size : ELF_HEAD_SIZE;

	ra = elf_read_info(&mem, &a, &err);
	rb = elf_read_info(&file, &b, &err);
	if (ra != rb || (ra < 0 && ra != -ENOEXEC && ra != -ENOMEM))
		abort();
	if (ra == 0) {
		check(a);
		if (a->n_needed != b->n_needed || !same_string(a->interp, b->interp) ||
		    !same_string(a->rpath, b->rpath) || !same_string(a->runpath, b->runpath) ||
		    !same_string(a->soname, b->soname) || a->machine != b->machine)
			abort();
		for (size_t i = 0; i < a->n_needed; i++)
			if (strcmp(a->needed[i], b->needed[i]) != 0)
				abort();
	}
	elf_info_free(a);
	elf_info_free(b);
	return 0;
}
