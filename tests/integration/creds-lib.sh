# Shared by the creds-*.t scripts that need a TLS upstream on the host's
# loopback: source after tap.sh. Sets WS BIN RO (readable from the
# sandboxes), a CA the script makes ($RO/ca.pem, the credentials' tls.ca),
# a recording upstream (one JSON line per request in $BASE/log: method,
# path, headers; it echoes the Authorization header in X-Echo) on
# https://localhost:$port, and $BIN/tpy (Python, for the clients).
# Skips and exits when openssl cannot make the CA.
export HOME=$BASE/home XDG_STATE_HOME=$BASE/state
WS=$BASE/ws BIN=$BASE/bin RO=$BASE/ro
mkdir -p "$HOME" "$XDG_STATE_HOME" "$WS" "$BIN" "$RO"
chmod 755 "$HOME" "$WS" "$BIN" "$RO"
if ! command -v openssl >/dev/null; then
	skip "credentials through a TLS upstream" "needs openssl"
	finish
	exit
fi
cp "$(readlink -f "$PY")" "$BIN/tpy"
chmod 755 "$BIN/tpy"
creds_mk() { openssl "$@" >/dev/null 2>&1; }
creds_mk req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=cordon-e2e-ca -keyout "$BASE/ca.key" -out "$RO/ca.pem" &&
	creds_mk req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$BASE/srv.key" -out "$BASE/srv.csr" &&
	printf 'subjectAltName=DNS:localhost\n' >"$BASE/ext" &&
	creds_mk x509 -req -in "$BASE/srv.csr" -CA "$RO/ca.pem" -CAkey "$BASE/ca.key" -CAcreateserial -days 1 \
		-extfile "$BASE/ext" -out "$BASE/srv.pem" || { skip "credentials through a TLS upstream" "openssl cannot make a CA"; finish; exit; }
chmod 644 "$RO/ca.pem"

cat >"$BASE/upstream.py" <<'PY'
import http.server, socketserver, ssl, sys, json, os
portfile, log, cert, key = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
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
U=https://localhost:$port
# seen STRING: how many upstream requests hold it
seen() { grep -c -- "$1" "$BASE/log"; }
