/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_confined *, cordon_confined_free)
#define _cleanup_confined_ _cleanup_(cordon_confined_freep)

static void assert_strv_eq(char **a, const char *const *b)
{
	size_t i = 0;

	for (; b[i]; i++) {
		cr_assert_not_null(a[i], "element %zu missing", i);
		cr_assert_str_eq(a[i], b[i]);
	}
	cr_assert_null(a[i]);
}

Test(confined_json, exact_output)
{
	char *argv[] = { "/bin/echo", "hi", NULL };
	char *denial[] = { "permission denied", NULL };
	char *fatal[] = { "bwrap: ", NULL };
	int codes[] = { 1, 71 };
	struct cordon_confined c = {
		.argv = argv,
		.mode = CORDON_MODE_WORKSPACE_WRITE,
		.enforcement = CORDON_ENFORCEMENT_BWRAP,
		.grade = CORDON_GRADE_PARTIAL,
		.denial_signatures = denial,
		.fatal_signatures = fatal,
		.informational_lines = NULL, /* NULL and {NULL} both write [] */
		.allowed_exit_codes = codes,
		.n_allowed_exit_codes = 2,
	};
	_cleanup_free_ char *s = NULL;

	cr_assert_eq(cordon_confined_to_json(&c, &s), 0);
	cr_assert_str_eq(s, "{\"argv\":[\"/bin/echo\",\"hi\"],\"mode\":\"workspace-write\",\"enforcement\":\"bwrap\","
			    "\"grade\":\"partial\",\"denial_signatures\":[\"permission denied\"],"
			    "\"fatal_signatures\":[\"bwrap: \"],\"informational_lines\":[],"
			    "\"allowed_exit_codes\":[1,71],\"envp\":null,\"status_fd\":-1,\"status_format\":\"none\","
			    "\"exec_fd\":-1}");
}

/* The environment and the status channel survive the trip; a value written
 * before they existed reads back as "inherit, no channel". */
Test(confined_json, envp_and_status_channel)
{
	char *argv[] = { "/usr/bin/bwrap", "--json-status-fd", "3", "--", "true", NULL };
	char *envp[] = { "PATH=/usr/bin", "API_KEY=s=e=c", "EMPTY=", NULL };
	char *none[] = { NULL };
	struct cordon_confined c = {
		.argv = argv,
		.enforcement = CORDON_ENFORCEMENT_BWRAP,
		.denial_signatures = none,
		.fatal_signatures = none,
		.envp = envp,
		.status_fd = 3,
		.status_format = CORDON_STATUS_BWRAP_JSON,
	};
	const char *old = "{\"argv\":[\"x\"],\"mode\":\"read-only\",\"enforcement\":\"native\",\"grade\":\"full\","
			  "\"denial_signatures\":[],\"fatal_signatures\":[\"cordon: \"],\"informational_lines\":[],"
			  "\"allowed_exit_codes\":[]}";
	_cleanup_free_ char *s = NULL, *s2 = NULL;
	_cleanup_confined_ struct cordon_confined *back = NULL, *back_old = NULL;
	struct cordon_error err = { 0 };

	cr_assert_eq(cordon_confined_to_json(&c, &s), 0);
	cr_assert(strstr(s, "\"envp\":[\"PATH=/usr/bin\",\"API_KEY=s=e=c\",\"EMPTY=\"],\"status_fd\":3,"
			    "\"status_format\":\"bwrap-json\",\"exec_fd\":-1}"), "%s", s);
	cr_assert_eq(cordon_confined_from_json(s, strlen(s), &back, &err), 0, "%s", err.message);
	assert_strv_eq(back->envp, (const char *const *)envp);
	cr_assert_eq(back->status_fd, 3);
	cr_assert_eq(back->status_format, CORDON_STATUS_BWRAP_JSON);
	cr_assert_eq(cordon_confined_to_json(back, &s2), 0);
	cr_assert_str_eq(s, s2);

	cr_assert_eq(cordon_confined_from_json(old, strlen(old), &back_old, &err), 0, "%s", err.message);
	cr_assert_null(back_old->envp);
	cr_assert_eq(back_old->status_fd, -1);
	cr_assert_eq(back_old->status_format, CORDON_STATUS_NONE);

	cr_assert_eq(back_old->exec_fd, -1, "written before exec_fd existed: none");

	/* a channel needs an fd number above stdio */
	c.status_fd = 2;
	cr_assert_eq(cordon_confined_to_json(&c, &s2), -EINVAL);
}

/* The fd the command runs from survives the trip; a bad one is refused. */
Test(confined_json, exec_fd)
{
	char *argv[] = { "/usr/bin/cordon", "exec", "--exec-fd", "4", "--", "git", NULL };
	char *none[] = { NULL };
	struct cordon_confined c = {
		.argv = argv,
		.enforcement = CORDON_ENFORCEMENT_NATIVE,
		.denial_signatures = none,
		.fatal_signatures = none,
		.status_fd = 3,
		.status_format = CORDON_STATUS_CORDON,
		.exec_fd = 4,
	};
	static const char *const bad[] = {
		"{\"argv\":[\"x\"],\"mode\":\"read-only\",\"enforcement\":\"native\",\"grade\":\"full\","
		"\"denial_signatures\":[],\"fatal_signatures\":[],\"informational_lines\":[],"
		"\"allowed_exit_codes\":[],\"status_fd\":3,\"status_format\":\"cordon\",\"exec_fd\":3}",
		"{\"argv\":[\"x\"],\"mode\":\"read-only\",\"enforcement\":\"native\",\"grade\":\"full\","
		"\"denial_signatures\":[],\"fatal_signatures\":[],\"informational_lines\":[],"
		"\"allowed_exit_codes\":[],\"exec_fd\":2}",
		"{\"argv\":[\"x\"],\"mode\":\"read-only\",\"enforcement\":\"native\",\"grade\":\"full\","
		"\"denial_signatures\":[],\"fatal_signatures\":[],\"informational_lines\":[],"
		"\"allowed_exit_codes\":[],\"exec_fd\":\"4\"}",
	};
	_cleanup_free_ char *s = NULL;
	_cleanup_confined_ struct cordon_confined *back = NULL;
	struct cordon_error err = { 0 };

	cr_assert_eq(cordon_confined_to_json(&c, &s), 0);
	cr_assert(strstr(s, "\"exec_fd\":4}"), "%s", s);
	cr_assert_eq(cordon_confined_from_json(s, strlen(s), &back, &err), 0, "%s", err.message);
	cr_assert_eq(back->exec_fd, 4);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cordon_confined *x = NULL;

		err = (struct cordon_error){ 0 };
		cr_assert_eq(cordon_confined_from_json(bad[i], strlen(bad[i]), &x, &err), -EINVAL, "%s", bad[i]);
		cr_assert(strstr(err.message, "exec_fd"), "%s", err.message);
	}
	/* the same number as the status channel cannot be written either */
	c.exec_fd = 3;
	free(s);
	s = NULL;
	cr_assert_eq(cordon_confined_to_json(&c, &s), -EINVAL);
}

Test(confined_json, envp_and_status_refusals)
{
	static const char head[] = "{\"argv\":[\"x\"],\"mode\":\"read-only\",\"enforcement\":\"native\",\"grade\":\"full\","
				   "\"denial_signatures\":[],\"fatal_signatures\":[],\"informational_lines\":[],"
				   "\"allowed_exit_codes\":[]";
	static const struct {
		const char *tail, *message;
	} bad[] = {
		{ ",\"envp\":[\"NOEQUALS\"]}", "\"envp\"[0] must be NAME=VALUE" },
		{ ",\"envp\":[\"=v\"]}", "\"envp\"[0] must be NAME=VALUE" },
		{ ",\"envp\":\"A=1\"}", "\"envp\" must be an array of strings" },
		{ ",\"status_fd\":3}", "missing key \"status_format\"" },
		{ ",\"status_format\":\"cordon\"}", "missing key \"status_fd\"" },
		{ ",\"status_fd\":2,\"status_format\":\"cordon\"}", "\"status_fd\" must be an fd number from 3 to 65535" },
		{ ",\"status_fd\":3,\"status_format\":\"none\"}", "\"status_fd\" must be -1 without a status format" },
		{ ",\"status_fd\":3,\"status_format\":\"json\"}", "\"status_format\" must be none, cordon, bwrap-json or bwrap-nested" },
		{ ",\"status_fd\":\"3\",\"status_format\":\"cordon\"}", "\"status_fd\" must be an integer" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_free_ char *doc = NULL;
		struct cordon_confined *c = NULL;
		struct cordon_error err = { 0 };

		cr_assert_gt(asprintf(&doc, "%s%s", head, bad[i].tail), 0);
		cr_assert_eq(cordon_confined_from_json(doc, strlen(doc), &c, &err), -EINVAL, "%s", doc);
		cr_assert_null(c);
		cr_assert(strstr(err.message, bad[i].message), "%s: got `%s`", doc, err.message);
	}
}

Test(confined_json, round_trip)
{
	char *argv[] = { "/bin/sh", "-c", "printf '%s\\n' \"a\\\\b\"\t\x01 é ☃ 𝄞", "x\ny", NULL };
	char *denial[] = { "operation not permitted", "Permission Denied", "", NULL };
	char *fatal[] = { "sandbox-exec: ", NULL };
	char *info[] = { "sandbox-exec: note \"quoted\"", NULL };
	int codes[] = { 0, 255 };
	struct cordon_confined c = {
		.argv = argv,
		.mode = CORDON_MODE_READ_ONLY,
		.enforcement = CORDON_ENFORCEMENT_SEATBELT,
		.grade = CORDON_GRADE_FULL,
		.denial_signatures = denial,
		.fatal_signatures = fatal,
		.informational_lines = info,
		.allowed_exit_codes = codes,
		.n_allowed_exit_codes = 2,
	};
	_cleanup_free_ char *s = NULL, *s2 = NULL;
	_cleanup_confined_ struct cordon_confined *back = NULL;
	struct cordon_error err = { 0 };

	cr_assert_eq(cordon_confined_to_json(&c, &s), 0);
	cr_assert_eq(cordon_confined_from_json(s, strlen(s), &back, &err), 0, "%s", err.message);
	assert_strv_eq(back->argv, (const char *const *)argv);
	assert_strv_eq(back->denial_signatures, (const char *const *)denial);
	assert_strv_eq(back->fatal_signatures, (const char *const *)fatal);
	assert_strv_eq(back->informational_lines, (const char *const *)info);
	cr_assert_eq(back->mode, CORDON_MODE_READ_ONLY);
	cr_assert_eq(back->enforcement, CORDON_ENFORCEMENT_SEATBELT);
	cr_assert_eq(back->grade, CORDON_GRADE_FULL);
	cr_assert_eq(back->n_allowed_exit_codes, 2);
	cr_assert_eq(back->allowed_exit_codes[0], 0);
	cr_assert_eq(back->allowed_exit_codes[1], 255);

	cr_assert_eq(cordon_confined_to_json(back, &s2), 0);
	cr_assert_str_eq(s, s2);
}

Test(confined_json, round_trip_every_enum)
{
	char *argv[] = { "true", NULL };

	for (int m = CORDON_MODE_READ_ONLY; m <= CORDON_MODE_DANGER_FULL_ACCESS; m++)
		for (int e = CORDON_ENFORCEMENT_NONE; e <= CORDON_ENFORCEMENT_SEATBELT; e++)
			for (int g = CORDON_GRADE_FULL; g <= CORDON_GRADE_PARTIAL; g++) {
				struct cordon_confined c = { .argv = argv, .mode = m, .enforcement = e, .grade = g };
				_cleanup_confined_ struct cordon_confined *back = NULL;
				_cleanup_free_ char *s = NULL;

				cr_assert_eq(cordon_confined_to_json(&c, &s), 0);
				cr_assert_eq(cordon_confined_from_json(s, strlen(s), &back, NULL), 0, "%s", s);
				cr_assert_eq((int)back->mode, m);
				cr_assert_eq((int)back->enforcement, e);
				cr_assert_eq((int)back->grade, g);
				/* empty lists read back as empty vectors */
				cr_assert_not_null(back->denial_signatures);
				cr_assert_null(back->denial_signatures[0]);
				cr_assert_eq(back->n_allowed_exit_codes, 0);
			}
}

Test(confined_json, to_json_refusals)
{
	char *argv[] = { "true", NULL };
	char *bad_utf8[] = { "caf\xe9", NULL };
	char *empty[] = { NULL };
	struct cordon_confined c = { .argv = argv };
	char *s = (char *)"untouched";

	cr_assert_eq(cordon_confined_to_json(NULL, &s), -EINVAL);
	cr_assert_eq(cordon_confined_to_json(&c, NULL), -EINVAL);
	c.argv = NULL;
	cr_assert_eq(cordon_confined_to_json(&c, &s), -EINVAL);
	c.argv = empty;
	cr_assert_eq(cordon_confined_to_json(&c, &s), -EINVAL);
	c.argv = bad_utf8;
	cr_assert_eq(cordon_confined_to_json(&c, &s), -EINVAL);
	c.argv = argv;
	c.denial_signatures = bad_utf8;
	cr_assert_eq(cordon_confined_to_json(&c, &s), -EINVAL);
	c.denial_signatures = NULL;
	c.mode = (enum cordon_mode)42;
	cr_assert_eq(cordon_confined_to_json(&c, &s), -EINVAL);
	c.mode = CORDON_MODE_READ_ONLY;
	c.n_allowed_exit_codes = 1;
	cr_assert_eq(cordon_confined_to_json(&c, &s), -EINVAL);
	cr_assert_str_eq(s, "untouched");
}

/* A valid document, one key per line (line 2 + index), so positions in the
 * expected messages can be checked by eye. */
static const char *const base_lines[] = {
	"\"argv\": [\"/bin/echo\", \"hi\"]",
	"\"mode\": \"read-only\"",
	"\"enforcement\": \"native\"",
	"\"grade\": \"full\"",
	"\"denial_signatures\": [\"permission denied\"]",
	"\"fatal_signatures\": [\"cordon: \"]",
	"\"informational_lines\": []",
	"\"allowed_exit_codes\": [125]",
};

#define KEEP NULL
#define DROP ""

struct bad_case {
	const char *name;
	int line_index;      /* which base line to replace; -1: none */
	const char *replace; /* DROP removes the line */
	const char *append;  /* an extra member at the end, or NULL */
	const char *raw;     /* the whole input instead, if set */
	size_t raw_len;      /* 0: strlen(raw) */
	const char *message;
	int line, column;
	const char *path;
};

static const struct bad_case bad_cases[] = {
	{ "wrong type for mode", 1, "\"mode\": 3", .message = "line 3, column 11: \"mode\" must be a string, not an integer",
	  .line = 3, .column = 11, .path = "$.mode" },
	{ "wrong type in argv", 0, "\"argv\": [\"/bin/echo\", 42]",
	  .message = "line 2, column 25: \"argv\"[1] must be a string, not an integer", .line = 2, .column = 25,
	  .path = "$.argv[1]" },
	{ "argv not an array", 0, "\"argv\": \"/bin/echo hi\"",
	  .message = "line 2, column 11: \"argv\" must be an array of strings, not a string", .line = 2, .column = 11,
	  .path = "$.argv" },
	{ "argv empty", 0, "\"argv\": [ ]", .message = "line 2, column 11: \"argv\" must not be empty",
	  .line = 2, .column = 11, .path = "$.argv" },
	{ "argv empty string", 0, "\"argv\": [\"x\", \"\"]",
	  .message = "line 2, column 17: \"argv\"[1] must not be an empty string", .line = 2, .column = 17,
	  .path = "$.argv[1]" },
	{ "nested arrays in argv", 0, "\"argv\": [[[\"x\"]], \"y\"]",
	  .message = "line 2, column 12: \"argv\"[0] must be a string, not an array", .line = 2, .column = 12,
	  .path = "$.argv[0]" },
	{ "signature not a string", 5, "\"fatal_signatures\": [\"a\", {\"b\": [1, \"]\"]}, null]",
	  .message = "line 7, column 29: \"fatal_signatures\"[1] must be a string, not an object", .line = 7,
	  .column = 29, .path = "$.fatal_signatures[1]" },
	{ "element after strings with brackets and escapes", 5, "\"fatal_signatures\": [\"a]\\\",\", \"b{\", 7]",
	  .message = "line 7, column 39: \"fatal_signatures\"[2] must be a string, not an integer", .line = 7,
	  .column = 39, .path = "$.fatal_signatures[2]" },
	{ "unknown key", -1, .append = "\"argv0\": \"x\"", .message = "line 10, column 3: unknown key \"argv0\"",
	  .line = 10, .column = 3, .path = "$" },
	{ "unknown key with control characters", -1, .append = "\"a\\nb\\u0001\": 1",
	  .message = "line 10, column 3: unknown key \"a\\nb\\u0001\"", .line = 10, .column = 3, .path = "$" },
	{ "missing argv", 0, DROP, .message = "line 1, column 1: missing key \"argv\"", .line = 1, .column = 1,
	  .path = "$" },
	{ "missing allowed_exit_codes", 7, DROP, .message = "line 1, column 1: missing key \"allowed_exit_codes\"",
	  .line = 1, .column = 1, .path = "$" },
	{ "bad mode", 1, "\"mode\": \"read-write\"",
	  .message = "line 3, column 11: \"mode\" must be read-only, workspace-write or danger-full-access, "
		     "not \"read-write\"",
	  .line = 3, .column = 11, .path = "$.mode" },
	{ "bad enforcement", 2, "\"enforcement\": \"Native\"",
	  .message = "line 4, column 18: \"enforcement\" must be none, native, bwrap or seatbelt, not \"Native\"",
	  .line = 4, .column = 18, .path = "$.enforcement" },
	{ "bad grade", 3, "\"grade\": null",
	  .message = "line 5, column 12: \"grade\" must be a string, not null", .line = 5, .column = 12,
	  .path = "$.grade" },
	{ "exit code out of range", 7, "\"allowed_exit_codes\": [1, 256]",
	  .message = "line 9, column 29: \"allowed_exit_codes\"[1] must be an exit status from 0 to 255, not 256",
	  .line = 9, .column = 29, .path = "$.allowed_exit_codes[1]" },
	{ "negative exit code", 7, "\"allowed_exit_codes\": [-1]",
	  .message = "line 9, column 26: \"allowed_exit_codes\"[0] must be an exit status from 0 to 255, not -1",
	  .line = 9, .column = 26, .path = "$.allowed_exit_codes[0]" },
	{ "fractional exit code", 7, "\"allowed_exit_codes\": [1.0]",
	  .message = "line 9, column 26: \"allowed_exit_codes\"[0] must be an integer, not a fractional number",
	  .line = 9, .column = 26, .path = "$.allowed_exit_codes[0]" },
	{ "column counts characters", 1, "\"mode\": \"é☃\"",
	  .message = "line 3, column 11: \"mode\" must be read-only, workspace-write or danger-full-access, "
		     "not \"é☃\"",
	  .line = 3, .column = 11, .path = "$.mode" },
	{ "duplicate key", -1, .append = "\"mode\": \"read-only\"",
	  .message = "line 10, column 8: invalid JSON: duplicate object key near '\"mode\"'", .line = 10,
	  .column = 8 },
	{ "invalid UTF-8", 0, "\"argv\": [\"caf\xe9\"]",
	  .message = "line 2, column 15: invalid JSON: unable to decode byte 0xe9 near '\"caf'", .line = 2,
	  .column = 15 },
	{ "escaped NUL", 0, "\"argv\": [\"a\\u0000b\"]",
	  .message = "line 2, column 21: invalid JSON: \\u0000 is not allowed without JSON_ALLOW_NUL near "
		     "'\"a\\u0000b\"'",
	  .line = 2, .column = 21 },
	{ "raw NUL", .raw = "{\"argv\":[1\0]}", .raw_len = 13, .message = "line 1, column 11: NUL byte in JSON input",
	  .line = 1, .column = 11, .path = "" },
	{ "not an object", .raw = "\n  [\"argv\"]", .message = "line 2, column 3: expected an object, not an array",
	  .line = 2, .column = 3, .path = "$" },
	{ "trailing garbage", .raw = "{} x", .message = "line 1, column 4: invalid JSON: end of file expected near 'x'",
	  .line = 1, .column = 4 },
	{ "empty input", .raw = "", .message = "line 1, column 0: invalid JSON: '[' or '{' expected near end of file",
	  .line = 1, .column = 0 },
	{ "truncated", .raw = "{\"argv\": [\"a\"",
	  .message = "line 1, column 13: invalid JSON: ']' expected near end of file", .line = 1, .column = 13 },
};

static char *build_doc(const struct bad_case *bc)
{
	char *doc = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&doc, &size);
	bool first = true;

	cr_assert_not_null(f);
	fputs("{\n", f);
	for (int i = 0; i < (int)ELEMENTSOF(base_lines); i++) {
		const char *l = i == bc->line_index ? bc->replace : base_lines[i];

		if (!l[0])
			continue;
		fprintf(f, "%s  %s", first ? "" : ",\n", l);
		first = false;
	}
	if (bc->append)
		fprintf(f, ",\n  %s", bc->append);
	fputs("\n}\n", f);
	cr_assert_eq(fclose(f), 0);
	return doc;
}

ParameterizedTestParameters(confined_json, invalid)
{
	static size_t idx[ELEMENTSOF(bad_cases)];

	for (size_t i = 0; i < ELEMENTSOF(bad_cases); i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, ELEMENTSOF(idx));
}

ParameterizedTest(size_t *i, confined_json, invalid)
{
	const struct bad_case *bc = &bad_cases[*i];
	_cleanup_free_ char *doc = bc->raw ? NULL : build_doc(bc);
	const char *in = bc->raw ? bc->raw : doc;
	size_t len = bc->raw ? (bc->raw_len ? bc->raw_len : strlen(bc->raw)) : strlen(doc);
	struct cordon_confined *c = (struct cordon_confined *)0x1;
	struct cordon_error err = { 0 };
	int r;

	cr_log_info("%s:\n%.*s", bc->name, (int)len, in);
	r = cordon_confined_from_json(in, len, &c, &err);
	cr_assert_eq(r, -EINVAL, "%s: %d", bc->name, r);
	cr_assert_eq(c, (struct cordon_confined *)0x1, "%s: out-param written", bc->name);
	cr_assert_str_eq(err.message, bc->message, "%s: got `%s`", bc->name, err.message);
	cr_assert_eq(err.line, bc->line, "%s", bc->name);
	cr_assert_eq(err.column, bc->column, "%s", bc->name);
	cr_assert_str_eq(err.path, bc->path ? bc->path : "", "%s", bc->name);

	/* without an error struct, the same code */
	cr_assert_eq(cordon_confined_from_json(in, len, &c, NULL), -EINVAL);
}

Test(confined_json, base_document_is_valid)
{
	struct bad_case none = { .line_index = -1 };
	_cleanup_free_ char *doc = build_doc(&none);
	_cleanup_confined_ struct cordon_confined *c = NULL;
	struct cordon_error err = { 0 };

	cr_assert_eq(cordon_confined_from_json(doc, strlen(doc), &c, &err), 0, "%s", err.message);
	cr_assert_str_eq(c->argv[1], "hi");
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_NATIVE);
	cr_assert_eq(c->n_allowed_exit_codes, 1);
	cr_assert_eq(c->allowed_exit_codes[0], 125);
}

Test(confined_json, size_cap)
{
	struct bad_case none = { .line_index = -1 };
	_cleanup_free_ char *doc = build_doc(&none);
	size_t cap = 1024 * 1024, n = strlen(doc);
	_cleanup_free_ char *big = malloc(cap + 1);
	_cleanup_confined_ struct cordon_confined *c = NULL;
	struct cordon_error err = { 0 };

	cr_assert_not_null(big);
	/* exactly 1 MiB (whitespace-padded) is accepted */
	memcpy(big, doc, n);
	memset(big + n, ' ', cap + 1 - n);
	cr_assert_eq(cordon_confined_from_json(big, cap, &c, &err), 0, "%s", err.message);

	cr_assert_eq(cordon_confined_from_json(big, cap + 1, &c, &err), -EFBIG);
	cr_assert_str_eq(err.message, "confined JSON is 1048577 bytes, more than the 1 MiB limit");
}

Test(confined_json, deep_nesting)
{
	size_t depth = 100000;
	_cleanup_free_ char *doc = malloc(2 * depth + 256);
	struct cordon_confined *c = NULL;
	struct cordon_error err = { 0 };
	size_t n = 0;

	cr_assert_not_null(doc);
	n += (size_t)sprintf(doc, "{\"argv\":");
	memset(doc + n, '[', depth);
	n += depth;
	memset(doc + n, ']', depth);
	n += depth;
	doc[n++] = '}';
	cr_assert_eq(cordon_confined_from_json(doc, n, &c, &err), -EINVAL);
	cr_assert_str_eq(err.message, "line 1, column 2056: invalid JSON: maximum parsing depth reached near '['");
	cr_assert_null(c);

	/* within jansson's limit it parses, and is refused as the wrong type */
	n = (size_t)sprintf(doc, "{\"argv\":");
	memset(doc + n, '[', 100);
	n += 100;
	memset(doc + n, ']', 100);
	n += 100;
	n += (size_t)sprintf(doc + n, ",\"mode\":\"read-only\",\"enforcement\":\"none\",\"grade\":\"full\","
				      "\"denial_signatures\":[],\"fatal_signatures\":[],"
				      "\"informational_lines\":[],\"allowed_exit_codes\":[]}");
	cr_assert_eq(cordon_confined_from_json(doc, n, &c, &err), -EINVAL);
	cr_assert_str_eq(err.message, "line 1, column 10: \"argv\"[0] must be a string, not an array");
}

Test(confined_json, bad_arguments)
{
	struct cordon_confined *c = NULL;
	struct cordon_error err = { 0 };

	cr_assert_eq(cordon_confined_from_json("{}", 2, NULL, &err), -EINVAL);
	cr_assert_eq(cordon_confined_from_json(NULL, 2, &c, &err), -EINVAL);
	cr_assert_str_eq(err.message, "no JSON input");
	cr_assert_null(c);
}

/* What `cordon classify --confined` does: read it back and classify. */
Test(confined_json, read_back_classifies)
{
	const char *doc = "{\"argv\":[\"bwrap\",\"--\",\"true\"],\"mode\":\"workspace-write\",\"enforcement\":\"bwrap\","
			  "\"grade\":\"full\",\"denial_signatures\":[\"permission denied\"],"
			  "\"fatal_signatures\":[\"bwrap: \"],\"informational_lines\":[],\"allowed_exit_codes\":[]}";
	_cleanup_confined_ struct cordon_confined *c = NULL;
	struct cordon_classification cl;
	const char *out = "bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n";

	cr_assert_eq(cordon_confined_from_json(doc, strlen(doc), &c, NULL), 0);
	cr_assert_eq(cordon_classify(c, 1, out, strlen(out), &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "bwrap: Can't mount proc on /newroot/proc: Operation not permitted");
	free(cl.line);
}
