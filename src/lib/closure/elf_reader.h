/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"

/* What executing an ELF file needs from it, read from its headers only:
 * the program interpreter and the dynamic section's names. 32 and 64 bit,
 * either byte order. Everything in the file is untrusted: every count,
 * offset and string is bounded below, and a file that breaks a bound is
 * refused with -ENOEXEC and the reason. */

/* The first read: the ELF header and, in every file seen in practice, the
 * program headers and PT_INTERP. */
#define ELF_HEAD_SIZE 4096
/* Program headers: the kernel refuses tables over 64 KiB; 1024 entries of
 * 56 bytes stay below that. */
#define ELF_MAX_PHNUM 1024
/* PT_DYNAMIC entries (real objects have fewer than 100). */
#define ELF_MAX_DYN 4096
/* DT_NEEDED entries of one object. */
#define ELF_MAX_NEEDED 256
/* Longest string taken from a file (PT_INTERP, a DT_NEEDED name, an RPATH),
 * NUL included: PATH_MAX. */
#define ELF_MAX_STRING 4096
/* Strings within this span of the string table are read in one go. */
#define ELF_MAX_STRTAB_SPAN (64 * 1024)

/* Where the bytes come from: an fd read with pread, or memory (tests,
 * fuzzing). head, when set, holds the file's first head_len bytes already
 * read (the caller looked at the magic), so they are not read again. */
struct elf_source {
	int fd;
	const uint8_t *data; /* the whole file; NULL: read fd */
	uint64_t size;       /* the file's size */
	const uint8_t *head;
	size_t head_len;
};

struct elf_info {
	uint8_t elf_class; /* ELFCLASS32 or ELFCLASS64 */
	uint8_t data;      /* ELFDATA2LSB or ELFDATA2MSB */
	uint8_t osabi;
	uint16_t type;     /* ET_EXEC or ET_DYN */
	uint16_t machine;  /* EM_* */
	bool dynamic;      /* has PT_DYNAMIC */
	char *interp;      /* PT_INTERP, or NULL */
	char *soname;      /* DT_SONAME, or NULL */
	char *rpath;       /* DT_RPATH, or NULL */
	char *runpath;     /* DT_RUNPATH, or NULL */
	char **needed;     /* DT_NEEDED in order, NULL-terminated, never NULL */
	size_t n_needed;
	uint64_t flags_1;  /* DT_FLAGS_1 (DF_1_NODEFLIB matters here) */
	unsigned reads;    /* reads it took beyond head */
};

/* True if buf (len bytes) starts with the ELF magic. */
bool elf_has_magic(const uint8_t *buf, size_t len);

/* Read src's headers. -ENOEXEC (reason in reterr) for anything malformed or
 * past a bound, -EIO when the file shrank while being read. */
int elf_read_info(const struct elf_source *src, struct elf_info **ret, struct cordon_error *reterr);
struct elf_info *elf_info_free(struct elf_info *info);

/* Whether b can be loaded into a process whose objects look like a: same
 * class, byte order and machine (glibc skips other objects and searches on). */
bool elf_info_compatible(const struct elf_info *a, const struct elf_info *b);
