/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cordon/cordon.h"

/* What a launch was built into (launch.c); spawn.c reads it. */
struct cordon_launch {
	struct cordon_policy *policy;
	struct cordon_backend_info backend;
	struct cordon_limits limits;
	bool limits_set;
	struct cordon_limits_plan plan;   /* checked once, at cordon_launch_new */
	int timeout_ms;
	uint64_t max_output;
	bool output_terminate;
	bool inspect_only;                /* cordon_launch_opts.inspect_only: never confined */
};

/* A launch around a policy built already (taken, also on failure), with
 * limits in the public shape: a tool's own sandbox (toolbox.c). */
int launch_new_from_policy(struct cordon_policy *p, const struct cordon_profile_limits *pl, struct cordon_launch **ret,
			   struct cordon_error *reterr);
