#!/usr/bin/env bash
# Unix sockets that lead out of the sandbox (the ssh agent, the user's runtime
# directory) are unreachable under both backends and every confining mode;
# the unconfined control reaches the same listener.
. "$(dirname "$0")/tap.sh"

# Outside /tmp on purpose: a private /tmp would hide it for the wrong reason.
dir=$(mktemp -d /var/tmp/cordon-it-sock.XXXXXX)
ws=$(mktemp -d /tmp/cordon-it-sockws.XXXXXX)
mkdir -p "$dir/runtime"
export XDG_CACHE_HOME=$dir/cache
export SSH_AUTH_SOCK=$dir/agent.sock XDG_RUNTIME_DIR=$dir/runtime

listener() { # path log
        python3 - "$1" "$2" <<'PY' &
import os, socket, sys
path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(8)
s.settimeout(60)
while True:
    try:
        c, _ = s.accept()
    except OSError:
        break
    open(log, "a").write("connected\n")
    c.sendall(b"pong\n")
    c.close()
PY
}
listener "$SSH_AUTH_SOCK" "$dir/agent.log"; p1=$!
listener "$XDG_RUNTIME_DIR/bus" "$dir/bus.log"; p2=$!
trap 'kill $p1 $p2 2>/dev/null; rm -rf "$dir" "$ws"' EXIT
for _ in $(seq 50); do [ -S "$SSH_AUTH_SOCK" ] && [ -S "$XDG_RUNTIME_DIR/bus" ] && break; sleep 0.1; done

connect='import socket,sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
s.connect(sys.argv[1])
sys.stdout.write(s.recv(10).decode())'

backends=(native)
command -v bwrap >/dev/null && backends+=(bwrap)

for b in "${backends[@]}"; do
        for mode in read-only workspace-write; do
                for sock in agent bus; do
                        path=$SSH_AUTH_SOCK; log=$dir/agent.log
                        [ $sock = bus ] && path=$XDG_RUNTIME_DIR/bus && log=$dir/bus.log
                        rm -f "$log"
                        out=$("$CORDON" run --backend "$b" --mode $mode --workspace "$ws" -- python3 -c "$connect" "$path" 2>&1)
                        rc=$?
                        if [ $rc -ne 0 ] && [ ! -e "$log" ] && ! echo "$out" | grep -q pong; then
                                ok "$b $mode: $sock socket unreachable"
                        else
                                not_ok "$b $mode: $sock socket unreachable" "rc=$rc" "$out"
                        fi
                done
        done
done

# Controls: the listeners are really there.
for sock in agent bus; do
        path=$SSH_AUTH_SOCK
        [ $sock = bus ] && path=$XDG_RUNTIME_DIR/bus
        out=$("$CORDON" run --mode danger-full-access -- python3 -c "$connect" "$path" 2>&1)
        if echo "$out" | grep -q pong; then ok "control: $sock socket reachable unconfined"; else not_ok "control: $sock reachable" "$out"; fi
done

finish
