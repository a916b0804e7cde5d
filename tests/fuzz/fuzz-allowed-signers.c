/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trust file (allowed_signers.c) on arbitrary bytes: parsed, and every
 * entry it accepts holds exact principals and a key of an accepted type.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allowed_signers.h"
#include "sshsig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct allowed_signers *s = NULL;
	struct cordon_error why;

	if (allowed_signers_parse((const char *)data, size, &s, &why) < 0)
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		for (char **p = s->v[i].principals; *p; p++)
			if (!**p || strpbrk(*p, "*?!"))
				abort();
		if (sshkey_blob_check(s->v[i].key, s->v[i].key_len, NULL, &why) < 0)
			abort();
	}
	(void)allowed_signers_check(s, "a", (const uint8_t *)"x", 1, "cordon-pack", 0, &why);
	allowed_signers_free(s);
	return 0;
}
