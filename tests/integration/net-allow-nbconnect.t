#!/usr/bin/env bash
# --net allow: a non-blocking connect is answered at once. The sandbox's
# resolver has the proxy look an allowed name up before it answers; the
# proxy keeps that answer a few seconds (src/proxy/transparent_cache.c) and
# a connect to the name within them is dialled from it, so the caller's
# EINPROGRESS comes after one round trip to the proxy, not a second DNS
# lookup. The proxy's DNS here is a test server on the host's 127.0.0.1
# (net-allow-dns.py) that answers only after DELAY (0.3 s); cordon runs in
# a mount namespace of the test's own where /etc/resolv.conf names it
# (resolv-ns.py), the echo server is on the host's 127.0.0.1 and the names
# resolve to loopback, admitted by --allow-address. Each timing is asserted
# with a generous bound against the delay (under half of it), and each
# case has its control: an expired answer, a name never queried, the rules
# on a cached answer, a refused port.
. "$(dirname "$0")/tap.sh"

here=$(cd "$(dirname "$0")" && pwd)
tap_base it-netnb
dir=$BASE/d
ws=$BASE/ws
mkdir -m 755 "$dir" "$ws"
cd "$ws" || exit 1
H=host.cordon.internal
DELAY=0.3
LIFETIME=5 # the proxy's TRANSPARENT_CACHE_LIFETIME_MS, in seconds

spec='{"slow.test": [["127.0.0.1"]], "late.test": [["127.0.0.1"]], "again.test": [["127.0.0.1"]], "lo.test": [["127.0.0.1"]],
       "multi.test": [["127.0.0.2", "127.0.0.1"]], "flip.test": [["127.0.0.1"], ["127.0.0.2"]]}'
: >"$dir/log"
: >"$dir/dnslog"
# A TCP echo server on the host's 127.0.0.1 only (127.0.0.2, also the
# host's loopback, refuses the same port), each connection a line in log.
python3 "$here/echo-logged.py" "$dir/port" "$dir/log" & PIDS+=($!)
python3 "$here/net-allow-dns.py" "$dir/dnsport" "$dir/dnslog" "$DELAY" "$spec" & PIDS+=($!)
for _ in $(seq 50); do [ -s "$dir/port" ] && [ -s "$dir/dnsport" ] && break; sleep 0.1; done
port=$(cat "$dir/port")
dnsport=$(cat "$dir/dnsport")
free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# the proxy's resolver (libevent's evdns reads NAMESERVER:PORT)
printf 'nameserver 127.0.0.1:%s\n' "$dnsport" >"$dir/resolv"

lo=(--allow-address 127.0.0.1)
names=(--net allow --allow-domain slow.test --allow-domain late.test --allow-domain again.test --allow-domain lo.test
       --allow-domain multi.test --allow-domain flip.test --allow-domain "$H:$port" --allow-domain "$H:$free")
# The sandboxed python's helpers: a timed non-blocking connect, its
# SO_ERROR once writable, and an echo over it.
cat >"$ws/nb.py" <<'PY'
import errno, select, socket, sys, time
def resolve(name, fam=socket.AF_INET):
    t = time.monotonic()
    a = socket.getaddrinfo(name, 0, fam, socket.SOCK_STREAM)[0][4][0]
    return a, time.monotonic() - t
def nb(addr, port, fam=socket.AF_INET):
    """(connect's errno name, seconds it took, SO_ERROR's name once writable, the socket)"""
    s = socket.socket(fam); s.setblocking(False)
    t = time.monotonic(); r = s.connect_ex((addr, port)); took = time.monotonic() - t
    select.select([], [s], [], 10)
    e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    return name(r), took, name(e), s
def echo(s, data=b"nb"):
    s.setblocking(True); s.settimeout(10); s.sendall(data); return s.recv(64).decode()
def name(e):
    return "0" if e == 0 else errno.errorcode.get(e, str(e))
def diag(*a):
    sys.stderr.write("diag: " + " ".join(str(x) for x in a) + "\n")
PY

# RULES... -- SCRIPT ARGS...: python3 in the sandbox (proxy variables
# dropped), cordon in the namespace where resolv.conf names the test's DNS;
# stderr (the proxy's audit lines) in $dir/stderr, its "diag:" lines shown
run() {
        local rules=()
        while [ "$1" != -- ]; do rules+=("$1"); shift; done
        shift
        python3 "$here/resolv-ns.py" "$(mktemp -d "$dir/ns.XXXXXX")" file "$dir/resolv" -- \
                "$CORDON" run --workspace "$ws" "${rules[@]}" -- env -u HTTP_PROXY -u HTTPS_PROXY -u ALL_PROXY \
                -u http_proxy -u https_proxy -u all_proxy python3 -c "import sys; sys.path.insert(0, '$ws')
from nb import *
$1" "${@:2}" 2>"$dir/stderr"
        sed -n 's/^diag: /# /p' "$dir/stderr" >&2
}
a_queries() { grep -c "^$1 1\$" "$dir/dnslog"; }

# ---- the controls on the host --------------------------------------------------
out=$(python3 -c 'import socket, struct, sys, time
q = struct.pack(">HHHHHH", 9, 0x0100, 1, 0, 0, 0) + b"\x04slow\x04test\x00" + struct.pack(">HH", 1, 1)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5)
t = time.monotonic(); u.sendto(q, ("127.0.0.1", int(sys.argv[1]))); r = u.recv(600)
print(r[3] & 15, socket.inet_ntoa(r[-4:]), time.monotonic() - t >= 0.25)' "$dnsport" 2>&1)
if [ "$out" = "0 127.0.0.1 True" ]; then
        ok "control: the test's DNS server answers slow.test (127.0.0.1) only after ${DELAY} s"
else
        not_ok "the test's DNS server" "$out"
fi
: >"$dir/dnslog"

# ---- resolve, then connect: the connect is answered at once -------------------
: >"$dir/log"
out=$(run "${names[@]}" "${lo[@]}" -- '
a, res = resolve("slow.test")
r, took, e, s = nb(a, int(sys.argv[1]))
diag("resolving slow.test: %.3f s; the non-blocking connect: %.4f s" % (res, took))
print(r, res >= 0.25, took < 0.15, e, echo(s, b"fast"))' "$port")
if [ "$out" = "EINPROGRESS True True 0 fast" ] && [ "$(a_queries slow.test)" = 1 ] && grep -q conn "$dir/log"; then
        ok "resolve slow.test (pays the DNS delay once), then a non-blocking connect: EINPROGRESS in under half the delay, SO_ERROR 0, bytes echoed"
        ok "the connect looked nothing up: one A query for slow.test in all (the resolver's)"
else
        not_ok "non-blocking connect after a resolve" "$out" "A queries: $(a_queries slow.test)" "$(cat "$dir/stderr")"
fi

# several in flight at once, IPv4 and IPv6 sockets (the AAAA's synthetic
# address, dialled to the IPv4 answer), as an event loop or a
# happy-eyeballs client makes them
: >"$dir/dnslog"
out=$(run "${names[@]}" "${lo[@]}" -- '
import select
p = int(sys.argv[1])
a4, _ = resolve("slow.test"); a6, _ = resolve("slow.test", socket.AF_INET6)
socks, worst = [], 0
for i in range(8):
    fam, a = (socket.AF_INET, a4) if i % 2 == 0 else (socket.AF_INET6, a6)
    s = socket.socket(fam); s.setblocking(False)
    t = time.monotonic(); r = s.connect_ex((a, p)); worst = max(worst, time.monotonic() - t)
    socks.append((r, s))
diag("8 non-blocking connects in flight: the slowest answered in %.4f s" % worst)
ok = [r == errno.EINPROGRESS and select.select([], [s], [], 10)[1] and s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0 and echo(s, b"x%d" % i) == "x%d" % i
      for i, (r, s) in enumerate(socks)]
print(sum(1 for x in ok if x), worst < 0.15)' "$port")
if [ "$out" = "8 True" ]; then
        ok "8 non-blocking connects in flight (AF_INET and AF_INET6) each answered EINPROGRESS at once, each connected and echoing"
else
        not_ok "connects in flight" "$out" "$(cat "$dir/stderr")"
fi

# ---- the controls: an expired answer, a name never looked up ------------------
# past the lifetime the proxy looks the name up again, and the non-blocking
# connect's answer waits for it (as the docs say); that lookup is kept in
# turn, so the next connect is at once again
: >"$dir/dnslog"
out=$(run "${names[@]}" "${lo[@]}" -- '
p = int(sys.argv[1])
a, _ = resolve("late.test")
time.sleep(float(sys.argv[2]))
r, took, e, s = nb(a, p)
r2, took2, e2, s2 = nb(a, p)
diag("late.test, %s s after its resolve: the connect %.3f s, the next %.4f s" % (sys.argv[2], took, took2))
print(r, took >= 0.25, e, echo(s), r2, took2 < 0.15, e2, echo(s2))' "$port" "$((LIFETIME + 1))")
if [ "$out" = "EINPROGRESS True 0 nb EINPROGRESS True 0 nb" ] && [ "$(a_queries late.test)" = 2 ]; then
        ok "control: ${LIFETIME} s after the resolve the answer has expired: the proxy looks late.test up again and the connect's EINPROGRESS waits for it (a second A query)"
        ok "that connect's lookup is kept in turn: the next non-blocking connect is answered at once"
else
        not_ok "expired answer" "$out" "A queries: $(a_queries late.test)" "$(cat "$dir/stderr")"
fi
# a client that asks again when its TTL (the same lifetime) says so: the
# resolver has the proxy look the name up again before answering (that
# query pays the delay), and the connect after it is at once
: >"$dir/dnslog"
out=$(run "${names[@]}" "${lo[@]}" -- '
p = int(sys.argv[1])
a, _ = resolve("again.test")
time.sleep(float(sys.argv[2]))
a2, res2 = resolve("again.test")
r, took, e, s = nb(a2, p)
diag("again.test asked again %s s later: the resolve %.3f s, the connect %.4f s" % (sys.argv[2], res2, took))
print(a == a2, res2 >= 0.25, r, took < 0.15, e, echo(s))' "$port" "$((LIFETIME + 1))")
if [ "$out" = "True True EINPROGRESS True 0 nb" ] && [ "$(a_queries again.test)" = 2 ]; then
        ok "a name asked again after its TTL (${LIFETIME} s) is looked up again by the proxy before the answer (same synthetic address), so the connect after it is answered at once"
else
        not_ok "asked again after the TTL" "$out" "A queries: $(a_queries again.test)" "$(cat "$dir/stderr")"
fi
# host.cordon.internal: a literal answer, never looked up: at once too
: >"$dir/dnslog"
out=$(run "${names[@]}" -- '
a, _ = resolve("host.cordon.internal")
r, took, e, s = nb(a, int(sys.argv[1]))
print(r, took < 0.15, e, echo(s))' "$port")
if [ "$out" = "EINPROGRESS True 0 nb" ] && [ ! -s "$dir/dnslog" ]; then
        ok "control: a name with a literal answer ($H) needs no lookup: EINPROGRESS at once, nothing asked of the DNS"
else
        not_ok "literal name" "$out" "$(cat "$dir/dnslog")"
fi

# ---- the rules hold on a kept answer ------------------------------------------
# lo.test resolves to loopback: without --allow-address the proxy refuses
# the kept answer exactly as a fresh one (EACCES, no connection); with it,
# the same connect reaches the server
: >"$dir/log"
out=$(run "${names[@]}" -- '
a, _ = resolve("lo.test")
s = socket.socket(); s.setblocking(False)
print(name(s.connect_ex((a, int(sys.argv[1])))))' "$port")
if [ "$out" = EACCES ] && [ ! -s "$dir/log" ] && grep -q "resolves to 127.0.0.1" "$dir/stderr"; then
        out=$(run "${names[@]}" "${lo[@]}" -- '
a, _ = resolve("lo.test")
r, took, e, s = nb(a, int(sys.argv[1]))
print(r, e, echo(s))' "$port")
        if [ "$out" = "EINPROGRESS 0 nb" ]; then
                ok "a kept answer is decided as a fresh one: lo.test (loopback) refused without --allow-address (EACCES, nothing reached), reached with it"
        else
                not_ok "lo.test with --allow-address" "$out"
        fi
else
        not_ok "lo.test without --allow-address" "$out" "$(cat "$dir/log")" "$(cat "$dir/stderr")"
fi
# rebinding: flip.test answers 127.0.0.1 first, then 127.0.0.2, which
# --allow-address does not name: within the lifetime the connect dials what
# the query's lookup found; past it, the fresh answer, refused
: >"$dir/log"
: >"$dir/dnslog"
out=$(run "${names[@]}" "${lo[@]}" -- '
p = int(sys.argv[1])
a, _ = resolve("flip.test")
r, took, e, s = nb(a, p)
res = [r, e, echo(s)]
time.sleep(float(sys.argv[2]))
s = socket.socket(); s.setblocking(False); res.append(name(s.connect_ex((a, p))))
print(*res)' "$port" "$((LIFETIME + 1))")
if [ "$out" = "EINPROGRESS 0 nb EACCES" ] && [ "$(a_queries flip.test)" = 2 ] &&
        grep -q "flip.test resolves to 127.0.0.2" "$dir/stderr"; then
        ok "rebinding: flip.test's later answer (127.0.0.2) is refused once it is the one dialled; within the lifetime the query's answer is used"
else
        not_ok "rebinding" "$out" "A queries: $(a_queries flip.test)" "$(cat "$dir/stderr")"
fi

# ---- refused upstreams: through SO_ERROR, not a success -------------------------
out=$(run "${names[@]}" "${lo[@]}" -- '
a, _ = resolve("slow.test")
h, _ = resolve("host.cordon.internal")
res = []
for addr in (a, h):
    r, took, e, s = nb(addr, int(sys.argv[1]))
    res += [r, took < 0.15, e]
try:
    socket.create_connection((a, int(sys.argv[1])), timeout=10); res.append("connected")
except OSError as x:
    res.append(name(x.errno))
print(*res)' "$free")
if [ "$out" = "EINPROGRESS True ECONNREFUSED EINPROGRESS True ECONNREFUSED ECONNREFUSED" ] &&
        grep -q "its connect failed: the caller reads why in SO_ERROR" "$dir/stderr"; then
        ok "a closed port: the non-blocking connect is EINPROGRESS at once and SO_ERROR says ECONNREFUSED (a name's kept answer, and a literal)"
        ok "the same closed port by a blocking connect: ECONNREFUSED from connect, as before"
else
        not_ok "refused upstream" "$out" "$(cat "$dir/stderr")"
fi
# a blocking connect to the open port: connected, unchanged
out=$(run "${names[@]}" "${lo[@]}" -- '
a, _ = resolve("slow.test")
s = socket.create_connection((a, int(sys.argv[1])), timeout=10); print(echo(s, b"blocking"))' "$port")
if [ "$out" = blocking ]; then
        ok "control: a blocking connect to slow.test:$port connects and echoes"
else
        not_ok "blocking connect" "$out" "$(cat "$dir/stderr")"
fi
# multi.test: 127.0.0.2 refuses at once; the proxy moves on to 127.0.0.1
# before it answers, so the caller's socket is the one that connected
out=$(run "${names[@]}" "${lo[@]}" --allow-address 127.0.0.2 -- '
a, _ = resolve("multi.test")
r, took, e, s = nb(a, int(sys.argv[1]))
print(r, took < 0.15, e, echo(s), s.getpeername()[0])' "$port")
if [ "$out" = "EINPROGRESS True 0 nb 127.0.0.1" ]; then
        ok "a name whose first address refuses at once: the non-blocking connect gets the next one's connection (SO_ERROR 0)"
else
        not_ok "multi-address" "$out" "$(cat "$dir/stderr")"
fi

finish
