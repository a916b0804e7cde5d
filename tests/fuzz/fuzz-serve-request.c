/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon serve's request line (src/cli/serve_request.c) on arbitrary bytes:
 * no crash, no read past the line; a refusal always says why, and what is
 * accepted keeps the caps (an argv with a non-empty command, an absolute
 * cwd, NAME=VALUE entries, a positive timeout).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct serve_request q;
	char err[512] = "";
	int r;

	if (size > SERVE_LINE_MAX + 16)
		return 0;
	r = serve_request_parse((const char *)data, size, &q, err, sizeof(err));
	if (r < 0) {
		if (!err[0])
			abort(); /* a refusal names the problem */
	} else {
		size_t n = 0;

		if (!q.id || !q.argv || !q.argv[0] || !q.argv[0][0] || (q.cwd && q.cwd[0] != '/') || q.timeout_ms < 0)
			abort();
		while (q.argv[n])
			n++;
		if (n > SERVE_REQ_ARGC_MAX)
			abort();
		for (size_t i = 0; q.env && q.env[i]; i++)
			if (!strchr(q.env[i], '=') || q.env[i][0] == '=')
				abort();
		if (q.stdin_data && q.stdin_len > SERVE_REQ_STDIN_MAX)
			abort();
	}
	serve_request_done(&q);
	return 0;
}
