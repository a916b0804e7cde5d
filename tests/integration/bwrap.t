#!/usr/bin/env bash
# The provider core end to end through the real bwrap backend: what is refused
# is refused and classified, what is allowed works, and every denial has an
# unconfined control showing the same attempt succeeds without cordon.
. "$(dirname "$0")/tap.sh"

if ! command -v bwrap >/dev/null; then
        skip "bwrap backend" "bubblewrap is not installed"
        finish; exit
fi

tmp=$(mktemp -d /tmp/cordon-it-bwrap.XXXXXX)
# /var/tmp: outside every writable root, yet writable to any user unconfined
trap 'rm -rf "$tmp" /var/tmp/cordon-fake-$$; rm -f /var/tmp/cordon-test-$$' EXIT
ws=$tmp/ws
mkdir -p "$ws" "$tmp/home/.ssh"
echo "PRIVATE-KEY-$$" > "$tmp/home/.ssh/id_ed25519"
export HOME=$tmp/home XDG_CACHE_HOME=$tmp/cache
cd "$ws"

run_json() { # out-file args...
        local out=$1; shift
        "$CORDON" run --backend bwrap --workspace "$ws" --json "$@" > "$out"
}

for mode in read-only workspace-write; do
        # write outside: refused, classified denied, host unchanged
        run_json "$tmp/o.json" --mode $mode -- touch /var/tmp/cordon-test-$$
        v=$(json_field "$tmp/o.json" verdict)
        if [ "$v" = denied ] && [ ! -e /var/tmp/cordon-test-$$ ]; then
                ok "$mode: write to /var/tmp refused and classified denied"
        else
                not_ok "$mode: write to /var/tmp refused and classified denied" "verdict=$v" "$(cat "$tmp/o.json")"
        fi

        # /dev/null and /dev/stdout stay writable
        run_json "$tmp/o.json" --mode $mode -- sh -c 'echo x > /dev/null && echo via-stdout > /dev/stdout'
        if [ "$(json_field "$tmp/o.json" verdict)" = ok ] && [ "$(json_field "$tmp/o.json" exit_code)" = 0 ] &&
           grep -q via-stdout "$tmp/o.json"; then
                ok "$mode: /dev/null and /dev/stdout writable"
        else
                not_ok "$mode: /dev/null and /dev/stdout writable" "$(cat "$tmp/o.json")"
        fi

        # the JSON is parseable and has every documented key
        if python3 -m json.tool "$tmp/o.json" >/dev/null &&
           python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); missing={"exit_code","signal","verdict","runner_line","output","truncated","duration_ms","enforcement","grade"}-o.keys(); sys.exit(1 if missing else 0)' "$tmp/o.json" &&
           [ "$(json_field "$tmp/o.json" enforcement)" = bwrap ] && [ "$(json_field "$tmp/o.json" grade)" = partial ]; then
                ok "$mode: --json output parses and names enforcement bwrap, grade partial"
        else
                not_ok "$mode: --json output parses" "$(cat "$tmp/o.json")"
        fi

        # the SSH key is unreadable inside
        run_json "$tmp/o.json" --mode $mode -- cat "$HOME/.ssh/id_ed25519"
        if [ "$(json_field "$tmp/o.json" verdict)" = denied ] && ! grep -q "PRIVATE-KEY-$$" "$tmp/o.json"; then
                ok "$mode: ~/.ssh/id_ed25519 unreadable (denied)"
        else
                not_ok "$mode: ~/.ssh/id_ed25519 unreadable" "$(cat "$tmp/o.json")"
        fi
done

# Controls: the same attempts succeed unconfined, so the tests above can fail.
run_json "$tmp/o.json" --mode danger-full-access -- touch /var/tmp/cordon-test-$$
if [ -e /var/tmp/cordon-test-$$ ] && [ "$(json_field "$tmp/o.json" verdict)" = ok ] &&
   [ "$(json_field "$tmp/o.json" enforcement)" = none ]; then
        ok "control: danger-full-access writes /var/tmp"
else
        not_ok "control: danger-full-access writes /var/tmp" "$(cat "$tmp/o.json")"
fi
rm -f /var/tmp/cordon-test-$$
run_json "$tmp/o.json" --mode danger-full-access -- cat "$HOME/.ssh/id_ed25519"
if grep -q "PRIVATE-KEY-$$" "$tmp/o.json"; then ok "control: danger-full-access reads the key"; else not_ok "control: reads the key" "$(cat "$tmp/o.json")"; fi

# Writes inside the workspace: allowed under workspace-write, refused under read-only.
run_json "$tmp/o.json" --mode workspace-write -- sh -c 'echo inside > made-inside.txt'
if [ "$(cat "$ws/made-inside.txt" 2>/dev/null)" = inside ]; then ok "workspace-write: write inside lands on the host"; else not_ok "workspace-write: write inside" "$(cat "$tmp/o.json")"; fi
run_json "$tmp/o.json" --mode read-only -- sh -c 'echo inside > ro-inside.txt'
if [ "$(json_field "$tmp/o.json" verdict)" = denied ] && [ ! -e "$ws/ro-inside.txt" ]; then ok "read-only: write inside refused"; else not_ok "read-only: write inside refused" "$(cat "$tmp/o.json")"; fi

# /tmp is private under workspace-write
run_json "$tmp/o.json" --mode workspace-write -- sh -c "echo x > /tmp/cordon-private-$$ && cat /tmp/cordon-private-$$"
if [ "$(json_field "$tmp/o.json" verdict)" = ok ] && [ ! -e /tmp/cordon-private-$$ ]; then ok "workspace-write: /tmp is private"; else not_ok "/tmp is private" "$(cat "$tmp/o.json")"; rm -f /tmp/cordon-private-$$; fi

# Secrets in the environment do not pass; the control shows they exist outside.
export AWS_SECRET_ACCESS_KEY=aws-secret-$$ GITHUB_TOKEN=gh-token-$$
run_json "$tmp/o.json" -- env
if ! grep -q "secret-$$\|gh-token-$$" "$tmp/o.json" && grep -q 'PATH=' "$tmp/o.json"; then
        ok "AWS_SECRET_ACCESS_KEY and GITHUB_TOKEN absent inside"
else
        not_ok "secrets absent inside" "$(cat "$tmp/o.json")"
fi
run_json "$tmp/o.json" --mode danger-full-access -- env
if grep -q "gh-token-$$" "$tmp/o.json"; then ok "control: the secrets are set outside"; else not_ok "control: secrets set outside"; fi
unset AWS_SECRET_ACCESS_KEY GITHUB_TOKEN

# No network inside: only loopback exists.
run_json "$tmp/o.json" -- cat /proc/net/dev
if [ "$(python3 -c 'import json,sys; print(",".join(sorted(l.split(":")[0].strip() for l in json.load(open(sys.argv[1]))["output"].splitlines()[2:])))' "$tmp/o.json")" = lo ]; then
        ok "net none: only loopback"
else
        not_ok "net none: only loopback" "$(cat "$tmp/o.json")"
fi

# Timeout: 124 within 3 s, nothing left behind (a mark of this test's own:
# pgrep and pkill see every process of the user, other tests' too).
mark=7177$$
start=$(date +%s%N)
"$CORDON" run --backend bwrap --workspace "$ws" --timeout 1 -- sh -c "sleep 31.$mark & sleep 30.$mark"
rc=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
sleep 0.2
if [ $rc -eq 124 ] && [ $elapsed -lt 3000 ] && ! pgrep -f "sleep 3[01]\.$mark" >/dev/null; then
        ok "--timeout 1 returns 124 in ${elapsed} ms with no process left"
else
        not_ok "--timeout 1 returns 124 quickly, nothing left" "rc=$rc elapsed=${elapsed}ms" "$(pgrep -af "sleep 3[01]\.$mark")"
        pkill -9 -f "sleep 3[01]\.$mark"
fi

# Interactive: the command's exit code is cordon's.
"$CORDON" run --backend bwrap --workspace "$ws" -- sh -c 'exit 3'
rc=$?
if [ $rc -eq 3 ]; then ok "interactive: exit code passes through"; else not_ok "interactive exit code" "rc=$rc"; fi

# Interactive denial is explained on stderr.
err=$("$CORDON" run --backend bwrap --workspace "$ws" -- touch /var/tmp/cordon-test-$$ 2>&1 >/dev/null)
if echo "$err" | grep -q '^\[cordon: access denied under workspace-write mode\]$'; then ok "interactive: denial explained"; else not_ok "interactive: denial explained" "$err"; fi

# Unavailable: refuse, run nothing, say how to fix it.
err=$(CORDON_BACKEND=unavailable "$CORDON" run --workspace "$ws" -- touch "$ws/should-not-exist" 2>&1)
rc=$?
if [ $rc -eq 125 ] && [ ! -e "$ws/should-not-exist" ] && echo "$err" | grep -q "install bubblewrap"; then
        ok "CORDON_BACKEND=unavailable refuses with 125 and creates nothing"
else
        not_ok "unavailable refuses" "rc=$rc" "$err"
fi
CORDON_BACKEND=unavailable "$CORDON" run --workspace "$ws" --json -- touch "$ws/should-not-exist" > "$tmp/o.json"
if [ "$(json_field "$tmp/o.json" verdict)" = unavailable ]; then ok "unavailable --json says verdict unavailable"; else not_ok "unavailable json" "$(cat "$tmp/o.json")"; fi

# A misspelt backend fails closed.
CORDON_BACKEND=bwarp "$CORDON" run --workspace "$ws" -- true 2>"$tmp/err"
rc=$?
if [ $rc -eq 125 ] && grep -q "bwarp" "$tmp/err"; then ok "a misspelt CORDON_BACKEND refuses"; else not_ok "misspelt backend" "rc=$rc" "$(cat "$tmp/err")"; fi

# confine + classify: how an agent framework uses cordon as its provider.
"$CORDON" confine --backend bwrap --workspace "$ws" --json -- touch /etc/x > "$tmp/c.json"
if python3 -m json.tool "$tmp/c.json" >/dev/null && [ "$(json_field "$tmp/c.json" enforcement)" = bwrap ]; then
        ok "confine --json prints the confined value"
else
        not_ok "confine --json" "$(cat "$tmp/c.json")"
fi
# The confined value says how to start argv: with envp as its environment
# and a pipe's write end at status_fd (bwrap's status records) and, when
# cordon's runner nests in bwrap (bwrap-nested), at status_fd + 1 too.
python3 - "$tmp/c.json" > "$tmp/out.txt" <<'PY'
import fcntl, json, os, subprocess, sys
c = json.load(open(sys.argv[1]))
fd = c["status_fd"]
fds = (fd, fd + 1) if c["status_format"] == "bwrap-nested" else (fd,)
r, w = os.pipe()
r2, w2 = (fcntl.fcntl(x, fcntl.F_DUPFD_CLOEXEC, fd + 2) for x in (r, w))
os.close(r); os.close(w)
for f in fds:
    os.dup2(w2, f, inheritable=True)
os.close(w2)
env = dict(e.split("=", 1) for e in c["envp"])
p = subprocess.run(["/bin/sh", "-c", 'exec "$@" 2>&1', "sh"] + c["argv"], capture_output=True, text=True,
                   env=env, pass_fds=fds)
for f in fds:
    os.close(f)
sys.stdout.write(p.stdout)
open(sys.argv[1] + ".status", "w").write(str(p.returncode))
open(sys.argv[1] + ".records", "w").write(os.read(r2, 65536).decode())
PY
v=$("$CORDON" classify --confined "$tmp/c.json" --status "$(cat "$tmp/c.json.status")" --output "$tmp/out.txt" \
        --status-records "$tmp/c.json.records")
if [ "$v" = denied ]; then ok "classify reads the confined value and says denied"; else not_ok "classify" "verdict=$v" "$(cat "$tmp/out.txt")"; fi
if grep -q '"exit-code"' "$tmp/c.json.records"; then ok "bwrap reported the command's exit on the status fd"; else not_ok "bwrap status records" "$(cat "$tmp/c.json.records")"; fi

# Bad input: errors name the flag.
err=$("$CORDON" run --mode rw -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && echo "$err" | grep -q -- "--mode: unknown mode 'rw'"; then ok "bad --mode named, exit 125"; else not_ok "bad --mode" "rc=$rc $err"; fi
err=$("$CORDON" run --workspace / -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && echo "$err" | grep -q "canonicalises to '/'"; then ok "workspace / refused"; else not_ok "workspace / refused" "rc=$rc $err"; fi

# probe --json parses
if "$CORDON" probe --json | python3 -m json.tool >/dev/null; then ok "probe --json parses"; else not_ok "probe --json parses"; fi

# ---- What native enforces, enforced here too (cordon's runner nests inside bwrap) ----

# Persistence: a planted git hook, core.fsmonitor, editor task or .envrc
# would make a host program run code later. Control first: unconfined, the
# plant works and a host `git status` runs it.
if ! command -v git >/dev/null; then
        skip "persistence paths" "git is not installed"
else
        make_repo() { # DIR
                mkdir -p "$1/.vscode"
                git -C "$1" init -q
                echo '{"version":"2.0.0"}' > "$1/.vscode/tasks.json"
                echo 'export SAFE=1' > "$1/.envrc"
                echo '{}' > "$1/.cordon.json"
                printf '#!/bin/sh\ntouch "%s"\nexit 1\n' "$2" > "$1/payload.sh"
                chmod +x "$1/payload.sh"
        }
        # The attacks, one per line, each from the repository's top.
        plant_hook='printf "#!/bin/sh\n%s/payload.sh\n" "$PWD" > .git/hooks/post-index-change && chmod +x .git/hooks/post-index-change'
        plant_fsmonitor='git config core.fsmonitor "$PWD/payload.sh"'
        plant_tasks='echo "{\"tasks\":[{\"label\":\"x\",\"command\":\"./payload.sh\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}" > .vscode/tasks.json'
        plant_envrc='echo ./payload.sh >> .envrc'
        plant_rename='mv .git .git-away && mkdir -p .git/hooks && cp payload.sh .git/hooks/post-index-change'
        # cordon's own files: a planted profile would choose the next sandbox
        plant_cordon='echo "{\"write\":[\"/\"]}" > .cordon.json'

        ctl=$tmp/ctl ctl_marker=$tmp/ctl-ran
        make_repo "$ctl" "$ctl_marker"
        (cd "$ctl" && sh -c "$plant_hook" && sh -c "$plant_fsmonitor" && sh -c "$plant_tasks" && sh -c "$plant_envrc" &&
         sh -c "$plant_cordon")
        git -C "$ctl" status >/dev/null 2>&1
        if [ -e "$ctl_marker" ] && grep -q fsmonitor "$ctl/.git/config" && grep -q payload "$ctl/.envrc" &&
           grep -q write "$ctl/.cordon.json"; then
                ok "control: unconfined, the plants land and a host git status runs one"
        else
                not_ok "control: unconfined plants run" "$(ls -la "$ctl/.git/hooks")"
        fi
        rm -f "$ctl_marker"
        (cd "$ctl" && sh -c "$plant_rename")
        if [ -d "$ctl/.git-away" ]; then ok "control: unconfined, .git can be renamed away"; else not_ok "control: rename .git"; fi

        repo=$tmp/repo marker=$tmp/repo-ran
        make_repo "$repo" "$marker"
        before=$(cd "$repo" && cat .git/config .vscode/tasks.json .envrc .cordon.json | sha256sum)
        cd "$repo"
        for attack in hook fsmonitor tasks envrc cordon rename; do
                eval "cmd=\$plant_$attack"
                "$CORDON" run --backend bwrap --workspace "$repo" --json -- sh -c "$cmd" > "$tmp/o.json"
                v=$(json_field "$tmp/o.json" verdict)
                if [ "$v" = denied ]; then
                        ok "workspace-write: planting via $attack refused and classified denied"
                else
                        not_ok "workspace-write: planting via $attack refused" "verdict=$v" "$(cat "$tmp/o.json")"
                fi
        done
        cd "$ws"
        after=$(cd "$repo" && cat .git/config .vscode/tasks.json .envrc .cordon.json | sha256sum)
        if [ "$before" = "$after" ] && [ ! -e "$repo/.git/hooks/post-index-change" ] && [ -d "$repo/.git" ] &&
           [ ! -e "$repo/.git-away" ]; then
                ok "host: .git/config, .vscode/tasks.json, .envrc, .cordon.json unchanged, no hook, .git still in place"
        else
                not_ok "host: persistence paths unchanged" "$(ls -la "$repo" "$repo/.git/hooks")"
        fi
        git -C "$repo" status >/dev/null 2>&1
        if [ ! -e "$marker" ]; then ok "host: git status afterwards runs nothing planted"; else not_ok "host: git status ran a plant"; fi

        # The same paths stay writable where nothing protects them (the
        # workspace itself): the denials above are the protection, not a
        # read-only workspace.
        (cd "$repo" && "$CORDON" run --backend bwrap --workspace "$repo" -- sh -c 'echo ok > notes.txt && git add notes.txt')
        if [ "$(cat "$repo/notes.txt" 2>/dev/null)" = ok ] && git -C "$repo" diff --cached --name-only | grep -q notes.txt; then
                ok "workspace-write: ordinary files and git add still work"
        else
                not_ok "workspace-write: ordinary files and git add" "$(git -C "$repo" status 2>&1)"
        fi
fi

# A worktree's .git is a file: bwrap still runs there (nothing is bound
# below a file), and the file, which chooses the git directory and so the
# hooks, is read-only and cannot be replaced.
wt=$tmp/wt
mkdir -p "$wt"
echo "gitdir: $tmp/main/.git/worktrees/wt" > "$wt/.git"
cp "$wt/.git" "$tmp/gitfile-before"
(cd "$wt" && "$CORDON" run --backend bwrap --workspace "$wt" --json -- sh -c 'echo ok > made.txt' > "$tmp/o.json")
if [ "$(json_field "$tmp/o.json" verdict)" = ok ] && [ "$(cat "$wt/made.txt" 2>/dev/null)" = ok ]; then
        ok "a workspace whose .git is a file runs under bwrap"
else
        not_ok "workspace with a .git file" "$(cat "$tmp/o.json")"
fi
for attack in 'echo "gitdir: ./evil" > .git' 'rm -f .git && echo "gitdir: ./evil" > .git' 'mv .git .git-away'; do
        (cd "$wt" && "$CORDON" run --backend bwrap --workspace "$wt" --json -- sh -c "$attack" > "$tmp/o.json")
        if [ "$(json_field "$tmp/o.json" verdict)" = denied ] && cmp -s "$wt/.git" "$tmp/gitfile-before"; then
                ok "the .git file holds: $attack refused"
        else
                not_ok "the .git file holds: $attack" "$(cat "$tmp/o.json")" "$(cat "$wt/.git")"
        fi
done
cp "$wt/.git" "$tmp/ctl-gitfile" && (cd "$tmp" && echo "gitdir: ./evil" > ctl-gitfile)
if grep -q evil "$tmp/ctl-gitfile"; then ok "control: unconfined, a .git file can be rewritten"; else not_ok "control: rewrite a .git file"; fi

# A symlinked .envrc: a bind would keep only its target, and the link could
# be replaced, so bwrap refuses to run at all (the native backend handles it).
sl=$tmp/symlinked
mkdir -p "$sl" && echo 'export SAFE=1' > "$sl/real-envrc" && ln -s real-envrc "$sl/.envrc"
err=$(cd "$sl" && "$CORDON" run --backend bwrap --workspace "$sl" -- sh -c 'rm .envrc && echo evil > .envrc' 2>&1)
rc=$?
if [ $rc -eq 125 ] && [ -L "$sl/.envrc" ] && echo "$err" | grep -q "is a symlink"; then
        ok "a symlinked .envrc: bwrap refuses, nothing run, the link is intact"
else
        not_ok "symlinked .envrc refused" "rc=$rc" "$err" "$(ls -la "$sl")"
fi
(cd "$sl" && "$CORDON" run --mode danger-full-access -- sh -c 'rm .envrc && echo evil > .envrc')
if [ ! -L "$sl/.envrc" ] && grep -q evil "$sl/.envrc"; then ok "control: unconfined, the link is replaced"; else not_ok "control: replace the link"; fi

# /run is an empty tmpfs inside: the host's sockets live there.
run_json "$tmp/o.json" --mode workspace-write -- ls -A /run
if [ "$(json_field "$tmp/o.json" verdict)" = ok ] && [ -z "$(json_field "$tmp/o.json" output)" ] && [ -n "$(ls -A /run)" ]; then
        ok "/run is empty inside (control: not empty outside)"
else
        not_ok "/run empty inside" "outside: $(ls -A /run | head -5 | tr '\n' ' ')" "$(cat "$tmp/o.json")"
fi
connect_py='import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print("refused", e.errno)'
if [ "$(id -u)" = 0 ]; then
        sock=/run/cordon-test-$$.sock
        python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); time.sleep(30)' "$sock" &
        listener=$!
        for _ in 1 2 3 4 5 6 7 8 9 10; do [ -S "$sock" ] && break; sleep 0.1; done
        outside=$(python3 -c "$connect_py" "$sock")
        run_json "$tmp/o.json" --mode workspace-write -- python3 -c "$connect_py" "$sock"
        inside=$(json_field "$tmp/o.json" output)
        kill "$listener" 2>/dev/null; wait "$listener" 2>/dev/null; rm -f "$sock"
        if [ "$outside" = connected ] && echo "$inside" | grep -q "^refused"; then
                ok "a host socket under /run: reachable outside, not inside"
        else
                not_ok "host socket under /run unreachable inside" "outside=$outside" "inside=$inside"
        fi
else
        diag "not as root: no host socket can be made in /run to try (root only)"
fi

# /dev/shm is bwrap's own: writable under workspace-write, and not the host's.
run_json "$tmp/o.json" --mode workspace-write -- sh -c "echo shm > /dev/shm/cordon-shm-$$ && cat /dev/shm/cordon-shm-$$"
if [ "$(json_field "$tmp/o.json" output)" = shm ] && [ ! -e /dev/shm/cordon-shm-$$ ]; then
        ok "workspace-write: /dev/shm writable inside and private"
else
        not_ok "workspace-write: private /dev/shm" "$(cat "$tmp/o.json")"; rm -f /dev/shm/cordon-shm-$$
fi

# /tmp is private under read-only too, and not writable there.
echo "host-tmp-$$" > /tmp/cordon-host-$$
run_json "$tmp/o.json" --mode read-only -- sh -c "cat /tmp/cordon-host-$$; touch /tmp/cordon-made-$$"
if ! grep -q "host-tmp-$$" "$tmp/o.json" && [ ! -e /tmp/cordon-made-$$ ] && [ "$(json_field "$tmp/o.json" verdict)" = denied ] &&
   [ "$(cat /tmp/cordon-host-$$)" = "host-tmp-$$" ]; then
        ok "read-only: the host's /tmp is not visible inside and /tmp is not writable"
else
        not_ok "read-only: private /tmp" "$(cat "$tmp/o.json")"
fi
rm -f /tmp/cordon-host-$$ /tmp/cordon-made-$$
run_json "$tmp/o.json" --mode read-only -- cat "$ws/made-inside.txt"
if [ "$(json_field "$tmp/o.json" output)" = inside ]; then ok "read-only: a workspace below /tmp is still readable"; else not_ok "read-only: workspace readable" "$(cat "$tmp/o.json")"; fi

# The session keyring is out of reach: keyctl and add_key refused (seccomp).
if [ "$(uname -m)" = x86_64 ]; then
        keys_py='import ctypes
l=ctypes.CDLL(None,use_errno=True)
r=l.syscall(250,0,-3,0); print("keyctl=%d errno=%d" % (r, ctypes.get_errno()))
r=l.syscall(248,b"user",b"cordon-test",b"v",1,-2); print("add_key=%d errno=%d" % (r, ctypes.get_errno()))'
        outside=$(python3 -c "$keys_py")
        run_json "$tmp/o.json" --mode workspace-write -- python3 -c "$keys_py"
        inside=$(json_field "$tmp/o.json" output)
        if echo "$outside" | grep -q "^keyctl=[1-9].* errno=0" && echo "$outside" | grep -q "^add_key=[1-9]" &&
           echo "$inside" | grep -q "^keyctl=-1 errno=1$" && echo "$inside" | grep -q "^add_key=-1 errno=1$"; then
                ok "keyctl and add_key refused inside (control: both work outside)"
        else
                not_ok "keyrings refused inside" "outside: $outside" "inside: $inside"
        fi
else
        skip "keyctl and add_key refused" "the syscall numbers here are x86_64's"
fi

# --require seccomp: accepted while the runner nests, refused when it cannot.
run_json "$tmp/o.json" --mode workspace-write --require seccomp --require landlock -- sh -c 'echo req > req-ok.txt'
if [ "$(json_field "$tmp/o.json" verdict)" = ok ] && [ "$(cat "$ws/req-ok.txt" 2>/dev/null)" = req ]; then
        ok "--require seccomp --require landlock accepted on bwrap with the runner nested"
else
        not_ok "--require seccomp accepted" "$(cat "$tmp/o.json")"
fi
err=$(CORDON_RUNNER=/nonexistent/cordon "$CORDON" run --backend bwrap --workspace "$ws" --require seccomp -- touch "$ws/req-refused" 2>&1)
rc=$?
if [ $rc -eq 125 ] && [ ! -e "$ws/req-refused" ] && echo "$err" | grep -q "Landlock and seccomp"; then
        ok "--require seccomp refused when the runner cannot nest, nothing run"
else
        not_ok "--require seccomp refused without the runner" "rc=$rc" "$err"
fi
CORDON_RUNNER=/nonexistent/cordon run_json "$tmp/o.json" --mode workspace-write -- sh -c 'echo alone > alone.txt'
if [ "$(cat "$ws/alone.txt" 2>/dev/null)" = alone ] && [ "$(json_field "$tmp/o.json" grade)" = partial ]; then
        ok "without the runner bwrap still runs (grade partial) when nothing requires it"
else
        not_ok "bwrap alone runs" "$(cat "$tmp/o.json")"
fi

# The probe says what bwrap lacks, and more when the runner cannot nest.
probe_reason() {
        python3 -c 'import json,sys
for b in json.load(sys.stdin)["backends"]:
    if b["backend"] == "bwrap": print(b["grade"], b["reason"])'
}
with=$("$CORDON" probe --json --refresh | probe_reason)
without=$(CORDON_RUNNER=/nonexistent/cordon "$CORDON" probe --json --refresh | probe_reason)
if echo "$with" | grep -q "^partial .*host unix sockets outside /run are reachable" &&
   echo "$with" | grep -q "persistence paths that do not exist yet" &&
   ! echo "$with" | grep -q "no seccomp" &&
   echo "$without" | grep -q "^partial no Landlock and no seccomp" && echo "$without" | grep -q "/nonexistent/cordon"; then
        ok "probe: grade partial with the gaps named, and the missing runner named"
else
        not_ok "probe names the gaps" "with: $with" "without: $without"
fi

# A runner that is there but broken: the probe falls back to bwrap alone and
# says so; a pinned bwrap nests it anyway and fails closed, running nothing.
# (A fake runner writes no status record, so its exit 125 reads as the
# command's: the verdict is never runner_failed from text a command could
# print.)
mkdir -p /var/tmp/cordon-fake-$$ && fake=/var/tmp/cordon-fake-$$/cordon
printf '#!/bin/sh\necho "cordon: fake runner" >&2\nexit 125\n' > "$fake" && chmod +x "$fake"
broken=$(CORDON_RUNNER=$fake "$CORDON" probe --json --refresh | probe_reason)
CORDON_RUNNER=$fake run_json "$tmp/o.json" --mode workspace-write -- touch "$ws/fake-ran"
if echo "$broken" | grep -q "^partial no Landlock and no seccomp" && echo "$broken" | grep -q "cordon: fake runner" &&
   [ "$(json_field "$tmp/o.json" exit_code)" = 125 ] && [ ! -e "$ws/fake-ran" ]; then
        ok "a broken runner: probe says bwrap runs alone, a pinned bwrap fails closed"
else
        not_ok "broken runner" "probe: $broken" "$(cat "$tmp/o.json")"
fi
rm -rf /var/tmp/cordon-fake-$$

# explain --backend bwrap: the mounts, the gaps, then the nested runner's plan.
out=$("$CORDON" explain --backend bwrap --workspace "$ws" -- true 2>&1)
if echo "$out" | grep -q "grade partial" && echo "$out" | grep -qF -- "--ro-bind-try $ws/.git/hooks $ws/.git/hooks" &&
   echo "$out" | grep -q "^not enforced here: .*host unix sockets outside /run" && echo "$out" | grep -q "seccomp (EPERM)"; then
        ok "explain --backend bwrap names the mounts, the gaps and the runner's plan"
else
        not_ok "explain --backend bwrap" "$out"
fi
out=$(CORDON_RUNNER=/nonexistent/cordon "$CORDON" explain --backend bwrap --workspace "$ws" -- true 2>&1)
if echo "$out" | grep -q "^not enforced here: no Landlock and no seccomp" && ! echo "$out" | grep -q "seccomp (EPERM)"; then
        ok "explain --backend bwrap without the runner says Landlock and seccomp are missing"
else
        not_ok "explain without the runner" "$out"
fi

finish
