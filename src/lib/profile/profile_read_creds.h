/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reading credentials and credential_capture (profile_read_creds.c). */

#include "profile_loader_get.h"

extern const char *const loader_cred_keys[];
int loader_read_credentials(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);
int loader_read_credential_capture(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);
void raw_creds_clear(struct raw_creds *c);
