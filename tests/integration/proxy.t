#!/usr/bin/env bash
# --net proxy: the sandbox's only way out is cordon's proxy, for the hosts
# its rules admit. Loopback only: the upstreams are python servers this
# script starts on the host's 127.0.0.1, reached by the name `localhost`
# (which the proxy resolves from /etc/hosts, so it needs --allow-address).
# Every refusal is tried for real from inside; the controls make the same
# attempt unconfined.
. "$(dirname "$0")/tap.sh"

dir=$(mktemp -d /var/tmp/cordon-it-proxy.XXXXXX)
ws=$(mktemp -d /tmp/cordon-it-proxyws.XXXXXX)
cd "$ws" || exit 1
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$dir" "$ws"' EXIT

# The upstream: answers "upstream-ok PATH" and logs "METHOD PATH HOST" per request.
cat >"$dir/upstream.py" <<'PY'
import http.server, socketserver, ssl, sys
portfile, log = sys.argv[1], sys.argv[2]
tls = sys.argv[3:5] if len(sys.argv) > 4 else None

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        with open(log, "a") as f:
            f.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Host")))
        body = ("upstream-ok %s\n" % self.path).encode()
        self.send_response(200)
        if self.path == "/eof":        # a body that ends at the close
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        # a body by Content-Length or chunked, logged as it arrived
        if self.headers.get("Transfer-Encoding"):
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        else:
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with open(log, "a") as f:
            f.write("%s %s %s %r\n" % (self.command, self.path, self.headers.get("Host"), data))
        body = ("upstream-ok %s %d\n" % (self.path, len(data))).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass

class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 512

s = S(("127.0.0.1", 0), H)
if tls:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tls[0], tls[1])
    s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(portfile + ".tmp", "w").write(str(s.server_address[1]))
import os; os.rename(portfile + ".tmp", portfile)
s.serve_forever()
PY

python3 "$dir/upstream.py" "$dir/port" "$dir/log" 2>/dev/null & pids+=($!)
tls=no
if command -v openssl >/dev/null; then
        # a test CA and a certificate for localhost, made here
        if openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=cordon-test-ca -keyout "$dir/ca.key" \
                -out "$dir/ca.pem" >/dev/null 2>&1 &&
                openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$dir/srv.key" -out "$dir/srv.csr" \
                        >/dev/null 2>&1 &&
                printf 'subjectAltName=DNS:localhost\n' >"$dir/ext" &&
                openssl x509 -req -in "$dir/srv.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
                        -days 1 -extfile "$dir/ext" -out "$dir/srv.pem" >/dev/null 2>&1; then
                python3 "$dir/upstream.py" "$dir/tlsport" "$dir/log" "$dir/srv.pem" "$dir/srv.key" 2>/dev/null &
                pids+=($!)
                tls=yes
        fi
fi
for _ in $(seq 100); do [ -s "$dir/port" ] && { [ $tls = no ] || [ -s "$dir/tlsport" ]; } && break; sleep 0.1; done
port=$(cat "$dir/port")
[ $tls = yes ] && tlsport=$(cat "$dir/tlsport")
url=http://localhost:$port

# Does the runner work here at all (full isolation needs a user namespace)?
if ! "$CORDON" exec --net proxy -- true 2>"$dir/probe.err"; then
        skip "--net proxy" "the runner cannot run here: $(head -1 "$dir/probe.err")"
        finish
        exit
fi

allow=(--net proxy --allow-domain localhost --allow-address 127.0.0.1 --allow-domain '*.example' --deny-domain bad.example)
# curl inside: the sandbox's NO_PROXY names its own loopback, so asking for
# the host's localhost through the proxy means --noproxy ''.
in_sandbox() { "$CORDON" run --workspace "$ws" "${allow[@]}" -- "$@"; }

# ---- allowed: the three ways in -------------------------------------------
: >"$dir/log"
out=$(in_sandbox curl -sS -m 10 --noproxy '' "$url/absolute?q=1" 2>&1)
if [ "$out" = "upstream-ok /absolute?q=1" ] && grep -q "^GET /absolute?q=1 localhost:$port$" "$dir/log"; then
        ok "absolute-form HTTP through the proxy, forwarded in origin-form with its Host"
else
        not_ok "absolute-form HTTP through the proxy" "$out" "log: $(cat "$dir/log")"
fi
out=$(in_sandbox curl -sS -m 10 --noproxy '' --proxytunnel "$url/tunnel" 2>&1)
if [ "$out" = "upstream-ok /tunnel" ] && grep -q "^GET /tunnel " "$dir/log"; then
        ok "CONNECT through the proxy"
else
        not_ok "CONNECT through the proxy" "$out"
fi
if [ $tls = yes ]; then
        cp "$dir/ca.pem" "$ws/ca.pem"
        out=$(in_sandbox curl -sS -m 10 --noproxy '' --cacert "$ws/ca.pem" "https://localhost:$tlsport/tls" 2>&1)
        if [ "$out" = "upstream-ok /tls" ] && grep -q "^GET /tls " "$dir/log"; then
                ok "TLS through CONNECT: the certificate of the test CA checks end to end"
        else
                not_ok "TLS through CONNECT" "$out"
        fi
else
        skip "TLS through CONNECT" "no openssl to make a test CA"
fi
out=$(in_sandbox curl -sS -m 10 --noproxy '' -x socks5h://127.0.0.1:1080 "$url/socks" 2>&1)
if [ "$out" = "upstream-ok /socks" ] && grep -q "^GET /socks " "$dir/log"; then
        ok "SOCKS5 (socks5h: the proxy resolves the name)"
else
        not_ok "SOCKS5 through the proxy" "$out"
fi
out=$(in_sandbox sh -c 'echo "$HTTP_PROXY $HTTPS_PROXY $ALL_PROXY $https_proxy $NODE_USE_ENV_PROXY"; echo "$JAVA_TOOL_OPTIONS"' 2>&1)
if echo "$out" | grep -q "^http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:1080 http://127.0.0.1:3128 1$" &&
        echo "$out" | grep -q -- "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128"; then
        ok "the proxy variables are set (and Node's, and the JVM's)"
else
        not_ok "the proxy variables" "$out"
fi

# ---- refused, with the reason -----------------------------------------------
refused() { # desc reason status curl-args...
        local desc=$1 reason=$2 status=$3
        shift 3
        : >"$dir/log"
        out=$(in_sandbox curl -sS -m 10 --noproxy '' -i "$@" 2>"$dir/err")
        if echo "$out" | head -1 | grep -q "^HTTP/1.1 $status " &&
                echo "$out" | tr -d '\r' | grep -qx "X-Cordon-Error: $reason" && [ ! -s "$dir/log" ]; then
                ok "$desc: $status, X-Cordon-Error: $reason"
        else
                not_ok "$desc: $status $reason" "$out" "$(cat "$dir/err")" "log: $(cat "$dir/log")"
        fi
}
refused "a denied host" host-denied 403 http://bad.example/
refused "a host no rule allows" host-not-allowed 403 http://other.test/
refused "an IP literal no rule names" ip-literal 403 "http://127.0.0.1:$port/"
refused "CONNECT to an IP literal" ip-literal 403 --proxytunnel "http://127.0.0.1:$port/"
if grep -q "cordon-proxy: refused GET bad.example:80: host-denied" "$dir/err" ||
        in_sandbox curl -s -m 10 --noproxy '' http://bad.example/ 2>&1 >/dev/null |
        grep -q "cordon-proxy: refused GET bad.example:80: host-denied"; then
        ok "a refusal writes one audit line naming the host and the reason"
else
        not_ok "the audit line" "$(cat "$dir/err")"
fi

# cordon run: the refusal is a denial, and --json names the refused host
out=$(in_sandbox curl -sSf -m 10 --noproxy '' http://bad.example:8080/x </dev/null 2>&1)
if echo "$out" | grep -q "^\[cordon: access denied"; then
        ok "cordon run annotates a refused connection as a denial"
else
        not_ok "cordon run's annotation" "$out"
fi
"$CORDON" run --json --workspace "$ws" "${allow[@]}" -- curl -sSf -m 10 --noproxy '' http://bad.example:8080/x \
        </dev/null >"$dir/run.json" 2>/dev/null
out=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["verdict"], [(x["kind"], x["op"], x["mechanism"], x["request"], x["host"], x["port"], x["reason"]) for x in d["denials"]],
      sum("--allow-domain" in h for h in d["hints"]), sum("network is off" in h for h in d["hints"]))' "$dir/run.json" 2>&1)
if [ "$out" = "denied [('network', 'connect', 'proxy', 'GET', 'bad.example', 8080, 'host-denied')] 1 0" ]; then
        ok "--json denials names the refused host, port and reason; one hint names --allow-domain, none says the network is off"
else
        not_ok "--json denials" "$out"
fi

# The refusal names the rule that decided: the 403's X-Cordon-Rule and
# --json's denial (the flag, or the profile's list entry), and for what no
# rule admits, the list that would.
out=$(in_sandbox curl -sS -m 10 --noproxy '' -i http://bad.example/ 2>/dev/null | tr -d '\r')
if echo "$out" | grep -qx "X-Cordon-Rule: --deny-domain bad.example"; then
        ok "a --deny-domain refusal's 403 names its rule (X-Cordon-Rule: --deny-domain bad.example)"
else
        not_ok "the 403 names the rule" "$out"
fi
rule_of() { # json-file
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" | ".join(x["rule"] for x in d["denials"]))' "$1" 2>&1
}
"$CORDON" run --json --workspace "$ws" "${allow[@]}" -- curl -sS -m 10 --noproxy '' http://Bad.Example./x \
        </dev/null >"$dir/rule.json" 2>/dev/null
out=$(rule_of "$dir/rule.json")
if [ "$out" = "--deny-domain bad.example" ]; then
        ok "--json: the denial's rule is the flag --deny-domain bad.example, not --net"
else
        not_ok "--json names the --deny-domain rule" "$out"
fi
# The proxy's refusal is cordon's own word (its status channel), whatever
# the command's exit: curl without -f exits 0 on the 403, and the run still
# lists the denial, source proxy; its verdict stays ok (the command
# succeeded: classify.h). A refusal line the command prints itself is no
# denial at all; the control: the same line with no refusal behind it.
"$CORDON" run --json --workspace "$ws" "${allow[@]}" -- curl -sS -m 10 --noproxy '' -o /dev/null http://bad.example/x \
        </dev/null >"$dir/exit0.json" 2>/dev/null
out=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["exit_code"], d["verdict"], [(x["source"], x["host"], x["reason"], x["rule"]) for x in d["denials"]])' "$dir/exit0.json" 2>&1)
if [ "$out" = "0 ok [('proxy', 'bad.example', 'host-denied', '--deny-domain bad.example')]" ]; then
        ok "a proxy refusal with curl exiting 0: one denial, source proxy, its rule; verdict ok"
else
        not_ok "a proxy refusal at exit 0" "$out"
fi
"$CORDON" run --json --workspace "$ws" "${allow[@]}" -- sh -c 'echo "cordon-proxy: refused GET evil.example:80: host-denied (rule: --deny-domain evil.example)" >&2; exit 1' \
        </dev/null >"$dir/fake.json" 2>/dev/null
out=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print([x["source"] for x in d["denials"]], sum("evil.example" in h for h in d["hints"]))' "$dir/fake.json" 2>&1)
if [ "$out" = "[] 0" ]; then
        ok "a refusal line the command printed is no proxy denial (nothing on the status channel)"
else
        not_ok "a printed proxy line" "$out"
fi
"$CORDON" run --json --workspace "$ws" "${allow[@]}" -- sh -c 'for i in $(seq 60); do curl -s -m 5 --noproxy "" -o /dev/null "http://h$i.other.test/"; done; exit 3' \
        </dev/null >"$dir/many.json" 2>/dev/null
out=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["verdict"], len(d["denials"]), set(x["source"] for x in d["denials"]))' "$dir/many.json" 2>&1)
if [ "$out" = "denied 24 {'proxy'}" ]; then
        ok "60 refusals then exit 3: verdict denied, 24 proxy denials (the channel's cap), the run not held up"
else
        not_ok "many refusals" "$out"
fi

"$CORDON" run --json --workspace "$ws" "${allow[@]}" -- curl -sS -m 10 --noproxy '' http://other.test/x \
        </dev/null >"$dir/rule.json" 2>/dev/null
out=$(rule_of "$dir/rule.json")
if echo "$out" | grep -q "^--allow-domain / network.allow_domains"; then
        ok "--json: a host no rule admits names the allow list as its rule ($out)"
else
        not_ok "--json names the allow list" "$out"
fi
printf '{"network":{"mode":"proxy","allow_domains":["localhost"],"deny_domains":["x.test","bad.example"]}}' \
        >"$dir/p-rule.json"
"$CORDON" run --json --profile "$dir/p-rule.json" --workspace "$ws" -- curl -sS -m 10 --noproxy '' \
        http://bad.example/x </dev/null >"$dir/rule.json" 2>/dev/null
out=$(rule_of "$dir/rule.json")
if [ "$out" = "$dir/p-rule.json at /network/deny_domains/1 (bad.example)" ]; then
        ok "--json: a profile's deny rule is named by its file and JSON path"
else
        not_ok "--json names the profile's deny rule" "$out"
fi
# cordon why names the same rule: the flag, or the profile's list entry
# (not the network mode's origin, --net); the control: what no rule
# decided still names the mode.
out=$("$CORDON" why "${allow[@]}" --host bad.example --port 80 2>&1 | grep "rule:")
if [ "$out" = "  rule: (command line) at --deny-domain bad.example" ]; then
        ok "why: a --deny-domain refusal names the flag, not --net"
else
        not_ok "why names the --deny-domain rule" "$out"
fi
out=$("$CORDON" why --profile "$dir/p-rule.json" --host bad.example --port 80 2>&1 | grep "rule:")
if [ "$out" = "  rule: $dir/p-rule.json at /network/deny_domains/1" ]; then
        ok "why: a profile's deny rule is named by its file and JSON path"
else
        not_ok "why names the profile's deny rule" "$out"
fi
out=$("$CORDON" why "${allow[@]}" --host other.test --port 80 2>&1 | grep "rule:")
[ "$out" = "  rule: (command line) at --net" ] && ok "control: why for a host no rule admits names the mode (--net)" ||
        not_ok "control: why's mode rule" "$out"

# Around the proxy there is no way out: a direct attempt is a netns denial,
# and the hint says to use the proxy, not that the network is off.
# (the upstream on the host's loopback: the control below reaches it unconfined)
"$CORDON" run --json --workspace "$ws" "${allow[@]}" -- curl -sS -m 10 --noproxy '*' "http://127.0.0.1:$port/x" \
        </dev/null >"$dir/direct.json" 2>/dev/null
out=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print([(x["kind"], x["mechanism"]) for x in d["denials"]], sum("only cordon'"'"'s proxy leads out" in h for h in d["hints"]),
      sum("network is off" in h for h in d["hints"]))' "$dir/direct.json" 2>&1)
if [ "$out" = "[('network', 'netns')] 1 0" ]; then
        ok "a direct connection around the proxy: a netns denial, and a hint that names the proxy"
else
        not_ok "a direct connection around the proxy" "$out" "$(head -c 600 "$dir/direct.json")"
fi

# localhost resolves to loopback: a host rule alone does not admit it
out=$("$CORDON" run --workspace "$ws" --net proxy --allow-domain localhost -- \
        curl -sS -m 10 --noproxy '' -i "$url/" 2>&1)
if echo "$out" | tr -d '\r' | grep -qx "X-Cordon-Error: address-loopback" && ! grep -q "GET / " "$dir/log"; then
        ok "localhost without allow_addresses: 403 address-loopback"
else
        not_ok "localhost without allow_addresses" "$out"
fi
# and the control: the same request, unconfined, reaches it
out=$(curl -sS -m 10 --noproxy '*' "$url/control" 2>&1)
if [ "$out" = "upstream-ok /control" ]; then ok "control: the upstream answers unconfined"; else not_ok "control" "$out"; fi

# Raw requests from inside: a NUL in the host, over-long heads, SOCKS5 too.
cat >"$ws/raw.py" <<'PY'
import socket, sys
kind, port = sys.argv[1], int(sys.argv[2])
s = socket.create_connection(("127.0.0.1", 3128 if kind != "socks" else 1080), timeout=10)
if kind == "nul":
    s.sendall(b"CONNECT local\x00host:%d HTTP/1.1\r\nHost: x\r\n\r\n" % port)
elif kind == "header":
    s.sendall(b"GET http://localhost:%d/ HTTP/1.1\r\nHost: localhost\r\nX-Big: " % port + b"a" * 40000 + b"\r\n\r\n")
elif kind == "line":
    s.sendall(b"GET http://localhost:%d/" % port + b"a" * 9000 + b" HTTP/1.1\r\n\r\n")
elif kind == "socks":
    s.sendall(b"\x05\x01\x00")
    assert s.recv(2) == b"\x05\x00"
    name = b"local\x00host"
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big"))
    r = s.recv(10)
    print("socks-reply", r[1])
    sys.exit(0)
data = b""
while True:
    try:
        b = s.recv(65536)
    except ConnectionResetError:
        break
    if not b:
        break
    data += b
print(data.decode(errors="replace").replace("\r", ""))
PY
raw_refused() { # desc kind status reason
        : >"$dir/log"
        out=$(in_sandbox python3 "$ws/raw.py" "$2" "$port" 2>"$dir/err")
        if echo "$out" | head -1 | grep -q "^HTTP/1.1 $3 " && echo "$out" | grep -qx "X-Cordon-Error: $4" && [ ! -s "$dir/log" ]; then
                ok "$1: $3, X-Cordon-Error: $4"
        else
                not_ok "$1: $3 $4" "$out"
        fi
}
raw_refused "a NUL byte in the host" nul 403 host-malformed
raw_refused "a header over the 32 KiB cap" header 431 header-too-large
raw_refused "a request line over the 8 KiB cap" line 414 request-line-too-long
out=$(in_sandbox python3 "$ws/raw.py" socks "$port" 2>"$dir/err")
if [ "$out" = "socks-reply 2" ] && [ ! -s "$dir/log" ] && grep -q "refused SOCKS5 local?host:$port: host-malformed" "$dir/err"; then
        ok "SOCKS5 with a NUL in the name: reply 2 (not allowed by the ruleset)"
else
        not_ok "SOCKS5 with a NUL in the name" "$out"
fi

# ---- every request on a connection is decided ----------------------------------
# Raw requests from inside, several on one connection: each is read and
# decided as the first was; the upstream sees only what was decided. The
# answer is every status line and X-Cordon-Error in order, then the log.
cat >"$ws/pipe.py" <<'PY'
import socket, sys, time
kind, port = sys.argv[1], int(sys.argv[2])
A = b"GET http://localhost:%d/a HTTP/1.1\r\nHost: localhost\r\n\r\n" % port
B = b"GET http://LocalHost.:%d/b HTTP/1.1\r\nHost: localhost\r\n\r\n" % port
D = b"GET http://bad.example:%d/denied HTTP/1.1\r\nHost: bad.example\r\n\r\n" % port
O = b"GET http://other.test:%d/other HTTP/1.1\r\nHost: other.test\r\n\r\n" % port
def post(path, headers, body):
    return b"POST http://localhost:%d%s HTTP/1.1\r\nHost: localhost\r\n%s\r\n%s" % (port, path, headers, body)
s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
if kind == "one-write":
    s.sendall(A + D)
elif kind == "split":          # the second head cut in two writes
    x = A + D
    s.sendall(x[:len(A) + 12]); time.sleep(0.3); s.sendall(x[len(A) + 12:])
elif kind == "byte-at-a-time":
    for ch in A + O:
        s.sendall(bytes([ch]))
elif kind == "keep-alive":     # the second after the first's answer
    s.sendall(A)
    first = b""
    while b"upstream-ok /a" not in first:
        first += s.recv(4096)
    s.sendall(D)
elif kind == "three":
    s.sendall(A + B + D)
elif kind == "body-looks-like-a-request":
    s.sendall(post(b"/p", b"Content-Length: %d\r\n" % len(D), D) + O)
elif kind == "chunked":
    s.sendall(post(b"/c", b"Transfer-Encoding: chunked\r\n", b"5;x=y\r\nhello\r\n%x\r\n%s\r\n0\r\nT: 1\r\n\r\n" % (len(D), D)) + D)
elif kind == "te-and-cl":
    s.sendall(post(b"/s", b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", b"0\r\n\r\n") + D)
elif kind == "cl-twice":
    s.sendall(post(b"/s", b"Content-Length: 0\r\nContent-Length: %d\r\n" % len(D), D))
elif kind == "te-other":
    s.sendall(post(b"/s", b"Transfer-Encoding: gzip, chunked\r\n", b"0\r\n\r\n") + D)
elif kind == "te-http10":
    s.sendall(b"POST http://localhost:%d/s HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" % port + D)
elif kind == "cl-sign":
    s.sendall(post(b"/s", b"Content-Length: +5\r\n", b"hello") + D)
elif kind == "obs-fold":
    s.sendall(post(b"/s", b"Content-Length: 0\r\n x\r\n", b"") + D)
elif kind == "bare-lf":
    s.sendall(b"GET http://localhost:%d/s HTTP/1.1\r\nHost: x\nX: y\r\n\r\n" % port + D)
elif kind == "bad-chunk":
    s.sendall(post(b"/s", b"Transfer-Encoding: chunked\r\n", b"zz\r\n") + D)
elif kind == "ends-at-close":   # the client reads the first to EOF: the second is never sent on
    s.sendall(b"GET http://localhost:%d/eof HTTP/1.1\r\nHost: localhost\r\n\r\n" % port + D + A)
elif kind == "client-says-close":
    s.sendall(b"GET http://localhost:%d/a HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" % port + A)
elif kind == "half-close":
    s.sendall(A + B)
    s.shutdown(socket.SHUT_WR)
data = first if kind == "keep-alive" else b""
while True:
    try:
        b = s.recv(65536)
    except (ConnectionResetError, socket.timeout):
        break
    if not b:
        break
    data += b
# the bodies end in "\n": a status line may follow one directly
for line in data.decode(errors="replace").splitlines():
    if line.startswith("HTTP/1.1 ") or line.startswith("X-Cordon-Error:"):
        print(line)
PY
pipelined() { # desc kind expected-answers expected-log
        : >"$dir/log"
        out=$(in_sandbox python3 "$ws/pipe.py" "$2" "$port" 2>"$dir/err" | tr '\n' '|')
        log=$(sed "s/:$port//g" "$dir/log" | tr '\n' '|')
        if [ "$out" = "$3" ] && [ "$log" = "$4" ]; then
                ok "$1"
        else
                not_ok "$1" "answers: $out" "expected: $3" "upstream log: $log" "expected: $4" "$(cat "$dir/err")"
        fi
}
denied='HTTP/1.1 403 Forbidden|X-Cordon-Error: host-denied|'
pipelined "two requests in one write: the second (denied) is decided, refused, never upstream" one-write \
        "HTTP/1.1 200 OK|$denied" "GET /a localhost|"
pipelined "the second head split across writes: decided, refused" split \
        "HTTP/1.1 200 OK|$denied" "GET /a localhost|"
pipelined "two heads a byte at a time: the second (no rule allows it) refused" byte-at-a-time \
        "HTTP/1.1 200 OK|HTTP/1.1 403 Forbidden|X-Cordon-Error: host-not-allowed|" "GET /a localhost|"
pipelined "keep-alive: a request after the first's answer is decided, refused" keep-alive \
        "HTTP/1.1 200 OK|$denied" "GET /a localhost|"
pipelined "three in one write: two allowed (one spelt LocalHost.) each reach the upstream, the third is refused" three \
        "HTTP/1.1 200 OK|HTTP/1.1 200 OK|$denied" "GET /a localhost|GET /b LocalHost.|"
pipelined "a Content-Length body that looks like a request is forwarded as the body; the next request is decided" \
        body-looks-like-a-request "HTTP/1.1 200 OK|HTTP/1.1 403 Forbidden|X-Cordon-Error: host-not-allowed|" \
        "POST /p localhost b'GET http://bad.example/denied HTTP/1.1\\r\\nHost: bad.example\\r\\n\\r\\n'|"
pipelined "a chunked body (extension, trailer) is delimited; the request after it is decided" chunked \
        "HTTP/1.1 200 OK|$denied" \
        "POST /c localhost b'helloGET http://bad.example/denied HTTP/1.1\\r\\nHost: bad.example\\r\\n\\r\\n'|"
pipelined "Transfer-Encoding with Content-Length: refused (400), nothing upstream" te-and-cl \
        "HTTP/1.1 400 Bad Request|X-Cordon-Error: length-ambiguous|" ""
pipelined "Content-Length twice: refused (400), nothing upstream" cl-twice \
        "HTTP/1.1 400 Bad Request|X-Cordon-Error: content-length-twice|" ""
pipelined "a Transfer-Encoding other than chunked: refused (501), nothing upstream" te-other \
        "HTTP/1.1 501 Not Implemented|X-Cordon-Error: transfer-encoding-unsupported|" ""
pipelined "chunked under HTTP/1.0: refused (400), nothing upstream" te-http10 \
        "HTTP/1.1 400 Bad Request|X-Cordon-Error: length-ambiguous|" ""
pipelined "a Content-Length with a sign: refused (400), nothing upstream" cl-sign \
        "HTTP/1.1 400 Bad Request|X-Cordon-Error: content-length-malformed|" ""
pipelined "an obs-folded header line: refused (400), nothing upstream" obs-fold \
        "HTTP/1.1 400 Bad Request|X-Cordon-Error: folded-header|" ""
pipelined "a bare LF in the head: refused (400), nothing upstream" bare-lf \
        "HTTP/1.1 400 Bad Request|X-Cordon-Error: bare-lf|" ""
pipelined "a malformed chunk size: refused (400); the request after it never reaches the upstream" bad-chunk \
        "HTTP/1.1 400 Bad Request|X-Cordon-Error: chunked-malformed|" ""
pipelined "a response that ends at the close: the proxy closes after it; nothing pipelined after it is forwarded" \
        ends-at-close "HTTP/1.1 200 OK|" "GET /eof localhost|"
pipelined "a request that says Connection: close: the proxy closes after its answer; the next is not forwarded" \
        client-says-close "HTTP/1.1 200 OK|" "GET /a localhost|"
pipelined "the client shuts its side after two requests: both are still answered" half-close \
        "HTTP/1.1 200 OK|HTTP/1.1 200 OK|" "GET /a localhost|GET /b LocalHost.|"

# ---- the name the rules decided is the name resolved ----------------------------
: >"$dir/log"
out=$(in_sandbox curl -sS -m 10 --noproxy '' "http://LOCALHOST.:$port/spelt" 2>&1)
if [ "$out" = "upstream-ok /spelt" ] && grep -q "^GET /spelt " "$dir/log"; then
        ok "LOCALHOST. (case, trailing dot): resolved as the rule's localhost, reaches the upstream"
else
        not_ok "LOCALHOST. through the proxy" "$out" "log: $(cat "$dir/log")"
fi
refused "Bad.Example. under the deny rule bad.example" host-denied 403 http://Bad.Example./
refused "bad.example. under the deny rule bad.example" host-denied 403 http://bad.example./
refused "a name with two trailing dots" host-malformed 403 http://localhost../
refused "a name with an empty label" host-malformed 403 http://local..host/

# ---- a deny rule's address refuses every name resolving to it --------------------
: >"$dir/log"
out=$("$CORDON" run --workspace "$ws" "${allow[@]}" --deny-domain 127.0.0.1 -- \
        curl -sS -m 10 --noproxy '' -i "$url/denied-address" 2>&1)
if echo "$out" | tr -d '\r' | grep -qx "X-Cordon-Error: address-denied" && [ ! -s "$dir/log" ]; then
        ok "--deny-domain 127.0.0.1: localhost (resolving there) is refused, address-denied, although --allow-address names it"
else
        not_ok "--deny-domain with an address" "$out" "log: $(cat "$dir/log")"
fi
out=$("$CORDON" run --workspace "$ws" "${allow[@]}" --deny-domain "127.0.0.1:$((port + 1))" -- \
        curl -sS -m 10 --noproxy '' "$url/other-port" 2>&1)
if [ "$out" = "upstream-ok /other-port" ]; then
        ok "control: a deny rule's address on another port leaves this port alone"
else
        not_ok "control: the deny address's port" "$out"
fi
printf '{"network":{"mode":"proxy","allow_domains":["localhost"],"allow_addresses":["127.0.0.1"],"deny_domains":["127.0.0.1"]}}' \
        >"$dir/p-deny.json"
: >"$dir/log"
out=$("$CORDON" run --profile "$dir/p-deny.json" --workspace "$ws" -- curl -sS -m 10 --noproxy '' -i "$url/p" 2>&1)
if echo "$out" | tr -d '\r' | grep -qx "X-Cordon-Error: address-denied" && [ ! -s "$dir/log" ]; then
        ok "a profile's deny_domains with an address refuses a name resolving to it"
else
        not_ok "a profile's deny_domains with an address" "$out"
fi
out=$("$CORDON" why --profile "$dir/p-deny.json" --host localhost --port "$port" 2>&1)
if echo "$out" | grep -q "(address-denied)"; then
        ok "cordon why --host says so too (address-denied)"
else
        not_ok "cordon why --host with a deny address" "$out"
fi

# ---- no other way out ---------------------------------------------------------
out=$(in_sandbox curl -sS -m 5 --noproxy '*' "$url/direct" 2>&1)
rc=$?
if [ $rc -ne 0 ] && ! grep -q "/direct" "$dir/log"; then
        ok "curl --noproxy '*' reaches nothing inside (rc $rc)"
else
        not_ok "curl --noproxy '*' inside" "rc=$rc" "$out"
fi
raw='import socket,sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"GET /raw HTTP/1.0\r\n\r\n")
print(s.recv(100).decode().split("\r\n")[0])'
out=$(in_sandbox python3 -c "$raw" "$port" 2>&1)
rc=$?
if [ $rc -ne 0 ] && ! grep -q "/raw" "$dir/log"; then
        ok "a raw socket to the upstream's address fails inside"
else
        not_ok "a raw socket inside" "rc=$rc" "$out"
fi
out=$(python3 -c "$raw" "$port" 2>&1)
if echo "$out" | grep -Eq '^HTTP/1\.[01] 200 OK$'; then ok "control: the same raw socket connects unconfined"; else not_ok "control: raw socket" "$out"; fi
dns='import socket,sys,time
t = time.monotonic()
try:
    socket.getaddrinfo(sys.argv[1], 80)
    print("resolved")
except socket.gaierror as e:
    print("failed %.1f" % (time.monotonic() - t))'
out=$(in_sandbox python3 -c "$dns" cordon-test.example.com 2>&1)
if echo "$out" | grep -Eq '^failed [0-2]\.'; then
        ok "a DNS lookup fails at once inside ($out s)"
else
        not_ok "a DNS lookup inside" "$out"
fi
# control: the resolver inside works for what needs no network
out=$(in_sandbox python3 -c "$dns" localhost 2>&1)
if [ "$out" = resolved ]; then ok "control: localhost resolves inside (/etc/hosts)"; else not_ok "control: resolver" "$out"; fi

# ---- 200 at once ----------------------------------------------------------------
cat >"$ws/many.py" <<'PY'
import concurrent.futures, socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
px = int(sys.argv[3]) if len(sys.argv) > 3 else 3128
def one(i):
    s = socket.create_connection(("127.0.0.1", px), timeout=30)
    if i % 2:
        s.sendall(b"CONNECT localhost:%d HTTP/1.1\r\n\r\n" % port)
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += s.recv(1)
        assert head.startswith(b"HTTP/1.1 200"), head
        s.sendall(b"GET /many/%d HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" % i)
    else:
        # it reads to EOF: it says so (a kept-alive connection stays open a while)
        s.sendall(b"GET http://localhost:%d/many/%d HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" % (port, i))
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    return b"upstream-ok /many/%d\n" % i in data
# 200 threads, each with its own connection through the proxy
with concurrent.futures.ThreadPoolExecutor(n) as ex:
    print(sum(ex.map(one, range(n))))
PY
out=$(in_sandbox python3 "$ws/many.py" "$port" 200 2>&1)
if [ "$out" = 200 ]; then ok "200 concurrent connections through the proxy all complete"; else not_ok "200 concurrent" "$out"; fi

# ---- the proxy dies ----------------------------------------------------------------
"$CORDON" exec --net proxy --allow-domain localhost --allow-address 127.0.0.1 -- \
        sh -c 'sleep 10; echo survived' >"$dir/kill.out" 2>"$dir/kill.err" &
runner=$!
proxy=
# the runner's children only (a scan of every process takes seconds on a busy machine)
for _ in $(seq 100); do
        for p in $(pgrep -P "$runner"); do
                tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q '^cordon proxy ' && proxy=$p
        done
        [ -n "$proxy" ] && break
        sleep 0.05
done
if [ -n "$proxy" ]; then
        sleep 0.3
        # it parses untrusted bytes: confined after set-up
        if grep -q "^NoNewPrivs:[[:space:]]*1$" "/proc/$proxy/status" &&
                grep -q "^Seccomp:[[:space:]]*2$" "/proc/$proxy/status"; then
                ok "the proxy runs confined (no_new_privs, seccomp filters)"
        else
                not_ok "the proxy runs confined" "$(grep -E 'NoNewPrivs|Seccomp' "/proc/$proxy/status")"
        fi
        kill -KILL "$proxy"
        wait "$runner"
        rc=$?
        if [ $rc -eq 125 ] && grep -q "^cordon: proxy: the network proxy ended (killed by signal 9" "$dir/kill.err" &&
                ! grep -q survived "$dir/kill.out"; then
                ok "the proxy killed mid-run ends the run (exit 125) with a clear runner message"
        else
                not_ok "the proxy killed mid-run" "rc=$rc" "$(cat "$dir/kill.err")" "$(cat "$dir/kill.out")"
        fi
else
        kill "$runner" 2>/dev/null
        not_ok "the proxy killed mid-run: no proxy process found below the runner $runner"
fi

# ---- caps and timeouts (the proxy alone, on the host's loopback) -------------------
"$CORDON" proxy --listen-http 127.0.0.1:0 --head-timeout 1 --idle-timeout 2 --max-conns 2 \
        --allow-domain localhost --allow-address 127.0.0.1 >"$dir/px.out" 2>"$dir/px.err" &
pids+=($!)
for _ in $(seq 50); do grep -q "listening http" "$dir/px.out" 2>/dev/null && break; sleep 0.1; done
pxport=$(awk '/listening http/ {print $4}' "$dir/px.out")
cat >"$dir/caps.py" <<'PY'
import socket, sys, time
px, port, what = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def conn():
    return socket.create_connection(("127.0.0.1", px), timeout=10)
def read_all(s):
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            return data
        data += b
if what == "head":
    s = conn()
    t = time.monotonic()
    print(read_all(s).split(b"\r\n")[0].decode(), "after %.0f s" % (time.monotonic() - t))
elif what == "idle":
    s = conn()
    s.sendall(b"CONNECT localhost:%d HTTP/1.1\r\n\r\n" % port)
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += s.recv(1)
    t = time.monotonic()
    rest = read_all(s)
    print(head.split(b"\r\n")[0].decode(), "then closed after %.0f s idle" % (time.monotonic() - t), len(rest))
elif what == "trickle":
    # the head one byte per segment, its empty line last
    s = conn()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for ch in b"GET http://localhost:%d/trickle HTTP/1.1\r\nHost: localhost\r\n\r\n" % port:
        s.sendall(bytes([ch]))
        time.sleep(0.003)
    print(read_all(s).split(b"\r\n")[0].decode())
elif what == "cap":
    a, b = conn(), conn()
    time.sleep(0.3)
    c = conn()
    c.sendall(b"GET http://localhost:%d/cap HTTP/1.1\r\nHost: localhost\r\n\r\n" % port)
    c.settimeout(0.5)
    try:
        early = c.recv(100)
    except socket.timeout:
        early = b""
    a.close()
    c.settimeout(10)
    print("early=%d" % len(early), read_all(c).split(b"\r\n")[0].decode())
PY
out=$(python3 "$dir/caps.py" "$pxport" "$port" head 2>&1)
if echo "$out" | grep -Eq "^HTTP/1.1 408 Request Timeout after [12] s$"; then
        ok "a client that sends no head gets 408 after the head timeout ($out)"
else
        not_ok "the head timeout" "$out"
fi
out=$(python3 "$dir/caps.py" "$pxport" "$port" idle 2>&1)
if echo "$out" | grep -Eq "^HTTP/1.1 200 Connection established then closed after [2-4] s idle 0$"; then
        ok "an idle tunnel is closed after the idle timeout ($out)"
else
        not_ok "the idle timeout" "$out"
fi
out=$(python3 "$dir/caps.py" "$pxport" "$port" trickle 2>&1)
if [ "$out" = "HTTP/1.1 200 OK" ]; then
        ok "a head sent a byte at a time is still parsed once its empty line arrives"
else
        not_ok "a head a byte at a time" "$out"
fi
out=$(python3 "$dir/caps.py" "$pxport" "$port" cap 2>&1)
if [ "$out" = "early=0 HTTP/1.1 200 OK" ]; then
        ok "--max-conns 2: a third connection waits until one of the two ends"
else
        not_ok "the connection cap" "$out"
fi

# ---- bulk through the relay: every byte, both ways, after an idle pause ------------
# An echo upstream; 8 MiB each way through a CONNECT tunnel (past the point
# where a direction's buffer grows), checked by hash; then 3 s idle (the
# relay gives its buffers back) and the same again on the same tunnel.
cat >"$dir/bulk.py" <<'PY'
import hashlib, os, socket, sys, threading, time
px = int(sys.argv[1])
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(4)
def echo():
    c, _ = ls.accept()
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        c.sendall(b)
    c.close()
threading.Thread(target=echo, daemon=True).start()
s = socket.create_connection(("127.0.0.1", px), timeout=30)
s.sendall(b"CONNECT localhost:%d HTTP/1.1\r\n\r\n" % ls.getsockname()[1])
head = b""
while not head.endswith(b"\r\n\r\n"):
    b = s.recv(1)
    if not b:
        sys.exit("the proxy closed before its answer's end: %r" % head)
    head += b
def roundtrip(n, what):
    data = os.urandom(n)
    sent = []
    def send():
        try:
            s.sendall(data)
            sent.append(n)
        except OSError as e:
            sent.append(e)
    sender = threading.Thread(target=send)
    sender.start()
    got = bytearray()
    t0 = time.monotonic()
    try:
        while len(got) < n:
            b = s.recv(1 << 20)
            if not b:
                break
            got += b
    except OSError as e:
        print("%s: %r after %d of %d bytes back in %.1f s" % (what, e, len(got), n, time.monotonic() - t0))
    sender.join()
    if got != data:
        # what went wrong, for the log: short, or where the bytes differ
        at = next((i for i in range(min(len(got), n)) if got[i] != data[i]), min(len(got), n))
        print("%s: %d of %d bytes back, first difference at %d, sender: %r" % (what, len(got), n, at, sent))
    return got == data
first = roundtrip(8 << 20, "first")
time.sleep(3)
second = roundtrip(8 << 20, "second")
print(head.split(b"\r\n")[0].decode(), "first=%s second=%s" % (first, second))
PY
"$CORDON" proxy --listen-http 127.0.0.1:0 --allow-domain localhost --allow-address 127.0.0.1 \
        >"$dir/bulk-px.out" 2>"$dir/bulk-px.err" &
pids+=($!)
for _ in $(seq 200); do grep -q "listening http" "$dir/bulk-px.out" 2>/dev/null && break; sleep 0.1; done
out=$(python3 "$dir/bulk.py" "$(awk '/listening http/ {print $4}' "$dir/bulk-px.out")" 2>&1)
if [ "$out" = "HTTP/1.1 200 Connection established first=True second=True" ]; then
        ok "8 MiB each way through a tunnel arrive intact, and again after the relay was idle"
else
        not_ok "bulk through the relay" "$out" "$(cat "$dir/bulk-px.err")"
fi

# Few fds: the proxy caps its connections to what its limit allows (six fds
# each) and queues the rest, rather than failing or spinning on accept.
(ulimit -n 128 && exec "$CORDON" proxy --listen-http 127.0.0.1:0 --allow-domain localhost \
        --allow-address 127.0.0.1 >"$dir/px2.out" 2>"$dir/px2.err") &
pids+=($!)
for _ in $(seq 50); do grep -q "listening http" "$dir/px2.out" 2>/dev/null && break; sleep 0.1; done
px2=$(awk '/listening http/ {print $4}' "$dir/px2.out")
out=$(timeout 120 python3 "$ws/many.py" "$port" 200 "$px2" 2>&1)
if [ "$out" = 200 ]; then
        ok "with 128 fds the proxy still completes 200 concurrent connections, a few at a time"
else
        not_ok "200 concurrent under a low fd limit" "$out" "$(cat "$dir/px2.err")"
fi

# ---- closed stdio ----------------------------------------------------------------
# With fd 0, 1 or 2 closed, the runner's first fd (the proxy's socketpair)
# landed there and the proxy refused --control-fd 0: the runner (and the
# CLI) now put /dev/null on a closed standard fd before making any. The
# command runs (exit 7) and none of its standard fds is a socket (9).
stdcheck='for f in 0 1 2; do [ -S /proc/self/fd/$f ] && exit 9; done; exit 7'
for closed in '<&-' '<&- >&-' '<&- >&- 2>&-' '>&- 2>&-'; do
        eval "\"\$CORDON\" exec --net proxy -- sh -c \"\$stdcheck\" $closed"
        rc=$?
        if [ $rc -eq 7 ]; then
                ok "the runner with --net proxy and $closed: the proxy starts, no socket on the command's stdio"
        else
                not_ok "the runner with --net proxy and $closed: rc=$rc (7 expected)"
        fi
        eval "\"\$CORDON\" run --net proxy --workspace \"\$ws\" -- sh -c \"\$stdcheck\" $closed"
        rc=$?
        if [ $rc -eq 7 ]; then
                ok "cordon run --net proxy with $closed: the proxy starts, no socket on the command's stdio"
        else
                not_ok "cordon run --net proxy with $closed: rc=$rc (7 expected)"
        fi
done
# the control: the same run with stdin open shows the command's
# own exit, so 7 above is the command's, not a coincidence
"$CORDON" exec --net proxy -- sh -c "$stdcheck" </dev/null
rc=$?
if [ $rc -eq 7 ]; then
        ok "control: the runner with --net proxy and stdin open: exit 7"
else
        not_ok "control: the runner with --net proxy and stdin open: rc=$rc"
fi

# ---- front ends ------------------------------------------------------------------
out=$("$CORDON" exec --isolation light --net proxy -- true 2>&1)
rc=$?
if [ $rc -eq 125 ] && echo "$out" | grep -q "needs full isolation"; then
        ok "--net proxy under light isolation is refused (no network namespace, no proxy)"
else
        not_ok "--net proxy under light isolation" "rc=$rc" "$out"
fi
if command -v bwrap >/dev/null; then
        out=$("$CORDON" run --backend bwrap --net proxy --workspace "$ws" -- true 2>&1)
        rc=$?
        if [ $rc -ne 0 ] && echo "$out" | grep -q "network 'proxy' needs the native runner"; then
                ok "the bwrap backend refuses --net proxy (it has no proxy: never the host's network instead)"
        else
                not_ok "bwrap and --net proxy" "rc=$rc" "$out"
        fi
else
        skip "the bwrap backend refuses --net proxy" "no bwrap"
fi
# danger-full-access enforces nothing: with the proxy stated beside it (by
# flags, or a profile and a flag) it is refused, never run on the host's
# network. The attempt: a marker file the command would write.
printf '{"mode":"danger-full-access"}' >"$dir/p-danger.json"
printf '{"network":{"mode":"proxy","allow_domains":["localhost"]}}' >"$dir/p-proxy.json"
danger_refused() { # desc args...
        local desc=$1
        shift
        rm -f "$ws/danger-ran"
        out=$("$CORDON" run --workspace "$ws" "$@" -- sh -c 'touch "$0"' "$ws/danger-ran" 2>&1)
        rc=$?
        if [ $rc -ne 0 ] && [ ! -e "$ws/danger-ran" ] && echo "$out" | grep -q "danger-full-access" &&
                echo "$out" | grep -Eq "host's network|could not hold"; then
                ok "$desc: refused, nothing ran"
        else
                not_ok "$desc" "rc=$rc" "$out" "$(ls "$ws/danger-ran" 2>&1)"
        fi
}
danger_refused "--mode danger-full-access --net proxy" --mode danger-full-access --net proxy
danger_refused "--mode danger-full-access --net proxy --allow-domain" --mode danger-full-access --net proxy \
        --allow-domain localhost
danger_refused "a profile's mode danger-full-access with --net proxy" --profile "$dir/p-danger.json" --net proxy
danger_refused "a profile's network.mode proxy with --mode danger-full-access" --profile "$dir/p-proxy.json" \
        --mode danger-full-access
danger_refused "--mode danger-full-access --net none" --mode danger-full-access --net none
printf '{"mode":"danger-full-access","network":{"mode":"proxy"}}' >"$dir/p-both.json"
danger_refused "one profile with both" --profile "$dir/p-both.json"
rm -f "$ws/danger-ran"
out=$("$CORDON" run --workspace "$ws" --profile "$dir/p-proxy.json" --mode danger-full-access --net host -- \
        sh -c 'touch "$0"' "$ws/danger-ran" 2>&1)
if [ -e "$ws/danger-ran" ]; then
        ok "control: --mode danger-full-access with --net host (overriding the profile's proxy) runs"
else
        not_ok "control: danger-full-access with --net host" "$out"
fi
rm -f "$ws/danger-ran"

printf '{"network":{"mode":"proxy","allow_domains":["localhost"],"allow_addresses":["127.0.0.1"]}}' >"$dir/p.json"
out=$("$CORDON" run --profile "$dir/p.json" --workspace "$ws" -- curl -sS -m 10 --noproxy '' "$url/profile" 2>&1)
if [ "$out" = "upstream-ok /profile" ]; then ok "a profile's network.mode proxy"; else not_ok "profile network.mode proxy" "$out"; fi
out=$("$CORDON" why --profile "$dir/p.json" --host localhost --port "$port" 2>&1)
rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q "^allow: the proxy would connect to localhost"; then
        ok "cordon why --host: allowed as the proxy decides"
else
        not_ok "cordon why --host (allowed)" "$out"
fi
printf '{"network":{"mode":"proxy","allow_domains":["localhost"]}}' >"$dir/p2.json"
out=$("$CORDON" why --profile "$dir/p2.json" --host localhost --port 80 2>&1)
rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q "(address-loopback)"; then
        ok "cordon why --host: localhost without allow_addresses is refused (address-loopback)"
else
        not_ok "cordon why --host (refused)" "rc=$rc" "$out"
fi


# ---- the host's services: host.cordon.internal:PORT -------------------------
# `localhost` inside is the sandbox's own loopback; the host's 127.0.0.1:PORT
# is reached by the one name host.cordon.internal:PORT, where an allow rule
# names exactly that name and port. Clients use the proxy variables as set
# (no --noproxy): NO_PROXY names only the sandbox's own loopback.
hs=(--net proxy --allow-domain "host.cordon.internal:$port")
hurl=http://host.cordon.internal:$port
in_hs() { "$CORDON" run --workspace "$ws" "${hs[@]}" -- "$@"; }
: >"$dir/log"
out=$(in_hs curl -sS -m 10 "$hurl/hs-curl" 2>&1)
if [ "$out" = "upstream-ok /hs-curl" ] && grep -q "^GET /hs-curl host.cordon.internal:$port$" "$dir/log"; then
        ok "curl reaches the host's 127.0.0.1:$port as host.cordon.internal:$port"
else
        not_ok "curl to host.cordon.internal" "$out" "log: $(cat "$dir/log")"
fi
out=$(in_hs python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode().strip())' "$hurl/hs-python" 2>&1)
if [ "$out" = "upstream-ok /hs-python" ]; then
        ok "Python urllib reaches host.cordon.internal:$port (HTTP_PROXY as set)"
else
        not_ok "Python urllib to host.cordon.internal" "$out"
fi
if command -v node >/dev/null; then
        # Node before 24 reads no proxy variable: ask the proxy it names
        out=$(in_hs node -e 'const u = new URL(process.env.HTTP_PROXY);
require("http").get({ host: u.hostname, port: u.port, path: process.argv[1] }, (r) => {
        let b = ""; r.on("data", (d) => (b += d)); r.on("end", () => console.log(b.trim()));
}).on("error", (e) => { console.log(String(e)); process.exit(1); });' "$hurl/hs-node" 2>&1)
        if [ "$out" = "upstream-ok /hs-node" ]; then
                ok "node reaches host.cordon.internal:$port through HTTP_PROXY"
        else
                not_ok "node to host.cordon.internal" "$out"
        fi
else
        skip "node to host.cordon.internal" "no node"
fi
# refused: another port, and rules that do not name the exact name and port
other=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
hs_refused() { # desc url rules...
        local desc=$1 u=$2
        shift 2
        : >"$dir/log"
        out=$("$CORDON" run --workspace "$ws" --net proxy "$@" -- curl -sS -m 10 -i "$u" 2>/dev/null)
        if echo "$out" | head -1 | grep -q "^HTTP/1.1 403 " && echo "$out" | tr -d '\r' | grep -qx "X-Cordon-Error: host-not-allowed" &&
                [ ! -s "$dir/log" ]; then
                ok "$desc: 403 host-not-allowed"
        else
                not_ok "$desc" "$out" "log: $(cat "$dir/log")"
        fi
}
hs_refused "host.cordon.internal on a port no rule names" "http://host.cordon.internal:$other/" \
        --allow-domain "host.cordon.internal:$port"
hs_refused "host.cordon.internal under a wildcard rule" "$hurl/" --allow-domain '*.cordon.internal' --allow-domain '*.internal'
hs_refused "host.cordon.internal without a rule" "$hurl/" --allow-domain example.org
out=$("$CORDON" run --workspace "$ws" --net proxy --allow-domain host.cordon.internal -- true 2>&1)
rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "host.cordon.internal:PORT"; then
        ok "a portless host.cordon.internal rule is refused, asking for :PORT"
else
        not_ok "portless host.cordon.internal rule" "rc=$rc" "$out"
fi
: >"$dir/log"
out=$(in_hs curl -sS -m 10 "http://localhost:$port/hs-local" 2>&1)
if [ "$(curl -sS -m 10 "http://localhost:$port/hs-control" 2>&1)" = "upstream-ok /hs-control" ] &&
        [ "$out" != "upstream-ok /hs-local" ] && ! grep -q "/hs-local" "$dir/log"; then
        ok "localhost:$port inside is the sandbox's own loopback, not the host's (control: the host reaches it)"
else
        not_ok "localhost inside is the sandbox's own" "$out" "log: $(cat "$dir/log")"
fi
out=$(in_hs sh -c 'cd "$(mktemp -d)" && echo own > own && { python3 -m http.server --bind 127.0.0.1 18080 >/dev/null 2>&1 & }
for i in $(seq 50); do curl -s -m 2 http://localhost:18080/own && exit 0; sleep 0.1; done; exit 1' 2>&1)
if [ "$out" = own ]; then
        ok "a server inside is reached as localhost with the proxy variables set (NO_PROXY covers it)"
else
        not_ok "a server inside, through NO_PROXY" "$out"
fi

finish
