/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command line's parser: a command word, then its flags read by the
 * one flag table (cli_flags.c: each row's handler stores its value), the
 * operands, and the checks no single flag can make. An unknown command or
 * flag gets a "did you mean".
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "spell.h"
#include "strv.h"

#define _fallthrough_ __attribute__((__fallthrough__))

#define fail cli_fail

/* The row of name that c accepts, or NULL. */
static const struct cli_flag *find_flag(const char *name, enum cli_command c)
{
	size_t n;
	const struct cli_flag *flags = cli_flag_table(&n);

	for (size_t k = 0; k < n; k++)
		if (strcmp(flags[k].name, name) == 0 && (flags[k].commands & CLI_CMD(c)))
			return &flags[k];
	return NULL;
}

/* "Did you mean": the closest of the words a command knows (at most two
 * edits away, and fewer than the word's length), or NULL. */
static const char *closer(const char *word, const char *cand, const char *best, unsigned *best_d)
{
	unsigned d = edit_distance(word, cand, 2);

	if (d < *best_d && d < strlen(word)) {
		*best_d = d;
		return cand;
	}
	return best;
}

static const char *closest_flag(const char *name, enum cli_command c)
{
	const char *best = NULL;
	unsigned d = 3;

	size_t n;
	const struct cli_flag *flags = cli_flag_table(&n);

	for (size_t k = 0; k < n; k++)
		if (flags[k].commands & CLI_CMD(c))
			best = closer(name, flags[k].name, best, &d);
	return best;
}

static const char *closest_command(const char *word)
{
	const char *best = NULL;
	unsigned d = 3;

	enum cli_command c;
	const char *name;

	for (size_t k = 0; (name = cli_command_name(k, &c)); k++)
		best = closer(word, name, best, &d);
	return best;
}

static enum cli_command find_command(const char *word)
{
	enum cli_command c;
	const char *name;

	for (size_t k = 0; (name = cli_command_name(k, &c)); k++)
		if (strcmp(word, name) == 0)
			return c;
	return CLI_NONE;
}

static int fail_command(const char *word, char *err, size_t errlen)
{
	const char *best = closest_command(word);

	if (best)
		return fail(err, errlen, "unknown command '%s', did you mean '%s'? try `cordon --help`", word, best);
	return fail(err, errlen, "unknown command '%s'; try `cordon --help`", word);
}

/* ---- the parser ---- */

void cli_args_done(struct cli_args *a)
{
	strv_free(a->deny_read);
	strv_free(a->read_host);
	strv_free(a->protect);
	strv_free(a->allow_unix);
	strv_free(a->keep_env);
	strv_free(a->setenv);
	strv_free(a->require);
	cli_net_done(a);
	strv_free(a->command);
	strv_free(a->operands);
	free(a->why_host_own);
	*a = (struct cli_args){};
}

static int check_why_args(const struct cli_args *a, char *err, size_t errlen)
{
	/* a request through a credential proxy: --host, --path, --method,
	 * --command naming the consumer */
	if (a->why_method) {
		if (!a->why_host || !a->why_path)
			return fail(err, errlen, "--method goes with --host HOST and --path PATH (the request's path)");
		if (!a->profile)
			return fail(err, errlen, "--method needs --profile P: a profile with credentials");
		if (a->op_set || a->port_set || a->why_caller || a->command || a->operands)
			return fail(err, errlen,
				    "with --method, give --host, --path, --method and --command CONSUMER only");
		return 0;
	}
	if (a->operands)
		return fail(err, errlen,
			    "unexpected argument '%s': ask with --path PATH --op OP, --host HOST --port N, or --command "
			    "NAME -- ARGS",
			    a->operands[0]);
	if (!!a->why_path + !!a->why_host + !!a->why_command != 1)
		return fail(err, errlen,
			    "`cordon why` needs one of --path PATH --op OP, --host HOST --port N, or --command NAME -- "
			    "ARGS");
	if (a->why_caller && !a->why_command)
		return fail(err, errlen, "--caller goes with --command");
	if (a->command && !a->why_command)
		return fail(err, errlen, "unexpected argument '%s' after --: only --command takes arguments",
			    a->command[0]);
	if (a->why_command && !a->profile)
		return fail(err, errlen,
			    "--command needs --profile P: a profile with command_policies (the built-in ones have "
			    "none)");
	if (a->why_command && (a->op_set || a->port_set))
		return fail(err, errlen, "%s goes with --%s, not --command", a->op_set ? "--op" : "--port",
			    a->op_set ? "path" : "host");
	if (a->why_path && !a->op_set)
		return fail(err, errlen, "--path needs --op read, write or exec");
	if (a->why_path && a->port_set)
		return fail(err, errlen, "--port goes with --host, not --path");
	if (a->why_host && a->op_set)
		return fail(err, errlen, "--op goes with --path, not --host");
	return 0;
}

/* What the whole command line must say once every flag is read. */
static int check_args(const struct cli_args *a, const char *sub, char *err, size_t errlen)
{
	switch (a->sub) {
	case CLI_RUN:
		if (a->json_schema)
			return a->command ? fail(err, errlen, "--json-schema takes no command") : 0;
		if (a->separate_stderr && !a->json)
			return fail(err, errlen, "--separate-stderr goes with --json");
		_fallthrough_;
	case CLI_CONFINE:
	case CLI_EXPLAIN:
		if (!a->command || !a->command[0][0])
			return fail(err, errlen, "no command to run: put it after `--`, e.g. `cordon %s -- ls`", sub);
		return 0;
	case CLI_CLASSIFY:
		if (!a->confined_file)
			return fail(err, errlen, "--confined FILE is required");
		if (!a->status_set)
			return fail(err, errlen, "--status N is required");
		_fallthrough_;
	case CLI_SERVE:
	case CLI_PROBE:
		if (a->command)
			return fail(err, errlen, "unexpected argument '%s'", a->command[0]);
		return 0;
	case CLI_PROFILE:
	case CLI_AUDIT:
	case CLI_PACK:
		return cli_check_action(a, err, errlen);
	case CLI_WHY:
		return check_why_args(a, err, errlen);
	case CLI_NONE:
	case CLI_HELP:
	case CLI_VERSION:
		break;
	}
	return 0;
}

/* Commands whose words are operands (names, files), not a command to run. */
static bool takes_operands(enum cli_command c)
{
	return c == CLI_PROFILE || c == CLI_WHY || c == CLI_AUDIT || c == CLI_PACK;
}

int cli_parse(int argc, char *const *argv, struct cli_args *ret, char *err, size_t errlen)
{
	struct cli_args a = {};
	const char *why_operand = NULL;
	int i = 2, r;

	if (argc < 2)
		return fail(err, errlen, "no command given; try `cordon --help`");
	a.sub = find_command(argv[1]);
	if (a.sub == CLI_NONE)
		return fail_command(argv[1], err, errlen);
	if (a.sub == CLI_HELP && argc > 2) {
		/* `cordon help run` is `cordon run --help` */
		a.sub = find_command(argv[2]);
		if (a.sub == CLI_NONE)
			return fail_command(argv[2], err, errlen);
		a.help = a.sub != CLI_HELP && a.sub != CLI_VERSION;
	}
	if (a.sub == CLI_HELP || a.sub == CLI_VERSION || a.help) {
		*ret = a;
		return 0;
	}
	if (cli_has_actions(a.sub) && argc > 2 && argv[2][0] != '-') {
		r = cli_parse_action(&a, argv[2], err, errlen);
		if (r < 0)
			return r;
		i = 3;
	}

	for (; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		const struct cli_flag *f;
		_cleanup_free_ char *name = NULL;

		if (strcmp(arg, "--") == 0) {
			i++;
			break;
		}
		if (arg[0] != '-' && a.sub == CLI_WHY && !why_operand) {
			why_operand = arg; /* `cordon why PATH` */
			continue;
		}
		if (arg[0] != '-' && takes_operands(a.sub)) {
			/* operands may come before, between or after flags */
			if (strv_length(a.operands) >= CLI_MAX_REPEATS) {
				r = fail(err, errlen, "too many arguments");
				goto bad;
			}
			r = strv_push(&a.operands, arg);
			if (r < 0)
				goto bad;
			continue;
		}
		if (arg[0] != '-')
			break; /* the command starts here */

		const char *eq = strchr(arg, '=');
		name = eq ? strndup(arg, (size_t)(eq - arg)) : strdup(arg);
		if (!name) {
			cli_args_done(&a);
			return -ENOMEM;
		}
		f = find_flag(name, a.sub);
		if (!f) {
			const char *best = closest_flag(name, a.sub);

			if (best)
				r = fail(err, errlen, "%s: unknown option for `cordon %s`, did you mean %s? try `cordon %s --help`",
					 name, argv[1], best, argv[1]);
			else
				r = fail(err, errlen, "%s: unknown option for `cordon %s`; try `cordon %s --help`", name,
					 argv[1], argv[1]);
			goto bad;
		}
		if (f->has_value) {
			if (eq)
				value = eq + 1;
			else if (i + 1 < argc)
				value = argv[++i];
			else {
				r = fail(err, errlen, "%s needs a value", name);
				goto bad;
			}
		} else if (eq) {
			r = fail(err, errlen, "%s takes no value", name);
			goto bad;
		}
		r = f->handler(&a, f, value, err, errlen);
		if (r < 0)
			goto bad;
	}
	if (a.help) {
		*ret = a;
		return 0;
	}

	for (; i < argc; i++) {
		/* why's words after "--" are --command's arguments */
		char ***v = a.sub == CLI_PROFILE || a.sub == CLI_AUDIT || a.sub == CLI_PACK ? &a.operands : &a.command;

		if (strv_length(*v) >= 65536) {
			r = fail(err, errlen, "the command has too many arguments");
			goto bad;
		}
		r = strv_push(v, argv[i]);
		if (r < 0)
			goto bad;
	}
	if (why_operand) {
		/* `cordon why PATH` is `--path PATH --op read`, unless another
		 * question is asked too */
		if (a.why_path || a.why_host || a.why_command) {
			r = fail(err, errlen,
				 "unexpected argument '%s': ask with --path PATH --op OP, --host HOST --port N, or "
				 "--command NAME -- ARGS",
				 why_operand);
			goto bad;
		}
		a.why_path = why_operand;
		if (!a.op_set) {
			a.op = CORDON_OP_READ;
			a.op_set = true;
		}
	}
	r = check_args(&a, argv[1], err, errlen);
	if (r < 0)
		goto bad;
	*ret = a;
	return 0;
bad:
	cli_args_done(&a);
	return r;
}
