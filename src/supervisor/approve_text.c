/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the terminal backend shows, as printable text (approve_text.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "approve_text.h"
#include "cleanup.h"

/* The escape for byte c in e (at most 4 bytes); its length. */
static size_t escape_one(unsigned char c, char e[5])
{
	static const char digits[] = "0123456789abcdef";

	switch (c) {
	case '\\':
	case '"':
		e[0] = '\\';
		e[1] = (char)c;
		return 2;
	case '\t':
		memcpy(e, "\\t", 2);
		return 2;
	case '\n':
		memcpy(e, "\\n", 2);
		return 2;
	case '\r':
		memcpy(e, "\\r", 2);
		return 2;
	case 0x1b:
		memcpy(e, "\\e", 2);
		return 2;
	default:
		break;
	}
	if (c >= 0x20 && c <= 0x7e) {
		e[0] = (char)c;
		return 1;
	}
	/* the rest of C0, DEL, and every byte >= 0x80: C1 controls (a lone
	 * 0x9b is CSI to some terminals), UTF-8 bidi overrides */
	e[0] = '\\';
	e[1] = 'x';
	e[2] = digits[c >> 4];
	e[3] = digits[c & 0xf];
	return 4;
}

size_t escape_printable(const char *s, size_t n, char *out, size_t size)
{
	size_t w = 0, total = 0, reserve;
	char e[5];

	if (size == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		total += escape_one((unsigned char)s[i], e);
	/* cut: keep room for "..." all along */
	reserve = total + 1 > size ? 3 : 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = escape_one((unsigned char)s[i], e);

		if (w + l + reserve + 1 > size)
			break;
		memcpy(out + w, e, l);
		w += l;
	}
	if (reserve && w + reserve + 1 <= size) {
		memcpy(out + w, "...", 3);
		w += 3;
	}
	out[w] = '\0';
	return w;
}

static void put_quoted(FILE *f, const char *s, char *buf, size_t size)
{
	escape_printable(s, strlen(s), buf, size);
	fprintf(f, "\"%s\"", buf);
}

/* The words of v that are flags, quoted, after the cut: at most
 * TERMINAL_ARGV_SHOWN more bytes. */
static void put_flags(FILE *f, const char *const *v, char *buf)
{
	size_t shown = 0;
	bool any = false;

	for (size_t i = 0; v[i]; i++) {
		if (v[i][0] != '-' || !v[i][1])
			continue;
		if (shown + 8 > TERMINAL_ARGV_SHOWN) {
			fputs(" ...", f);
			return;
		}
		if (!any)
			fputs(" flags among them:", f);
		any = true;
		shown += escape_printable(v[i], strlen(v[i]), buf, TERMINAL_ARGV_SHOWN - shown - 2) + 3;
		fprintf(f, " \"%s\"", buf);
	}
}

static void put_duration(FILE *f, uint64_t ms)
{
	if (ms % 1000 == 0)
		fprintf(f, "%" PRIu64 " s", ms / 1000);
	else
		fprintf(f, "%" PRIu64 " ms", ms);
}

int terminal_prompt(const char *backend, const struct approval_request *req, uint64_t timeout_ms, bool default_allow,
		    char **ret_info, char **ret_question)
{
	_cleanup_free_ char *buf = malloc(TERMINAL_ARGV_SHOWN + 1);
	_cleanup_free_ char *info = NULL, *question = NULL;
	size_t info_len = 0, question_len = 0, argc = 0, shown = 0;
	FILE *f;

	if (!buf)
		return -ENOMEM;
	while (req->argv[argc])
		argc++;

	f = open_memstream(&info, &info_len);
	if (!f)
		return -ENOMEM;
	fputs("\ncordon: approval wanted (backend ", f);
	put_quoted(f, backend, buf, 256);
	fprintf(f, ", request %.32s)\n  caller:  ", req->request_id);
	put_quoted(f, req->caller, buf, 1024);
	fputs("\n  command: ", f);
	put_quoted(f, req->command, buf, 1024);
	fprintf(f, "\n  argv:    (%zu)", argc);
	for (size_t i = 0; i < argc; i++) {
		if (shown + 8 > TERMINAL_ARGV_SHOWN) {
			fprintf(f, " [%zu more not shown]", argc - i);
			/* the flags among them are shown all the same: a --force far
			 * down the list is what the person must see */
			put_flags(f, req->argv + i, buf);
			break;
		}
		/* a space and two quotes around each */
		shown += escape_printable(req->argv[i], strlen(req->argv[i]), buf, TERMINAL_ARGV_SHOWN - shown - 2) + 3;
		fprintf(f, " \"%s\"", buf);
	}
	fputs("\n  env:     ", f);
	if (!req->env[0])
		fputs("(none)", f);
	for (size_t i = 0, env_shown = 0; req->env[i]; i++) {
		if (env_shown + 8 > TERMINAL_ARGV_SHOWN) {
			fputs(" [more not shown]", f);
			break;
		}
		env_shown += escape_printable(req->env[i], strlen(req->env[i]), buf, TERMINAL_ARGV_SHOWN - env_shown - 2) + 3;
		fprintf(f, "%s\"%s\"", i ? " " : "", buf);
	}
	fputs("\n  cwd:     ", f);
	put_quoted(f, req->cwd, buf, TERMINAL_ARGV_SHOWN);
	fprintf(f, " (device %" PRIu64 ", inode %" PRIu64 ")", req->cwd_dev, req->cwd_ino);
	fprintf(f, "\n  policy:  %.64s", req->policy);
	/* the digest binds all of argv, also what was cut above */
	fprintf(f, "\n  digest:  %.64s\n", req->digest);
	if (fclose(f) != 0)
		return -ENOMEM;

	f = open_memstream(&question, &question_len);
	if (!f)
		return -ENOMEM;
	fputs("Type yes to allow, anything else to deny (no answer in ", f);
	put_duration(f, timeout_ms);
	fprintf(f, ": %s): ", default_allow ? "allow" : "deny");
	if (fclose(f) != 0)
		return -ENOMEM;

	*ret_info = TAKE_PTR(info);
	*ret_question = TAKE_PTR(question);
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool terminal_answer_is_yes(const char *line, size_t n)
{
	while (n > 0 && is_blank(line[n - 1]))
		n--;
	while (n > 0 && is_blank(line[0])) {
		line++;
		n--;
	}
	return n == 3 && strncasecmp(line, "yes", 3) == 0;
}
