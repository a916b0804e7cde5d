#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The creation gate: a protected path that is missing at start (.git,
# .envrc, .vscode, .mcp.json, .gitmodules in a workspace that is no git
# repository) cannot be made from inside by any call or path, and nothing
# is made on the host to hold it: the host sees no placeholder while a
# command runs nor after cordon is killed, and a host `git init` works
# meanwhile. Ordinary creation goes on and lands on the host. Every refusal
# has an unconfined control that makes the same name.
set -u

. "$(dirname "$0")/tap.sh"

tap_base cg

H=$BASE/home BIN=$BASE/bin
mkdir -p "$H" "$BIN"

crun() { # crun WS ARGS... : cordon run in WS with HOME=$H; prints the JSON result
        local ws=$1
        shift
        (cd "$ws" && HOME=$H "$CORDON" run --backend native --json "$@")
}
field() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("" if v is None else v)' "$1"; }

cat > "$BIN/dirfd.py" <<'EOF'
import os, sys
d = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
try:
    os.close(os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=d))
except OSError as e:
    print("open via dirfd:", e.strerror)
    sys.exit(1)
EOF

cat > "$BIN/bind.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.bind(sys.argv[1])
except OSError as e:
    print("bind:", e.strerror)
    sys.exit(1)
EOF

# One thread flips a path buffer between ok.txt and .envrc, another
# creates through it in a loop: the gate must decide on what it performs.
cat > "$BIN/race.py" <<'EOF'
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(64)
buf.value = b"ok.txt"
stop = time.time() + 1.0
made = [0, 0]
def flip():
    while time.time() < stop:
        ctypes.memmove(buf, b".envrc\0", 7)
        ctypes.memmove(buf, b"ok.txt\0", 7)
def create():
    while time.time() < stop:
        fd = libc.open(buf, os.O_CREAT | os.O_WRONLY, 0o644)
        if fd >= 0:
            libc.close(fd)
            made[0] += 1
        else:
            made[1] += 1
t = [threading.Thread(target=flip), threading.Thread(target=create)]
for x in t: x.start()
for x in t: x.join()
print("created", made[0], "refused", made[1])
EOF

# deny DESC NAME CMD: CMD must make NAME unconfined (in a fresh control
# directory) and fail inside with EACCES, classified denied, NAME absent on
# the host.
WS=$BASE/ws
mkdir -p "$WS/sub"
n_ctl=0
deny() {
        local desc=$1 name=$2 cmd=$3 ctl j v out
        n_ctl=$((n_ctl + 1))
        ctl=$BASE/ctl.$n_ctl
        mkdir -p "$ctl/sub"
        if ! (cd "$ctl" && sh -c "$cmd") >/dev/null 2>&1 || [ ! -e "$ctl/$name" -a ! -L "$ctl/$name" ]; then
                not_ok "control: $desc makes $name unconfined" "$(ls -la "$ctl")"
                return
        fi
        j=$(crun "$WS" -- sh -c "$cmd")
        v=$(field verdict <<<"$j")
        out=$(field output <<<"$j")
        if [ "$v" = denied ] && [ "$(field exit_code <<<"$j")" != 0 ] && grep -q "Permission denied" <<<"$out"; then
                ok "$desc: EACCES, denied"
        else
                not_ok "$desc: expected EACCES and a denial, got verdict=$v" "$j"
        fi
        if [ ! -e "$WS/$name" ] && [ ! -L "$WS/$name" ]; then
                ok "host: no $name after: $desc"
        else
                not_ok "host: $name exists after: $desc" "$(ls -la "$WS")"
        fi
}

# (an empty .git directory may be made, and git init works: git.t)
deny "a .git file (gitdir: pointer)" .git 'echo "gitdir: /tmp" > .git'
deny "ln -s elsewhere .git" .git 'ln -s /tmp .git'
deny "echo > .envrc" .envrc 'echo x > .envrc'
deny "mkdir -p .vscode" .vscode 'mkdir -p .vscode/x'
deny "ln -s x .mcp.json" .mcp.json 'ln -s x .mcp.json'
deny "touch x && mv x .gitmodules (rename)" .gitmodules 'touch x && mv x .gitmodules'
deny "ln x .envrc (hard link)" .envrc 'touch x && ln x .envrc'
deny "ln -s .envrc y; echo > y (trailing symlink)" .envrc 'ln -sf .envrc y && echo x > y'
deny "os.open('.envrc', O_CREAT) via a dirfd" .envrc "$PY $BIN/dirfd.py .envrc"
deny "cd sub && touch ../.git (relative, from a subdir)" .git 'cd sub && touch ../.git'
deny "echo > /proc/self/cwd/.envrc" .envrc 'echo x > /proc/self/cwd/.envrc'
deny "AF_UNIX bind on .envrc" .envrc "$PY $BIN/bind.py .envrc"
deny "mkdir .idea through an absolute path" .idea 'mkdir "$PWD/.idea"'
deny "a new .cordon* name (prefix)" .cordon-new 'echo x > .cordon-new'
deny "mkfifo .envrc (mknod)" .envrc 'mkfifo .envrc'

# the gate stands under --net host too (the unix gate does not)
ctl=$BASE/ctl.nethost
mkdir -p "$ctl"
if (cd "$ctl" && touch .git) && [ -f "$ctl/.git" ]; then
        j=$(crun "$WS" --net host -- sh -c 'touch .git')
        if [ "$(field verdict <<<"$j")" = denied ] && [ ! -e "$WS/.git" ]; then
                ok "--net host: touch .git refused, nothing on the host"
        else
                not_ok "--net host: touch .git" "$j"
        fi
else
        not_ok "control: touch .git unconfined"
fi

# the race: unconfined it makes .envrc; inside, never
ctl=$BASE/ctl.race
mkdir -p "$ctl"
if (cd "$ctl" && "$PY" "$BIN/race.py") >/dev/null 2>&1 && [ -e "$ctl/.envrc" ]; then
        rm -f "$WS/ok.txt"
        j=$(crun "$WS" -- "$PY" "$BIN/race.py")
        out=$(field output <<<"$j")
        if [ ! -e "$WS/.envrc" ] && [ -e "$WS/ok.txt" ] && grep -q "created [1-9]" <<<"$out" &&
                grep -q "refused [1-9]" <<<"$out"; then
                ok "a thread flipping the path during the creates: ok.txt made, .envrc never ($out)"
        else
                not_ok "the race" "$j" "$(ls -la "$WS")"
        fi
        rm -f "$WS/ok.txt"
else
        not_ok "control: the race makes .envrc unconfined"
fi

# ---- ordinary work goes on, and lands on the host ----------------------------
cat > "$BIN/work.sh" <<'EOF'
set -e
echo one > a.txt
mv a.txt b.txt
ln b.txt c.txt
ln -s b.txt d.txt
mkdir -p deep/er/est
(umask 077 && echo secret > private.txt)
git init -q /tmp/repo && test -d /tmp/repo/.git/objects && echo tmp-repo-ok
python3 -c 'import tempfile; f = tempfile.NamedTemporaryFile(dir=".", prefix="tmpf", delete=False); f.write(b"t"); print(f.name)'
echo to-stdout > /dev/stdout
echo to-null > /dev/null
echo in-tmp > /tmp/t && cat /tmp/t
mkfifo fifo && (cat fifo > fifo.out &) && sleep 0.2 && echo through-fifo > fifo && sleep 0.2
cat fifo.out
EOF
j=$(crun "$WS" -- sh "$BIN/work.sh" | cat)
out=$(field output <<<"$j")
if [ "$(field exit_code <<<"$j")" = 0 ]; then ok "ordinary creation inside works"; else not_ok "ordinary creation" "$j"; fi
[ "$(cat "$WS/b.txt" 2>/dev/null)" = one ] && [ ! -e "$WS/a.txt" ] && [ "$WS/b.txt" -ef "$WS/c.txt" ] &&
        [ "$(readlink "$WS/d.txt")" = b.txt ] && [ -d "$WS/deep/er/est" ] &&
        ok "host: create, rename, hard link, symlink, mkdir -p landed" || not_ok "host: ordinary work" "$(ls -la "$WS")"
[ "$(stat -c %a "$WS/private.txt" 2>/dev/null)" = 600 ] && ok "the caller's umask (077) applies: private.txt is 0600" ||
        not_ok "umask: private.txt is $(stat -c %a "$WS/private.txt" 2>/dev/null)"
# (a new repository below the workspace is refused: persist.t says why)
grep -q '^tmp-repo-ok$' <<<"$out" && ok "git init in the private /tmp works" || not_ok "git init /tmp/repo" "$out"
ls "$WS"/tmpf* >/dev/null 2>&1 && ok "python tempfile in the workspace" || not_ok "python tempfile" "$out"
grep -q '^to-stdout$' <<<"$out" && ok "O_CREAT on /dev/stdout reaches the caller's stdout" || not_ok "/dev/stdout" "$out"
grep -q '^in-tmp$' <<<"$out" && [ ! -e /tmp/t -o "$(cat /tmp/t 2>/dev/null)" != in-tmp ] &&
        ok "files in the private /tmp" || not_ok "/tmp" "$out"
grep -q '^through-fifo$' <<<"$out" && ok "O_CREAT on a FIFO with a reader" || not_ok "fifo" "$out"

# ---- the host sees nothing cordon made ---------------------------------------
W5=$BASE/ws5
mkdir -p "$W5"
MARK=cordon-cg-sleeper-$$
(cd "$W5" && HOME=$H exec "$CORDON" run --backend native -- sh -c 'echo started > /dev/null; sleep 30' "$MARK") &
RUNPID=$!
PIDS+=($RUNPID)
sleep 1.5
during=$(ls -A "$W5")
[ -z "$during" ] && ok "host: the workspace is empty while a command runs (no placeholder)" ||
        not_ok "host: placeholders while running" "$during"
if git -C "$W5" init -q 2>/dev/null && [ -d "$W5/.git/objects" ]; then
        ok "host: git init in the workspace while a sandboxed command runs"
else
        not_ok "host: git init while running" "$(ls -la "$W5")"
fi
rm -rf "$W5/.git"
kill -9 $RUNPID
wait $RUNPID 2>/dev/null
sleep 0.3
after=$(ls -A "$W5")
[ -z "$after" ] && ok "host: nothing left after a SIGKILL of cordon run" || not_ok "host: left after SIGKILL" "$after"
left=$(pgrep -f -- "$MARK")
[ -z "$left" ] && ok "no sandboxed process outlives a SIGKILL of cordon run" ||
        { not_ok "sandboxed processes outlive cordon run: $left"; pkill -KILL -f -- "$MARK"; }

# the control for "while running": the same listing sees what a command makes
(cd "$W5" && HOME=$H exec "$CORDON" run --backend native -- sh -c 'echo x > made-inside; sleep 30') &
RUNPID=$!
PIDS+=($RUNPID)
sleep 1.5
[ -e "$W5/made-inside" ] && ok "control: the host listing sees a file made inside while it runs" ||
        not_ok "control: made-inside not visible" "$(ls -la "$W5")"
kill -9 $RUNPID
wait $RUNPID 2>/dev/null

# ---- init performs the calls: the command cannot reach into it -------------
cat > "$BIN/getfd.py" <<'EOF2'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
target = int(sys.argv[1]) if len(sys.argv) > 1 else 0
child = 0
if not target:
    child = os.fork()
    if child == 0:
        import signal; signal.pause()
    target = child
pfd = os.pidfd_open(target)
got, err = 0, ""
for fd in range(0, 16):
    r = libc.syscall(438, pfd, fd, 0)
    if r >= 0:
        got += 1
        os.close(r)
    else:
        err = os.strerror(ctypes.get_errno())
if child:
    os.kill(child, 9)
print("took", got, "fds", err)
sys.exit(0 if got else 1)
EOF2
if "$PY" "$BIN/getfd.py" >/dev/null 2>&1; then
        j=$(crun "$WS" -- "$PY" "$BIN/getfd.py" 1)
        out=$(field output <<<"$j")
        if [ "$(field exit_code <<<"$j")" != 0 ] && grep -q "took 0 fds Operation not permitted" <<<"$out"; then
                ok "pidfd_getfd of init's fds (its listener) from inside: EPERM for every fd"
        else
                not_ok "pidfd_getfd of init's fds" "$j"
        fi
else
        not_ok "control: pidfd_getfd of a child's fds unconfined"
fi

# The command's Landlock domain is its own, nested in init's (a layer of
# no rule, init.c): from ABI 6 its scope keeps it from signalling init,
# while it signals a process of its own
abi=$("$PY" -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))')
if [ "${abi:-0}" -ge 6 ]; then
        j=$(crun "$WS" -- sh -c 'sleep 30 & c=$!; kill -0 $c && echo child-ok; kill $c; kill -0 1 2>/dev/null && echo init-reached; echo done')
        out=$(field output <<<"$j")
        if grep -q child-ok <<<"$out" && ! grep -q init-reached <<<"$out" && grep -q done <<<"$out"; then
                ok "kill -0 1 (init) from inside fails, kill -0 of its own child works (control)"
        else
                not_ok "init out of the command's signals" "$j"
        fi
else
        skip "init out of the command's signals" "Landlock ABI $abi has no scopes"
fi

# init follows /proc magic links for the caller: never into init itself
# (its status pipe would take forged records)
cat > "$BIN/reopen.py" <<'EOF2'
import os, sys
target = int(sys.argv[1]) if len(sys.argv) > 1 else 0
child = 0
if not target:
    child = os.fork()
    if child == 0:
        import signal; signal.pause()
    target = child
got, err = 0, ""
for fd in range(0, 16):
    try:
        os.close(os.open(f"/proc/{target}/fd/{fd}", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644))
        got += 1
    except OSError as e:
        err = err or e.strerror
if child:
    os.kill(child, 9)
print("reopened", got, err)
sys.exit(0 if got else 1)
EOF2
if "$PY" "$BIN/reopen.py" >/dev/null 2>&1; then
        j=$(crun "$WS" -- "$PY" "$BIN/reopen.py" 1)
        out=$(field output <<<"$j")
        if [ "$(field exit_code <<<"$j")" != 0 ] && grep -q "reopened 0 Permission denied" <<<"$out"; then
                ok "open(/proc/1/fd/N, O_CREAT) from inside: init's files stay out of reach"
        else
                not_ok "open(/proc/1/fd/N, O_CREAT)" "$j"
        fi
        j=$(crun "$WS" -- "$PY" "$BIN/reopen.py")
        [ "$(field exit_code <<<"$j")" = 0 ] && ok "open(/proc/CHILD/fd/N, O_CREAT) of its own child works inside" ||
                not_ok "reopen a child's fds inside" "$j"
else
        not_ok "control: reopen a child's fds through /proc unconfined"
fi

# ---- many existing protected names ---------------------------------------------
# Forty existing .cordon* files: each is bound read-only (the runner's table
# of them grows as it finds them), none can be written from inside, and a
# file beside them can.
WSM=$BASE/many
mkdir -p "$WSM"
for i in $(seq 1 40); do echo orig > "$WSM/.cordon-$i"; done
echo orig > "$WSM/plain"
cp -a "$WSM" "$BASE/many.ctl"
if (cd "$BASE/many.ctl" && for i in $(seq 1 40); do echo x >> ".cordon-$i" || exit 1; done) 2>/dev/null; then
        j=$(crun "$WSM" -- sh -c 'n=0; for i in $(seq 1 40); do echo x >> ".cordon-$i" 2>/dev/null && n=$((n+1)); done; echo "written $n"; echo x >> plain && echo plain-ok')
        out=$(field output <<<"$j")
        changed=$(for i in $(seq 1 40); do [ "$(cat "$WSM/.cordon-$i")" = orig ] || echo "$i"; done)
        if grep -q "written 0" <<<"$out" && grep -q plain-ok <<<"$out" && [ -z "$changed" ] &&
                [ "$(tail -1 "$WSM/plain")" = x ]; then
                ok "40 existing .cordon* files: none written from inside, a file beside them is"
        else
                not_ok "40 existing .cordon* files read-only inside" "$out; changed: $changed"
        fi
else
        not_ok "control: appending to 40 .cordon* files unconfined"
fi

# ---- what explain says --------------------------------------------------------
ex=$(cd "$WS" && HOME=$H "$CORDON" explain --backend native -- true 2>&1)
grep -q "creation gate" <<<"$ex" && ! grep -qi "stub" <<<"$ex" && ok "explain names the creation gate, no stubs" ||
        not_ok "explain" "$ex"

finish
