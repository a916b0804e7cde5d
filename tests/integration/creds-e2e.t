#!/usr/bin/env bash
# Credentials end to end (issue 23): a profile's credential, read by the
# supervisor from its environment, granted to one tool; the tool (Python
# urllib, through the proxy its sandbox got) sends its phantom to a
# recording TLS upstream on the host's loopback (a CA this script makes, the
# credential's tls.ca). The upstream sees the real token only for the
# granted consumer on an allowed endpoint; a denied method, another path,
# the real value sent from inside and a phantom of another session are
# refused with nothing reaching it; the tool never sees the value (the echo
# is scrubbed); nothing of it is in the audit log.
. "$(dirname "$0")/tap.sh"
tap_base creds-e2e
# the test CA, WS BIN RO, $BIN/tpy and the recording TLS upstream on $port
. "$(dirname "$0")/creds-lib.sh"

# the consumer's client: its phantom (or what it is told to send) as a
# bearer token, through the proxy cordon set, trusting the system bundle
cat >"$RO/client.py" <<'EOF'
import os, sys, urllib.request, urllib.error
# the upstream is the host's localhost: through the proxy, not the
# sandbox's own loopback that NO_PROXY names
for k in ("NO_PROXY", "no_proxy"):
    os.environ.pop(k, None)
method, url = sys.argv[1], sys.argv[2]
tok = sys.argv[3] if len(sys.argv) > 3 else os.environ.get("GH_TOKEN", "")
if tok.startswith("@"):
    tok = open(tok[1:]).read().strip()
req = urllib.request.Request(url, method=method, headers={"Authorization": "Bearer " + tok})
try:
    with urllib.request.urlopen(req, timeout=20) as r:
        print("status=%d echo=%s body=%s" % (r.status, r.headers.get("X-Echo"), r.read().decode().strip()))
except urllib.error.HTTPError as e:
    print("status=%d error=%s reason=%s" % (e.code, e.headers.get("X-Cordon-Error"), e.read().decode(errors="replace").strip()[:200]))
except Exception as e:
    print("failed=%r" % (e,))
EOF
chmod -R a+rX "$RO"
REAL=gho_REALe2eTOKEN$$abcdefghijklmnopqrstu
P=$BASE/p.json
cat >"$P" <<EOF
{
  "workspace": "$WS",
  "command_policies": {
    "commands": {
      "tpy": { "executable": "$BIN/tpy",
               "sandbox": { "fs_read": ["$RO"],
                            "network": { "mode": "proxy", "allow_domains": ["localhost"], "allow_addresses": ["127.0.0.1"] } } }
    }
  },
  "credentials": {
    "github": {
      "source": "env://CORDON_E2E_REAL",
      "hosts": ["localhost"],
      "inject": { "header": "Authorization", "format": "Bearer {}" },
      "phantom": { "env": "GH_TOKEN", "shape": "ghp_{36}" },
      "grant_to": ["cmd.tpy"],
      "endpoint_policy": { "default": "deny",
        "allow": [{ "method": "GET", "path": "/repos/*/*/issues/**" }],
        "deny": [{ "method": "DELETE", "path": "/**", "reason": "no deletes" }] },
      "tls": { "ca": "$RO/ca.pem" }
    }
  }
}
EOF
call() { # call ARGS...: the tool, called from the session; OUT, ERR, RC
	(cd "$WS" && CORDON_E2E_REAL=$REAL "$CORDON" run --profile "$P" -- tpy "$RO/client.py" "$@" \
		>"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}

call GET "$U/repos/o/r/issues/7"
if ! has "$OUT" "status="; then
	not_ok "the consumer's request goes out at all" "out: $OUT" "err: $ERR"
	finish
	exit
fi
expect "the granted consumer, an allowed endpoint: 200" has "$OUT" "status=200"
expect "... the upstream got the real token" eval '[ "$(seen "Bearer $REAL")" = 1 ]'
expect "... and no phantom" eval '! grep -q "Bearer ghp_" "$BASE/log"'
expect "... the echo the tool read is scrubbed: never the value" hasnt "$OUT" "$REAL"
expect "... (it reads its phantom back)" eval 'has "$OUT" "echo=Bearer ghp_"'

n=$(wc -l <"$BASE/log")
call DELETE "$U/repos/o/r"
expect "a denied method (DELETE): 403 with the rule's reason" eval 'has "$OUT" "status=403" && has "$OUT" "no deletes"'
call GET "$U/repos/o/r/pulls"
expect "another path (the default, deny): 403" has "$OUT" "status=403"
# (from a file the tool reads, so that no argv, which the audit log
# keeps redacted, holds it)
printf '%s\n' "$REAL" >"$RO/leaked"
chmod 644 "$RO/leaked"
call GET "$U/repos/o/r/issues/7" "@$RO/leaked"
expect "the real value sent from inside: 403" has "$OUT" "status=403"
expect "... and the value is not echoed to it" eval '[ "$(grep -c "$REAL" <<<"$OUT")" = 1 ] || hasnt "$OUT" "echo="'
call GET "$U/repos/o/r/issues/7" "ghp_$(head -c 100 /dev/urandom | base64 | tr -dc A-Za-z0-9 | head -c 36)"
expect "a phantom of another session (the shape, not ours): 403" has "$OUT" "status=403"
expect "nothing refused reached the upstream" eval '[ "$(wc -l <"$BASE/log")" = "$n" ]'

logs=$(cat "$XDG_STATE_HOME"/cordon/audit/*.jsonl 2>/dev/null)
expect "the audit log has the sessions" has "$logs" "session_start"
expect "... never the value" hasnt "$logs" "$REAL"
finish
