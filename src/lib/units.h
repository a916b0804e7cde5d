/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

/*
 * One grammar for sizes and durations, wherever cordon reads one: the CLI's
 * flags (--memory, --max-output, --timeout, --cpu, ...) and a profile's
 * "limits" strings. The callers check ranges; these only read the number.
 *
 * Size:      DIGITS [UNIT [B | iB]]
 *            UNIT one of k K m M g G t T, binary multiples (k = 1024,
 *            M = 1024^2, G = 1024^3, T = 1024^4); "64M", "64MB" and
 *            "64MiB" are the same. No sign, no space, no fraction.
 * Duration:  NUMBER [ms | s | m | h], a bare number being seconds.
 *            NUMBER is decimal: DIGITS, DIGITS.DIGITS, DIGITS. or .DIGITS
 *            ("1.5m" is 90 seconds). A fraction finer than a microsecond
 *            rounds up, so a tiny positive duration is never zero. No sign,
 *            no space, no exponent.
 *
 * Both return 0 and write *ret only on success; -EINVAL for anything that is
 * not in the grammar, -ERANGE for a value that does not fit in 64 bits.
 */
int units_parse_size(const char *s, uint64_t *ret);
int units_parse_duration(const char *s, uint64_t *ret_usec);

#define UNITS_USEC_PER_SEC UINT64_C(1000000)
