/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The built-in lists the default policy is made of: the credential
 * catalogue, a root caller's system secrets, the sockets and services that
 * lead out, the persistence paths, and the environment allow-list. Data
 * only; policy.c applies them.
 */
#include <stddef.h>

#include <string.h>

#include "policy.h"

/*
 * What an agent's machine holds that no tool it runs should read, below HOME
 * (and below the caller's passwd home, when HOME points elsewhere), grouped
 * so a profile can lift one group by name. Directories are hidden whole; a
 * file alone where its directory holds other things tools need. Add to a
 * group rather than making a new one; README.md lists them.
 */
const struct policy_secret policy_default_deny_read[] = {
	/* ssh keys, agents' sockets and known hosts */
	{ "ssh", ".ssh" },
	/* gpg keys, password stores, desktop keyrings and password managers */
	{ "keyrings", ".gnupg" },
	{ "keyrings", ".password-store" },
	{ "keyrings", ".local/share/keyrings" },
	{ "keyrings", ".local/share/kwalletd" },
	{ "keyrings", ".config/Bitwarden" },
	{ "keyrings", ".config/Bitwarden CLI" },
	{ "keyrings", ".config/1Password" },
	{ "keyrings", ".config/op" },
	{ "keyrings", ".config/keepassxc" },
	{ "keyrings", ".local/share/keepassxc" },
	/* cordon's own pack trust file, store and lock (issue 24): what a
	 * sandbox must not read to learn or choose what the next run trusts */
	{ "keyrings", ".config/cordon/allowed_signers" },
	{ "keyrings", ".config/cordon/packs" },
	/* browser profiles: cookies, saved passwords, session tokens */
	{ "browsers", ".mozilla" },
	{ "browsers", ".config/google-chrome" },
	{ "browsers", ".config/chromium" },
	{ "browsers", ".config/BraveSoftware" },
	{ "browsers", ".config/microsoft-edge" },
	{ "browsers", ".config/vivaldi" },
	{ "browsers", ".config/opera" },
	{ "browsers", "snap/firefox" },
	{ "browsers", "snap/chromium" },
	/* source hosting and git's own credential stores */
	{ "git", ".git-credentials" },
	{ "git", ".config/git/credentials" },
	{ "git", ".config/gh" },
	{ "git", ".config/hub" },
	{ "git", ".config/glab-cli" },
	{ "git", ".config/tea" },
	{ "git", ".netrc" },
	/* cloud providers */
	{ "cloud", ".aws" },
	{ "cloud", ".azure" },
	{ "cloud", ".config/gcloud" },
	{ "cloud", ".oci" },
	{ "cloud", ".config/doctl" },
	{ "cloud", ".config/hcloud" },
	{ "cloud", ".config/linode-cli" },
	{ "cloud", ".aliyun" },
	{ "cloud", ".ibmcloud" },
	{ "cloud", ".config/scw" },
	{ "cloud", ".fly" },
	{ "cloud", ".config/heroku" },
	{ "cloud", ".netlify" },
	{ "cloud", ".vercel" },
	{ "cloud", ".config/flyctl" },
	{ "cloud", ".wrangler" },
	/* infrastructure tools */
	{ "infrastructure", ".kube" },
	{ "infrastructure", ".docker" },
	{ "infrastructure", ".config/containers/auth.json" },
	{ "infrastructure", ".config/helm" },
	{ "infrastructure", ".terraform.d" },
	{ "infrastructure", ".terraformrc" },
	{ "infrastructure", ".vault-token" },
	{ "infrastructure", ".pulumi" },
	{ "infrastructure", ".ansible" },
	{ "infrastructure", ".config/rclone" },
	{ "infrastructure", ".s3cfg" },
	{ "infrastructure", ".boto" },
	{ "infrastructure", ".config/sops" },
	{ "infrastructure", ".config/age" },
	/* package registries, every ecosystem */
	{ "registries", ".npmrc" },
	{ "registries", ".yarnrc" },
	{ "registries", ".yarnrc.yml" },
	{ "registries", ".config/pnpm/rc" },
	{ "registries", ".bunfig.toml" },
	{ "registries", ".pypirc" },
	{ "registries", ".config/pip/pip.conf" },
	{ "registries", ".pip/pip.conf" },
	{ "registries", ".config/pypoetry/auth.toml" },
	{ "registries", ".cargo/credentials" },
	{ "registries", ".cargo/credentials.toml" },
	{ "registries", ".gem/credentials" },
	{ "registries", ".bundle/config" },
	{ "registries", ".m2/settings.xml" },
	{ "registries", ".m2/settings-security.xml" },
	{ "registries", ".gradle/gradle.properties" },
	{ "registries", ".ivy2/.credentials" },
	{ "registries", ".sbt/credentials" },
	{ "registries", ".config/composer/auth.json" },
	{ "registries", ".composer/auth.json" },
	{ "registries", ".nuget/NuGet/NuGet.Config" },
	{ "registries", ".config/NuGet/NuGet.Config" },
	{ "registries", ".cache/huggingface/token" },
	{ "registries", ".huggingface/token" },
	{ "registries", ".config/hf" },
	{ "registries", ".pub-cache/credentials.json" },
	{ "registries", ".config/dart/pub-credentials.json" },
	{ "registries", ".config/jfrog" },
	{ "registries", ".cabal/config" },
	/* other agents' tokens and configuration */
	{ "agents", ".claude" },
	{ "agents", ".claude.json" },
	{ "agents", ".config/claude" },
	{ "agents", ".codex" },
	{ "agents", ".gemini" },
	{ "agents", ".config/github-copilot" },
	{ "agents", ".copilot" },
	{ "agents", ".cursor" },
	{ "agents", ".config/Cursor" },
	{ "agents", ".aider" },
	{ "agents", ".continue" },
	{ "agents", ".config/openai" },
	{ "agents", ".config/anthropic" },
	{ "agents", ".windsurf" },
	{ "agents", ".codeium" },
	{ "agents", ".amazonq" },
	{ "agents", ".aws/amazonq" },
	{ "agents", ".config/goose" },
	{ "agents", ".ollama/id_ed25519" },
	/* database clients' password files */
	{ "databases", ".pgpass" },
	{ "databases", ".my.cnf" },
	{ "databases", ".mylogin.cnf" },
	{ "databases", ".config/pgcli" },
	{ "databases", ".mongoshrc.js" },
	{ "databases", ".mongorc.js" },
	{ "databases", ".rediscli_auth" },
	{ "databases", ".cassandra/cqlshrc" },
	{ "databases", ".snowsql" },
	{ "databases", ".dbt/profiles.yml" },
	{ "databases", ".config/clickhouse-client" },
	/* every shell's and REPL's history */
	{ "histories", ".bash_history" },
	{ "histories", ".zsh_history" },
	{ "histories", ".zhistory" },
	{ "histories", ".history" },
	{ "histories", ".sh_history" },
	{ "histories", ".ksh_history" },
	{ "histories", ".local/share/fish/fish_history" },
	{ "histories", ".config/fish/fish_history" },
	{ "histories", ".python_history" },
	{ "histories", ".node_repl_history" },
	{ "histories", ".ts_node_repl_history" },
	{ "histories", ".psql_history" },
	{ "histories", ".mysql_history" },
	{ "histories", ".sqlite_history" },
	{ "histories", ".rediscli_history" },
	{ "histories", ".mongosh" },
	{ "histories", ".dbshell" },
	{ "histories", ".irb_history" },
	{ "histories", ".pry_history" },
	{ "histories", ".ghc/ghci_history" },
	{ "histories", ".julia/logs/repl_history.jl" },
	{ "histories", ".Rhistory" },
	{ "histories", ".lesshst" },
	{ "histories", ".wget-hsts" },
	{ "histories", ".local/share/recently-used.xbel" },
	{ NULL, NULL },
};

/* A root caller's system secrets: nothing a tool needs, everything an
 * attacker wants. (Other users cannot read them anyway.) /root itself is
 * root's passwd home, so the catalogue above covers it whatever HOME says;
 * hiding it whole would hide the tools root installed there. */
const char *const policy_root_deny_read[] = {
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/sudoers.d",
	"/etc/ssl/private",
	NULL,
};

/* cordon's own system-wide pack trust file (issue 24): when it exists it is
 * the only one, so no sandbox of any user may read it to learn what the
 * next run trusts (the user's own is in the catalogue above). */
const char *const policy_default_deny_system[] = {
	"/etc/cordon/allowed_signers",
	NULL,
};

const char *const policy_default_deny_sockets[] = {
	"/run/docker.sock",
	"/var/run/docker.sock",
	"/run/containerd",
	"/run/podman",
	"/run/dbus",
	"/var/run/dbus",
	"/run/systemd/private",
	"/run/snapd.socket",
	"/run/snapd-snap.socket",
	"/run/libvirt",
	"/run/user",
	NULL,
};

const char *const policy_default_deny_services[] = {
	"/run/postgresql",
	"/var/run/postgresql",
	"/run/mysqld",
	"/var/run/mysqld",
	"/run/redis",
	"/var/run/redis",
	"/run/mongodb",
	NULL,
};

const char *const policy_default_protect[] = {
	/* git: hooks and the config that names commands; commondir and
	 * config.worktree redirect or extend where git reads them */
	".git/hooks",
	".git/config",
	".git/commondir",
	".git/config.worktree",
	".gitmodules",
	/* hook directories a repository's core.hooksPath commonly names */
	".husky",
	".githooks",
	/* run on entering the directory, or on opening the folder */
	".envrc",
	".vscode",
	".idea",
	".devcontainer",
	/* agents' configuration: hooks, MCP servers, commands to spawn */
	".mcp.json",
	".claude",
	".codex",
	".cursor",
	".gemini",
	".continue",
	".windsurf",
	".roo",
	".amazonq",
	/* package managers' config that names a shell or node options */
	".npmrc",
	".yarnrc",
	".yarnrc.yml",
	".cordon*",
	NULL,
};

const char *const policy_default_protect_home[] = {
	".bashrc",
	".bash_profile",
	".bash_login",
	".bash_logout",
	".profile",
	".zshrc",
	".zshenv",
	".zprofile",
	".zlogin",
	".config/fish/config.fish",
	/* cordon's own profiles: a sandbox that could plant one would choose
	 * the next run's policy (the probe cache is safe: probe.c trusts it
	 * only to name the binary it would pick anyway) */
	".config/cordon",
	/* and, once HOME is writable, every dot-entry, made or not: ~/.ssh,
	 * ~/.gitconfig, ~/.config/systemd, ~/.local/bin, autostart entries */
	".*",
	NULL,
};

bool policy_protect_is_name(const char *entry)
{
	return !strchr(entry, '/');
}

/* What a tool's environment takes from cordon, never from its caller or
 * its profile: its private HOME and temporary directory, and every XDG
 * base directory (XDG_CONFIG_DIRS and the like are search paths too). */
const char *const policy_tool_owned_env[] = {
	"HOME", "TMPDIR", "TMP", "TEMP", "XDG_*",
	NULL,
};

const char *const policy_default_env[] = {
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_*", "TZ", "TERM", "SHELL", "TMPDIR",
	/* never the host's: the policy snapshots none and sets its own */
	"CORDON_SANDBOX", "CORDON_SANDBOX_MODE",
	NULL,
};
