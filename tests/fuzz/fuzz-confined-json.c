/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cordon_confined_from_json on arbitrary bytes. Whatever it accepts must
 * write back to JSON, read again, and write back identically; whatever it
 * refuses must say why. The accepted value is also classified against the
 * input itself (as output, and as status-channel records), so arbitrary
 * signature sets and channels reach the classifier.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cordon_confined *c = NULL, *c2 = NULL;
	struct cordon_classification cl;
	struct cordon_error err = { 0 };
	char *s = NULL, *s2 = NULL;
	int r;

	r = cordon_confined_from_json((const char *)data, size, &c, &err);
	if (r < 0) {
		CHECK(r == -EINVAL || r == -EFBIG || r == -ENOMEM);
		CHECK(r == -ENOMEM || err.message[0] != '\0');
		/* every refusal of the text itself says where */
		CHECK(r != -EINVAL || err.line >= 1);
		CHECK(c == NULL);
		return 0;
	}
	CHECK(c && c->argv && c->argv[0] && c->argv[0][0]);

	r = cordon_confined_to_json(c, &s);
	CHECK(r == 0);
	r = cordon_confined_from_json(s, strlen(s), &c2, &err);
	/* Compact output is never longer than what was read, bar escapes
	 * jansson writes longer than the input spelled them. */
	CHECK(r == 0 || r == -EFBIG);
	if (r == 0) {
		r = cordon_confined_to_json(c2, &s2);
		CHECK(r == 0);
		CHECK(strcmp(s, s2) == 0);
	}

	for (int status = 0; status < 3; status++) {
		r = cordon_classify(c, status * 62, (const char *)data, size, &cl);
		CHECK(r == 0);
		CHECK((cl.verdict == CORDON_VERDICT_RUNNER_FAILED) == (cl.line != NULL));
		free(cl.line);
		/* the input as what the status channel carried, too */
		r = cordon_classify_status(c, status * 62, (const char *)data, size, (const char *)data, size, &cl);
		CHECK(r == 0);
		CHECK((cl.verdict == CORDON_VERDICT_RUNNER_FAILED) == (cl.line != NULL));
		CHECK(status != 0 || cl.verdict == CORDON_VERDICT_OK);
		free(cl.line);
	}

	free(s);
	free(s2);
	cordon_confined_free(c);
	cordon_confined_free(c2);
	return 0;
}
