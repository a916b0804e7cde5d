#!/usr/bin/env bash
# --net allow: any TCP client reaches an allowed host with no relay. Init's
# resolver answers allowed names with synthetic addresses (198.18.0.0/15,
# a ULA /64) that exist only inside the sandbox's network namespace; a
# connect to one is decided by init, dialled by the proxy in the host's
# namespace and the socket installed in the caller. Loopback only: the
# servers are on the host's 127.0.0.1, reached by host.cordon.internal:PORT
# (or `localhost`, which the proxy resolves to loopback and refuses without
# --allow-address). Every refusal is tried for real from inside; the
# controls make the same attempt where it should work.
. "$(dirname "$0")/tap.sh"

dir=$(mktemp -d /var/tmp/cordon-it-netallow.XXXXXX)
ws=$(mktemp -d /var/tmp/cordon-it-netallows.XXXXXX)
chmod 755 "$dir" "$ws"
cd "$ws" || exit 1
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$dir" "$ws"' EXIT
here=$(cd "$(dirname "$0")" && pwd)

# The client library the sandboxed scripts import: a raw DNS query to the
# resolver named in /etc/resolv.conf, and errno names.
cat >"$ws/nal.py" <<'PY'
import errno, socket, struct
def query(name, qtype=1):
    q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(l)]) + l for l in name.encode().split(b".")) + b"\0" + struct.pack(">HH", qtype, 1)
    ns = [l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver")][0]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5)
    s.sendto(q, (ns, 53))
    r = s.recv(600)
    rcode, an = r[3] & 15, struct.unpack(">H", r[6:8])[0]
    addrs = []
    at = len(q)
    for _ in range(an):
        typ, _, _, rdl = struct.unpack(">HHIH", r[at + 2:at + 12])
        rd = r[at + 12:at + 12 + rdl]
        addrs.append(socket.inet_ntop(socket.AF_INET if rdl == 4 else socket.AF_INET6, rd))
        at += 12 + rdl
    return rcode, addrs
def err(e):
    return errno.errorcode.get(e.errno, str(e.errno))
PY

# TCP echo servers on the host's 127.0.0.1, each connection a line in its log
python3 "$here/echo-logged.py" "$dir/port" "$dir/log" & pids+=($!)
: >"$dir/stderr.all"
python3 "$here/echo-logged.py" "$dir/port2" "$dir/log2" & pids+=($!)
for _ in $(seq 50); do [ -s "$dir/port" ] && [ -s "$dir/port2" ] && break; sleep 0.1; done
port=$(cat "$dir/port")
port2=$(cat "$dir/port2")
free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
H=host.cordon.internal
allow=(--net allow --allow-domain "$H:$port")
in_allow() { "$CORDON" run --workspace "$ws" "${allow[@]}" -- "$@"; }
py() { # RULES... -- SCRIPT ARGS...: python3 in the sandbox, proxy variables dropped
        local rules=()
        while [ "$1" != -- ]; do rules+=("$1"); shift; done
        shift
        # stderr (the proxy's audit lines, cordon's hints) apart, in $dir/stderr
        "$CORDON" run --workspace "$ws" "${rules[@]}" -- env -u HTTP_PROXY -u HTTPS_PROXY -u ALL_PROXY \
                -u http_proxy -u https_proxy -u all_proxy python3 -c "import sys; sys.path.insert(0, '$ws')
$1" "${@:2}" 2>"$dir/stderr"
        cat "$dir/stderr" >>"$dir/stderr.all"
}

# ---- the control: the server answers on the host ---------------------------
out=$(python3 -c 'import socket,sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(b"x"); print(s.recv(9).decode())' "$port" 2>&1)
if [ "$out" = x ]; then ok "control: the echo server answers on the host's 127.0.0.1:$port"; else not_ok "control" "$out"; fi

# ---- fail closed -------------------------------------------------------------
out=$("$CORDON" run --workspace "$ws" --isolation light "${allow[@]}" -- true 2>&1); rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "network 'allow' needs full isolation\|--net allow needs full isolation"; then
        ok "light isolation refuses --net allow, saying why"
else
        not_ok "light isolation and --net allow" "rc=$rc" "$out"
fi
out=$("$CORDON" run --workspace "$ws" --backend bwrap "${allow[@]}" -- true 2>&1); rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "network 'allow' needs the native runner"; then
        ok "the bwrap backend refuses --net allow, saying why"
else
        not_ok "bwrap and --net allow" "rc=$rc" "$out"
fi

# ---- the resolver ------------------------------------------------------------
# (localhost, asked of the resolver itself: /etc/hosts answers it otherwise;
# the proxy finds it in the host's /etc/hosts)
out=$(py --net allow --allow-domain "$H:$port" --allow-domain localhost --allow-domain '*.invalid' -- '
import nal
r1 = nal.query("host.cordon.internal"); r2 = nal.query("HOST.cordon.internal"); r6 = nal.query("host.cordon.internal", 28)
ex = nal.query("localhost")
print(r1[0], r1[1] == r2[1], r1[1][0].startswith("198.1"), r6[0], r6[1][0].startswith("fd63:6f72:646f:"), ex[1] != r1[1], ex[0])
print(nal.query("not-allowed.test")[0], nal.query("localhost", 65), nal.query("localhost", 33))
print(nal.query("no-such-name.invalid")[0])' 2>&1)
if [ "$out" = "0 True True 0 True True 0
3 (0, []) (0, [])
3" ]; then
        ok "resolver: an allowed name gets one synthetic A and AAAA (any case), another name NXDOMAIN, HTTPS/SRV an empty answer"
        ok "resolver: an allowed name that does not exist is NXDOMAIN (the proxy looked)"
else
        not_ok "resolver" "$out" "$(cat "$dir/stderr")"
fi

# ---- the host's resolv.conf: search domains, ndots, a symlink into /run -------
# This host's /etc/resolv.conf has no search list and is no symlink: the
# cases are made in a mount namespace of the test's own (and a user
# namespace mapping only the test's user when not root), where
# /etc/resolv.conf is a file the test wrote, or a symlink (an overlay on
# /etc) into a tmpfs /run, and cordon runs inside it.
resolv_ns=$(cd "$(dirname "$0")" && pwd)/resolv-ns.py
ns_run() { # MODE TEXT [LINK] -- CORDON-RUN-ARGS...: --json's result in $dir/ns.json, the output printed
        python3 "$resolv_ns" "$(mktemp -d "$dir/ns.XXXXXX")" "$@" 2>"$dir/ns.err" >"$dir/ns.json"
        # (the output without the proxy's audit lines, which --json merges in)
        python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print("\n".join(l for l in r["output"].strip().split("\n") if not l.startswith("cordon-proxy: ")))' "$dir/ns.json" 2>&1 ||
                cat "$dir/ns.err"
}
ns_denied() { # NAME: the last run's result lists a resolve denial of NAME
        python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(0 if any(d.get("op") == "resolve" and d.get("host") == sys.argv[2] for d in r["denials"]) else 1)' "$dir/ns.json" "$1"
}
nsrun=("$CORDON" run --json --workspace "$ws" "${allow[@]}" --)
connect_py='import socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10); s.sendall(b"by-" + sys.argv[1].encode()); print(s.recv(64).decode())
except OSError as e:
    print(type(e).__name__)'
grep '^nameserver' /etc/resolv.conf >"$dir/resolv.search"
printf 'search example.test cordon.internal\n' >>"$dir/resolv.search"
cp "$dir/resolv.search" "$dir/resolv.ndots"
printf 'options ndots:3\n' >>"$dir/resolv.ndots"

out=$(ns_run file "$dir/resolv.search" -- "${nsrun[@]}" sh -c 'grep -v "^#" /etc/resolv.conf; python3 -c "$1" host "$2"' sh "$connect_py" "$port")
if [ "$out" = "nameserver 127.0.0.1
search example.test cordon.internal
by-host" ] && ns_denied host.example.test; then
        ok "search domains: the short name host reaches $H:$port as the system resolver would (host.example.test refused first, then $H)"
else
        not_ok "search domains" "$out" "$(cat "$dir/ns.err")"
fi
: >"$dir/log"
out=$(ns_run file "$dir/resolv.search" -- "${nsrun[@]}" python3 -c "$connect_py" api "$port")
if [ "$out" = gaierror ] && ns_denied api.example.test && ns_denied api.cordon.internal && [ ! -s "$dir/log" ]; then
        ok "search domains: a short name whose expansions are not allowed does not resolve, each expansion a denial"
else
        not_ok "search domains, a refused short name" "$out" "$(cat "$dir/ns.err")"
fi
out=$(ns_run file "$dir/resolv.ndots" -- "${nsrun[@]}" python3 -c "$connect_py" "$H" "$port")
if [ "$out" = "by-$H" ] && ns_denied "$H.example.test"; then
        out=$(ns_run file "$dir/resolv.search" -- "${nsrun[@]}" python3 -c "$connect_py" "$H" "$port")
        if [ "$out" = "by-$H" ] && ! ns_denied "$H.example.test"; then
                ok "ndots: with ndots:3 the two-dot $H is tried with the search list first, with the default as it is"
        else
                not_ok "ndots (the default)" "$out"
        fi
else
        not_ok "ndots:3" "$out" "$(cat "$dir/ns.err")"
fi
# use-vc would send every query over TCP, which the resolver does not
# answer: dropped from the options, the rest kept
grep '^nameserver' /etc/resolv.conf >"$dir/resolv.vc"
printf 'options ndots:1 use-vc timeout:2\n' >>"$dir/resolv.vc"
out=$(ns_run file "$dir/resolv.vc" -- "${nsrun[@]}" sh -c 'grep "^options" /etc/resolv.conf; python3 -c "$1" "$2" "$3"' sh "$connect_py" "$H" "$port")
if [ "$out" = "options ndots:1 timeout:2
by-$H" ]; then
        ok "options use-vc is dropped from the sandbox's resolv.conf (the resolver answers UDP), the other options kept"
else
        not_ok "options use-vc" "$out" "$(cat "$dir/ns.err")"
fi
for link in ../run/cordon-test-resolve/stub-resolv.conf /run/cordon-test-resolve/resolv.conf; do
        out=$(ns_run link "$dir/resolv.search" "$link" -- sh -c 'before=$(cat /etc/resolv.conf); "$@"; [ "$(cat /etc/resolv.conf)" = "$before" ] && echo host-unchanged >&2' sh \
                "${nsrun[@]}" sh -c 'readlink /etc/resolv.conf; grep "^nameserver" /etc/resolv.conf; python3 -c "$1" host "$2"' sh "$connect_py" "$port")
        if [ "$out" = "$link
nameserver 127.0.0.1
by-host" ] && grep -q "host-unchanged" "$dir/ns.err"; then
                ok "/etc/resolv.conf a symlink to $link, absent from the sandbox's /run: made there, and the names resolve"
        else
                not_ok "resolv.conf symlink $link" "$out" "$(cat "$dir/ns.err")"
        fi
done

# DNS over TCP: refused at once (nothing listens on the resolver's TCP
# port), beside the same question over UDP, answered; no answer is
# truncated (TC), so no client has a reason to retry over TCP
out=$(py "${allow[@]}" -- '
import socket, struct, time, nal
t = time.monotonic()
q = struct.pack(">HHHHHH", 7, 0x0100, 1, 0, 0, 0) + b"\x04host\x06cordon\x08internal\x00" + struct.pack(">HH", 1, 1)
try:
    s = socket.create_connection(("127.0.0.1", 53), timeout=5); s.sendall(struct.pack(">H", len(q)) + q); print("tcp", s.recv(2))
except OSError as e:
    print("tcp", nal.err(e), time.monotonic() - t < 1)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5); u.sendto(q, ("127.0.0.1", 53)); r = u.recv(600)
print("udp", r[3] & 15, struct.unpack(">H", r[6:8])[0], bool(r[2] & 2))' 2>&1)
if [ "$out" = "tcp ECONNREFUSED True
udp 0 1 False" ]; then
        ok "DNS over TCP to the resolver is refused at once (ECONNREFUSED); over UDP the same question is answered, not truncated"
else
        not_ok "DNS over TCP" "$out"
fi

# ---- a raw TCP client that ignores the proxy variables ----------------------
: >"$dir/log"
out=$(py "${allow[@]}" -- '
import socket, sys
s = socket.create_connection(("host.cordon.internal", int(sys.argv[1])), timeout=10)
s.sendall(b"hello through the gate"); print(s.recv(100).decode())' "$port" 2>&1)
if [ "$out" = "hello through the gate" ] && grep -q conn "$dir/log"; then
        ok "a Python raw socket reaches host.cordon.internal:$port and the bytes flow both ways"
else
        not_ok "raw socket through --net allow" "$out" "$(cat "$dir/stderr")"
fi
if grep -q "^cordon-proxy: handed over $H:$port (127.0.0.1) to the sandbox" "$dir/stderr"; then
        ok "the proxy's audit line names the connection handed over (name, port, address)"
else
        not_ok "audit line" "$(cat "$dir/stderr")"
fi

# the ledger: once closed, the connection's duration and bytes are audited
out=$(py "${allow[@]}" -- '
import socket, sys, time
s = socket.create_connection(("host.cordon.internal", int(sys.argv[1])), timeout=10)
s.sendall(b"y" * 5000); got = 0
while got < 5000:
    got += len(s.recv(65536))
time.sleep(1.5); s.close(); time.sleep(2.5); print(got)' "$port")
if [ "$out" = 5000 ] && grep -q "^cordon-proxy: closed $H:$port (127.0.0.1) after [0-9]* s: 5000 bytes sent, 5000 received" "$dir/stderr"; then
        ok "a handed-over connection, once closed, is audited with its duration and bytes"
else
        not_ok "ledger" "$out" "$(cat "$dir/stderr")"
fi

# bytes at close, however short: the kernel's destroy notification carries
# the socket's last counts (a look once a second would find it gone); over
# an AF_INET socket and an AF_INET6 one (the AAAA's synthetic address), the
# second with the sandbox's command exiting right after its close
for fam in 4 6; do
        out=$(py "${allow[@]}" -- '
import socket, sys, time
t = time.monotonic()
fam = socket.AF_INET if sys.argv[2] == "4" else socket.AF_INET6
a = socket.getaddrinfo("host.cordon.internal", int(sys.argv[1]), fam, socket.SOCK_STREAM)[0][4]
s = socket.socket(fam); s.settimeout(10); s.connect(a)
s.sendall(b"q" * 70000); got = 0
while got < 70000:
    got += len(s.recv(65536))
s.close(); print(got, time.monotonic() - t < 1)
if fam == socket.AF_INET:
    time.sleep(0.3)' "$port" "$fam")
        if [ "$out" = "70000 True" ] && grep -q "^cordon-proxy: closed $H:$port (127.0.0.1) after 0 s: 70000 bytes sent, 70000 received$" "$dir/stderr"; then
                ok "IPv$fam: a connection of 70,000 bytes each way closed in under a second is audited with its bytes at close"
        else
                not_ok "short connection's bytes (IPv$fam)" "$out" "$(cat "$dir/stderr")"
        fi
done

# the same with the proxy variables set, and --net proxy's way still there
out=$(in_allow python3 -c 'import os, urllib.request; print(os.environ.get("HTTPS_PROXY"))' 2>&1)
if [ "$out" = "http://127.0.0.1:3128" ]; then ok "--net allow keeps the proxy variables set"; else not_ok "proxy variables" "$out"; fi

# non-blocking connect: EINPROGRESS (or 0) at once, SO_ERROR 0, the options carried
out=$(py "${allow[@]}" -- '
import socket, select, sys, errno
ip = socket.getaddrinfo("host.cordon.internal", 0, socket.AF_INET)[0][4][0]
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
s.setblocking(False)
r = s.connect_ex((ip, int(sys.argv[1])))
select.select([], [s], [], 10)
e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
nd = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY); ka = s.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
s.setblocking(True); s.sendall(b"nb"); print(r in (0, errno.EINPROGRESS), e, nd > 0, ka > 0, s.recv(9).decode())' "$port" 2>&1)
if [ "$out" = "True 0 True True nb" ]; then
        ok "a non-blocking connect: EINPROGRESS at once, SO_ERROR 0, TCP_NODELAY and SO_KEEPALIVE carried over"
else
        not_ok "non-blocking connect" "$out"
fi

# a blocking connect: what init read from the caller's socket while the
# proxy dialled arrives on the socket handed over: blocking stays blocking,
# SO_RCVBUF and SO_LINGER carried, close-on-exec as the caller had it (an
# inheritable socket stays inheritable, a default one does not become so);
# the control is each option on a fresh socket, unchanged
out=$(py "${allow[@]}" -- '
import fcntl, os, socket, struct, sys
ip = socket.getaddrinfo("host.cordon.internal", 0, socket.AF_INET)[0][4][0]
fresh = socket.socket()
base = fresh.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
res = []
for inherit in (True, False):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 3 * base)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 7))
    s.set_inheritable(inherit)
    s.connect((ip, int(sys.argv[1])))
    lg = struct.unpack("ii", s.getsockopt(socket.SOL_SOCKET, socket.SO_LINGER, 8))
    res += [s.getpeername()[0], s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) > 2 * base,
            lg == (1, 7), fcntl.fcntl(s, fcntl.F_GETFL) & os.O_NONBLOCK == 0, os.get_inheritable(s.fileno()) == inherit]
    s.sendall(b"bl"); res.append(s.recv(9).decode())
lg = struct.unpack("ii", fresh.getsockopt(socket.SOL_SOCKET, socket.SO_LINGER, 8))
print(*res, lg[0], os.get_inheritable(fresh.fileno()))' "$port" 2>&1)
if [ "$out" = "127.0.0.1 True True True True bl 127.0.0.1 True True True True bl 0 False" ]; then
        ok "a blocking connect: handed over blocking, SO_RCVBUF, SO_LINGER and close-on-exec (set or not) carried over"
else
        not_ok "blocking connect's options" "$out"
fi

# git over its own TCP protocol (git://), a client no proxy variable steers
if git daemon --help >/dev/null 2>&1 || [ -x "$(git --exec-path)/git-daemon" ]; then
        mkdir -p "$dir/git/repo.git" && git -C "$dir/git/repo.git" init -q --bare &&
                git -C "$dir/git" clone -q repo.git src 2>/dev/null
        (cd "$dir/git/src" && echo through >f && git add f && git -c user.name=t -c user.email=t@t commit -qm m && git push -q origin HEAD:main) >/dev/null 2>&1
        gport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        git daemon --export-all --base-path="$dir/git" --listen=127.0.0.1 --port="$gport" --reuseaddr "$dir/git" >/dev/null 2>&1 &
        pids+=($!)
        for _ in $(seq 50); do python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$gport" 2>/dev/null && break; sleep 0.1; done
        # fetch by URL: the git gate keeps git:// out of a repository's config
        out=$("$CORDON" run --workspace "$ws" --net allow --allow-domain "$H:$gport" -- \
                sh -c "git init -q $ws/clone && git -C $ws/clone fetch -q git://$H:$gport/repo.git main &&
                       git -C $ws/clone show FETCH_HEAD:f" 2>&1 | grep -v '^cordon-proxy: ')
        if [ "$out" = through ]; then ok "git fetch over git://$H:$gport (git's own TCP protocol)"; else not_ok "git://" "$out"; fi
        rm -rf "$ws/clone"
fi

# a Go client: its own resolver (reads /etc/resolv.conf), a non-blocking
# connect, epoll after it
if command -v go >/dev/null; then
        mkdir -p "$dir/go" && cat >"$dir/go/main.go" <<'GO'
package main

import (
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(os.Args[1], os.Args[2]), 10*time.Second)
	if err != nil {
		fmt.Println("dial:", err)
		os.Exit(1)
	}
	c.Write([]byte("go-client"))
	b := make([]byte, 64)
	n, _ := c.Read(b)
	fmt.Println(string(b[:n]))
}
GO
        if (cd "$dir/go" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOCACHE="$dir/go/cache" GOPATH="$dir/go/path" \
                go build -o "$ws/goclient" main.go) >"$dir/go/log" 2>&1; then
                out=$("$CORDON" run --workspace "$ws" "${allow[@]}" -- "$ws/goclient" "$H" "$port" 2>/dev/null)
                if [ "$out" = go-client ]; then ok "a Go client (its own resolver, non-blocking connect, epoll) reaches $H:$port"
                else not_ok "Go client" "$out"; fi
                out=$("$CORDON" run --workspace "$ws" "${allow[@]}" -- "$ws/goclient" "$H" "$port2" 2>/dev/null)
                if echo "$out" | grep -q "permission denied"; then ok "the Go client is refused another port (EACCES)"
                else not_ok "Go client, other port" "$out"; fi
        else
                not_ok "go build" "$(cat "$dir/go/log")"
        fi
else
        skip "a Go client" "no go"
fi

# ---- refused: by name, by port, by resolved address --------------------------
out=$(py "${allow[@]}" -- '
import socket, sys, nal
try:
    socket.getaddrinfo("other.test", 80); print("resolved")
except socket.gaierror as e:
    print("gaierror")' 2>&1)
if echo "$out" | head -1 | grep -qx gaierror; then ok "refused by name: another name does not resolve"; else not_ok "by name" "$out"; fi

: >"$dir/log"
out=$(py "${allow[@]}" -- '
import socket, sys, nal
ip = socket.getaddrinfo("host.cordon.internal", 0, socket.AF_INET)[0][4][0]
try:
    socket.create_connection((ip, int(sys.argv[1])), timeout=10); print("connected")
except OSError as e:
    print(nal.err(e))' "$port2" 2>&1)
if echo "$out" | head -1 | grep -qx EACCES && [ ! -s "$dir/log2" ]; then
        ok "refused by port: host.cordon.internal:$port2 is not the allowed port (EACCES, no connection)"
else
        not_ok "by port" "$out"
fi

# the refusal in --json's denials: --net allow's rule, not light isolation's
"$CORDON" run --json --workspace "$ws" "${allow[@]}" -- python3 -c 'import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
except OSError:
    pass' "$H" "$port2" >"$dir/deny.json" 2>/dev/null
out=$(python3 -c 'import json, sys
d = [x for x in json.load(open(sys.argv[1]))["denials"] if x.get("op") == "connect"]
print(len(d), d[0]["mechanism"], d[0]["host"], d[0]["port"], d[0]["rule"]) if d else print("none")' "$dir/deny.json" 2>&1)
if [ "$out" = "1 net-allow $H $port2 --allow-domain / network.allow_domains" ]; then
        ok "the refusal by port is one denial in --json, naming --net allow's rule"
else
        not_ok "denial by port in --json" "$out" "$(cat "$dir/deny.json")"
fi

# localhost: the proxy resolves it (the host's /etc/hosts) to loopback
lo_try() {
        py --net allow --allow-domain "localhost:$port" "$@" -- '
import socket, sys, nal
rc, a = nal.query("localhost")
try:
    s = socket.create_connection((a[0], int(sys.argv[1])), timeout=10); s.sendall(b"lo"); print(s.recv(9).decode())
except OSError as e:
    print(nal.err(e))' "$port" 2>&1
}
: >"$dir/log"
out=$(lo_try)
if echo "$out" | head -1 | grep -qx EACCES && [ ! -s "$dir/log" ]; then
        ok "refused by resolved address: localhost resolves to loopback, no --allow-address (EACCES)"
else
        not_ok "by resolved address" "$out"
fi
out=$(lo_try --allow-address 127.0.0.1)
if [ "$(echo "$out" | head -1)" = lo ]; then
        ok "control: with --allow-address 127.0.0.1 the same connect reaches it"
else
        not_ok "control with --allow-address" "$out"
fi

# a synthetic address the resolver never gave: no such host
out=$(py "${allow[@]}" -- '
import socket, sys, nal
try:
    socket.create_connection(("198.18.3.3", int(sys.argv[1])), timeout=5); print("connected")
except OSError as e:
    print(nal.err(e))' "$port" 2>&1)
if echo "$out" | head -1 | grep -qx 'ENETUNREACH'; then ok "a synthetic address never handed out: ENETUNREACH"; else not_ok "unknown synthetic" "$out"; fi

# ---- the traps on a handed-over socket ---------------------------------------
: >"$dir/log2"
out=$(py "${allow[@]}" -- '
import socket, sys, ctypes, nal
libc = ctypes.CDLL(None, use_errno=True)
port, port2 = int(sys.argv[1]), int(sys.argv[2])
ip = socket.getaddrinfo("host.cordon.internal", 0, socket.AF_INET)[0][4][0]
s = socket.create_connection((ip, port), timeout=10)
res = []
def t(name, f):
    try:
        f(); res.append(name + "=ok")
    except OSError as e:
        res.append(name + "=" + nal.err(e))
t("listen", lambda: s.listen(5))
t("bind", lambda: s.bind(("0.0.0.0", 0)))
t("reconnect", lambda: s.connect(("127.0.0.1", port2)))
def unspec():
    sa = (ctypes.c_ubyte * 16)()
    if libc.connect(s.fileno(), sa, 16) < 0:
        raise OSError(ctypes.get_errno(), "connect")
t("unspec", unspec)
def unspec_listen():
    unspec()
t("fastopen", lambda: s.sendto(b"x", 0x20000000, ("127.0.0.1", port2)))
s.sendall(b"still"); res.append(s.recv(9).decode())
# a new socket: TCP Fast Open to an allowed name is a connect by another name
ip = socket.getaddrinfo("host.cordon.internal", 0, socket.AF_INET)[0][4][0]
n = socket.socket()
t("fastopen-new", lambda: n.sendto(b"x", 0x20000000, (ip, port)))
print(" ".join(res))
# sendto with another address: TCP sends to its own peer, never elsewhere
s.sendto(b"Z", ("127.0.0.1", port2)); print(s.recv(9).decode())' "$port" "$port2" 2>&1)
if [ "$out" = "listen=EACCES bind=EACCES reconnect=EACCES unspec=EACCES fastopen=EACCES still fastopen-new=EACCES
Z" ] && [ ! -s "$dir/log2" ]; then
        ok "traps on the handed-over socket: listen, bind, re-connect, connect(AF_UNSPEC), MSG_FASTOPEN all EACCES; it still works"
        ok "sendto another address on the handed-over socket reaches only its own peer (nothing at the other server)"
else
        not_ok "traps" "$out" "log2: $(cat "$dir/log2")" "$(cat "$dir/stderr")"
fi
# the same over IPv6: the AAAA's synthetic address, an AF_INET6 socket
# handed over (dialled to the IPv4 answer as ::ffff:a.b.c.d), the same traps
: >"$dir/log2"
out=$(py "${allow[@]}" -- '
import socket, sys, nal
port, port2 = int(sys.argv[1]), int(sys.argv[2])
a = socket.getaddrinfo("host.cordon.internal", port, socket.AF_INET6, socket.SOCK_STREAM)[0][4]
s = socket.socket(socket.AF_INET6); s.settimeout(10); s.connect(a)
s.sendall(b"six"); r = [s.recv(9).decode(), str(s.family == socket.AF_INET6)]
for name, f in (("listen", lambda: s.listen(1)), ("reconnect", lambda: s.connect(("::1", port2))),
                ("reconnect4", lambda: s.connect(("::ffff:127.0.0.1", port2)))):
    try:
        f(); r.append(name + "=ok")
    except OSError as e:
        r.append(name + "=" + nal.err(e))
print(" ".join(r))' "$port" "$port2" 2>&1)
if [ "$out" = "six True listen=EACCES reconnect=EACCES reconnect4=EACCES" ] && [ ! -s "$dir/log2" ]; then
        ok "IPv6: the AAAA's synthetic address is handed over on an AF_INET6 socket, and its traps hold"
else
        not_ok "IPv6 hand-over" "$out" "$(cat "$dir/stderr")"
fi
# the controls: the same calls on the sandbox's own sockets work
out=$(py "${allow[@]}" -- '
import socket
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(5)
c = socket.create_connection(l.getsockname()); a, _ = l.accept(); c.sendall(b"own"); print(a.recv(9).decode())
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
v = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); v.sendto(b"udp", u.getsockname()); print(u.recv(9).decode())
x = socket.socket(socket.AF_UNIX); x.bind("na.sock"); x.listen(1)
y = socket.socket(socket.AF_UNIX); y.connect("na.sock"); b, _ = x.accept(); y.sendall(b"unix"); print(b.recv(9).decode())' 2>&1)
rm -f "$ws/na.sock"
if [ "$out" = "own
udp
unix" ]; then
        ok "control: bind, listen, connect and UDP on the sandbox's own loopback work, and a unix socket by path"
else
        not_ok "own loopback" "$out"
fi
# UDP elsewhere: refused
out=$(py "${allow[@]}" -- '
import socket, nal
ip = socket.getaddrinfo("host.cordon.internal", 0, socket.AF_INET)[0][4][0]
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r = []
for f in (lambda: u.sendto(b"x", (ip, 53)), lambda: u.connect((ip, 53)), lambda: u.sendto(b"x", ("192.0.2.1", 53))):
    try:
        f(); r.append("ok")
    except OSError as e:
        r.append(nal.err(e))
print(" ".join(r))' 2>&1)
if [ "$(echo "$out" | head -1)" = "EACCES EACCES EACCES" ]; then
        ok "UDP to a synthetic address or any other non-loopback address is refused (sendto, connect)"
else
        not_ok "UDP elsewhere" "$out"
fi

# ---- a host that needs the proxy's L7 is not offered --------------------------
# (credentials: tests/integration/credentials.t drives the table; here the
# decision alone: --net proxy's own refusal of a deny rule reaches the caller)
out=$(py --net allow --allow-domain "$H:$port" --deny-domain "$H:$port" -- '
import socket, sys, nal
try:
    socket.getaddrinfo("host.cordon.internal", 0); print("resolved")
except socket.gaierror:
    print("gaierror")' 2>&1)
if echo "$out" | head -1 | grep -qx gaierror; then ok "a deny rule wins over an allow rule for the resolver"; else not_ok "deny rule" "$out"; fi

# ---- a credential host: only through the proxy variables ----------------------
CREDTABLE_WRITER=${CREDTABLE_WRITER:-${CORDON_BUILDDIR:?}/tests/integration/credtable-writer}
cat >"$dir/spec.json" <<EOF
{"creds": [{"name": "t", "hosts": ["$H"], "inject": "header", "inject_name": "Authorization", "format": "Bearer {}",
  "phantoms": ["tPHANTOMnetallow000000"], "default": "allow", "rules": [], "value_env": "CRED_T"}]}
EOF
if CRED_T=realVALUEnetallow "$CREDTABLE_WRITER" "$dir/spec.json" "$dir/session-ca.pem" >"$dir/table" 2>"$dir/writer.err"; then
        : >"$dir/log"
        out=$(cd "$ws" && "$CORDON" exec --net allow --write "$ws" --allow-domain "$H:$port" --credentials-fd 3 -- \
                python3 -c 'import socket, sys, errno
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10); print("connected")
except OSError as e:
    print(errno.errorcode[e.errno])' "$H" "$port" 3<"$dir/table" 2>"$dir/err")
        if [ "$out" = EACCES ] && grep -q "credential-host-transparent" "$dir/err" && grep -q "HTTPS_PROXY" "$dir/err" &&
                [ ! -s "$dir/log" ]; then
                ok "a credential host is refused on the transparent path (EACCES), the reason naming the proxy variables"
        else
                not_ok "credential host" "$out" "$(cat "$dir/err")"
        fi
else
        not_ok "the credential table" "$(cat "$dir/writer.err")"
fi

# ---- a profile's network.mode "allow", explain and why ---------------------------
printf '{"network": {"mode": "allow", "allow_domains": ["%s:%s"]}}\n' "$H" "$port" >"$dir/p.json"
out=$("$CORDON" run --workspace "$ws" --profile "$dir/p.json" -- python3 -c 'import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10); s.sendall(b"profile"); print(s.recv(9).decode())' "$H" "$port" 2>/dev/null)
if [ "$out" = profile ]; then ok "a profile's network.mode \"allow\" hands connections over as --net allow does"; else not_ok "profile allow" "$out"; fi
printf '{"network": {"mode": "allw"}}\n' >"$dir/bad.json"
out=$("$CORDON" run --workspace "$ws" --profile "$dir/bad.json" -- true 2>&1)
if echo "$out" | grep -q 'did you mean "allow"'; then ok "a misspelt network.mode is refused, allow suggested"; else not_ok "bad mode" "$out"; fi
out=$("$CORDON" explain --workspace "$ws" "${allow[@]}" -- true 2>&1)
if echo "$out" | grep -q "network allow" && echo "$out" | grep -q "synthetic addresses"; then
        ok "cordon explain says network allow and what it does"
else
        not_ok "explain" "$out"
fi
out=$("$CORDON" why "${allow[@]}" --host "$H" --port "$port" 2>&1); rc=$?
out2=$("$CORDON" why "${allow[@]}" --host "$H" --port "$port2" 2>&1); rc2=$?
if [ $rc -eq 0 ] && [ $rc2 -ne 0 ] && echo "$out2" | grep -q "^deny"; then
        ok "cordon why --host decides --net allow's hosts as the proxy does"
else
        not_ok "why" "rc=$rc $out" "rc=$rc2 $out2"
fi

# ---- many short connections: the proxy's cap counts only open ones --------
# (its ledger sees closes once a second; at the cap it looks at once, so a
# client opening and closing 1,500 connections in a row is never refused
# for ones it already closed; the default cap is 1,024)
py "${allow[@]}" -- '
import socket, sys, nal
for i in range(1500):
    try:
        c = socket.create_connection(("'"$H"'", '"$port"')); c.close()
    except OSError as e:
        print("refused at %d: %s" % (i, nal.err(e))); sys.exit(1)
print("1500 ok")' >"$dir/out" 2>&1
out=$(cat "$dir/out")
[ "$out" = "1500 ok" ] && ok "1,500 short connections in a row are each handed over (closed ones do not fill the cap)" ||
        not_ok "many short connections" "$out"

finish
