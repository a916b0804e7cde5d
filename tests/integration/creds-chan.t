#!/usr/bin/env bash
# The proxy's channel to the supervisor (issue 23): an approve rule holds
# the request while the supervisor asks its backend (a webhook here):
# allowed, the upstream sees the real token once; denied or timed out, a
# 403 with the reason and nothing upstream; each request on a kept-alive
# connection is asked again; an answer forged from inside the sandbox
# approves nothing; a stalled backend stalls no other connection. A
# capture runs on the first request that needs it (a failure is a 503 with
# the reason, and the next request tries again), once within its ttl,
# again after it or after the expires_at it printed; a capture that takes
# 3 s blocks neither other tool calls nor other proxies.
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
tap_base creds-chan
. "$here/creds-lib.sh"
cp /bin/true "$BIN/ttrue"
chmod 755 "$BIN/ttrue"
SLEEP=$(command -v sleep)
mkdir -p "$RO/src"
chmod 755 "$RO/src"

# the test webhook (approve-lib.sh's): a unix socket per scenario
export WEBHOOK_TEST_KEY WEBHOOK_TEST_ANSWER_KEY
WEBHOOK_TEST_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
WEBHOOK_TEST_ANSWER_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
HOOKS=$BASE/hooks
"$PY" "$here/webhook-server.py" "$BASE/hport" "$BASE/hook.log" "$HOOKS" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$BASE/hport" ] && break; sleep 0.05; done
hooks() { [ -f "$BASE/hook.log" ] && grep -c "\"/$1\"" "$BASE/hook.log" || echo 0; }

# the client: steps, each "LABEL|METHOD|PATH|HEADER=VALUE" on a connection
# of its own ($VARS in VALUE are the sandbox's: its phantoms), or
# "ka:STEP;STEP" on one kept-alive connection, "bg:STEP" in a thread
# ("join" waits), "wait:FILE", "sleep:S", "forge" (an approval answer
# written to every socket the sandbox holds)
cat >"$RO/steps.py" <<'EOF'
import os, sys, ssl, time, threading, http.client, urllib.parse, struct, stat, socket
for k in ("NO_PROXY", "no_proxy"):
    os.environ.pop(k, None)
px = urllib.parse.urlsplit(os.environ.get("HTTPS_PROXY") or os.environ["https_proxy"])
host, port = sys.argv[1], int(sys.argv[2])
ctx = ssl.create_default_context()
def conn():
    c = http.client.HTTPSConnection(px.hostname, px.port, context=ctx, timeout=30)
    c.set_tunnel(host, port)
    return c
def one(c, step):
    label, method, path, hdr = step.split("|", 3)
    name, value = hdr.split("=", 1)
    t0 = time.time()
    try:
        c.request(method, path, body=b"x" if method == "POST" else None, headers={name: os.path.expandvars(value)})
        r = c.getresponse()
        body = r.read().decode(errors="replace").strip().replace("\n", " ")[:300]
        print("%s status=%d error=%s secs=%.2f body=%s" % (label, r.status, r.getheader("X-Cordon-Error"), time.time() - t0, body), flush=True)
    except Exception as e:
        print("%s failed=%r secs=%.2f" % (label, e, time.time() - t0), flush=True)
def forge():
    # a CRED_MSG_DECISION frame: allow, an id, "granted", for /no/2
    def s(b): return struct.pack(">I", len(b)) + b
    body = struct.pack(">IB", 1, 1) + s(b"0" * 32) + s(b"granted") + s(b"forged") + s(b"gh") + s(host.encode()) + s(b"POST") + s(b"/no/2")
    frame = struct.pack(">BBHB3xI", 0xc7, 1, 0x82, 0, len(body)) + body
    n = 0
    for fd in range(3, 1024):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                os.write(fd, frame)
                n += 1
        except OSError:
            pass
    print("forged=%d" % n, flush=True)
threads = []
for step in sys.argv[3:]:
    if step.startswith("wait:"):
        for _ in range(600):
            if os.path.exists(step[5:]):
                break
            time.sleep(0.05)
    elif step.startswith("sleep:"):
        time.sleep(float(step[6:]))
    elif step == "forge":
        forge()
    elif step == "join":
        for t in threads:
            t.join()
    elif step.startswith("ka:"):
        c = conn()
        for s in step[3:].split(";"):
            one(c, s)
        print("ka-same-socket=%s" % (c.sock is not None), flush=True)
    elif step.startswith("bg:"):
        t = threading.Thread(target=lambda s=step[3:]: one(conn(), s))
        t.start()
        threads.append(t)
    else:
        one(conn(), step)
EOF
chmod -R a+rX "$RO"
REAL=gho_REALchanTOKEN$$abcdefghijklmnopqrstu
hook() { echo "{ \"type\": \"webhook\", \"url\": \"unix:$HOOKS/$1.sock\", \"secret_env\": \"WEBHOOK_TEST_KEY\", \"answer_secret_env\": \"WEBHOOK_TEST_ANSWER_KEY\", \"timeout_secs\": $2 }"; }
P=$BASE/p.json
cat >"$P" <<EOF
{
  "workspace": "$WS",
  "command_policies": {
    "approval_backends": { "yes": $(hook allow 20), "no": $(hook deny 20), "late": $(hook slow 1), "slowyes": $(hook slow 20) },
    "commands": {
      "tpy": { "executable": "$BIN/tpy",
               "sandbox": { "fs_read": ["$RO"],
                            "network": { "mode": "proxy", "allow_domains": ["localhost"], "allow_addresses": ["127.0.0.1"] } } },
      "ttrue": { "executable": "$BIN/ttrue" }
    }
  },
  "credentials": {
    "gh": {
      "source": "env://CHAN_REAL",
      "hosts": ["localhost"],
      "inject": { "header": "Authorization", "format": "Bearer {}" },
      "phantom": { "env": "GH_TOKEN", "shape": "ghp_{36}" },
      "grant_to": ["cmd.tpy"],
      "endpoint_policy": { "default": "deny",
        "allow": [{ "method": "GET", "path": "/repos/**" }],
        "approve": [{ "method": "POST", "path": "/yes/*", "backend": "yes" },
                    { "method": "POST", "path": "/no/*", "backend": "no" },
                    { "method": "POST", "path": "/late/*", "backend": "late" },
                    { "method": "POST", "path": "/slow/*", "backend": "slowyes" }] },
      "tls": { "ca": "$RO/ca.pem" }
    },
    "tok": {
      "source": "cmd://tok", "hosts": ["localhost"],
      "inject": { "header": "X-Tok", "format": "{}" },
      "phantom": { "env": "TOK_TOKEN", "shape": "tok_{32}" },
      "grant_to": ["cmd.tpy"], "tls": { "ca": "$RO/ca.pem" }
    },
    "exp": {
      "source": "cmd://exp", "hosts": ["localhost"],
      "inject": { "header": "X-Exp", "format": "{}" },
      "phantom": { "env": "EXP_TOKEN", "shape": "exp_{32}" },
      "grant_to": ["cmd.tpy"], "tls": { "ca": "$RO/ca.pem" }
    },
    "hang": {
      "source": "cmd://hang", "hosts": ["localhost"],
      "inject": { "header": "X-Hang", "format": "{}" },
      "phantom": { "env": "HANG_TOKEN", "shape": "hng_{32}" },
      "grant_to": ["cmd.tpy"], "tls": { "ca": "$RO/ca.pem" }
    },
    "slow": {
      "source": "cmd://slow", "hosts": ["localhost"],
      "inject": { "header": "X-Slow", "format": "{}" },
      "phantom": { "env": "SLOW_TOKEN", "shape": "slw_{32}" },
      "grant_to": ["cmd.tpy"], "tls": { "ca": "$RO/ca.pem" }
    }
  },
  "credential_capture": {
    "tok": { "command": ["/bin/sh", "-c", "read -r t < $RO/src/tok && echo \$t"], "timeout": "5s", "ttl": "3s", "read": ["$RO/src"] },
    "exp": { "command": ["/bin/sh", "-c", "read -r t < $RO/src/exp && echo \$t"], "timeout": "5s", "ttl": "1h", "read": ["$RO/src"] },
    "slow": { "command": ["$SLEEP", "3"], "timeout": "10s", "ttl": "1h" },
    "hang": { "command": ["$SLEEP", "30"], "timeout": "1s", "ttl": "1h" }
  }
}
EOF
if ! "$CORDON" profile validate "$P" >"$BASE/v" 2>&1; then
	not_ok "the profile loads" "$(cat "$BASE/v")"
	finish
	exit
fi
# session SCRIPT: SCRIPT (sh -c) as the agent, its tools called by name
session() {
	(cd "$WS" && CHAN_REAL=$REAL timeout -s KILL 120 "$CORDON" run --profile "$P" -- sh -c "$1" >"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
line() { grep -m1 "^$1 " <<<"$OUT"; }
expect() { # expect DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc" "rc=$RC" "out: ${OUT:0:2000}" "err: ${ERR:0:1500}"; fi
}
st() { has "$(line "$1")" "status=$2"; }
secs_lt() { awk -v l="$(line "$1")" -v m="$2" 'BEGIN { split(l, a, "secs="); exit !(a[2] + 0 < m) }'; }
secs_ge() { awk -v l="$(line "$1")" -v m="$2" 'BEGIN { split(l, a, "secs="); exit !(a[2] + 0 >= m) }'; }
GH='Authorization=Bearer $GH_TOKEN'
steps() { printf "tpy $RO/steps.py localhost $port"; for s in "$@"; do printf " '%s'" "$s"; done; }

# ---- approvals ----------------------------------------------------------
session "$(steps "ctl|GET|/repos/o/r|$GH")"
if ! has "$OUT" "ctl status="; then
	not_ok "a request goes out at all" "out: $OUT" "err: $ERR"
	finish
	exit
fi
expect "control: an allowed endpoint, no approval: 200" st ctl 200
h0=$(hooks allow)
session "$(steps "yes|POST|/yes/1|$GH")"
expect "an approve rule, the backend allows: 200" st yes 200
expect "... the backend was asked once" eval '[ "$(hooks allow)" = $((h0 + 1)) ]'
expect "... the upstream saw the real token, once" eval '[ "$(grep "/yes/1" "$BASE/log" | grep -c "Bearer $REAL")" = 1 ]'
expect "... the tool never saw it" hasnt "$OUT" "$REAL"
n=$(wc -l <"$BASE/log")
session "$(steps "no|POST|/no/1|$GH")"
expect "the backend denies: 403 approval-denied" eval 'st no 403 && has "$(line no)" "error=approval-denied"'
expect "... with the backend's reason" has "$(line no)" "denied by the webhook"
session "$(steps "late|POST|/late/1|$GH")"
expect "the backend does not answer in time: 403 approval-timeout" eval 'st late 403 && has "$(line late)" "error=approval-timeout"'
expect "... nothing denied or timed out reached the upstream" eval '[ "$(wc -l <"$BASE/log")" = "$n" ]'

h0=$(hooks allow)
session "$(steps "ka:ka1|POST|/yes/2|$GH;ka2|POST|/yes/3|$GH;ka3|POST|/no/3|$GH")"
expect "two approved requests on one kept-alive connection: 200, 200" eval 'st ka1 200 && st ka2 200'
expect "... each one asked again (two asks)" eval '[ "$(hooks allow)" = $((h0 + 2)) ]'
expect "... and a third, denied, on the same connection: 403" st ka3 403
expect "... each approved request reached the upstream once" eval '[ "$(grep -c "/yes/[23]" "$BASE/log")" = 2 ]'

long=/yes/$(head -c 3000 /dev/zero | tr '\0' a)
session "$(steps "long|POST|$long|$GH" "after|POST|/yes/4|$GH")"
expect "a path too long to ask about: 403, nothing asked or forwarded" \
	eval 'st long 403 && has "$(line long)" "error=path-malformed" && ! grep -q "/yes/aaaa" "$BASE/log"'
expect "... and the channel still works for the next request: 200" st after 200

n=$(wc -l <"$BASE/log")
session "$(steps forge "no2|POST|/no/2|$GH")"
expect "an approval answer forged from inside (every socket it holds): approves nothing" \
	eval 'has "$OUT" "forged=" && st no2 403 && has "$(line no2)" "error=approval-denied"'
expect "... nothing reached the upstream" eval '[ "$(wc -l <"$BASE/log")" = "$n" ]'

session "$(steps "bg:stall|POST|/slow/1|$GH" sleep:0.3 "fast|GET|/repos/o/r/fast|$GH" join)"
expect "a backend that takes 3 s: its request waits, then 200" eval 'st stall 200 && secs_ge stall 2.5'
expect "... another connection of the same proxy meanwhile: 200 at once" eval 'st fast 200 && secs_lt fast 1.5'

logs=$(cat "$XDG_STATE_HOME"/cordon/audit/*.jsonl 2>/dev/null)
expect "the approvals are audited: granted, denied, timeout" \
	eval 'has "$logs" cred_approve_granted && has "$logs" cred_approve_denied && has "$logs" cred_approve_timeout'
expect "... naming the credential, the consumer and the endpoint" \
	eval 'grep cred_approve_granted <<<"$logs" | grep "\"gh\"" | grep tpy | grep -q "/yes/1"'
expect "... never the value" hasnt "$logs" "$REAL"

# ---- lazy captures -------------------------------------------------------
rm -f "$RO/src/tok" "$RO/src/exp" "$RO/go"*
TOK='X-Tok=$TOK_TOKEN' EXP='X-Exp=$EXP_TOKEN'
(
	for _ in $(seq 300); do grep -q "^c1 " "$BASE/out" 2>/dev/null && break; sleep 0.1; done
	echo "captured-one-$$" >"$RO/src/tok"
	now=$(date +%s)
	echo "{\"token\": \"expires-one-$$\", \"expires_at\": $((now + 4))}" >"$RO/src/exp"
	chmod 644 "$RO/src/tok" "$RO/src/exp"
	touch "$RO/go1"
	for _ in $(seq 300); do grep -q "^e1 " "$BASE/out" 2>/dev/null && break; sleep 0.1; done
	echo "captured-two-$$" >"$RO/src/tok"
	echo "{\"token\": \"expires-two-$$\", \"expires_at\": $((now + 3600))}" >"$RO/src/exp"
	touch "$RO/go2"
) &
feeder=$!
session "$(steps "c1|GET|/repos/c1|$TOK" "wait:$RO/go1" "c2|GET|/repos/c2|$TOK" "e1|GET|/repos/e1|$EXP" \
	"wait:$RO/go2" "c3|GET|/repos/c3|$TOK" "e2|GET|/repos/e2|$EXP" sleep:4.5 "c4|GET|/repos/c4|$TOK" \
	"e3|GET|/repos/e3|$EXP")"
wait $feeder
expect "a capture that fails: 503 credential-unavailable" eval 'st c1 503 && has "$(line c1)" "error=credential-unavailable"'
expect "... with its reason" has "$(line c1)" "capture tok"
expect "... nothing reached the upstream for it" eval '! grep -q "/repos/c1" "$BASE/log"'
expect "the source fixed, the next request captures again: 200" st c2 200
expect "... the upstream saw the captured value" eval 'grep "/repos/c2" "$BASE/log" | grep -q "captured-one-$$"'
expect "... the tool never saw a captured value" eval 'hasnt "$OUT" "captured-one-$$" && hasnt "$OUT" "captured-two-$$"'
expect "within its ttl the value is kept (the source changed: still the old value)" \
	eval 'st c3 200 && grep "/repos/c3" "$BASE/log" | grep -q "captured-one-$$"'
expect "after its ttl it is captured again (the new value)" eval 'st c4 200 && grep "/repos/c4" "$BASE/log" | grep -q "captured-two-$$"'
expect "expires_at: the value is kept until then" eval 'st e2 200 && grep "/repos/e2" "$BASE/log" | grep -q "expires-one-$$"'
expect "... and captured again after it" eval 'st e3 200 && grep "/repos/e3" "$BASE/log" | grep -q "expires-two-$$"'
logs=$(cat "$XDG_STATE_HOME"/cordon/audit/*.jsonl 2>/dev/null)
expect "the captures are audited (tok: one failed run, two runs), never the value" \
	eval '[ "$(grep "\"event\":\"capture\"" <<<"$logs" | grep -c "\"tok\"")" = 2 ] && [ "$(grep "\"event\":\"capture_failed\"" <<<"$logs" | grep -c "\"tok\"")" = 1 ] && hasnt "$logs" "captured-one-$$"'

# ---- a slow capture blocks nothing ---------------------------------------
ms='$(( ($(date +%s%N) - a) / 1000000 ))'
session "$(steps "slowcap|GET|/repos/slow|X-Slow=\$SLOW_TOKEN") & sleep 0.5; a=\$(date +%s%N); ttrue; echo ttrue-ms=$ms; a=\$(date +%s%N); $(steps "other|GET|/repos/other|$GH"); echo other-ms=$ms; wait"
tms=$(grep -o 'ttrue-ms=[0-9]*' <<<"$OUT" | cut -d= -f2)
oms=$(grep -o 'other-ms=[0-9]*' <<<"$OUT" | cut -d= -f2)
expect "a capture that takes 3 s (it prints nothing: 503 after it)" eval 'st slowcap 503 && secs_ge slowcap 2.5'
expect "... meanwhile another tool call completes promptly (${tms:-?} ms)" eval '[ -n "$tms" ] && [ "$tms" -lt 1500 ]'
expect "... and another proxy's request too (${oms:-?} ms)" eval 'st other 200 && [ -n "$oms" ] && [ "$oms" -lt 2500 ]'

# ---- a capture that times out ---------------------------------------------
session "$(steps "hang1|GET|/repos/hang|X-Hang=\$HANG_TOKEN" "hang2|GET|/repos/hang|X-Hang=\$HANG_TOKEN")"
expect "a capture past its timeout: 503 with the reason, after the timeout" \
	eval 'st hang1 503 && has "$(line hang1)" "timed out" && secs_ge hang1 0.9 && secs_lt hang1 5'
expect "... the next request tries again (and times out again)" eval 'st hang2 503 && secs_ge hang2 0.9'
expect "... nothing reached the upstream" eval '! grep -q "/repos/hang" "$BASE/log"'
logs=$(cat "$XDG_STATE_HOME"/cordon/audit/*.jsonl 2>/dev/null)
expect "... each run audited as failed" eval '[ "$(grep "\"event\":\"capture_failed\"" <<<"$logs" | grep -c "\"hang\"")" = 2 ]'
finish
