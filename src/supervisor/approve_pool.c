/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A bounded pool of approval threads (approve_pool.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "approve_pool.h"

struct job {
	void (*fn)(void *arg);
	void *arg;
	char key[APPROVE_POOL_KEY_MAX];
	struct job *next;
};

struct key_count {
	char key[APPROVE_POOL_KEY_MAX];
	unsigned n;
};

struct approve_pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	unsigned workers, per_key, max_pending;
	pthread_t *threads;
	unsigned n_threads, idle, busy, pending;
	struct job *head, *tail;
	struct key_count *keys; /* max_pending slots; n == 0: free */
	bool stop;
};

int approve_pool_new(unsigned workers, unsigned per_key, unsigned max_pending, struct approve_pool **ret)
{
	struct approve_pool *p;

	if (workers == 0 || per_key == 0 || max_pending == 0)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->threads = calloc(workers, sizeof(*p->threads));
	p->keys = calloc(max_pending, sizeof(*p->keys));
	if (!p->threads || !p->keys || pthread_mutex_init(&p->lock, NULL) != 0) {
		free(p->threads);
		free(p->keys);
		free(p);
		return -ENOMEM;
	}
	if (pthread_cond_init(&p->wake, NULL) != 0) {
		pthread_mutex_destroy(&p->lock);
		free(p->threads);
		free(p->keys);
		free(p);
		return -ENOMEM;
	}
	p->workers = workers;
	p->per_key = per_key;
	p->max_pending = max_pending;
	*ret = p;
	return 0;
}

/* Under p->lock. */
static struct key_count *find_key(struct approve_pool *p, const char *key, bool make)
{
	struct key_count *free_slot = NULL;

	for (unsigned i = 0; i < p->max_pending; i++) {
		if (p->keys[i].n && strcmp(p->keys[i].key, key) == 0)
			return &p->keys[i];
		if (!p->keys[i].n && !free_slot)
			free_slot = &p->keys[i];
	}
	if (make && free_slot)
		memcpy(free_slot->key, key, strlen(key) + 1);
	return make ? free_slot : NULL;
}

static void pool_destroy(struct approve_pool *p)
{
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p->threads);
	free(p->keys);
	free(p);
}

static void *worker_main(void *arg)
{
	struct approve_pool *p = arg;
	bool last;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct job *j;
		struct key_count *k;

		while (!p->head && !p->stop) {
			p->idle++;
			pthread_cond_wait(&p->wake, &p->lock);
			p->idle--;
		}
		if (p->stop)
			break;
		j = p->head;
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		p->busy++;
		pthread_mutex_unlock(&p->lock);
		j->fn(j->arg);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		p->pending--;
		k = find_key(p, j->key, false);
		if (k)
			k->n--;
		free(j);
	}
	/* stopped while others were still asking: the last one out frees */
	p->n_threads--;
	last = p->n_threads == 0 && p->stop == true && p->threads == NULL;
	pthread_mutex_unlock(&p->lock);
	if (last)
		pool_destroy(p);
	return NULL;
}

int approve_pool_submit(struct approve_pool *p, const char *key, void (*fn)(void *arg), void *arg, bool *ret_whole)
{
	struct key_count *k;
	struct job *j;
	int r = 0;

	if (strlen(key) >= APPROVE_POOL_KEY_MAX)
		return -ENAMETOOLONG;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	*j = (struct job){ .fn = fn, .arg = arg };
	memcpy(j->key, key, strlen(key) + 1);
	pthread_mutex_lock(&p->lock);
	k = find_key(p, key, false);
	if (k && k->n >= p->per_key) {
		*ret_whole = false;
		r = -EBUSY;
	} else if (p->pending >= p->max_pending) {
		*ret_whole = true;
		r = -EBUSY;
	}
	if (r == 0 && p->idle == 0 && p->n_threads < p->workers) {
		sigset_t all, old;
		int e;

		/* signals stay with the loop's thread */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		e = pthread_create(&p->threads[p->n_threads], NULL, worker_main, p);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (e == 0)
			p->n_threads++;
		else if (p->n_threads == 0)
			r = -EAGAIN;
	}
	if (r < 0) {
		pthread_mutex_unlock(&p->lock);
		free(j);
		return r;
	}
	k = find_key(p, key, true); /* a slot is free: pending < max_pending */
	k->n++;
	p->pending++;
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

unsigned approve_pool_pending(struct approve_pool *p, const char *key)
{
	struct key_count *k;
	unsigned n;

	pthread_mutex_lock(&p->lock);
	k = key ? find_key(p, key, false) : NULL;
	n = key ? (k ? k->n : 0) : p->pending;
	pthread_mutex_unlock(&p->lock);
	return n;
}

unsigned approve_pool_threads(struct approve_pool *p)
{
	unsigned n;

	pthread_mutex_lock(&p->lock);
	n = p->n_threads;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void approve_pool_free(struct approve_pool *p)
{
	pthread_t *threads;
	unsigned n;
	bool busy;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	while (p->head) {
		struct job *j = p->head;

		p->head = j->next;
		free(j);
	}
	p->tail = NULL;
	busy = p->busy > 0;
	threads = p->threads;
	n = p->n_threads;
	if (busy)
		p->threads = NULL; /* the last worker out frees the pool */
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	if (busy) {
		for (unsigned i = 0; i < n; i++)
			pthread_detach(threads[i]);
		free(threads);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	pool_destroy(p);
}
