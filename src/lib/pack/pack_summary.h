/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a pack grants, in words (pack_summary.c). */
#include <stdio.h>

#include "pack_image.h"

/* One line per grant of each profile of img, into a malloc'd string. */
int pack_summary(const struct pack_image *img, char **ret);
/* The lines of b that a does not hold, each prefixed with mark, onto f. */
void pack_summary_diff(FILE *f, const char *a, const char *b, char mark);
