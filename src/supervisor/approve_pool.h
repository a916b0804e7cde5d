/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The threads that ask approvals (approve_pool.c): a bounded pool, never a
 * thread per approval. At most `workers` threads (made as they are first
 * needed), at most `max_pending` approvals queued or being asked in all, and
 * at most `per_key` of them for one key (a sandbox: the caller's name), so
 * that one sandbox asking without end neither makes threads nor crowds out
 * the others. A job over a cap is refused at once (-EBUSY); the caller
 * denies it with a reason.
 */

#include <stdbool.h>
#include <stddef.h>

/* The supervisor's caps. */
#define APPROVE_POOL_WORKERS	 4
#define APPROVE_POOL_PER_SANDBOX 8
#define APPROVE_POOL_PENDING	 32
#define APPROVE_POOL_KEY_MAX	 128 /* bytes of a key, with the NUL */

struct approve_pool;

int approve_pool_new(unsigned workers, unsigned per_key, unsigned max_pending, struct approve_pool **ret);

/*
 * Queue fn(arg) for a worker, counted against key: 0, or -EBUSY (key has
 * per_key pending: *ret_whole false; or the pool has max_pending:
 * *ret_whole true), -ENAMETOOLONG, -ENOMEM, or -EAGAIN (no thread could
 * be made and none runs). fn runs on a worker thread, with every signal
 * blocked; the job no longer counts once fn has returned.
 */
int approve_pool_submit(struct approve_pool *p, const char *key, void (*fn)(void *arg), void *arg, bool *ret_whole);

/* Jobs queued or being asked, for key (NULL: all). */
unsigned approve_pool_pending(struct approve_pool *p, const char *key);
/* Threads made so far. */
unsigned approve_pool_threads(struct approve_pool *p);

/*
 * Stop: jobs still queued are dropped (never run). With no job being
 * asked, the workers are joined and the pool freed; else the workers are
 * left to end on their own and the pool with them (a terminal prompt may
 * be up for hours; the process is about to exit). NULL is fine.
 */
void approve_pool_free(struct approve_pool *p);
