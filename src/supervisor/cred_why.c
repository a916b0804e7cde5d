/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A request through a credential proxy, decided as the proxy would
 * (cred_why.h): which credential of the host the consumer holds, the path
 * canonicalised, the endpoint policy. The matcher is the proxy's own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cred_endpoint.h" /* the matcher the proxy decides with */
#include "cred_why.h"
#include "creds.h"
#include "errbuf.h"
#include "tools.h"

const char *cred_why_verdict_name(enum cred_why_verdict v)
{
	switch (v) {
	case CRED_WHY_TUNNEL:
		return "tunnel";
	case CRED_WHY_NOT_GRANTED:
		return "not-granted";
	case CRED_WHY_REFUSED:
		return "refused";
	case CRED_WHY_DENY:
		return "deny";
	case CRED_WHY_APPROVE:
		return "approve";
	case CRED_WHY_ALLOW:
		return "allow";
	}
	return "?";
}

static void place(struct cred_why_answer *a, const struct tool_place *pl)
{
	snprintf(a->file, sizeof(a->file), "%s", pl->file ? pl->file : "");
	snprintf(a->pointer, sizeof(a->pointer), "%s", pl->pointer ? pl->pointer : "");
	a->line = pl->line;
}

static bool at_host(const struct tool_cred *c, const char *host)
{
	for (char **h = c->hosts; *h; h++)
		if (strcasecmp(*h, host) == 0)
			return true;
	return false;
}

static const enum credtable_action actions[] = {
	[CRED_DENY] = CREDTABLE_DENY,
	[CRED_APPROVE] = CREDTABLE_APPROVE,
	[CRED_ALLOW] = CREDTABLE_ALLOW,
};

/* c's endpoint policy on method and the canonical path. */
static void decide(const struct tool_cred *c, const char *method, const char *path, struct cred_why_answer *a)
{
	struct credtable_rule rules[CREDS_MAX_RULES];
	struct credtable_policy pol = { .dflt = c->policy.set ? actions[c->policy.default_action] : CREDTABLE_ALLOW,
					.rules = rules, .n_rules = c->policy.n_rules };
	const struct credtable_rule *rule = NULL;
	enum credtable_action act;

	for (size_t i = 0; i < c->policy.n_rules; i++)
		rules[i] = (struct credtable_rule){ .action = actions[c->policy.rules[i].action],
						    .method = c->policy.rules[i].method,
						    .path = c->policy.rules[i].path,
						    .reason = c->policy.rules[i].reason ? c->policy.rules[i].reason : "" };
	act = endpoint_decide(&pol, method, path, &rule);
	a->verdict = act == CREDTABLE_DENY ? CRED_WHY_DENY : act == CREDTABLE_APPROVE ? CRED_WHY_APPROVE : CRED_WHY_ALLOW;
	if (rule) {
		const struct cred_rule *cr = &c->policy.rules[rule - rules];

		place(a, &cr->place);
		if (cr->backend)
			snprintf(a->backend, sizeof(a->backend), "%s", cr->backend);
		snprintf(a->reason, sizeof(a->reason), "%s %.200s matches %s rule %s %.100s of credential %s%s%s", method, path,
			 cred_action_name(cr->action), cr->method, cr->path, c->name, cr->reason ? ": " : "",
			 cr->reason ? cr->reason : "");
		return;
	}
	if (c->policy.set) {
		place(a, &c->policy.place);
		snprintf(a->reason, sizeof(a->reason), "%s %.200s matches no rule of credential %s: its default is %s", method,
			 path, c->name, cred_action_name(c->policy.default_action));
	} else {
		place(a, &c->place);
		snprintf(a->reason, sizeof(a->reason),
			 "credential %s has no endpoint_policy: every method and path at its hosts", c->name);
	}
}

int cred_why(const struct cordon_tools *t, const char *consumer, const char *host, const char *method,
	     const char *target, struct cred_why_answer *ret)
{
	const struct tool_creds *cs = t ? t->creds : NULL;
	const struct tool_cred *held = NULL, *other = NULL;
	struct cred_why_answer a = {};
	char path[ENDPOINT_PATH_MAX + 1];
	const char *why = NULL;

	if (!cs)
		return -ENOENT;
	if (!host || !host[0] || !method || !method[0] || !target)
		return -EINVAL;
	for (size_t i = 0; i < cs->n; i++) {
		if (!at_host(&cs->v[i], host))
			continue;
		if (!held && tool_cred_granted(&cs->v[i], consumer))
			held = &cs->v[i];
		else if (!other)
			other = &cs->v[i];
	}
	if (!held && !other) {
		a.verdict = CRED_WHY_TUNNEL;
		snprintf(a.reason, sizeof(a.reason),
			 "no credential is spent at %s: its tunnel is not intercepted (the network rules decide it)", host);
		*ret = a;
		return 0;
	}
	if (!held) {
		struct cordon_tool_sandbox sb;
		/* a tool's own sandbox (caller session): network host has no
		 * proxy to intercept it, network none reaches nothing */
		bool own = strcmp(consumer, CORDON_TOOLS_SESSION) != 0 &&
			   cordon_tools_sandbox(t, CORDON_TOOLS_SESSION, consumer, &sb) == 0;

		a.verdict = CRED_WHY_NOT_GRANTED;
		snprintf(a.credential, sizeof(a.credential), "%s", other->name);
		place(&a, &other->place);
		if (own && sb.net_set && sb.net == CORDON_NET_HOST)
			snprintf(a.reason, sizeof(a.reason),
				 "credential %s is spent at %s but not granted to %s, whose network is host: no proxy "
				 "intercepts it, so a phantom sent there reaches the upstream unrefused (worthless there); "
				 "give it network proxy to have it refused",
				 other->name, host, consumer);
		else if (own && (!sb.net_set || sb.net == CORDON_NET_NONE))
			snprintf(a.reason, sizeof(a.reason),
				 "credential %s is spent at %s but not granted to %s, whose network is none: nothing "
				 "reaches %s",
				 other->name, host, consumer, host);
		else
			snprintf(a.reason, sizeof(a.reason),
				 "credential %s is spent at %s but not granted to %s: on network proxy its proxy "
				 "intercepts %s all the same, and any phantom of the session sent there is refused (403 "
				 "credential-not-granted), a request without one passes unchanged; on network host "
				 "nothing intercepts it",
				 other->name, host, consumer, host);
		*ret = a;
		return 0;
	}
	snprintf(a.credential, sizeof(a.credential), "%s", held->name);
	if (endpoint_canon_path(target, strlen(target), path, sizeof(path), &why) < 0) {
		a.verdict = CRED_WHY_REFUSED;
		place(&a, &held->place);
		snprintf(a.reason, sizeof(a.reason), "%.200s is refused before any policy: %s (403)", target,
			 why ? why : "path-malformed");
		*ret = a;
		return 0;
	}
	decide(held, method, path, &a);
	*ret = a;
	return 0;
}

int cred_why_spent(const struct cordon_tools *t, const char *cred, const char *consumer, const char *host,
		   const char *method, const char *target, struct cred_why_answer *ret)
{
	const struct tool_cred *c = t && t->creds ? tool_creds_find(t->creds, cred) : NULL;
	struct cred_why_answer a = {};
	char path[ENDPOINT_PATH_MAX + 1];
	const char *why = NULL;

	if (!c || !tool_cred_granted(c, consumer) || !at_host(c, host))
		return -EPERM;
	snprintf(a.credential, sizeof(a.credential), "%s", c->name);
	if (endpoint_canon_path(target, strlen(target), path, sizeof(path), &why) < 0) {
		a.verdict = CRED_WHY_REFUSED;
		snprintf(a.reason, sizeof(a.reason), "%.200s is refused before any policy: %s", target,
			 why ? why : "path-malformed");
		*ret = a;
		return 0;
	}
	decide(c, method, path, &a);
	*ret = a;
	return 0;
}
