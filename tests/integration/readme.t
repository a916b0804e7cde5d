#!/usr/bin/env bash
# The README is executable: every command of its sh blocks and `$ ` lines,
# and every line of the man pages' EXAMPLES, runs here as written, with the
# built cordon first on PATH, in a workspace holding the files they name
# (a Makefile with a test target, ./flaky-script, ./noisy, the README's
# agent.json). A command passes when cordon neither refused it (125) nor
# found nothing to run (126, 127): what the README says it does. The few
# that cannot run offline or here are reported as skipped, with why
# (never silently); a new command the table does not know runs.
. "$(dirname "$0")/tap.sh"

src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /var/tmp/cordon-it-readme.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/home"
ln -s "$CORDON" "$tmp/bin/cordon"
export PATH="$tmp/bin:$PATH" XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state"

# every command, one per record: SOURCE<TAB>BLOCK<TAB>COMMAND (NUL-separated:
# a heredoc or a continued line is one command; the commands of one block
# run in turn in one workspace, as a reader types them); the README's JSON profile
# with command_policies, as agent.json
python3 - "$src" "$tmp" <<'PY'
import glob, json, os, re, sys
src, tmp = sys.argv[1], sys.argv[2]
out = []

block = 0

def commands(text, where, prompt_only=False):
    global block
    block += 1
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if prompt_only:
            if line.startswith("$ "):
                out.append((where, block, line[2:].strip()))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cmd = line
        m = re.search(r"<<'?(\w+)'?", cmd)
        if m:  # a heredoc: up to its terminator
            while i < len(lines) and lines[i] != m.group(1):
                cmd += "\n" + lines[i]
                i += 1
            cmd += "\n" + m.group(1)
            i += 1
        while cmd.endswith("\\") and i < len(lines):
            cmd = cmd[:-1] + " " + lines[i].strip()
            i += 1
        # a trailing comment ("   # what it does") is prose
        cmd = re.sub(r"\s{2,}#.*$", "", cmd) if "\n" not in cmd else cmd
        out.append((where, block, cmd.strip()))

readme = open(os.path.join(src, "README.md")).read()
for lang, body in re.findall(r"```(\w*)\n(.*?)```", readme, re.S):
    if lang == "sh":
        commands(body, "README")
    elif lang == "":
        commands(body, "README", prompt_only=True)
    elif lang == "json" and '"command_policies"' in body:
        json.loads(body)  # the README's JSON is JSON
        open(os.path.join(tmp, "agent.json"), "w").write(body)
for man in sorted(glob.glob(os.path.join(src, "docs/man/*.scd"))):
    text = open(man).read()
    m = re.search(r"^# EXAMPLES\n(.*?)(?=^# )", text, re.S | re.M)
    if m:
        for body in re.findall(r"```\n(.*?)```", m.group(1), re.S):
            commands(body, os.path.basename(man))
with open(os.path.join(tmp, "commands"), "wb") as f:
    for where, b, cmd in out:
        f.write(("%s\t%d\t%s\0" % (where, b, cmd)).encode())
PY
[ -s "$tmp/agent.json" ] && ok "the README's tool-sandbox profile is JSON (saved as agent.json)" ||
        not_ok "the README's agent.json"

# what cannot run here: PATTERN (a bash glob on the command) -> reason
offline() {
        case $1 in
        "make run"|"make check") echo "builds and tests the whole tree (this suite is part of it)" ;;
        scripts/install-deps*) echo "installs packages from the network (apt)" ;;
        "sudo meson install"*) echo "installs into the system prefix" ;;
        "meson setup build"*|"ninja -C build") echo "rebuilds the tree in place (the suite runs from that build)" ;;
        *"npm install"*) echo "needs the npm registry (network)" ;;
        *"-- git fetch"*) echo "needs a remote on github.com (network)" ;;
        *"-- claude"*) echo "needs an agent CLI that is not installed here" ;;
        *"host.cordon.internal:8000"*) echo "needs a service on the host's port 8000" ;;
        "cordon audit verify SESSION") echo "SESSION is the id of a session's log (cordon audit list), and no session ran here" ;;
        *) return 1 ;;
        esac
}

# what the README says a command prints, where it says so: a fixed string
# its output must hold
says() {
        case $1 in
        "cordon classify --json"*) echo '"path":"/etc/x","op":"write"' ;;
        "cordon run --json -- touch /etc/x") echo '"verdict":"denied"' ;;
        "cordon run -- touch /etc/x") echo "[cordon: access denied under workspace-write mode]" ;;
        "cordon why --net proxy"*"--host gist.github.com") echo "at --deny-domain gist.github.com" ;;
        "cordon run -- make test") echo "tests pass" ;;
        *) return 1 ;;
        esac
}

# the workspace every command runs in
fresh_ws() {
        rm -rf "$tmp/ws" && mkdir -p "$tmp/ws" && cd "$tmp/ws" || exit 1
        cp "$tmp/agent.json" .
        printf 'all:\n\t@echo built\ntest:\n\t@echo tests pass\n' > Makefile
        printf '#!/bin/sh\necho flaky\n' > flaky-script
        printf '#!/bin/sh\nyes noise | head -c 3000000\n' > noisy
        chmod +x flaky-script noisy
        mkdir -p secrets && echo k > secrets/key
        git init -q . 2>/dev/null
}

n=0
last=
want=
while IFS=$'\t' read -r -d '' where block cmd; do
        n=$((n + 1))
        short=${cmd%%$'\n'*}
        if reason=$(offline "$cmd"); then
                # not a kernel-support skip: reported as skipped whatever
                # CORDON_TEST_MUST_WORK says, with the reason
                _n=$((_n + 1))
                echo "ok $_n - $where: $short # SKIP $reason"
                continue
        fi
        [ "$block" = "$last" ] || fresh_ws
        last=$block
        cd "$tmp/ws" || exit 1
        out=$(HOME=$tmp/home bash -c "$cmd" 2>&1 </dev/null)
        rc=$?
        cd "$tmp" || exit 1
        if [ "$rc" = 125 ] && [[ $cmd == *--max-processes* && $out == *"no writable pids cgroup here"* ]]; then
                # the README's own rule: without a pids cgroup it is refused
                _n=$((_n + 1))
                echo "ok $_n - $where: $short # SKIP no pids cgroup for this user here: refused, as the README says"
        elif [ "$rc" = 125 ] || [ "$rc" = 126 ] || [ "$rc" = 127 ]; then
                not_ok "$where: $short" "exit $rc" "${out:0:3000}"
        elif want=$(says "$cmd") && [[ "$out" != *"$want"* ]]; then
                not_ok "$where: $short" "exit $rc, but the output lacks: $want" "${out:0:3000}"
        else
                ok "$where: $short (exit $rc${want:+; says $want})"
        fi
        want=
done < "$tmp/commands"
[ "$n" -ge 30 ] && ok "$n commands found in the README and the man pages' EXAMPLES" ||
        not_ok "the extraction found only $n commands"

finish
