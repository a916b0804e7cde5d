/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon why --host H --path P --method M [--command C]` (cordon-supervisor
 * only: the proxy's matcher is linked there): what consumer C's credential
 * proxy does with M P to H, naming the credential and the rule
 * (src/supervisor/cred_why.c). Exit 0: the request goes out (a phantom is
 * swapped, or the host is not intercepted); 1: refused; 2: an approval.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cred_why.h"

int cli_why_credential(const struct cli_args *a)
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *h = NULL;
	const struct cordon_profile_opts o = { .workspace = a->workspace };
	const char *consumer = a->why_command ? a->why_command : CORDON_TOOLS_SESSION;
	struct cred_why_answer d;
	struct cordon_error e = {};
	int r;

	r = cordon_profile_load_inspect(a->profile, &o, &h, &e);
	if (r < 0) {
		cli_note_origin(&e);
		cli_say("%s", e.message[0] ? e.message : strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	r = cred_why(cordon_profile_tools(h), consumer, a->why_host, a->why_method, a->why_path, &d);
	if (r == -ENOENT) {
		cli_say("profile %s has no credentials", cordon_profile_name(h));
		return CLI_EXIT_REFUSED;
	}
	if (r < 0) {
		cli_say("--host %s: %s", a->why_host, strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	if (a->json) {
		_cleanup_(json_decrefp) json_t *j = json_pack(
			"{s:s,s:s,s:s?,s:s,s:s,s:i,s:s?,s:s,s:s,s:s,s:s,s:s}", "decision", cred_why_verdict_name(d.verdict),
			"reason", d.reason, "credential", d.credential[0] ? d.credential : NULL, "file", d.file, "pointer",
			d.pointer, "line", d.line, "backend", d.backend[0] ? d.backend : NULL, "host", a->why_host, "path",
			a->why_path, "method", a->why_method, "consumer", consumer, "profile", cordon_profile_name(h));

		if (!j || cli_print_json(j) < 0) {
			cli_say("cannot encode the answer as JSON (is every argument valid UTF-8?)");
			return CLI_EXIT_REFUSED;
		}
	} else {
		printf("%s: %s\n", cred_why_verdict_name(d.verdict), d.reason);
		if (d.credential[0])
			printf("  credential: %s\n", d.credential);
		if (d.backend[0])
			printf("  backend: %s\n", d.backend);
		if (d.pointer[0])
			printf("  rule: %s:%d at %s\n", d.file, d.line, d.pointer);
		fflush(stdout);
	}
	switch (d.verdict) {
	case CRED_WHY_TUNNEL:
	case CRED_WHY_ALLOW:
		return 0;
	case CRED_WHY_APPROVE:
		return 2;
	case CRED_WHY_NOT_GRANTED:
	case CRED_WHY_REFUSED:
	case CRED_WHY_DENY:
		break;
	}
	return 1;
}
