/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How the runner says it failed: one line "cordon: STEP: REASON" for
 * people on stderr, and with a status channel (--status-fd) one record
 * for callers, which is what they trust (a command printing "cordon: ..."
 * is just a command printing).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pipe_room.h"
#include "runner.h"

/* The runner's own failure lines must read as the runner failing, never as
 * the sandbox denying the command something: a line that carries a denial
 * phrase ("cordon: landlock: cannot open /: Permission denied") would be
 * classified as a denial. So errno texts that are denial signatures are
 * written as their errno names. Each name is shorter: rewritten in place. */
static void name_denial_errnos(char *line)
{
	static const struct {
		const char *text, *name;
	} map[] = {
		{ "Permission denied", "EACCES" },
		{ "Operation not permitted", "EPERM" },
		{ "Read-only file system", "EROFS" },
		{ "Device or resource busy", "EBUSY" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		size_t tl = strlen(map[i].text), nl = strlen(map[i].name);
		char *at;

		while ((at = strcasestr(line, map[i].text))) {
			memcpy(at, map[i].name, nl);
			memmove(at + nl, at + tl, strlen(at + tl) + 1);
		}
	}
}

/* The runner's status channel, and the last line said (for exec_die_said). A
 * runner process is single-threaded; each forked copy has its own. */
static int status_fd = -1;
static char last_line[1024];

int status_channel_open(int fd)
{
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	status_fd = fd;
	return 0;
}

int status_channel_fd(void)
{
	return status_fd;
}

/* One record, one write: "STEP\tERRNO-NAME\tLINE\n". Tabs and newlines
 * in the step or line would split fields or records: written as spaces. */
static void status_record(const char *step, int err, const char *line)
{
	char rec[1400];
	const char *name = err > 0 ? strerrorname_np(err) : NULL;
	int n;

	if (status_fd < 0)
		return;
	n = snprintf(rec, sizeof(rec), "%s\t%s\t%s", step, name ?: "-", line);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(rec) - 2)
		n = sizeof(rec) - 2;
	for (int i = 0, tabs = 0; i < n; i++) {
		if (rec[i] == '\t' && tabs < 2) {
			tabs++;
			continue;
		}
		if (rec[i] == '\t' || rec[i] == '\n')
			rec[i] = ' ';
	}
	rec[n++] = '\n';
	(void)!write(status_fd, rec, (size_t)n);
}

/* "cordon: STEP: STEP: why" (a reason that names its step itself, as the
 * modules' own messages do) reads "cordon: STEP: why". */
static void drop_repeated_step(char *line, const char *step)
{
	size_t sl = strlen(step), head = strlen("cordon: ") + sl + 2;
	char *again = line + head;

	if (strlen(line) >= head + sl + 2 && strncmp(again, step, sl) == 0 && again[sl] == ':' && again[sl + 1] == ' ')
		memmove(again, again + sl + 2, strlen(again + sl + 2) + 1);
}

static void vsay(const char *step, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void vsay(const char *step, const char *fmt, va_list ap)
{
	char line[1024];
	int n, m;

	n = snprintf(line, sizeof(line), "cordon: %s: ", step);
	if (n < 0)
		n = 0;
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n] = '\0';
	drop_repeated_step(line, step);
	n = (int)strlen(line);
	name_denial_errnos(line);
	memcpy(last_line, line, sizeof(last_line));
	n = (int)strlen(line);
	line[n++] = '\n';
	/* one write, so the line arrives whole */
	(void)!write(STDERR_FILENO, line, (size_t)n);
}

void exec_say(const char *step, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	errno = saved; /* for %m */
	vsay(step, fmt, ap);
	va_end(ap);
	errno = saved;
}

_Noreturn static void vdie(int code, const char *step, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

_Noreturn static void vdie(int code, const char *step, const char *fmt, va_list ap)
{
	int saved = errno;

	errno = saved; /* for %m */
	vsay(step, fmt, ap);
	/* errno means something only where the message used it */
	status_record(step, strstr(fmt, "%m") ? saved : 0, last_line);
	_exit(code);
}

_Noreturn void exec_die(const char *step, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(EXEC_EXIT_FAILED, step, fmt, ap);
}

_Noreturn void exec_die_code(int code, const char *step, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(code, step, fmt, ap);
}

int exec_record_said(const char *step)
{
	char line[sizeof(last_line) + 64];

	if (last_line[0])
		status_record(step, 0, last_line);
	else {
		snprintf(line, sizeof(line), "cordon: %s: failed", step);
		status_record(step, 0, line);
	}
	return EXEC_EXIT_FAILED;
}

_Noreturn void exec_die_said(const char *step)
{
	_exit(exec_record_said(step));
}

/* Denials init's gates decided, on the status channel: the caller's
 * trusted word (the command never holds the channel). Capped per process
 * and deduplicated, so a command that loops on a refused call can neither
 * fill the pipe (nothing reads it before the run ends: a full pipe would
 * block init) nor crowd out the runner's own record. */
#define STATUS_DENIALS_MAX 24
/* what the runner's own failure record may need: status_record's buffer */
#define STATUS_RECORD_ROOM 1400

static uint64_t denials_said[STATUS_DENIALS_MAX];
static size_t n_denials_said;

static uint64_t record_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

void status_denial(const char *mechanism, const char *op, const char *target)
{
	char rec[CORDON_STATUS_DENIAL_MAX];
	uint64_t h;
	int n;

	if (status_fd < 0 || n_denials_said >= STATUS_DENIALS_MAX)
		return;
	n = snprintf(rec, sizeof(rec), "%s\t%s\t%s\t%s\t%s", CORDON_STATUS_DENIAL_TAG, "kernel", mechanism, op, target);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(rec) - 2)
		n = sizeof(rec) - 2;
	/* a name may hold any byte but NUL and '/': nothing in it splits a
	 * field or a record */
	for (int i = 0, tabs = 0; i < n; i++) {
		if (rec[i] == '\t' && tabs < 4) {
			tabs++;
			continue;
		}
		if ((unsigned char)rec[i] < 0x20 || rec[i] == 0x7f)
			rec[i] = '?';
	}
	h = record_hash(rec, (size_t)n);
	for (size_t i = 0; i < n_denials_said; i++)
		if (denials_said[i] == h)
			return;
	denials_said[n_denials_said++] = h;
	rec[n++] = '\n';
	/* never block on it (nothing reads it before the end), and leave
	 * room for the runner's own record: a file is always written */
	long room = pipe_room(status_fd);

	if (room >= 0 && room < n + STATUS_RECORD_ROOM)
		return;
	(void)!write(status_fd, rec, (size_t)n);
}
