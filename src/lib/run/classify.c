/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Read a finished confined process's exit status and output and say ok,
 * denied or runner-failed.
 *
 * The rules, in order:
 *   1. exit 0 is ok, whatever the output says (a successful command that
 *      merely prints a signature, say by catting a log, was not denied);
 *   2. unless the exit status is an allowed one, look for a runner failure:
 *      with a status channel, only the channel says so (a record from
 *      cordon's runner; no "exit-code" record from bwrap), and the text is
 *      never read for it; without one, a line whose trimmed form starts
 *      with a fatal signature and is not an informational line (exact
 *      case-insensitive equality, trimmed). Under Seatbelt alone, such a
 *      line that also carries a denial signature is a denial (sandbox-exec
 *      refusing a nested sandbox is the sandbox working); anywhere else
 *      "bwrap: setting up uid map: Permission denied" is the runner failing;
 *   3. a line containing a denial signature anywhere is a denial.
 * Runner failure wins over denial wherever the lines sit: "the runner broke"
 * must never read as "confinement worked".
 *
 * Lines end at '\n'; a trailing '\r' is not part of a line; NUL bytes are
 * ordinary bytes. Matching is ASCII case-insensitive. The runner-failure line
 * is returned as printed: leading blanks kept, only the terminator (and its
 * '\r') removed; a NUL byte inside it ends the returned C string early.
 *
 * Speed: each signature is looked for with a packed-pair filter: two of its
 * rarest bytes are compared against 16 output positions at a time (GCC/Clang
 * vector extensions, so SSE2 or NEON without intrinsics), and only where both
 * agree is the whole signature compared. The output is walked in blocks that
 * stay in cache while every signature scans them; nothing is copied or
 * allocated per line. A fatal candidate that turns out not to qualify makes
 * its signature skip to the next line, so a signature occurring everywhere
 * costs one check per line, not one per byte.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "cleanup.h"

/* Small enough to stay in L1/L2 while every signature scans it. */
#define BLOCK_SIZE ((size_t)32 * 1024)

typedef uint8_t v16u8 __attribute__((vector_size(16)));

struct needle {
	const char *lower; /* ASCII-lowercased copy */
	size_t len;        /* > 0 */
	size_t i1, i2;     /* offsets of the two anchor bytes */
	uint8_t c1, c2;    /* the anchors, lowercased */
	uint8_t fold1, fold2; /* 0x20 for letters: x | 0x20 == c matches both cases */
	size_t from;       /* fatal: next output offset worth searching */
};

struct scan {
	const char *out;
	size_t len;
	bool fatal_denial_is_denial; /* Seatbelt only: see rule 2 */
	struct needle *denial, *fatal, *info;
	size_t n_denial, n_fatal, n_info;
};

static inline unsigned char ascii_lower(unsigned char c)
{
	return c + ((unsigned char)(c - 'A') < 26u ? 32 : 0);
}

static inline bool is_letter(unsigned char c)
{
	return (unsigned char)((c | 0x20) - 'a') < 26u;
}

/* Whitespace a trim removes. Not '\n': it ends lines. Not locale-aware. */
static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void lower_copy(char *restrict dst, const char *restrict src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)ascii_lower((unsigned char)src[i]);
}

/* a: original bytes; b: already lowercased. */
static inline bool ci_equal(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ascii_lower((unsigned char)a[i]) != (unsigned char)b[i])
			return false;
	return true;
}

static inline size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* How common a (lowercased) byte is in tool output: English, paths, code.
 * Only the order matters; the rarest bytes make the best anchors. */
static unsigned byte_commonness(unsigned char c)
{
	static const char by_frequency[] = " etaoinsrldhcu\nmpf/.gywb_-v0,1k:2=\"x(3)'4;5";
	const char *p;

	if (c == '\0')
		return 0;
	p = strchr(by_frequency, c);
	if (p)
		return 200 - (unsigned)(p - by_frequency);
	if (c >= 0x80)
		return 10;
	return 50;
}

static void needle_pick_anchors(struct needle *nd)
{
	const unsigned char *l = (const unsigned char *)nd->lower;
	size_t i1 = 0, i2 = SIZE_MAX;

	for (size_t i = 1; i < nd->len; i++)
		if (byte_commonness(l[i]) < byte_commonness(l[i1]))
			i1 = i;
	/* The second anchor: the rarest byte at another position, preferring
	 * another value (a repeat of the first anchor filters less). */
	for (size_t i = 0; i < nd->len; i++) {
		bool differs, best_differs;

		if (i == i1)
			continue;
		if (i2 == SIZE_MAX) {
			i2 = i;
			continue;
		}
		differs = l[i] != l[i1];
		best_differs = l[i2] != l[i1];
		if (differs != best_differs) {
			if (differs)
				i2 = i;
			continue;
		}
		if (byte_commonness(l[i]) < byte_commonness(l[i2]))
			i2 = i;
	}
	if (i2 == SIZE_MAX)
		i2 = i1;
	nd->i1 = i1;
	nd->i2 = i2;
	nd->c1 = l[i1];
	nd->c2 = l[i2];
	nd->fold1 = is_letter(nd->c1) ? 0x20 : 0;
	nd->fold2 = is_letter(nd->c2) ? 0x20 : 0;
}

static inline v16u8 anchors_match(const char *at, const struct needle *nd, v16u8 c1, v16u8 c2, v16u8 f1,
				  v16u8 f2)
{
	v16u8 a, b;

	memcpy(&a, at + nd->i1, sizeof(a));
	memcpy(&b, at + nd->i2, sizeof(b));
	return (v16u8)((a | f1) == c1) & (v16u8)((b | f2) == c2);
}

static inline bool any_lane(v16u8 m)
{
	uint64_t w[2];

	memcpy(w, &m, sizeof(w));
	return (w[0] | w[1]) != 0;
}

/* The scalar check, for the few candidates the vector filter lets through
 * and for the tail. Kept out of line so the filter loop stays in registers. */
static __attribute__((noinline)) size_t verify_range(const char *out, const struct needle *nd, size_t p,
						     size_t to)
{
	for (; p < to; p++)
		if (((uint8_t)out[p + nd->i1] | nd->fold1) == nd->c1 &&
		    ((uint8_t)out[p + nd->i2] | nd->fold2) == nd->c2 &&
		    ci_equal(out + p, nd->lower, nd->len))
			return p;
	return SIZE_MAX;
}

/* The first p in [from, to) where nd occurs in the output, or SIZE_MAX.
 * Reads only out[from, to - 1 + nd->len), which must lie inside the output. */
static size_t needle_find(const struct scan *s, const struct needle *nd, size_t from, size_t to)
{
	const v16u8 c1 = (v16u8){ 0 } + nd->c1, c2 = (v16u8){ 0 } + nd->c2;
	const v16u8 f1 = (v16u8){ 0 } + nd->fold1, f2 = (v16u8){ 0 } + nd->fold2;
	const char *out = s->out;
	size_t p = from;

	/* 64 candidates per round, one branch; p + 64 <= to keeps every
	 * load below to - 1 + len. The rest goes through the scalar check. */
	for (; p + 64 <= to; p += 64) {
		v16u8 m0 = anchors_match(out + p, nd, c1, c2, f1, f2);
		v16u8 m1 = anchors_match(out + p + 16, nd, c1, c2, f1, f2);
		v16u8 m2 = anchors_match(out + p + 32, nd, c1, c2, f1, f2);
		v16u8 m3 = anchors_match(out + p + 48, nd, c1, c2, f1, f2);

		if (any_lane(m0 | m1 | m2 | m3)) {
			size_t hit = verify_range(out, nd, p, p + 64);

			if (hit != SIZE_MAX)
				return hit;
		}
	}
	return verify_range(out, nd, p, to);
}

/* Candidate starts in [from, to) whose match would end inside [0, end). */
static size_t needle_find_bounded(const struct scan *s, const struct needle *nd, size_t from, size_t to,
				  size_t end)
{
	if (nd->len > end || from > end - nd->len)
		return SIZE_MAX;
	return needle_find(s, nd, from, min_size(to, end - nd->len + 1));
}

enum needle_kind {
	NEEDLE_DENIAL,
	NEEDLE_FATAL,
	NEEDLE_INFO,
};

/* Signatures that can never match are left out here, once: empty ones,
 * ones containing '\n' (no line contains one) and fatal ones starting with
 * whitespace (a trimmed line never does). */
static bool needle_usable(const char *s, enum needle_kind kind)
{
	if (!s[0] || strchr(s, '\n'))
		return false;
	if (kind == NEEDLE_FATAL && is_blank(s[0]))
		return false;
	return true;
}

static void needles_count(char *const *v, enum needle_kind kind, size_t *n, size_t *bytes)
{
	for (size_t i = 0; v && v[i]; i++)
		if (needle_usable(v[i], kind)) {
			(*n)++;
			*bytes += strlen(v[i]);
		}
}

static size_t needles_fill(char *const *v, enum needle_kind kind, struct needle *out, char **pool)
{
	size_t n = 0;

	for (size_t i = 0; v && v[i]; i++) {
		size_t len;

		if (!needle_usable(v[i], kind))
			continue;
		len = strlen(v[i]);
		lower_copy(*pool, v[i], len);
		out[n] = (struct needle){ .lower = *pool, .len = len };
		needle_pick_anchors(&out[n]);
		n++;
		*pool += len;
	}
	return n;
}

/* Lowercase every signature once, into one allocation. *ret_mem owns it,
 * NULL when there is nothing to look for. */
static int scan_init(struct scan *s, const struct cordon_confined *c, bool want_fatal, void **ret_mem)
{
	size_t n_denial = 0, n_fatal = 0, n_info = 0, bytes = 0;
	struct needle *needles;
	char *pool;

	needles_count(c->denial_signatures, NEEDLE_DENIAL, &n_denial, &bytes);
	if (want_fatal) {
		needles_count(c->fatal_signatures, NEEDLE_FATAL, &n_fatal, &bytes);
		if (n_fatal > 0)
			needles_count(c->informational_lines, NEEDLE_INFO, &n_info, &bytes);
	}
	if (n_denial == 0 && n_fatal == 0) {
		*ret_mem = NULL;
		return 0;
	}

	needles = malloc((n_denial + n_fatal + n_info) * sizeof(struct needle) + bytes);
	if (!needles)
		return -ENOMEM;
	pool = (char *)(needles + n_denial + n_fatal + n_info);
	s->denial = needles;
	s->fatal = needles + n_denial;
	s->info = needles + n_denial + n_fatal;
	s->n_denial = needles_fill(c->denial_signatures, NEEDLE_DENIAL, s->denial, &pool);
	if (n_fatal > 0) {
		s->n_fatal = needles_fill(c->fatal_signatures, NEEDLE_FATAL, s->fatal, &pool);
		s->n_info = needles_fill(c->informational_lines, NEEDLE_INFO, s->info, &pool);
	}
	*ret_mem = needles;
	return 0;
}

static size_t line_end(const struct scan *s, size_t from)
{
	const char *nl = memchr(s->out + from, '\n', s->len - from);

	return nl ? (size_t)(nl - s->out) : s->len;
}

/* Does out[ls, le) (one line, terminator excluded) contain a denial
 * signature? */
static bool line_has_denial(const struct scan *s, size_t ls, size_t le)
{
	for (size_t i = 0; i < s->n_denial; i++)
		if (needle_find_bounded(s, &s->denial[i], ls, le, le) != SIZE_MAX)
			return true;
	return false;
}

/* A fatal signature was found at offset a. Is its line a runner failure?
 * If so, *ret_ls and *ret_le delimit the line (trailing '\r' excluded).
 * *ret_next is where this signature's search resumes either way. */
static bool fatal_line_at(const struct scan *s, size_t a, size_t sig_len, size_t *ret_ls, size_t *ret_le,
			  size_t *ret_next)
{
	size_t ls = a, le, te, nl;

	/* Only whitespace may precede it on its line. */
	while (ls > 0 && is_blank(s->out[ls - 1]))
		ls--;
	/* Any later hit of this signature on this line is mid-line (its
	 * first byte is not blank): resume at the next line, whatever the
	 * verdict on this one. That keeps a signature found at every byte
	 * to one check per line. */
	nl = line_end(s, a);
	*ret_next = nl + 1;
	if (ls > 0 && s->out[ls - 1] != '\n')
		return false;

	le = nl;
	if (le > ls && s->out[le - 1] == '\r')
		le--;
	te = le;
	while (te > a && is_blank(s->out[te - 1]))
		te--;
	/* A prefix of the trimmed line: "bwrap: " does not match "bwrap:". */
	if (a + sig_len > te)
		return false;

	for (size_t i = 0; i < s->n_info; i++)
		if (s->info[i].len == te - a && ci_equal(s->out + a, s->info[i].lower, te - a))
			return false;
	if (s->fatal_denial_is_denial && line_has_denial(s, ls, le))
		return false;

	*ret_ls = ls;
	*ret_le = le;
	return true;
}

/* A denial hit at a is real unless it swallowed the '\r' that ends a line. */
static bool denial_hit_valid(const struct scan *s, size_t a, const struct needle *d)
{
	size_t e = a + d->len;

	if (d->lower[d->len - 1] != '\r')
		return true;
	return e < s->len && s->out[e] != '\n';
}

static bool block_has_denial(const struct scan *s, size_t pos, size_t end)
{
	for (size_t i = 0; i < s->n_denial; i++) {
		const struct needle *d = &s->denial[i];

		for (size_t from = pos;;) {
			size_t a = needle_find_bounded(s, d, from, end, s->len);

			if (a == SIZE_MAX)
				break;
			if (denial_hit_valid(s, a, d))
				return true;
			from = a + 1;
		}
	}
	return false;
}

/* The first runner-failure line starting in [pos, end), if any. */
static bool block_find_fatal(struct scan *s, size_t pos, size_t end, size_t *ret_ls, size_t *ret_le)
{
	size_t best = SIZE_MAX, best_ls = 0, best_le = 0;

	for (size_t i = 0; i < s->n_fatal; i++) {
		struct needle *f = &s->fatal[i];

		while (f->from < min_size(end, best)) {
			size_t a = needle_find_bounded(s, f, f->from > pos ? f->from : pos, min_size(end, best),
						       s->len);
			size_t ls, le;

			if (a == SIZE_MAX) {
				f->from = end;
				break;
			}
			if (fatal_line_at(s, a, f->len, &ls, &le, &f->from)) {
				best = a;
				best_ls = ls;
				best_le = le;
				break;
			}
		}
	}
	if (best == SIZE_MAX)
		return false;
	*ret_ls = best_ls;
	*ret_le = best_le;
	return true;
}

static bool exit_status_allowed(const struct cordon_confined *c, int exit_status)
{
	for (size_t i = 0; i < c->n_allowed_exit_codes && c->allowed_exit_codes; i++)
		if (c->allowed_exit_codes[i] == exit_status)
			return true;
	return false;
}

CORDON_API int cordon_classify(const struct cordon_confined *c, int exit_status, const char *output,
			       size_t output_len, struct cordon_classification *ret)
{
	_cleanup_free_ void *mem = NULL;
	struct scan s = { .out = output, .len = output_len };
	bool want_fatal, denied = false;
	int r;

	if (!c || !ret || (!output && output_len > 0))
		return -EINVAL;

	if (exit_status == 0) {
		*ret = (struct cordon_classification){ .verdict = CORDON_VERDICT_OK };
		return 0;
	}

	/* Allowed statuses exempt from runner failure only, not denial. A
	 * status channel replaces the text: a command printing the runner's
	 * words must not read as the runner failing. */
	want_fatal = !exit_status_allowed(c, exit_status) && c->status_format == CORDON_STATUS_NONE;
	s.fatal_denial_is_denial = c->enforcement == CORDON_ENFORCEMENT_SEATBELT;

	r = scan_init(&s, c, want_fatal, &mem);
	if (r < 0)
		return r;

	for (size_t pos = 0; mem && pos < s.len;) {
		size_t end = pos + min_size(BLOCK_SIZE, s.len - pos);
		size_t ls, le;

		if (s.n_fatal == 0 && (denied || s.n_denial == 0))
			break;
		if (s.n_fatal > 0 && block_find_fatal(&s, pos, end, &ls, &le)) {
			char *line = malloc(le - ls + 1);

			if (!line)
				return -ENOMEM;
			memcpy(line, s.out + ls, le - ls);
			line[le - ls] = '\0';
			*ret = (struct cordon_classification){
				.verdict = CORDON_VERDICT_RUNNER_FAILED,
				.line = line,
			};
			return 0;
		}
		if (!denied && s.n_denial > 0)
			denied = block_has_denial(&s, pos, end);
		pos = end;
	}

	*ret = (struct cordon_classification){
		.verdict = denied ? CORDON_VERDICT_DENIED : CORDON_VERDICT_OK,
	};
	return 0;
}

/* ---- Status channels ------------------------------------------------------ */

static const char *const status_format_names[] = {
	[CORDON_STATUS_NONE] = "none",
	[CORDON_STATUS_CORDON] = "cordon",
	[CORDON_STATUS_BWRAP_JSON] = "bwrap-json",
	[CORDON_STATUS_BWRAP_NESTED] = "bwrap-nested",
};

CORDON_API const char *cordon_status_format_to_string(enum cordon_status_format f)
{
	if ((unsigned)f >= sizeof(status_format_names) / sizeof(status_format_names[0]))
		return "invalid";
	return status_format_names[f];
}

CORDON_API int cordon_status_format_from_string(const char *s, enum cordon_status_format *ret)
{
	for (size_t i = 0; s && i < sizeof(status_format_names) / sizeof(status_format_names[0]); i++)
		if (strcmp(s, status_format_names[i]) == 0) {
			*ret = (enum cordon_status_format)i;
			return 0;
		}
	return -EINVAL;
}

/* The caller's copy of [p, p + n), NUL bytes ending it early. */
static char *line_dup(const char *p, size_t n)
{
	char *line = malloc(n + 1);

	if (!line)
		return NULL;
	memcpy(line, p, n);
	line[n] = '\0';
	return line;
}

/* cordon's runner: "STEP\tERRNO-NAME\tMESSAGE\n", written only on failure.
 * The first record decides; a record without both tabs is still the runner
 * saying it failed (whatever it wrote), so its whole first line is kept. */
static char *cordon_record_message(const char *status, size_t len)
{
	const char *end = memchr(status, '\n', len) ?: status + len;
	const char *msg = status, *tab;

	for (int field = 0; field < 2; field++) {
		tab = memchr(msg, '\t', (size_t)(end - msg));
		if (!tab) {
			msg = status;
			break;
		}
		msg = tab + 1;
	}
	return line_dup(msg, (size_t)(end - msg));
}

/* Did bwrap report the command's exit? It writes {"exit-code": N} only once
 * the command was executed (its "setup finished" pipe), after the
 * {"child-pid": N} record that comes before its own setup in the child. */
static bool bwrap_reported_exit(const char *status, size_t len)
{
	static const char key[] = "\"exit-code\"";

	for (size_t i = 0; i + sizeof(key) - 1 <= len; i++)
		if (memcmp(status + i, key, sizeof(key) - 1) == 0)
			return true;
	return false;
}

/* bwrap's own first line: before the command runs, everything on its
 * stderr is bwrap's. */
static char *first_line(const char *out, size_t len, int exit_status)
{
	char *line;

	for (size_t ls = 0; ls < len;) {
		const char *nl = memchr(out + ls, '\n', len - ls);
		size_t le = nl ? (size_t)(nl - out) : len, te = le;

		while (te > ls && is_blank(out[te - 1]))
			te--;
		if (te > ls && out[ls] != '\0')
			return line_dup(out + ls, te - ls);
		ls = le + 1;
	}
	if (asprintf(&line, "bwrap exited with status %d before starting the command", exit_status) < 0)
		return NULL;
	return line;
}

CORDON_API int cordon_runner_exec_refused(const char *line, char *buf, size_t size)
{
	static const char tag[] = "execve: ", tail[] = ": EACCES";
	const char *p = line ? strstr(line, tag) : NULL, *e;
	struct stat st;

	if (!p || p[strlen(tag)] != '/' || !(e = strstr(p, tail)) || e[strlen(tail)] != '\0')
		return -ENOENT;
	p += strlen(tag);
	if (!buf || (size_t)(e - p) >= size)
		return -ENAMETOOLONG;
	memcpy(buf, p, (size_t)(e - p));
	buf[e - p] = '\0';
	/* The mode first: a file that is no executable regular file here (a
	 * header, a directory) failed on its own, whatever the sandbox says */
	if (stat(buf, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111) || access(buf, X_OK) < 0)
		return -ENOEXEC;
	return 0;
}

/* The runner could not execute a file this process may execute: the
 * sandbox refused it (the execute-only gate, a controlled command's
 * executable, a hidden directory), a denial, not the runner failing. */
static bool sandbox_refused_exec(const char *line)
{
	char path[PATH_MAX];

	return cordon_runner_exec_refused(line, path, sizeof(path)) == 0;
}

/* The runner's record is its execve step: cordon's machinery worked and
 * the command could not be executed (127: not found, 126: not
 * executable), the command's own outcome, as a shell reports it. */
static bool record_is_exec_failure(const char *status, size_t len, int exit_status)
{
	static const char step[] = "execve\t";

	return (exit_status == 126 || exit_status == 127) && len > strlen(step) &&
	       memcmp(status, step, strlen(step)) == 0;
}

CORDON_API bool cordon_status_is_denial(const char *status, size_t len)
{
	static const char tag[] = CORDON_STATUS_DENIAL_TAG "\t";

	return status && len >= sizeof(tag) - 1 && memcmp(status, tag, sizeof(tag) - 1) == 0;
}

/* The status channel without its denial records (cordon/classify.h), into
 * buf (status_len bytes); how many there were in *ret_denials. */
static size_t status_without_denials(const char *status, size_t status_len, char *buf, size_t *ret_denials)
{
	size_t n = 0, denials = 0;

	for (size_t ls = 0; ls < status_len;) {
		const char *nl = memchr(status + ls, '\n', status_len - ls);
		size_t le = nl ? (size_t)(nl - status) + 1 : status_len;

		if (cordon_status_is_denial(status + ls, le - ls))
			denials++;
		else {
			memcpy(buf + n, status + ls, le - ls);
			n += le - ls;
		}
		ls = le;
	}
	*ret_denials = denials;
	return n;
}

static int classify_records(const struct cordon_confined *c, int exit_status, const char *status,
			    size_t status_len, const char *output, size_t output_len,
			    struct cordon_classification *ret);

CORDON_API int cordon_classify_status(const struct cordon_confined *c, int exit_status, const char *status,
				      size_t status_len, const char *output, size_t output_len,
				      struct cordon_classification *ret)
{
	_cleanup_free_ char *rest = NULL;
	size_t denials = 0, n;
	int r;

	if (!c || !ret || (!status && status_len > 0) || (!output && output_len > 0))
		return -EINVAL;
	if (exit_status == 0 || exit_status_allowed(c, exit_status) || c->status_format == CORDON_STATUS_NONE ||
	    status_len == 0)
		return classify_records(c, exit_status, status, status_len, output, output_len, ret);
	rest = calloc(1, status_len + 1);
	if (!rest)
		return -ENOMEM;
	n = status_without_denials(status, status_len, rest, &denials);
	r = classify_records(c, exit_status, rest, n, output, output_len, ret);
	/* what cordon itself refused, and a command that then failed: denied */
	if (r >= 0 && denials > 0 && ret->verdict == CORDON_VERDICT_OK && !(exit_status == 126 || exit_status == 127))
		ret->verdict = CORDON_VERDICT_DENIED;
	return r;
}

static int classify_records(const struct cordon_confined *c, int exit_status, const char *status,
			    size_t status_len, const char *output, size_t output_len,
			    struct cordon_classification *ret)
{
	char *line = NULL;

	if (exit_status == 0 || exit_status_allowed(c, exit_status))
		return cordon_classify(c, exit_status, output, output_len, ret);

	switch (c->status_format) {
	case CORDON_STATUS_NONE:
		return cordon_classify(c, exit_status, output, output_len, ret);
	case CORDON_STATUS_CORDON:
		if (status_len == 0)
			return cordon_classify(c, exit_status, output, output_len, ret);
		line = cordon_record_message(status, status_len);
		if (line && record_is_exec_failure(status, status_len, exit_status) && !sandbox_refused_exec(line)) {
			free(line);
			*ret = (struct cordon_classification){ .verdict = CORDON_VERDICT_OK };
			return 0;
		}
		break;
	case CORDON_STATUS_BWRAP_NESTED:
		/* the nested runner's record: any line that is not bwrap's JSON */
		for (size_t ls = 0; ls < status_len;) {
			const char *nl = memchr(status + ls, '\n', status_len - ls);
			size_t le = nl ? (size_t)(nl - status) : status_len;

			if (le > ls && status[ls] != '{') {
				line = cordon_record_message(status + ls, le - ls);
				if (line && record_is_exec_failure(status + ls, le - ls, exit_status) &&
				    !sandbox_refused_exec(line)) {
					free(line);
					*ret = (struct cordon_classification){ .verdict = CORDON_VERDICT_OK };
					return 0;
				}
				break;
			}
			ls = le + 1;
		}
		if (line)
			break;
		__attribute__((fallthrough));
	case CORDON_STATUS_BWRAP_JSON:
		/* Killed by a signal (128+N), bwrap could not report: that is
		 * not bwrap failing to start the command. */
		if (exit_status > 128 || bwrap_reported_exit(status, status_len))
			return cordon_classify(c, exit_status, output, output_len, ret);
		line = first_line(output ?: "", output_len, exit_status);
		break;
	}
	if (!line)
		return -ENOMEM;
	if (sandbox_refused_exec(line)) {
		free(line);
		*ret = (struct cordon_classification){ .verdict = CORDON_VERDICT_DENIED };
		return 0;
	}
	*ret = (struct cordon_classification){ .verdict = CORDON_VERDICT_RUNNER_FAILED, .line = line };
	return 0;
}

CORDON_API int cordon_classify_ex(const struct cordon_confined *c, int exit_status, const char *status,
				  size_t status_len, const char *output, size_t output_len,
				  const struct cordon_classify_facts *facts, struct cordon_classification *ret)
{
	int r = cordon_classify_status(c, exit_status, status, status_len, output, output_len, ret);

	if (r < 0 || !facts || !facts->timed_out || ret->verdict == CORDON_VERDICT_RUNNER_FAILED)
		return r;
	ret->verdict = CORDON_VERDICT_TIMEOUT;
	return 0;
}
