#!/usr/bin/env bash
# A credential's hosts are intercepted in every sandbox of the session on
# the proxy, granted or not (issue 23, "every consumer's tunnel"): a tool
# that was not granted the credential (its network proxy) gets a table
# naming the credential without a value, so the consumer's phantom it
# learnt is refused 403 credential-not-granted at its proxy and never
# reaches the upstream (a recording TLS server on the host's loopback),
# beside the consumer's control, which succeeds with the same phantom in
# the same session. A plain request (no phantom) from the non-consumer
# passes through the interception unchanged (no grant, no endpoint policy
# to apply). The session itself, not a consumer, on the proxy: the same.
. "$(dirname "$0")/tap.sh"
tap_base creds-nongrant
# the test CA, WS BIN RO, $BIN/tpy and the recording TLS upstream on $port
. "$(dirname "$0")/creds-lib.sh"

# the consumer's client: its phantom (or what it is told to send) as a
# bearer token, through the proxy cordon set, trusting the system bundle
cat >"$RO/client.py" <<'EOF'
import os, ssl, sys, urllib.request, urllib.error
# the upstream is the host's localhost: through the proxy, not the
# sandbox's own loopback that NO_PROXY names
for k in ("NO_PROXY", "no_proxy"):
    os.environ.pop(k, None)
method, url = sys.argv[1], sys.argv[2]
if method == "ENV":
    print("token=" + os.environ.get("GH_TOKEN", ""))
    sys.exit(0)
tok = sys.argv[3] if len(sys.argv) > 3 else os.environ.get("GH_TOKEN", "")
if tok.startswith("@"):
    tok = open(tok[1:]).read().strip()
req = urllib.request.Request(url, method=method, headers={"Authorization": "Bearer " + tok} if tok else {})
try:
    # the upstream's own CA too: without interception the request would
    # reach it, so a refusal is the proxy's, not a failed handshake
    ctx = ssl.create_default_context()
    ctx.load_verify_locations(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ca.pem"))
    with urllib.request.urlopen(req, timeout=20, context=ctx) as r:
        print("status=%d echo=%s body=%s" % (r.status, r.headers.get("X-Echo"), r.read().decode().strip()))
except urllib.error.HTTPError as e:
    print("status=%d error=%s reason=%s" % (e.code, e.headers.get("X-Cordon-Error"), e.read().decode(errors="replace").strip()[:200]))
except Exception as e:
    print("failed=%r" % (e,))
EOF
chmod -R a+rX "$RO"
REAL=gho_REALnongrant$$abcdefghijklmnopqrstu
# a string of the credential's declared shape (ghp_ + 36) that is no
# phantom of the session: what a real GitHub token looks like
SHAPED=ghp_$(head -c 200 /dev/urandom | base64 | tr -dc A-Za-z0-9 | head -c 36)
P=$BASE/p.json
net='"network": { "mode": "proxy", "allow_domains": ["localhost"], "allow_addresses": ["127.0.0.1"] }'
cp "$BIN/tpy" "$BIN/tnp"
cat >"$P" <<EOF
{
  "workspace": "$WS",
  $net,
  "command_policies": {
    "commands": {
      "tpy": { "executable": "$BIN/tpy", "sandbox": { "fs_read": ["$RO"], $net } },
      "tnp": { "executable": "$BIN/tnp", "sandbox": { "fs_read": ["$RO"], $net } }
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
        "allow": [{ "method": "GET", "path": "/repos/*/*/issues/**" }] },
      "tls": { "ca": "$RO/ca.pem" }
    }
  }
}
EOF
session() { # session SCRIPT: run SCRIPT as the agent; OUT, ERR, RC
	(cd "$WS" && CORDON_E2E_REAL=$REAL "$CORDON" run --profile "$P" -- sh -c "$1" \
		>"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
C=$RO/client.py

# one session: the consumer shows its phantom (not a secret), the
# non-consumer sends it, the consumer sends it (the control), the
# non-consumer sends no phantom or another bearer, the session itself
# sends the phantom and nothing
session "tok=\$(tpy $C ENV - | sed -n 's/^token=//p'); echo consumer-phantom=\$tok
echo nongrant: \$(tnp $C GET $U/repos/o/r/issues/7 \$tok)
echo nongrant-shape: \$(tnp $C GET $U/repos/o/r/issues/13 $SHAPED)
echo nongrant-other: \$(tnp $C GET $U/repos/o/r/issues/8 notaphantom)
echo control: \$(tpy $C GET $U/repos/o/r/issues/9)
echo plain: \$(tnp $C GET $U/repos/o/r/issues/10 '')
echo session: \$($PY $C GET $U/repos/o/r/issues/11 \$tok)
echo session-plain: \$($PY $C GET $U/repos/o/r/issues/12 '')"
ph=$(sed -n 's/^consumer-phantom=//p' <<<"$OUT")
if ! [[ "$ph" =~ ^ghp_[A-Za-z0-9]{36}$ ]]; then
	not_ok "the session runs and the consumer shows its phantom" "out: $OUT" "err: $ERR"
	finish
	exit
fi
line() { sed -n "s/^$1: //p" <<<"$OUT"; }
expect "a non-consumer (network proxy) sending the consumer's phantom: 403 credential-not-granted" \
	eval 'has "$(line nongrant)" "status=403" && has "$(line nongrant)" "error=credential-not-granted"'
expect "... nothing of it reached the upstream" eval '! grep -q "issues/7" "$BASE/log" && [ "$(seen "$ph")" = 0 ]'
expect "a non-consumer sending a value of the credential's shape (no phantom of ours, the real one's form): 403" \
	eval 'has "$(line nongrant-shape)" "status=403" && ! grep -q "issues/13" "$BASE/log"'
expect "control: the consumer's request, same session, same phantom: 200" has "$(line control)" "status=200"
expect "... the upstream got the real value for it" eval 'grep "issues/9" "$BASE/log" | grep -q "Bearer $REAL"'
expect "a non-consumer's plain request to the credential host (no phantom): passes, 200" \
	has "$(line plain)" "status=200"
expect "... it reached the upstream without any credential" \
	eval 'grep "issues/10" "$BASE/log" | grep -vq Authorization'
expect "a non-consumer's own bearer (not a phantom): passes unchanged" \
	eval 'has "$(line nongrant-other)" "status=200" && grep "issues/8" "$BASE/log" | grep -q "Bearer notaphantom"'
expect "the session (not a consumer, network proxy) sending the consumer's phantom: 403" \
	eval 'has "$(line session)" "status=403" && has "$(line session)" "error=credential-not-granted"'
expect "... nothing of it reached the upstream" eval '! grep -q "issues/11" "$BASE/log"'
expect "the session's plain request to the credential host: 200" has "$(line session-plain)" "status=200"
expect "the real value went upstream once, for the consumer only" eval '[ "$(seen "$REAL")" = 1 ]'
finish
