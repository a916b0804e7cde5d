#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# How a full-isolation run ends, and that nothing is lost for it. Once the
# command and everything it started have ended, the sandbox's init says so
# on a pipe of cordon run's own (the runner's --end-fd), with the command's
# status: cordon run reports and exits then, without waiting for the
# runner's own exit (a few wake-ups later), which it leaves to finish. What
# must hold: every byte the command wrote reaches the caller, in both modes
# and beyond a pipe's buffer; the exit code and the signal are the
# command's; and the run did end that way (cordon run never reaped its
# runner), against a control that waits (light isolation: no init there).
#
# And the sandbox's loopback is up before the command's first instruction
# (control: a fresh network namespace's is down).
#
# Needs: strace (scripts/install-deps installs it) for the way it ended.
. "$(dirname "$0")/tap.sh"

tap_base end
WS=$BASE/ws
mkdir -p "$WS"
export XDG_CACHE_HOME=$BASE/cache
PY=$(command -v python3)
crun() { (cd "$WS" && "$CORDON" run --backend native "$@"); }
# the probe's first run, out of the way of the traced ones
crun -- true >/dev/null 2>&1

LINE=ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ
# 3,000 lines of 100 bytes on stdout, then on stderr (300 KB each, far
# beyond a pipe's 64 KB), then exit 5
GEN="yes $LINE | head -n 3000; yes $LINE | head -n 3000 >&2; exit 5"
lines() { grep -cx "$LINE" "$1"; }

crun -- sh -c "$GEN" >"$BASE/o" 2>"$BASE/e"
rc=$?
o=$(lines "$BASE/o")
e=$(lines "$BASE/e")
if [ "$rc" = 5 ] && [ "$o" = 3000 ] && [ "$e" = 3000 ]; then
        ok "interactive: all 3,000 lines of stdout and of stderr arrive, and exit 5"
else
        not_ok "interactive: exit $rc, $o lines of stdout and $e of stderr (want 5, 3000, 3000)" "$(tail -c 300 "$BASE/e")"
fi

crun --json -- sh -c "$GEN" >"$BASE/j" 2>"$BASE/je"
got=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["exit_code"], d["verdict"], d["output"].count(sys.argv[2] + "\n"))' "$BASE/j" "$LINE" 2>&1)
if [ "$got" = "5 ok 6000" ]; then
        ok "--json: all 6,000 lines in the output, and exit 5"
else
        not_ok "--json: got '$got' (want '5 ok 6000')" "$(head -c 300 "$BASE/je")"
fi

crun -- sh -c 'echo before; kill -KILL $$' >"$BASE/o" 2>/dev/null
rc=$?
if [ "$rc" = 137 ] && [ "$(cat "$BASE/o")" = before ]; then
        ok "a command killed by SIGKILL: exit 137, its output kept"
else
        not_ok "a command killed by SIGKILL: exit $rc, output '$(cat "$BASE/o")'"
fi
sig=$(crun --json -- sh -c 'kill -TERM $$' 2>/dev/null | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["signal"])' 2>&1)
if [ "$sig" = 15 ]; then
        ok "--json: a command killed by SIGTERM reports signal 15"
else
        not_ok "--json: signal '$sig' (want 15)"
fi

# The way it ended: cordon run (the traced process's own pid, the first
# line's) reaps no child of its own under full isolation; with light
# isolation it does (its runner's exit is the end there).
reaped() { # reaped TRACE: the waits of the first pid that returned a pid
        local me
        me=$(awk 'NR == 1 { print $1 }' "$1")
        awk -v me="$me" '$1 == me && /^[0-9]+ +(wait4|waitid)\(/ && / = [1-9][0-9]*$/' "$1"
}
if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
        skip "cordon run ends at init's word" "no strace, or it cannot trace here"
else
        (cd "$WS" && strace -f -o "$BASE/t-full" -e trace=execve,wait4,waitid "$CORDON" run --backend native -- true) \
                >/dev/null 2>&1
        (cd "$WS" && strace -f -o "$BASE/t-light" -e trace=execve,wait4,waitid "$CORDON" run --backend native \
                --isolation light -- true) >/dev/null 2>&1
        full=$(reaped "$BASE/t-full")
        light=$(reaped "$BASE/t-light")
        if [ -s "$BASE/t-full" ] && [ -z "$full" ]; then
                ok "full isolation: cordon run ended at init's word, its runner left to finish its exit"
        else
                not_ok "full isolation: cordon run waited for its runner" "${full:-no trace}"
        fi
        if [ -n "$light" ]; then
                ok "control: under light isolation cordon run reaps its runner (the check sees a reap)"
        else
                not_ok "control: no reap seen under light isolation" "$(head -5 "$BASE/t-light")"
        fi
fi

# The loopback is up from the command's first instruction: a listener on
# 127.0.0.1 and a connection to it, at once.
LO='import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
socket.create_connection(s.getsockname(), timeout=2); print("up")'
if unshare -rn "$PY" -c "$LO" >/dev/null 2>&1; then
        not_ok "control: a fresh network namespace's loopback is down, so the check could fail"
else
        ok "control: in a fresh network namespace (lo down) the same connection fails"
fi
out=$(crun -- "$PY" -c "$LO" 2>&1)
if [ "$out" = up ]; then
        ok "the sandbox's loopback is up at the command's start"
else
        not_ok "the sandbox's loopback at the command's start" "$out"
fi

finish
