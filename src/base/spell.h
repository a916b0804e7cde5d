/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Levenshtein distance between a and b with a cap: cap + 1 when it is more
 * (or when either word is longer than 64 bytes). For "did you mean". */
unsigned edit_distance(const char *a, const char *b, unsigned cap);
