/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * --net proxy, the runner's side. The sandbox keeps a network namespace of
 * its own (loopback only, no resolver), and its only way out is cordon's
 * proxy, a process of its own outside:
 *
 *   runner  --fork/exec--> `cordon proxy --control-fd N RULES...` (host netns)
 *     |                          ^ SCM_RIGHTS: the two listening sockets
 *     +--clone(netns)--> init: lo up; listen on 127.0.0.1:3128 (HTTP) and
 *                        127.0.0.1:1080 (SOCKS5) inside; hand both to the
 *                        proxy; close its copies
 *
 * The proxy accepts on sockets of the sandbox's namespace and dials from
 * its own: no relay process in between, and no address of the host's is
 * reachable from inside. If the proxy ends, the runner ends the run (the
 * listeners die with it: never a direct route).
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define NETPROXY_HTTP_PORT 3128
#define NETPROXY_SOCKS_PORT 1080
/* What the proxy says on its control socket once it is set up and
 * confined; init waits for it (NETPROXY_READY_MS) before it hands over
 * the listeners: a program that is not cordon's proxy never gets them. */
#define NETPROXY_READY "cordon-proxy ready"
#define NETPROXY_READY_MS 10000

struct exec_ctx;
struct plan;

/* A host rule (--allow-domain, --deny-domain) or an address rule
 * (--allow-address) is well formed; pure. -EINVAL with why in err. */
int netproxy_check_rule(const char *flag, const char *value, char *err, size_t errlen);

/* Append the command's proxy variables (policy_proxy_env, the library's
 * one list; env_name_is_proxy says which names they are) to envp[k..];
 * returns the new k (room: POLICY_PROXY_ENV_MAX). */
size_t netproxy_env_add(char **envp, size_t k);

/* Runner, before the clone: start the proxy (x->proxy_pid), keep init's
 * end of the control socket (x->proxy_fd). Dies on failure. */
void netproxy_start(struct exec_ctx *x);
/* Runner, after the clone: init has its copy. */
void netproxy_after_clone(struct exec_ctx *x);
/* Init, in the new network namespace with lo up: make the listeners and
 * hand them over: the apply of STEP_PROXY (steps.c), step its index in
 * the plan. Dies on failure. */
void netproxy_listen(struct exec_ctx *x, size_t step);
/* Runner: the proxy ended (status from waitpid): stop the run, say so. */
_Noreturn void netproxy_died(struct exec_ctx *x, pid_t init_pid, int status);
