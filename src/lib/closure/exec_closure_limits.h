/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The execute-closure's limits and counters: part of its API
 * (exec_closure.h) and used by the memo and the loader's rules below it,
 * which must not include the API they serve. */

/* Interpreter hops the kernel follows from one execve: fs/exec.c's
 * exec_binprm fails with ELOOP when depth > 5 (its comment says "4 levels
 * of binfmt rewrites"; measured here: five scripts in a chain run, a sixth
 * is ELOOP, and the unit test compares with the running kernel). */
#define EXEC_CLOSURE_MAX_INTERP_DEPTH 5
/* Files in the closure of one added path. */
#define EXEC_CLOSURE_MAX_FILES 4096
/* The search path when the caller gives none. */
#define EXEC_CLOSURE_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

struct exec_closure_stats {
	unsigned long adds;            /* exec_closure_add / _of calls */
	unsigned long adds_memoised;   /* ... answered from an earlier add */
	unsigned long opens;           /* files opened (objects and ld.so.cache) */
	unsigned long reads;           /* reads of their bytes */
	unsigned long elf_parses;      /* ELF files parsed */
	unsigned long script_parses;   /* "#!" lines parsed */
	unsigned long unique_objects;  /* distinct files (st_dev, st_ino) opened */
	unsigned long identity_hits;   /* a new path found to be a known file, not reopened */
	unsigned long resolves;        /* paths resolved with lstat (not memoised yet) */
	unsigned long resolve_hits;    /* ... answered from the memo */
	unsigned long lookups;         /* library lookups in a directory done with syscalls */
	unsigned long lookup_hits;     /* ... answered from the memo */
	unsigned long ldcache_loads;   /* times ld.so.cache was read (1 at most) */
};
