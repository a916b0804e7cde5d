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

struct profile_origin;

/* A launch around a policy built already (taken, also on failure), with
 * limits in the public shape: a credential capture's sandbox. */
int launch_new_from_policy(struct cordon_policy *p, const struct cordon_profile_limits *pl, struct cordon_launch **ret,
			   struct cordon_error *reterr);

/* What both roads share (launch.c): a count under a run's minimum refused
 * (at: where a profile set it, or NULL); a tool sandbox's limits checked
 * onto l; the backend and the one check of the limits every launch ends
 * with (*stage says how far it went). */
int launch_check_enough(enum cordon_limit l, uint64_t v, const struct profile_origin *at,
			struct cordon_error *reterr);
int launch_take_limits(struct cordon_launch *l, const struct cordon_profile_limits *pl, struct cordon_error *reterr);
int launch_finish(struct cordon_launch *l, const struct cordon_launch_opts *o, enum cordon_launch_stage *stage,
		  struct cordon_error *reterr);

/* What an agent reads of a result (run.c): the exit line, the output and
 * cordon's marker, into res->annotated; the session's results too. */
int run_annotate(struct cordon_result *res, const char *text, size_t len, int timeout_ms);
