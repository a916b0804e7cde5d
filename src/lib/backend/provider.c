/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The providers, by backend (provider.h). */
#include <stddef.h>

#include "provider.h"

const struct provider *provider_for(enum cordon_backend b)
{
	switch (b) {
	case CORDON_BACKEND_NATIVE:
		return &provider_native;
	case CORDON_BACKEND_BWRAP:
		return &provider_bwrap;
	case CORDON_BACKEND_SEATBELT:
		return &provider_seatbelt;
	case CORDON_BACKEND_UNAVAILABLE:
		return NULL;
	}
	return NULL;
}
