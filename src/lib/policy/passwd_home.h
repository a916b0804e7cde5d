/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "cordon/common.h"

/* The caller's passwd home (pw_dir of getuid(), absolute), malloc'd into
 * *ret, or NULL there when it has none. -ENOMEM only. */
int passwd_home(char **ret, struct cordon_error *reterr);

/* uid's passwd home from passwd_file, when nsswitch_conf says that file
 * answers first for passwd and it holds uid: 1 (*ret as passwd_home's);
 * 0 when getpwuid_r must be asked (*ret untouched); -ENOMEM. */
int passwd_home_files(const char *nsswitch_conf, const char *passwd_file, uid_t uid, char **ret,
		      struct cordon_error *reterr);
