/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Redaction on arbitrary argvs: a tool call's words come from the agent.
 * Nothing may crash or leak, and what comes out is what a log and a
 * terminal may take: at most REDACT_MAX_WORDS words, each valid UTF-8 of at
 * most REDACT_MAX_WORD_BYTES bytes, with no control character, no DEL, no
 * C1 control and no bidirectional override.
 *
 * Input: the words, separated by NUL bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INPUT_MAX (64u * 1024)

#define check(x)                                                                                                       \
	do {                                                                                                           \
		if (!(x))                                                                                              \
			abort();                                                                                       \
	} while (0)

/* Valid UTF-8 with nothing a terminal acts on. */
static void check_printable(const unsigned char *s)
{
	while (*s) {
		unsigned char c = *s;
		size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

		check(c >= 0x20 && c != 0x7f);
		check(c < 0x80 || (c >= 0xc2 && c <= 0xf4));
		for (size_t i = 1; i < n; i++)
			check((s[i] & 0xc0) == 0x80);
		if (n == 2)
			check(!(c == 0xc2 && s[1] <= 0x9f)); /* C1 */
		if (n == 3 && c == 0xe2 && s[1] == 0x80)
			check(!(s[2] >= 0x8e && s[2] <= 0x8f) && !(s[2] >= 0xa8 && s[2] <= 0xae));
		if (n == 3 && c == 0xe2 && s[1] == 0x81)
			check(!(s[2] >= 0xa6 && s[2] <= 0xa9));
		s += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, **argv = NULL, **out = NULL;
	size_t n = 0;

	if (size > INPUT_MAX)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i <= size; i += strlen(buf + i) + 1)
		n++;
	argv = calloc(n + 1, sizeof(char *));
	if (!argv) {
		free(buf);
		return 0;
	}
	n = 0;
	for (size_t i = 0; i <= size; i += strlen(buf + i) + 1)
		argv[n++] = buf + i;
	if (redact_argv((const char *const *)argv, &out) == 0) {
		check(strv_length(out) <= REDACT_MAX_WORDS && strv_length(out) <= n);
		STRV_FOREACH(w, out)
		{
			check(strlen(*w) <= REDACT_MAX_WORD_BYTES);
			check_printable((const unsigned char *)*w);
		}
		strv_free(out);
	}
	/* for an approver: every word, and the word after a declared secret
	 * flag hidden unless it is a flag itself, never in clear */
	{
		static const char *const declared[] = {"db-pass", NULL};

		if (redact_argv_full((const char *const *)argv, declared, 0, &out) == 0) {
			check(strv_length(out) == n);
			for (size_t i = 1; i < n; i++)
				if ((strcmp(argv[i - 1], "--password") == 0 || strcmp(argv[i - 1], "--db-pass") == 0) &&
				    argv[i][0] != '-' && argv[i][0])
					check(strncmp(out[i], "<redacted ", 10) == 0);
			STRV_FOREACH(w, out)
			check_printable((const unsigned char *)*w);
			strv_free(out);
		}
	}
	free(argv);
	free(buf);
	return 0;
}
