#!/usr/bin/env bash
# The webhook approval backend against a real HTTP server on unix sockets
# (webhook-server.py), which checks the request's signature with Python's
# hmac and signs its answers with another key: only a 2xx answer echoing the
# request id and digest, with a valid MAC under the answer key and not
# expired, decides; every other answer (an impostor's on the approver's
# address included), the timeout, TLS and transport failures deny; a missing
# key, or http://, refuses the session.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/approve-lib.sh"
tap_base approve-webhook
cd "$BASE" || exit 1
start_webhook

ask() { # ask PATH TIMEOUT_MS [ARGV...]
        local path=$1 timeout=$2
        shift 2
        "$DRIVER" --backend "$(hook bot "$path" "$timeout")" --ask bot -- "$@" 2>&1
}

# --- allow, and what was sent ---
out=$(ask /allow 5000 push "--token=tokSECRETvalue" origin)
expect "an allow that echoes id and digest grants" "$out" granted 1 bot
id=$(grep -o 'request_id=[0-9a-f]*' <<<"$out" | cut -d= -f2)
digest=$(grep -o ' digest=[0-9a-f]*' <<<"$out" | cut -d= -f2)
check "the server verified the signature (HMAC-SHA256 of the exact body under the key)" \
        "$PY" -c 'import json,sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in reqs if x["body"] and x["body"].get("request_id") == sys.argv[2]]
sys.exit(not (len(r) == 1 and r[0]["sig_ok"]))' "$WEBHOOK_LOG" "$id"
check "the body: type, version, ids, caller, command, redacted argv, created and expires = created + timeout" \
        "$PY" -c 'import json,sys
from datetime import datetime
reqs = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in reqs if x["body"] and x["body"].get("request_id") == sys.argv[2]][0]
b, h = r["body"], r["headers"]
assert list(b)[:10] == ["type", "version", "request_id", "session", "caller", "command", "argv_redacted",
                   "digest", "created", "expires"], list(b)
assert b["type"] == "cordon.approval_request" and b["version"] == 2
assert b["expires_ms"] == int(datetime.fromisoformat(b["expires"]).timestamp() * 1000)
assert b["digest"] == sys.argv[3] and len(b["request_id"]) == 32
assert b["session"] == "test-session" and b["caller"] == "session" and b["command"] == "tool"
assert b["argv_redacted"][0::2] == ["push", "origin"], b["argv_redacted"]
assert b["argv_redacted"][1].startswith("--token=<redacted 14 bytes, sha256:"), b["argv_redacted"]
assert b["argc"] == 3 and b["cwd"] and "cwd_dev" in b and "cwd_ino" in b and len(b["policy_sha256"]) == 64
assert "SECRET" not in r["raw"]
gap = datetime.fromisoformat(b["expires"]) - datetime.fromisoformat(b["created"])
assert abs(gap.total_seconds() - 5) < 0.1, gap
assert h["Content-Type"] == "application/json"
assert h["X-Cordon-Signature"].startswith("sha256=")' "$WEBHOOK_LOG" "$id" "$digest"

# --- what the approver is sent: every word, the environment, no secret ---
words=(push origin main)
for k in $(seq 4 200); do words+=("w$k"); done
words[150]=--force
words+=(--password hunter2 --passes 3)
out=$("$DRIVER" --env GH_TOKEN=ghp_notreallysecret --env LANG=C --backend "$(hook bot /allow 5000)" --ask bot -- \
        "${words[@]}" 2>&1)
id=$(grep -o 'request_id=[0-9a-f]*' <<<"$out" | cut -d= -f2)
check "a --force in word 151 of 204, the count, the environment (names and values), no password in clear" \
        "$PY" -c 'import json,sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in reqs if x["body"] and x["body"].get("request_id") == sys.argv[2]][0]
b = r["body"]
assert b["argc"] == 204 and len(b["argv_redacted"]) == 204, (b["argc"], len(b["argv_redacted"]))
assert b["argv_redacted"][150] == "--force"
assert b["argv_redacted"][201] == "<redacted 7 bytes, sha256:f52fbd32>", b["argv_redacted"][200:]
assert b["argv_redacted"][202:] == ["--passes", "3"], b["argv_redacted"][200:]
assert b["env_redacted"][1] == "LANG=C", b["env_redacted"]
assert b["env_redacted"][0].startswith("GH_TOKEN=<redacted 19 bytes, sha256:"), b["env_redacted"]
assert "hunter2" not in r["raw"] and "notreallysecret" not in r["raw"]' "$WEBHOOK_LOG" "$id"

# --- deny ---
out=$(ask /deny 5000 push)
expect "a deny denies" "$out" denied 0 bot
reason=$(res reason "$out")
if [[ $reason == *'no \e[31mway\e[0m\r\n'* ]] && ! grep -q $'\e' <<<"$out"; then
        ok "the webhook's reason is kept, its control bytes escaped"
else
        not_ok "the webhook's reason is kept, its control bytes escaped" "got: $out"
fi

# --- a slow webhook: the timeout denies, in time ---
out=$(ask /slow 600 push)
expect "no answer within the timeout is a timeout, and denies" "$out" timeout 0 bot
ms=$(res elapsed_ms "$out")
if [ -n "$ms" ] && [ "$ms" -ge 550 ] && [ "$ms" -lt 1100 ]; then
        ok "the call returned at the timeout (600 ms): ${ms} ms"
else
        not_ok "the call returned at the timeout (600 ms)" "elapsed: ${ms:-?} ms"
fi

# --- answers that must not decide ---
out=$(ask /wrong-id 5000 push)
expect "an allow with another request_id denies" "$out" error 0 bot
check "  ... saying so" grep -q "request_id is not this request's" <<<"$out"
out=$(ask /wrong-digest 5000 push)
expect "an allow with another digest denies" "$out" error 0 bot
check "  ... saying so" grep -q "digest is not this request's" <<<"$out"
out=$(ask /500 5000 push)
expect "an allow body under HTTP 500 denies" "$out" error 0 bot
check "  ... saying so" grep -q "HTTP 500" <<<"$out"
before=$(requests_to /allow)
out=$(ask /redirect 5000 push)
expect "a 302 to an allowing endpoint denies" "$out" error 0 bot
check "  ... saying it is a redirect" grep -q "redirect (HTTP 302), not followed" <<<"$out"
check "  ... and the redirect was not followed" test "$(requests_to /allow)" = "$before"
out=$(ask /malformed 5000 push)
expect "cut-off JSON denies" "$out" error 0 bot
check "  ... saying so" grep -q "not JSON" <<<"$out"
out=$(ask /duplicate 5000 push)
expect "a decision given twice (deny, then allow) denies" "$out" error 0 bot
out=$(ask /oversized 5000 push)
expect "a valid allow over 64 KiB (Content-Length) denies" "$out" error 0 bot
check "  ... saying so" grep -q "over 64 KiB" <<<"$out"
out=$(ask /oversized-stream 5000 push)
expect "a valid allow over 64 KiB (no length, cut while receiving) denies" "$out" error 0 bot
check "  ... saying so" grep -q "over 64 KiB" <<<"$out"

# --- the answer's signature: only the holder of the answer key decides ---
out=$(ask /unsigned 5000 push)
expect "an allow echoing id and digest, without a mac, denies" "$out" error 0 bot
check "  ... saying it is not signed" grep -q "not signed" <<<"$out"
out=$(ask /request-key 5000 push)
expect "an allow signed with the request key (not the answer key) denies" "$out" error 0 bot
check "  ... saying the mac is wrong" grep -q "mac is wrong" <<<"$out"
out=$(ask /flipped 5000 push)
expect "an allow carrying the mac of a deny denies" "$out" error 0 bot
out=$(ask /expired 5000 push)
expect "a signed allow read after its expires_ms denies" "$out" error 0 bot
check "  ... saying it expired" grep -q "has expired" <<<"$out"
out=$(ask /late-expiry 5000 push)
expect "a signed allow holding past the request's expiry denies" "$out" error 0 bot
check "  ... saying so" grep -q "later than the request's" <<<"$out"
out=$(WEBHOOK_TEST_ANSWER_KEY=not-the-servers-answer-key ask /allow 5000 push)
expect "a session holding another answer key than the approver's denies the approver's allow" "$out" error 0 bot

# --- an impostor on the approver's address (what an agent that binds it can
# do): it reads the request but holds no key; its allow denies ---
IMP=$BASE/impostor
"$PY" "$HERE/webhook-server.py" --impostor "$BASE/imp-port" "$BASE/imp.log" "$IMP" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$BASE/imp-port" ] && break; sleep 0.05; done
out=$("$DRIVER" --backend "name=bot,type=webhook,url=unix:$IMP/allow.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=3000" \
        --ask bot -- push --force 2>&1)
expect "an impostor answering allow (echoing id and digest, its own mac) denies" "$out" error 0 bot
check "  ... and the impostor was asked (the attempt was real)" grep -q '"path": "/allow"' "$BASE/imp.log"
out=$(ask /allow 5000 push --force)
expect "  ... while the real approver's allow grants (control)" "$out" granted 1 bot

# --- the key ---
out=$(WEBHOOK_TEST_KEY=not-the-servers-key ask /allow 5000 push)
expect "signed with another key: the server refuses (401), which denies" "$out" error 0 bot
check "  ... and the server's hmac check failed" "$PY" -c 'import json,sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(not (reqs[-1]["path"] == "/allow" and not reqs[-1]["sig_ok"]))' "$WEBHOOK_LOG"
out=$(env -u WEBHOOK_TEST_KEY "$DRIVER" --backend "$(hook bot /allow 5000)" --ask bot -- push 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "ENOKEY" <<<"$out" && grep -q "WEBHOOK_TEST_KEY is not set" <<<"$out"; then
        ok "a missing secret_env refuses the session at start"
else
        not_ok "a missing secret_env refuses the session at start" "rc=$rc" "$out"
fi
out=$(WEBHOOK_TEST_KEY= "$DRIVER" --backend "$(hook bot /allow 5000)" --ask bot -- push 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "ENOKEY" <<<"$out" && grep -q "is empty" <<<"$out"; then
        ok "an empty secret_env refuses the session at start"
else
        not_ok "an empty secret_env refuses the session at start" "rc=$rc" "$out"
fi

# --- transports ---
before=$(wc -l < "$WEBHOOK_LOG")
for url in ftp://127.0.0.1/x "$URL/allow"; do
        out=$("$DRIVER" --backend "name=bot,type=webhook,url=$url,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=500" \
                --ask bot -- push 2>&1)
        rc=$?
        if [ $rc = 2 ] && grep -q "must be https:// or unix:/PATH" <<<"$out"; then
                ok "a url ${url%%:*}:// refuses the session at start"
        else
                not_ok "a url ${url%%:*}:// refuses the session at start" "rc=$rc" "$out"
        fi
done
check "  ... and the http server was never asked" test "$(wc -l < "$WEBHOOK_LOG")" = "$before"
out=$("$DRIVER" --backend "name=bot,type=webhook,url=unix:$SOCKS/same.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_KEY,timeout=500" \
        --ask bot -- push 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "hold the same key" <<<"$out"; then
        ok "one key for requests and answers refuses the session at start"
else
        not_ok "one key for requests and answers refuses the session at start" "rc=$rc" "$out"
fi
out=$("$DRIVER" --backend "name=bot,type=webhook,url=${URL/http:/https:}/allow,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=3000" \
        --ask bot -- push 2>&1)
expect "https to a server that speaks no TLS denies" "$out" error 0 bot
check "  ... saying TLS failed" grep -q "TLS failed" <<<"$out"
closed=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
out=$("$DRIVER" --backend "name=bot,type=webhook,url=https://127.0.0.1:$closed/allow,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=3000" \
        --ask bot -- push 2>&1)
expect "nobody listening denies" "$out" error 0 bot

# --- several threads at once ---
out=$("$DRIVER" --threads 8 --backend "$(hook bot /allow 5000)" --ask bot -- push 2>&1)
if [ "$(grep -c '^outcome=granted allow=1 backend=bot' <<<"$out")" = 8 ]; then
        ok "8 threads asking at once are all granted"
else
        not_ok "8 threads asking at once are all granted" "$out"
fi

finish
