#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Profiles end to end: a profile's grants, denials and limits hold for real
# under `cordon run --profile`, each next to a control showing the same
# attempt turns out differently without it; `profile show default` is what
# runs without --profile; validate prints the exact error; `why` names the
# deciding rule; list, schema and diff work.
. "$(dirname "$0")/tap.sh"

PY=$(command -v python3)
unset TMPDIR XDG_CONFIG_HOME
BASE=$(mktemp -d /var/tmp/cordon-profiles.XXXXXX)
trap 'rm -rf "$BASE"' EXIT
export HOME=$BASE/home XDG_CACHE_HOME=$BASE/cache
ws=$BASE/ws
mkdir -p "$HOME/.ssh" "$ws/.git/hooks" "$ws/private" "$BASE/extra" "$HOME/.config/cordon/profiles"
echo "PRIVATE-KEY-$$" > "$HOME/.ssh/id_ed25519"
echo "PLANTED-$$" > "$ws/private/key.txt"
cd "$ws"

# A profile granting a writable directory outside the workspace, hiding a
# planted directory in it, and limiting file size.
cat > "$BASE/it.json" <<EOF
{
  "meta": { "name": "it", "description": "the integration test's profile" },
  "extends": "workspace-write",
  "filesystem": {
    "write": ["$BASE/extra"],
    "deny_read": ["\$WORKSPACE/private"]
  },
  "limits": { "max_file_size": "1M" }
}
EOF

# j KEY < JSON: one field; a string is printed as it is (no newline added)
j() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; sys.stdout.write(v if isinstance(v,str) else "null\n" if v is None else str(v).lower()+"\n")' "$1"; }
crun() { "$CORDON" run --backend native --json "$@"; }

if ! "$CORDON" probe --json | "$PY" -c 'import json,sys; sys.exit(0 if any(b["backend"]=="native" and b["usable"] for b in json.load(sys.stdin)["backends"]) else 1)'; then
        skip "profiles end to end" "the native backend is not usable here"
        finish; exit
fi

# ---- (1) grants and denials, for real ----------------------------------------

# Grant: a write outside the workspace lands on the host with the profile...
out=$(crun --profile "$BASE/it.json" -- sh -c "echo granted-$$ > '$BASE/extra/made'")
if [ "$(j verdict <<<"$out")" = ok ] && [ "$(cat "$BASE/extra/made" 2>/dev/null)" = "granted-$$" ]; then
        ok "profile filesystem.write: a write outside the workspace lands on the host"
else
        not_ok "profile filesystem.write grants" "$out"
fi
# ...and is refused without it (the default profile), so the grant did it.
out=$(crun -- sh -c "echo x > '$BASE/extra/control'")
if [ "$(j verdict <<<"$out")" = denied ] && [ ! -e "$BASE/extra/control" ]; then
        ok "control: without --profile the same write is refused"
else
        not_ok "control: default refuses the write outside" "$out"
fi

# Deny: the planted file is readable by default, refused under the profile.
out=$(crun -- cat private/key.txt)
if grep -q "PLANTED-$$" <<<"$(j output <<<"$out")"; then
        ok "control: without --profile private/key.txt is readable"
else
        not_ok "control: default reads the planted file" "$out"
fi
out=$(crun --profile "$BASE/it.json" -- cat private/key.txt)
if [ "$(j verdict <<<"$out")" = denied ] && ! grep -q "PLANTED-$$" <<<"$out" &&
   grep -q "Permission denied" <<<"$(j output <<<"$out")"; then
        ok "profile filesystem.deny_read: reading the planted file is refused"
else
        not_ok "profile deny_read refuses" "$out"
fi
# Flags add to the profile's lists; deny wins over the profile's write grant.
out=$(crun --profile "$BASE/it.json" --deny-read "$BASE/extra" -- sh -c "echo x > '$BASE/extra/denied'")
if [ "$(j verdict <<<"$out")" = denied ] && [ ! -e "$BASE/extra/denied" ]; then
        ok "--deny-read on top of the profile's write grant: deny wins"
else
        not_ok "--deny-read over a profile write grant" "$out"
fi

# Limit: max_file_size 1M from the profile is enforced; a flag overrides it.
out=$(crun -- sh -c 'head -c 2000000 /dev/zero > big0; wc -c < big0')
if [ "$(j output <<<"$out" | tr -d ' \n')" = 2000000 ]; then
        ok "control: without --profile a 2000000-byte file is written whole"
else
        not_ok "control: big file written whole" "$out"
fi
out=$(crun --profile "$BASE/it.json" -- sh -c 'head -c 2000000 /dev/zero > big1; wc -c < big1')
if [ "$(j output <<<"$out" | tail -n1 | tr -d ' ')" = 1048576 ] && grep -q "File too large" <<<"$out" &&
   [ "$(stat -c %s big1)" = 1048576 ] && grep -q '"file_size"' <<<"$out"; then
        ok "profile limits.max_file_size 1M: the write stops at 1048576 bytes (EFBIG)"
else
        not_ok "profile max_file_size enforced" "$out"
fi
out=$(crun --profile "$BASE/it.json" --max-file-size 3M -- sh -c 'head -c 2000000 /dev/zero > big2; wc -c < big2')
if [ "$(j output <<<"$out" | tr -d ' \n')" = 2000000 ]; then
        ok "--max-file-size 3M overrides the profile's 1M"
else
        not_ok "--max-file-size overrides the profile" "$out"
fi

# A profile timeout kills like --timeout does.
echo '{ "limits": { "timeout": 1 } }' > "$BASE/timeout.json"
start=$(date +%s%N)
"$CORDON" run --backend native --profile "$BASE/timeout.json" -- sleep 20.6464 2>/dev/null
rc=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
if [ $rc -eq 124 ] && [ $elapsed -lt 5000 ]; then
        ok "profile limits.timeout 1: exit 124 after ${elapsed} ms"
else
        not_ok "profile timeout enforced" "rc=$rc elapsed=${elapsed}ms"
fi

# Network none holds under the profile; --net host on top gives the host's.
ifaces() { "$PY" -c 'import sys; print(",".join(sorted(l.split(":")[0].strip() for l in sys.stdin.read().splitlines()[2:])))'; }
host_ifaces=$(ifaces < /proc/net/dev)
out=$(crun --profile "$BASE/it.json" -- cat /proc/net/dev)
if [ "$(j output <<<"$out" | ifaces)" = lo ]; then
        ok "profile network none: only loopback inside (host has $host_ifaces)"
else
        not_ok "profile network none" "$out"
fi
out=$(crun --profile "$BASE/it.json" --net host -- cat /proc/net/dev)
# (a host with only lo could not tell the two apart: then the control fails)
if [ "$(j output <<<"$out" | ifaces)" = "$host_ifaces" ] && [ "$host_ifaces" != lo ]; then
        ok "control: --net host on top of the profile sees the host's interfaces"
else
        not_ok "control: --net host over the profile" "$out"
fi

# Unconfined control for the denials above: the key and planted file are there.
out=$(crun --mode danger-full-access -- cat "$HOME/.ssh/id_ed25519" private/key.txt)
if grep -q "PRIVATE-KEY-$$" <<<"$out" && grep -q "PLANTED-$$" <<<"$out"; then
        ok "control: danger-full-access reads the key and the planted file"
else
        not_ok "control: unconfined reads" "$out"
fi

# ---- (2) show default is what runs without --profile -------------------------

if "$CORDON" profile show default > "$BASE/default.json" && "$PY" -m json.tool "$BASE/default.json" >/dev/null &&
   [ "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["mode"])' "$BASE/default.json")" = workspace-write ]; then
        ok "profile show default prints JSON that parses"
else
        not_ok "profile show default parses" "$(cat "$BASE/default.json")"
fi
"$CORDON" confine --backend native --json -- true > "$BASE/c-none.json"
"$CORDON" confine --backend native --profile default --json -- true > "$BASE/c-default.json"
"$CORDON" confine --backend native --profile "$BASE/default.json" --json -- true > "$BASE/c-shown.json"
if [ -s "$BASE/c-none.json" ] && cmp -s "$BASE/c-none.json" "$BASE/c-default.json" &&
   cmp -s "$BASE/c-none.json" "$BASE/c-shown.json"; then
        ok "confine --json: no --profile, --profile default and the shown file are identical"
else
        not_ok "default profile equals what runs" "$(diff "$BASE/c-none.json" "$BASE/c-shown.json")"
fi
"$CORDON" confine --backend native --mode read-only --json -- true > "$BASE/c-ro-flag.json"
"$CORDON" confine --backend native --profile read-only --json -- true > "$BASE/c-ro-profile.json"
if cmp -s "$BASE/c-ro-flag.json" "$BASE/c-ro-profile.json"; then
        ok "confine: --mode read-only and --profile read-only give the same argv"
else
        not_ok "--mode read-only vs --profile read-only" "$(diff "$BASE/c-ro-flag.json" "$BASE/c-ro-profile.json")"
fi
"$CORDON" profile show --json "$BASE/it.json" > "$BASE/show.json" 2>"$BASE/err"
if "$PY" - "$BASE/show.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["profile"]["limits"]["max_file_size"] == 1048576, o
assert o["profile"]["filesystem"]["deny_read"][0].endswith("/ws/private"), o
assert o["chain"] == [o["file"], "builtin:workspace-write"], o
assert o["notes"] == [], o
PY
then ok "profile show --json: resolved profile, chain and notes"; else not_ok "profile show --json" "$(cat "$BASE/show.json" "$BASE/err")"; fi
# A missing path is skipped and said so, on stderr or in notes.
echo '{ "filesystem": { "deny_read": ["$HOME/no-such-dir"] } }' > "$BASE/missing.json"
"$CORDON" profile show "$BASE/missing.json" > /dev/null 2> "$BASE/err"
"$CORDON" profile show --json "$BASE/missing.json" > "$BASE/show.json"
if grep -q "^cordon: note: .*no-such-dir" "$BASE/err" &&
   "$PY" -c 'import json,sys; n=json.load(open(sys.argv[1]))["notes"]; sys.exit(0 if n and n[0]["kind"]=="missing_path" and n[0]["pointer"]=="/filesystem/deny_read/0" else 1)' "$BASE/show.json"; then
        ok "profile show reports a skipped missing path (stderr, and notes with --json)"
else
        not_ok "profile show notes" "$(cat "$BASE/err" "$BASE/show.json")"
fi

# ---- (3) validate prints the exact error ------------------------------------

inv=$CORDON_SRCDIR/tests/data/profiles/invalid
for f in unknown-key-far limits-range; do
        err=$(cd "$inv" && "$CORDON" profile validate "$f.json" 2>&1 >/dev/null); rc=$?
        if [ $rc -eq 1 ] && [ "$err" = "$(cat "$inv/$f.expected")" ]; then
                ok "validate $f.json: exit 1, exactly: $err"
        else
                not_ok "validate $f.json" "rc=$rc" "got:      $err" "expected: $(cat "$inv/$f.expected")"
        fi
done
printf '{\n  "filesytem": {}\n}\n' > "$BASE/typo.json"
err=$(cd "$BASE" && "$CORDON" profile validate typo.json 2>&1 >/dev/null); rc=$?
want='typo.json:2:3: at /filesytem: unknown key "filesytem", did you mean "filesystem"?'
if [ $rc -eq 1 ] && [ "$err" = "$want" ]; then ok "validate a typo: did you mean, with line and column"; else not_ok "validate typo" "rc=$rc" "got:      $err" "expected: $want"; fi
# every error in one pass, each at its own line and column, did-you-mean
# for values too; the control: the first alone is what a run reports
printf '{\n  "extends": "workspace-writ",\n  "modee": 1,\n  "network": {"mode": "proxyy", "allow_domains": [1]},\n  "limits": {"timeout": "abc"}\n}\n' > "$BASE/many.json"
err=$(cd "$BASE" && "$CORDON" profile validate many.json 2>&1 >/dev/null); rc=$?
want='many.json:3:3: at /modee: unknown key "modee", did you mean "mode"?
many.json:2:14: at /extends: no profile named "workspace-writ", did you mean "workspace-write"?
many.json:4:23: at /network/mode: "proxyy" is not a network mode, did you mean "proxy"?
many.json:4:51: at /network/allow_domains/0: expected a string, not an integer
many.json:5:25: at /limits/timeout: "abc" is not a duration (seconds, or with an ms, s, m or h suffix)'
if [ $rc -eq 1 ] && [ "$err" = "$want" ]; then
        ok "validate reports all five errors in one pass, each with its line, column and did-you-mean"
else
        not_ok "validate every error" "rc=$rc" "got:      $err" "expected: $want"
fi
err=$(cd "$BASE" && "$CORDON" run --profile many.json -- true 2>&1); rc=$?
[ $rc -eq 125 ] && [ "$(grep -c "many.json:" <<<"$err")" = 1 ] && ok "control: a run stops at the first error (exit 125)" ||
        not_ok "control: run with many errors" "rc=$rc" "$err"
out=$("$CORDON" profile validate "$BASE/it.json" "$BASE/default.json"); rc=$?
if [ $rc -eq 0 ] && [ "$out" = "$BASE/it.json: valid
$BASE/default.json: valid" ]; then ok "validate valid files: exit 0"; else not_ok "validate valid files" "rc=$rc" "$out"; fi
"$CORDON" profile validate "$BASE/it.json" "$inv/limits-range.json" >/dev/null 2>&1; rc=$?
if [ $rc -eq 1 ]; then ok "validate one valid and one invalid: exit 1"; else not_ok "validate mixed" "rc=$rc"; fi

# ---- (4) why names the rule ----------------------------------------------------

out=$("$CORDON" why --path "$HOME/.ssh/id_ed25519" --op read); rc=$?
if [ $rc -eq 1 ] && grep -q "^deny: .*id_ed25519 is hidden by .*/.ssh, an entry of the built-in group credentials" <<<"$out" &&
   grep -q "^  rule: (built-in) at /groups/credentials$" <<<"$out"; then
        ok "why: reading ~/.ssh/id_ed25519 is denied by the credentials group"
else
        not_ok "why credentials" "rc=$rc" "$out"
fi
out=$("$CORDON" why --path src/main.c --op write --json); rc=$?
if [ $rc -eq 0 ] && [ "$(j decision <<<"$out")" = allow ] && grep -q "is in the workspace $ws" <<<"$(j reason <<<"$out")"; then
        ok "why: a workspace write is allowed (json)"
else
        not_ok "why workspace write" "rc=$rc" "$out"
fi
out=$("$CORDON" why --path .git/hooks/pre-commit --op write --json); rc=$?
if [ $rc -eq 1 ] && [ "$(j allow <<<"$out")" = false ] && [ "$(j pointer <<<"$out")" = /groups/persistence ] &&
   grep -q "kept read-only" <<<"$(j reason <<<"$out")"; then
        ok "why: a .git/hooks write is denied by the persistence group"
else
        not_ok "why .git/hooks" "rc=$rc" "$out"
fi
out=$("$CORDON" why --host example.com --port 443); rc=$?
if [ $rc -eq 1 ] && grep -q "^deny: network.mode is none" <<<"$out" && grep -q "^  rule: builtin:default at /network/mode$" <<<"$out"; then
        ok "why: example.com:443 is unreachable under network none, rule builtin:default /network/mode"
else
        not_ok "why host" "rc=$rc" "$out"
fi
# HOST:PORT and [V6]:PORT say the port; two different ports are refused
a=$("$CORDON" why --host example.com:8443 --json); b=$("$CORDON" why --host '[::1]:22' --json)
c=$("$CORDON" why --host example.com:80 --port 81 2>&1); rc=$?
if [ "$(j host <<<"$a")" = example.com ] && [ "$(j port <<<"$a")" = 8443 ] && [ "$(j host <<<"$b")" = ::1 ] &&
   [ "$(j port <<<"$b")" = 22 ] && [ $rc -ne 0 ] && [ $rc -ne 1 ] && grep -q "name two ports" <<<"$c"; then
        ok "why: --host HOST:PORT and [V6]:PORT are read as host and port; two ports are refused"
else
        not_ok "why --host HOST:PORT" "$a" "$b" "rc=$rc $c"
fi
out=$("$CORDON" why --profile "$BASE/it.json" --path private/key.txt --op read --json); rc=$?
if [ $rc -eq 1 ] && [ "$(j file <<<"$out")" = "$BASE/it.json" ] && [ "$(j pointer <<<"$out")" = /filesystem/deny_read/0 ]; then
        ok "why: the profile's deny_read is named by file and JSON path"
else
        not_ok "why profile deny_read" "rc=$rc" "$out"
fi
out=$("$CORDON" why --profile "$BASE/it.json" --path "$BASE/extra/f" --op write); rc=$?
if [ $rc -eq 0 ] && grep -q "^  rule: $BASE/it.json at /filesystem/write/0$" <<<"$out"; then
        ok "why: the profile's write grant is named"
else
        not_ok "why profile write" "rc=$rc" "$out"
fi

# ---- (5) list, schema, diff; lookup; refusals --------------------------------

printf '{ "meta": { "description": "mine" }, "extends": "read-only" }\n' > "$HOME/.config/cordon/profiles/mine.json"
out=$("$CORDON" profile list)
if grep -qE "^default +built-in +builtin:default$" <<<"$out" && grep -qE "^offline-build +built-in " <<<"$out" &&
   grep -qE "^mine +user +$HOME/.config/cordon/profiles/mine.json$" <<<"$out"; then
        ok "profile list: built-ins and the user's, with where each comes from"
else
        not_ok "profile list" "$out"
fi
if "$CORDON" profile list --json | "$PY" -c 'import json,sys; p={x["name"]:x for x in json.load(sys.stdin)["profiles"]}; sys.exit(0 if p["mine"]["source"]=="user" and p["git"]["source"]=="built-in" else 1)'; then
        ok "profile list --json parses"
else
        not_ok "profile list --json"
fi
out=$(crun --profile mine -- sh -c 'echo x > in-ws')
if [ "$(j verdict <<<"$out")" = denied ] && [ ! -e in-ws ]; then
        ok "--profile mine finds ~/.config/cordon/profiles/mine.json (read-only: the write is refused)"
else
        not_ok "--profile mine lookup" "$out"
fi
if "$CORDON" profile schema > "$BASE/schema.json" && cmp -s "$BASE/schema.json" "$CORDON_SRCDIR/share/cordon/profile.schema.json" &&
   "$PY" -m json.tool "$BASE/schema.json" >/dev/null; then
        ok "profile schema prints share/cordon/profile.schema.json (embedded)"
else
        not_ok "profile schema"
fi
out=$("$CORDON" profile diff default default); rc=$?
if [ $rc -eq 0 ] && [ -z "$out" ]; then ok "profile diff of a profile with itself: exit 0, no output"; else not_ok "diff same" "rc=$rc" "$out"; fi
out=$("$CORDON" profile diff default read-only); rc=$?
again=$("$CORDON" profile diff default read-only)
if [ $rc -eq 1 ] && grep -qx -- '- /mode: "workspace-write"' <<<"$out" && grep -qx -- '+ /mode: "read-only"' <<<"$out" &&
   [ "$(head -n2 <<<"$out")" = "--- default (builtin:default)
+++ read-only (builtin:read-only)" ] && [ "$out" = "$again" ]; then
        ok "profile diff default read-only: exit 1, the mode line, deterministic"
else
        not_ok "diff default read-only" "rc=$rc" "$out"
fi
out=$("$CORDON" profile diff "$BASE/it.json" workspace-write); rc=$?
if [ $rc -eq 1 ] && grep -qx -- "- /filesystem/write: \"$BASE/extra\"" <<<"$out" && grep -qx -- '- /limits/max_file_size: 1048576' <<<"$out"; then
        ok "profile diff names the grant and the limit"
else
        not_ok "diff it.json" "rc=$rc" "$out"
fi

# confine cannot carry limits: refused, not dropped.
err=$("$CORDON" confine --profile "$BASE/it.json" --json -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "sets limits, which only \`cordon run\` enforces" <<<"$err"; then
        ok "confine refuses a profile with limits (exit 125)"
else
        not_ok "confine with limits" "rc=$rc" "$err"
fi
# Errors name the problem; every refusal of every subcommand exits 125.
err=$("$CORDON" run --profile no-such-profile -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "no-such-profile: no profile by that name" <<<"$err"; then ok "run --profile missing: 125, named"; else not_ok "run missing profile" "rc=$rc $err"; fi
err=$("$CORDON" run --profile "$inv/limits-range.json" -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "at /limits/timeout: must be from 1 second to 1 week, not 0" <<<"$err"; then ok "run with an invalid profile: 125 with the loader's message"; else not_ok "run invalid profile" "rc=$rc $err"; fi
err=$("$CORDON" why --path x 2>&1); rc=$?
if [ $rc -eq 125 ] && [ "$err" = "cordon: --path needs --op read, write or exec" ]; then ok "why usage error: exit 125, named"; else not_ok "why usage" "rc=$rc $err"; fi
err=$("$CORDON" profile frob 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "unknown profile action 'frob'" <<<"$err"; then ok "profile usage error: exit 125, named"; else not_ok "profile usage" "rc=$rc $err"; fi
for sub in "profile" "profile show" "why" "run" "confine" "explain"; do
        # shellcheck disable=SC2086
        if "$CORDON" $sub --help | grep -q "^usage: cordon ${sub%% *}"; then ok "cordon $sub --help"; else not_ok "cordon $sub --help"; fi
done

# A profile in the workspace (the README's build.json) is a persistence path:
# a run under it cannot rewrite it, or the file it extends, to choose the
# next run's policy. Control: the same rewrite works unconfined.
cat > "$ws/base.json" <<'EOF'
{ "extends": "workspace-write" }
EOF
cat > "$ws/build.json" <<'EOF'
{ "extends": "./base.json", "limits": { "timeout": "10m" } }
EOF
cp "$ws/build.json" "$ws/control.json" && echo '{"extends":"danger-full-access"}' > "$ws/control.json" &&
        ok "control: a profile in the workspace can be rewritten unconfined"
before=$(cat "$ws/build.json" "$ws/base.json" | md5sum)
evil='{"extends":"danger-full-access"}'
out=$(crun --profile "$ws/build.json" -- sh -c "echo '$evil' > build.json; echo '$evil' > base.json; mv build.json moved.json; mv base.json moved2.json; rm -f build.json base.json")
if [ "$(j verdict <<<"$out")" = denied ] && [ "$(cat "$ws/build.json" "$ws/base.json" | md5sum)" = "$before" ] &&
   [ ! -e "$ws/moved.json" ] && [ ! -e "$ws/moved2.json" ]; then
        ok "a run cannot rewrite, move or remove the profile it runs under, nor the file it extends (denied)"
else
        not_ok "the profile in the workspace stays as it was" "$out"
fi
out=$(crun --profile "$ws/build.json" -- true)
if [ "$(j exit_code <<<"$out")" = 0 ] && [ "$(j mode <<<"$out")" = workspace-write ]; then
        ok "the next run loads the profile unchanged (workspace-write)"
else
        not_ok "the next run loads the same profile" "$out"
fi

# Lifting a persistence entry takes effect for a path that does not exist
# yet: run makes it; without the lift the same mkdir is refused.
cat > "$BASE/lift.json" <<'EOF'
{ "extends": "workspace-write", "groups": { "persistence": { "bypass": ["$WORKSPACE/.vscode"] } } }
EOF
rm -rf "$ws/.vscode"
out=$(crun -- mkdir "$ws/.vscode")
if [ "$(j exit_code <<<"$out")" != 0 ] && [ ! -d "$ws/.vscode" ]; then
        ok "control: without the lift, a missing .vscode cannot be made"
else
        not_ok "control: a missing .vscode is protected" "$out"
fi
out=$(crun --profile "$BASE/lift.json" -- mkdir "$ws/.vscode")
if [ "$(j exit_code <<<"$out")" = 0 ] && [ -d "$ws/.vscode" ]; then
        ok "groups.persistence.bypass lifts a path that does not exist yet (run makes it)"
else
        not_ok "the lift of a missing path takes effect" "$out"
fi
rm -rf "$ws/.vscode"

finish
