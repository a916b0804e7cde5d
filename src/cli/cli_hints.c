/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What cordon can say about a run beyond its verdict: the workspace checks
 * made before anything runs, the view of a profile that `cordon why` and
 * the denials share (the profile with the run's flags on top), and after a
 * run the hints (the network is off; a cache under HOME that a built-in
 * profile would allow) and the denials list of `--json`: each path the
 * output names on a denial line, with the rule `why` gives it.
 *
 * All of it reads text a command printed: it explains, it never decides.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "path.h"
#include "strv.h"

#define say cli_say

/* Caps: the denials a result lists, the paths taken from one line. */
#define HINTS_MAX_DENIALS CLI_MAX_DENIALS
#define HINTS_MAX_LINE 4096

/* ---- before the run: the workspace ---- */

/* Directories the system runs from: a workspace there would make them
 * writable. At or below the first list; exactly the second. */
static const char *const system_trees[] = { "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
					    "/libx32", "/boot", "/dev", "/proc", "/sys", "/run", "/var/lib",
					    "/var/log", "/var/cache", "/var/spool", "/var/mail", "/var/run", NULL };
/* (a HOME, /root included, is a workspace cordon supports: its dot-entries stay read-only) */
static const char *const system_dirs[] = { "/var", "/opt", "/home", "/mnt", "/media", "/srv", NULL };

static bool is_system_dir(const char *ws)
{
	for (size_t i = 0; system_trees[i]; i++)
		if (path_is_under(ws, system_trees[i]))
			return true;
	for (size_t i = 0; system_dirs[i]; i++)
		if (strcmp(ws, system_dirs[i]) == 0)
			return true;
	return false;
}

int cli_check_workspace(const struct cli_args *a, const struct cordon_profile_handle *prof, const char *ws,
			enum cordon_mode mode)
{
	const char *given = a->workspace ? "--workspace" : cordon_profile_workspace_given(prof) ? "the profile's workspace"
			    : "the current directory";
	struct stat st;

	if (!ws || mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return 0;
	if (stat(ws, &st) < 0) {
		if (errno == ENOENT)
			say("the workspace %s (%s) does not exist: create it, or give --workspace an existing directory",
			    ws, given);
		else
			say("the workspace %s (%s) cannot be used: %s", ws, given, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		say("the workspace %s (%s) is not a directory: give --workspace a directory", ws, given);
		return -ENOTDIR;
	}
	/* The workspace is writable: a system directory must be asked for. */
	if (mode == CORDON_MODE_WORKSPACE_WRITE && !a->workspace && !cordon_profile_workspace_given(prof) &&
	    is_system_dir(ws)) {
		say("warning: the current directory %s is a system directory and would become the writable "
		    "workspace: refusing; cd to a project, or say --workspace %s if you mean it", ws, ws);
		return -EPERM;
	}
	return 0;
}

/* ---- the profile a run would use, for why and the denials ---- */

/* --read, and the working directory: a run started below /tmp brings it
 * back too. The why's rules point into it: kept until the next call. */
static char **why_read_host;

static const char *const *read_host_with_cwd(const struct cli_args *a)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);

	strv_free(why_read_host);
	why_read_host = strv_copy((const char *const *)a->read_host);
	if (!why_read_host)
		return (const char *const *)a->read_host;
	if (cwd && path_is_under(cwd, "/tmp") > 0 && strcmp(cwd, "/tmp") != 0)
		(void)strv_push(&why_read_host, cwd);
	return (const char *const *)why_read_host;
}

int cli_why_new(const struct cli_args *a, const struct cordon_profile_handle *p, struct cordon_why **ret)
{
	/* the launch's options from the same flags, as a run's launch takes
	 * them; the working directory below /tmp as the runner brings it back */
	struct cordon_launch_opts o;

	cli_launch_opts(a, &o);
	o.read_host = read_host_with_cwd(a);
	return cordon_launch_why_new(p, &o, ret);
}

/* ---- after the run: hints and denials ---- */

static bool says(const char *line, const char *const *what)
{
	for (size_t i = 0; what[i]; i++)
		if (strcasestr(line, what[i]))
			return true;
	return false;
}

/* Name resolution and connections that fail because there is no network. */
static const char *const net_failures[] = {
	"could not resolve", "temporary failure in name resolution", "name or service not known",
	"eai_again", "enotfound", "getaddrinfo", "network is unreachable", "enetunreach",
	"failed to establish a new connection", "name resolution", "no address associated", "couldn't connect",
	"failed to connect", "unable to resolve", "nodename nor servname", NULL,
};

/* What a connect that the sandbox refused says (Landlock's port rules: EACCES). */
static const char *const connect_refusals[] = {
	"permission denied", "connection refused", "econnrefused", "eacces", "operation not permitted", NULL,
};

static const char *const write_words[] = {
	"read-only file system", "erofs", "cannot create", "can't create", "mkdir", "cannot touch", "write",
	"rename", "unlink", "remove", "cannot move", "open for writing", "creat", NULL,
};
static const char *const exec_words[] = { "exec", "cannot run", "not permitted to run", NULL };

/* Which layer the error text points at: the read-only mount says EROFS,
 * seccomp EPERM, Landlock EACCES, and so does the runner's write gate,
 * which (full isolation only) decides the protected and persistence
 * paths. */
/* The decision is command_policies': a controlled executable. */
static bool is_tool_rule(const struct cordon_why_decision *d)
{
	return strncmp(d->pointer, "/command_policies/", strlen("/command_policies/")) == 0;
}

static const char *mechanism_of(const char *line, enum cordon_op op, const struct cordon_why_decision *d, bool light)
{
	bool gated = !light && op == CORDON_OP_WRITE &&
		     (strstr(d->reason, "write gate") || strstr(d->reason, "kept read-only by"));

	if (op == CORDON_OP_EXEC && is_tool_rule(d))
		return "exec-gate";

	if (strcasestr(line, "read-only file system") || strcasestr(line, "erofs"))
		return "mount";
	if (strcasestr(line, "operation not permitted") || strcasestr(line, "eperm"))
		return "seccomp";
	if (strcasestr(line, "permission denied") || strcasestr(line, "eacces"))
		return gated ? "write-gate" : "landlock";
	return "unknown";
}

struct hints {
	const struct cordon_why *why;
	bool light;        /* --isolation light */
	bool tools;        /* the profile has command_policies */
	const struct cordon_tools *toolset; /* they, or NULL */
	const char *home;
	json_t *hints, *denials;
	size_t omitted;    /* denials past HINTS_MAX_DENIALS: counted, not listed */
	bool exec_refused; /* the status channel said the sandbox refused the command's execve */
	char **seen;       /* paths already listed */
	bool net_said;
	char **cache_said; /* the HOME entries a cache hint named */
};

static bool path_byte(unsigned char c)
{
	return c > ' ' && c != ':' && c != '\'' && c != '"' && c != ',' && c != ')' && c != '`' && c != ';' &&
	       c != 0x7f && c != ']' && c != '>';
}

/* The dot-entry of HOME that c is under ("/home/u/.npm"), or NULL. */
static char *home_entry(const char *home, const char *c)
{
	size_t hl = home ? strlen(home) : 0;
	const char *e;

	if (hl < 2 || strncmp(c, home, hl) != 0 || c[hl] != '/' || c[hl + 1] != '.')
		return NULL;
	e = c + hl + 1;
	e += strcspn(e, "/");
	/* ~/.cache and ~/.local are shared: name the directory below them */
	if (*e && (strncmp(c + hl, "/.cache/", 8) == 0 || strncmp(c + hl, "/.local/", 8) == 0)) {
		e++;
		e += strcspn(e, "/");
		if (strncmp(c + hl, "/.local/share/", 14) == 0 && *e) {
			e++;
			e += strcspn(e, "/");
		}
	}
	return strndup(c, (size_t)(e - c));
}

/* The built-in profile whose rules let it write entry, the narrowest (the
 * fewest write rules: the tool's own profile) first, then the others after
 * ", ", or NULL. */
static char *builtin_allowing(const struct cli_args *a, const char *entry)
{
	const char *const *names = cordon_profile_builtin_names();
	_cleanup_free_ char *probe = path_join(entry, "cordon-hint");
	_cleanup_strv_free_ char **found = NULL;
	size_t best = 0, best_n = SIZE_MAX;
	char *out = NULL;

	for (size_t i = 0; probe && names && names[i]; i++) {
		_cleanup_(cordon_profile_freep) struct cordon_profile_handle *p = NULL;
		_cleanup_(cordon_why_freep) struct cordon_why *w = NULL;
		struct cordon_why_decision d;
		size_t n_write;

		if (cordon_profile_load(names[i], &(struct cordon_profile_opts){ .workspace = a->workspace }, &p, NULL) < 0)
			continue;
		if (cordon_why_new(p, NULL, &w) < 0 || cordon_why_path(w, probe, CORDON_OP_WRITE, &d) < 0 || !d.allow)
			continue;
		n_write = strv_length((char **)cordon_profile_list(p, CORDON_PROFILE_WRITE));
		if (n_write < best_n) {
			best_n = n_write;
			best = strv_length(found);
		}
		if (strv_push(&found, names[i]) < 0)
			return NULL;
	}
	if (!found)
		return NULL;
	if (asprintf(&out, "%s", found[best]) < 0)
		return NULL;
	for (size_t i = 0; found[i]; i++) {
		char *more;

		if (i == best)
			continue;
		if (asprintf(&more, "%s%s%s", out, strchr(out, '(') ? ", " : " (also ", found[i]) < 0)
			break;
		free(out);
		out = more;
	}
	if (strchr(out, '(')) {
		char *more;

		if (asprintf(&more, "%s)", out) >= 0) {
			free(out);
			out = more;
		}
	}
	return out;
}

/* In cordon's own voice: a path that only the command's output named is
 * never repeated (a command could print anything), only pointed at
 * (denials[N]); one the sandbox itself reported is named. */
static void cache_hint(struct hints *h, const struct cli_args *a, const char *c, bool from_output)
{
	_cleanup_free_ char *entry = home_entry(h->home, c), *name = NULL, *text = NULL, *what = NULL;

	if (!entry || strv_contains(h->cache_said, entry))
		return;
	if (strv_push(&h->cache_said, entry) < 0)
		return;
	if (from_output ? asprintf(&what, "the path under HOME that the output names (denials[%zu])",
				   json_array_size(h->denials) - 1) < 0
			: !(what = strdup(entry)))
		return;
	name = builtin_allowing(a, entry);
	if (name && asprintf(&text, "%s is a tool's cache under HOME, not writable under profile %s; the built-in "
			     "profile %s allows it: cordon run --profile %.*s ...", what, a->profile ?: "default", name,
			     (int)strcspn(name, " "), name) < 0)
		text = NULL;
	else if (!name && asprintf(&text, "%s is under HOME, not writable under profile %s: a profile with "
				   "\"filesystem\": {\"write\": [PATH]} allows it", what, a->profile ?: "default") < 0)
		text = NULL;
	if (text)
		json_array_append_new(h->hints, json_string(text));
}

/* A controlled executable run directly: how to run it instead. */
static void tool_hint(struct hints *h, const char *path, const struct cordon_why_decision *d, bool from_output)
{
	_cleanup_free_ char *text = NULL;
	const char *name = d->pointer + strlen("/command_policies/commands/");
	int n = (int)strcspn(name, "/");

	if (strncmp(d->pointer, "/command_policies/commands/", strlen("/command_policies/commands/")) != 0 || n == 0)
		return;
	if (asprintf(&text, "%s is %.*s's executable under command_policies: the session may not run it directly; "
			    "call it by name (%.*s, the shim in /run/cordon/bin, first on PATH), and the supervisor "
			    "runs it in its own sandbox; cordon why --command %.*s -- ARGS says what it allows",
		     from_output ? "the file the output names" : path, n, name, n, name, n, name) < 0)
		return;
	json_array_append_new(h->hints, json_string(text));
}

/* One entry for path (absolute, or ~/x) if why denies it. source: who
 * observed it ("kernel": the runner's status channel; "output": only the
 * command's text says so). */
static void explain_path(struct hints *h, const struct cli_args *a, const char *line, const char *path,
			 const char *source)
{
	bool from_output = strcmp(source, "output") == 0;
	enum cordon_op order[3] = { CORDON_OP_READ, CORDON_OP_WRITE, CORDON_OP_EXEC };
	_cleanup_free_ char *canon = NULL;
	struct cordon_why_decision d = {};
	const char *shown = path;
	int k;

	if (strv_contains(h->seen, path))
		return;
	(void)strv_push(&h->seen, path);
	/* the op the words say first, then the others: the one why denies */
	if (says(line, write_words))
		order[0] = CORDON_OP_WRITE, order[1] = CORDON_OP_READ;
	else if (says(line, exec_words))
		order[0] = CORDON_OP_EXEC, order[2] = CORDON_OP_READ;
	/* a command_policies executable run directly: the exec gate, whatever
	 * the words (sh says only "Permission denied") */
	if (h->tools && cordon_why_path(h->why, path, CORDON_OP_EXEC, &d) == 0 && !d.allow && is_tool_rule(&d))
		order[0] = CORDON_OP_EXEC, k = 0;
	else
		for (k = 0; k < 3; k++)
			if (cordon_why_path(h->why, path, order[k], &d) == 0 && !d.allow)
				break;
	if (k == 3)
		return; /* why cannot explain it: not listed */
	if (json_array_size(h->denials) >= HINTS_MAX_DENIALS) {
		h->omitted++;
		return;
	}
	if (order[k] == CORDON_OP_EXEC && is_tool_rule(&d))
		tool_hint(h, path, &d, from_output);
	if (path[0] == '/' && cordon_canonicalize(path, &canon, NULL) == 0)
		shown = canon;
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "kind", "path", "path", shown, "op",
			      cordon_op_to_string(order[k]), "rule", d.pointer[0] ? d.pointer : d.file, "mechanism",
			      mechanism_of(line, order[k], &d, h->light), "reason", d.reason, "line", cli_json_text(line, strlen(line)));
	if (o) {
		json_object_set_new(o, "file", json_string(d.file));
		json_object_set_new(o, "source", json_string(source));
		json_array_append_new(h->denials, o);
	}
	if (o && order[k] == CORDON_OP_WRITE && canon)
		cache_hint(h, a, canon, from_output);
}

/* A relative name next to a denial signature at sig: "X: Permission
 * denied", "'X': Read-only file system", "Permission denied: 'X'"; taken
 * in the current directory, where the command ran. */
static void relative_near(struct hints *h, const struct cli_args *a, const char *line, const char *sig, size_t siglen)
{
	_cleanup_free_ char *name = NULL, *cwd = NULL, *full = NULL;
	const char *b = NULL, *e = NULL;

	if (sig - line >= 3 && sig[-2] == ':' && sig[-1] == ' ') {
		e = sig - 2;
		if (e - line >= 3 && memcmp(e - 3, "\xe2\x80\x99", 3) == 0) {
			/* coreutils in a UTF-8 locale: ‘X’ */
			e -= 3;
			for (b = e; b - line >= 3 && memcmp(b - 3, "\xe2\x80\x98", 3) != 0; b--)
				;
			if (b - line < 3)
				b = e;
		} else {
			bool quoted = e[-1] == '\'' || e[-1] == '"';
			if (quoted)
				e--;
			for (b = e; b > line && (quoted ? b[-1] != e[0] : path_byte((unsigned char)b[-1])); b--)
				;
			if (quoted && b == line)
				b = e; /* no opening quote: nothing */
		}
	} else if (sig[siglen] == ':' && sig[siglen + 1] == ' ' && (sig[siglen + 2] == '\'' || sig[siglen + 2] == '"')) {
		b = sig + siglen + 3;
		e = strchr(b, sig[siglen + 2]);
	}
	if (!b || !e || e <= b || *b == '/' || *b == '~' || e - b > 1024)
		return;
	name = strndup(b, (size_t)(e - b));
	cwd = getcwd(NULL, 0);
	if (!name || !cwd || strchr(name, ' ') || !(full = path_join(cwd, name)))
		return;
	explain_path(h, a, line, full, "output");
}

/* The quotes that UTF-8 locales (C.UTF-8 included) put around a name:
 * ‘x’ (coreutils, gnulib), “x” and «x». The length of the opening one
 * that ends just before s, or of the closing one at s; 0 for none. */
static size_t open_quote_before(const char *line, const char *s)
{
	if (s - line >= 3 && (memcmp(s - 3, "\xe2\x80\x98", 3) == 0 || memcmp(s - 3, "\xe2\x80\x9c", 3) == 0))
		return 3;
	if (s - line >= 2 && memcmp(s - 2, "\xc2\xab", 2) == 0)
		return 2;
	return 0;
}

static bool close_quote_at(const char *s)
{
	return strncmp(s, "\xe2\x80\x99", 3) == 0 || strncmp(s, "\xe2\x80\x9d", 3) == 0 || strncmp(s, "\xc2\xbb", 2) == 0;
}

/* A tool's own line ("EXECUTABLE: ...": a script's shell names itself by
 * its path, $0): what it was refused happened in the tool's sandbox, so
 * the session's rules cannot explain it. A file it could not execute that
 * its sandbox's exec_paths does not name is the tool's denial, with the
 * tool's rule. true: the line was the tool's (nothing more to say of it). */
static bool tool_line_denials(struct hints *h, const char *line)
{
	const char *const *names = h->toolset ? cordon_tools_commands(h->toolset) : NULL;

	for (size_t i = 0; names && names[i]; i++) {
		const char *exe = cordon_tools_executable(h->toolset, names[i]);
		size_t n = exe ? strlen(exe) : 0;
		struct cordon_tool_sandbox sb;

		if (!n || strncmp(line, exe, n) != 0 || line[n] != ':')
			continue;
		if (cordon_tools_sandbox(h->toolset, CORDON_TOOLS_SESSION, names[i], &sb) < 0)
			return true;
		for (const char *s = line + n + 1; *s; s++) {
			_cleanup_free_ char *path = NULL, *canon = NULL, *rule = NULL, *reason = NULL;
			size_t k;

			if (*s != '/' || (s > line && path_byte((unsigned char)s[-1])))
				continue;
			for (k = 0; path_byte((unsigned char)s[k]); k++)
				;
			path = strndup(s, k);
			s += k - 1;
			if (!path || cordon_canonicalize(path, &canon, NULL) < 0 || strcmp(canon, exe) == 0 ||
			    path_under_any(canon, sb.exec_paths) || strv_contains(h->seen, canon))
				continue;
			(void)strv_push(&h->seen, canon);
			if (json_array_size(h->denials) >= HINTS_MAX_DENIALS) {
				h->omitted++;
				continue;
			}
			if (asprintf(&rule, "/command_policies/commands/%s/sandbox/exec_paths", names[i]) < 0 ||
			    asprintf(&reason, "%s runs in its own sandbox, which executes only its executable and its "
					      "sandbox's exec_paths: %s is not among them", names[i], canon) < 0)
				continue;
			json_array_append_new(h->denials,
					      json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:s}", "kind", "path", "path", canon,
							"op", "exec", "rule", rule, "mechanism", "landlock", "reason", reason,
							"line", cli_json_text(line, strlen(line)), "tool", names[i], "source",
							"output"));
		}
		return true;
	}
	return false;
}

/* Each path a denial line names that why denies: one entry. */
static void line_denials(struct hints *h, const struct cli_args *a, const struct cordon_confined *c, const char *line)
{
	if (tool_line_denials(h, line))
		return;
	for (const char *s = line; *s; s++) {
		_cleanup_free_ char *path = NULL;
		size_t n;

		if (!(*s == '/' || (s[0] == '~' && s[1] == '/')) ||
		    (s > line && path_byte((unsigned char)s[-1]) && !open_quote_before(line, s)))
			continue;
		for (n = 0; path_byte((unsigned char)s[n]) && !close_quote_at(s + n); n++)
			;
		path = strndup(s, n);
		s += n - 1;
		/* "//host/x" is a URL's tail (https://host/x), not a path */
		if (!path || n < 2 || (path[0] == '/' && path[1] == '/'))
			continue;
		if (path[0] == '~') {
			/* a shell's ~/x is HOME's */
			char *full = h->home ? path_join(h->home, path + 2) : NULL;

			if (!full)
				continue;
			free(path);
			path = full;
		}
		explain_path(h, a, line, path, "output");
	}
	STRV_FOREACH(sig, c->denial_signatures) {
		const char *at = strcasestr(line, *sig);

		if (at)
			relative_near(h, a, line, at, strlen(*sig));
	}
}

static void net_hint(struct hints *h, const char *line, bool after_connect)
{
	enum cordon_net net = cordon_why_net(h->why);
	bool proxy = net == CORDON_NET_PROXY || net == CORDON_NET_ALLOW;
	struct cordon_origin origin;

	if (h->net_said || net == CORDON_NET_HOST || cordon_why_mode(h->why) == CORDON_MODE_DANGER_FULL_ACCESS ||
	    !(says(line, net_failures) || (after_connect && says(line, connect_refusals))))
		return;
	/* the proxy's own refusals are its audit lines (cli_net.c) */
	if (proxy && strstr(line, "cordon-proxy: refused "))
		return;
	h->net_said = true;
	json_array_append_new(h->hints, json_string(
		net == CORDON_NET_ALLOW
		? "only the hosts the rules allow are reached (--net allow): other names do not resolve (NXDOMAIN) "
		  "and a connect elsewhere is refused; `cordon why --host H --port P` says why, --allow-domain admits one"
		: proxy ? "only cordon's proxy leads out (--net proxy): there is no resolver and no route, so a "
			"program that ignores HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (127.0.0.1:3128, SOCKS5 :1080) "
			"fails at once; point it at the proxy, or allow the network with --net host"
		      : "the network is off (--net none: only the sandbox's own loopback), so name resolution and "
			"connections fail at once; allow it with --net host, or a profile with \"network\": {\"mode\": "
			"\"host\"}"));
	cordon_why_net_origin(h->why, &origin);
	json_t *o = json_pack("{s:s,s:n,s:s,s:s,s:s,s:s,s:o,s:s}", "kind", "network", "path", "op", "connect", "rule",
			      origin.pointer && origin.pointer[0] ? origin.pointer : "network.mode",
			      "mechanism", "netns", "reason",
			      net == CORDON_NET_ALLOW ? "network.mode is allow: only the hosts the rules allow"
			      : proxy		       ? "network.mode is proxy: only through cordon's proxy"
						       : "network.mode is none",
			      "line",
			      cli_json_text(line, strlen(line)), "source", "output");
	if (o)
		json_array_append_new(h->denials, o);
}

/* The runner could not execute the command itself ("cordon: execve:
 * PATH: EACCES", an executable file: the mode is checked first): what why
 * says of executing PATH. The sandbox's own observation when the status
 * channel said so (exec_refused), else only text the command printed. */
static void runner_exec_denial(struct hints *h, const struct cli_args *a, const char *line)
{
	char path[HINTS_MAX_LINE];

	if (cordon_runner_exec_refused(line, path, sizeof(path)) == 0)
		explain_path(h, a, line, path, h->exec_refused ? "kernel" : "output");
}

static void scan_text(struct hints *h, const struct cli_args *a, const struct cordon_confined *c, const char *text,
		      size_t len)
{
	const char *p = text, *end = text + len;
	int connect_seen = 0;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		_cleanup_free_ char *line = strndup(p, n < HINTS_MAX_LINE ? n : HINTS_MAX_LINE);

		p = nl ? nl + 1 : end;
		if (!line)
			return;
		/* a refused connect can say so on the line after (a traceback) */
		if (strcasestr(line, "connect"))
			connect_seen = 3;
		else if (connect_seen > 0)
			connect_seen--;
		net_hint(h, line, connect_seen > 0);
		if (strncmp(line, "cordon: execve: /", strlen("cordon: execve: /")) == 0)
			runner_exec_denial(h, a, line);
		bool denial = false;
		STRV_FOREACH(sig, c->denial_signatures)
			if (strcasestr(line, *sig)) {
				denial = true;
				break;
			}
		if (denial)
			line_denials(h, a, c, line);
	}
}

int cli_hints_collect(const struct cli_args *a, const struct cordon_profile_handle *prof,
		      const struct cordon_confined *c, const struct cordon_result *res, json_t **ret_hints,
		      json_t **ret_denials, size_t *ret_omitted)
{
	_cleanup_(cordon_why_freep) struct cordon_why *why = NULL;
	struct hints h = {};
	int status = res->signal ? 128 + res->signal : res->exit_code;
	int r;

	h.hints = json_array();
	h.denials = json_array();
	if (!h.hints || !h.denials) {
		json_decref(h.hints);
		json_decref(h.denials);
		return -ENOMEM;
	}
	bool observed = c->enforcement != CORDON_ENFORCEMENT_NONE && cli_observed_any(res);
	struct cordon_origin origin;
	const char *net_rule;

	cordon_profile_net_origin(prof, &origin);
	net_rule = a->net_set ? "--net" : origin.pointer ?: "network.mode";
	if ((status != 0 || observed) && c->enforcement != CORDON_ENFORCEMENT_NONE && cli_why_new(a, prof, &why) >= 0)
		h.why = why;
	/* What cordon itself refused (its gates, its proxy), from the status
	 * channel: known for certain, whatever the exit code; first, so the
	 * output's lines naming the same paths add nothing. */
	if (observed) {
		json_t *d;
		size_t i;

		cli_observed_denials(h.denials, res, why, a, prof, net_rule);
		json_array_foreach(h.denials, i, d) {
			const char *p = json_string_value(json_object_get(d, "path"));

			if (p)
				(void)strv_push(&h.seen, p);
		}
	}
	/* what a command that succeeded printed is no one's problem */
	if (status != 0 && why) {
		h.light = a->isolation_set && a->isolation == CORDON_ISOLATION_LIGHT;
		h.toolset = cordon_profile_tools(prof);
		h.tools = h.toolset != NULL;
		h.home = cordon_profile_home(prof);
		/* the status channel's verdict (classify.c): the runner's execve
		 * of an executable file was refused by the sandbox */
		h.exec_refused = res->verdict == CORDON_VERDICT_DENIED && res->exit_code == 126;
		scan_text(&h, a, c, res->output ?: "", res->output_len);
		if (res->stderr_output)
			scan_text(&h, a, c, res->stderr_output, res->stderr_len);
	}
	/* what the HOME allowlist hid reads as missing: say so */
	if (status != 0 && why)
		(void)cli_hidden_home_hints(why, h.home, res->stderr_output ?: res->output,
					    res->stderr_output ? res->stderr_len : res->output_len, h.hints);
	/* a failure beside what the private /tmp hid: say what it hid */
	if (status != 0)
		(void)cli_hidden_tmp_hints(a, a->workspace ?: cordon_profile_workspace(prof), c,
					   res->stderr_output ?: res->output, res->stderr_output ? res->stderr_len
					   : res->output_len, h.hints);
	/* --net proxy: the proxy's refusals. With a status channel they came
	 * on it (above, source proxy), and a refusal line in the command's
	 * stream is only text the command could have printed: not listed.
	 * Without one (a runner that has none), the lines are all there is:
	 * source output. */
	bool proxy_said = false;
	if (c->enforcement != CORDON_ENFORCEMENT_NONE &&
	    (a->net_set ? a->net == CORDON_NET_PROXY || a->net == CORDON_NET_ALLOW
			: cordon_profile_net(prof) == CORDON_NET_PROXY || cordon_profile_net(prof) == CORDON_NET_ALLOW)) {
		size_t before = json_array_size(h.denials);

		if (c->status_format == CORDON_STATUS_NONE) {
			cli_net_denials(h.denials, res->output, res->output_len, a, prof, net_rule);
			if (res->stderr_output)
				cli_net_denials(h.denials, res->stderr_output, res->stderr_len, a, prof, net_rule);
			for (size_t i = before; i < json_array_size(h.denials); i++)
				json_object_set_new(json_array_get(h.denials, i), "source", json_string("output"));
		}
		for (size_t i = 0; i < json_array_size(h.denials) && !proxy_said; i++)
			proxy_said = strcmp(json_string_value(json_object_get(json_array_get(h.denials, i), "mechanism"))
					    ?: "", "proxy") == 0;
	}
	/* Capped like the rest. */
	while (json_array_size(h.denials) > HINTS_MAX_DENIALS) {
		json_array_remove(h.denials, json_array_size(h.denials) - 1);
		h.omitted++;
	}
	if (proxy_said)
		json_array_append_new(h.hints, json_string(
			"cordon's proxy refused a connection (see denials): it connects only to the hosts "
			"--allow-domain H (or the profile's network.allow_domains) admits, never to a "
			"--deny-domain, and to a local or private address only with --allow-address"));
	/* the limit or the signal that ended it */
	if (res->limit != CORDON_LIMIT_NONE) {
		_cleanup_free_ char *rule = NULL;
		r = asprintf(&rule, "limits.%s", cordon_limit_to_string(res->limit));
		json_array_append_new(h.denials, json_pack("{s:s,s:n,s:n,s:s,s:s,s:s}", "kind", "limit", "path", "op",
							   "rule", r < 0 ? "limits" : rule, "mechanism",
							   cordon_limit_mechanism_to_string(res->limit_mechanism), "source",
							   "kernel"));
		if (r < 0)
			rule = NULL;
	} else if (res->signal) {
		char sig[32];

		snprintf(sig, sizeof(sig), "SIG%s", sigabbrev_np(res->signal) ?: "?");
		json_array_append_new(h.denials, json_pack("{s:s,s:n,s:n,s:s,s:s,s:s}", "kind", "signal", "path", "op",
							   "rule", sig, "mechanism", "signal", "source", "kernel"));
	}
	strv_free(h.seen);
	strv_free(h.cache_said);
	*ret_hints = h.hints;
	*ret_denials = h.denials;
	*ret_omitted = h.omitted;
	return 0;
}
