/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A profile document and its sections (profile_read.c). */

#include "profile_loader.h"

/* Read d (already kept by l) and, first, what it extends (through
 * l->find). */
int loader_read_doc(struct loader *l, struct doc *d);
