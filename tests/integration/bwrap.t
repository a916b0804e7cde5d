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
# The write-outside target. Unprivileged, the host refuses /etc by itself and
# the denial would prove nothing: then a directory of ours outside every
# writable root (the sandbox's /tmp is private, so not under /tmp).
if [ "$(id -u)" = 0 ]; then
        outside=/etc where=/etc
else
        outside=$(mktemp -d /var/tmp/cordon-it-bwrap-out.XXXXXX) where="a directory of ours in /var/tmp"
fi
target=$outside/cordon-test-$$
trap 'rm -rf "$tmp"; rm -f "$target"; [ "$outside" = /etc ] || rm -rf "$outside"' EXIT
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
        run_json "$tmp/o.json" --mode $mode -- touch "$target"
        v=$(json_field "$tmp/o.json" verdict)
        if [ "$v" = denied ] && [ ! -e "$target" ]; then
                ok "$mode: write to $where refused and classified denied"
        else
                not_ok "$mode: write to $where refused and classified denied" "verdict=$v" "$(cat "$tmp/o.json")"
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
           [ "$(json_field "$tmp/o.json" enforcement)" = bwrap ] && [ "$(json_field "$tmp/o.json" grade)" = full ]; then
                ok "$mode: --json output parses and names enforcement bwrap, grade full"
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
run_json "$tmp/o.json" --mode danger-full-access -- touch "$target"
if [ -e "$target" ] && [ "$(json_field "$tmp/o.json" verdict)" = ok ] &&
   [ "$(json_field "$tmp/o.json" enforcement)" = none ]; then
        ok "control: danger-full-access writes $where"
else
        not_ok "control: danger-full-access writes $where" "$(cat "$tmp/o.json")"
fi
rm -f "$target"
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

# Timeout: 124 within 3 s, nothing left behind.
start=$(date +%s%N)
"$CORDON" run --backend bwrap --workspace "$ws" --timeout 1 -- sh -c 'sleep 31.7177 & sleep 30.7177'
rc=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
sleep 0.2
if [ $rc -eq 124 ] && [ $elapsed -lt 3000 ] && ! pgrep -f 7177 >/dev/null; then
        ok "--timeout 1 returns 124 in ${elapsed} ms with no process left"
else
        not_ok "--timeout 1 returns 124 quickly, nothing left" "rc=$rc elapsed=${elapsed}ms" "$(pgrep -af 7177)"
        pkill -9 -f 7177
fi

# Interactive: the command's exit code is cordon's.
"$CORDON" run --backend bwrap --workspace "$ws" -- sh -c 'exit 3'
rc=$?
if [ $rc -eq 3 ]; then ok "interactive: exit code passes through"; else not_ok "interactive exit code" "rc=$rc"; fi

# Interactive denial is explained on stderr.
err=$("$CORDON" run --backend bwrap --workspace "$ws" -- touch "$target" 2>&1 >/dev/null)
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
python3 - "$tmp/c.json" > "$tmp/out.txt" <<'PY'
import json, subprocess, sys
c = json.load(open(sys.argv[1]))
p = subprocess.run(["/bin/sh", "-c", 'exec "$@" 2>&1', "sh"] + c["argv"], capture_output=True, text=True)
sys.stdout.write(p.stdout)
open(sys.argv[1] + ".status", "w").write(str(p.returncode))
PY
v=$("$CORDON" classify --confined "$tmp/c.json" --status "$(cat "$tmp/c.json.status")" --output "$tmp/out.txt")
if [ "$v" = denied ]; then ok "classify reads the confined value and says denied"; else not_ok "classify" "verdict=$v" "$(cat "$tmp/out.txt")"; fi

# Bad input: errors name the flag.
err=$("$CORDON" run --mode rw -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && echo "$err" | grep -q -- "--mode: unknown mode 'rw'"; then ok "bad --mode named, exit 125"; else not_ok "bad --mode" "rc=$rc $err"; fi
err=$("$CORDON" run --workspace / -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && echo "$err" | grep -q "canonicalises to '/'"; then ok "workspace / refused"; else not_ok "workspace / refused" "rc=$rc $err"; fi

# probe --json parses
if "$CORDON" probe --json | python3 -m json.tool >/dev/null; then ok "probe --json parses"; else not_ok "probe --json parses"; fi

finish
