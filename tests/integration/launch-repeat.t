#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# One look per path: `cordon run -- true`'s own process (the CLI, up to the
# fork of its runner and after) stats, reads the link of and opens each
# path at most twice: once while the profile loads, once while the launch
# is built (statmemo.c keeps one answer per path for the whole build).
# Before, the canonicalisation of every PATH entry, protected name and
# catalogue entry walked from / again: /etc was looked at 9 times and HOME
# some 20. The PATH here names the same directories several times, one
# through a symlink, and the workspace is a git checkout, so each kind of
# walk (PATH, hooks, protected names, catalogue, root secrets) is made.
#
# Needs: strace (scripts/install-deps installs it), git.
. "$(dirname "$0")/tap.sh"

tap_base repeat
H=$BASE/home
WS=$BASE/ws
mkdir -p "$H/.ssh" "$H/.config/gh" "$H/.local/share" "$H/bin" "$WS"
ln -s bin "$H/binlink"
echo key > "$H/.ssh/id_ed25519"
echo token > "$H/.config/gh/hosts.yml"
git -C "$WS" init -q
export HOME=$H XDG_CACHE_HOME=$BASE/cache
export PATH="$H/binlink:$H/bin:$H/binlink:$H/bin/../bin:$PATH"

if ! command -v strace >/dev/null; then
        skip "one look per path" "no strace (scripts/install-deps installs it)"
        finish
fi
if ! strace -o /dev/null true 2>/dev/null; then
        skip "one look per path" "strace cannot trace here (ptrace refused)"
        finish
fi

# the probe's cache filled first: the counted run is the steady state
(cd "$WS" && "$CORDON" run --backend native -- true) >/dev/null 2>&1

# repeats FILE...: each (call, path, flags) made more than twice, with its
# count; a directory opened counts as a look at it too
repeats() {
        cat "$@" | sed -nE \
                -e 's/^(newfstatat|readlink)\(AT_FDCWD, "([^"]*)".*(AT_SYMLINK_NOFOLLOW|, 0\)).*/\1 \2 \3/p' \
                -e 's/^readlink\("([^"]*)".*/readlink \1/p' \
                -e 's/^openat\(AT_FDCWD, "([^"]*)", [^)]*O_DIRECTORY.*/opendir \1/p' |
                sort | uniq -c | awk '$1 > 2'
}

# strace without -f: the CLI alone, not its runner
if ! (cd "$WS" && strace -o "$BASE/trace" -e trace=newfstatat,readlink,openat "$CORDON" run --backend native -- true) \
        >"$BASE/out" 2>&1; then
        not_ok "cordon run -- true under strace" "$(cat "$BASE/out")"
        finish
fi
looks=$(grep -cE '^(newfstatat\(AT_FDCWD|readlink|openat\(AT_FDCWD)' "$BASE/trace")
rep=$(repeats "$BASE/trace")
if [ "$looks" -gt 0 ] && [ -z "$rep" ]; then
        ok "the CLI looks at no path more than twice ($looks looks at paths)"
else
        not_ok "the CLI looks at a path more than twice" "$rep"
fi
# control: the same check over two runs' looks (the trace twice) sees the
# paths both the load and the build look at
if [ -n "$(repeats "$BASE/trace" "$BASE/trace")" ]; then
        ok "control: the check sees a path looked at in two runs"
else
        not_ok "control: the check sees a path looked at in two runs" "$(head -40 "$BASE/trace")"
fi
# and the run's PATH canonicalised as before: the symlinked entry counts
# once (the writable roots' protection reads PATH, protect_reach)
if grep -q "readlink(\"$H/binlink\"" "$BASE/trace" || grep -q "\"$H/binlink\"" "$BASE/trace"; then
        ok "the PATH entry through a symlink was resolved"
else
        not_ok "the PATH entry through a symlink was resolved" "$(grep -c binlink "$BASE/trace") lines name it"
fi
finish
