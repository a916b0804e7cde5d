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
outside=$tmp/outside # writable here, outside the sandbox's workspace
mkdir -p "$ws" "$outside"
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

# ---- one object for every outcome, valid against the schema ---------------

# A validator for the subset of JSON Schema 2020-12 the result schema uses;
# it refuses a schema with any other keyword, so the subset cannot drift.
cat > "$tmp/validate.py" <<'PY'
import json, re, sys
KNOWN = {'$schema', '$id', 'title', 'description', 'type', 'enum', 'properties', 'required',
         'additionalProperties', 'pattern', 'minimum', 'maximum', 'items'}
TYPES = {'object': lambda v: isinstance(v, dict), 'string': lambda v: isinstance(v, str),
         'integer': lambda v: isinstance(v, int) and not isinstance(v, bool),
         'boolean': lambda v: isinstance(v, bool), 'null': lambda v: v is None,
         'array': lambda v: isinstance(v, list)}
def check(s, v, where, errs):
    unknown = set(s) - KNOWN
    if unknown:
        sys.exit('schema keywords this validator does not know: %s' % sorted(unknown))
    if 'type' in s:
        types = s['type'] if isinstance(s['type'], list) else [s['type']]
        if not any(TYPES[t](v) for t in types):
            errs.append('%s: %r is not %s' % (where or '/', v, '|'.join(types)))
            return
    if 'enum' in s and v not in s['enum']:
        errs.append('%s: %r not one of %r' % (where, v, s['enum']))
    if isinstance(v, str) and 'pattern' in s and not re.search(s['pattern'], v):
        errs.append('%s: %r does not match %s' % (where, v, s['pattern']))
    if TYPES['integer'](v) and not s.get('minimum', v) <= v <= s.get('maximum', v):
        errs.append('%s: %r out of range' % (where, v))
    if isinstance(v, list) and 'items' in s:
        for i, x in enumerate(v):
            check(s['items'], x, '%s/%d' % (where, i), errs)
    if isinstance(v, dict):
        for k in s.get('required', []):
            if k not in v:
                errs.append('%s: %s missing' % (where or '/', k))
        for k, x in v.items():
            if k in s.get('properties', {}):
                check(s['properties'][k], x, where + '/' + k, errs)
            elif s.get('additionalProperties', True) is False:
                errs.append('%s: %s not allowed' % (where or '/', k))
            elif isinstance(s.get('additionalProperties'), dict):
                check(s['additionalProperties'], x, where + '/' + k, errs)
schema = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
lines = text.splitlines()
if len(lines) != 1:
    sys.exit('%d lines on stdout, not one object' % len(lines))
errs = []
check(schema, json.loads(lines[0]), '', errs)
if errs:
    sys.exit('; '.join(errs))
PY
schema=$tmp/result.schema.json
"$CORDON" run --json-schema > "$schema"
if cmp -s "$schema" "$CORDON_SRCDIR/share/cordon/result.schema.json" && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$schema"; then
        ok "cordon run --json-schema prints share/cordon/result.schema.json"
else
        not_ok "cordon run --json-schema prints the schema"
fi

# valid DESC FILE : FILE holds one object that the schema accepts
valid() {
        local out
        if out=$(python3 "$tmp/validate.py" "$schema" "$2" 2>&1); then ok "$1: valid against the schema"; else not_ok "$1: valid against the schema" "$out" "$(head -c 800 "$2")"; fi
}
# field FILE KEY[.SUB]
field() {
        python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[k]
print("null" if v is None else (str(v).lower() if isinstance(v,bool) else v))' "$1" "$2"
}
keys() { python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1])))))' "$1"; }

# the validator can fail: a field missing, one too many, a wrong type
printf '{"exit_code":0}\n' > "$tmp/bad1.json"
ok_obj='{"exit_code":0,"signal":null,"verdict":"ok","runner_line":null,"output":"","output_base64":null,"output_bytes":0,"stderr":null,"stderr_base64":null,"stderr_bytes":null,"truncated":false,"duration_ms":0,"mode":null,"enforcement":"none","grade":null,"backend_from_cache":false,"limit":null,"limit_mechanism":null,"limits":{},"limits_warning":null,"error":null,"hints":[],"denials":[],"denials_omitted":0}'
printf '%s\n' "$ok_obj" > "$tmp/good.json"
printf '%s\n' "${ok_obj%\}},\"extra\":1}" > "$tmp/bad2.json"
printf '%s\n' "${ok_obj/\"exit_code\":0/\"exit_code\":\"0\"}" > "$tmp/bad3.json"
printf '%s\n' "${ok_obj/\"verdict\":\"ok\"/\"verdict\":\"fine\"}" > "$tmp/bad4.json"
# a denial without its rule
printf '%s\n' "${ok_obj/\"denials\":[]/\"denials\":[{\"kind\":\"path\",\"path\":\"/x\",\"op\":\"write\",\"mechanism\":\"mount\"\}]}" > "$tmp/bad5.json"
if python3 "$tmp/validate.py" "$schema" "$tmp/good.json" &&
   ! python3 "$tmp/validate.py" "$schema" "$tmp/bad1.json" 2>/dev/null &&
   ! python3 "$tmp/validate.py" "$schema" "$tmp/bad2.json" 2>/dev/null &&
   ! python3 "$tmp/validate.py" "$schema" "$tmp/bad3.json" 2>/dev/null &&
   ! python3 "$tmp/validate.py" "$schema" "$tmp/bad4.json" 2>/dev/null &&
   ! python3 "$tmp/validate.py" "$schema" "$tmp/bad5.json" 2>/dev/null; then
        ok "control: the validator rejects a missing field, an extra one, a wrong type, an unknown verdict, a denial without its rule"
else
        not_ok "control: the validator can fail"
fi

# jrun NAME ARGS... : cordon run --json ARGS > $tmp/NAME.json (stdin: none)
jrun() {
        local name=$1; shift
        "$CORDON" run --json "$@" > "$tmp/$name.json" 2> "$tmp/$name.err" < /dev/null
        echo $? > "$tmp/$name.rc"
}
rc_of() { cat "$tmp/$1.rc"; }
same_keys=$(keys "$tmp/good.json")

jrun badflag --no-such-flag -- true
valid "a bad flag" "$tmp/badflag.json"
[ "$(rc_of badflag)" = 125 ] && [ "$(field "$tmp/badflag.json" verdict)" = refused ] &&
   [ "$(field "$tmp/badflag.json" error.kind)" = usage ] && grep -q -- "--no-such-flag" <<<"$(field "$tmp/badflag.json" error.message)" &&
        ok "a bad flag: refused, usage, the flag named, exit 125" || not_ok "bad flag json" "$(cat "$tmp/badflag.json")"

printf '{\n  "mode": "workspace-write",\n  "modee": 1\n}\n' > "$tmp/typo.json"
jrun profile --profile "$tmp/typo.json" -- true
valid "a profile error" "$tmp/profile.json"
[ "$(rc_of profile)" = 125 ] && [ "$(field "$tmp/profile.json" error.kind)" = profile ] &&
   [ "$(field "$tmp/profile.json" error.file)" = "$tmp/typo.json" ] && [ "$(field "$tmp/profile.json" error.line)" = 3 ] &&
   [ "$(field "$tmp/profile.json" error.column)" = 3 ] && [ "$(field "$tmp/profile.json" error.pointer)" = /modee ] &&
        ok "a profile error: kind profile with file, line 3, column 3, pointer /modee" || not_ok "profile error json" "$(cat "$tmp/profile.json")"

jrun unavail --backend unavailable -- touch "$ws/unavail-ran"
valid "no backend" "$tmp/unavail.json"
[ "$(rc_of unavail)" = 125 ] && [ "$(field "$tmp/unavail.json" verdict)" = unavailable ] &&
   [ "$(field "$tmp/unavail.json" error.kind)" = unavailable ] && [ ! -e "$ws/unavail-ran" ] &&
        ok "no backend: verdict unavailable, nothing ran, exit 125" || not_ok "unavailable json" "$(cat "$tmp/unavail.json")"

jrun spawn --mode danger-full-access -- "$tmp/no-such-command"
valid "a missing command without a runner" "$tmp/spawn.json"
[ "$(rc_of spawn)" = 127 ] && [ "$(field "$tmp/spawn.json" exit_code)" = 127 ] && [ "$(field "$tmp/spawn.json" error.kind)" = spawn ] &&
        ok "a missing command without a runner: exit_code 127, error spawn" || not_ok "spawn json" "$(cat "$tmp/spawn.json")"

jrun dfa --mode danger-full-access -- sh -c 'echo hi; exit 4'
valid "danger-full-access exit 4" "$tmp/dfa.json"
[ "$(rc_of dfa)" = 4 ] && [ "$(field "$tmp/dfa.json" exit_code)" = 4 ] && [ "$(field "$tmp/dfa.json" enforcement)" = none ] &&
        ok "danger-full-access: exit 4, enforcement none" || not_ok "dfa json" "$(cat "$tmp/dfa.json")"

same=1
for f in badflag profile unavail spawn dfa; do [ "$(keys "$tmp/$f.json")" = "$same_keys" ] || same=0; done

if [ "$native" = native ]; then
        jrun require --isolation light --require userns -- touch "$ws/require-ran"
        valid "a --require refusal" "$tmp/require.json"
        [ "$(rc_of require)" = 125 ] && [ "$(field "$tmp/require.json" error.kind)" = require ] && [ ! -e "$ws/require-ran" ] &&
                ok "--require userns under light isolation: kind require, nothing ran" || not_ok "require json" "$(cat "$tmp/require.json")"
        jrun require-ok --require userns -- touch "$ws/require-ran"
        [ "$(rc_of require-ok)" = 0 ] && [ -e "$ws/require-ran" ] &&
                ok "control: --require userns under full isolation runs" || not_ok "control: require" "$(cat "$tmp/require-ok.json")"

        jrun success -- sh -c 'echo hello'
        valid "success" "$tmp/success.json"
        [ "$(field "$tmp/success.json" verdict)" = ok ] && [ "$(field "$tmp/success.json" output)" = hello ] &&
           [ "$(field "$tmp/success.json" error)" = null ] &&
                ok "success: ok, output, no error" || not_ok "success json" "$(cat "$tmp/success.json")"

        jrun failure -- sh -c 'echo no >&2; exit 3'
        valid "failure" "$tmp/failure.json"
        [ "$(rc_of failure)" = 3 ] && [ "$(field "$tmp/failure.json" exit_code)" = 3 ] &&
                ok "failure: exit_code 3, cordon exits 3" || not_ok "failure json" "$(cat "$tmp/failure.json")"

        jrun timeout --timeout 0.3 -- sleep 5
        valid "timeout" "$tmp/timeout.json"
        [ "$(rc_of timeout)" = 124 ] && [ "$(field "$tmp/timeout.json" exit_code)" = 124 ] &&
           [ "$(field "$tmp/timeout.json" verdict)" = timeout ] && [ "$(field "$tmp/timeout.json" limit)" = timeout ] &&
                ok "timeout: exit_code 124 (as the struct's), verdict timeout" || not_ok "timeout json" "$(cat "$tmp/timeout.json")"

        jrun denied -- touch "$outside/denied"
        valid "a denial" "$tmp/denied.json"
        [ "$(field "$tmp/denied.json" verdict)" = denied ] && [ ! -e "$outside/denied" ] &&
                ok "a denial: verdict denied, nothing made outside the workspace" || not_ok "denied json" "$(cat "$tmp/denied.json")"
        touch "$outside/control" && ok "control: the same touch outside the sandbox works" || not_ok "control: touch outside"
        python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
d = [x for x in o["denials"] if x["kind"] == "path" and x["path"].endswith("/denied")]
sys.exit(not (d and d[0]["op"] == "write" and d[0]["rule"] and d[0]["mechanism"] in ("mount", "landlock")))' "$tmp/denied.json" &&
                ok "a denial: denials names the path, op write, its rule and mechanism" || not_ok "denials" "$(cat "$tmp/denied.json")"

        jrun missing -- "$tmp/no-such-command"
        valid "a missing command" "$tmp/missing.json"
        [ "$(rc_of missing)" = 127 ] && [ "$(field "$tmp/missing.json" exit_code)" = 127 ] &&
           [ "$(field "$tmp/missing.json" verdict)" = ok ] && [ "$(field "$tmp/missing.json" error)" = null ] &&
           [ "$(field "$tmp/missing.json" runner_line)" = null ] &&
           grep -q "^cordon: execve: $tmp/no-such-command: No such file" <<<"$(field "$tmp/missing.json" output)" &&
                ok "a missing command: exit_code 127, the command's own outcome (not runner_failed), the line in output" ||
                not_ok "missing json" "$(cat "$tmp/missing.json")"

        # A file that is no executable (a header) is the command's own 126:
        # no runner failure, no invented denial or line. A real exec refusal
        # is told apart by the mode (classify's unit tests, tools.t).
        jrun noexec -- /usr/include/stdio.h
        valid "a header run as a command" "$tmp/noexec.json"
        if [ "$(rc_of noexec)" = 126 ] && [ "$(field "$tmp/noexec.json" verdict)" = ok ] &&
           [ "$(field "$tmp/noexec.json" runner_line)" = null ] && [ "$(field "$tmp/noexec.json" denials)" = "[]" ] &&
           ! grep -q "(execve)" "$tmp/noexec.json"; then
                ok "/usr/include/stdio.h: exit 126, verdict ok, no denial and no line the command never printed"
        else
                not_ok "a header run as a command" "$(cat "$tmp/noexec.json")"
        fi
        jrun direxec -- /usr
        [ "$(rc_of direxec)" = 126 ] && [ "$(field "$tmp/direxec.json" verdict)" = ok ] && [ "$(field "$tmp/direxec.json" denials)" = "[]" ] &&
                ok "a directory run as a command: 126, ok, no denial (it has execute bits, but is no file)" ||
                not_ok "a directory run as a command" "$(cat "$tmp/direxec.json")"

        # Denials inferred from the output say so, and cordon's own hints
        # never repeat a path that only the output named.
        jrun printed -- sh -c "echo '$HOME/.cache/pip/cordon-printed: Read-only file system'; exit 1"
        valid "a printed denial line" "$tmp/printed.json"
        if python3 - "$tmp/printed.json" "$HOME/.cache/pip/cordon-printed" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
d = [x for x in o["denials"] if x["kind"] == "path"]
assert d and all(x["source"] == "output" for x in d), o
assert not any(sys.argv[2] in h for h in o["hints"]), o["hints"]
PY
        then ok "a denial only the output names is source output, and no hint repeats its path"
        else not_ok "source output" "$(cat "$tmp/printed.json")"; fi

        # What the write gate refused is cordon's own word (a denial record
        # on the status channel): listed with source kernel whatever the
        # exit code; exit 0 keeps verdict ok, a failure after it is denied.
        mkdir -p "$ws/.git" "$outside/.git"
        jrun gate0 -- sh -c 'echo x > .git/config 2>/dev/null; exit 0'
        valid "a write-gate refusal at exit 0" "$tmp/gate0.json"
        if python3 - "$tmp/gate0.json" "$ws/.git/config" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
d = [x for x in o["denials"] if x["source"] == "kernel"]
assert o["verdict"] == "ok" and o["exit_code"] == 0, o
assert [(x["kind"], x["path"], x["op"], x["mechanism"], x["rule"]) for x in d] == \
    [("path", sys.argv[2], "write", "write-gate", "/groups/persistence")], d
PY
        then ok "a write-gate refusal with exit 0: one denial, source kernel, its path and rule; verdict ok"
        else not_ok "a write-gate refusal at exit 0" "$(cat "$tmp/gate0.json")"; fi
        [ ! -e "$ws/.git/config" ] && (cd "$outside" && echo x > .git/config) &&
                ok "control: nothing written in the sandbox; the same write outside it works" ||
                not_ok "control: write-gate"
        jrun gate1 -- sh -c 'for i in 1 2 3; do echo x > .git/config; done 2>/dev/null; echo done; exit 1'
        if python3 - "$tmp/gate1.json" "$ws/.git/config" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["verdict"] == "denied", o
assert [x["path"] for x in o["denials"] if x["source"] == "kernel"] == [sys.argv[2]], o["denials"]
PY
        then ok "a write-gate refusal, then exit 1 with no denial text: verdict denied, the refusal listed once"
        else not_ok "a write-gate refusal at exit 1" "$(cat "$tmp/gate1.json")"; fi
        # A command cannot forge such a record: printed, it is only output
        printf 'denial\tkernel\twrite-gate\twrite\t%s\n' "$ws/.git/forged" > "$tmp/forged.txt"
        jrun forged -- sh -c "cat '$tmp/forged.txt'; cat '$tmp/forged.txt' >&2; exit 1"
        if python3 - "$tmp/forged.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert not [x for x in o["denials"] if x["source"] != "output"], o["denials"]
assert not any("forged" in h for h in o["hints"]), o["hints"]
PY
        then ok "a denial record the command prints is no kernel denial, and no hint names its path"
        else not_ok "a forged record" "$(cat "$tmp/forged.json")"; fi

        # The confine -> spawn -> classify recipe: the caller runs the
        # confined argv with the status pipe at status_fd, and classify
        # --json gives the same denials as run --json for the same run.
        cat > "$tmp/spawn.py" <<'PY'
import json, os, subprocess, sys
c = json.load(open(sys.argv[1]))
fd = c["status_fd"]
r, w = os.pipe()
if r <= fd:
    r = os.dup(r)
if os.environ.get("SPAWN_PIPE_SZ"):  # F_SETPIPE_SZ: a small pipe
    import fcntl
    fcntl.fcntl(w, 1031, int(os.environ["SPAWN_PIPE_SZ"]))
os.dup2(w, fd, inheritable=True)
env = dict(x.split("=", 1) for x in c["envp"]) if c.get("envp") else None
p = subprocess.run(c["argv"], env=env, pass_fds=(fd,), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
os.close(fd); os.close(w)
os.set_blocking(r, False)
try:
    rec = os.read(r, 1 << 16)
except BlockingIOError:
    rec = b""
open(sys.argv[2], "wb").write(p.stdout)
open(sys.argv[3], "wb").write(rec)
print(p.returncode)
PY
        # The caller chooses the fd (confine --status-fd N, as bwrap's
        # --json-status-fd N); the control: a pipe at the default 3 instead
        # is refused by the runner, which wants 7.
        "$CORDON" confine --status-fd 7 -- sh -c 'echo x > .git/config; exit 1' > "$tmp/gate.confined" 2>/dev/null
        python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["status_fd"]=3; json.dump(c,open(sys.argv[2],"w"))' \
                "$tmp/gate.confined" "$tmp/wrongfd.confined"
        st=$(python3 "$tmp/spawn.py" "$tmp/wrongfd.confined" "$tmp/wrongfd.out" "$tmp/wrongfd.rec")
        [ "$(field "$tmp/gate.confined" status_fd)" = 7 ] && [ "$st" = 125 ] && grep -q "status-fd: fd 7 is not open" "$tmp/wrongfd.out" &&
                ok "confine --status-fd 7: the runner reports on fd 7 (a pipe at 3 instead: refused, fd 7 is not open)" ||
                not_ok "confine --status-fd" "$st $(cat "$tmp/wrongfd.out")"
        expect_rc "confine --status-fd 2 is refused" 125 "$CORDON" confine --status-fd 2 -- true
        st=$(python3 "$tmp/spawn.py" "$tmp/gate.confined" "$tmp/gate.out" "$tmp/gate.rec")
        "$CORDON" classify --json --confined "$tmp/gate.confined" --status "$st" --output "$tmp/gate.out" \
                --status-records "$tmp/gate.rec" > "$tmp/classified.json" 2>&1
        if python3 - "$tmp/classified.json" "$tmp/gate1.json" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
strip = lambda d: [{k: v for k, v in x.items() if k != "line" or x["source"] != "output"} for x in d["denials"]]
assert a["verdict"] == "denied" and strip(a) == strip(b) and a["denials"], (a, b)
PY
        then ok "confine, spawn with the status pipe, classify --json: the same verdict and denials as run --json"
        else not_ok "classify --json denials" "$(cat "$tmp/classified.json")" "$(cat "$tmp/gate1.json")"; fi

        # Nothing reads the status channel before the run ends, and a pipe
        # can be one page (a user over pipe-user-pages-soft): forty refusals
        # of long names there must not block the gate (and the command);
        # records stop where the runner's own record would not fit.
        mkdir -p "$ws/.git/hooks"
        long=$(printf 'a%.0s' $(seq 200))
        "$CORDON" confine -- sh -c "i=0; while [ \$i -lt 40 ]; do echo x > .git/hooks/$long\$i; i=\$((i+1)); done 2>/dev/null; exit 1" \
                > "$tmp/small.confined" 2>/dev/null
        st=$(SPAWN_PIPE_SZ=4096 timeout 30 python3 "$tmp/spawn.py" "$tmp/small.confined" "$tmp/small.out" "$tmp/small.rec")
        n=$(grep -c "^denial" "$tmp/small.rec")
        [ "$st" = 1 ] && [ "$n" -ge 5 ] && [ "$n" -lt 24 ] && [ "$(wc -c < "$tmp/small.rec")" -le $((4096 - 1400)) ] &&
                ok "forty gate refusals into a one-page status pipe: the run ends (exit 1), $n records, room left for the runner's" ||
                not_ok "a one-page status pipe" "st=$st n=$n $(wc -c < "$tmp/small.rec")"

        # C.UTF-8 quotes: coreutils and gnulib write ‘PATH’
        jrun quoted -- sh -c "echo 'touch: cannot touch ‘/usr/cordon-q1’: Read-only file system'; echo 'mkdir: cannot create directory “/etc/cordon-q2”: Permission denied'; echo 'cp: cannot create «/opt/cordon-q3»: Permission denied'; exit 1"
        if python3 - "$tmp/quoted.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
paths = sorted(x["path"] for x in o["denials"] if x["kind"] == "path")
assert paths == ["/etc/cordon-q2", "/opt/cordon-q3", "/usr/cordon-q1"], paths
PY
        then ok "denial lines in C.UTF-8 quotes (‘…’, “…”, «…») name the path without the quotes"
        else not_ok "C.UTF-8 quotes" "$(cat "$tmp/quoted.json")"; fi

        # The list is capped: the rest is counted
        jrun many -- sh -c 'i=0; while [ $i -lt 40 ]; do echo "/usr/cordon-many-$i: Read-only file system"; i=$((i+1)); done; exit 1'
        valid "40 denial lines" "$tmp/many.json"
        [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["denials"]))' "$tmp/many.json")" = 32 ] &&
           [ "$(field "$tmp/many.json" denials_omitted)" = 8 ] &&
                ok "40 denials: 32 listed, denials_omitted 8" || not_ok "the cap" "$(head -c 600 "$tmp/many.json")"
        [ "$(field "$tmp/printed.json" denials_omitted)" = 0 ] && ok "control: one denial, denials_omitted 0" ||
                not_ok "control: denials_omitted" "$(cat "$tmp/printed.json")"

        jrun killed -- sh -c 'kill -9 $$'
        valid "killed by a signal" "$tmp/killed.json"
        [ "$(rc_of killed)" = 137 ] && [ "$(field "$tmp/killed.json" exit_code)" = null ] && [ "$(field "$tmp/killed.json" signal)" = 9 ] &&
                ok "killed by SIGKILL: exit_code null, signal 9, cordon exits 137" || not_ok "killed json" "$(cat "$tmp/killed.json")"
        python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); sys.exit(not any(x["kind"] == "signal" and x["rule"] == "SIGKILL" and x["path"] is None for x in o["denials"]))' "$tmp/killed.json" &&
                ok "killed by SIGKILL: denials lists the signal" || not_ok "signal in denials" "$(cat "$tmp/killed.json")"
        python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); sys.exit(not all(x["source"] == "kernel" for x in o["denials"] if x["kind"] == "signal"))' "$tmp/killed.json" &&
                ok "killed by SIGKILL: the signal's source is kernel (cordon saw it, not the output)" || not_ok "signal source" "$(cat "$tmp/killed.json")"

        for f in require success failure timeout denied missing killed; do [ "$(keys "$tmp/$f.json")" = "$same_keys" ] || same=0; done

        # stdin passes through under --json; a control with none
        out=$(echo piped-in | "$CORDON" run --json -- cat)
        [ "$(field /dev/stdin output <<<"$out")" = piped-in ] && ok "--json: stdin passes through (echo x | cordon run --json -- cat)" ||
                not_ok "stdin under --json" "$out"
        out=$("$CORDON" run --json -- cat < /dev/null)
        [ "$(field /dev/stdin output <<<"$out")" = "" ] && ok "control: with stdin /dev/null cat reads nothing" || not_ok "control: stdin" "$out"

        # stdout and stderr apart; bytes that are not UTF-8 come back exactly
        "$CORDON" run --json --separate-stderr -- sh -c 'printf "out\n"; printf "err\377\n" >&2; printf "\376x"' > "$tmp/sep.json"
        valid "--separate-stderr with bytes that are not UTF-8" "$tmp/sep.json"
        if python3 - "$tmp/sep.json" <<'PY'
import base64, json, sys
o = json.load(open(sys.argv[1]))
assert o["stderr"] == "err\ufffd\n", o
assert base64.b64decode(o["stderr_base64"]) == b"err\xff\n", o
assert o["output"] == "out\n\ufffdx" and base64.b64decode(o["output_base64"]) == b"out\n\xfex", o
assert o["output_bytes"] == 6 and o["stderr_bytes"] == 5, o
PY
        then ok "--separate-stderr: stdout and stderr apart, each with its exact bytes in base64"
        else not_ok "--separate-stderr" "$(cat "$tmp/sep.json")"; fi
        "$CORDON" run --json -- sh -c 'printf "out\n"; printf "err\n" >&2' > "$tmp/merged.json"
        [ "$(field "$tmp/merged.json" output)" = "out
err" ] && [ "$(field "$tmp/merged.json" stderr)" = null ] && [ "$(field "$tmp/merged.json" output_base64)" = null ] &&
                ok "control: without it the streams are merged, stderr null, no base64 for UTF-8" || not_ok "merged" "$(cat "$tmp/merged.json")"
        expect_rc "--separate-stderr without --json is refused" 125 "$CORDON" run --separate-stderr -- true

        # a denial seen on stderr alone still reads as one
        "$CORDON" run --json --separate-stderr -- touch "$outside/denied" > "$tmp/sepdenied.json"
        [ "$(field "$tmp/sepdenied.json" verdict)" = denied ] && [ "$(field "$tmp/sepdenied.json" output)" = "" ] &&
                ok "--separate-stderr: a denial written to stderr is still denied" || not_ok "separate denial" "$(cat "$tmp/sepdenied.json")"

        # a limit that fired is reported also when the command exits 0
        pids=$("$CORDON" probe --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["limits"]["processes"])')
        if [ "$pids" != none ]; then
                # a program that copes with refused forks (EAGAIN) and exits 0
                jrun pids --max-processes 8 -- /usr/bin/python3 -c '
import os, time
n = 0
for i in range(20):
    try:
        if os.fork() == 0:
            time.sleep(1)
            os._exit(0)
        n += 1
    except OSError:
        pass
print(n, "started")'
                valid "a pids limit the command survived" "$tmp/pids.json"
                [ "$(rc_of pids)" = 0 ] && [ "$(field "$tmp/pids.json" limit)" = processes ] && [ "$(field "$tmp/pids.json" verdict)" = ok ] &&
                   ! grep -q "^20 started" <<<"$(field "$tmp/pids.json" output)" &&
                        ok "forks refused by --max-processes 8, exit 0: limit processes, verdict ok" ||
                        not_ok "limit with exit 0" "$(cat "$tmp/pids.json")"
                jrun pids-ok --max-processes 64 -- sh -c 'i=0; while [ $i -lt 20 ]; do sleep 0.1 & i=$((i+1)); done; wait; exit 0'
                [ "$(rc_of pids-ok)" = 0 ] && [ "$(field "$tmp/pids-ok.json" limit)" = null ] &&
                        ok "control: 20 processes under --max-processes 64: no limit fired" ||
                        not_ok "control: pids" "$(cat "$tmp/pids-ok.json")"
        else
                # no pids cgroup for this user: the limit is refused,
                # never run unbounded (the refusal is a result object too)
                jrun pids-none --max-processes 8 -- true
                valid "--max-processes without a pids cgroup" "$tmp/pids-none.json"
                [ "$(rc_of pids-none)" = 125 ] && [ "$(field "$tmp/pids-none.json" verdict)" = refused ] &&
                   [ "$(field "$tmp/pids-none.json" error.kind)" = limits ] &&
                   grep -q "pids cgroup" <<<"$(field "$tmp/pids-none.json" error.message)" &&
                        ok "no pids cgroup here: --max-processes is refused (125, the reason named)" ||
                        not_ok "pids refusal" "$(cat "$tmp/pids-none.json")"
        fi
else
        skip "native results against the schema" "backend here: $native"
fi
[ $same = 1 ] && ok "every object has the same top-level fields" || not_ok "same fields" "want: $same_keys"

finish
