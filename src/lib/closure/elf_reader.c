/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ELF reader behind the execute-only gate: PT_INTERP, and from
 * PT_DYNAMIC the names the dynamic loader acts on (DT_NEEDED, DT_SONAME,
 * DT_RPATH, DT_RUNPATH, DT_FLAGS_1). It reads the first ELF_HEAD_SIZE
 * bytes, then only the dynamic section and the span of the string table
 * holding those names: typically two reads beyond the head.
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "elf_reader.h"
#include "error.h"

struct reader {
	const struct elf_source *src;
	bool is64;
	bool big_endian;
	unsigned reads;
};

/* A field of a 32- or 64-bit structure, in the file's byte order. */
#define FIELD(r, base, T32, T64, member)                                                      \
	get_uint((r), (base) + ((r)->is64 ? offsetof(T64, member) : offsetof(T32, member)), \
		 (r)->is64 ? sizeof(((T64 *)0)->member) : sizeof(((T32 *)0)->member))

static uint64_t get_uint(const struct reader *r, const uint8_t *p, size_t width)
{
	uint64_t v = 0;

	for (size_t i = 0; i < width; i++)
		v |= (uint64_t)p[r->big_endian ? width - 1 - i : i] << (8 * i);
	return v;
}

bool elf_has_magic(const uint8_t *buf, size_t len)
{
	return len >= SELFMAG && memcmp(buf, ELFMAG, SELFMAG) == 0;
}

/* Point *ret at n bytes of the file at off: into memory or the head when
 * they are there, else read into *buf (malloc'd, the caller frees).
 * -ERANGE when the bytes lie past the end of the file. */
static int fetch(struct reader *r, uint64_t off, uint64_t n, const uint8_t **ret, uint8_t **buf)
{
	const struct elf_source *s = r->src;
	size_t done = 0;
	uint8_t *b;

	if (off > s->size || n > s->size - off)
		return -ERANGE;
	if (s->data) {
		*ret = s->data + off;
		return 0;
	}
	if (s->head && off + n <= s->head_len) {
		*ret = s->head + off;
		return 0;
	}
	b = malloc(n ? n : 1);
	if (!b)
		return -ENOMEM;
	r->reads++;
	while (done < n) {
		ssize_t got = pread(s->fd, b + done, n - done, (off_t)(off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			int e = got < 0 ? -errno : -EIO; /* shrank since fstat */
			free(b);
			return e;
		}
		done += (size_t)got;
	}
	*buf = b;
	*ret = b;
	return 0;
}

static int fetch_error(int r, struct cordon_error *reterr, const char *what)
{
	if (r == -ERANGE)
		return error_set(reterr, -ENOEXEC, "%s lie past the end of the file", what);
	if (r == -ENOMEM)
		return r;
	return error_set(reterr, r, "cannot read %s: %s", what, strerror(-r));
}

/* The file offset of virtual address addr, through the PT_LOAD segments. */
static int vaddr_to_offset(const struct reader *r, const uint8_t *phdrs, unsigned phnum, uint64_t addr,
			   uint64_t *ret)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = phdrs + (size_t)i * entsize;
		uint64_t vaddr, filesz, offset;

		if (FIELD(r, ph, Elf32_Phdr, Elf64_Phdr, p_type) != PT_LOAD)
			continue;
		vaddr = FIELD(r, ph, Elf32_Phdr, Elf64_Phdr, p_vaddr);
		filesz = FIELD(r, ph, Elf32_Phdr, Elf64_Phdr, p_filesz);
		offset = FIELD(r, ph, Elf32_Phdr, Elf64_Phdr, p_offset);
		if (addr >= vaddr && addr - vaddr < filesz && offset + (addr - vaddr) >= offset) {
			*ret = offset + (addr - vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

/* What the dynamic section points at in the string table (offsets). */
struct dyn_names {
	uint64_t needed[ELF_MAX_NEEDED];
	size_t n_needed;
	bool has_strtab, has_strsz, has_soname, has_rpath, has_runpath;
	uint64_t strtab, strsz, soname, rpath, runpath, flags_1;
};

static int read_dynamic(struct reader *r, uint64_t off, uint64_t filesz, struct dyn_names *d,
			struct cordon_error *reterr)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	uint64_t count = filesz / entsize;
	_cleanup_free_ uint8_t *buf = NULL;
	const uint8_t *dyn;
	int k;

	if (count > ELF_MAX_DYN)
		return error_set(reterr, -ENOEXEC, "dynamic section of %llu entries (at most %d)",
				 (unsigned long long)count, ELF_MAX_DYN);
	k = fetch(r, off, count * entsize, &dyn, &buf);
	if (k < 0)
		return fetch_error(k, reterr, "the dynamic section's entries");

	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *e = dyn + i * entsize;
		uint64_t tag = FIELD(r, e, Elf32_Dyn, Elf64_Dyn, d_tag);
		uint64_t val = FIELD(r, e, Elf32_Dyn, Elf64_Dyn, d_un.d_val);

		/* As glibc's loader: the last entry of a tag wins, except
		 * DT_NEEDED, which accumulates. */
		switch (tag) {
		case DT_NULL:
			return 0;
		case DT_NEEDED:
			if (d->n_needed >= ELF_MAX_NEEDED)
				return error_set(reterr, -ENOEXEC, "more than %d DT_NEEDED entries", ELF_MAX_NEEDED);
			d->needed[d->n_needed++] = val;
			break;
		case DT_STRTAB:
			d->has_strtab = true;
			d->strtab = val;
			break;
		case DT_STRSZ:
			d->has_strsz = true;
			d->strsz = val;
			break;
		case DT_SONAME:
			d->has_soname = true;
			d->soname = val;
			break;
		case DT_RPATH:
			d->has_rpath = true;
			d->rpath = val;
			break;
		case DT_RUNPATH:
			d->has_runpath = true;
			d->runpath = val;
			break;
		case DT_FLAGS_1:
			d->flags_1 = val;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Copy the NUL-terminated string at offset o of the string table, whose
 * bytes [lo, lo + len) are at span. */
static int take_string(const uint8_t *span, uint64_t lo, uint64_t len, uint64_t o, char **ret,
		       struct cordon_error *reterr)
{
	const uint8_t *p = span + (o - lo);
	uint64_t avail = lo + len - o;
	const uint8_t *nul = memchr(p, '\0', avail < ELF_MAX_STRING ? avail : ELF_MAX_STRING);
	char *s;

	if (!nul)
		return error_set(reterr, -ENOEXEC,
				 "string at offset %llu of the dynamic string table is not terminated within %d bytes",
				 (unsigned long long)o, ELF_MAX_STRING);
	s = strndup((const char *)p, (size_t)(nul - p));
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

/* Copy the strings the dynamic section names into info. */
static int read_strings(struct reader *r, const uint8_t *phdrs, unsigned phnum, const struct dyn_names *d,
			struct elf_info *info, struct cordon_error *reterr)
{
	uint64_t offs[ELF_MAX_NEEDED + 3], lo = UINT64_MAX, hi = 0, stroff, bound;
	char **dst[ELF_MAX_NEEDED + 3];
	size_t n = 0;
	_cleanup_free_ uint8_t *buf = NULL;
	const uint8_t *span = NULL;
	uint64_t span_len = 0;
	int k;

	for (size_t i = 0; i < d->n_needed; i++) {
		offs[n] = d->needed[i];
		dst[n++] = &info->needed[i];
	}
	if (d->has_soname) {
		offs[n] = d->soname;
		dst[n++] = &info->soname;
	}
	if (d->has_rpath) {
		offs[n] = d->rpath;
		dst[n++] = &info->rpath;
	}
	if (d->has_runpath) {
		offs[n] = d->runpath;
		dst[n++] = &info->runpath;
	}
	if (n == 0)
		return 0;

	if (!d->has_strtab)
		return error_set(reterr, -ENOEXEC, "the dynamic section names strings but has no DT_STRTAB");
	if (vaddr_to_offset(r, phdrs, phnum, d->strtab, &stroff) < 0)
		return error_set(reterr, -ENOEXEC, "DT_STRTAB (0x%llx) is not in any loaded segment",
				 (unsigned long long)d->strtab);
	if (stroff > r->src->size)
		return error_set(reterr, -ENOEXEC, "the dynamic string table lies past the end of the file");
	bound = r->src->size - stroff;
	if (d->has_strsz) {
		if (d->strsz > bound)
			return error_set(reterr, -ENOEXEC, "the dynamic string table lies past the end of the file");
		bound = d->strsz;
	}
	for (size_t i = 0; i < n; i++) {
		if (offs[i] >= bound)
			return error_set(reterr, -ENOEXEC,
					 "string offset %llu is outside the dynamic string table (%llu bytes)",
					 (unsigned long long)offs[i], (unsigned long long)bound);
		lo = offs[i] < lo ? offs[i] : lo;
		hi = offs[i] > hi ? offs[i] : hi;
	}

	/* The names sit close together in practice: one read for all. */
	if (hi - lo <= ELF_MAX_STRTAB_SPAN) {
		span_len = bound - lo < hi - lo + ELF_MAX_STRING ? bound - lo : hi - lo + ELF_MAX_STRING;
		k = fetch(r, stroff + lo, span_len, &span, &buf);
		if (k < 0)
			return fetch_error(k, reterr, "the dynamic string table's names");
		for (size_t i = 0; i < n; i++) {
			k = take_string(span, lo, span_len, offs[i], dst[i], reterr);
			if (k < 0)
				return k;
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ uint8_t *one = NULL;
		uint64_t len = bound - offs[i] < ELF_MAX_STRING ? bound - offs[i] : ELF_MAX_STRING;

		k = fetch(r, stroff + offs[i], len, &span, &one);
		if (k < 0)
			return fetch_error(k, reterr, "the dynamic string table's names");
		k = take_string(span, offs[i], len, offs[i], dst[i], reterr);
		if (k < 0)
			return k;
	}
	return 0;
}

static int read_interp(struct reader *r, const uint8_t *ph, struct elf_info *info, struct cordon_error *reterr)
{
	uint64_t off = FIELD(r, ph, Elf32_Phdr, Elf64_Phdr, p_offset);
	uint64_t len = FIELD(r, ph, Elf32_Phdr, Elf64_Phdr, p_filesz);
	_cleanup_free_ uint8_t *buf = NULL;
	const uint8_t *p;
	int k;

	if (len < 2 || len > ELF_MAX_STRING)
		return error_set(reterr, -ENOEXEC, "PT_INTERP of %llu bytes (2 to %d)", (unsigned long long)len,
				 ELF_MAX_STRING);
	k = fetch(r, off, len, &p, &buf);
	if (k < 0)
		return fetch_error(k, reterr, "PT_INTERP's bytes");
	/* The kernel refuses an interpreter path that is not NUL-terminated. */
	if (p[len - 1] != '\0' || p[0] == '\0')
		return error_set(reterr, -ENOEXEC, "PT_INTERP is empty or not NUL-terminated");
	info->interp = strdup((const char *)p);
	return info->interp ? 0 : -ENOMEM;
}

struct elf_info *elf_info_free(struct elf_info *info)
{
	if (!info)
		return NULL;
	for (size_t i = 0; i < info->n_needed; i++)
		free(info->needed[i]);
	free(info->needed);
	free(info->interp);
	free(info->soname);
	free(info->rpath);
	free(info->runpath);
	free(info);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct elf_info *, elf_info_free);

/* The header fields that matter, checked. */
struct ehdr_view {
	uint64_t phoff;
	unsigned phnum;
};

static int read_ehdr(struct reader *r, const uint8_t *head, size_t head_len, struct elf_info *info,
		     struct ehdr_view *ret, struct cordon_error *reterr)
{
	size_t ehsize, phentsize;
	uint64_t phnum;

	if (!elf_has_magic(head, head_len))
		return error_set(reterr, -ENOEXEC, "not an ELF file");
	if (head_len < EI_NIDENT)
		return error_set(reterr, -ENOEXEC, "truncated ELF header (%zu bytes)", head_len);
	if (head[EI_CLASS] != ELFCLASS32 && head[EI_CLASS] != ELFCLASS64)
		return error_set(reterr, -ENOEXEC, "unknown ELF class %u", head[EI_CLASS]);
	if (head[EI_DATA] != ELFDATA2LSB && head[EI_DATA] != ELFDATA2MSB)
		return error_set(reterr, -ENOEXEC, "unknown ELF byte order %u", head[EI_DATA]);
	if (head[EI_VERSION] != EV_CURRENT)
		return error_set(reterr, -ENOEXEC, "unknown ELF version %u", head[EI_VERSION]);
	r->is64 = head[EI_CLASS] == ELFCLASS64;
	r->big_endian = head[EI_DATA] == ELFDATA2MSB;
	info->elf_class = head[EI_CLASS];
	info->data = head[EI_DATA];
	info->osabi = head[EI_OSABI];

	ehsize = r->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (head_len < ehsize)
		return error_set(reterr, -ENOEXEC, "truncated ELF header (%zu of %zu bytes)", head_len, ehsize);
	info->type = (uint16_t)FIELD(r, head, Elf32_Ehdr, Elf64_Ehdr, e_type);
	info->machine = (uint16_t)FIELD(r, head, Elf32_Ehdr, Elf64_Ehdr, e_machine);
	if (info->type != ET_EXEC && info->type != ET_DYN)
		return error_set(reterr, -ENOEXEC, "not an executable or a shared object (ELF type %u)", info->type);
	if (FIELD(r, head, Elf32_Ehdr, Elf64_Ehdr, e_version) != EV_CURRENT)
		return error_set(reterr, -ENOEXEC, "unknown ELF version in e_version");

	phentsize = FIELD(r, head, Elf32_Ehdr, Elf64_Ehdr, e_phentsize);
	phnum = FIELD(r, head, Elf32_Ehdr, Elf64_Ehdr, e_phnum);
	if (phentsize != (r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return error_set(reterr, -ENOEXEC, "program header entries of %zu bytes (expected %zu)", phentsize,
				 r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
	if (phnum == 0 || phnum > ELF_MAX_PHNUM)
		return error_set(reterr, -ENOEXEC, "%llu program headers (1 to %d)", (unsigned long long)phnum,
				 ELF_MAX_PHNUM);
	*ret = (struct ehdr_view){
		.phoff = FIELD(r, head, Elf32_Ehdr, Elf64_Ehdr, e_phoff),
		.phnum = (unsigned)phnum,
	};
	return 0;
}

int elf_read_info(const struct elf_source *src, struct elf_info **ret, struct cordon_error *reterr)
{
	struct reader r = { .src = src };
	_cleanup_(elf_info_freep) struct elf_info *info = NULL;
	_cleanup_free_ uint8_t *headbuf = NULL, *phbuf = NULL;
	_cleanup_free_ struct dyn_names *names = NULL;
	const uint8_t *head, *phdrs, *dynamic = NULL;
	size_t head_len, entsize;
	struct ehdr_view eh = {};
	int k;

	if (src->data) {
		head = src->data;
		head_len = src->size < ELF_HEAD_SIZE ? (size_t)src->size : ELF_HEAD_SIZE;
	} else if (src->head) {
		head = src->head;
		head_len = src->head_len;
	} else {
		k = fetch(&r, 0, src->size < ELF_HEAD_SIZE ? src->size : ELF_HEAD_SIZE, &head, &headbuf);
		if (k < 0)
			return fetch_error(k, reterr, "the ELF header's bytes");
		head_len = src->size < ELF_HEAD_SIZE ? (size_t)src->size : ELF_HEAD_SIZE;
	}

	info = calloc(1, sizeof(*info));
	if (!info)
		return -ENOMEM;
	k = read_ehdr(&r, head, head_len, info, &eh, reterr);
	if (k < 0)
		return k;

	entsize = r.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	k = fetch(&r, eh.phoff, (uint64_t)eh.phnum * entsize, &phdrs, &phbuf);
	if (k < 0)
		return fetch_error(k, reterr, "the program headers");

	for (unsigned i = 0; i < eh.phnum; i++) {
		const uint8_t *ph = phdrs + (size_t)i * entsize;
		uint64_t type = FIELD(&r, ph, Elf32_Phdr, Elf64_Phdr, p_type);

		/* The kernel takes the first PT_INTERP. Two PT_DYNAMIC are
		 * ambiguous (the loader takes the last): refused. */
		if (type == PT_INTERP && !info->interp) {
			k = read_interp(&r, ph, info, reterr);
			if (k < 0)
				return k;
		} else if (type == PT_DYNAMIC) {
			if (dynamic)
				return error_set(reterr, -ENOEXEC, "more than one PT_DYNAMIC");
			dynamic = ph;
		}
	}

	names = calloc(1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	if (dynamic) {
		info->dynamic = true;
		k = read_dynamic(&r, FIELD(&r, dynamic, Elf32_Phdr, Elf64_Phdr, p_offset),
				 FIELD(&r, dynamic, Elf32_Phdr, Elf64_Phdr, p_filesz), names, reterr);
		if (k < 0)
			return k;
	}
	info->needed = calloc(names->n_needed + 1, sizeof(char *));
	if (!info->needed)
		return -ENOMEM;
	info->n_needed = names->n_needed;
	k = read_strings(&r, phdrs, eh.phnum, names, info, reterr);
	if (k < 0)
		return k;
	for (size_t i = 0; i < info->n_needed; i++)
		if (info->needed[i][0] == '\0')
			return error_set(reterr, -ENOEXEC, "an empty DT_NEEDED name");
	info->flags_1 = names->flags_1;
	info->reads = r.reads;
	*ret = TAKE_PTR(info);
	return 0;
}

bool elf_info_compatible(const struct elf_info *a, const struct elf_info *b)
{
	return a->elf_class == b->elf_class && a->data == b->data && a->machine == b->machine;
}
