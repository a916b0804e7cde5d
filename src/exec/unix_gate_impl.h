/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal to unix_gate*.c. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

/* Hard caps on everything copied out of the caller. */
#define GATE_MAX_DATA    (4u << 20)    /* bytes of payload per call */
#define GATE_MAX_CONTROL (64u << 10)   /* bytes of ancillary data per message */
#define GATE_MAX_IOV     1024          /* UIO_MAXIOV */
#define GATE_MAX_MMSG    1024          /* sendmmsg's vlen, as the kernel clamps it */
#define GATE_MAX_PARKED  128           /* blocking sends waiting for room (UNIX_GATE_MAX_POLLFDS) */
#define GATE_MAX_PARKED_BYTES (64u << 20)

struct gate_op;
struct create_set;

/* An --allow-unix-socket path held by an O_PATH fd from before the command
 * started: identified by that inode (the fd keeps it alive, so its number
 * is never reused meanwhile), and connected to through that fd. */
struct unix_pin {
	int fd;
	dev_t dev;
	ino_t ino;
};

struct gate {
	int listener;                  /* the seccomp notification fd; -1 once every filter user is gone */
	int diag;                      /* NETLINK_SOCK_DIAG in the sandbox's network namespace, or -errno */
	uint32_t seq;
	const struct unix_pin *pins;   /* --allow-unix-socket, pinned before the command started */
	size_t n_pins;
	bool deny_tcp;                 /* the command's Landlock refuses TCP connect */
	bool host_net;                 /* --net host: diag lists the host's sockets too (unix_gate_check.c) */
	const struct create_set *create; /* the creation gate's refusals */
	struct gate_op *parked[GATE_MAX_PARKED];
	size_t n_parked;
	size_t parked_bytes;
	size_t polled;                 /* parked ops the last unix_gate_pollfds listed */
	bool listening;                /* the listener still has callers */
	struct net_allow *net;         /* --net allow (net_allow.h), or NULL */
	size_t net_polled;             /* pollfds it listed last */
};

int gate_diag_open(void);

/* Resolve path as thread tid would for connect and decide: 0 and an O_PATH
 * fd of the admitted socket in *ret_fd, or -EACCES (a host socket), or the
 * lookup's own error (-ENOENT, -ECONNREFUSED for a non-socket...). */
int gate_check_path(struct gate *g, pid_t tid, const char *path, int *ret_fd);

/* "/proc/self/fd/N": the address that reaches exactly the checked inode. */
socklen_t gate_proc_address(int path_fd, struct sockaddr_un *ret);
