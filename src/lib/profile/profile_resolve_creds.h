/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Raw credentials -> the profile's struct cordon_tools (profile_resolve_creds.c). */

#include "profile_loader.h"

int loader_resolve_creds(struct loader *l, struct cordon_profile *p);
