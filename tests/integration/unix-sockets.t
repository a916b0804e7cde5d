#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The unix gate (full isolation, --net none): a pathname socket a HOST
# process bound is unreachable from inside, wherever it lives (the
# workspace, HOME, a directory outside every writable root), for stream
# connects and datagrams alike; sockets the sandbox binds itself work, fd
# passing works, --allow-unix-socket admits exactly the named socket, and a
# thread rewriting the address during the connect never reaches the host.
# Every refusal has an unconfined control that reaches the same server.
set -u

. "$(dirname "$0")/tap.sh"

tap_base ug

H=$BASE/home WS=$BASE/ws OUT=$BASE/out BIN=$BASE/bin
mkdir -p "$H" "$WS" "$OUT" "$BIN"

crun() { # crun ARGS... : cordon run in WS with HOME=$H; prints the JSON result
        (cd "$WS" && HOME=$H "$CORDON" run --backend native --json "$@")
}
field() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("" if v is None else v)' "$1"; }

cat > "$BIN/server.py" <<'EOF'
import os, socket, sys
kind, path, log = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM if kind == "stream" else socket.SOCK_DGRAM)
s.bind(path)
if kind == "stream":
    s.listen(64)
open(path + ".ready", "w").close()
while True:
    if kind == "stream":
        c, _ = s.accept()
        with open(log, "a") as f:
            f.write("connected\n")
        try:
            c.sendall(b"pong\n")
        except OSError:
            pass
        c.close()
    else:
        s.recv(100)
        with open(log, "a") as f:
            f.write("datagram\n")
EOF

cat > "$BIN/client.py" <<'EOF'
import socket, sys
kind = sys.argv[1]
for path in sys.argv[2:]:
    if kind == "stream":
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(path)
        print(path, s.recv(10).decode().strip())
    else:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.sendto(b"ping", path)
        print(path, "sent")
EOF

# Connects to each path, reporting instead of failing (for the allow test).
cat > "$BIN/try.py" <<'EOF'
import socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    try:
        s.connect(path)
        print(path, s.recv(10).decode().strip())
    except OSError as e:
        print(path, "errno", e.errno)
EOF

# The sandbox's own servers: stream and datagram, bound in the workspace
# (absolute and relative) and in the private /tmp, used in the same run.
cat > "$BIN/own.py" <<'EOF'
import os, socket, sys, threading
ws = sys.argv[1]
os.chdir(ws)
for base, name in ((ws, os.path.join(ws, "own.sock")), ("/tmp", "/tmp/own.sock"), ("relative", "rel.sock")):
    s = socket.socket(socket.AF_UNIX)
    s.bind(name)
    s.listen(4)
    def serve():
        c, _ = s.accept()
        c.sendall(c.recv(10).upper())
        c.close()
    t = threading.Thread(target=serve)
    t.start()
    c = socket.socket(socket.AF_UNIX)
    c.settimeout(5)
    c.connect(name)
    c.sendall(b"hello")
    print(base, c.recv(10).decode())
    t.join()
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    d.bind(name + ".dgram")
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"dgram", name + ".dgram")
    print(base, d.recv(10).decode())
    os.unlink(name)
    os.unlink(name + ".dgram")
EOF

# Two sandbox processes pass a pipe's read end over a socketpair.
cat > "$BIN/fds.py" <<'EOF'
import os, socket
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.close()
    r, w = os.pipe()
    os.write(w, b"through the pipe")
    socket.send_fds(b, [b"fd"], [r])
    os._exit(0)
b.close()
msg, fds, _, _ = socket.recv_fds(a, 10, 1)
os.waitpid(pid, 0)
print(msg.decode(), len(fds), os.read(fds[0], 100).decode())
EOF

# One thread flips the address buffer between the sandbox's own socket and
# a host socket (equal lengths) while this one connects in a loop for ~1 s.
cat > "$BIN/race.py" <<'EOF'
import ctypes, errno, os, socket, sys, threading, time
host = sys.argv[1].encode()
own = ("/tmp/" + "o" * (len(host) - 5)).encode()
assert len(own) == len(host) < 108
libc = ctypes.CDLL(None, use_errno=True)
srv = socket.socket(socket.AF_UNIX)
srv.bind(own)
srv.listen(1024)
def acceptor():
    while True:
        srv.accept()[0].close()
threading.Thread(target=acceptor, daemon=True).start()
class SA(ctypes.Structure):
    _fields_ = [("family", ctypes.c_ushort), ("path", ctypes.c_char * 108)]
sa = SA(socket.AF_UNIX, own)
where = ctypes.addressof(sa) + SA.path.offset
stop = False
def flipper():
    while not stop:
        ctypes.memmove(where, host, len(host))
        ctypes.memmove(where, own, len(own))
threading.Thread(target=flipper, daemon=True).start()
counts = {"connected": 0, "denied": 0, "other": 0}
end = time.monotonic() + 1.0
while time.monotonic() < end:
    s = socket.socket(socket.AF_UNIX)
    s.setblocking(False)
    if libc.connect(s.fileno(), ctypes.byref(sa), ctypes.sizeof(sa)) == 0:
        counts["connected"] += 1
    elif ctypes.get_errno() == errno.EACCES:
        counts["denied"] += 1
    else:
        counts["other"] += 1
    s.close()
stop = True
print(" ".join("%s=%d" % kv for kv in counts.items()))
EOF

# A blocking send into a full socket is parked by init, which goes on
# serving others; then sendmmsg, to the sandbox's own socket and a host one.
cat > "$BIN/block.py" <<'EOF'
import hashlib, os, socket, sys, threading, time
# A blocking sendmsg into a full socket is parked by init, not stalling it:
# meanwhile another thread connects and sends through the gate.
a, b = socket.socketpair()
data = os.urandom(6 << 20)
done = {}
def writer():
    v = memoryview(data)
    while v:
        n = a.sendmsg([v])
        done.setdefault("first", n)
        v = v[n:]
    done["w"] = time.monotonic()
t = threading.Thread(target=writer)
t.start()
time.sleep(0.3)  # the writer is parked on a full socket now
for _p in ("/tmp/side.sock", "/tmp/own.dgram"):
    try: os.unlink(_p)
    except FileNotFoundError: pass
s = socket.socket(socket.AF_UNIX); s.bind("/tmp/side.sock"); s.listen(1)
def side():
    c = socket.socket(socket.AF_UNIX); c.connect("/tmp/side.sock"); c.sendmsg([b"side"]); c.close()
st = threading.Thread(target=side); st.start()
conn, _ = s.accept()
print("side", conn.recv(10).decode(), "writer parked" if "w" not in done else "writer finished early")
st.join()
got = bytearray()
while len(got) < len(data):
    got += b.recv(1 << 20)
t.join()
print("intact" if hashlib.sha256(got).digest() == hashlib.sha256(data).digest() else "CORRUPT", len(got))
print("first sendmsg", done["first"])
# sendmmsg through ctypes: two datagrams to our own socket
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
class IOV(ctypes.Structure): _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class MSG(ctypes.Structure): _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.POINTER(IOV)), ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t), ("flags", ctypes.c_int)]
class MMSG(ctypes.Structure): _fields_ = [("hdr", MSG), ("len", ctypes.c_uint)]
class SUN(ctypes.Structure): _fields_ = [("family", ctypes.c_ushort), ("path", ctypes.c_char * 108)]
def mmsg(dest, payloads):
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sun = SUN(socket.AF_UNIX, dest.encode())
    bufs = [ctypes.create_string_buffer(p) for p in payloads]
    iovs = [IOV(ctypes.cast(bb, ctypes.c_void_p), len(p)) for bb, p in zip(bufs, payloads)]
    vec = (MMSG * len(payloads))()
    for i, iv in enumerate(iovs):
        vec[i].hdr.name = ctypes.cast(ctypes.byref(sun), ctypes.c_void_p); vec[i].hdr.namelen = ctypes.sizeof(sun)
        vec[i].hdr.iov = ctypes.pointer(iv); vec[i].hdr.iovlen = 1
    r = libc.sendmmsg(d.fileno(), vec, len(payloads), 0)
    return r, ctypes.get_errno(), [vec[i].len for i in range(len(payloads))]
r = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); r.bind("/tmp/own.dgram")
print("sendmmsg own", mmsg("/tmp/own.dgram", [b"one", b"three"]), r.recv(10), r.recv(10))
if len(sys.argv) > 1:
    print("sendmmsg host", mmsg(sys.argv[1], [b"x"]))
# MSG_DONTWAIT on a blocking socket: EAGAIN when full, never parked
c, d = socket.socketpair()
try:
    while True:
        c.sendmsg([b"y" * 65536], [], socket.MSG_DONTWAIT)
except BlockingIOError:
    print("dontwait EAGAIN")
EOF

start_server() { # start_server KIND PATH LOG
        "$PY" "$BIN/server.py" "$1" "$2" "$3" &
        PIDS+=($!)
        for _ in $(seq 100); do [ -e "$2.ready" ] && return 0; sleep 0.05; done
        return 1
}

# ---- is the gate there at all? ---------------------------------------------
report=$("$CORDON" exec --report -- true 2>&1)
if ! grep -q "isolation=full" <<<"$report"; then
        skip "unix gate" "no full isolation here (no usable user namespace): $report"
        finish
        exit $?
fi

# ---- host stream servers: workspace, HOME, outside every writable root -----
declare -A SOCK=([workspace]=$WS/host.sock [home]=$H/host.sock [outside]=$OUT/host.sock)
for where in workspace home outside; do
        path=${SOCK[$where]} log=$BASE/$where.log
        if ! start_server stream "$path" "$log"; then
                not_ok "$where: host server did not start"
                continue
        fi
        out=$("$PY" "$BIN/client.py" stream "$path" 2>&1)
        if grep -q pong <<<"$out" && [ -s "$log" ]; then
                ok "control: $where host socket reachable unconfined"
        else
                not_ok "control: $where host socket reachable unconfined" "$out"
                continue
        fi
        rm -f "$log"
        json=$(crun -- "$PY" "$BIN/client.py" stream "$path")
        v=$(field verdict <<<"$json") o=$(field output <<<"$json")
        if [ "$v" = denied ] && grep -q "Errno 13" <<<"$o" && [ ! -e "$log" ]; then
                ok "$where: connect to the host socket refused (EACCES, denied, nothing logged)"
        else
                not_ok "$where: connect to the host socket refused" "verdict=$v log=$(cat "$log" 2>/dev/null)" "$o"
        fi
        # the gate's own word: a denial record, source kernel, whatever the
        # client printed (here nothing: it swallows the error and exits 0)
        json=$(crun -- "$PY" -c 'import socket,sys
s=socket.socket(socket.AF_UNIX)
try: s.connect(sys.argv[1])
except OSError: pass' "$path")
        if "$PY" -c 'import json,sys
d=json.load(sys.stdin)
k=[(x["path"], x["op"], x["mechanism"]) for x in d["denials"] if x["source"] == "kernel"]
sys.exit(not (d["verdict"] == "ok" and k == [(sys.argv[1], "connect", "unix-gate")]))' "$(readlink -f "$path")" <<<"$json"; then
                ok "$where: the refused connect is a kernel denial (unix-gate) though the client said nothing and exited 0"
        else
                not_ok "$where: the unix gate's denial record" "$json"
        fi
done

# ---- a host datagram socket ------------------------------------------------
dpath=$OUT/host.dgram dlog=$BASE/dgram.log
if start_server dgram "$dpath" "$dlog"; then
        "$PY" "$BIN/client.py" dgram "$dpath" >/dev/null 2>&1
        for _ in $(seq 50); do [ -s "$dlog" ] && break; sleep 0.05; done
        if [ -s "$dlog" ]; then ok "control: datagram reaches the host socket unconfined"; else not_ok "control: datagram unconfined"; fi
        rm -f "$dlog"
        json=$(crun -- "$PY" "$BIN/client.py" dgram "$dpath")
        sleep 0.2
        v=$(field verdict <<<"$json") o=$(field output <<<"$json")
        if [ "$v" = denied ] && grep -q "Errno 13" <<<"$o" && [ ! -e "$dlog" ]; then
                ok "sendto the host datagram socket refused (EACCES, denied, nothing received)"
        else
                not_ok "sendto the host datagram socket refused" "verdict=$v" "$o"
        fi
else
        not_ok "datagram host server did not start"
fi

# ---- the sandbox's own sockets ---------------------------------------------
json=$(crun -- "$PY" "$BIN/own.py" "$WS")
v=$(field verdict <<<"$json") o=$(field output <<<"$json")
if [ "$v" = ok ] && [ "$(grep -c 'HELLO' <<<"$o")" = 3 ] && [ "$(grep -c ' dgram' <<<"$o")" = 3 ]; then
        ok "own stream and datagram servers (workspace, /tmp, relative path) work"
else
        not_ok "own servers work" "verdict=$v" "$o"
fi

json=$(crun -- "$PY" "$BIN/fds.py")
v=$(field verdict <<<"$json") o=$(field output <<<"$json")
if [ "$v" = ok ] && grep -q "^fd 1 through the pipe" <<<"$o"; then
        ok "SCM_RIGHTS between two sandbox processes works"
else
        not_ok "SCM_RIGHTS works" "verdict=$v" "$o"
fi

rm -f "$dlog"
json=$(crun --timeout 30 -- "$PY" "$BIN/block.py" "$dpath")
v=$(field verdict <<<"$json") o=$(field output <<<"$json")
if [ "$v" = ok ] && grep -q "^side side writer parked" <<<"$o" && grep -q "^intact 6291456" <<<"$o"; then
        ok "a blocking sendmsg on a full socket is parked; init serves another thread meanwhile; 6 MiB arrive intact"
else
        not_ok "parked blocking send" "verdict=$v" "$o"
fi
# blocking: all of it, up to the gate's 4 MiB cap per call (no short count)
if grep -q "^first sendmsg 4194304" <<<"$o"; then
        ok "a blocking 6 MiB sendmsg on a stream returns 4 MiB (the cap), not the socket buffer's worth"
else
        not_ok "blocking sendmsg returns the cap" "$o"
fi
if grep -q "^sendmmsg own (2, 0, \[3, 5\]) b'one' b'three'" <<<"$o"; then
        ok "sendmmsg of two datagrams to the sandbox's own socket: count and msg_len right"
else
        not_ok "sendmmsg to an own socket" "$o"
fi
if grep -q "^dontwait EAGAIN" <<<"$o"; then
        ok "sendmsg with MSG_DONTWAIT on a full blocking socket: EAGAIN, not parked"
else
        not_ok "MSG_DONTWAIT on a full socket" "$o"
fi
sleep 0.2
if grep -q "^sendmmsg host (-1, 13, \[0\])" <<<"$o" && [ ! -e "$dlog" ]; then
        ok "sendmmsg to the host datagram socket refused (EACCES, nothing received)"
else
        not_ok "sendmmsg to a host socket refused" "$o"
fi

# ---- --allow-unix-socket admits exactly the named socket -------------------
apath=$OUT/a.sock alog=$BASE/a.log
if start_server stream "$apath" "$alog"; then
        out=$("$PY" "$BIN/client.py" stream "$apath" 2>&1)
        if grep -q pong <<<"$out"; then ok "control: allowed socket reachable unconfined"; else not_ok "control: allowed socket" "$out"; fi
        rm -f "$alog" "$BASE/outside.log"
        json=$(crun --allow-unix-socket "$apath" -- "$PY" "$BIN/try.py" "$apath" "${SOCK[outside]}")
        o=$(field output <<<"$json")
        if grep -q "^$apath pong" <<<"$o" && [ "$(wc -l <"$alog" 2>/dev/null)" = 1 ]; then
                ok "--allow-unix-socket: the named host socket is reachable"
        else
                not_ok "--allow-unix-socket: the named host socket is reachable" "$o"
        fi
        if grep -q "^${SOCK[outside]} errno 13" <<<"$o" && [ ! -e "$BASE/outside.log" ]; then
                ok "--allow-unix-socket: a second host socket stays refused"
        else
                not_ok "--allow-unix-socket: a second host socket stays refused" "$o"
        fi
        # the same through a profile (network.allow_unix_sockets), inherited
        # by a profile that extends it
        printf '{ "extends": "default", "network": { "allow_unix_sockets": ["%s"] } }\n' "$apath" > "$BASE/parent.json"
        printf '{ "extends": "%s" }\n' "$BASE/parent.json" > "$BASE/child.json"
        rm -f "$alog" "$BASE/outside.log"
        json=$(crun --profile "$BASE/child.json" -- "$PY" "$BIN/try.py" "$apath" "${SOCK[outside]}")
        o=$(field output <<<"$json")
        if grep -q "^$apath pong" <<<"$o" && grep -q "^${SOCK[outside]} errno 13" <<<"$o" && [ ! -e "$BASE/outside.log" ]; then
                ok "profile network.allow_unix_sockets (inherited through extends) admits exactly its socket"
        else
                not_ok "profile network.allow_unix_sockets" "$o"
        fi
else
        not_ok "allowed host server did not start"
fi

# ---- through /proc/self/fd: an O_PATH fd of the socket, the caller's own ----
rm -f "$BASE/outside.log"
json=$(crun -- "$PY" -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind("/tmp/mine.sock"); s.listen(1)
mine = os.open("/tmp/mine.sock", os.O_PATH)
socket.socket(socket.AF_UNIX).connect("/proc/self/fd/%d" % mine); print("own via /proc/self")
host = os.open(sys.argv[1], os.O_PATH)
socket.socket(socket.AF_UNIX).connect("/proc/thread-self/fd/%d" % host); print("HOST REACHED")' "${SOCK[outside]}")
v=$(field verdict <<<"$json") o=$(field output <<<"$json")
if [ "$v" = denied ] && grep -q "^own via /proc/self" <<<"$o" && grep -q "Errno 13" <<<"$o" && [ ! -e "$BASE/outside.log" ]; then
        ok "/proc/self/fd/N: the own socket is reachable, a host socket's O_PATH fd is refused"
else
        not_ok "/proc/self/fd/N paths" "verdict=$v" "$o"
fi

# ---- the race: the address changes under the check -------------------------
rm -f "$BASE/outside.log"
json=$(crun -- "$PY" "$BIN/race.py" "${SOCK[outside]}")
o=$(field output <<<"$json")
c=$(sed -n 's/.*connected=\([0-9]*\).*/\1/p' <<<"$o") d=$(sed -n 's/.*denied=\([0-9]*\).*/\1/p' <<<"$o")
if [ -n "$c" ] && [ "$c" -gt 0 ] && [ "${d:-0}" -gt 0 ] && [ ! -e "$BASE/outside.log" ]; then
        ok "address flipped during connect: the host server saw nothing ($o)"
else
        not_ok "address flipped during connect: the host server saw nothing" "$o" \
                "host log: $(cat "$BASE/outside.log" 2>/dev/null | wc -l) connections"
fi

# ---- TCP and UDP on the sandbox's own loopback go through -------------------
json=$(crun -- "$PY" -c '
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"udp", u.getsockname()); print(u.recv(10).decode())')
o=$(field output <<<"$json")
if grep -q "^udp" <<<"$o"; then ok "UDP sendto on the sandbox's loopback works"; else not_ok "UDP on loopback" "$o"; fi
json=$(crun -- "$PY" -c '
import socket
socket.socket().connect(("127.0.0.1", 9))')
v=$(field verdict <<<"$json") o=$(field output <<<"$json")
# its own loopback, where nothing listens on port 9: refused by the peer, not by cordon
if [ "$v" != denied ] && grep -q "Errno 111" <<<"$o"; then
        ok "TCP connect on the sandbox's own loopback reaches it (ECONNREFUSED: nothing listens there)"
else
        not_ok "TCP connect on the sandbox's own loopback" "verdict=$v" "$o"
fi

# ---- the hand-over: init holds the listener from its birth -----------------
# The command makes its listener in the fd table it still shares with init
# and takes a table of its own before anything else (unix_gate_offer): a
# connect as the command's first act is refused each time (never let
# through, never ENOSYS for want of a listener), and the command's table
# holds nothing of init's: no listener, no pinned socket, no pidfd.
rm -f "$BASE/outside.log"
bad=""
for i in $(seq 10); do
        json=$(crun -- "$PY" -c 'import socket,sys
socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print("HOST REACHED")' "${SOCK[outside]}")
        v=$(field verdict <<<"$json") o=$(field output <<<"$json")
        if [ "$v" != denied ] || ! grep -q "Errno 13" <<<"$o" || grep -q "HOST REACHED" <<<"$o"; then
                bad="run $i: verdict=$v $o"
                break
        fi
done
if [ -z "$bad" ] && [ ! -e "$BASE/outside.log" ]; then
        ok "hand-over: a connect as the command's first act is refused, 10 runs of 10 (EACCES, nothing logged)"
else
        not_ok "hand-over: the first connect refused" "$bad" "host log: $(cat "$BASE/outside.log" 2>/dev/null | wc -l)"
fi
json=$(crun --allow-unix-socket "${SOCK[workspace]}" -- "$PY" -c 'import os
for n in sorted(int(f) for f in os.listdir("/proc/self/fd")):
    try:
        print(n, os.readlink("/proc/self/fd/%d" % n))
    except FileNotFoundError:
        pass # the fd of the listing itself')
o=$(field output <<<"$json")
if [ "$(awk '{print $1}' <<<"$o" | tr '\n' ' ')" = "0 1 2 " ] && ! grep -qE "seccomp|socket|pidfd|anon_inode" <<<"$o"; then
        ok "hand-over: the command's fd table is its own (0 1 2 only; no listener, pin or pidfd of init's)"
else
        not_ok "hand-over: the command's fd table" "$o"
fi

# ---- started in init's memory: confined in full from its first instruction --
# init starts the command with CLONE_VM|CLONE_VFORK: what the command reads
# of itself first is the whole confinement (both filters, no_new_privs, no
# capability in any set); control: the same read unconfined shows a
# bounding set.
STATUS_PY='print(" ".join(l.split(":")[0] + "=" + l.split()[1] for l in open("/proc/self/status") if l.split(":")[0] in ("Seccomp_filters", "NoNewPrivs", "CapEff", "CapPrm", "CapBnd", "CapAmb")))'
o=$("$PY" -c "$STATUS_PY" 2>&1)
if grep -q "CapBnd=0*[1-9a-f]" <<<"$o"; then ok "control: unconfined, the bounding set is not empty ($o)"; else not_ok "control: unconfined status" "$o"; fi
json=$(crun -- "$PY" -c "$STATUS_PY")
o=$(field output <<<"$json")
if [ "$o" = "CapPrm=0000000000000000 CapEff=0000000000000000 CapBnd=0000000000000000 CapAmb=0000000000000000 NoNewPrivs=1 Seccomp_filters=2" ]; then
        ok "started in init's memory: both filters, no_new_privs, every capability set empty at the first instruction"
else
        not_ok "the command's confinement at its first instruction" "$o"
fi

# ---- what is not gated says so ---------------------------------------------
e=$(cd "$WS" && "$CORDON" explain --backend native -- true 2>&1)
if grep -q "unix gate:" <<<"$e"; then ok "explain: the gate is in the plan under --net none"; else not_ok "explain shows the gate" "$e"; fi
e=$(cd "$WS" && "$CORDON" explain --backend native --net host -- true 2>&1)
if grep -q "pathname unix sockets not gated (--net host)" <<<"$e" && ! grep -q "unix gate:" <<<"$e"; then
        ok "explain: --net host says pathname sockets are not gated"
else
        not_ok "explain under --net host" "$e"
fi

# ---- an allowed socket is pinned: swapping its name reaches nothing else ----
# The allowed socket lives in the workspace (a host server the test starts);
# the sandbox replaces its name with a symlink to another host socket, or
# renames another host socket (also in the workspace) over it, then connects
# to the allowed name: refused, and the other server receives nothing.
pin=$WS/agent.sock pinlog=$BASE/pin.log
other=$WS/other.sock otherlog=$BASE/other.log
if start_server stream "$pin" "$pinlog" && start_server stream "$other" "$otherlog"; then
        rm -f "$pinlog" "$otherlog"
        o=$(crun --allow-unix-socket "$pin" -- "$PY" "$BIN/try.py" "$pin" | field output)
        if grep -q "^$pin pong" <<<"$o" && [ "$(wc -l <"$pinlog" 2>/dev/null)" = 1 ]; then
                ok "control: the allowed socket in the workspace is reachable"
        else
                not_ok "control: the allowed socket in the workspace is reachable" "$o"
        fi
        rm -f "$pinlog" "$otherlog" "$BASE/outside.log"
        o=$(crun --allow-unix-socket "$pin" -- sh -c "mv '$pin' '$WS/saved.sock' && ln -s '${SOCK[outside]}' '$pin' && '$PY' '$BIN/try.py' '$pin'" | field output)
        if grep -q "^$pin errno" <<<"$o" && [ ! -e "$BASE/outside.log" ]; then
                ok "the allowed name swapped for a symlink to a host socket: connect refused, nothing received"
        else
                not_ok "the allowed name swapped for a symlink to a host socket" "$o"
        fi
        rm -f "$pin"; mv "$WS/saved.sock" "$pin"
        o=$(crun --allow-unix-socket "$pin" -- sh -c "mv '$other' '$pin' && '$PY' '$BIN/try.py' '$pin'" | field output)
        if grep -q "^$pin errno" <<<"$o" && [ ! -e "$otherlog" ]; then
                ok "another host socket renamed over the allowed name: connect refused, nothing received"
        else
                not_ok "another host socket renamed over the allowed name" "$o"
        fi
        "$PY" "$BIN/client.py" stream "$pin" >/dev/null 2>&1
        check "control: unconfined, the socket renamed in answers at that name" [ -s "$otherlog" ]
        rm -f "$pin"; ln -s "${SOCK[outside]}" "$pin"
        crun --allow-unix-socket "$pin" -- true >/dev/null 2>&1
        check "an allowed name that is already a symlink in a writable root refuses the run" [ $? -ne 0 ]
else
        not_ok "pinned-socket servers did not start"
fi

# ---- --net host: the gate holds where the execute-only gate relies on it ----
# Without it a host service over a pathname socket (a shell's, a build
# daemon's) would run for the sandbox what the gate forbids. The host's
# network is shared, so the sandbox's own sockets are told by the processes
# holding them (init's /proc is the sandbox's).
xg=()
for d in /usr /bin /lib /lib64 /lib32; do [ -e "$d" ] && xg+=(--exec "$d"); done
hostx() { (cd "$WS" && HOME=$H "$CORDON" exec --net host --private-tmp --write /tmp --exec-gate "${xg[@]}" -- "$@"); }
rm -f "$BASE/outside.log"
o=$(hostx "$PY" "$BIN/try.py" "${SOCK[outside]}" 2>&1)
if grep -q "^${SOCK[outside]} errno 13" <<<"$o" && [ ! -e "$BASE/outside.log" ]; then
        ok "--net host with the execute-only gate: a host socket is refused (EACCES), nothing received"
else
        not_ok "--net host with the execute-only gate: a host socket is refused" "$o"
fi
o=$(hostx "$PY" -c '
import socket
m = socket.socket(socket.AF_UNIX); m.bind("/tmp/own.sock"); m.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("/tmp/own.sock"); print("own ok")' 2>&1)
check "--net host with the execute-only gate: the sandbox's own socket works" grep -q "own ok" <<<"$o"
rm -f "$BASE/outside.log"
o=$(cd "$WS" && HOME=$H "$CORDON" exec --net host --private-tmp --write /tmp -- "$PY" "$BIN/try.py" "${SOCK[outside]}" 2>&1)
check "control: --net host without an execute-only gate shares the host's sockets (documented)" grep -q "^${SOCK[outside]} pong" <<<"$o"

finish
