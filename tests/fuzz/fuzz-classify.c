/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon_classify against a slow, obviously-correct reference: split the
 * output into lines, trim, compare. Any disagreement aborts.
 *
 * Input layout:
 *   byte 0   exit status
 *   byte 1   flags: 1 = the status is an allowed exit code,
 *                   2 = signatures come from a header (else the bwrap set),
 *                   4 = pad the output so it straddles 32 KiB (the
 *                       classifier's block size) by byte 2 bytes,
 *                   8 = the value is Seatbelt's (else bwrap's): only there
 *                       is a line both fatal and a denial a denial
 *   byte 2   padding shift
 *   header   (flag 2) lines "d<denial>", "f<fatal>", "i<informational>",
 *            ended by an empty line; other lines are ignored
 *   rest     the output
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SIGS 64
#define REFERENCE_MAX ((size_t)256 * 1024)
#define PAD_TARGET ((size_t)32 * 1024)

static const char *const bwrap_denial[] = { "permission denied", "operation not permitted",
					    "read-only file system", NULL };
static const char *const bwrap_fatal[] = { "bwrap: ", NULL };
static const char *const bwrap_info[] = { "bwrap: warning: no /proc mounted", NULL };

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static char *lower_dup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	CHECK(d);
	for (size_t i = 0; i < n; i++)
		d[i] = lower(s[i]);
	d[n] = '\0';
	return d;
}

static char **lower_strv(char *const *v)
{
	size_t n = 0;
	char **l;

	while (v && v[n])
		n++;
	l = calloc(n + 1, sizeof(char *));
	CHECK(l);
	for (size_t i = 0; i < n; i++)
		l[i] = lower_dup(v[i], strlen(v[i]));
	return l;
}

static void free_strv(char **v)
{
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* The reference, line by line. Returns the verdict; for RUNNER_FAILED, the
 * line's bounds. */
static enum cordon_verdict reference(const struct cordon_confined *c, int status, const char *out, size_t len,
				     size_t *ret_ls, size_t *ret_le)
{
	enum cordon_verdict verdict = CORDON_VERDICT_OK;
	bool want_fatal = true;
	char *low, **denial, **fatal, **info;

	if (status == 0)
		return CORDON_VERDICT_OK;
	for (size_t i = 0; i < c->n_allowed_exit_codes; i++)
		if (c->allowed_exit_codes[i] == status)
			want_fatal = false;

	low = lower_dup(out, len);
	denial = lower_strv(c->denial_signatures);
	fatal = lower_strv(c->fatal_signatures);
	info = lower_strv(c->informational_lines);
	for (size_t ls = 0; ls <= len;) {
		const char *nl = memchr(low + ls, '\n', len - ls);
		size_t end = nl ? (size_t)(nl - low) : len, le = end, ts, te;
		bool has_denial = false, is_info = false, is_fatal = false;

		if (le > ls && low[le - 1] == '\r')
			le--;
		for (char **d = denial; *d; d++)
			if (**d && memmem(low + ls, le - ls, *d, strlen(*d)))
				has_denial = true;
		ts = ls;
		te = le;
		while (ts < te && blank(low[ts]))
			ts++;
		while (te > ts && blank(low[te - 1]))
			te--;
		for (char **i = info; *i; i++)
			if (**i && strlen(*i) == te - ts && memcmp(low + ts, *i, te - ts) == 0)
				is_info = true;
		for (char **f = fatal; *f; f++)
			if (**f && strlen(*f) <= te - ts && memcmp(low + ts, *f, strlen(*f)) == 0)
				is_fatal = true;
		/* a line both fatal and a denial is a denial for sandbox-exec
		 * only (a refused nested sandbox); elsewhere the runner failed */
		if (want_fatal && is_fatal && !is_info && (!has_denial || c->enforcement != CORDON_ENFORCEMENT_SEATBELT)) {
			verdict = CORDON_VERDICT_RUNNER_FAILED;
			*ret_ls = ls;
			*ret_le = le;
			break;
		}
		if (has_denial)
			verdict = CORDON_VERDICT_DENIED;
		if (!nl)
			break;
		ls = end + 1;
	}
	free(low);
	free_strv(denial);
	free_strv(fatal);
	free_strv(info);
	return verdict;
}

/* Header lines into the three vectors; returns where the output starts. */
static size_t parse_header(const char *p, size_t n, char **denial, char **fatal, char **info)
{
	size_t nd = 0, nf = 0, ni = 0, pos = 0;

	while (pos < n) {
		const char *nl = memchr(p + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - p) : n;

		if (end == pos)
			return pos + 1; /* the empty line */
		switch (p[pos]) {
		case 'd':
			if (nd < MAX_SIGS)
				denial[nd++] = strndup(p + pos + 1, end - pos - 1);
			break;
		case 'f':
			if (nf < MAX_SIGS)
				fatal[nf++] = strndup(p + pos + 1, end - pos - 1);
			break;
		case 'i':
			if (ni < MAX_SIGS)
				info[ni++] = strndup(p + pos + 1, end - pos - 1);
			break;
		default:
			break;
		}
		pos = end + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *denial[MAX_SIGS + 1] = { 0 }, *fatal[MAX_SIGS + 1] = { 0 }, *info[MAX_SIGS + 1] = { 0 };
	struct cordon_confined c = { 0 };
	struct cordon_classification cl;
	const char *p = (const char *)data + 3;
	size_t n, start = 0, len, pad = 0, ls = 0, le = 0;
	int status, allowed[1];
	enum cordon_verdict want;
	char *out;

	if (size < 3)
		return 0;
	status = data[0];
	n = size - 3;
	if (data[1] & 1) {
		allowed[0] = status;
		c.allowed_exit_codes = allowed;
		c.n_allowed_exit_codes = 1;
	}
	if (data[1] & 2) {
		start = parse_header(p, n, denial, fatal, info);
		c.denial_signatures = denial;
		c.fatal_signatures = fatal;
		c.informational_lines = info;
	} else {
		c.denial_signatures = (char **)bwrap_denial;
		c.fatal_signatures = (char **)bwrap_fatal;
		c.informational_lines = (char **)bwrap_info;
	}
	if (data[1] & 4)
		pad = PAD_TARGET - data[2];
	c.enforcement = data[1] & 8 ? CORDON_ENFORCEMENT_SEATBELT : CORDON_ENFORCEMENT_BWRAP;

	/* The output in its own allocation, so ASan sees reads past it. */
	len = pad + (n - start);
	out = malloc(len ? len : 1);
	CHECK(out);
	for (size_t i = 0; i < pad; i++)
		out[i] = (i % 64 == 63 || i == pad - 1) ? '\n' : 'x';
	memcpy(out + pad, p + start, n - start);

	CHECK(cordon_classify(&c, status, out, len, &cl) == 0);
	CHECK((cl.verdict == CORDON_VERDICT_RUNNER_FAILED) == (cl.line != NULL));
	if (status == 0)
		CHECK(cl.verdict == CORDON_VERDICT_OK);

	if (len <= REFERENCE_MAX) {
		want = reference(&c, status, out, len, &ls, &le);
		CHECK(cl.verdict == want);
		if (want == CORDON_VERDICT_RUNNER_FAILED)
			CHECK(memcmp(cl.line, out + ls, le - ls) == 0 && cl.line[le - ls] == '\0');
	}

	free(cl.line);
	free(out);
	for (size_t i = 0; i < MAX_SIGS; i++) {
		free(denial[i]);
		free(fatal[i]);
		free(info[i]);
	}
	return 0;
}
