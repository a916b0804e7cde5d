/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture-driver: a session's credential store (src/supervisor/cred_store.c)
 * as the supervisor holds it, for creds-capture.t.
 *
 *   capture-driver PROFILE AUDITDIR CRED OP...
 *
 * OP: "get" (the value now: prints "value=V runs=N", or "error=WHY runs=N"),
 * "sleep=MS". The values are test tokens the script made up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "cordon/cordon.h"
#include "cred_store.h"
#include "tools.h"

int main(int argc, char **argv)
{
	struct cordon_profile_handle *h = NULL;
	struct cordon_profile_opts po = {};
	struct cordon_error e = {};
	struct audit_log *audit = NULL;
	struct audit_session as = { .profile = "t" };
	char id[64];
	struct cred_store *s = NULL;
	const struct cordon_tools *t;
	char err[512] = "", head[SHA256_HEX];
	int r;

	if (argc < 5) {
		fprintf(stderr, "usage: capture-driver PROFILE AUDITDIR CRED OP...\n");
		return 2;
	}
	r = cordon_profile_load(argv[1], &po, &h, &e);
	if (r < 0) {
		fprintf(stderr, "profile: %s\n", e.message);
		return 1;
	}
	t = cordon_profile_tools(h);
	if (!t || !t->creds) {
		fprintf(stderr, "no credentials\n");
		return 1;
	}
	snprintf(id, sizeof(id), "capture-driver-%d", (int)getpid());
	as.session_id = id;
	r = audit_open(argv[2], &as, &audit);
	if (r < 0) {
		fprintf(stderr, "audit: %s\n", strerror(-r));
		return 1;
	}
	r = cred_store_new(t->creds, getenv("PATH"), audit, &s, err, sizeof(err));
	if (r < 0) {
		printf("start-error=%s\n", err);
		return 1;
	}
	for (int i = 4; i < argc; i++) {
		if (strncmp(argv[i], "sleep=", 6) == 0) {
			usleep((useconds_t)atoi(argv[i] + 6) * 1000);
		} else if (strcmp(argv[i], "get") == 0) {
			const struct credtable_secret *v = NULL;

			err[0] = '\0';
			r = cred_store_value(s, argv[3], &v, err, sizeof(err));
			if (r < 0)
				printf("error=%s runs=%u\n", err, cred_store_capture_runs(s, argv[3]));
			else
				printf("value=%.*s runs=%u\n", (int)v->n, (const char *)v->p,
				       cred_store_capture_runs(s, argv[3]));
			fflush(stdout);
		}
	}
	cred_store_free(s);
	audit_close_head(audit, head);
	cordon_profile_free(h);
	return 0;
}
