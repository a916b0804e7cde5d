/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The unix-socket gate (full isolation: --net none and proxy, and --net host
 * where the execute-only gate or deny-exec relies on it). Pathname unix sockets
 * are files: the network namespace does not separate them, and Landlock
 * cannot refuse connecting to one. So the command loads a second seccomp
 * filter that turns connect, sendto with an address, sendmsg and sendmmsg
 * into user notifications for the pid-1 init, which is inside the
 * sandbox's namespaces but under neither Landlock nor seccomp. Init copies
 * the arguments out of the caller's memory, takes the caller's socket with
 * pidfd_getfd, decides, performs the call itself on its copies and answers
 * with the result: nothing the caller can change after the check is used.
 *
 * A pathname destination is admitted when its inode is a socket bound in
 * the sandbox's network namespace (NETLINK_SOCK_DIAG lists only those;
 * under --net host, whose namespace is the host's, also held by a process
 * of the sandbox's pid namespace) or
 * is the socket an --allow-unix-socket path named when the command started
 * (pinned by an O_PATH fd, and connected to through it); else
 * EACCES. TCP connects get the EACCES Landlock gives the command; other
 * families and abstract or unnamed unix addresses are performed as asked.
 *
 * Limitations: the peer sees init's credentials (SO_PEERCRED, SCM
 * credentials added by the kernel say pid 1, same uid/gid); a blocking
 * connect to a unix socket whose backlog is full blocks init until it
 * drains (blocking sends are parked instead); abstract sockets are
 * reachable across nested Landlock domains inside the sandbox (the network
 * namespace still keeps the host's out); SO_SNDTIMEO of the caller does
 * not bound a parked send, and a parked caller is interrupted only by a
 * fatal signal (a handled SIGALRM waits until the send is done); a
 * sendmsg of more than 4 MiB on a stream sends 4 MiB (a short count), on
 * other sockets fails with EMSGSIZE.
 */

#include <sys/types.h>

struct exec_ctx;

/* Init, before the fork: each --allow-unix-socket path opened O_PATH with
 * no symlink on the way nor as its last component (one there now is a
 * swap: refused), kept in x for the gate. A path missing now gets no pin,
 * so connects to it are refused. */
int unix_gate_pin(struct exec_ctx *x, char *err, size_t errlen);

/* Init, before the fork: the socketpair the command hands its listener
 * over; ret[0] stays in init, ret[1] goes to the command. */
int unix_gate_pair(int ret[2]);

/* The listener handed over without a round trip: init clones the command
 * with CLONE_FILES (init.c), and the command, first thing, calls
 * unix_gate_offer: no_new_privs, the notification filter of the gates in
 * `which` (NOTIFY_*), whose listener is born in the table it still shares
 * with init; then a copy of the table of its own (unshare), and the
 * listener's number written on fd; it closes fd and its copy of the
 * listener, and goes on without waiting. 0 or -errno with a reason in err.
 * The same handoff and loop serve the creation gate (create_gate.h): one
 * filter, one listener. */
int unix_gate_offer(int fd, unsigned which, char *err, size_t errlen);

/* Init, after the clone: the listener's number from fd, or the command's
 * end (pidfd readable). 0 and *ret_listener >= 0 (already in init's table);
 * 0 and -1 when the command ended before handing it over (its status tells
 * why); -errno on failure. Closes fd. */
int unix_gate_receive(int fd, int pidfd, int *ret_listener);

/* Init's side of the gates, driven by init's own loop (init.c): which
 * pollfds to wait on (at most UNIX_GATE_MAX_POLLFDS; *timeout_ms lowered
 * while a connect is parked), and what to do once poll returned r. */
/* the listener, every parked connect (GATE_MAX_PARKED), --net allow's (net_allow.h) */
#define UNIX_GATE_MAX_POLLFDS (1 + 128 + 98)

struct gate;
struct pollfd;
struct gate *unix_gate_new(struct exec_ctx *x, int listener);
size_t unix_gate_pollfds(struct gate *g, struct pollfd *fds, int *timeout_ms);
void unix_gate_step(struct gate *g, const struct pollfd *fds, int r);

/* Which notification filter the command loads (NOTIFY_* bits), 0: none. */
unsigned exec_gates(const struct exec_ctx *x);
