/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cordon/cordon.h"
#include "profile.h"

/* The loader's resolved profile behind a public handle. */
const struct cordon_profile *profile_handle_profile(const struct cordon_profile_handle *h);
/* The workspace the handle was loaded with (NULL: none was given). */
const char *profile_handle_workspace_asked(const struct cordon_profile_handle *h);
/* Whether h came from cordon_profile_load_inspect. */
bool profile_handle_inspect_only(const struct cordon_profile_handle *h);
/* The same profile loaded again with another workspace (tokens such as
 * $WORKSPACE expand at load, so a new workspace means a new load). */
int profile_handle_reload(const struct cordon_profile_handle *h, const char *workspace,
			  struct cordon_profile_handle **ret, struct cordon_error *reterr);
/* The policy from h (profile_apply_mode); the first one built takes the
 * credential catalogue the load resolved instead of resolving it again. */
/* The same with the profile's "home" replaced by *home (NULL: kept). */
int profile_handle_policy_home(const struct cordon_profile_handle *h, const enum cordon_mode *mode,
			       const enum cordon_home *home, struct cordon_policy **ret, struct cordon_error *reterr);
int profile_handle_policy(const struct cordon_profile_handle *h, const enum cordon_mode *mode, struct cordon_policy **ret,
			  struct cordon_error *reterr);
