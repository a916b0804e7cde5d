#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Helpful errors and hints (issue 12): a workspace that is missing, a file
# or a system directory is one line and a refusal; under --net none a
# failed connection or resolution says the network is off, and fails at
# once; a cache under HOME names the built-in profile that allows it;
# `cordon why` says allow exactly when the real attempt inside `cordon run`
# succeeds; `--json` lists the denials.
#
# Every denial is the real attempt inside the sandbox with an unconfined
# control that succeeds. Needs: $CORDON, bash, python3, git. Root or not.
set -u

. "$(dirname "$0")/tap.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# The sandbox's /tmp is private: what both sides look at is under /var/tmp.
unset TMPDIR npm_config_fetch_retries
BASE=$(mktemp -d /var/tmp/cordon-hints.XXXXXX)
chmod 755 "$BASE"
PIDS=()
cleanup() {
        for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
        rm -rf "$BASE" "/tmp/cordon-hints-$$"
}
trap cleanup EXIT

H=$BASE/home
WS=$BASE/ws
mkdir -p "$H/.ssh" "$H/.npm" "$H/.cache/pip" "$WS"
echo "cordon-test-key" > "$H/.ssh/id_ed25519"
printf '#!/bin/sh\necho tool\n' > "$H/.ssh/tool"
chmod 755 "$H/.ssh/tool"
echo "# rc" > "$H/.bashrc"
git -C "$WS" init -q
echo data > "$WS/file"
echo "# envrc" > "$WS/.envrc"
echo secret > "$WS/secret"
echo keep > "$WS/keep"
printf '#!/bin/sh\necho script\n' > "$WS/script.sh"
chmod 755 "$WS/script.sh"
touch "$BASE/afile"

cr() { (cd "$WS" && HOME=$H "$CORDON" run "$@"); }
field() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("" if v is None else v)' "$1"; }
lines() { [ -z "$1" ] && echo 0 || printf '%s\n' "$1" | wc -l; }

native=$("$CORDON" probe --json 2>/dev/null | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["selected"])')

# ---- the workspace ----------------------------------------------------------

err=$(cr --workspace "$BASE/nope/x" -- sh -c 'echo ran' 2>&1 >/dev/null); rc=$?
out=$(cr --workspace "$BASE/nope/x" -- sh -c 'echo ran' 2>/dev/null)
if [ $rc = 125 ] && [ "$(lines "$err")" = 1 ] && grep -q "workspace $BASE/nope/x .*does not exist" <<<"$err" &&
   [ -z "$out" ]; then
        ok "a workspace that does not exist: one line that says so, 125, nothing ran"
else
        not_ok "missing workspace" "rc=$rc" "stderr: $err" "stdout: $out"
fi
err=$(cr --workspace "$BASE/afile" -- true 2>&1); rc=$?
[ $rc = 125 ] && [ "$(lines "$err")" = 1 ] && grep -q "$BASE/afile .*is not a directory" <<<"$err" &&
        ok "a workspace that is a file: one line that says so, 125" || not_ok "file workspace" "rc=$rc" "$err"
if [ "$native" = native ] || [ "$native" = bwrap ]; then
        out=$(cr --workspace "$WS" -- sh -c 'echo ran' 2>&1); rc=$?
        [ $rc = 0 ] && [ "$out" = ran ] && ok "control: the existing workspace runs" ||
                not_ok "control: workspace" "rc=$rc" "$out"

        err=$(cd /etc && "$CORDON" run -- sh -c 'echo ran' 2>&1); rc=$?
        if [ $rc = 125 ] && [ "$(lines "$err")" = 1 ] && grep -q "/etc is a system directory" <<<"$err" &&
           grep -q -- "--workspace /etc" <<<"$err" && ! grep -q '^ran' <<<"$err"; then
                ok "the current directory /etc as the workspace: warned, refused (125), nothing ran"
        else
                not_ok "cwd /etc" "rc=$rc" "$err"
        fi
        j=$(cd /usr/share && "$CORDON" run --json -- true 2>/dev/null); rc=$?
        [ $rc = 125 ] && [ "$(field exit_code <<<"$j")" = 125 ] &&
           "$PY" -c 'import json,sys; e=json.loads(sys.argv[1])["error"]; sys.exit(not (e["kind"]=="policy" and "system directory" in e["message"]))' "$j" &&
                ok "cwd /usr/share with --json: the refusal as the one object" || not_ok "cwd /usr/share json" "rc=$rc" "$j"
        out=$(cd /etc && "$CORDON" run --workspace /etc -- sh -c 'echo ran' 2>&1); rc=$?
        [ $rc = 0 ] && [ "$out" = ran ] && ok "control: --workspace /etc given explicitly runs" ||
                not_ok "control: explicit /etc" "rc=$rc" "$out"
        out=$(cd /etc && "$CORDON" run --mode read-only -- sh -c 'echo ran' 2>&1); rc=$?
        [ $rc = 0 ] && [ "$out" = ran ] && ok "control: /etc under read-only (nothing writable) runs" ||
                not_ok "control: read-only in /etc" "rc=$rc" "$out"
else
        skip "the workspace runs" "no sandbox backend here: $native"
fi

if [ "$native" != native ]; then
        skip "the native runner's hints, why against real runs, denials" "backend here: $native"
        finish
        exit
fi

# ---- no network: said, and at once -----------------------------------------

# A server on the host's loopback: reachable unconfined, not from --net none.
"$PY" - "$BASE/port" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); c.sendall(b"hello\n"); c.close()
PY
PIDS+=($!)
for _ in $(seq 50); do [ -s "$BASE/port" ] && break; sleep 0.1; done
PORT=$(cat "$BASE/port")
connect="import socket; s=socket.create_connection(('127.0.0.1', $PORT), 5); print(s.recv(10).decode().strip())"
if out=$("$PY" -c "$connect" 2>&1) && [ "$out" = hello ]; then
        ok "control: unconfined, the host's 127.0.0.1:$PORT answers"
        err=$(cr -- "$PY" -c "$connect" 2>&1 >/dev/null); rc=$?
        [ $rc != 0 ] && grep -q 'hint: the network is off (--net none' <<<"$err" && grep -q -- '--net host' <<<"$err" &&
                ok "the same connection under --net none fails and the hint says the network is off, and --net host" ||
                not_ok "net hint" "rc=$rc" "$err"
        j=$(cr --json -- "$PY" -c "$connect" 2>/dev/null)
        "$PY" -c '
import json, sys
o = json.loads(sys.argv[1])
d = [x for x in o["denials"] if x["kind"] == "network"]
sys.exit(not (d and d[0]["op"] == "connect" and d[0]["mechanism"] == "netns" and any("--net host" in h for h in o["hints"])))' "$j" &&
                ok "--json: a network denial and the hint" || not_ok "net json" "$j"
        out=$(cr --net host -- "$PY" -c "$connect" 2>&1); rc=$?
        [ $rc = 0 ] && [ "$out" = hello ] && ok "control: --net host connects, no hint" || not_ok "control: --net host" "rc=$rc" "$out"
        "$CORDON" why --host 127.0.0.1 --port "$PORT" >/dev/null; w1=$?
        "$CORDON" why --net host --host 127.0.0.1 --port "$PORT" >/dev/null; w2=$?
        [ $w1 = 1 ] && [ $w2 = 0 ] && ok "why --host agrees: deny under --net none, allow with --net host (as the connections did)" ||
                not_ok "why --host" "none: $w1, host: $w2"
else
        not_ok "control: loopback server" "$out"
fi

# Name resolution fails at once: nothing is sent (no route), nothing waits.
start=$(date +%s)
err=$(cr -- getent hosts cordon-hints.example.org 2>&1); rc=$?
took=$(($(date +%s) - start))
[ $rc != 0 ] && [ $took -lt 5 ] && ok "getent hosts under --net none fails in ${took}s" || not_ok "getent" "rc=$rc took=${took}s" "$err"

# npm's 70 s of retries on a resolution that failed: cut under --net none.
out=$(cr -- sh -c 'echo "retries=$npm_config_fetch_retries"' 2>&1)
out2=$(cr --net host -- sh -c 'echo "retries=$npm_config_fetch_retries"' 2>&1)
out3=$(cr --setenv npm_config_fetch_retries=3 -- sh -c 'echo "retries=$npm_config_fetch_retries"' 2>&1)
[ "$out" = retries=0 ] && [ "$out2" = retries= ] && [ "$out3" = retries=3 ] &&
        ok "npm_config_fetch_retries=0 under --net none only, and the caller's value wins" ||
        not_ok "fetch retries" "$out" "$out2" "$out3"
if command -v npm >/dev/null; then
        mkdir -p "$BASE/npmws"
        echo '{"name":"x","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}}' > "$BASE/npmws/package.json"
        start=$(date +%s)
        err=$(cd "$BASE/npmws" && HOME=$H "$CORDON" run --profile node --timeout 60 -- npm install --no-audit --no-fund 2>&1); rc=$?
        took=$(($(date +%s) - start))
        [ $rc != 0 ] && [ $rc != 124 ] && [ $took -lt 20 ] && grep -q 'hint: the network is off' <<<"$err" &&
                ok "npm install under --net none fails in ${took}s (not 70), with the network hint" ||
                not_ok "npm install" "rc=$rc took=${took}s" "${err: -1500}"
else
        skip "npm install under --net none" "no npm"
fi

# ---- caches under HOME ------------------------------------------------------

for c in "npm .npm node" "pip .cache/pip python"; do
        set -- $c
        tool=$1 dir=$2 prof=$3
        if echo x >> "$H/$dir/control"; then
                ok "control: unconfined, $tool's cache $H/$dir is writable"
        else
                not_ok "control: $tool cache"
                continue
        fi
        err=$(cr -- sh -c "echo x >> '$H/$dir/probe'" 2>&1); rc=$?
        [ $rc != 0 ] && grep -q "hint: the path under HOME that the output names (denials\[0\]) is a tool's cache under HOME.*built-in profile $prof .*allows it: cordon run --profile $prof " <<<"$err" &&
                ok "writing $tool's cache under the default profile fails and the hint names --profile $prof" ||
                not_ok "$tool cache hint" "rc=$rc" "$err"
        err=$(cr --profile "$prof" -- sh -c "echo x >> '$H/$dir/probe'" 2>&1); rc=$?
        [ $rc = 0 ] && ! grep -q hint <<<"$err" && ok "--profile $prof writes it, no hint" || not_ok "--profile $prof" "rc=$rc" "$err"
done

# ---- why says allow iff the real attempt succeeds --------------------------

attempt() { # OP PATH: the shell command that does OP on PATH
        case $1 in
        read) echo "cat '$2' >/dev/null" ;;
        write) echo "echo x >> '$2'" ;;
        exec) echo "'$2' -c true 2>/dev/null || '$2' >/dev/null" ;;
        esac
}
TMPX=/tmp/cordon-hints-$$
# FLAGS (one word, , for none) OP PATH
cases="
,|write|$WS/file
,|write|$WS/.envrc
,|write|$WS/.git/config
,|write|$TMPX
,|write|$H/.bashrc
,|read|$H/.ssh/id_ed25519
,|read|/etc/passwd
,|write|$H/.npm/x
--profile=node|write|$H/.npm/x
--mode=read-only|write|$WS/file
--mode=read-only|write|$TMPX
--mode=read-only|read|$WS/file
--isolation=light|write|$WS/.envrc
--isolation=light|read|$H/.ssh/id_ed25519
,|exec|$H/.ssh/tool
,|exec|/bin/sh
,|exec|$WS/script.sh
--deny-read=$WS/secret|read|$WS/secret
--protect=$WS/keep|write|$WS/keep
,|write|~/.bashrc
"
agree=0 total=0
while IFS='|' read -r flags op path; do
        [ -n "$flags" ] || continue
        fl=()
        [ "$flags" = , ] || fl=("$flags")
        real=${path/#\~/$H}
        why=$(cd "$WS" && HOME=$H "$CORDON" why "${fl[@]}" --path "$path" --op "$op" 2>&1); wrc=$?
        (cd "$WS" && HOME=$H "$CORDON" run "${fl[@]}" -- sh -c "$(attempt "$op" "$real")" >/dev/null 2>&1); rrc=$?
        total=$((total + 1))
        if [ $wrc = 1 ]; then
                # a denial counts only if the same attempt works unconfined
                if ! (cd "$WS" && HOME=$H sh -c "$(attempt "$op" "$real")" >/dev/null 2>&1); then
                        skip "why $flags $op $path: deny" "the control fails unconfined here"
                        continue
                fi
        fi
        if { [ $wrc = 0 ] && [ $rrc = 0 ]; } || { [ $wrc = 1 ] && [ $rrc != 0 ]; }; then
                agree=$((agree + 1))
                ok "why ${fl[*]} --op $op $path: $(sed -n 1p <<<"$why" | cut -d: -f1), and the real attempt $([ $rrc = 0 ] && echo succeeds || echo fails)"
        else
                not_ok "why ${fl[*]} --op $op $path disagrees with the run" "why (rc $wrc): $why" "run rc: $rrc"
        fi
done <<<"$cases"
diag "why agreed with $agree of $total real attempts"

# ---- profile show --effective: what the run applies -------------------------

eff() { (cd "$WS" && HOME=$H "$CORDON" profile show --effective --json "$@"); }
if e=$(eff node) && "$PY" -c '
import json, sys
o = json.loads(sys.argv[1]); h, ws = sys.argv[2], sys.argv[3]
deny = [d["path"] for d in o["read_deny"] if d["applies"]]
ok = (h + "/.ssh" in deny and ws + "/.envrc" in o["protected"] and ".envrc" in o["write_gate"]["names"] and
      h + "/.npm" in o["write_gate"]["lifted"] and h + "/.npm" in o["writable_roots"] and
      "npm_config_fetch_retries=0" in o["environment"] and "NODE_ENV=development" in o["environment"])
sys.exit(not ok)' "$e" "$(cd "$H" && pwd -P)" "$(cd "$WS" && pwd -P)"; then
        ok "profile show --effective node: ~/.ssh hidden, .envrc protected and a gate name, ~/.npm writable and lifted, the environment"
else
        not_ok "profile show --effective" "$e"
fi
want=$(eff default | "$PY" -c 'import json,sys; print(" ".join(sorted(e.split("=")[0] for e in json.load(sys.stdin)["environment"])))')
got=$(cr -- /usr/bin/env | cut -d= -f1 | sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$want" ] && [ "$want" = "$got" ] && ok "profile show --effective: its environment is the one the command gets ($want)" ||
        not_ok "effective environment" "shown: $want" "inside: $got"
out=$(cd "$WS" && HOME=$H "$CORDON" profile show --effective default); rc=$?
[ $rc = 0 ] && grep -q "^read-deny" <<<"$out" && grep -q "^  $(cd "$H" && pwd -P)/.ssh$" <<<"$out" && grep -q "^write gate, by name" <<<"$out" &&
        ok "profile show --effective in words: read-deny, the write gate" || not_ok "effective text" "$out"
err=$("$CORDON" profile list --effective 2>&1); rc=$?
[ $rc = 125 ] && grep -q "only for .cordon profile show" <<<"$err" && ok "--effective with another action: refused" ||
        not_ok "--effective list" "rc=$rc" "$err"

# ---- --json denials ---------------------------------------------------------

j=$(cr --json -- sh -c "cat '$H/.ssh/id_ed25519'; echo x >> '$H/.bashrc'; exit 1" 2>/dev/null)
"$PY" -c '
import json, sys
o = json.loads(sys.argv[1]); h = sys.argv[2]
d = {x["path"]: x for x in o["denials"] if x["kind"] == "path"}
k = d.get(h + "/.ssh/id_ed25519"); b = d.get(h + "/.bashrc")
sys.exit(not (o["verdict"] == "denied" and k and k["op"] == "read" and k["rule"] == "/groups/credentials" and
              k["mechanism"] in ("landlock", "mount") and b and b["op"] == "write" and b["rule"] == "/groups/persistence" and
              b["mechanism"] == "mount"))' "$j" "$(cd "$H" && pwd -P)" &&
        ok "--json denials: the key read (credentials) and the .bashrc write (persistence), with rule and mechanism" ||
        not_ok "denials" "$j"
j=$(cr --json -- sh -c 'echo x >> .envrc; mkdir .vscode; exit 1' 2>/dev/null)
"$PY" -c '
import json, sys
o = json.loads(sys.argv[1]); ws = sys.argv[2]
d = {x["path"]: x for x in o["denials"] if x["kind"] == "path"}
e, v = d.get(ws + "/.envrc"), d.get(ws + "/.vscode")
sys.exit(not (e and e["op"] == "write" and e["mechanism"] == "write-gate" and v and v["op"] == "write"))' "$j" "$(cd "$WS" && pwd -P)" &&
        ok "--json denials: relative names (sh's .envrc, mkdir's .vscode) taken in the directory the command ran in" ||
        not_ok "relative denials" "$j"
if (cd "$WS" && mkdir .vscode && rmdir .vscode && echo x >> .envrc); then
        ok "control: unconfined, the same mkdir and write in the workspace work"
else
        not_ok "control: relative names"
fi
j=$(cr --json --deny-read "$WS/secret" -- cat "$WS/secret" 2>/dev/null)
"$PY" -c '
import json, sys
o = json.loads(sys.argv[1])
sys.exit(not any(x["kind"] == "path" and x["path"].endswith("/secret") and x["rule"] == "--deny-read" for x in o["denials"]))' "$j" &&
        ok "--json denials: a --deny-read names the flag as its rule" || not_ok "deny-read denial" "$j"
j=$(cr --json -- sh -c 'echo "GET https://registry.example.org/pkg: Permission denied"; exit 1' 2>/dev/null)
"$PY" -c 'import json,sys; o=json.loads(sys.argv[1]); sys.exit(o["verdict"] != "denied" or any(x["kind"] == "path" for x in o["denials"]))' "$j" &&
        ok "a URL on a denial line is not listed as a path" || not_ok "url denial" "$j"
j=$(cr --json -- sh -c "cat '$WS/file'" 2>/dev/null)
[ "$(field denials <<<"$j")" = "[]" ] && [ "$(field hints <<<"$j")" = "[]" ] &&
        ok "control: a run that succeeds lists no denials and no hints" || not_ok "no denials" "$j"
j=$(cr --json --timeout 1 -- sleep 10 2>/dev/null)
"$PY" -c '
import json, sys
o = json.loads(sys.argv[1])
sys.exit(not any(x["kind"] == "limit" and x["rule"] == "limits.timeout" and x["path"] is None for x in o["denials"]))' "$j" &&
        ok "--json denials: the timeout that ended the command" || not_ok "timeout denial" "$j"
j=$(cr --json -- sh -c 'kill -KILL $$' 2>/dev/null)
"$PY" -c '
import json, sys
o = json.loads(sys.argv[1])
sys.exit(not any(x["kind"] == "signal" and x["rule"] == "SIGKILL" for x in o["denials"]))' "$j" &&
        ok "--json denials: the signal that ended the command" || not_ok "signal denial" "$j"

finish
