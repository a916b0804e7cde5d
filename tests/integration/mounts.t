#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The mount model of full isolation, attacked from inside: host files keep
# their contents AND their metadata (modes, times, xattrs), no setuid or
# setgid bit can be set anywhere, /dev is the sandbox's own (no other
# terminal, no console), and /tmp and /run are private in every mode, so a
# host socket there is not even visible. Each attempt has an unconfined
# control that succeeds, so the attempt is a real one. Runs as root or not;
# the cases that need root to set up say so in their name.
. "$(dirname "$0")/tap.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

unset TMPDIR
BASE=$(mktemp -d /var/tmp/cordon-mounts.XXXXXX)
chmod 755 "$BASE"
PIDS=()
cleanup() {
        for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
        rm -rf "$BASE" "${HOSTTMP:-/nonexistent}" "${RUNSOCK:-/nonexistent}" 2>/dev/null
}
trap cleanup EXIT
export HOME=$BASE/home XDG_CACHE_HOME=$BASE/cache
mkdir -p "$HOME" "$BASE/outside" "$BASE/ws"
WS=$BASE/ws
echo data > "$BASE/outside/file"
echo data > "$WS/file"

crun() { (cd "$WS" && "$CORDON" run --backend native --json "$@") 2>/dev/null; }
field() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("" if v is None else v)' "$1"; }
stat_of() { stat -c '%a %Y' "$1"; }
xattr_of() { "$PY" -c 'import os,sys
try: print(os.getxattr(sys.argv[1], "user.cordon"))
except OSError as e: print("none")' "$1"; }

# expect_refused DESC JSON HOST-CHECK...: the attempt failed inside, the
# verdict is a denial, and the host check (a command) still succeeds.
expect_refused() {
        local desc=$1 json=$2 v e
        shift 2
        v=$(field verdict <<<"$json")
        e=$(field exit_code <<<"$json")
        if [ "$v" = denied ] && [ "$e" != 0 ] && "$@"; then
                ok "$desc (denied: $(field output <<<"$json" | grep -v '^\[cordon' | grep . | tail -n 1))"
        else
                not_ok "$desc: expected a denial and an unchanged host" "verdict=$v exit=$e" "$json"
        fi
}

# --- metadata of host files outside every writable root ---------------------
f=$BASE/outside/file
cp -p "$f" "$BASE/outside/control"
before=$(stat_of "$f")
if chmod 4777 "$BASE/outside/control" && touch -d 2001-01-01 "$BASE/outside/control" &&
   "$PY" -c 'import os,sys; os.setxattr(sys.argv[1], "user.cordon", b"x")' "$BASE/outside/control"; then
        ok "control: chmod 4777, utimes and setxattr work on a host file unconfined"
        j=$(crun -- chmod 4777 "$f")
        expect_refused "chmod 4777 on a host file outside the workspace" "$j" test "$(stat_of "$f")" = "$before"
        j=$(crun -- chmod 600 "$f")
        expect_refused "chmod 600 (no set-id bit) on a host file outside the workspace" "$j" test "$(stat_of "$f")" = "$before"
        j=$(crun -- touch -d 2001-01-01 "$f")
        expect_refused "utimes on a host file outside the workspace" "$j" test "$(stat_of "$f")" = "$before"
        j=$(crun -- "$PY" -c 'import os,sys; os.setxattr(sys.argv[1], "user.cordon", b"x")' "$f")
        expect_refused "setxattr on a host file outside the workspace" "$j" test "$(xattr_of "$f")" = none
else
        not_ok "control: metadata changes work unconfined on /var/tmp"
fi

# --- read-only mode: not even the workspace's metadata ----------------------
before=$(stat_of "$WS/file")
j=$(crun --mode workspace-write -- chmod 640 "$WS/file")
if [ "$(field exit_code <<<"$j")" = 0 ]; then
        ok "control: chmod in the workspace works under workspace-write"
        chmod 644 "$WS/file"; touch -d @"${before#* }" "$WS/file"
        before=$(stat_of "$WS/file")
        j=$(crun --mode read-only -- chmod 600 "$WS/file")
        expect_refused "read-only mode: chmod in the workspace" "$j" test "$(stat_of "$WS/file")" = "$before"
        j=$(crun --mode read-only -- touch "$WS/file")
        expect_refused "read-only mode: utimes in the workspace" "$j" test "$(stat_of "$WS/file")" = "$before"
else
        not_ok "control: chmod in the workspace under workspace-write" "$j"
fi

# --- no set-id bit, anywhere (the workspace is a host directory) ------------
cp "$WS/file" "$BASE/outside/suid-control"
if chmod u+s "$BASE/outside/suid-control" && [ -u "$BASE/outside/suid-control" ]; then
        ok "control: chmod u+s works unconfined"
        for how in 'chmod u+s file' 'chmod g+s file' 'chmod 6755 file' \
                   "$PY -c 'import os; os.chmod(\"file\", 0o4755)'" \
                   "$PY -c 'import os; fd=os.open(\"file\", os.O_RDONLY); os.fchmod(fd, 0o2755)'"; do
                j=$(crun -- sh -c "$how")
                expect_refused "set-id bit in the workspace: $how" "$j" test ! -u "$WS/file" -a ! -g "$WS/file"
        done
        j=$(crun -- "$PY" -c 'import os; os.open("planted", os.O_CREAT | os.O_WRONLY, 0o4755)')
        expect_refused "a file created setuid in the workspace" "$j" test ! -e "$WS/planted"
        j=$(crun -- "$PY" -c 'import os; os.mkdir("sgid-dir", 0o2775)')
        expect_refused "a directory created setgid in the workspace" "$j" test ! -e "$WS/sgid-dir"
        j=$(crun -- sh -c 'chmod 755 file && echo plain-ok')
        if [ "$(field exit_code <<<"$j")" = 0 ]; then
                ok "a plain chmod in the workspace still works"
        else
                not_ok "a plain chmod in the workspace still works" "$j"
        fi
else
        not_ok "control: chmod u+s unconfined"
fi

if [ "$(id -u)" = 0 ]; then
        # root owns the system's files: only the read-only root stops it
        sysfile=$(readlink -f /etc/hostname)
        before=$(stat_of "$sysfile")
        j=$(crun -- chmod 4755 "$sysfile")
        expect_refused "as root: chmod 4755 on a root-owned system file" "$j" test "$(stat_of "$sysfile")" = "$before"
        j=$(crun -- sh -c "echo pwned >> '$sysfile'")
        expect_refused "as root: appending to a root-owned system file" "$j" sh -c "! grep -q pwned '$sysfile'"
fi

# --- /dev is the sandbox's own -----------------------------------------------
# another terminal of the user's: a pty the test opens on the host
"$PY" - "$BASE/pty" <<'EOF' &
import os, pty, sys, time
m, s = pty.openpty()
open(sys.argv[1], "w").write(os.ttyname(s))
time.sleep(60)
EOF
PIDS+=($!)
for _ in $(seq 50); do [ -s "$BASE/pty" ] && break; sleep 0.1; done
pts=$(cat "$BASE/pty" 2>/dev/null)
if [ -n "$pts" ] && "$PY" -c 'import os,sys; os.close(os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY))' "$pts"; then
        ok "control: another terminal ($pts) opens unconfined"
        j=$(crun -- "$PY" -c 'import os,sys; os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)' "$pts")
        if [ "$(field exit_code <<<"$j")" != 0 ] && field output <<<"$j" | grep "No such file" >/dev/null; then
                ok "full: another terminal is not there at all (a devpts of its own)"
        else
                not_ok "full: another terminal is out of reach" "$j"
        fi
        j=$(crun --isolation light -- "$PY" -c 'import os,sys; os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)' "$pts")
        expect_refused "light: another terminal cannot be opened (Landlock grants stdio's own only)" "$j" true
else
        not_ok "control: a host pty opens unconfined" "pts=$pts"
fi

j=$(crun -- sh -c 'ls /dev | tr "\n" " "')
want="fd full null ptmx pts random shm stderr stdin stdout tty urandom zero "
if [ "$(field output <<<"$j")" = "$want" ]; then
        ok "full: /dev holds exactly: $want"
else
        not_ok "full: a minimal /dev" "want: $want" "got: $(field output <<<"$j")"
fi
for node in /dev/tty1 /dev/ttyS0 /dev/vcs /dev/vcsa /dev/console /dev/mem /dev/kmsg; do
        [ -e "$node" ] || continue
        j=$(crun -- sh -c "test -e $node && echo present || { echo absent; exit 1; }")
        if [ "$(field output <<<"$j")" = "absent" ]; then
                ok "full: $node, present on the host, is absent inside"
        else
                not_ok "full: $node absent inside" "$j"
        fi
done
j=$(crun -- sh -c 'echo x > /dev/planted')
expect_refused "full: nothing can be created in /dev" "$j" true
j=$(crun -- sh -c 'echo x > /dev/null && echo y > /dev/shm/s && cat /dev/shm/s && head -c 4 /dev/urandom | wc -c')
if [ "$(field exit_code <<<"$j")" = 0 ] && [ "$(field output <<<"$j")" = "y
4" ]; then
        ok "full: /dev/null, /dev/shm and /dev/urandom work"
else
        not_ok "full: the minimal /dev works" "$j"
fi
j=$(crun -- "$PY" -c 'import os, pty; m, s = pty.openpty(); print(os.ttyname(s))')
if [ "$(field exit_code <<<"$j")" = 0 ] && field output <<<"$j" | grep '^/dev/pts/' >/dev/null; then
        ok "full: the sandbox opens a pty of its own ($(field output <<<"$j"))"
else
        not_ok "full: a pty inside" "$j"
fi

# A hidden path (--deny-read) gets a stand-in: an empty directory or file of
# mode 000, made below /dev/pts before the devpts covers it, on a mount that
# is read-only, nosuid, nodev and noexec (the /dev tmpfs holds no device
# node of its own: each node is a bind of the host's). The stand-ins
# themselves are out of sight.
mkdir -p "$WS/hid"
echo data > "$WS/hid/in"
echo data > "$WS/hidf"
flags_of='for p in "$@"; do echo "$(stat -c %a "$p") $(awk -v p="$p" "\$5 == p { print \$6 }" /proc/self/mountinfo)"; done'
j=$(crun -- sh -c "$flags_of; cat \"\$2\"" sh "$WS/hid" "$WS/hidf")
if [ "$(field exit_code <<<"$j")" = 0 ] && [ "$(field output <<<"$j" | grep . | tail -n 1)" = data ]; then
        ok "control: without --deny-read the directory and the file are the workspace's, readable"
        j=$(crun --deny-read "$WS/hid" --deny-read "$WS/hidf" -- sh -c "$flags_of" sh "$WS/hid" "$WS/hidf")
        bad=$(field output <<<"$j" | awk '{ n = split($2, o, ","); f = 0
                for (i = 1; i <= n; i++) f += (o[i] == "ro") + 2 * (o[i] == "nosuid") + 4 * (o[i] == "nodev") + 8 * (o[i] == "noexec")
                if ($1 != "0" || f != 15) print }')
        if [ "$(field exit_code <<<"$j")" = 0 ] && [ "$(field output <<<"$j" | grep -c .)" = 2 ] && [ -z "$bad" ]; then
                ok "full: a hidden directory's and a hidden file's stand-ins are mode 000, ro,nosuid,nodev,noexec"
        else
                not_ok "full: the stand-ins of hidden paths" "$j"
        fi
        j=$(crun --deny-read "$WS/hid" -- sh -c "echo x > '$WS/hid/new'")
        expect_refused "full: nothing can be made in a hidden directory" "$j" test ! -e "$WS/hid/new"
else
        not_ok "control: the workspace's directory and file" "$j"
fi
j=$(crun --deny-read "$WS/hid" -- sh -c 'ls -A /dev/pts | tr "\n" " "; awk "\$5 == \"/dev\" { o = \$6 } END { print o }" /proc/self/mountinfo')
if [ "$(field output <<<"$j")" = "ptmx ro,nosuid,nodev,noexec,relatime" ]; then
        ok "full: the stand-ins are not in /dev/pts (it lists its ptmx alone), and /dev (the top mount there) is ro,nosuid,nodev,noexec"
else
        not_ok "full: /dev/pts and /dev's flags" "$(field output <<<"$j")"
fi

# --- /tmp and /run are private in every mode ---------------------------------
HOSTTMP=$(mktemp -d /tmp/cordon-hosttmp.XXXXXX)
chmod 755 "$HOSTTMP"
"$PY" - "$HOSTTMP/server.sock" "$BASE/tmp-log" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(8)
while True:
    c, _ = s.accept(); open(sys.argv[2], "a").write("connected\n"); c.close()
EOF
PIDS+=($!)
for _ in $(seq 50); do [ -S "$HOSTTMP/server.sock" ] && break; sleep 0.1; done
client='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")'
wait_log() { for _ in $(seq 30); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
if "$PY" -c "$client" "$HOSTTMP/server.sock" >/dev/null && wait_log "$BASE/tmp-log"; then
        ok "control: a host server socket in /tmp accepts unconfined"
        : > "$BASE/tmp-log"
        for mode in read-only workspace-write; do
                j=$(crun --mode $mode -- "$PY" -c "$client" "$HOSTTMP/server.sock")
                sleep 0.3 # a connection would be logged by now
                if [ "$(field exit_code <<<"$j")" != 0 ] && field output <<<"$j" | grep "No such file" >/dev/null &&
                   [ ! -s "$BASE/tmp-log" ]; then
                        ok "$mode: the host's /tmp socket is not there (private /tmp); the server saw nothing"
                else
                        not_ok "$mode: the host's /tmp is out of reach" "$j" "server log: $(cat "$BASE/tmp-log")"
                fi
        done
else
        not_ok "control: host /tmp socket accepts"
fi

j=$(crun --mode read-only -- sh -c 'echo /run: $(ls -A /run) /tmp: $(ls -A /tmp)')
if [ "$(field exit_code <<<"$j")" = 0 ] && [ "$(field output <<<"$j")" = "/run: /tmp:" ] && [ -n "$(ls -A /run)" ]; then
        ok "read-only: /run and /tmp are empty inside (the host's /run is not)"
else
        not_ok "read-only: /run and /tmp are empty inside" "$j"
fi

if [ "$(id -u)" = 0 ]; then
        RUNSOCK=/run/cordon-test-$$.sock
        "$PY" -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); time.sleep(60)' "$RUNSOCK" &
        PIDS+=($!)
        for _ in $(seq 50); do [ -S "$RUNSOCK" ] && break; sleep 0.1; done
        if [ -S "$RUNSOCK" ]; then
                j=$(crun -- "$PY" -c "$client" "$RUNSOCK")
                if [ "$(field exit_code <<<"$j")" != 0 ] && field output <<<"$j" | grep "No such file" >/dev/null; then
                        ok "as root: a host socket in /run (not on any list) is not there inside"
                else
                        not_ok "as root: a host socket in /run is out of reach" "$j"
                fi
        else
                not_ok "as root: control: a socket can be made in /run"
        fi
fi

# the private /tmp and /run are capped tmpfs, gone when the sandbox ends
j=$(crun -- sh -c 'df -k /tmp /run | tail -n 2; echo left > /tmp/left')
if [ "$(field exit_code <<<"$j")" = 0 ] && [ ! -e /tmp/left ]; then
        ok "the private /tmp leaves nothing on the host ($(field output <<<"$j" | awk 'NR<=2 {printf "%s %s KiB; ", $6, $2}'))"
else
        not_ok "the private /tmp is discarded" "$j"
fi

# --- a worktree's .git is a file: "gitdir: ..." says which hooks git runs --
if command -v git >/dev/null; then
        git init -q "$BASE/repo" && git -C "$BASE/repo" -c user.email=t@example.org -c user.name=t commit -q --allow-empty -m x &&
                git -C "$BASE/repo" worktree add -q "$BASE/wt" 2>/dev/null
        cp "$BASE/wt/.git" "$BASE/wt-git.orig"
        cp "$BASE/wt/.git" "$BASE/wt-git.control" && echo "gitdir: ./evil" > "$BASE/wt-git.control" &&
                ok "control: a .git file can be rewritten unconfined"
        j=$( (cd "$BASE/wt" && "$CORDON" run --backend native --json -- sh -c "echo 'gitdir: ./evil' > .git") 2>/dev/null)
        expect_refused "a worktree's .git file cannot be pointed elsewhere" "$j" cmp -s "$BASE/wt/.git" "$BASE/wt-git.orig"
        if git -C "$BASE/wt" status >/dev/null 2>&1; then
                ok "the host's git still works in the worktree afterwards"
        else
                not_ok "host git in the worktree" "$(git -C "$BASE/wt" status 2>&1 | head -3)"
        fi
fi

# --- agents', editors' and package managers' configuration, and git's
# redirections, beyond the first few names: missing ones cannot be made,
# existing ones cannot be changed (controls: the same works unconfined)
AW=$BASE/agent-ws
mkdir -p "$AW/.claude" "$AW/ctl"
git init -q "$AW" 2>/dev/null
echo '{}' > "$AW/.claude/settings.json"
cp "$AW/.claude/settings.json" "$AW/settings.orig"
for name in .codex .cursor .gemini .devcontainer .husky; do
        if mkdir "$AW/ctl/$name"; then
                j=$( (cd "$AW" && "$CORDON" run --backend native --json -- mkdir "$name") 2>/dev/null)
                expect_refused "a missing $name cannot be made" "$j" test ! -e "$AW/$name"
        else
                not_ok "control: mkdir $name unconfined"
        fi
done
for name in .npmrc .yarnrc.yml .git/commondir .git/config.worktree; do
        j=$( (cd "$AW" && "$CORDON" run --backend native --json -- sh -c "echo 'script-shell=/tmp/evil' > $name") 2>/dev/null)
        expect_refused "a missing $name cannot be written" "$j" test ! -e "$AW/$name"
done
j=$( (cd "$AW" && "$CORDON" run --backend native --json -- sh -c 'echo "{\"hooks\":{\"Stop\":[{\"command\":\"touch /tmp/pwned\"}]}}" > .claude/settings.json') 2>/dev/null)
expect_refused "an existing .claude/settings.json (its hooks run commands) cannot be changed" "$j" cmp -s "$AW/.claude/settings.json" "$AW/settings.orig"
if git -C "$AW" status >/dev/null 2>&1; then
        ok "the host's git still works there (no commondir redirect)"
else
        not_ok "host git after the attempts" "$(git -C "$AW" status 2>&1 | head -2)"
fi

# The mounts themselves, not only the write gate's names: each existing
# protected entry is a read-only mount of its own, whether the runner knew
# it from one listing of the workspace or looked it up by name (a
# workspace of more than 512 entries is not listed), a symlinked one where
# it leads; a plain entry beside them (the control) is no mount of its own.
ro_mounts='for p in "$@"; do awk -v p="$p" "\$5 == p { o = \$6 } END { n = split(o, f, \",\"); r = \"none\"; for (i = 1; i <= n; i++) if (f[i] == \"ro\" || f[i] == \"rw\") r = f[i]; print r }" /proc/self/mountinfo; done | tr "\n" " "'
for layout in listed crowded; do
        PW=$BASE/protected-$layout
        mkdir -p "$PW/.vscode" "$PW/plain" "$PW/target"
        echo x > "$PW/.envrc"
        echo x > "$PW/.cordon-local"
        ln -s target "$PW/.idea"
        [ $layout = crowded ] && for i in $(seq 1 600); do : > "$PW/f$i"; done
        j=$( (cd "$PW" && "$CORDON" run --backend native --json -- sh -c "$ro_mounts" sh \
                "$PW/.vscode" "$PW/.envrc" "$PW/.cordon-local" "$PW/target" "$PW/plain") 2>/dev/null)
        if [ "$(field output <<<"$j")" = "ro ro ro ro none " ]; then
                ok "$layout workspace: existing .vscode, .envrc, .cordon-local and .idea's target are read-only mounts, a plain directory is none"
        else
                not_ok "$layout workspace: read-only mounts on the existing protected entries" "want: ro ro ro ro none" "$j"
        fi
done

finish
