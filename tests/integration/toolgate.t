#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The runner's tool-sandbox flags, driven directly (`cordon exec`), for
# real: --read (only these readable), --exec / --exec-gate (the execute-only
# gate), --deny-exec (never executable, still readable), --exec-fd (run the
# file the caller opened, whatever its path names now), and what light
# isolation refuses; `cordon explain` says so too, for light isolation and
# for bwrap. Every
# refusal has a control that succeeds. Runs as root or not.
. "$(dirname "$0")/tap.sh"

tap_base toolgate
mkdir -p "$BASE/granted" "$BASE/outside" "$BASE/bin" "$BASE/ws"
echo granted > "$BASE/granted/file"
echo secret > "$BASE/outside/file"
cp /bin/true "$BASE/bin/true-copy"
export HOME=$BASE/home
mkdir -p "$HOME"

# cexec FLAGS... -- CMD...: the runner with a status channel on fd 3 (its
# records: $BASE/status), the private /tmp writable, stdout+stderr.
cexec() {
        "$CORDON" exec --status-fd 3 --private-tmp --write /tmp "$@" 3>"$BASE/status" 2>&1
}
# The loader and libraries a dynamically linked program needs, for the gate.
SYSEXEC=(--exec /usr/bin --exec /usr/lib)
[ -e /lib64 ] && SYSEXEC+=(--exec /lib64)
[ -e /usr/lib64 ] && SYSEXEC+=(--exec /usr/lib64)

# --- --read ------------------------------------------------------------------
out=$(cexec -- cat "$BASE/outside/file")
[ "$out" = secret ] && ok "control: without --read, a file outside any grant is readable" ||
        not_ok "control: without --read" "$out"
out=$(cexec --read /usr --read /etc --read /proc --read /dev --read "$BASE/granted" -- \
        sh -c "cat $BASE/granted/file; cat $BASE/outside/file; echo rc=\$?")
if grep -qx granted <<<"$out" && grep -qx 'rc=1' <<<"$out" && ! grep -qx secret <<<"$out"; then
        ok "--read: the granted file is readable, one outside every --read is not"
else
        not_ok "--read" "$out"
fi

# --- the execute-only gate ---------------------------------------------------
script='cp /bin/true /tmp/t; /tmp/t; echo tmp=$?; printf "echo ran\n" > /tmp/s; sh /tmp/s; chmod +x /tmp/s; /tmp/s; echo direct=$?'
out=$(cexec -- sh -c "$script")
grep -qx 'tmp=0' <<<"$out" && grep -qx 'direct=0' <<<"$out" &&
        ok "control: without the gate, a copy in /tmp and a script there run" || not_ok "control: no gate" "$out"
out=$(cexec "${SYSEXEC[@]}" -- sh -c "$script")
if grep -qx 'tmp=126' <<<"$out" && grep -qx 'ran' <<<"$out" && grep -qx 'direct=126' <<<"$out"; then
        ok "--exec: a copy in /tmp cannot run, a script read by sh can, executed directly it cannot"
else
        not_ok "--exec" "$out"
fi
out=$(cexec --exec-gate -- /bin/true)
rc=$?
[ $rc = 126 ] && grep -q 'EACCES' <<<"$out" &&
        ok "--exec-gate with nothing granted: the command itself cannot run (126)" ||
        not_ok "--exec-gate alone: rc=$rc" "$out"
out=$(cexec --exec "$BASE/bin" -- "$BASE/bin/true-copy")
rc=$?
[ $rc = 126 ] && ok "--exec of the program without its loader: 126" || not_ok "loader not granted: rc=$rc" "$out"

# --- --deny-exec -------------------------------------------------------------
out=$(cexec -- "$BASE/bin/true-copy"; echo "rc=$?")
grep -qx 'rc=0' <<<"$out" && ok "control: the copy runs without --deny-exec" || not_ok "control: deny-exec" "$out"
out=$(cexec --deny-exec "$BASE/bin/true-copy" -- sh -c \
        "$BASE/bin/true-copy; echo run=\$?; head -c 4 $BASE/bin/true-copy | tail -c 3; echo")
if grep -qx 'run=126' <<<"$out" && grep -qx 'ELF' <<<"$out"; then
        ok "--deny-exec: not executable, still readable"
else
        not_ok "--deny-exec" "$out"
fi
# a name that does not exist yet: the host makes it while the sandbox
# waits, under that very name
rm -f "$BASE/bin/later" "$BASE/go"
( cexec --deny-exec "$BASE/bin/later" -- sh -c \
        "while [ ! -e $BASE/go ]; do sleep 0.02; done; $BASE/bin/later; echo rc=\$?" > "$BASE/late.out" ) &
PIDS+=($!)
sleep 0.5
cp /bin/true "$BASE/bin/later"
touch "$BASE/go"
wait "${PIDS[-1]}"
grep -qx 'rc=126' "$BASE/late.out" && "$BASE/bin/later" &&
        ok "--deny-exec of a missing name: a file the host makes there during the run cannot run (the host runs it)" ||
        not_ok "--deny-exec during the run" "$(cat "$BASE/late.out")"

# --- --exec-fd ---------------------------------------------------------------
cp /bin/true "$BASE/bin/prog"
exec 4<"$BASE/bin/prog"
cp /bin/false "$BASE/bin/new" && mv "$BASE/bin/new" "$BASE/bin/prog"
"$CORDON" exec --status-fd 3 --private-tmp --exec-fd 4 -- prog 3>"$BASE/status"
rc_fd=$?
"$CORDON" exec --status-fd 3 --private-tmp -- "$BASE/bin/prog" 3>"$BASE/status"
rc_path=$?
"$CORDON" exec --status-fd 3 --isolation light --exec-fd 4 -- prog 3>"$BASE/status"
rc_light=$?
exec 4<&-
if [ $rc_light = 0 ]; then
        ok "--exec-fd under light isolation: the file opened before the rename runs"
else
        not_ok "--exec-fd under light isolation: rc=$rc_light (want 0)"
fi
if [ $rc_fd = 0 ] && [ $rc_path = 1 ]; then
        ok "--exec-fd: the file opened before the rename runs (true); by path the new one (false)"
else
        not_ok "--exec-fd after a rename: from the fd $rc_fd (want 0), by path $rc_path (want 1)"
fi
out=$("$CORDON" exec --status-fd 3 --exec-fd 4 -- true 3>"$BASE/status" 4<&- 2>&1)
rc=$?
[ $rc = 125 ] && grep -q 'fd 4 is not open' <<<"$out" && grep -q '^exec-fd' "$BASE/status" &&
        ok "--exec-fd naming no open fd: the runner refuses (125), and says so on its channel" ||
        not_ok "--exec-fd not open: rc=$rc" "$out"

# --- light isolation refuses the gate and deny-exec ------------------------------
for flag in "--exec /usr" "--exec-gate" "--deny-exec /usr/bin/env"; do
        # shellcheck disable=SC2086
        out=$("$CORDON" exec --status-fd 3 --isolation light $flag -- true 3>"$BASE/status" 2>&1)
        rc=$?
        if [ $rc = 125 ] && grep -q 'need --isolation full' <<<"$out"; then
                ok "light isolation refuses $flag (125)"
        else
                not_ok "light isolation with $flag: rc=$rc" "$out"
        fi
done
"$CORDON" exec --status-fd 3 --isolation light --read /usr --read /etc -- /bin/true 3>"$BASE/status" 2>&1 &&
        ok "control: light isolation runs with --read" || not_ok "light isolation with --read"

# --- what `cordon explain` says --------------------------------------------------
out=$(cd "$BASE/ws" && "$CORDON" explain --isolation light -- true 2>&1)
grep -q 'execute-only gate and deny-exec (refused' <<<"$out" &&
        ok "cordon explain: light isolation names the execute-only gate and deny-exec among what it gives up" ||
        not_ok "explain light" "$out"
if command -v bwrap >/dev/null; then
        out=$(cd "$BASE/ws" && CORDON_BACKEND=bwrap "$CORDON" explain --backend bwrap -- true 2>&1)
        grep -q 'refused here (the native runner.s): restricted reads, the execute-only gate, deny-exec' <<<"$out" &&
                ok "cordon explain --backend bwrap: names the tool sandbox's mechanisms as refused there" ||
                not_ok "explain bwrap" "$out"
else
        skip "cordon explain --backend bwrap" "no bwrap here"
fi
finish
