/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: reading a run's outcome (ok, denied, runner-failed).
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include "cordon/confine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Classify ------------------------------------------------------------ */

struct cordon_classification {
	enum cordon_verdict verdict; /* OK, DENIED or RUNNER_FAILED (TIMEOUT: cordon_classify_ex) */
	char *line;                  /* the runner's line, verbatim, for RUNNER_FAILED; else NULL; caller frees */
};

/* exit_status: the exit code, or 128+N when killed by signal N. Pure.
 * For a confined value with a status channel this sees no runner failure
 * (the channel decides that): use cordon_classify_status. */
CORDON_API int cordon_classify(const struct cordon_confined *c, int exit_status,
			       const char *output, size_t output_len,
			       struct cordon_classification *ret);
/* The same, with what was read from the status channel (status_len bytes;
 * NULL/0: nothing was written). A runner's record makes RUNNER_FAILED with
 * its message (CORDON_STATUS_CORDON) or bwrap's first output line
 * (CORDON_STATUS_BWRAP_JSON) as ret->line; otherwise the output is looked
 * at for denials only. Without a channel it is cordon_classify. One
 * exception, the only thing it asks the system: the runner's record that
 * it could not execute (EACCES) a file this process may execute is DENIED
 * (the sandbox refused it: the execute-only gate), with no line. Any
 * other record of the runner's execve step with exit 126 or 127 (the
 * command is not there, or is no executable: a header, a directory) is
 * the command's own outcome: OK, as a shell would report it. */
CORDON_API int cordon_classify_status(const struct cordon_confined *c, int exit_status,
				      const char *status, size_t status_len,
				      const char *output, size_t output_len,
				      struct cordon_classification *ret);
/* Besides its one failure record, cordon's status channel carries what
 * cordon itself refused while the command ran, one record a line, written
 * only by cordon's own processes (the command never holds the channel):
 *   "denial\tkernel\tMECHANISM\tOP\tPATH\n"  init's gates (MECHANISM
 *       write-gate or unix-gate; OP read, write or connect)
 *   "denial\tproxy\tLINE\n"  the proxy's refusal ("cordon-proxy: refused ...")
 * At most CORDON_STATUS_DENIAL_MAX bytes each, capped in number and
 * deduplicated by their writers. They are never a runner failure; with an
 * exit status other than 0 (and not an allowed one) and no runner record,
 * one of them makes the verdict DENIED. An exit 0 stays OK: the command
 * got on without what was refused (the records still say what it was). */
#define CORDON_STATUS_DENIAL_TAG "denial"
#define CORDON_STATUS_DENIAL_MAX 1024
/* Is the record at status (len bytes, up to its newline) a denial record? */
CORDON_API bool cordon_status_is_denial(const char *status, size_t len);

/* The file in the runner's line "execve: PATH: EACCES" (it could not
 * execute PATH) when the sandbox refused it: 0 with PATH in buf; -ENOENT
 * when line is not such a line, -ENAMETOOLONG when PATH does not fit in
 * size bytes, -ENOEXEC when PATH is no executable regular file here (its
 * mode is checked first: then the file failed on its own, no denial). */
CORDON_API int cordon_runner_exec_refused(const char *line, char *buf, size_t size);
/* What a caller that spawned the confined argv itself knows of how it
 * ended, beyond its status: it killed it at its own deadline. */
struct cordon_classify_facts {
	bool timed_out;
};
/* cordon_classify_status, told what the caller knows: timed_out makes the
 * verdict CORDON_VERDICT_TIMEOUT, as cordon_run's own timeout does (a
 * runner failure that came first still wins: it is what kept the command
 * from running). facts may be NULL. Pure. */
CORDON_API int cordon_classify_ex(const struct cordon_confined *c, int exit_status, const char *status,
				  size_t status_len, const char *output, size_t output_len,
				  const struct cordon_classify_facts *facts, struct cordon_classification *ret);

#ifdef __cplusplus
}
#endif
