/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The flag table's values as cordon_launch_opts, as they were given:
 * what every command that runs or shows a launch starts from (run,
 * confine, explain, profile show --effective through cli_launch; why and
 * the denials through cordon_launch_why_new). Nothing is merged here: the
 * library puts them on the profile.
 */
#include "cli.h"

void cli_launch_opts(const struct cli_args *a, struct cordon_launch_opts *ret)
{
	struct cordon_launch_opts o = CORDON_LAUNCH_OPTS_INIT;

	/* the flag table's values, as they were given: the library puts them
	 * on the profile (scalars replace, lists add) */
	o.mode_set = a->mode_set;
	o.mode = a->mode;
	o.home_set = a->home_set;
	o.home = a->home;
	o.workspace = a->workspace; /* the profile was loaded with it: not loaded again */
	o.net_set = a->net_set;
	o.net = a->net;
	o.isolation_set = a->isolation_set;
	o.isolation = a->isolation;
	o.backend_set = a->backend_set;
	o.backend = a->backend;
	o.deny_read = (const char *const *)a->deny_read;
	o.read_host = (const char *const *)a->read_host;
	o.protect = (const char *const *)a->protect;
	o.allow_unix_sockets = (const char *const *)a->allow_unix;
	o.keep_env = (const char *const *)a->keep_env;
	o.set_env = (const char *const *)a->setenv;
	o.require = (const char *const *)a->require;
	o.allow_domains = (const char *const *)a->net_rules[CORDON_NET_ALLOW_DOMAIN];
	o.deny_domains = (const char *const *)a->net_rules[CORDON_NET_DENY_DOMAIN];
	o.allow_addresses = (const char *const *)a->net_rules[CORDON_NET_ALLOW_ADDRESS];
	o.timeout_ms = a->timeout_ms;
	o.max_output = a->max_output_set ? a->max_output : 0;
	o.output_terminate_set = a->output_action_set;
	o.output_terminate = a->output_terminate;
	o.fallback_set = a->fallback_set;
	o.limits = a->limits;
	*ret = o;
}
