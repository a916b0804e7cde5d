/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "strarena.h"

/* A path the sandbox must not read, resolved when the policy was built.
 * Its strings live in the policy's deny_strs: never freed one by one. */
struct deny_entry {
	char *path;   /* canonical (symlinks resolved) absolute path */
	uint32_t hash; /* deny_path_hash(path): the duplicate check compares it first */
	bool exists;  /* false: nothing to hide; providers skip it */
	bool is_dir;  /* directory -> empty read-only dir; else /dev/null */
	bool only_without_net; /* a local service socket: hidden unless the network is "host" */
	char *absent_at;       /* !exists: its first component that does not exist (what the native
				* runner hides by Landlock omission, so a store created later stays
				* unreadable); NULL when it exists, or when nothing above it does */
	bool explicit_deny;    /* cordon_policy_deny_read: never lifted by a grant (deny wins) */
};

enum deny_origin {
	DENY_EXPLICIT,   /* the caller asked: kept as given */
	DENY_DEFAULT,    /* built in: skipped when it would hide a writable root */
	DENY_SERVICE,    /* built in, and only while the network is "none" */
};

/* Features the policy insists on (cordon_policy_require). */
enum {
	REQUIRE_LANDLOCK       = 1u << 0,
	REQUIRE_LANDLOCK_NET   = 1u << 1,
	REQUIRE_LANDLOCK_SCOPE = 1u << 2,
	REQUIRE_SECCOMP        = 1u << 3,
	REQUIRE_USERNS         = 1u << 4,
	REQUIRE_PIDNS          = 1u << 5,
	REQUIRE_NETNS          = 1u << 6,
};

/* A cap on each list a caller can grow. */
#define POLICY_MAX_ENTRIES 4096

struct cordon_policy {
	enum cordon_mode mode;
	enum cordon_net net;
	char **net_rules[3];       /* --net proxy: by enum cordon_net_rule (policy_net.c) */
	enum cordon_isolation isolation;
	char *workspace;           /* canonical; NULL only for danger-full-access */
	char *home;                /* the caller's HOME, canonical; NULL if unknown */
	char **writable_roots;     /* NULL-terminated; empty for read-only */
	struct deny_entry *deny;   /* default credential set + cordon_policy_deny_read */
	size_t n_deny;
	size_t deny_cap;           /* entries allocated (policy_deny.c grows it by doubling) */
	struct strarena deny_strs; /* every deny entry's path and absent_at: some 300 strings a
				    * launch, one allocation per block instead of one each */
	uint64_t deny_seen[64];    /* a bit per hash of every path deny_insert added (a superset
				    * after removals): a clear bit means "not there" without a walk */
	char **protect;            /* absolute paths, lexically normalised; may not exist yet */
	char **protect_files;      /* existing non-directories on the way to a protected path
				    * (a worktree's .git file), noted when it was added: bwrap
				    * cannot bind below them (ENOTDIR), nor need to */
	char **protect_dirs_seen;  /* directories note_protect_file found on the way (no link):
				    * the protected paths share them, each is looked at once */
	char **protect_links;      /* symlinks on the way to, or at, a protected path, noted
				    * likewise: bwrap would protect the target, not the link */
	char **protect_expanded;   /* entries matching a protected prefix pattern (".cordon*")
				    * that existed when the pattern was added (bwrap binds these) */
	bool protect_notes_deferred; /* the four lists above are not filled (yet): a launch
				      * notes them only for a backend other than the native
				      * runner (policy_protect_notes_finish), bwrap refuses
				      * the policy until then */
	char **unprotect;          /* lifted persistence paths: no rule by name applies at or below
				    * them (a profile's groups.persistence.bypass) */
	char **allow_unix;         /* canonical socket paths the runner's unix gate admits */
	char **env;                /* NAME=VALUE, the snapshot passed into the sandbox */
	char **keep_env;           /* names/patterns kept (for the runner: --keep-env) */
	unsigned required;         /* REQUIRE_* */
	enum cordon_grade min_grade; /* cordon_policy_require_grade: a fallback below it is refused */
	char *shim_path;           /* cordon_policy_set_broker: the shim, canonical; NULL: no broker */
	char **shims;              /* the command names it serves */
	bool credentials;          /* cordon_policy_set_credentials: the proxy gets a credential table */
	bool caller_is_root;       /* euid 0 when the policy was built */

	/* policy_tool.c: restricted reads, the execute-only gate, deny-exec,
	 * running from an fd */
	bool read_restricted;      /* readable: read_roots (the baseline, then what was granted) only */
	char **read_roots;         /* canonical, existing */
	char **read_missing;       /* granted but missing when granted: skipped */
	char **read_host;          /* canonical: host paths below /tmp or /dev/shm the private tmpfs would
				    * hide, brought back read-only (cordon_policy_read_host) */
	bool exec_gate;            /* executable: exec_roots only */
	char **exec_roots;         /* canonical, existing */
	char **exec_missing;
	char **deny_exec;          /* canonical; for a missing path its first missing component */
	bool exec_from_fd;         /* the runner executes the file the caller opened (--exec-fd) */

	/* policy_home.c: the HOME allowlist */
	enum cordon_home home_policy;
	char **home_hidden;        /* canonical directories covered (HOME, other homes, XDG outside HOME) */
	char **home_grants;        /* canonical: the built-in grants that exist, and cordon_policy_grant_home's */
	char **home_links;         /* granted symlinks, made again in the sandbox's HOME */
	char **home_filtered;      /* configuration files the sandbox sees as a filtered copy */
	bool home_catalogue_lazy;  /* built for the allowlist: the catalogue is resolved only at and below
				    * what is granted (policy_home_cover), not in the whole of HOME */
	char *home_other;          /* the passwd home when it is another directory (lazy catalogue) */
};

/* The built-in read-deny set, relative to HOME. NULL-terminated. */
/* The credential catalogue: a path below HOME and the group that lifts it;
 * ends with { NULL, NULL }. */
struct policy_secret {
	const char *group;
	const char *path;
};
extern const struct policy_secret policy_default_deny_read[];
extern const char *const policy_root_deny_read[];
/* The caller's passwd home, canonical, when it is another directory than
 * home (canonical, may be NULL): the catalogue applies below both. *ret is
 * malloc'd, or NULL (the same directory, or none that can be resolved). */
int policy_other_home(const char *home, char **ret);
/* policy_secrets.c: catalogue entry i below home (canonical), canonical;
 * *ret malloc'd. Taken from the memo in use, if the current thread has one
 * and it holds the entry; else resolved (and kept there). */
int policy_secret_canonical(const char *home, size_t i, char **ret, struct cordon_error *reterr);
/* Catalogue entry i below a home, as policy_secrets_resolve found it. */
struct policy_secret_state {
	const char *canon;     /* canonical; NULL when err says why not */
	const char *absent_at; /* known && !exists: its first component that does not exist */
	int err;         /* 0, or the walk's -errno (EACCES: out of reach) */
	bool known;      /* exists, is_dir and absent_at were read from the listings */
	bool exists, is_dir;
};
/* One resolution: n states, their strings in strs (freed together). */
struct policy_secret_set {
	size_t n;
	struct policy_secret_state *v;
	struct strarena strs;
};
void policy_secret_set_done(struct policy_secret_set *s);
/* The whole catalogue below home (canonical), listing the directories it
 * lives in once (policy_secret_count() entries): *ret points into the
 * memo's resolution when there is one (valid while the memo is), else into
 * *owned, which the caller empties with policy_secret_set_done. */
int policy_secrets_resolve(const char *home, struct policy_secret_set *owned,
			   const struct policy_secret_state **ret);
/* The same for a NULL-terminated list of absolute paths (the sockets and
 * services that lead out), below "/": one entry each in *ret. */
int policy_paths_resolve(const char *const *paths, struct policy_secret_set *ret);
size_t policy_secret_count(void);
/* A session start's memo of the catalogue (policy_secret_canonical):
 * made at a profile's load, used until the first policy built from it. */
struct policy_secret_memo;
int policy_secret_memo_new(struct policy_secret_memo **ret);
struct policy_secret_memo *policy_secret_memo_free(struct policy_secret_memo *m);
/* Make m (NULL: none) the current thread's memo; returns the one before,
 * to be put back. */
struct policy_secret_memo *policy_secret_memo_use(struct policy_secret_memo *m);
/* The caller's HOME (the passwd home when HOME is unset or relative),
 * canonical in *ret, or NULL (policy_deny.c). */
int policy_resolve_home(char **ret);
/* Sockets that lead out of any sandbox (container engines, the system and
 * session buses, the user's runtime directory), hidden always; and local
 * service sockets (databases), hidden when the network is "none". */
extern const char *const policy_default_deny_sockets[];
extern const char *const policy_default_deny_services[];
/* System files of cordon's own hidden from every sandbox, every user's. */
extern const char *const policy_default_deny_system[];
/* Does the provider hide d under p? (exists, and not a service socket under --net host) */
bool deny_entry_applies(const struct cordon_policy *p, const struct deny_entry *d);
/* The same, for the native runner, which also hides what does not exist yet:
 * the path to pass (d->path, or d->absent_at), or NULL. */
const char *deny_entry_native_path(const struct cordon_policy *p, const struct deny_entry *d);
/* Note what bwrap needs to know about protected path (protect_files,
 * protect_links, protect_expanded); reads the filesystem. policy_protect.c */
int policy_note_protect(struct cordon_policy *p, const char *path);
/* While on, in this thread, the policies built defer those notes (the
 * native runner decides the same at run time, so a launch for it needs
 * none): the previous setting. policy_protect.c */
bool policy_protect_notes_defer(bool on);
bool policy_protect_notes_deferring(void);
/* The deferred notes of p, taken now (for every protected path). */
int policy_protect_notes_finish(struct cordon_policy *p);
/* policy_deny.c: the read-deny set, as cordon_policy_new builds it. */
int policy_deny_add(struct cordon_policy *p, const char *path, enum deny_origin origin, struct cordon_error *reterr);
int policy_deny_defaults_outside_home(struct cordon_policy *p, struct cordon_error *reterr);
int policy_deny_home_secrets(struct cordon_policy *p, const char *home, struct cordon_error *reterr);
int policy_deny_root_secrets(struct cordon_policy *p, struct cordon_error *reterr);
/* What a new writable root reaches: HOME's start-up files and dot-entries,
 * PATH directories below it, protected (policy_protect.c). */
int policy_protect_reach(struct cordon_policy *p, const char *root);
/* root lies inside a HOME dot-entry: a tool's cache, where no rule by name
 * of the write gate applies (policy_protect.c). */
bool policy_home_cache_root(const char *home, const char *root);
/* core.hooksPath targets below a writable root, protected (policy_protect.c). */
int policy_protect_hooks_paths(struct cordon_policy *p);
/* The single names of policy_default_protect, protected at any depth
 * below a writable root by the native runner (--protect-name). */
bool policy_protect_is_name(const char *entry);
/* The built-in protected set, relative to the workspace. NULL-terminated.
 * Entries ending in '*' are prefixes matched by the runner. */
extern const char *const policy_default_protect[];
/* Shell start-up files, relative to HOME; protected when HOME is writable. */
extern const char *const policy_default_protect_home[];
/* The built-in environment allow-list. Entries ending in '*' are prefixes. */
extern const char *const policy_default_env[];

/* policy_tool.c: the system's read baseline, canonical, into p->read_roots
 * (once), and p->read_restricted set. */
int policy_restrict_reads(struct cordon_policy *p, struct cordon_error *reterr);
/* Under restricted reads, a grant of canon lifts every built-in read-deny
 * entry at or above it (granting ~/.config/gh makes that store readable;
 * granting ~ lifts nothing below it); an explicit one (cordon_policy_deny_read)
 * at or above it refuses the grant: -EPERM, deny wins. */
int policy_lift_deny(struct cordon_policy *p, const char *canon, struct cordon_error *reterr);
/* The /dev nodes the read baseline names under each isolation (full: the
 * sandbox's own /dev; light: the host's, so its harmless nodes only). */
extern const char *const policy_read_dev_full[];
extern const char *const policy_read_dev_light[];
/* The library directories a tool maps executable whatever its closure
 * (Python extension modules, NSS, gconv, OpenSSL providers are dlopen'ed):
 * under the execute-only gate the runner mounts / noexec and binds these
 * (and the --exec paths) back executable; a session refuses a writable
 * root inside one (toolbox_writable.c). NULL-terminated. */
extern const char *const policy_library_dirs[];
/* policy_deny.c: the first component of an absent canonical path that does
 * not exist (malloc'd), or NULL. */
char *policy_first_absent(const char *path);
/* policy.c: cordon_policy_new's work. */
enum {
	POLICY_NEW_TOOL = 1u << 0,      /* a tool's sandbox: nothing writable but /tmp */
	POLICY_NEW_CANONICAL = 1u << 1, /* workspace_root is canonical already (a loaded profile's) */
	POLICY_NEW_HOME_ALLOWLIST = 1u << 2, /* HOME's catalogue only where granted (policy_home_cover) */
};
int policy_new_internal(enum cordon_mode m, const char *workspace_root, unsigned flags, struct cordon_policy **ret,
			struct cordon_error *reterr);
/* The setters for paths that are canonical already (a loaded profile's
 * rules, canonicalised once by its loader): the checks and the errors of
 * cordon_policy_add_writable, _protect, _allow_unix_socket and
 * _deny_read, without walking the path again. */
int policy_add_writable_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr);
/* The same for a profile's filesystem.write (a directory): one that does
 * not exist yet is created below HOME or the workspace, without following
 * a symlink, and refused with the reason anywhere else. */
int policy_add_writable_dir_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr);
int policy_protect_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr);
/* A grant's path canonical, refused when a symlink on the way sits in the
 * workspace, a temp root or a writable root (canonicalize_grant). */
int policy_canonicalize_grant(const struct cordon_policy *p, const char *path, char **ret,
			      struct cordon_error *reterr);
int policy_allow_unix_socket_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr);
int policy_deny_add_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr);
/* policy.c: what a new writable root reaches, protected (HOME's start-up
 * files, PATH directories, git's hooks paths, cordon's profiles). */
int policy_protect_root(struct cordon_policy *p, const char *root, struct cordon_error *reterr);

/* policy_home.c. The built-in grant below home that covers c (canonical),
 * or NULL; *ret_filtered: it is seen as a filtered copy. Lexical. */
const char *policy_home_default_grant(const char *home, const char *c, bool *ret_filtered);
/* What a granted symlink at link brings back below home (its target, or
 * the prefix of the bin/ it lies in), or *ret NULL: nothing (it leads out
 * of HOME, into a catalogue entry, or, in_bin, to no executable file). */
int policy_home_link_target(const char *home, const char *link, bool in_bin, char **ret);
/* c (canonical) is at, below or above a catalogue entry of home. Lexical. */
bool policy_home_catalogue(const char *home, const char *c);
/* The hidden directory of p holding c, if the allowlist applies there:
 * not at or below a writable root or the workspace. */
const char *policy_home_hiding(const struct cordon_policy *p, const char *c);
/* Whether the hidden directory h applies to the run: nothing at or above
 * it is writable, nor the workspace (then HOME cannot hide from itself). */
bool policy_home_applies(const struct cordon_policy *p, const char *h);

/* c is visible below its hidden directory: at or below a grant. */
bool policy_home_granted(const struct cordon_policy *p, const char *c);
/* d lies in an applying hidden directory and no grant brings it back: a
 * read-deny entry there costs the runner nothing to hide (native.c). */
bool policy_home_hides(const struct cordon_policy *p, const char *d);
/* Under a lazily resolved catalogue (POLICY_NEW_HOME_ALLOWLIST), the
 * catalogue's entries at, below or above canon, a path just granted or
 * made writable, resolved and denied now; else nothing. */
int policy_home_cover(struct cordon_policy *p, const char *canon, struct cordon_error *reterr);
/* The runner's --home-* flags (native.c). */
struct strv_builder;
void policy_home_add_flags(struct strv_builder *sb, const struct cordon_policy *p, bool light);

/* policy_net.c: the runner's --allow-domain/--deny-domain/--allow-address flags. */
struct strv_builder;
void policy_net_add_flags(struct strv_builder *sb, const struct cordon_policy *p);

/* Feature names ("landlock-net") <-> REQUIRE_* bits. */
int require_feature_from_string(const char *s, unsigned *ret);
const char *require_feature_to_string(unsigned bit); /* NULL if not exactly one known bit */
#define REQUIRE_ALL (REQUIRE_LANDLOCK | REQUIRE_LANDLOCK_NET | REQUIRE_LANDLOCK_SCOPE | REQUIRE_SECCOMP | \
		     REQUIRE_USERNS | REQUIRE_PIDNS | REQUIRE_NETNS)

/* True if NAME may never be set from outside (loader/interpreter injection). */
bool env_name_is_injection(const char *name);
/* True if NAME is one cordon sets for a tool and no caller or profile
 * may: HOME, TMPDIR (TMP, TEMP) and XDG_* (policy_tool_owned_env). */
bool env_name_is_tool_owned(const char *name);
extern const char *const policy_tool_owned_env[];
/* True if cordon sets NAME (or the name of NAME=VALUE) in every sandbox
 * (CORDON_SANDBOX...): never kept from outside nor set by a caller. */
bool env_name_is_cordon_owned(const char *name);
/* The proxy variables ("NAME=value", NULL-terminated, at most
 * POLICY_PROXY_ENV_MAX with the NULL) the runner sets in a sandbox whose
 * way out is cordon's proxy (127.0.0.1:POLICY_PROXY_HTTP_PORT, SOCKS5 on
 * POLICY_PROXY_SOCKS_PORT): the one list. */
#define POLICY_PROXY_HTTP_PORT 3128
#define POLICY_PROXY_SOCKS_PORT 1080
#define POLICY_PROXY_ENV_MAX 16
extern const char *const policy_proxy_env[];
/* True if NAME (or the name of NAME=VALUE), in any case, is one of them:
 * cordon sets it itself, so no profile, caller or request may. */
bool env_name_is_proxy(const char *name);
/* Why no caller may set NAME (a bare name) in a sandbox as it
 * starts: a loader's or interpreter's variable, one cordon sets in every
 * sandbox, or a proxy variable. NULL when it is none of these. */
const char *env_name_never_set(const char *name);
/* Why, for a refusal: "cordon sets NAME itself: " POLICY_PROXY_ENV_WHY. */
#define POLICY_PROXY_ENV_WHY \
	"the proxy variables name cordon's proxy, the sandbox's way out (--net proxy); where it may lead is the network rules' to say"
/* The trust variables ("NAME=value", NULL-terminated, at most
 * POLICY_TRUST_ENV_MAX with the NULL) the runner sets in the sandbox of a
 * consumer of a credential (exec/trust.h): each points a client at the
 * session's bundle (the host's roots and the session CA) or, where the
 * client adds to its own roots, at the CA alone. The one list; the JVM's
 * JAVA_TOOL_OPTIONS is merged, not set, and is an injection variable. */
#define POLICY_TRUST_BUNDLE "/etc/ssl/certs/ca-certificates.crt"
#define POLICY_TRUST_CA_FILE "/etc/ssl/certs/cordon-session-ca.pem"
#define POLICY_TRUST_ENV_MAX 12
extern const char *const policy_trust_env[];
/* True if NAME (or the name of NAME=VALUE), exactly (the programs that
 * read them do so case-sensitively), is one of them. */
bool env_name_is_trust(const char *name);
#define ENV_NAME_MAX 256
/* Letters, digits and '_', not starting with a digit, at most ENV_NAME_MAX bytes;
 * with allow_glob a trailing '*' makes it a prefix ("*" alone: every name). */
bool env_name_valid(const char *name, bool allow_glob);
/* Values in a policy's environment: at most this many bytes. */
#define POLICY_ENV_VALUE_MAX (128 * 1024)
/* Append to *env (NAME=VALUE strings) the variables of the process's
 * environment whose names one of patterns matches, leaving out injection
 * names; one walk (policy_env.c says the order). */
int policy_env_snapshot(char ***env, const char *const *patterns);
/* True if NAME matches PATTERN (exact, or PREFIX* when PATTERN ends in '*'). */
bool env_name_matches(const char *pattern, const char *name);
/* One of patterns (NULL-terminated; NULL: none) matches name. */
bool env_name_matches_any(const char *const *patterns, const char *name);
/* Canonical temp roots (memoised by policy_warm). NULL-terminated. */
const char *const *policy_temp_roots(void);
int policy_warm(struct cordon_error *reterr);
