/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public face of profiles: a handle around the loader's resolved
 * struct cordon_profile, with the lists a front end reads turned into
 * read-only string vectors once, at load, so every accessor is a plain
 * read (safe from any thread). The loader itself is profile.c; this file
 * only calls what profile.h exposes.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "opts_size.h"
#include "policy.h"
#include "profile.h"
#include "profile_api.h"
#include "strv.h"
#include "tools.h"

struct cordon_profile_handle {
	struct cordon_profile *prof;
	char *asked;              /* the name_or_path given, NULL for the default */
	char *workspace, *home;   /* the opts it was loaded with (copies) */
	bool builtin_only;
	bool inspect;             /* loaded by cordon_profile_load_inspect */
	/* cordon_profile_load_buffer's bytes and file (NULL otherwise): a
	 * reload reads them again, not a file */
	char *data, *data_file;
	size_t data_len;
	/* the credential catalogue as the load resolved it, for the first
	 * policy built from the handle (policy_secrets.c); NULL once taken */
	_Atomic(struct policy_secret_memo *) secrets;
	char **lists[_CORDON_PROFILE_LIST_MAX];
};

static char *const empty_list[] = { NULL };

CORDON_API struct cordon_profile_handle *cordon_profile_free(struct cordon_profile_handle *h)
{
	if (!h)
		return NULL;
	profile_free(h->prof);
	free(h->asked);
	free(h->workspace);
	free(h->home);
	free(h->data);
	free(h->data_file);
	policy_secret_memo_free(atomic_load(&h->secrets));
	for (size_t i = 0; i < _CORDON_PROFILE_LIST_MAX; i++)
		strv_free(h->lists[i]);
	free(h);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile_handle *, cordon_profile_free)

static int rules_to_strv(const struct profile_rules *rs, char ***ret)
{
	struct strv_builder b = {};
	int r = 0;

	for (size_t i = 0; i < rs->n; i++)
		strvb_add(&b, rs->v[i].path);
	*ret = strvb_finish(&b, &r);
	return *ret ? 0 : r;
}

static int set_vars_to_strv(const struct cordon_profile *p, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	int r;

	for (size_t i = 0; i < p->n_set_vars; i++) {
		char *e = NULL;

		if (asprintf(&e, "%s=%s", p->set_vars[i].name, p->set_vars[i].value) < 0)
			return -ENOMEM;
		r = strv_consume(&v, e);
		if (r < 0)
			return r;
	}
	if (!v) {
		v = calloc(1, sizeof(char *));
		if (!v)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

static int build_lists(struct cordon_profile_handle *h)
{
	const struct cordon_profile *p = h->prof;
	const struct profile_rules *rules[] = {
		[CORDON_PROFILE_READ] = &p->read,
		[CORDON_PROFILE_WRITE] = &p->write,
		[CORDON_PROFILE_DENY_READ] = &p->deny_read,
		[CORDON_PROFILE_PROTECT] = &p->protect,
		[CORDON_PROFILE_UNIX_SOCKETS] = &p->allow_unix_sockets,
		[CORDON_PROFILE_ENV_ALLOW] = &p->allow_vars,
	};
	static const struct {
		enum cordon_profile_list list;
		enum cordon_net_rule kind;
	} net_lists[] = {
		{ CORDON_PROFILE_ALLOW_DOMAINS, CORDON_NET_ALLOW_DOMAIN },
		{ CORDON_PROFILE_DENY_DOMAINS, CORDON_NET_DENY_DOMAIN },
		{ CORDON_PROFILE_ALLOW_ADDRESSES, CORDON_NET_ALLOW_ADDRESS },
	};
	int r;

	for (size_t i = 0; i < ELEMENTSOF(rules); i++) {
		r = rules_to_strv(rules[i], &h->lists[i]);
		if (r < 0)
			return r;
	}
	/* network.mode "proxy"'s host rules; NULL reads as the empty list */
	for (size_t i = 0; i < ELEMENTSOF(net_lists); i++)
		if (p->net_rules[net_lists[i].kind] &&
		    !(h->lists[net_lists[i].list] = strv_copy((const char *const *)p->net_rules[net_lists[i].kind])))
			return -ENOMEM;
	return set_vars_to_strv(p, &h->lists[CORDON_PROFILE_ENV_SET]);
}

static bool names_a_file(const char *name)
{
	size_t n = strlen(name);

	return strchr(name, '/') || (n >= 5 && strcmp(name + n - 5, ".json") == 0);
}

/* The bytes of a profile handed over (cordon_profile_load_buffer). */
struct profile_bytes {
	const char *data;
	size_t len;
	const char *file;
};

static int load_into(const char *asked, const struct profile_bytes *bytes, const char *workspace, const char *home,
		     bool builtin_only, bool inspect, struct cordon_profile_handle **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *h = NULL;
	struct profile_env env = { .workspace = workspace, .home = home, .inspect = inspect };
	struct policy_secret_memo *memo = NULL, *prev;
	const char *name = asked ? asked : "default";
	int r;

	if (!asked)
		builtin_only = true;
	if (!*name)
		return error_set(reterr, -EINVAL, "an empty profile name");
	if (builtin_only) {
		if (names_a_file(name))
			return error_set(reterr, -EINVAL, "%s: only a built-in profile may be named here, not a file",
					 name);
		env.user_profile_dir = "";
		env.data_profile_dir = "";
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->builtin_only = builtin_only;
	h->inspect = inspect;
	if ((asked && !(h->asked = strdup(asked))) || (workspace && !(h->workspace = strdup(workspace))) ||
	    (home && !(h->home = strdup(home))))
		return -ENOMEM;
	if (bytes) {
		h->data = malloc(bytes->len ? bytes->len : 1);
		h->data_file = strdup(bytes->file ? bytes->file : "(buffer)");
		if (!h->data || !h->data_file)
			return -ENOMEM;
		if (bytes->len)
			memcpy(h->data, bytes->data, bytes->len);
		h->data_len = bytes->len;
	}
	r = policy_secret_memo_new(&memo);
	if (r < 0)
		return r;
	atomic_init(&h->secrets, memo);
	/* the load's own readers of the catalogue share one resolution */
	prev = policy_secret_memo_use(memo);
	if (bytes)
		r = profile_load_buffer(h->data, h->data_len, h->data_file, &env, &h->prof, reterr);
	else
		r = profile_load(name, &env, &h->prof, reterr);
	policy_secret_memo_use(prev);
	if (r < 0)
		return r;
	r = build_lists(h);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(h);
	return 0;
}

static int profile_opts_take(const struct cordon_profile_opts *in, struct cordon_profile_opts *out,
			     struct cordon_error *reterr)
{
	return opts_take(in, CORDON_PROFILE_OPTS_SIZE_1, out, sizeof(*out), "cordon_profile_opts", reterr);
}

CORDON_API int cordon_profile_load(const char *name_or_path, const struct cordon_profile_opts *opts,
				   struct cordon_profile_handle **ret, struct cordon_error *reterr)
{
	struct cordon_profile_opts o;

	if (!ret)
		return error_set(reterr, -EINVAL, "no place for the profile");
	int r = profile_opts_take(opts, &o, reterr);

	if (r < 0)
		return r;
	return load_into(name_or_path, NULL, o.workspace, o.home, o.builtin_only, false, ret, reterr);
}

CORDON_API int cordon_profile_load_buffer(const char *data, size_t len, const char *file,
					  const struct cordon_profile_opts *opts, struct cordon_profile_handle **ret,
					  struct cordon_error *reterr)
{
	struct cordon_profile_opts o;
	const struct profile_bytes bytes = { .data = data, .len = len, .file = file };

	if (!ret || (!data && len))
		return error_set(reterr, -EINVAL, "no place for the profile, or no bytes");
	int r = profile_opts_take(opts, &o, reterr);

	if (r < 0)
		return r;
	/* named by its file: builtin_only would refuse a name that looks like one */
	return load_into(file ? file : "(buffer)", &bytes, o.workspace, o.home, false, false, ret, reterr);
}

CORDON_API int cordon_profile_load_inspect(const char *name_or_path, const struct cordon_profile_opts *opts,
					   struct cordon_profile_handle **ret, struct cordon_error *reterr)
{
	struct cordon_profile_opts o;

	if (!ret)
		return error_set(reterr, -EINVAL, "no place for the profile");
	int r = profile_opts_take(opts, &o, reterr);

	if (r < 0)
		return r;
	return load_into(name_or_path, NULL, o.workspace, o.home, o.builtin_only, true, ret, reterr);
}

int profile_handle_reload(const struct cordon_profile_handle *h, const char *workspace,
			  struct cordon_profile_handle **ret, struct cordon_error *reterr)
{
	const struct profile_bytes bytes = { .data = h->data, .len = h->data_len, .file = h->data_file };

	return load_into(h->asked, h->data_file ? &bytes : NULL, workspace, h->home, h->builtin_only, h->inspect, ret,
			 reterr);
}

bool profile_handle_inspect_only(const struct cordon_profile_handle *h)
{
	return h->inspect;
}

const char *profile_handle_workspace_asked(const struct cordon_profile_handle *h)
{
	return h->workspace;
}

int profile_handle_policy(const struct cordon_profile_handle *h, const enum cordon_mode *mode, struct cordon_policy **ret,
			  struct cordon_error *reterr)
{
	/* the handle's one mutable field, taken once (whoever builds first) */
	struct policy_secret_memo *memo =
		atomic_exchange(&((struct cordon_profile_handle *)h)->secrets, (struct policy_secret_memo *)NULL);
	struct policy_secret_memo *prev = policy_secret_memo_use(memo);
	int r;

	r = profile_apply_mode(h->prof, mode, ret, reterr);
	policy_secret_memo_use(prev);
	policy_secret_memo_free(memo);
	return r;
}

int profile_handle_policy_home(const struct cordon_profile_handle *h, const enum cordon_mode *mode,
			       const enum cordon_home *home, struct cordon_policy **ret, struct cordon_error *reterr)
{
	struct policy_secret_memo *memo =
		atomic_exchange(&((struct cordon_profile_handle *)h)->secrets, (struct policy_secret_memo *)NULL);
	struct policy_secret_memo *prev = policy_secret_memo_use(memo);
	int r;

	r = profile_apply_home(h->prof, mode, home, ret, reterr);
	policy_secret_memo_use(prev);
	policy_secret_memo_free(memo);
	return r;
}

const struct cordon_profile *profile_handle_profile(const struct cordon_profile_handle *h)
{
	return h->prof;
}

CORDON_API const char *cordon_profile_name(const struct cordon_profile_handle *h)
{
	return h && h->prof->name ? h->prof->name : "default";
}

CORDON_API const char *cordon_profile_file(const struct cordon_profile_handle *h)
{
	return h && h->prof->file ? h->prof->file : "";
}

CORDON_API const char *cordon_profile_description(const struct cordon_profile_handle *h)
{
	return h ? h->prof->meta_description : NULL;
}

CORDON_API enum cordon_mode cordon_profile_mode(const struct cordon_profile_handle *h)
{
	return h->prof->mode;
}

CORDON_API const char *cordon_profile_workspace(const struct cordon_profile_handle *h)
{
	return h->prof->workspace;
}

CORDON_API enum cordon_net cordon_profile_net(const struct cordon_profile_handle *h)
{
	return profile_net_to_public(h->prof->net);
}

CORDON_API const char *const *cordon_profile_list(const struct cordon_profile_handle *h,
						  enum cordon_profile_list which)
{
	if (!h || (unsigned)which >= _CORDON_PROFILE_LIST_MAX)
		return NULL;
	return (const char *const *)(h->lists[which] ? h->lists[which] : empty_list);
}

#define HAS_LIMIT(l, k) (((l)->set & (1u << PROFILE_LIMIT_##k)) != 0)

CORDON_API void cordon_profile_limits(const struct cordon_profile_handle *h, struct cordon_profile_limits *ret)
{
	profile_limits_to_public(&h->prof->limits, ret);
}

void profile_limits_to_public(const struct profile_limits *l, struct cordon_profile_limits *ret)
{
	struct cordon_profile_limits o = {};

	if (HAS_LIMIT(l, TIMEOUT))
		o.timeout_ms = l->timeout_seconds * 1000u;
	if (HAS_LIMIT(l, MAX_OUTPUT))
		o.max_output = l->max_output;
	if (HAS_LIMIT(l, ON_OUTPUT_LIMIT)) {
		o.output_terminate_set = true;
		o.output_terminate = l->on_output_limit == PROFILE_OUTPUT_KILL;
	}
	if (HAS_LIMIT(l, FALLBACK)) {
		o.fallback_set = true;
		o.limits.fallback_fail = l->fallback_fail;
	}
	if (HAS_LIMIT(l, CPU))
		o.limits.cpu_seconds = l->cpu_seconds;
	if (HAS_LIMIT(l, MEMORY))
		o.limits.memory = l->memory;
	if (HAS_LIMIT(l, MAX_PROCESSES))
		o.limits.processes = l->max_processes;
	if (HAS_LIMIT(l, MAX_FILE_SIZE))
		o.limits.file_size = l->max_file_size;
	if (HAS_LIMIT(l, MAX_OPEN_FILES))
		o.limits.open_files = l->max_open_files;
	*ret = o;
}

CORDON_API const struct cordon_tools *cordon_profile_tools(const struct cordon_profile_handle *h)
{
	return h ? h->prof->tools : NULL;
}

CORDON_API int cordon_profile_to_json(const struct cordon_profile_handle *h, char **ret)
{
	if (!h || !ret)
		return -EINVAL;
	return profile_to_json(h->prof, ret);
}
