/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* identity_hasher.h: one thread, jobs in order, a waited-for one first. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "identity_hasher.h"

enum job_state {
	JOB_PENDING,
	JOB_HASHING,
	JOB_DONE,
	JOB_CHANGED, /* the file changed while it was read */
	JOB_FAILED,  /* error holds why */
};

struct job {
	int fd;
	struct file_identity id; /* as at start; sha256 once JOB_DONE */
	enum job_state state;
	int error;
	bool wanted; /* a call waits for it */
};

struct identity_hasher {
	pthread_mutex_t lock;
	pthread_cond_t done; /* a job reached a final state */
	pthread_t thread;
	bool started;
	atomic_bool stop;
	struct job *jobs;
	size_t n, cap;
};

int identity_hasher_new(size_t n, struct identity_hasher **ret)
{
	struct identity_hasher *h = calloc(1, sizeof(*h));
	pthread_condattr_t ca;

	if (!h)
		return -ENOMEM;
	h->jobs = calloc(n ? n : 1, sizeof(*h->jobs));
	if (!h->jobs) {
		free(h);
		return -ENOMEM;
	}
	h->cap = n;
	/* waits are bounded on the monotonic clock */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->done, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&h->lock, NULL);
	*ret = h;
	return 0;
}

int identity_hasher_add(struct identity_hasher *h, int fd, const struct file_identity *id, size_t *ret_job)
{
	if (h->started || h->n == h->cap) {
		close(fd);
		return h->started ? -EBUSY : -ENOSPC;
	}
	h->jobs[h->n] = (struct job){.fd = fd, .id = *id, .state = JOB_PENDING};
	*ret_job = h->n++;
	return 0;
}

/* Under the lock: the next job to hash, a wanted one first; NULL when
 * there is none or the hasher is stopping. */
static struct job *next_job(struct identity_hasher *h)
{
	struct job *first = NULL;

	if (atomic_load(&h->stop))
		return NULL;
	for (size_t i = 0; i < h->n; i++) {
		struct job *j = &h->jobs[i];

		if (j->state != JOB_PENDING)
			continue;
		if (j->wanted)
			return j;
		if (!first)
			first = j;
	}
	return first;
}

/* Not under the lock: j is JOB_HASHING, this thread's alone. */
static enum job_state hash_job(struct identity_hasher *h, struct job *j, uint8_t out[SHA256_BYTES], int *ret_error)
{
	struct stat st;
	int r = sha256_fd_until(j->fd, IDENTITY_MAX_BYTES, &h->stop, out);

	if (r >= 0 && fstat(j->fd, &st) < 0)
		r = -errno;
	if (r < 0) {
		*ret_error = r;
		return JOB_FAILED;
	}
	/* the fd is the recorded file (dev, inode) by construction: what
	 * can have moved is its size and times */
	return identity_times_match(&st, &j->id) ? JOB_DONE : JOB_CHANGED;
}

static void *hasher_main(void *arg)
{
	struct identity_hasher *h = arg;
	struct job *j;

	pthread_mutex_lock(&h->lock);
	while ((j = next_job(h))) {
		uint8_t digest[SHA256_BYTES];
		enum job_state s;
		int error = 0;

		j->state = JOB_HASHING;
		pthread_mutex_unlock(&h->lock);
		s = hash_job(h, j, digest, &error);
		pthread_mutex_lock(&h->lock);
		if (s == JOB_DONE)
			memcpy(j->id.sha256, digest, sizeof(digest));
		j->state = s;
		j->error = error;
		close(j->fd);
		j->fd = -1;
		pthread_cond_broadcast(&h->done);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int identity_hasher_start(struct identity_hasher *h)
{
	sigset_t all, old;
	int r;

	if (h->started)
		return -EBUSY;
	/* signals are the event loop's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&h->thread, NULL, hasher_main, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return -r;
	h->started = true;
	return 0;
}

static void deadline_after(uint64_t ms, struct timespec *ret)
{
	clock_gettime(CLOCK_MONOTONIC, ret);
	ret->tv_sec += (time_t)(ms / 1000);
	ret->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ret->tv_nsec >= 1000000000) {
		ret->tv_sec++;
		ret->tv_nsec -= 1000000000;
	}
}

int identity_hasher_wait(struct identity_hasher *h, size_t job, uint64_t timeout_ms, uint8_t out[SHA256_BYTES],
			 char *why, size_t n)
{
	struct timespec deadline;
	struct job *j;
	int r = 0;

	if (!h || job >= h->n) {
		snprintf(why, n, "it was not hashed at session start");
		return -ENOENT;
	}
	deadline_after(timeout_ms, &deadline);
	pthread_mutex_lock(&h->lock);
	j = &h->jobs[job];
	j->wanted = true;
	while (h->started && (j->state == JOB_PENDING || j->state == JOB_HASHING) && r == 0)
		r = pthread_cond_timedwait(&h->done, &h->lock, &deadline);
	switch (j->state) {
	case JOB_DONE:
		memcpy(out, j->id.sha256, SHA256_BYTES);
		r = 0;
		break;
	case JOB_CHANGED:
		snprintf(why, n, "it changed while it was hashed at session start");
		r = -ESTALE;
		break;
	case JOB_FAILED:
		snprintf(why, n, "its SHA-256 at session start failed: %s", strerror(-j->error));
		r = j->error;
		break;
	case JOB_PENDING:
	case JOB_HASHING:
		snprintf(why, n, "its SHA-256 from session start is not ready after %llu ms",
			 (unsigned long long)timeout_ms);
		r = -ETIMEDOUT;
		break;
	}
	pthread_mutex_unlock(&h->lock);
	return r;
}

struct identity_hasher *identity_hasher_free(struct identity_hasher *h)
{
	if (!h)
		return NULL;
	if (h->started) {
		atomic_store(&h->stop, true);
		pthread_join(h->thread, NULL);
	}
	for (size_t i = 0; i < h->n; i++)
		if (h->jobs[i].fd >= 0)
			close(h->jobs[i].fd);
	pthread_cond_destroy(&h->done);
	pthread_mutex_destroy(&h->lock);
	free(h->jobs);
	free(h);
	return NULL;
}
