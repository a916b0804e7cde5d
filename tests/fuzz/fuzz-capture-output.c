/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A credential capture's output (capture_output.c), on arbitrary bytes: it
 * may not crash or read past them, and a value it accepts lies inside the
 * buffer, is not empty and has no byte a header could not carry.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture_output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture_value v;
	struct cordon_error why;
	char *buf;

	if (size > CAPTURE_OUTPUT_MAX + 16)
		return 0;
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (capture_output_parse(buf, size, &v, &why) == 0) {
		if (v.len == 0 || v.off > size || v.len > size - v.off)
			abort();
		for (size_t i = 0; i < v.len; i++)
			if ((unsigned char)buf[v.off + i] <= ' ' || (unsigned char)buf[v.off + i] >= 0x7f)
				abort();
	}
	free(buf);
	return 0;
}
