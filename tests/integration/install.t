#!/usr/bin/env bash
# `meson install` into a temporary destdir: every file a package ships is
# where it belongs (binary, library and its soname links, header, cordon.pc,
# profile schema, man pages, completions); the man pages render and name
# every flag their command accepts; bash completes from the installed file;
# a program built with only `pkg-config --cflags --libs cordon` against the
# installed library confines an argv. Runs as root and as any user: nothing
# is written outside the temporary directory.
set -u
. "$(dirname "$0")/tap.sh"
: "${CORDON_BUILDDIR:?CORDON_BUILDDIR must point at the build directory}"

dest=$(mktemp -d "${TMPDIR:-/tmp}/cordon-install-XXXXXX")
trap 'rm -rf "$dest"' EXIT

if out=$(meson install -C "$CORDON_BUILDDIR" --no-rebuild --quiet --destdir "$dest" 2>&1); then
	ok "meson install --destdir succeeds"
else
	not_ok "meson install --destdir succeeds" "$out"
	finish
	exit
fi

# Where meson put things: the configured prefix and directories.
eval "$(meson introspect "$CORDON_BUILDDIR" --buildoptions | python3 -c '
import json, os, shlex, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
for k in ("bindir", "libdir", "libexecdir", "includedir", "datadir", "mandir"):
	print("%s=%s" % (k, shlex.quote(os.path.join(o["prefix"], o[k]))))
')"
root=$dest
bin=$root$bindir lib=$root$libdir libexec=$root$libexecdir inc=$root$includedir share=$root$datadir man=$root$mandir
version=$("$CORDON" --version | awk '{print $2}')

want_file() { # want_file DESC PATH
	if [ -f "$2" ] && [ ! -L "$2" ] && [ -s "$2" ]; then ok "$1"; else not_ok "$1" "missing or empty: ${2#$root}"; fi
}
want_link() { # want_link DESC PATH TARGET
	local t
	t=$(readlink "$2" 2>/dev/null)
	if [ -L "$2" ] && [ "$t" = "$3" ] && [ -f "$2" ]; then ok "$1"; else not_ok "$1" "${2#$root} -> '${t}', want '$3'"; fi
}

if [ -x "$bin/cordon" ] && [ "$("$bin/cordon" --version)" = "cordon $version" ]; then
	ok "bin/cordon is installed and runs (--version)"
else
	not_ok "bin/cordon is installed and runs (--version)" "$(ls -l "$bin" 2>&1)"
fi
if [ -x "$libexec/cordon/cordon-supervisor" ] &&
   [ "$("$libexec/cordon/cordon-supervisor" --version)" = "cordon $version" ]; then
	ok "libexec/cordon/cordon-supervisor is installed and runs (--version)"
else
	not_ok "libexec/cordon/cordon-supervisor is installed and runs (--version)" "$(ls -lR "$libexec" 2>&1)"
fi
# the lean binary is the runner on every launch's path: no libcrypto, no libcurl
heavy=$(ldd "$bin/cordon" 2>&1 | grep -E 'libcrypto|libssl|libcurl')
if [ -z "$heavy" ]; then
	ok "bin/cordon loads neither libcrypto nor libcurl"
else
	not_ok "bin/cordon loads neither libcrypto nor libcurl" "$heavy"
fi
# the supervisor loads libcurl only when a profile has a webhook (dlopen):
# its dependency tree is not on every session's start (OpenSSL, libevent
# and jansson are linked into it statically where their archives exist, so
# ldd is only asked to have read the file: libc is always there)
heavy=$(ldd "$libexec/cordon/cordon-supervisor" 2>&1 | grep -E 'libcurl|libgnutls|libkrb5|libldap')
if [ -z "$heavy" ] && ldd "$libexec/cordon/cordon-supervisor" 2>&1 | grep -q 'libc\.so'; then
	ok "libexec/cordon/cordon-supervisor does not link libcurl (it loads it for a webhook)"
else
	not_ok "libexec/cordon/cordon-supervisor does not link libcurl (it loads it for a webhook)" \
		"$(ldd "$libexec/cordon/cordon-supervisor" 2>&1)"
fi
want_file "libcordon.so.$version is installed" "$lib/libcordon.so.$version"
want_link "libcordon.so.0 -> libcordon.so.$version" "$lib/libcordon.so.0" "libcordon.so.$version"
want_link "libcordon.so -> libcordon.so.0 (the development link)" "$lib/libcordon.so" "libcordon.so.0"
soname=$(readelf -d "$lib/libcordon.so.$version" 2>&1 | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = libcordon.so.0 ]; then ok "the library's SONAME is libcordon.so.0"; else not_ok "the library's SONAME is libcordon.so.0" "SONAME: '$soname'"; fi
# -fvisibility=hidden + CORDON_API: the ABI is the header's functions, nothing else
leaked=$(nm -D --defined-only "$lib/libcordon.so.$version" | awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /^cordon_/ {print $3}')
exported=$(nm -D --defined-only "$lib/libcordon.so.$version" | awk '$2 == "T" && $3 ~ /^cordon_/' | wc -l)
if [ -z "$leaked" ] && [ "$exported" -gt 20 ]; then
	ok "the library exports only cordon_* ($exported functions)"
else
	not_ok "the library exports only cordon_* ($exported functions)" "not cordon_*: $(echo $leaked | head -c 500)"
fi
want_file "include/cordon/cordon.h is installed" "$inc/cordon/cordon.h"
# cordon.h is split by topic: every part it includes is installed beside it
parts=$(sed -n 's|^#include "cordon/\(.*\.h\)"$|\1|p' "$inc/cordon/cordon.h" 2>/dev/null)
if [ "$(wc -w <<<"$parts")" -ge 5 ]; then ok "cordon.h includes its parts ($(wc -w <<<"$parts"))"; else not_ok "cordon.h includes its parts" "$parts"; fi
for h in $parts; do want_file "include/cordon/$h is installed" "$inc/cordon/$h"; done
want_file "pkgconfig/cordon.pc is installed" "$lib/pkgconfig/cordon.pc"
want_file "share/cordon/profile.schema.json is installed" "$share/cordon/profile.schema.json"
if cmp -s "$share/cordon/profile.schema.json" <("$CORDON" profile schema); then
	ok "the installed schema is the one cordon profile schema prints"
else
	not_ok "the installed schema is the one cordon profile schema prints"
fi
want_file "share/cordon/result.schema.json is installed" "$share/cordon/result.schema.json"
if cmp -s "$share/cordon/result.schema.json" <("$CORDON" run --json-schema); then
	ok "the installed result schema is the one cordon run --json-schema prints"
else
	not_ok "the installed result schema is the one cordon run --json-schema prints"
fi

# ---- man pages ----
pages="cordon cordon-run cordon-exec cordon-confine cordon-classify cordon-probe cordon-explain cordon-why cordon-profile cordon-audit cordon-pack cordon-serve"
for p in $pages; do
	f=$man/man1/$p.1
	if [ ! -s "$f" ]; then
		not_ok "man page $p(1) is installed" "missing: ${f#$root} (built with -Dman=disabled, or without scdoc? scripts/install-deps installs it)"
		continue
	fi
	# man -l renders the file itself; LANG=C keeps '-' as '-', a wide
	# MANWIDTH keeps a flag from being hyphenated across lines.
	text=$(LANG=C MANWIDTH=1000 man -l "$f" 2>&1)
	name=${p/cordon-/cordon }
	if grep -q "^ *$name - " <<<"$text" && grep -q "^SYNOPSIS" <<<"$text"; then
		ok "man -l renders $p(1) with NAME and SYNOPSIS"
	else
		not_ok "man -l renders $p(1) with NAME and SYNOPSIS" "${text:0:1000}"
	fi
	warn=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
	if [ -z "$warn" ]; then ok "groff reads $p(1) without warnings"; else not_ok "groff reads $p(1) without warnings" "$warn"; fi
done

# Every flag the parser accepts for a command is in that command's page:
# gen-completions prints the table the parser and the completions use.
gen=$CORDON_BUILDDIR/src/cli/gen-completions
if table=$("$gen" flags) && [ "$(wc -l <<<"$table")" -gt 40 ]; then
	missing=
	while read -r sub flag; do
		[ "$sub" = help ] && p=cordon || p=cordon-$sub
		[ -s "$man/man1/$p.1" ] || { missing+=" $p(1)"; continue; }
		LANG=C MANWIDTH=1000 man -l "$man/man1/$p.1" 2>/dev/null | grep -qE -- "(^|[^-[:alnum:]])$flag([^-[:alnum:]]|$)" ||
			missing+=" $p:$flag"
	done <<<"$table"
	if [ -z "$missing" ]; then
		ok "every flag of the flag table is in its command's man page ($(wc -l <<<"$table") flags)"
	else
		not_ok "every flag of the flag table is in its command's man page" "missing:$missing"
	fi
else
	not_ok "gen-completions prints the flag table" "$table"
fi

# ---- the README's install table names every file installed ----
readme=${CORDON_SRCDIR:-$(dirname "$0")/../..}/README.md
table=$(sed -n '/^| file | what |$/,/^$/p' "$readme")
missing=
while IFS= read -r f; do
	grep -qF -- "$(basename "$f")\`" <<<"$table" || missing="$missing ${f#$root}"
done < <(find "$root" \( -type f -o -type l \) ! -path "$dest/consumer/*" ! -path "$dest/cfg/*" | sort)
if [ -n "$table" ] && [ -z "$missing" ]; then
	ok "the README's install table names every installed file"
else
	not_ok "the README's install table names every installed file" "missing:$missing"
fi

# ---- completions ----
bashc=$share/bash-completion/completions/cordon
zshc=$share/zsh/site-functions/_cordon
fishc=$share/fish/vendor_completions.d/cordon.fish
want_file "bash completion is installed" "$bashc"
want_file "zsh completion is installed" "$zshc"
want_file "fish completion is installed" "$fishc"

complete_bash() { # complete_bash WORD... : what bash offers for the last word
	bash --norc --noprofile -c '
		source "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_cordon cordon "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" || exit 1
		printf "%s\n" "${COMPREPLY[@]}"' bash "$bashc" "$@"
}
expect_completion() { # expect_completion DESC WANT WORD...
	local desc=$1 want=$2 got
	shift 2
	got=$(complete_bash "$@" 2>&1 | sort | tr '\n' ' ')
	got=${got% }
	if [ "$got" = "$want" ]; then ok "$desc"; else not_ok "$desc" "words: $*" "got:  '$got'" "want: '$want'"; fi
}
expect_completion "bash: cordon ru<TAB> offers run" "run" cordon ru
expect_completion "bash: cordon pro<TAB> offers probe and profile" "probe profile" cordon pro
expect_completion "bash: cordon run --ti<TAB> offers --timeout" "--timeout" cordon run --ti
expect_completion "bash: cordon probe --<TAB> offers only probe's flags" "--help --json --refresh" cordon probe --
expect_completion "bash: cordon confine --ti<TAB> offers nothing (run's flag, not confine's)" "" cordon confine --ti
expect_completion "bash: cordon run --net <TAB> offers none, host, proxy and allow" "allow host none proxy" cordon run --net ""
expect_completion "bash: cordon run --mode <TAB> offers the three modes" \
	"danger-full-access read-only workspace-write" cordon run --mode ""
expect_completion "bash: cordon profile <TAB> offers the actions" "diff list schema show validate" cordon profile ""
expect_completion "bash: cordon audit <TAB> offers the actions" "list show verify" cordon audit ""
expect_completion "bash: cordon audit verify --<TAB> offers audit's flags" "--head --help --json --pubkey --sig" cordon audit verify --
expect_completion "bash: cordon exec --status<TAB> offers the runner's --status-fd" "--status-fd" cordon exec --status
expect_completion "bash: after -- the command's own words are not cordon's flags" "" cordon run -- ls --ti
# --profile offers the profile names the completed cordon finds (built-in and
# the user's), beside files; in an empty directory, so no file matches.
mkdir -p "$dest/cfg/cordon/profiles" "$dest/empty"
printf '{"extends": "read-only"}\n' > "$dest/cfg/cordon/profiles/mine.json"
pushd "$dest/empty" >/dev/null
XDG_CONFIG_HOME=$dest/cfg expect_completion "bash: cordon run --profile no<TAB> offers the built-in node" "node" \
	"$bin/cordon" run --profile no
XDG_CONFIG_HOME=$dest/cfg expect_completion "bash: cordon why --profile mi<TAB> offers the user's mine" "mine" \
	"$bin/cordon" why --profile mi
popd >/dev/null

# zsh and fish need not be installed (install-deps does not): check what the
# files say, and where the shell is there, how it reads them.
if grep -q '^#compdef cordon' "$zshc" && grep -q "'\*--timeout\[" "$zshc" && grep -q "'1:action:(list show validate schema diff)'" "$zshc"; then
	ok "zsh completion: #compdef, run's --timeout, profile's actions"
else
	not_ok "zsh completion: #compdef, run's --timeout, profile's actions" "$(head -c 600 "$zshc")"
fi
if grep -q "^complete -c cordon -n '__fish_seen_subcommand_from run' -l timeout -x" "$fishc" &&
   ! grep -q "^complete -c cordon -n '__fish_seen_subcommand_from probe' -l timeout" "$fishc"; then
	ok "fish completion: --timeout for run, not for probe"
else
	not_ok "fish completion: --timeout for run, not for probe" "$(grep -- '-l timeout' "$fishc")"
fi
for sh in zsh fish; do
	if command -v "$sh" >/dev/null; then
		f=$zshc; [ "$sh" = fish ] && f=$fishc
		check "$sh -n reads its completion file" "$sh" -n "$f"
	else
		diag "$sh is not installed: its completion file is checked by content only"
	fi
done
if command -v fish >/dev/null; then
	got=$(fish --no-config -c 'source $argv[1]; complete -C "cordon ru"; complete -C "cordon probe --ti"; complete -C "cordon run --ti"' "$fishc" 2>&1 | cut -f1 | tr '\n' ' ')
	if [ "$got" = "run --timeout " ]; then
		ok "fish: cordon ru<TAB> offers run; --ti<TAB> offers --timeout for run, nothing for probe"
	else
		not_ok "fish: cordon ru<TAB> offers run; --ti<TAB> offers --timeout for run, nothing for probe" "got: '$got'"
	fi
fi

# ---- a program built against the installed library with pkg-config ----
work=$dest/consumer
mkdir -p "$work/ws"
cat >"$work/consumer.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <cordon/cordon.h>

int main(int argc, char **argv)
{
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	const char *const cmd[] = { "echo", "hello", NULL };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_error e = { 0 };
	int r;

	if (argc != 2)
		return 2;
	strcpy(info.path, "/opt/cordon-consumer/bin/cordon");
	r = cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, argv[1], &p, &e);
	if (r < 0) {
		fprintf(stderr, "cordon_policy_new: %d %s\n", r, e.message);
		return 1;
	}
	r = cordon_confine_with(&info, cmd, p, &c, &e);
	if (r < 0) {
		fprintf(stderr, "cordon_confine_with: %d %s\n", r, e.message);
		return 1;
	}
	printf("enforcement=%s\n", cordon_enforcement_to_string(c->enforcement));
	for (char **a = c->argv; *a; a++)
		printf("argv: %s\n", *a);
	cordon_confined_free(c);
	cordon_policy_free(p);
	return 0;
}
EOF
# the staged tree as it is, no PKG_CONFIG_SYSROOT_DIR: cordon.pc is relocatable
# (a build directory set up before meson.build said so keeps its old
# options: there the stage needs a sysroot, as it did)
export PKG_CONFIG_PATH=$lib/pkgconfig
unset PKG_CONFIG_SYSROOT_DIR
if ! grep -q '^prefix=${pcfiledir}' "$lib/pkgconfig/cordon.pc"; then
	relocatable=$(meson introspect "$CORDON_BUILDDIR" --buildoptions |
		python3 -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "pkgconfig.relocatable"])')
	if [ "$relocatable" = "[False]" ]; then
		diag "this build directory predates pkgconfig.relocatable (meson configure -Dpkgconfig.relocatable=true): a sysroot"
		export PKG_CONFIG_SYSROOT_DIR=$dest
	fi
fi
staged_dir() { # staged_dir FLAG: the directory pkg-config's FLAG names, canonical
	local d
	d=$(pkg-config --cflags --libs cordon 2>/dev/null | tr ' ' '\n' | sed -n "s/^$1//p" | head -1)
	[ -n "$d" ] && cd "$d" 2>/dev/null && pwd -P
}
if flags=$(pkg-config --cflags --libs cordon 2>&1) && grep -q -- "-lcordon" <<<"$flags" &&
   [ "$(staged_dir -I)" = "$(cd "$inc" && pwd -P)" ] && [ "$(staged_dir -L)" = "$(cd "$lib" && pwd -P)" ]; then
	ok "pkg-config --cflags --libs cordon names the staged include and lib dirs and -lcordon (no sysroot)"
else
	not_ok "pkg-config --cflags --libs cordon names the staged include and lib dirs and -lcordon (no sysroot)" "$flags"
fi
modver=$(pkg-config --modversion cordon 2>&1)
if [ "$modver" = "$version" ]; then ok "pkg-config --modversion cordon is $version"; else not_ok "pkg-config --modversion cordon is $version" "$modver"; fi
# control: the flags are what makes it link: with --cflags alone it does not
# shellcheck disable=SC2086
if cc -std=c17 -o "$work/consumer-nolibs" "$work/consumer.c" $(pkg-config --cflags cordon) 2>/dev/null; then
	not_ok "control: with --cflags but not --libs the consumer does not link"
else
	ok "control: with --cflags but not --libs the consumer does not link"
fi
# shellcheck disable=SC2086 # pkg-config's output is meant to be split
if out=$(cc -std=c17 -Wall -Wextra -Werror -o "$work/consumer" "$work/consumer.c" $flags 2>&1); then
	ok "cc builds the consumer with pkg-config's flags"
else
	not_ok "cc builds the consumer with pkg-config's flags" "$out"
fi
needed=$(readelf -d "$work/consumer" 2>&1 | sed -n 's/.*(NEEDED).*\[\(libcordon[^]]*\)\]/\1/p')
if [ "$needed" = libcordon.so.0 ]; then ok "the consumer needs libcordon.so.0 (the soname)"; else not_ok "the consumer needs libcordon.so.0 (the soname)" "NEEDED: '$needed'"; fi
resolved=$(LD_LIBRARY_PATH=$lib ldd "$work/consumer" 2>&1 | awk '$1 == "libcordon.so.0" {print $3}')
if [ "$resolved" = "$lib/libcordon.so.0" ]; then
	ok "the loader takes libcordon.so.0 from the installed tree"
else
	not_ok "the loader takes libcordon.so.0 from the installed tree" "resolved: '$resolved'"
fi
out=$(LD_LIBRARY_PATH=$lib "$work/consumer" "$work/ws" 2>&1)
rc=$?
ws=$(cd "$work/ws" && pwd -P)
argv=$(sed -n 's/^argv: //p' <<<"$out")
if [ $rc -eq 0 ] && grep -qx "enforcement=native" <<<"$out" &&
   [ "$(sed -n 1p <<<"$argv")" = /opt/cordon-consumer/bin/cordon ] && [ "$(sed -n 2p <<<"$argv")" = exec ] &&
   [ "$(tail -n 3 <<<"$argv" | tr '\n' ' ')" = "-- echo hello " ] && grep -qx -- "$ws" <<<"$argv"; then
	ok "the consumer confines echo hello: the runner's argv, the workspace writable, the command last"
else
	not_ok "the consumer confines echo hello: the runner's argv, the workspace writable, the command last" "exit $rc" "$out"
fi

# ---- libcordon finds its runner the way it was installed, or refuses ----
# The staged tree is a relocated install: the compiled-in runner path
# ($bindir/cordon) does not exist here, bin/cordon of the staged prefix does.
cat >"$work/runner.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <cordon/cordon.h>

/* runner WS [partial]: confine and run `echo ran` with the selected backend */
int main(int argc, char **argv)
{
	const char *const cmd[] = { "echo", "ran", NULL };
	struct cordon_policy *p = NULL;
	struct cordon_confined *c = NULL;
	struct cordon_result *res = NULL;
	struct cordon_run_opts o = { .timeout_ms = 20000 };
	struct cordon_error e = { 0 };
	char gaps[1024];
	int r;

	if (argc < 2)
		return 2;
	printf("runner=%s origin=%s\n", cordon_runner_path(), cordon_runner_origin());
	r = cordon_policy_new(CORDON_MODE_WORKSPACE_WRITE, argv[1], &p, &e);
	if (r < 0) {
		fprintf(stderr, "cordon_policy_new: %d %s\n", r, e.message);
		return 1;
	}
	if (argc > 2 && strcmp(argv[2], "partial") == 0 && cordon_policy_require_grade(p, CORDON_GRADE_PARTIAL) < 0)
		return 1;
	r = cordon_confine(cmd, p, &c, &e);
	if (r < 0) {
		printf("refused=%s %s\n", r == CORDON_SANDBOX_UNAVAILABLE ? "SANDBOX_UNAVAILABLE" : "other", e.message);
		return 3;
	}
	printf("enforcement=%s grade=%s\n", cordon_enforcement_to_string(c->enforcement), cordon_grade_to_string(c->grade));
	if (c->grade != CORDON_GRADE_FULL) {
		struct cordon_backend_info b;

		if (cordon_backend_select(0, &b) == 0 && cordon_backend_gaps(&b, gaps, sizeof(gaps)) > 0)
			printf("lost=%s\n", gaps);
	}
	r = cordon_run(c, &o, &res);
	if (r < 0)
		return 1;
	printf("output=%s", res->output);
	cordon_result_free(res);
	cordon_confined_free(c);
	cordon_policy_free(p);
	return 0;
}
EOF
# shellcheck disable=SC2086
if ! out=$(cc -std=c17 -Wall -Wextra -Werror -o "$work/runner" "$work/runner.c" $flags 2>&1); then
	not_ok "cc builds the runner-finding consumer" "$out"
	finish
	exit
fi
# each call with a cache of its own: nothing remembered from another case
consume() { # consume WS [partial]
	XDG_CACHE_HOME=$(mktemp -d "$dest/cache.XXXXXX") LD_LIBRARY_PATH=$lib "$work/runner" "$@" 2>&1
}
if [ -e "$bindir/cordon" ]; then
	diag "$bindir/cordon exists on this host: the missing-runner cases would find it"
	finish
	exit
fi
out=$(consume "$work/ws")
if grep -qx "runner=$bin/cordon origin=beside libcordon" <<<"$out" && grep -qx "enforcement=native grade=full" <<<"$out" &&
   grep -qx "output=ran" <<<"$out"; then
	ok "a relocated install finds its runner beside the library and runs natively, grade full"
else
	not_ok "a relocated install finds its runner beside the library" "$out"
fi

# keep the runner aside: now nothing is where the library looks
mkdir -p "$dest/aside"
mv "$bin/cordon" "$dest/aside/cordon"
out=$(consume "$work/ws")
rc=$?
if [ $rc = 3 ] && grep -q "^refused=SANDBOX_UNAVAILABLE .*$bin/cordon.*$bindir/cordon" <<<"$out" &&
   ! grep -q "^output=" <<<"$out"; then
	ok "without a runner where it looks the library refuses (SANDBOX_UNAVAILABLE) naming the paths, nothing runs"
else
	not_ok "without a runner the library refuses" "rc=$rc" "$out"
fi
if command -v bwrap >/dev/null && bwrap --ro-bind / / true 2>/dev/null; then
	out=$(consume "$work/ws" partial)
	if grep -qx "enforcement=bwrap grade=partial" <<<"$out" && grep -q "^lost=no Landlock and no seccomp" <<<"$out" &&
	   grep -qx "output=ran" <<<"$out"; then
		ok "with cordon_policy_require_grade(PARTIAL) it runs on bwrap, graded partial, and names what is lost"
	else
		not_ok "with the opt-in it runs graded partial" "$out"
	fi
else
	skip "the partial opt-in runs on bwrap" "bwrap is not usable here"
fi

# CORDON_RUNNER is checked: a copy anyone can write is refused, a good copy works
mkdir -p "$dest/runners"
cp "$dest/aside/cordon" "$dest/runners/open" && chmod 0777 "$dest/runners/open"
cp "$dest/aside/cordon" "$dest/runners/good" && chmod 0755 "$dest/runners/good"
out=$(CORDON_RUNNER=$dest/runners/open consume "$work/ws")
rc=$?
if [ $rc = 3 ] && grep -q "^refused=SANDBOX_UNAVAILABLE .*CORDON_RUNNER=$dest/runners/open is refused: it is writable by anyone" <<<"$out"; then
	ok "CORDON_RUNNER naming a world-writable copy is refused, nothing runs"
else
	not_ok "CORDON_RUNNER naming a world-writable copy is refused" "rc=$rc" "$out"
fi
out=$(CORDON_RUNNER=$dest/runners/open consume "$work/ws" partial)
rc=$?
if [ $rc = 3 ] && ! grep -q "^output=" <<<"$out"; then
	ok "... and the partial opt-in does not run bwrap without it either"
else
	not_ok "a refused CORDON_RUNNER refuses bwrap too" "rc=$rc" "$out"
fi
chmod 0775 "$dest/runners/open"
out=$(CORDON_RUNNER=$dest/runners/open consume "$work/ws")
if [ $? = 3 ] && grep -q "writable by its group" <<<"$out"; then ok "a group-writable CORDON_RUNNER is refused"; else not_ok "a group-writable CORDON_RUNNER is refused" "$out"; fi
printf '#!/bin/sh\necho "cordon 0.0.0-other"\n' > "$dest/runners/other" && chmod 0755 "$dest/runners/other"
out=$(CORDON_RUNNER=$dest/runners/other consume "$work/ws")
if [ $? = 3 ] && grep -q "its --version said 'cordon 0.0.0-other'" <<<"$out"; then
	ok "a CORDON_RUNNER of another version is refused (the handshake)"
else
	not_ok "a CORDON_RUNNER of another version is refused" "$out"
fi
mkdir -p "$dest/opendir" && chmod 0777 "$dest/opendir" && cp "$dest/runners/good" "$dest/opendir/cordon"
out=$(CORDON_RUNNER=$dest/opendir/cordon consume "$work/ws")
if [ $? = 3 ] && grep -q "its directory $dest/opendir is not the caller's or root's, or others may replace" <<<"$out"; then
	ok "a CORDON_RUNNER in a directory anyone may write (not sticky) is refused"
else
	not_ok "a CORDON_RUNNER in a world-writable directory is refused" "$out"
fi
out=$(CORDON_RUNNER=$dest/runners/good consume "$work/ws")
if grep -qx "runner=$dest/runners/good origin=from CORDON_RUNNER" <<<"$out" && grep -qx "enforcement=native grade=full" <<<"$out" &&
   grep -qx "output=ran" <<<"$out"; then
	ok "CORDON_RUNNER naming a good copy runs natively"
else
	not_ok "CORDON_RUNNER naming a good copy runs natively" "$out"
fi
cp "$dest/aside/cordon" "$work/ws/cordon" && chmod 0755 "$work/ws/cordon"
out=$(CORDON_RUNNER=$work/ws/cordon consume "$work/ws")
if [ $? = 3 ] && grep -q "is inside the writable root" <<<"$out"; then
	ok "a CORDON_RUNNER inside the policy's writable root is refused"
else
	not_ok "a CORDON_RUNNER inside the policy's writable root is refused" "$out"
fi
finish
