/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "config.h"
#include "cli.h"
#include "cli_serve.h"
#include "cordon/runner.h"
#include "proxy_main.h"
#include "stdfd.h"

/* /proc/PID/cmdline is readable by every local user, and it reads our argv
 * memory as it is now: once parsed (and copied), the values typed after
 * --setenv NAME= are overwritten there. Only our own command line changes;
 * what runs got its copies. */
static void scrub_values(int argc, char **argv)
{
	for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
		char *v = NULL, *eq;

		if (strcmp(argv[i], "--setenv") == 0 && i + 1 < argc)
			v = argv[++i];
		else if (strncmp(argv[i], "--setenv=", 9) == 0)
			v = argv[i] + 9;
		if (v && (eq = strchr(v, '=')))
			memset(eq + 1, '*', strlen(eq + 1));
	}
}

/* Did `cordon run` ask for --json (before any "--")? Then a command line
 * it cannot parse is answered in JSON too. */
static bool run_wants_json(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "run") != 0)
		return false;
	for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			return true;
	return false;
}

int cli_main(int argc, char **argv, const struct cli_supervisor_ops *ops)
{
	struct cli_args a;
	char err[512], self[PATH_MAX];
	ssize_t l;
	int r;

	cli_set_supervisor(ops);
	/* The runner is on every confined launch's hot path: nothing before it. */
	if (argc > 1 && strcmp(argv[1], "exec") == 0)
		return cordon_exec_binary_main(argc - 1, argv + 1);
	/* The proxy the runner starts for --net proxy (src/proxy). */
	if (argc > 1 && strcmp(argv[1], "proxy") == 0) {
		/* credentials mean TLS interception: libssl, in cordon-supervisor */
		if (!ops && cordon_proxy_wants_credentials(argc - 1, argv + 1)) {
			if (cli_keep_argv(argc, argv) == 0)
				cli_exec_supervisor("cordon proxy --credentials-fd");
			return 1;
		}
		return cordon_proxy_main(argc - 1, argv + 1, ops ? ops->proxy_intercept_load : NULL);
	}

	/* jansson seeds its hash tables on first use by opening and reading
	 * /dev/urandom: one getrandom instead, as random (it falls back to
	 * its own way when this fails) */
	size_t seed = 0;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed) && seed)
		json_object_seed(seed);

	/* No fd the CLI makes may pose as its stdio (the runner and the
	 * proxy, above, see to their own). */
	if (stdfd_sanitise() < 0) {
		cli_say("cannot open /dev/null over a closed fd 0, 1 or 2");
		return CLI_EXIT_REFUSED;
	}

	/* The native provider runs the lean binary as its runner: this one,
	 * or the one beside cordon-supervisor. */
	if (!getenv("CORDON_RUNNER")) {
		l = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (l > 0) {
			self[l] = '\0';
			if (ops)
				cli_runner_beside(self, sizeof(self));
			if (self[0])
				cordon_set_runner_path(self);
		}
	}

	if (cli_keep_argv(argc, argv) < 0) {
		cli_say("out of memory");
		return CLI_EXIT_REFUSED;
	}
	r = cli_parse(argc, argv, &a, err, sizeof(err));
	if (r < 0) {
		struct cli_args none = { .sub = CLI_RUN, .json = run_wants_json(argc, argv) };

		cli_say("%s", err);
		return cli_refuse(&none, "usage", CLI_EXIT_REFUSED);
	}
	scrub_values(argc, argv);
	if (a.help || a.sub == CLI_HELP) {
		fputs(cli_usage(a.help ? a.sub : CLI_NONE), stdout);
		cli_args_done(&a);
		return 0;
	}
	switch (a.sub) {
	case CLI_RUN:
		r = cli_run(&a);
		break;
	case CLI_CONFINE:
		r = cli_confine(&a);
		break;
	case CLI_CLASSIFY:
		r = cli_classify(&a);
		break;
	case CLI_PROBE:
		r = cli_probe(&a);
		break;
	case CLI_EXPLAIN:
		r = cli_explain(&a);
		break;
	case CLI_PROFILE:
		r = cli_profile(&a);
		break;
	case CLI_WHY:
		r = cli_why(&a);
		break;
	case CLI_SERVE:
		/* the front end is chosen here, so the session knows neither */
		r = cli_serve(&a, a.mcp ? cli_mcp_frontend : cli_serve_jsonl_frontend);
		break;
	case CLI_AUDIT:
		/* the chain's hashes need libcrypto: cordon-supervisor has them */
		if (!ops || !ops->audit) {
			cli_exec_supervisor("cordon audit");
			r = CLI_EXIT_REFUSED;
			break;
		}
		r = ops->audit(&a);
		break;
	case CLI_PACK:
		/* SSH signatures need libcrypto: cordon-supervisor has them */
		if (!ops || !ops->pack) {
			cli_exec_supervisor("cordon pack");
			r = CLI_EXIT_REFUSED;
			break;
		}
		r = ops->pack(&a);
		break;
	case CLI_VERSION:
		printf("cordon %s\n", CORDON_VERSION);
		r = 0;
		break;
	case CLI_NONE:
	case CLI_HELP:
	default:
		fputs(cli_usage(CLI_NONE), stderr);
		r = CLI_EXIT_REFUSED;
		break;
	}
	if (CLI_FREE_BEFORE_EXIT || a.sub != CLI_RUN)
		cli_args_done(&a);
	return r;
}
