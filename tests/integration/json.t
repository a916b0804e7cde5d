#!/usr/bin/env bash
# The interface an agent framework reads: exit codes that mean the same in
# every subcommand (125 cordon refused, 126 cannot execute, 127 not found, as
# a shell), and under --json one object with the same fields for every
# outcome, validated against the installed schema.
. "$(dirname "$0")/tap.sh"

tmp=$(mktemp -d /var/tmp/cordon-it-json.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
ws=$tmp/ws
mkdir -p "$ws"
cd "$ws"

# expect_rc DESC WANT CMD... : the exit code of CMD (stdout and stderr dropped)
expect_rc() {
        local desc=$1 want=$2 rc
        shift 2
        "$@" >/dev/null 2>&1 </dev/null
        rc=$?
        if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else not_ok "$desc" "exit $rc, wanted $want" "command: $*"; fi
}

native=$("$CORDON" probe --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["selected"])')

# ---- exit codes -----------------------------------------------------------

expect_rc "control: cordon --version" 0 "$CORDON" --version
expect_rc "unknown subcommand" 125 "$CORDON" frobnicate
expect_rc "no subcommand" 125 "$CORDON"
for sub in run confine explain why probe classify; do
        expect_rc "$sub: unknown flag" 125 "$CORDON" $sub --no-such-flag
done
expect_rc "explain without a command after --" 125 "$CORDON" explain
expect_rc "run without a command after --" 125 "$CORDON" run
printf '{"mode": "workspace-write", "modee": 1}\n' > "$tmp/bad.json"
for sub in run confine explain; do
        expect_rc "$sub --profile with a profile error" 125 "$CORDON" $sub --profile "$tmp/bad.json" -- true
done
expect_rc "why --profile with a profile error" 125 "$CORDON" why --profile "$tmp/bad.json" --path x --op read
expect_rc "profile show of a missing profile" 125 "$CORDON" profile show no-such-profile-here
expect_rc "control: profile validate of an invalid file answers 1" 1 "$CORDON" profile validate "$tmp/bad.json"
expect_rc "--require of an unknown feature" 125 "$CORDON" run --require warp-drive -- true
expect_rc "no backend can enforce the policy" 125 "$CORDON" run --backend unavailable -- true
expect_rc "control: danger-full-access needs no backend" 0 "$CORDON" run --backend unavailable --mode danger-full-access -- true

# 126 and 127 as a shell gives them; the shell is the control
printf 'not a program\n' > "$tmp/noexec"
chmod 644 "$tmp/noexec"
sh -c "'$tmp/noexec'" >/dev/null 2>&1; sh_noexec=$?
sh -c "'$tmp/no-such-command'" >/dev/null 2>&1; sh_missing=$?
if [ "$sh_noexec" = 126 ] && [ "$sh_missing" = 127 ]; then
        ok "control: sh exits 126 for a file it cannot execute, 127 for a missing one"
else
        not_ok "control: sh's own codes" "noexec=$sh_noexec missing=$sh_missing"
fi
expect_rc "danger-full-access: a missing command" 127 "$CORDON" run --mode danger-full-access -- "$tmp/no-such-command"
expect_rc "danger-full-access: a file that cannot be executed" 126 "$CORDON" run --mode danger-full-access -- "$tmp/noexec"
if [ "$native" = native ]; then
        expect_rc "native: a missing command" 127 "$CORDON" run -- "$tmp/no-such-command"
        expect_rc "native: a missing command on PATH" 127 "$CORDON" run -- no-such-command-cordon-test
        expect_rc "native: a file that cannot be executed" 126 "$CORDON" run -- "$tmp/noexec"
        expect_rc "native, light isolation: a missing command" 127 "$CORDON" run --isolation light -- "$tmp/no-such-command"
        chmod 755 "$tmp/noexec"
        printf '#!/bin/sh\nexit 3\n' > "$tmp/noexec"
        expect_rc "control: the same file made executable runs" 3 "$CORDON" run -- "$tmp/noexec"
        expect_rc "timeout" 124 "$CORDON" run --timeout 0.3 -- sleep 5
else
        skip "native exit codes" "backend here: $native"
fi

finish
