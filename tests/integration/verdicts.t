#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Verdicts that cannot be forged, and values never on a command line.
#
# 1. A runner's own failures come back out of band (cordon's --status-fd,
#    bwrap's --json-status-fd): a command that prints the runner's words and
#    fails is that command failing (ok or denied), never "runner_failed" (a
#    framework that retries runner failures without a sandbox could be
#    steered by it); a real runner failure still is runner_failed.
# 2. Neither a value set with --setenv nor one kept with --keep-env is in
#    any /proc/PID/cmdline (readable by every local user) while the command
#    runs, and the command still sees both.
#
# Needs: $CORDON, python3; bwrap for the bwrap half (skipped without it).
. "$(dirname "$0")/tap.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

unset TMPDIR
tmp=$(mktemp -d /var/tmp/cordon-verdicts.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/ws
mkdir -p "$ws" "$tmp/home" "$tmp/fakebin"
export HOME=$tmp/home XDG_CACHE_HOME=$tmp/cache
cd "$ws"

FORGED='cordon: landlock: cannot open /: Permission denied'

crun() { # BACKEND OUT ARGS... : cordon run --json into OUT
        local backend=$1 out=$2
        shift 2
        "$CORDON" run --backend "$backend" --workspace "$ws" --json "$@" > "$out" 2> "$out.err"
}
verdict_is() { # DESC OUT VERDICT [EXIT]
        local v e
        v=$(json_field "$2" verdict)
        e=$(json_field "$2" exit_code)
        if [ "$v" = "$3" ] && { [ -z "${4:-}" ] || [ "$e" = "$4" ]; }; then
                ok "$1"
        else
                not_ok "$1" "verdict=$v exit=$e, want $3 ${4:-}" "$(cat "$2" "$2.err" 2>/dev/null | head -c 2000)"
        fi
}

# ---- native: the text is only output --------------------------------------

# control: unconfined, the script prints the runner's line and fails
out=$(sh -c "echo '$FORGED' >&2; exit 1" 2>&1)
rc=$?
if [ $rc = 1 ] && [ "$out" = "$FORGED" ]; then
        ok "control: unconfined, the forging script prints the runner's line and exits 1"
else
        not_ok "control: forging script" "rc=$rc" "$out"
fi

crun native "$tmp/o.json" -- sh -c "echo '$FORGED' >&2; exit 1"
verdict_is "native: a command printing '$FORGED' and exiting 1 is denied, not runner_failed" "$tmp/o.json" denied 1
[ "$(json_field "$tmp/o.json" runner_line)" = null ] && ok "native: ... and has no runner_line" ||
        not_ok "native: forged line has no runner_line" "$(cat "$tmp/o.json")"

crun native "$tmp/o.json" -- sh -c 'echo "cordon: x"; exit 1'
verdict_is "native: 'cordon: x' and exit 1 is ok (the command's own failure)" "$tmp/o.json" ok 1

crun native "$tmp/o.json" -- sh -c 'echo "cordon: flags: unknown flag" >&2; exit 125'
verdict_is "native: the runner's line AND its exit code 125 from the command is still not runner_failed" \
        "$tmp/o.json" ok 125

# interactive (no --json): stderr is relayed and classified as it goes
"$CORDON" run --backend native --workspace "$ws" -- sh -c "echo '$FORGED' >&2; exit 1" > "$tmp/i.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -qF "$FORGED" "$tmp/i.out" && ! grep -q "runner reported an error" "$tmp/i.out"; then
        ok "native, interactive: the forged line is relayed, exit 1, no runner-failure marker"
else
        not_ok "native, interactive: forged line" "rc=$rc" "$(cat "$tmp/i.out")"
fi

# ---- native: real runner failures ------------------------------------------

# A command that is not there (127) or no executable (126) is the command's
# own outcome, as in a shell: runner_failed is only cordon's machinery.
crun native "$tmp/o.json" -- /nonexistent/cordon-test-binary
verdict_is "native: execve of a missing binary is the command's outcome (ok), exit 127 as in a shell" "$tmp/o.json" ok 127
[ "$(json_field "$tmp/o.json" runner_line)" = null ] &&
   grep -q '^cordon: execve: /nonexistent/cordon-test-binary' <<<"$(json_field "$tmp/o.json" output)" &&
        ok "native: ... no runner_line, the runner's words in the output" ||
        not_ok "native: missing binary" "$(cat "$tmp/o.json")"
crun native "$tmp/o.json" -- /usr/include/stdio.h
verdict_is "native: a header run as a command is the command's outcome (ok), 126" "$tmp/o.json" ok 126
[ "$(json_field "$tmp/o.json" denials)" = "[]" ] && ! grep -q "(execve)" "$tmp/o.json" &&
        ok "native: ... with no invented denial (its mode says it is no executable)" ||
        not_ok "native: header invents no denial" "$(cat "$tmp/o.json")"


# --require of what the runner cannot give: inside cordon's light sandbox no
# user namespace can be made, so an inner `--require userns` run fails in
# the runner (its record), not in the command
"$CORDON" run --isolation light --workspace "$ws" -- \
        env XDG_CACHE_HOME="$tmp/nested-cache" "$CORDON" run --backend native --json --workspace "$ws" --require userns -- true \
        > "$tmp/o.json" 2> "$tmp/o.json.err"
verdict_is "native: --require userns where none can be made is runner_failed (125)" "$tmp/o.json" runner_failed 125
grep -q '^cordon: namespaces: ' <<<"$(json_field "$tmp/o.json" runner_line)" &&
        ok "native: ... and the runner_line names the namespaces step" ||
        not_ok "native: --require runner_line" "$(cat "$tmp/o.json")"

# cordon confine + run it as a framework would: envp as the environment,
# a pipe at status_fd. A bad flag reaches the runner: a record; a command
# printing the runner's words: none.
cat > "$tmp/frame.py" <<'EOF'
import fcntl, json, os, subprocess, sys
c = json.load(open(sys.argv[1]))
argv = c["argv"]
if sys.argv[2] == "bogus":
    argv.insert(argv.index("exec") + 1, "--bogus-flag")
fd = c["status_fd"]
r, w = os.pipe()
# both ends above fd, so dup2 to fd copies and clobbers nothing of ours
r2 = fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, fd + 1)
w2 = fcntl.fcntl(w, fcntl.F_DUPFD_CLOEXEC, fd + 1)
os.close(r); os.close(w)
os.dup2(w2, fd, inheritable=True)
os.close(w2)
env = dict(e.split("=", 1) for e in c["envp"])
p = subprocess.run(argv, env=env, pass_fds=(fd,), capture_output=True)
os.close(fd)
rec = os.read(r2, 65536).decode()
print(json.dumps({"exit": p.returncode, "record": rec, "stderr": p.stderr.decode()}))
EOF
"$CORDON" confine --backend native --workspace "$ws" -- true > "$tmp/c.json"
if [ "$(json_field "$tmp/c.json" status_format)" = cordon ] && [ "$(json_field "$tmp/c.json" status_fd)" = 3 ]; then
        ok "confine names the status channel (fd 3, format cordon)"
else
        not_ok "confine names the status channel" "$(cat "$tmp/c.json")"
fi
"$PY" "$tmp/frame.py" "$tmp/c.json" bogus > "$tmp/f.json"
if [ "$(json_field "$tmp/f.json" exit)" = 125 ] &&
   grep -q "^flags	-	cordon: flags: unknown flag '--bogus-flag'" <<<"$(json_field "$tmp/f.json" record)"; then
        ok "confine + run with a bad runner flag: a 'flags' record on the status fd (runner failed)"
else
        not_ok "bad runner flag gives a record" "$(cat "$tmp/f.json")"
fi
"$CORDON" confine --backend native --workspace "$ws" -- sh -c "echo '$FORGED' >&2; exit 125" > "$tmp/c2.json"
"$PY" "$tmp/frame.py" "$tmp/c2.json" plain > "$tmp/f.json"
if [ "$(json_field "$tmp/f.json" exit)" = 125 ] && [ -z "$(json_field "$tmp/f.json" record)" ] &&
   grep -qF "$FORGED" <<<"$(json_field "$tmp/f.json" stderr)"; then
        ok "confine + run of a forging command: exit 125 and the line, but no record"
else
        not_ok "forging command writes no record" "$(cat "$tmp/f.json")"
fi

# cordon classify on what the framework collected: the records decide
split_frame() { # F.JSON PREFIX: its stderr and record into PREFIX.out, PREFIX.rec
        "$PY" -c 'import json, sys
f = json.load(open(sys.argv[1]))
open(sys.argv[2] + ".out", "w").write(f["stderr"])
open(sys.argv[2] + ".rec", "w").write(f["record"])' "$1" "$2"
}
split_frame "$tmp/f.json" "$tmp/forged"
v=$("$CORDON" classify --confined "$tmp/c2.json" --status 125 --output "$tmp/forged.out" --status-records "$tmp/forged.rec")
[ "$v" = denied ] && ok "classify: the forging command with no records is denied (its own text), not runner_failed" ||
        not_ok "classify forged" "verdict=$v"
"$CORDON" classify --confined "$tmp/c2.json" --status 125 --output "$tmp/forged.out" > "$tmp/cl.out" 2>&1
rc=$?
if [ $rc = 125 ] && grep -q -- "--status-records" "$tmp/cl.out"; then
        ok "classify: a value with a status channel but no records given is refused (125), not guessed"
else
        not_ok "classify without records refused" "rc=$rc" "$(cat "$tmp/cl.out")"
fi
"$PY" "$tmp/frame.py" "$tmp/c.json" bogus > "$tmp/f.json"
split_frame "$tmp/f.json" "$tmp/bogus"
v=$("$CORDON" classify --confined "$tmp/c.json" --status 125 --output "$tmp/bogus.out" --status-records "$tmp/bogus.rec")
[ "$v" = "runner_failed: cordon: flags: unknown flag '--bogus-flag' (see cordon exec --help)" ] &&
        ok "classify: the runner's record is runner_failed with its message" ||
        not_ok "classify with a record" "verdict=$v"

# ---- bwrap ---------------------------------------------------------------

# A fake bwrap that fails like AppArmor's userns restriction makes it fail.
cat > "$tmp/fakebin/bwrap" <<'EOF'
#!/bin/sh
echo 'bwrap: setting up uid map: Permission denied' >&2
exit 1
EOF
chmod 755 "$tmp/fakebin/bwrap"
PATH=$tmp/fakebin:$PATH crun bwrap "$tmp/o.json" -- true
verdict_is "fake bwrap failing to map ids is runner_failed, not denied" "$tmp/o.json" runner_failed 1
[ "$(json_field "$tmp/o.json" runner_line)" = "bwrap: setting up uid map: Permission denied" ] &&
        ok "... with bwrap's own line as the reason" ||
        not_ok "fake bwrap runner_line" "$(cat "$tmp/o.json")"

if ! command -v bwrap >/dev/null; then
        skip "real bwrap" "bubblewrap is not installed"
elif ! bwrap --ro-bind / / --unshare-net true 2>/dev/null; then
        skip "real bwrap" "bwrap cannot run here: $(bwrap --ro-bind / / --unshare-net true 2>&1 | head -1)"
else
        crun bwrap "$tmp/o.json" -- sh -c 'echo "bwrap: x" >&2; exit 1'
        verdict_is "real bwrap: a command printing 'bwrap: x' and exiting 1 is ok, not runner_failed" "$tmp/o.json" ok 1
        crun bwrap "$tmp/o.json" -- sh -c 'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1'
        verdict_is "real bwrap: the command printing bwrap's uid-map line is denied, not runner_failed" \
                "$tmp/o.json" denied 1
        crun bwrap "$tmp/o.json" -- /nonexistent/cordon-test-binary
        # cordon's runner nests inside bwrap and is the one that execs the
        # command: its record comes on the next fd of the same status pipe
        verdict_is "real bwrap: execve of a missing binary (the nested runner's record) is the command's outcome, 127" \
                "$tmp/o.json" ok 127
        [ "$(json_field "$tmp/o.json" runner_line)" = null ] &&
           grep -q '^cordon: execve: /nonexistent/cordon-test-binary' <<<"$(json_field "$tmp/o.json" output)" &&
                ok "real bwrap: ... no runner_line, the nested runner's words in the output" ||
                not_ok "real bwrap missing binary" "$(cat "$tmp/o.json")"
fi

# ---- no value on any command line --------------------------------------------

# Scans every /proc/PID/cmdline for the values (given in the environment,
# never on a command line) but the pids named; exit 1 and the hits if any.
# `cordon run --setenv NAME=VALUE` itself is scanned too: it overwrites the
# value in its own argv once it has parsed it.
cat > "$tmp/scan.py" <<'EOF'
import os, sys
pats = [p.encode() for p in os.environ["CORDON_SCAN"].split(":")]
skip = {int(x) for x in sys.argv[1:]} | {os.getpid()}
hits, seen = [], 0
for d in os.listdir("/proc"):
    if not d.isdigit() or int(d) in skip:
        continue
    try:
        data = open("/proc/%s/cmdline" % d, "rb").read()
    except OSError:
        continue
    seen += 1
    if any(p in data for p in pats):
        hits.append("%s: %r" % (d, data.replace(b"\0", b" ")[:400]))
print("\n".join(hits) or "scanned %d processes" % seen)
sys.exit(1 if hits else 0)
EOF

secret_scan() { # BACKEND
        local backend=$1 set_v=set-secret-$$-$RANDOM kept_v=kept-secret-$$-$RANDOM pid tree i
        rm -f "$ws/seen"
        CORDON_TEST_KEPT=$kept_v "$CORDON" run --backend "$backend" --workspace "$ws" \
                --keep-env CORDON_TEST_KEPT --setenv CORDON_TEST_SET="$set_v" -- \
                sh -c 'printf "%s %s\n" "$CORDON_TEST_SET" "$CORDON_TEST_KEPT" > seen.tmp && mv seen.tmp seen && sleep 4' \
                > "$tmp/scan.out" 2>&1 &
        pid=$!
        for i in $(seq 100); do [ -s "$ws/seen" ] && break; sleep 0.05; done
        # the tree cordon started, for the record: it must be there to scan
        tree=$(ps -o pid= --ppid "$pid" 2>/dev/null | wc -l)
        if CORDON_SCAN="$set_v:$kept_v" "$PY" "$tmp/scan.py" > "$tmp/scan.hits"; then
                ok "$backend: neither value is in any /proc/*/cmdline while the command runs ($(cat "$tmp/scan.hits"), $tree children of cordon run)"
        else
                not_ok "$backend: a value is on a command line" "$(cat "$tmp/scan.hits")"
        fi
        # control: the scanner finds a value where one is (a decoy's command line)
        sh -c 'sleep 3' "decoy-$set_v" & decoy=$!
        sleep 0.1
        if ! CORDON_SCAN="$set_v" "$PY" "$tmp/scan.py" > /dev/null; then
                ok "$backend: control: the scanner finds the value on a decoy's command line"
        else
                not_ok "$backend: control: scanner finds nothing" "$(cat "$tmp/scan.out")"
        fi
        kill "$decoy" 2>/dev/null; wait "$decoy" 2>/dev/null
        [ "$tree" -ge 1 ] && ok "$backend: cordon run had started its runner when scanned" ||
                not_ok "$backend: nothing was running when scanned" "$(cat "$tmp/scan.out")"
        wait "$pid"
        if [ "$(cat "$ws/seen" 2>/dev/null)" = "$set_v $kept_v" ]; then
                ok "$backend: the command saw both values (set and kept)"
        else
                not_ok "$backend: the command saw both values" "seen: $(cat "$ws/seen" 2>/dev/null)" "$(cat "$tmp/scan.out")"
        fi
}

secret_scan native

# The native runner is cordon run's own forked child: its copy of cordon
# run's command line is blanked but for argv[0] (a --keep-env NAME, which
# cordon run does not scrub, stands for what the line may carry); control:
# cordon run's own line still shows it, so the check reads the right place.
mark=KEEP_MARK_$$_$RANDOM
rm -f "$ws/up"
"$CORDON" run --backend native --workspace "$ws" --keep-env "$mark" -- sh -c ': > up; sleep 3' > "$tmp/bl.out" 2>&1 &
pid=$!
for i in $(seq 100); do [ -e "$ws/up" ] && break; sleep 0.05; done
runner=$(ps -o pid= --ppid "$pid" 2>/dev/null | head -n 1 | tr -d ' ')
self_line=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)
runner_line=$(tr '\0' ' ' < "/proc/$runner/cmdline" 2>/dev/null | sed 's/ *$//')
runner_exe=$(readlink "/proc/$runner/exe" 2>/dev/null)
if [ -n "$runner" ] && [ "$runner_exe" = "$(readlink -f "$CORDON")" ] && [ -n "$runner_line" ] &&
   [ "$runner_line" = "${self_line%% *}" ]; then
        ok "native: the forked runner's command line is argv[0] alone ($runner_line)"
else
        not_ok "native: the forked runner's command line" "runner $runner ($runner_exe): $runner_line" "cordon run: $self_line" "$(cat "$tmp/bl.out")"
fi
case "$self_line" in
*"$mark"*) ok "native: control: cordon run's own command line shows the name" ;;
*) not_ok "native: control: cordon run's command line" "$self_line" ;;
esac
wait "$pid"

if command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-net true 2>/dev/null; then
        secret_scan bwrap
else
        skip "bwrap: no value on a command line" "bwrap cannot run here"
fi

# ---- a write grant for a directory that does not exist yet -------------------
# Made below HOME or the workspace (never through a symlink), refused with
# the reason anywhere else: never silently skipped.
wprofile() { # FILE PATH: a profile granting PATH
        printf '{"extends": "workspace-write", "filesystem": {"write": ["%s"]}}\n' "$2" > "$1"
}
wprofile "$tmp/w-home.json" "$HOME/.cache/cordon-made/sub"
"$CORDON" run --backend native --workspace "$ws" --profile "$tmp/w-home.json" -- \
        sh -c "echo made > '$HOME/.cache/cordon-made/sub/f'" > "$tmp/w.out" 2>&1
rc=$?
if [ $rc = 0 ] && [ "$(cat "$HOME/.cache/cordon-made/sub/f" 2>/dev/null)" = made ]; then
        ok "a missing write grant below HOME is created at start, and the command writes there"
else
        not_ok "a missing write grant below HOME is created" "rc=$rc" "$(cat "$tmp/w.out")"
fi
wprofile "$tmp/w-ws.json" "$ws/build/out"
"$CORDON" run --backend native --workspace "$ws" --profile "$tmp/w-ws.json" -- true > "$tmp/w.out" 2>&1
[ $? = 0 ] && [ -d "$ws/build/out" ] && ok "... and below the workspace" || not_ok "missing grant below the workspace" "$(cat "$tmp/w.out")"
mkdir -p "$tmp/elsewhere"
wprofile "$tmp/w-out.json" "$tmp/elsewhere/new"
"$CORDON" run --backend native --workspace "$ws" --profile "$tmp/w-out.json" -- touch "$ws/w-ran" > "$tmp/w.out" 2>&1
rc=$?
if [ $rc = 125 ] && [ ! -e "$tmp/elsewhere/new" ] && [ ! -e "$ws/w-ran" ] &&
   grep -q "does not exist, and cordon creates a missing one only below HOME or the workspace" "$tmp/w.out"; then
        ok "a missing write grant elsewhere is refused at start with the reason, nothing made, nothing run"
else
        not_ok "a missing write grant elsewhere is refused" "rc=$rc" "$(cat "$tmp/w.out")"
fi
wprofile "$tmp/w-ssh.json" "$HOME/.ssh/cordon-new"
"$CORDON" run --backend native --workspace "$ws" --profile "$tmp/w-ssh.json" -- true > "$tmp/w.out" 2>&1
rc=$?
if [ $rc = 125 ] && [ ! -e "$HOME/.ssh/cordon-new" ] && grep -q "deny always wins\|read-deny entry" "$tmp/w.out"; then
        ok "a missing write grant inside a credential store is refused, not created"
else
        not_ok "a missing write grant inside a credential store" "rc=$rc" "$(cat "$tmp/w.out")"
fi

finish
