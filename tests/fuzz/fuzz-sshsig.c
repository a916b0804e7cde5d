/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An SSH signature file (sshsig.c) on arbitrary bytes: parsed, and what
 * parses verified over a fixed message, which must refuse (nothing here
 * holds a private key, so no input is a good signature over "fuzz").
 */
#include <stdint.h>
#include <stdlib.h>

#include "sshsig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sshsig *sig = NULL;
	struct cordon_error why;

	if (sshsig_parse((const char *)data, size, &sig, &why) < 0)
		return 0;
	if (sshsig_verify(sig, "cordon-pack", "fuzz", 4, &why) == 0)
		abort();
	sshsig_free(sig);
	return 0;
}
