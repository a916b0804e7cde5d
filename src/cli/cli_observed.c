/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The denials cordon itself observed during a run, read from the run's
 * status channel (cordon/classify.h): what init's gates refused (source
 * "kernel") and what the proxy refused (source "proxy"), as the result's
 * denials. Trusted: only cordon's processes hold that channel, never the
 * command, so these are listed whatever the command's exit code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"

/* The record's fields after the tag, split in place: up to max. */
static size_t fields(char *rec, char **v, size_t max)
{
	size_t n = 0;

	for (char *p = rec; n < max;) {
		v[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

/* "tcp:ADDRESS:PORT", the unix gate's refused TCP connect (light
 * isolation), or --net allow's gate refusing a host and port by its rules. */
static json_t *tcp_denial(const char *target, const char *mechanism)
{
	const char *addr = target + 4, *colon = strrchr(addr, ':');
	bool allow = strcmp(mechanism, "net-allow") == 0;
	char *end = NULL;
	long port = colon ? strtol(colon + 1, &end, 10) : -1;

	if (!colon || !end || *end || port < 0 || port > 65535)
		return NULL;
	return json_pack("{s:s,s:n,s:s,s:s,s:s,s:s,s:s%,s:i,s:s}", "kind", "network", "path", "op", "connect", "rule",
			 allow ? "--allow-domain / network.allow_domains" : "--isolation light (no network namespace: TCP is refused)",
			 "mechanism", mechanism, "reason",
			 allow ? "--net allow's rules do not admit this host and port"
			       : "the sandbox shares the host's network: TCP connections are refused",
			 "host", addr, (size_t)(colon - addr), "port", (int)port, "source", "kernel");
}

/* "MECHANISM OP PATH" from init's gates: why's rule where it denies the
 * same, else the gate itself. */
static json_t *kernel_denial(const struct cordon_why *why, const char *mechanism, const char *op_name,
			     const char *target)
{
	struct cordon_why_decision d = {};
	enum cordon_op op;
	_cleanup_free_ char *line = NULL;
	json_t *o;

	if (strncmp(target, "tcp:", 4) == 0)
		return tcp_denial(target, mechanism);
	if (strcmp(op_name, "resolve") == 0 && strchr(target, ' ') == NULL)
		/* --net allow's resolver: a name the policy does not allow */
		return json_pack("{s:s,s:n,s:s,s:s,s:s,s:s,s:s,s:s}", "kind", "network", "path", "op", "resolve", "rule",
				 "--allow-domain / network.allow_domains", "mechanism", mechanism, "reason",
				 "the sandbox's resolver answers only names the policy allows (NXDOMAIN)", "host", target,
				 "source", "kernel");
	if (target[0] != '/')
		return NULL;
	if (strcmp(op_name, "connect") == 0) {
		/* a host socket the unix gate refused: what would admit it */
		if (asprintf(&line, "cordon: %s: refused connect %s", mechanism, target) < 0)
			line = NULL;
		return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s?,s:s}", "kind", "path", "path", target, "op", "connect",
				 "rule", "--allow-unix-socket / network.allow_unix_sockets", "mechanism", mechanism,
				 "reason",
				 "a host socket: the sandbox connects only to its own sockets and those "
				 "--allow-unix-socket (or network.allow_unix_sockets) names",
				 "line", line, "source", "kernel");
	}
	if (cordon_op_from_string(op_name, &op) < 0)
		return NULL;
	if (!why || cordon_why_path(why, target, op, &d) < 0 || d.allow) {
		d = (struct cordon_why_decision){};
		snprintf(d.file, sizeof(d.file), "(built-in)");
		snprintf(d.reason, sizeof(d.reason), "cordon's %s refused it", mechanism);
	}
	if (asprintf(&line, "cordon: %s: refused %s %s", mechanism, op_name, target) < 0)
		line = NULL;
	o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s?,s:s}", "kind", "path", "path", target, "op", op_name, "rule",
		      d.pointer[0] ? d.pointer : mechanism, "mechanism", mechanism, "reason", d.reason, "file", d.file,
		      "line", line, "source", "kernel");
	return o;
}

bool cli_observed_any(const struct cordon_result *res)
{
	static const char tag[] = CORDON_STATUS_DENIAL_TAG "\t";

	return res->status && (cordon_status_is_denial(res->status, res->status_len) ||
			       memmem(res->status, res->status_len, "\n" CORDON_STATUS_DENIAL_TAG "\t", sizeof(tag)));
}

void cli_observed_denials(json_t *denials, const struct cordon_result *res, const struct cordon_why *why,
			  const struct cli_args *a, const struct cordon_profile_handle *prof, const char *net_rule)
{
	const char *s = res->status, *end = s ? s + res->status_len : NULL;

	while (s && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);
		_cleanup_free_ char *rec = NULL;
		char *v[5];
		size_t k;

		if (!cordon_status_is_denial(s, n) || n > CORDON_STATUS_DENIAL_MAX || !(rec = strndup(s, n))) {
			s += n + 1;
			continue;
		}
		s += n + 1;
		k = fields(rec + strlen(CORDON_STATUS_DENIAL_TAG) + 1, v, 5);
		if (k == 2 && strcmp(v[0], "proxy") == 0) {
			size_t before = json_array_size(denials);

			cli_net_denials(denials, v[1], strlen(v[1]), a, prof, net_rule);
			for (size_t i = before; i < json_array_size(denials); i++)
				json_object_set_new(json_array_get(denials, i), "source", json_string("proxy"));
		} else if (k == 4 && strcmp(v[0], "kernel") == 0) {
			json_t *o = kernel_denial(why, v[1], v[2], v[3]);

			if (o)
				json_array_append_new(denials, o);
		}
	}
}
