/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gen-completions bash|zsh|fish|flags: shell completions for `cordon`,
 * written at build time from the parser's own tables (cli_flags.c's flags[],
 * commands[] and the actions of profile and audit) so a flag the parser accepts is a flag the
 * shell offers, and nothing else. What a flag's value looks like (a path, one
 * of a few words) and its one-line description come from the same rows, as
 * --help shows them; `cordon exec` has no table, so its flags are read from
 * cordon_exec_usage.
 * `flags` prints "COMMAND FLAG" lines, for the test that checks the man pages
 * against the same table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "cordon/runner.h"

#define MAX_OPTS 64

enum value_kind {
	VALUE_NONE,  /* no value */
	VALUE_FREE,  /* a value we cannot guess (a number, a name) */
	VALUE_FILE,
	VALUE_DIR,
	VALUE_WORDS, /* one of opt.words */
	VALUE_PROFILE, /* a profile's name (what `cordon profile list` finds), or a file */
};

/* The names `cordon profile list --json` finds, one a line: the same cordon
 * that is being completed, so its directories and built-ins. */
#define PROFILE_NAMES "\"${COMP_WORDS[0]}\" profile list --json 2>/dev/null | grep -o '\"name\":\"[^\"]*\"' | cut -d'\"' -f4"

struct opt {
	char name[64];
	char desc[200];
	enum value_kind kind;
	char words[200]; /* space-separated */
};

struct sub {
	const char *name;
	enum cli_command command; /* CLI_NONE for exec */
	char desc[200];
	struct opt opts[MAX_OPTS];
	size_t n_opts;
};

static struct sub subs[16];
static size_t n_subs;

/* Copy at most n-1 bytes of [s, s+len) into buf. */
static void copy(char *buf, size_t n, const char *s, size_t len)
{
	if (len >= n)
		len = n - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
}

static size_t line_len(const char *s)
{
	return strcspn(s, "\n");
}

/* Keep what fits on one line of a completion menu. */
static void shorten(char *desc, size_t desclen)
{
	const size_t keep = 90;
	size_t n = strlen(desc);

	if (n > keep) {
		char *cut = desc + keep;
		while (cut > desc && *cut != ' ')
			cut--;
		if (cut > desc)
			snprintf(cut, desclen - (size_t)(cut - desc), "...");
	}
}

/* A description goes on in the lines below that are indented deeper than
 * a flag: join them, then shorten. */
static void join_continuation(const char *end, char *desc, size_t desclen)
{
	size_t n = strlen(desc);

	while (*end == '\n' && strncmp(end + 1, "        ", 8) == 0) {
		const char *l = end + 1 + strspn(end + 1, " ");
		end = l + line_len(l);
		if (n + 1 < desclen) {
			desc[n++] = ' ';
			copy(desc + n, desclen - n, l, (size_t)(end - l));
			n = strlen(desc);
		}
	}
	shorten(desc, desclen);
}

/* In a help text, the flag line "  NAME[ META]  DESCRIPTION" (returns true),
 * or else the first mention "NAME META" (a synopsis): META and DESCRIPTION
 * into meta and desc. */
static bool find_help(const char *text, const char *name, char *meta, size_t metalen, char *desc, size_t desclen)
{
	size_t nl = strlen(name);

	meta[0] = desc[0] = '\0';
	for (const char *l = text; *l; l += line_len(l) + (l[line_len(l)] == '\n')) {
		if (strncmp(l, "  ", 2) != 0 || strncmp(l + 2, name, nl) != 0 ||
		    (l[2 + nl] != ' ' && l[2 + nl] != '\n'))
			continue;
		const char *p = l + 2 + nl, *end = l + line_len(l);
		if (p[0] == ' ' && p[1] != ' ') { /* one space: a value follows */
			size_t m = strcspn(p + 1, " \n");
			copy(meta, metalen, p + 1, m);
			p += 1 + m;
		}
		p += strspn(p, " ");
		copy(desc, desclen, p, (size_t)(end - p));
		join_continuation(end, desc, desclen);
		return true;
	}
	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		if (p[nl] != ' ' || (p > text && p[-1] != ' ' && p[-1] != '['))
			continue;
		copy(meta, metalen, p + nl + 1, strcspn(p + nl + 1, " ]\n"));
		return false;
	}
	return false;
}

static void set_value_kind(struct opt *o, const char *meta, bool has_value)
{
	o->kind = has_value ? VALUE_FREE : VALUE_NONE;
	if (!has_value)
		return;
	/* the library's names, so a new mode or backend completes too */
	if (strcmp(o->name, "--mode") == 0 || strcmp(o->name, "--backend") == 0) {
		size_t n = 0;
		o->kind = VALUE_WORDS;
		for (int i = 0; i < 8; i++) {
			const char *w = o->name[2] == 'm' ? (i <= CORDON_MODE_DANGER_FULL_ACCESS ? cordon_mode_to_string(i) : NULL)
							  : (i <= CORDON_BACKEND_UNAVAILABLE ? cordon_backend_to_string(i) : NULL);
			if (w)
				n += (size_t)snprintf(o->words + n, sizeof(o->words) - n, "%s%s", n ? " " : "", w);
		}
	} else if (strchr(meta, '|')) {
		o->kind = VALUE_WORDS;
		copy(o->words, sizeof(o->words), meta, strlen(meta));
		for (char *c = o->words; *c; c++)
			if (*c == '|')
				*c = ' ';
	} else if (strcmp(o->name, "--profile") == 0) {
		o->kind = VALUE_PROFILE;
	} else if (strcmp(meta, "DIR") == 0) {
		o->kind = VALUE_DIR;
	} else if (strcmp(meta, "PATH") == 0 || strcmp(meta, "FILE") == 0 || strcmp(meta, "P") == 0) {
		o->kind = VALUE_FILE;
	}
}

static struct sub *add_sub(const char *name, enum cli_command c)
{
	char meta[64];
	struct sub *s;

	for (size_t i = 0; i < n_subs; i++)
		if (strcmp(subs[i].name, name) == 0)
			return NULL;
	if (n_subs >= ELEMENTSOF(subs))
		abort();
	s = &subs[n_subs++];
	s->name = name;
	s->command = c;
	find_help(cli_usage(CLI_NONE), name, meta, sizeof(meta), s->desc, sizeof(s->desc));
	return s;
}

static struct opt *add_opt(struct sub *s, const char *name)
{
	if (s->n_opts >= MAX_OPTS)
		abort();
	struct opt *o = &s->opts[s->n_opts++];
	copy(o->name, sizeof(o->name), name, strlen(name));
	return o;
}

static void collect(void)
{
	enum cli_command c;
	const char *name;
	size_t n_flags;
	const struct cli_flag *flags = cli_flag_table(&n_flags);
	char meta[64];

	for (size_t i = 0; (name = cli_command_name(i, &c)); i++) {
		struct sub *s;

		if (name[0] == '-' || !(s = add_sub(name, c)))
			continue;
		for (size_t k = 0; k < n_flags; k++) {
			if (!(flags[k].commands & (1u << c)))
				continue;
			struct opt *o = add_opt(s, flags[k].name);
			/* the help's continuation lines, joined */
			copy(o->desc, sizeof(o->desc), flags[k].help, strlen(flags[k].help));
			for (char *d = o->desc; *d; d++)
				if (*d == '\n')
					*d = ' ';
			shorten(o->desc, sizeof(o->desc));
			set_value_kind(o, flags[k].meta ?: "", flags[k].has_value);
		}
	}

	/* main.c hands `exec` to the runner before the parser sees it */
	struct sub *s = add_sub("exec", CLI_NONE);
	for (const char *l = cordon_exec_usage; *l; l += line_len(l) + (l[line_len(l)] == '\n')) {
		if (strncmp(l, "  --", 4) != 0)
			continue;
		char flag[64];
		copy(flag, sizeof(flag), l + 2, strcspn(l + 2, " \n"));
		struct opt *o = add_opt(s, flag);
		find_help(cordon_exec_usage, flag, meta, sizeof(meta), o->desc, sizeof(o->desc));
		set_value_kind(o, meta, meta[0] != '\0');
	}
	add_opt(s, "--help")->kind = VALUE_NONE;

	for (size_t i = 0; i < n_subs; i++)
		for (size_t k = 0; k < subs[i].n_opts; k++)
			if (strcmp(subs[i].opts[k].name, "--help") == 0 && !subs[i].opts[k].desc[0])
				snprintf(subs[i].opts[k].desc, sizeof(subs[i].opts[k].desc), "show this command's options");
	for (size_t i = 0; i < n_subs; i++)
		if (!subs[i].desc[0] && subs[i].command == CLI_HELP)
			snprintf(subs[i].desc, sizeof(subs[i].desc), "show the commands");
}

/* Print s with every character in bad replaced by rep (NULL: dropped). */
static void put_escaped(const char *s, const char *bad, const char *rep)
{
	for (; *s; s++) {
		if (strchr(bad, *s)) {
			if (rep)
				fputs(rep, stdout);
		} else {
			putchar(*s);
		}
	}
}

static void gen_bash(void)
{
	puts("# bash completion for cordon -- generated by gen-completions from cli_flags.c's flag table");
	puts("_cordon()");
	puts("{");
	puts("\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub=${COMP_WORDS[1]} i words=");
	puts("\tCOMPREPLY=()");
	fputs("\tif ((COMP_CWORD == 1)); then\n\t\tCOMPREPLY=($(compgen -W '", stdout);
	for (size_t i = 0; i < n_subs; i++)
		printf("%s%s", i ? " " : "", subs[i].name);
	puts("' -- \"$cur\"))");
	puts("\t\treturn 0");
	puts("\tfi");
	puts("\t# after --: the confined command and its arguments");
	puts("\tfor ((i = 2; i < COMP_CWORD; i++)); do");
	puts("\t\tif [[ ${COMP_WORDS[i]} == -- ]]; then");
	puts("\t\t\tif ((i == COMP_CWORD - 1)); then COMPREPLY=($(compgen -c -- \"$cur\")); else COMPREPLY=($(compgen -f -- \"$cur\")); fi");
	puts("\t\t\treturn 0");
	puts("\t\tfi");
	puts("\tdone");
	puts("\tcase $sub in");
	for (size_t i = 0; i < n_subs; i++) {
		const struct sub *s = &subs[i];

		printf("\t%s)\n", s->name);
		puts("\t\tcase $prev in");
		for (size_t k = 0; k < s->n_opts; k++) {
			const struct opt *o = &s->opts[k];
			switch (o->kind) {
			case VALUE_NONE:
				break;
			case VALUE_FREE:
				printf("\t\t%s) return 0 ;;\n", o->name);
				break;
			case VALUE_FILE:
				printf("\t\t%s) COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n", o->name);
				break;
			case VALUE_DIR:
				printf("\t\t%s) COMPREPLY=($(compgen -d -- \"$cur\")); return 0 ;;\n", o->name);
				break;
			case VALUE_WORDS:
				printf("\t\t%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return 0 ;;\n", o->name, o->words);
				break;
			case VALUE_PROFILE:
				printf("\t\t%s) COMPREPLY=($(compgen -W \"$(%s)\" -- \"$cur\") $(compgen -f -- \"$cur\")); "
				       "return 0 ;;\n",
				       o->name, PROFILE_NAMES);
				break;
			}
		}
		puts("\t\tesac");
		if (cli_action_name(s->command, 0)) {
			fputs("\t\tif ((COMP_CWORD == 2)); then words='", stdout);
			const char *a;
			for (size_t k = 0; (a = cli_action_name(s->command, k)); k++)
				printf("%s%s", k ? " " : "", a);
			puts("'; fi");
		}
		fputs("\t\t[[ $cur == -* || -z $words ]] && words='", stdout);
		for (size_t k = 0; k < s->n_opts; k++)
			printf("%s%s", k ? " " : "", s->opts[k].name);
		puts("'");
		puts("\t\t;;");
	}
	puts("\t*) return 0 ;;");
	puts("\tesac");
	puts("\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))");
	puts("}");
	puts("complete -o default -F _cordon cordon");
}

static void gen_zsh(void)
{
	puts("#compdef cordon");
	puts("# zsh completion for cordon -- generated by gen-completions from cli_flags.c's flag table");
	puts("");
	puts("_cordon_profiles() {");
	puts("\tlocal -a names");
	puts("\tnames=(${(f)\"$(cordon profile list --json 2>/dev/null | grep -o '\"name\":\"[^\"]*\"' | cut -d'\"' -f4)\"})");
	puts("\t_alternative 'profiles:profile:compadd -a names' 'files:file:_files'");
	puts("}");
	puts("");
	puts("_cordon() {");
	puts("\tlocal -a subcommands");
	puts("\tsubcommands=(");
	for (size_t i = 0; i < n_subs; i++) {
		printf("\t\t'%s:", subs[i].name);
		put_escaped(subs[i].desc, "'", "'\\''");
		puts("'");
	}
	puts("\t)");
	puts("\tif (( CURRENT == 2 )); then");
	puts("\t\t_describe -t commands 'cordon command' subcommands");
	puts("\t\treturn");
	puts("\tfi");
	puts("\tlocal sub=$words[2]");
	puts("\tshift words");
	puts("\t(( CURRENT-- ))");
	puts("\tcase $sub in");
	for (size_t i = 0; i < n_subs; i++) {
		const struct sub *s = &subs[i];

		printf("\t%s)\n\t\t_arguments -S \\\n", s->name);
		if (cli_action_name(s->command, 0)) {
			fputs("\t\t\t'1:action:(", stdout);
			const char *a;
			for (size_t k = 0; (a = cli_action_name(s->command, k)); k++)
				printf("%s%s", k ? " " : "", a);
			puts(")' \\");
		}
		for (size_t k = 0; k < s->n_opts; k++) {
			const struct opt *o = &s->opts[k];
			/* repeatable flags may be given more than once */
			printf("\t\t\t'*%s[", o->name);
			for (const char *c = o->desc; *c; c++) /* inside '...[...]' */
				if (*c == '\'')
					fputs("'\\''", stdout);
				else if (!strchr("[]:\\", *c))
					putchar(*c);
			putchar(']');
			switch (o->kind) {
			case VALUE_NONE:
				break;
			case VALUE_FREE:
				fputs(":value: ", stdout);
				break;
			case VALUE_FILE:
				fputs(":file:_files", stdout);
				break;
			case VALUE_DIR:
				fputs(":directory:_files -/", stdout);
				break;
			case VALUE_WORDS:
				printf(":value:(%s)", o->words);
				break;
			case VALUE_PROFILE:
				fputs(":profile:_cordon_profiles", stdout);
				break;
			}
			puts("' \\");
		}
		if (s->command == CLI_RUN || s->command == CLI_CONFINE || s->command == CLI_EXPLAIN ||
		    s->command == CLI_NONE)
			puts("\t\t\t'*::command:_normal'");
		else
			puts("\t\t\t'*:file:_files'");
		puts("\t\t;;");
	}
	puts("\tesac");
	puts("}");
	puts("");
	puts("_cordon \"$@\"");
}

static void gen_fish(void)
{
	puts("# fish completion for cordon -- generated by gen-completions from cli_flags.c's flag table");
	fputs("set -l cordon_commands", stdout);
	for (size_t i = 0; i < n_subs; i++)
		printf(" %s", subs[i].name);
	puts("");
	puts("complete -c cordon -f");
	puts("function __cordon_profiles");
	puts("\tcordon profile list --json 2>/dev/null | string match -ra '\"name\":\"[^\"]*\"' | string sub -s 9 -e -1");
	puts("end");
	for (size_t i = 0; i < n_subs; i++) {
		printf("complete -c cordon -n \"not __fish_seen_subcommand_from $cordon_commands\" -a %s -d '", subs[i].name);
		put_escaped(subs[i].desc, "'", "\\'");
		puts("'");
	}
	for (size_t i = 0; i < n_subs; i++) {
		const struct sub *s = &subs[i];

		if (cli_action_name(s->command, 0)) {
			printf("complete -c cordon -n '__fish_seen_subcommand_from %s' -a '", s->name);
			const char *a;
			for (size_t k = 0; (a = cli_action_name(s->command, k)); k++)
				printf("%s%s", k ? " " : "", a);
			puts("'");
		}
		for (size_t k = 0; k < s->n_opts; k++) {
			const struct opt *o = &s->opts[k];

			printf("complete -c cordon -n '__fish_seen_subcommand_from %s' -l %s", s->name, o->name + 2);
			switch (o->kind) {
			case VALUE_NONE:
				break;
			case VALUE_FREE:
				fputs(" -x", stdout);
				break;
			case VALUE_FILE:
			case VALUE_DIR:
				fputs(" -r -F", stdout);
				break;
			case VALUE_WORDS:
				printf(" -x -a '%s'", o->words);
				break;
			case VALUE_PROFILE:
				fputs(" -r -F -a '(__cordon_profiles)'", stdout);
				break;
			}
			if (o->desc[0]) {
				fputs(" -d '", stdout);
				put_escaped(o->desc, "'", "\\'");
				putchar('\'');
			}
			putchar('\n');
		}
	}
}

static void gen_flags(void)
{
	for (size_t i = 0; i < n_subs; i++)
		for (size_t k = 0; k < subs[i].n_opts; k++)
			printf("%s %s\n", subs[i].name, subs[i].opts[k].name);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: gen-completions bash|zsh|fish|flags\n", stderr);
		return 2;
	}
	collect();
	if (strcmp(argv[1], "bash") == 0)
		gen_bash();
	else if (strcmp(argv[1], "zsh") == 0)
		gen_zsh();
	else if (strcmp(argv[1], "fish") == 0)
		gen_fish();
	else if (strcmp(argv[1], "flags") == 0)
		gen_flags();
	else {
		fprintf(stderr, "gen-completions: unknown shell '%s'\n", argv[1]);
		return 2;
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
