#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The native runner lets ordinary work through: writes in the workspace and
# the private /tmp, git, python, a C compiler, pipes, job control; exit codes
# and signals come back faithfully; protection makes nothing in the workspace.
# Each check runs unconfined first (the control) so a failure means cordon.
set -u

. "$(dirname "$0")/tap.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

unset TMPDIR
BASE=$(mktemp -d /var/tmp/cordon-allow.XXXXXX)
trap 'rm -rf "$BASE"' EXIT
H=$BASE/home
mkdir -p "$H"

WS=$BASE/ws
mkdir -p "$WS"
git -C "$WS" init -q
git -C "$WS" config user.email t@example.org
git -C "$WS" config user.name t
echo hello > "$WS/README"
git -C "$WS" add README
git -C "$WS" commit -q -m init

crun() { (cd "$WS" && HOME=$H "$CORDON" run --backend native --json "$@"); }
field() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("" if v is None else v)' "$1"; }

# allowed DESC EXPECTED_OUTPUT_REGEX CMD...: control unconfined, then confined
# must exit 0, classify ok and print something matching the regex.
allowed() {
        local desc=$1 re=$2 j out
        shift 2
        if ! (cd "$WS" && "$@") >/dev/null 2>&1; then
                not_ok "control failed, so the check would prove nothing: $desc"
                return
        fi
        j=$(crun "$@")
        out=$(field output <<<"$j")
        if [ "$(field exit_code <<<"$j")" = 0 ] && [ "$(field verdict <<<"$j")" = ok ] && grep -qE "$re" <<<"$out"; then
                ok "$desc"
        else
                not_ok "$desc"
                diag "$j"
        fi
}

allowed "write inside the workspace" '^inside$' sh -c 'echo inside > new-file && cat new-file'
[ "$(cat "$WS/new-file" 2>/dev/null)" = inside ] && ok "the write reached the host workspace" ||
        not_ok "the workspace write did not reach the host"
rm -f "$WS/new-file"

allowed "write in /tmp" '^tmp$' sh -c 'echo tmp > /tmp/cordon-allow && cat /tmp/cordon-allow && rm /tmp/cordon-allow'
j=$(crun sh -c 'echo private > /tmp/cordon-private-$$; ls /tmp | wc -l')
[ "$(field output <<<"$j")" = 1 ] && ! ls /tmp/cordon-private-* >/dev/null 2>&1 &&
        ok "/tmp is private: empty at start, gone afterwards" || { not_ok "/tmp is not private"; diag "$j"; }

allowed "git status" 'nothing to commit|working tree clean' git status
allowed "git commit in the workspace" 'second' sh -c 'echo more >> README && git commit -qam second && git log --format=%s -1'

allowed "python3 -c" '^4$' "$PY" -c 'print(2 + 2)'

if command -v cc >/dev/null; then
        printf '#include <stdio.h>\nint main(void) { puts("compiled"); return 0; }\n' > "$WS/hello.c"
        allowed "cc compiles a file in the workspace" '^compiled$' sh -c 'cc -o hello hello.c && ./hello'
        rm -f "$WS/hello" "$WS/hello.c"
else
        skip "cc: no C compiler"
fi

allowed "pipes" '^100$' sh -c 'seq 1 100 | sort -rn | head -1'
allowed "job control in sh -c" 'status=143' bash -c 'set -m; sleep 10 & kill -TERM %1; wait %1; echo status=$?'
allowed "background jobs and wait" '^a b$' sh -c '(sleep 0.1; echo a > j1) & (echo b > j2) & wait; echo $(cat j1 j2); rm j1 j2'
allowed "write /dev/null and read /dev/zero" '^0+$' sh -c 'echo x > /dev/null && head -c 4 /dev/zero | od -An -tx1 | tr -d " "'
# A datagram to ourselves on 127.0.0.1: it arrives only if the sandbox's own
# loopback is up.
allowed "loopback inside" '^lo-up$' "$PY" -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.bind(("127.0.0.1", 0))
s.sendto(b"lo-up", s.getsockname())
print(s.recv(16).decode())'

# A test suite's local server: under --net none the sandbox has a loopback
# of its own, and TCP and UDP on it work (server and client in one run).
# That neither loopback reaches the other is checked in native-deny.t.
# srv.py CMD...: start `python -m http.server` on a free port of 127.0.0.1,
# run CMD with the port appended, stop the server.
cat > "$BASE/srv.py" <<'EOF'
import os, subprocess, sys, tempfile, time
d = tempfile.mkdtemp()
with open(os.path.join(d, "index.html"), "w") as f:
    f.write("served\n")
log = open(os.path.join(d, "log"), "w+")
srv = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "0"],
                       cwd=d, stdout=log, stderr=subprocess.STDOUT)
port = None
for _ in range(200):
    log.seek(0)
    t = log.read()
    if "port " in t:
        port = t.split("port ")[1].split()[0]
        break
    time.sleep(0.05)
r = subprocess.call(sys.argv[1:] + [port or "0"])
srv.kill()
sys.exit(r)
EOF
allowed "python -m http.server and a python client, inside one run" '^served$' "$PY" "$BASE/srv.py" "$PY" -c \
        'import sys, urllib.request; print(urllib.request.urlopen("http://127.0.0.1:%s/" % sys.argv[1], timeout=5).read().decode().strip())'
if command -v curl >/dev/null; then
        allowed "python -m http.server and curl, inside one run" '^served$' "$PY" "$BASE/srv.py" sh -c \
                'curl -sS --noproxy "*" --max-time 5 "http://127.0.0.1:$0/"'
else
        skip "curl: not installed"
fi
allowed "TCP on ::1 inside" '^six$' "$PY" -c 'import socket
s = socket.socket(socket.AF_INET6); s.bind(("::1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()[:2], timeout=3); a, _ = s.accept()
c.sendall(b"six"); print(a.recv(8).decode())'
allowed "a UDP echo server and client, inside one run" '^echo:ping$' "$PY" -c 'import socket, threading
srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); srv.bind(("127.0.0.1", 0))
def echo():
    d, a = srv.recvfrom(64); srv.sendto(b"echo:" + d, a)
threading.Thread(target=echo, daemon=True).start()
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.settimeout(3)
c.sendto(b"ping", srv.getsockname()); print(c.recv(64).decode())'

# exit codes and signals come back as they were
j=$(crun sh -c 'exit 7')
[ "$(field exit_code <<<"$j")" = 7 ] && ok "exit code 7 comes back" || { not_ok "exit code lost"; diag "$j"; }
(cd "$WS" && HOME=$H "$CORDON" run --backend native -- sh -c 'kill -TERM $$') >/dev/null 2>&1
rc=$?
[ $rc = 143 ] && ok "death by SIGTERM comes back (143)" || not_ok "death by SIGTERM came back as $rc"
j=$(crun sh -c 'kill -KILL $$')
[ "$(field signal <<<"$j")" = 9 ] && ok "death by SIGKILL comes back as signal 9" || { not_ok "SIGKILL lost"; diag "$j"; }

# a variable asked for passes; the value is not in the runner's command line
j=$(cd "$WS" && HOME=$H CORDON_IT_KEEP=kept-value "$CORDON" run --backend native --json --keep-env CORDON_IT_KEEP \
        -- sh -c 'echo $CORDON_IT_KEEP; tr "\0" " " < /proc/1/cmdline')
out=$(field output <<<"$j")
grep -q '^kept-value$' <<<"$out" && ok "--keep-env passes the variable" || { not_ok "--keep-env"; diag "$j"; }

# A script can tell it runs in a sandbox, and in which mode; the values are
# cordon's: the host's (kept by pattern or by a profile) and a caller's never
# replace them. The control: unconfined, the host's fake value is what a
# script would see.
showenv='echo "$CORDON_SANDBOX/$CORDON_SANDBOX_MODE"'
[ "$(CORDON_SANDBOX=fake CORDON_SANDBOX_MODE=fake sh -c "$showenv")" = fake/fake ] &&
        ok "control: unconfined, the host's CORDON_SANDBOX is what a script sees" || not_ok "control: CORDON_SANDBOX"
j=$(cd "$WS" && CORDON_SANDBOX=fake CORDON_SANDBOX_MODE=fake HOME=$H "$CORDON" run --backend native --json \
        --keep-env 'CORDON_*' -- sh -c "$showenv")
[ "$(field output <<<"$j")" = 1/workspace-write ] && ok "CORDON_SANDBOX=1 and the mode inside; a kept CORDON_* does not fake them" ||
        { not_ok "CORDON_SANDBOX inside"; diag "$j"; }
j=$(crun --mode read-only --isolation light -- sh -c "$showenv")
[ "$(field output <<<"$j")" = 1/read-only ] && ok "CORDON_SANDBOX_MODE=read-only under light isolation" ||
        { not_ok "CORDON_SANDBOX_MODE read-only"; diag "$j"; }
for a in "--setenv CORDON_SANDBOX=0" "--setenv CORDON_SANDBOX_MODE=danger-full-access" "--keep-env CORDON_SANDBOX"; do
        # shellcheck disable=SC2086
        if (cd "$WS" && CORDON_SANDBOX=0 HOME=$H "$CORDON" run --backend native $a -- true) >/dev/null 2>&1; then
                not_ok "$a was accepted"
        else
                ok "$a is refused: cordon owns the name"
        fi
done
printf '{"extends": "workspace-write", "environment": {"allow_vars": ["CORDON_SANDBOX_MODE"]}}\n' > "$BASE/owned.json"
if (cd "$WS" && CORDON_SANDBOX_MODE=fake HOME=$H "$CORDON" run --backend native --profile "$BASE/owned.json" -- true) >/dev/null 2>&1; then
        not_ok "a profile's allow_vars passes the host's CORDON_SANDBOX_MODE"
else
        ok "a profile's allow_vars cannot name CORDON_SANDBOX_MODE"
fi

# nothing cordon made in the workspace, nothing new in git status
st=$(git -C "$WS" status --porcelain)
[ -z "$st" ] && ok "no placeholder or litter in the workspace" || { not_ok "the workspace has litter"; diag "$st"; }

# light isolation works too
j=$(crun --isolation light sh -c 'echo light > light-file && cat light-file && rm light-file')
[ "$(field exit_code <<<"$j")" = 0 ] && [ "$(field output <<<"$j")" = light ] && ok "light isolation: workspace writes work" ||
        { not_ok "light isolation"; diag "$j"; }

# a workspace below /tmp is bound back into the private /tmp
TW=$(mktemp -d /tmp/cordon-allow-ws.XXXXXX)
j=$(cd "$TW" && HOME=$H "$CORDON" run --backend native --json -- sh -c 'echo back > f && pwd')
[ "$(field exit_code <<<"$j")" = 0 ] && [ "$(cat "$TW/f" 2>/dev/null)" = back ] &&
        ok "a workspace below /tmp is reachable and writable" || { not_ok "workspace below /tmp"; diag "$j"; }
rm -rf "$TW"

finish
