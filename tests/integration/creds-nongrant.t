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
if ! command -v openssl >/dev/null; then
	skip "credentials, not granted" "needs openssl"
	finish
	exit
fi
export HOME=$BASE/home XDG_STATE_HOME=$BASE/state
WS=$BASE/ws BIN=$BASE/bin RO=$BASE/ro
mkdir -p "$HOME" "$XDG_STATE_HOME" "$WS" "$BIN" "$RO"
chmod 755 "$HOME" "$WS" "$BIN" "$RO"
cp "$(readlink -f "$PY")" "$BIN/tpy"
chmod 755 "$BIN/tpy"
mk() { openssl "$@" >/dev/null 2>&1; }
mk req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=cordon-e2e-ca -keyout "$BASE/ca.key" -out "$RO/ca.pem" &&
	mk req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$BASE/srv.key" -out "$BASE/srv.csr" &&
	printf 'subjectAltName=DNS:localhost\n' >"$BASE/ext" &&
	mk x509 -req -in "$BASE/srv.csr" -CA "$RO/ca.pem" -CAkey "$BASE/ca.key" -CAcreateserial -days 1 \
		-extfile "$BASE/ext" -out "$BASE/srv.pem" || { skip "credentials, not granted" "openssl cannot make a CA"; finish; exit; }
chmod 644 "$RO/ca.pem"

cat >"$BASE/upstream.py" <<'PY'
import http.server, socketserver, ssl, sys, json, os
portfile, log, cert, key = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def handle_any(self):
        with open(log, "a") as f:
            f.write(json.dumps({"m": self.command, "p": self.path, "h": dict(self.headers.items())}) + "\n")
        auth = self.headers.get("Authorization", "")
        body = ("echo auth=%s\n" % auth).encode()
        self.send_response(200)
        self.send_header("X-Echo", auth)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = do_DELETE = handle_any
    def log_message(self, *a): pass
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
s = S(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(portfile + ".tmp", "w").write(str(s.server_address[1]))
os.rename(portfile + ".tmp", portfile)
s.serve_forever()
PY
"$PY" "$BASE/upstream.py" "$BASE/port" "$BASE/log" "$BASE/srv.pem" "$BASE/srv.key" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$BASE/port" ] && break; sleep 0.1; done
port=$(cat "$BASE/port")
: >"$BASE/log"

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
U=https://localhost:$port
session() { # session SCRIPT: run SCRIPT as the agent; OUT, ERR, RC
	(cd "$WS" && CORDON_E2E_REAL=$REAL "$CORDON" run --profile "$P" -- sh -c "$1" \
		>"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
seen() { grep -c -- "$1" "$BASE/log"; }
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
