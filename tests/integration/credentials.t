#!/usr/bin/env bash
# Credentials never enter a sandbox (issue 23), the proxy's side: a table
# written by the test-only credtable-writer (as the supervisor will write
# it) reaches `cordon exec --net proxy --credentials-fd 3`; the upstreams
# are python TLS servers on the host's loopback with a CA this script makes,
# reached by the name `localhost`. A recording upstream shows what arrived:
# the real token only for the granted phantom, on an allowed endpoint.
# Every refusal is a real attempt from inside; its control succeeds.
. "$(dirname "$0")/tap.sh"

CREDTABLE_WRITER=${CREDTABLE_WRITER:-${CORDON_BUILDDIR:?}/tests/integration/credtable-writer}
dir=$(mktemp -d /var/tmp/cordon-it-cred.XXXXXX)
ws=$(mktemp -d /tmp/cordon-it-credws.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$dir" "$ws"' EXIT

if ! command -v openssl >/dev/null || ! command -v curl >/dev/null; then
        skip "credentials" "needs openssl and curl"
        finish
        exit
fi
# the test CA, the upstream's certificate for localhost, a client pair (mTLS)
mk() { openssl "$@" >/dev/null 2>&1; }
mk req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=cordon-test-ca -keyout "$dir/ca.key" -out "$dir/ca.pem" &&
        mk req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$dir/srv.key" -out "$dir/srv.csr" &&
        printf 'subjectAltName=DNS:localhost\n' >"$dir/ext" &&
        mk x509 -req -in "$dir/srv.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 1 \
                -extfile "$dir/ext" -out "$dir/srv.pem" &&
        mk req -newkey rsa:2048 -nodes -subj /CN=cordon-client -keyout "$dir/cli.key" -out "$dir/cli.csr" &&
        mk x509 -req -in "$dir/cli.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 1 \
                -out "$dir/cli.pem" || { skip "credentials" "openssl cannot make the test CA"; finish; exit; }

# The recording upstream: one JSON line per request (method, path,
# headers); answers with the Authorization it got, in a header and in the
# body (chunked, the value split across two chunks, when the path says so).
cat >"$dir/upstream.py" <<'PY'
import http.server, socketserver, ssl, sys, json, os
portfile, log, cert, key = sys.argv[1:5]
client_ca = sys.argv[5] if len(sys.argv) > 5 else None
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        with open(log, "a") as f:
            f.write(json.dumps({"m": self.command, "p": self.path, "h": dict(self.headers.items())}) + "\n")
        auth = self.headers.get("Authorization", "")
        body = ("echo %s %s auth=%s\n" % (self.command, self.path, auth)).encode()
        self.send_response(200)
        self.send_header("X-Echo", auth)
        if "chunked" in self.path:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            cut = body.find(b"auth=") + 15   # inside the token
            for part in (body[:cut], body[cut:]):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = do_DELETE = do_PUT = handle_any
    def log_message(self, *a): pass
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
s = S(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
if client_ca:
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(client_ca)
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(portfile + ".tmp", "w").write(str(s.server_address[1]))
os.rename(portfile + ".tmp", portfile)
s.serve_forever()
PY
python3 "$dir/upstream.py" "$dir/port" "$dir/log" "$dir/srv.pem" "$dir/srv.key" 2>/dev/null & pids+=($!)
python3 "$dir/upstream.py" "$dir/mport" "$dir/mlog" "$dir/srv.pem" "$dir/srv.key" "$dir/ca.pem" 2>/dev/null & pids+=($!)
for _ in $(seq 100); do [ -s "$dir/port" ] && [ -s "$dir/mport" ] && break; sleep 0.1; done
port=$(cat "$dir/port")
mport=$(cat "$dir/mport")

REAL=gho_REALsecretVALUE0123456789abcdefghijk
BREAL=bREALbasicSECRET987654
P=ghp_PHANTOMaaaaaaaaaaaaaaaaaaaaaaaaaaaaa          # granted here
O=ghp_OTHERbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb          # granted to another consumer of the session
F=ghp_FOREIGNcccccccccccccccccccccccccccccc         # the shape, of no table: another session's
PB=bPHANTOMbasic0123456789                          # the basic credential's phantom
PX=xPHANTOMforANOTHERhost00                         # a credential of another host
PQ=qPHANTOMquery0123456789                          # a query-parameter credential's phantom
QREAL=qREALquerySECRET55555
export CRED_REAL=$REAL CRED_BREAL=$BREAL CRED_QREAL=$QREAL

spec() { # tls-ca-file client-cert client-key
        cat <<EOF
{"creds": [
 {"name": "gh", "hosts": ["localhost"], "inject": "header", "inject_name": "Authorization", "format": "Bearer {}",
  "shape_prefix": "ghp_", "shape_len": 36, "phantoms": ["$P"], "others": ["$O"], "default": "deny",
  "rules": [["allow", "GET", "/repos/*/*/issues/**", ""], ["deny", "DELETE", "/**", "no deletes"],
            ["approve", "POST", "/repos/*/*/issues", ""]],
  "tls_ca_file": "$1", "tls_cert_file": "$2", "tls_key_file": "$3", "value_env": "CRED_REAL"},
 {"name": "git", "hosts": ["localhost"], "inject": "basic", "inject_name": "x-access-token",
  "phantoms": ["$PB"], "default": "allow", "rules": [], "tls_ca_file": "$1", "tls_cert_file": "$2",
  "tls_key_file": "$3", "value_env": "CRED_BREAL"},
 {"name": "elsewhere", "hosts": ["elsewhere.test"], "inject": "header", "inject_name": "Authorization",
  "format": "token {}", "phantoms": ["$PX"], "default": "allow", "rules": [], "value_env": "CRED_REAL"},
 {"name": "q", "hosts": ["localhost"], "inject": "query", "inject_name": "access_token",
  "phantoms": ["$PQ"], "default": "allow", "rules": [], "tls_ca_file": "$1", "tls_cert_file": "$2",
  "tls_key_file": "$3", "value_env": "CRED_QREAL"}
]}
EOF
}
spec "$dir/ca.pem" "" "" >"$dir/spec.json"
spec "$dir/ca.pem" "$dir/cli.pem" "$dir/cli.key" >"$dir/spec-mtls.json"
spec "" "" "" >"$dir/spec-sysroots.json"
sha_before=$(cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null | sha256sum)

# inside [SPEC] -- CMD...: run CMD in a sandbox whose proxy has the table
inside() {
        local s=$dir/spec.json
        [ "$1" != -- ] && { s=$1; shift; }
        shift
        "$CREDTABLE_WRITER" "$s" "$dir/session-ca.pem" >"$dir/table" 2>"$dir/writer.err" || {
                echo "writer failed: $(cat "$dir/writer.err")"
                return 99
        }
        (cd "$ws" && "$CORDON" exec --net proxy --write "$ws" --allow-domain localhost --allow-domain elsewhere.test \
                --allow-address 127.0.0.1 --credentials-fd 3 -- "$@" 3<"$dir/table" 2>"$dir/err")
}
if ! out=$(inside -- true 2>&1); then
        skip "credentials" "the runner cannot run --net proxy here: $out $(head -3 "$dir/err")"
        finish
        exit
fi
in_curl() { inside -- curl -sS -i -m 10 --noproxy '' -x http://127.0.0.1:3128 "$@"; }
logged_real() { grep -c "$REAL" "$dir/log" 2>/dev/null; }

# ---- the granted phantom, an allowed endpoint: the real value goes upstream
: >"$dir/log"
out=$(in_curl -H "Authorization: Bearer $P" "https://localhost:$port/repos/o/r/issues/1" 2>&1 | tr -d '\r')
if echo "$out" | grep -q "^HTTP/1.1 200" && grep -q "\"Authorization\": \"Bearer $REAL\"" "$dir/log" &&
        [ "$(wc -l <"$dir/log")" = 1 ]; then
        ok "the granted phantom on an allowed endpoint: the upstream gets the real token (and only in Authorization)"
else
        not_ok "the granted phantom is swapped" "$out" "log: $(cat "$dir/log")" "$(cat "$dir/err")"
fi
if echo "$out" | grep -q "^X-Echo: Bearer $P$" && echo "$out" | grep -q "auth=Bearer $P$" && ! echo "$out" | grep -q "$REAL"; then
        ok "an upstream echoing the token: header and body scrubbed back to the phantom"
else
        not_ok "the echo is scrubbed" "$out"
fi
if grep -q "Accept-Encoding\": \"identity\"" "$dir/log"; then
        ok "the upstream is asked for identity encoding (responses can be scrubbed)"
else
        not_ok "identity encoding" "$(cat "$dir/log")"
fi
if grep -q "cordon-proxy: credential gh localhost GET /repos/o/r/issues/1: allow (rule: allow GET /repos/\*/\*/issues/\*\*)" "$dir/err" &&
        ! grep -q -e "$REAL" -e "$P" "$dir/err"; then
        ok "the use is audited (credential, host, method, path, rule, decision), never the value or the phantom"
else
        not_ok "the audit line" "$(cat "$dir/err")"
fi
: >"$dir/log"
out=$(in_curl -H "Authorization: Bearer $P" "https://localhost:$port/repos/o/r/issues/2?chunked=1" 2>&1 | tr -d '\r')
if echo "$out" | grep -q "auth=Bearer $P$" && ! echo "$out" | grep -q "$REAL" && grep -q "$REAL" "$dir/log"; then
        ok "a chunked echo with the token split across two chunks: scrubbed"
else
        not_ok "chunked scrub" "$out" "$(cat "$dir/log")"
fi
: >"$dir/log"
out=$(in_curl -u "x-access-token:$PB" "https://localhost:$port/any/path" 2>&1 | tr -d '\r')
want=$(printf 'x-access-token:%s' "$BREAL" | base64 -w0)
pb64=$(printf 'x-access-token:%s' "$PB" | base64 -w0)
if grep -q "\"Authorization\": \"Basic $want\"" "$dir/log" && echo "$out" | grep -q "^X-Echo: Basic $pb64$" &&
        ! echo "$out" | grep -q "$want"; then
        ok "basic: the phantom inside Authorization: Basic is swapped, the echoed base64 scrubbed back"
else
        not_ok "basic credential" "$out" "$(cat "$dir/log")"
fi

: >"$dir/log"
out=$(in_curl "https://localhost:$port/search?q=1&access_token=$PQ&x=2" 2>&1 | tr -d '\r')
if grep -q "\"p\": \"/search?q=1&access_token=$QREAL&x=2\"" "$dir/log" && echo "$out" | grep -q "access_token=$PQ&x=2 auth=" &&
        ! echo "$out" | grep -q "$QREAL"; then
        ok "query: the phantom as its parameter's value is swapped (the echoed URL scrubbed back)"
else
        not_ok "query credential" "$out" "$(cat "$dir/log")"
fi
# two requests on one kept-alive tunnel: each is decided
: >"$dir/log"
out=$(in_curl -H "Authorization: Bearer $P" "https://localhost:$port/repos/o/r/issues/10" "https://localhost:$port/user" 2>&1 | tr -d '\r')
if [ "$(echo "$out" | grep -c '^HTTP/1.1 200 Connection established')" = 1 ] && echo "$out" | grep -q "^HTTP/1.1 200 OK" &&
        echo "$out" | grep -qx "X-Cordon-Error: endpoint-denied" && [ "$(wc -l <"$dir/log")" = 1 ]; then
        ok "a kept-alive tunnel: the second request is decided too (allowed, then denied; one reached the upstream)"
else
        not_ok "keep-alive" "$out" "$(cat "$dir/log")"
fi

# an HTTP/1.0 client, a scrub that changes the length: no chunks, the body ends at the close
: >"$dir/log"
out=$(inside -- sh -c "(printf 'GET /h10 HTTP/1.0\r\nHost: localhost:$port\r\nAuthorization: Basic $pb64\r\n\r\n'; sleep 2) |
        openssl s_client -quiet -no_ign_eof -proxy 127.0.0.1:3128 -connect localhost:$port -servername localhost 2>/dev/null" 2>&1 | tr -d '\r')
if echo "$out" | grep -q "^HTTP/1.1 200" && echo "$out" | grep -qx "Connection: close" && ! echo "$out" | grep -qi "^transfer-encoding" &&
        echo "$out" | grep -q "auth=Basic $pb64$" && grep -q "Basic $want" "$dir/log"; then
        ok "an HTTP/1.0 client: the length-changing scrub ends the body at the close, never in chunks it cannot read"
else
        not_ok "HTTP/1.0 client" "$out" "$(cat "$dir/log")"
fi

# ---- refused, with the reason, and nothing reaches the upstream -------------
refused() { # desc reason curl-args...
        local desc=$1 reason=$2
        shift 2
        : >"$dir/log"
        out=$(in_curl "$@" 2>&1 | tr -d '\r')
        if echo "$out" | grep -q "^HTTP/1.1 403 " && echo "$out" | grep -qx "X-Cordon-Error: $reason" && [ ! -s "$dir/log" ]; then
                ok "$desc: 403 $reason, nothing upstream"
        else
                not_ok "$desc: 403 $reason" "$out" "log: $(cat "$dir/log")" "$(tail -3 "$dir/err")"
        fi
}
U=https://localhost:$port
refused "a denied method (DELETE)" endpoint-denied -X DELETE -H "Authorization: Bearer $P" "$U/repos/o/r/issues/1"
if grep -q "no deletes" <<<"$out"; then ok "the deny rule's reason travels to the 403"; else not_ok "the reason" "$out"; fi
refused "another path (the default denies)" endpoint-denied -H "Authorization: Bearer $P" "$U/user"
# (this table is the writer's, on a pipe: no supervisor to ask)
: >"$dir/log"
out=$(in_curl -X POST -H "Authorization: Bearer $P" "$U/repos/o/r/issues" 2>&1 | tr -d '\r')
if echo "$out" | grep -q "^HTTP/1.1 503 " && echo "$out" | grep -qx "X-Cordon-Error: credential-channel" && [ ! -s "$dir/log" ]; then
	ok "an approve rule with no supervisor to ask: 503 credential-channel, nothing upstream"
else
	not_ok "an approve rule with no supervisor to ask: 503 credential-channel" "$out" "log: $(cat "$dir/log")"
fi
refused "another consumer's phantom" credential-not-granted -H "Authorization: Bearer $O" "$U/repos/o/r/issues/1"
refused "a phantom of another session (its shape)" credential-not-granted -H "Authorization: Bearer $F" "$U/repos/o/r/issues/1"
refused "the real value sent from inside" credential-not-granted -H "Authorization: Bearer $REAL" "$U/repos/o/r/issues/1"
refused "the real basic value sent from inside" credential-not-granted -u "x-access-token:$BREAL" "$U/repos/o/r/issues/1"
refused "the phantom in another header" credential-not-granted -H "X-Token: $P" "$U/repos/o/r/issues/1"
refused "the phantom in the URL" credential-not-granted "$U/repos/o/r/issues/1?access_token=$P"
refused "a query phantom in a header" credential-not-granted -H "X-Q: $PQ" "$U/search"
refused "a query phantom under another parameter" credential-not-granted "$U/search?token=$PQ"
refused "a credential of another host, spent here" credential-not-granted -H "Authorization: token $PX" "$U/repos/o/r/issues/1"
refused "an ambiguous path (..)" path-ambiguous --path-as-is -H "Authorization: Bearer $P" "$U/repos/o/r/issues/../../x"
refused "an ambiguous path (%2e%2e)" path-ambiguous -H "Authorization: Bearer $P" "$U/repos/o/r/issues/%2e%2e/x"
refused "an ambiguous path (//)" path-ambiguous -H "Authorization: Bearer $P" "$U/repos/o/r/issues//1"
refused "a method override header" method-override -H "X-HTTP-Method-Override: DELETE" -H "Authorization: Bearer $P" "$U/repos/o/r/issues/1"
refused "a _method parameter" method-override -H "Authorization: Bearer $P" "$U/repos/o/r/issues/1?_method=DELETE"
refused "another Host inside the tunnel (fronting)" host-mismatch -H "Host: elsewhere.test" -H "Authorization: Bearer $P" "$U/repos/o/r/issues/1"
refused "a WebSocket upgrade" upgrade-refused -H "Connection: Upgrade" -H "Upgrade: websocket" "$U/repos/o/r/issues/1"
: >"$dir/log"
out=$(inside -- sh -c "printf 'GET http://localhost:$port/x HTTP/1.1\r\nHost: localhost\r\n\r\n' |
        openssl s_client -quiet -proxy 127.0.0.1:3128 -connect localhost:$port -servername localhost 2>/dev/null" 2>&1 | tr -d '\r')
if echo "$out" | grep -q "^HTTP/1.1 400" && echo "$out" | grep -qx "X-Cordon-Error: absolute-form-in-tunnel" && [ ! -s "$dir/log" ]; then
        ok "an absolute-form target inside the tunnel: 400, nothing upstream"
else
        not_ok "absolute-form in the tunnel" "$out"
fi
out=$(inside -- curl -sS -i -m 10 --noproxy '' -x http://127.0.0.1:3128 "http://localhost:$port/x" 2>&1 | tr -d '\r')
if echo "$out" | grep -qx "X-Cordon-Error: credential-host-plain-http"; then
        ok "plain HTTP to a credential host is refused"
else
        not_ok "plain HTTP to a credential host" "$out"
fi
: >"$dir/log"
if ! inside -- curl -sS -m 10 --noproxy '' -x socks5h://127.0.0.1:1080 "https://localhost:$port/x" >/dev/null &&
        grep -q "credential-host-socks" "$dir/err" && [ ! -s "$dir/log" ]; then
        ok "SOCKS5 to a credential host is refused"
else
        not_ok "SOCKS5 to a credential host" "$out" "$(cat "$dir/err")"
fi

# ---- TLS: SNI, ALPN -------------------------------------------------------
sc() { inside -- sh -c "openssl s_client -proxy 127.0.0.1:3128 -connect localhost:$port $* </dev/null 2>&1 | grep -E 'Cipher is|ALPN'"; }
out=$(sc -servername localhost -alpn http/1.1)
if echo "$out" | grep -q "Cipher is TLS" && echo "$out" | grep -q "ALPN protocol: http/1.1"; then
        ok "control: SNI = CONNECT host, ALPN http/1.1: the handshake succeeds"
else
        not_ok "the control handshake" "$out" "$(cat "$dir/err")"
fi
out=$(sc -servername localhost -alpn h2)
if echo "$out" | grep -q "Cipher is (NONE)" && grep -q "alpn-http1-only" "$dir/err"; then
        ok "an h2-only client is refused (alpn-http1-only)"
else
        not_ok "h2-only" "$out" "$(cat "$dir/err")"
fi
out=$(sc -servername elsewhere.test)
if echo "$out" | grep -q "Cipher is (NONE)" && grep -q "sni-mismatch" "$dir/err"; then
        ok "an SNI other than the CONNECT host is refused (no domain fronting)"
else
        not_ok "SNI mismatch" "$out" "$(cat "$dir/err")"
fi

# ---- the sandbox trusts the session CA; the host's trust is unchanged ------
out=$(inside -- sh -c "unset SSL_CERT_FILE SSL_CERT_DIR; openssl s_client -proxy 127.0.0.1:3128 -connect localhost:$port -servername localhost </dev/null 2>&1 | grep 'Verify return code'")
if echo "$out" | grep -q "Verify return code: 0 (ok)"; then
        ok "openssl s_client without -CAfile or variables trusts the session CA (the system bundle path)"
else
        not_ok "s_client and the system bundle" "$out"
fi
out=$(inside -- sh -c "unset CURL_CA_BUNDLE SSL_CERT_FILE; curl -sS -m 10 --noproxy '' -x http://127.0.0.1:3128 -H 'Authorization: Bearer $P' $U/repos/o/r/issues/3" 2>&1)
if [ "$out" = "echo GET /repos/o/r/issues/3 auth=Bearer $P" ]; then
        ok "curl trusts the session CA (no --cacert)"
else
        not_ok "curl's trust" "$out"
fi
if command -v python3 >/dev/null; then
        # urllib honours NO_PROXY, which names localhost: the sandbox's own
        out=$(inside -- env -u NO_PROXY -u no_proxy python3 -c "
import urllib.request
r = urllib.request.Request('$U/repos/o/r/issues/4', headers={'Authorization': 'Bearer $P'})
print(urllib.request.urlopen(r, timeout=10).read().decode().strip())" 2>&1)
        if [ "$out" = "echo GET /repos/o/r/issues/4 auth=Bearer $P" ]; then
                ok "python urllib trusts the session CA"
        else
                not_ok "python urllib" "$out"
        fi
else
        skip "python urllib" "no python3"
fi
if command -v node >/dev/null; then
        # Node 20's fetch ignores proxies: its https module over a CONNECT
        # tunnel checks the same trust (NODE_EXTRA_CA_CERTS)
        out=$(inside -- node -e "
const http = require('http'), https = require('https');
http.request({host: '127.0.0.1', port: 3128, method: 'CONNECT', path: 'localhost:$port'}).on('connect', (res, sock) => {
  https.get({host: 'localhost', path: '/repos/o/r/issues/5', socket: sock, agent: false,
             headers: {Authorization: 'Bearer $P'}}, r => { let b = ''; r.on('data', d => b += d); r.on('end', () => console.log(b.trim())); })
   .on('error', e => console.log('error', e.message));
}).end();" 2>&1)
        if [ "$out" = "echo GET /repos/o/r/issues/5 auth=Bearer $P" ]; then
                ok "node (https over the proxy's tunnel) trusts the session CA"
        else
                not_ok "node" "$out"
        fi
else
        skip "node" "no node"
fi
if [ "$(cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null | sha256sum)" = "$sha_before" ] &&
        ! grep -rqs "cordon session CA" /etc/ssl/certs/ 2>/dev/null && ! ls /etc/ssl/certs | grep -q cordon; then
        ok "the host's trust store is unchanged after the runs"
else
        not_ok "the host's trust store changed"
fi
out=$(inside -- sh -c 'ls -l /etc/ssl/certs/cordon-session-ca.pem; echo x >>/etc/ssl/certs/ca-certificates.crt && echo WROTE' 2>&1)
if echo "$out" | grep -q cordon-session-ca.pem && ! echo "$out" | grep -q WROTE; then
        ok "inside, the certificate directory holds the session CA and is read-only"
else
        not_ok "the sandbox's certificate directory" "$out"
fi

# ---- the real value appears nowhere in the sandbox -----------------------
out=$(inside -- sh -c "env; cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n'; grep -rls -e '$REAL' -e '$BREAL' /etc /tmp /run /var/tmp 2>/dev/null" 2>&1)
if ! echo "$out" | grep -q -e "$REAL" -e "$BREAL" && echo "$out" | grep -q "^SSL_CERT_FILE="; then
        ok "the real values are in no environment, /proc/*/environ or readable file inside (control: the variables are seen)"
else
        not_ok "the real value inside" "$(echo "$out" | grep -e "$REAL" -e "$BREAL" | head -3)"
fi

# ---- upstream TLS: verified, mTLS -------------------------------------------
: >"$dir/mlog"
out=$(inside "$dir/spec-mtls.json" -- curl -sS -m 10 --noproxy '' -x http://127.0.0.1:3128 -H "Authorization: Bearer $P" \
        "https://localhost:$mport/repos/o/r/issues/6" 2>&1)
if [ "$out" = "echo GET /repos/o/r/issues/6 auth=Bearer $P" ] && grep -q "$REAL" "$dir/mlog"; then
        ok "mTLS: an upstream that demands a client certificate gets the pair"
else
        not_ok "mTLS with the pair" "$out" "$(cat "$dir/err")"
fi
: >"$dir/mlog"
out=$(inside -- curl -sS -i -m 10 --noproxy '' -x http://127.0.0.1:3128 -H "Authorization: Bearer $P" \
        "https://localhost:$mport/repos/o/r/issues/7" 2>&1 | tr -d '\r')
if echo "$out" | grep -q "^HTTP/1.1 502" && echo "$out" | grep -qx "X-Cordon-Error: upstream-tls" && [ ! -s "$dir/mlog" ]; then
        ok "mTLS without the pair: 502, fails closed"
else
        not_ok "mTLS without the pair" "$out" "$(cat "$dir/err")"
fi
# what the profile configured for the upstream side is checked at the
# proxy's start (the TLS contexts themselves are made at the first tunnel)
spec "$dir/ca.pem" "$dir/cli.pem" "$dir/ca.key" >"$dir/spec-badpair.json"
spec "$dir/cli.key" "" "" >"$dir/spec-noca.json"
for bad in "badpair:client certificate and key" "noca:holds no certificate"; do
        out=$(inside "$dir/spec-${bad%%:*}.json" -- sh -c 'echo ran' 2>&1)
        if [ $? -ne 0 ] && [ "$out" != ran ] && grep -q "${bad#*:}" "$dir/err"; then
                ok "a bad tls configuration (${bad#*:}) is refused at the start: nothing runs"
        else
                not_ok "${bad%%:*} at the start" "$out" "$(cat "$dir/err")"
        fi
done
: >"$dir/log"
out=$(inside "$dir/spec-sysroots.json" -- curl -sS -i -m 10 --noproxy '' -x http://127.0.0.1:3128 -H "Authorization: Bearer $P" \
        "$U/repos/o/r/issues/8" 2>&1 | tr -d '\r')
if echo "$out" | grep -q "^HTTP/1.1 502" && echo "$out" | grep -q "does not verify" && [ ! -s "$dir/log" ]; then
        ok "an upstream the system roots do not vouch for: 502 with the reason, nothing sent"
else
        not_ok "upstream verification" "$out"
fi

# ---- no locked memory, no credentials ----------------------------------------
# RLIMIT_MEMLOCK 0 (and, for root, no CAP_IPC_LOCK to ignore it): the secure
# heap cannot be locked, so the proxy refuses to start and so does the run
"$CREDTABLE_WRITER" "$dir/spec.json" "$dir/session-ca.pem" >"$dir/table"
nolock=()
[ "$(id -u)" = 0 ] && nolock=(setpriv --bounding-set=-ipc_lock)
if [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; then
        out=$(cd "$ws" && ulimit -l 0 && "${nolock[@]}" "$CORDON" exec --net proxy --write "$ws" \
                --allow-domain localhost --allow-address 127.0.0.1 --credentials-fd 3 -- echo RAN 3<"$dir/table" 2>&1)
        if ! echo "$out" | grep -q RAN && echo "$out" | grep -q "secure heap"; then
                ok "no lockable memory: the credential proxy refuses to start, and the command never runs"
        else
                not_ok "the secure heap fails closed" "$out"
        fi
else
        skip "the secure heap fails closed" "no setpriv"
fi

# ---- the session CA is parsed at the proxy's start ---------------------------
# before it confines itself: a table whose CA key is not the CA's (another
# CA's key) stops the proxy at its start, and the command never runs; the
# same table with its own key (the control) runs it
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["ca_key_mismatch"]=True; json.dump(d, open(sys.argv[2], "w"))' \
        "$dir/spec.json" "$dir/spec-badca.json"
for which in badca good; do
        s=$dir/spec-badca.json
        [ $which = good ] && s=$dir/spec.json
        "$CREDTABLE_WRITER" "$s" "$dir/session-ca.pem" >"$dir/table"
        out=$(cd "$ws" && "$CORDON" exec --net proxy --write "$ws" --allow-domain localhost --allow-address 127.0.0.1 \
                --credentials-fd 3 -- echo RAN 3<"$dir/table" 2>&1)
        eval "out_$which=\$out"
done
if ! echo "$out_badca" | grep -q RAN && echo "$out_badca" | grep -q "the session CA" && echo "$out_good" | grep -qx RAN; then
        ok "a session CA whose key does not match: the proxy refuses at its start (no command runs); the matching one runs"
else
        not_ok "the session CA is checked at start" "bad: $out_badca" "good: $out_good"
fi

# ---- other hosts are tunnelled untouched ------------------------------------
# a table whose only credential host is elsewhere.test: localhost's tunnel
# is not intercepted (the test CA's own certificate reaches the client, the
# phantom reaches the upstream as it is)
cat >"$dir/spec-other.json" <<EOF
{"creds": [{"name": "elsewhere", "hosts": ["elsewhere.test"], "inject": "header", "inject_name": "Authorization",
  "format": "token {}", "phantoms": ["$PX"], "default": "allow", "rules": [], "value_env": "CRED_REAL"}]}
EOF
cp "$dir/ca.pem" "$ws/test-ca.pem"
: >"$dir/log"
out=$(inside "$dir/spec-other.json" -- curl -sS -m 10 --noproxy '' -x http://127.0.0.1:3128 --cacert "$ws/test-ca.pem" \
        -H "Authorization: Bearer $P" "$U/plain" 2>&1)
if [ "$out" = "echo GET /plain auth=Bearer $P" ] && grep -q "Bearer $P" "$dir/log" && ! grep -q "$REAL" "$dir/log"; then
        ok "a host no credential names is tunnelled untouched (the upstream's own certificate, nothing swapped)"
else
        not_ok "an untouched tunnel" "$out" "$(cat "$dir/err")"
fi
# ---- an intercepted tunnel counts as a connection (--max-conns) ------------
"$CREDTABLE_WRITER" "$dir/spec.json" "$dir/session-ca.pem" >"$dir/table"
"$CORDON" proxy --listen-http 127.0.0.1:0 --allow-domain localhost --allow-address 127.0.0.1 --max-conns 2 \
        --credentials-fd 3 3<"$dir/table" >"$dir/px.out" 2>"$dir/px.err" & pids+=($!)
for _ in $(seq 50); do grep -q listening "$dir/px.out" 2>/dev/null && break; sleep 0.1; done
pport=$(awk '{print $4}' "$dir/px.out")
hold() { sleep 6 | openssl s_client -quiet -no_ign_eof -proxy 127.0.0.1:$pport -connect localhost:$port -servername localhost \
        -CAfile "$dir/session-ca.pem" >/dev/null 2>&1; }
hold & h1=$!
hold & h2=$!
sleep 2
third=$(curl -sS -m 2 -x "http://127.0.0.1:$pport" --cacert "$dir/session-ca.pem" "https://localhost:$port/x" 2>&1)
wait $h1 $h2
after=$(curl -sS -m 5 -x "http://127.0.0.1:$pport" --cacert "$dir/session-ca.pem" -H "Authorization: Bearer $P" \
        "https://localhost:$port/repos/o/r/issues/11" 2>&1)
if echo "$third" | grep -qi "timed out" && [ "$after" = "echo GET /repos/o/r/issues/11 auth=Bearer $P" ]; then
        ok "two held intercepted tunnels fill --max-conns 2: a third waits; once they end, the next is served"
else
        not_ok "tunnels and --max-conns" "third: $third" "after: $after" "$(cat "$dir/px.err")"
fi
finish
