#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Credential groups lifted by name (groups.credentials.lift), for real: a
# planted ~/.aws/credentials is readable unconfined (control), hidden under
# the default profile, and readable under a profile that lifts "cloud",
# while ~/.ssh, ~/.aws/amazonq (agents) and a ~/.aws that is a symlink onto
# ~/.ssh stay hidden. why, show, diff and validate say what is lifted.
. "$(dirname "$0")/tap.sh"

PY=$(command -v python3)
unset TMPDIR XDG_CONFIG_HOME
BASE=$(mktemp -d /var/tmp/cordon-credgroups.XXXXXX)
trap 'rm -rf "$BASE"' EXIT
export HOME=$BASE/home XDG_CACHE_HOME=$BASE/cache
ws=$BASE/ws
mkdir -p "$HOME/.aws/amazonq" "$HOME/.ssh" "$ws"
echo "AWS-SECRET-$$" > "$HOME/.aws/credentials"
echo "Q-TOKEN-$$" > "$HOME/.aws/amazonq/token"
echo "PRIVATE-KEY-$$" > "$HOME/.ssh/id_ed25519"
cd "$ws"
cat > "$BASE/cloud.json" <<EOF
{
  "extends": "default",
  "groups": { "credentials": { "lift": ["cloud"] } }
}
EOF

j() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; sys.stdout.write(v if isinstance(v,str) else "null\n" if v is None else str(v).lower()+"\n")' "$1"; }
crun() { "$CORDON" run --backend native --json "$@"; }

# ---- what the loader and the CLI say (no sandbox needed) -----------------------

out=$("$CORDON" why --profile "$BASE/cloud.json" --path "$HOME/.aws/config" --op read --json); rc=$?
if [ $rc -eq 0 ] && [ "$(j decision <<<"$out")" = allow ] && [ "$(j file <<<"$out")" = "$BASE/cloud.json" ] &&
   [ "$(j pointer <<<"$out")" = /groups/credentials/lift/0 ] && grep -q "credential group cloud is lifted" <<<"$(j reason <<<"$out")"; then
        ok "why: ~/.aws/config is allowed and names the lift (file and JSON pointer)"
else
        not_ok "why lift" "rc=$rc" "$out"
fi
out=$("$CORDON" why --path "$HOME/.aws/config" --op read --json); rc=$?
if [ $rc -eq 1 ] && [ "$(j pointer <<<"$out")" = /groups/credentials ]; then
        ok "why control: the default profile denies ~/.aws/config"
else
        not_ok "why default ~/.aws" "rc=$rc" "$out"
fi
out=$("$CORDON" why --profile "$BASE/cloud.json" --path "$HOME/.ssh/id_ed25519" --op read); rc=$?
if [ $rc -eq 1 ] && grep -q "^deny: .*id_ed25519 is hidden by .*/.ssh, an entry of the built-in group credentials" <<<"$out"; then
        ok "why: lifting cloud leaves ~/.ssh denied"
else
        not_ok "why ssh under lift" "rc=$rc" "$out"
fi

out=$("$CORDON" profile show --json "$BASE/cloud.json"); rc=$?
if [ $rc -eq 0 ] && "$PY" -c '
import json, sys
o = json.load(sys.stdin); home = sys.argv[1]
lift = o["profile"]["groups"]["credentials"]["lift"]
paths = [n["path"] for n in o["notes"] if n["kind"] == "lift"]
assert lift == ["cloud"], lift
assert home + "/.aws" in paths and home + "/.config/gcloud" in paths, paths
assert not any(p.startswith(home + "/.ssh") or p == home + "/.aws/amazonq" for p in paths), paths
' "$HOME" <<<"$out"; then
        ok "profile show --json: lift [cloud], a note for each lifted entry, none for ~/.ssh or ~/.aws/amazonq"
else
        not_ok "profile show lift" "rc=$rc" "${out:0:2000}"
fi
err=$("$CORDON" profile show "$BASE/cloud.json" 2>&1 >/dev/null)
if grep -q "^cordon: note: $HOME/.aws is readable: the credential group cloud is lifted ($BASE/cloud.json at /groups/credentials/lift/0)$" <<<"$err"; then
        ok "profile show: the lifted ~/.aws is a note naming the rule"
else
        not_ok "profile show text" "$err"
fi
out=$("$CORDON" profile diff default "$BASE/cloud.json"); rc=$?
if [ $rc -eq 1 ] && grep -qx -- '+ /groups/credentials/lift: "cloud"' <<<"$out"; then
        ok "profile diff default cloud.json: + /groups/credentials/lift: \"cloud\""
else
        not_ok "diff lift" "rc=$rc" "$out"
fi
printf '{\n  "groups": { "credentials": { "lift": ["clodu"] } }\n}\n' > "$BASE/typo.json"
err=$("$CORDON" profile validate "$BASE/typo.json" 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$err" = "$BASE/typo.json:2:41: at /groups/credentials/lift/0: no credential group \"clodu\", did you mean \"cloud\"?" ]; then
        ok "validate: a misspelt group is refused with file:line:column, pointer and a did-you-mean"
else
        not_ok "validate typo" "rc=$rc" "$err"
fi

# ---- for real ------------------------------------------------------------------

if ! "$CORDON" probe --json | "$PY" -c 'import json,sys; sys.exit(0 if any(b["backend"]=="native" and b["usable"] for b in json.load(sys.stdin)["backends"]) else 1)'; then
        skip "credential groups end to end" "the native backend is not usable here"
        finish; exit
fi

# Controls: unconfined, every planted store is readable.
if [ "$(cat "$HOME/.aws/credentials")" = "AWS-SECRET-$$" ] && [ "$(cat "$HOME/.ssh/id_ed25519")" = "PRIVATE-KEY-$$" ] &&
   [ "$(cat "$HOME/.aws/amazonq/token")" = "Q-TOKEN-$$" ]; then
        ok "control: unconfined, ~/.aws/credentials, ~/.ssh/id_ed25519 and ~/.aws/amazonq/token are readable"
else
        not_ok "control: unconfined reads"
fi

out=$(crun -- cat "$HOME/.aws/credentials")
if [ "$(j verdict <<<"$out")" = denied ] && ! grep -q "AWS-SECRET-$$" <<<"$out"; then
        ok "default profile: cat ~/.aws/credentials is denied"
else
        not_ok "default hides ~/.aws" "$out"
fi
out=$(crun --profile "$BASE/cloud.json" -- cat "$HOME/.aws/credentials")
if [ "$(j verdict <<<"$out")" = ok ] && [ "$(j output <<<"$out")" = "AWS-SECRET-$$" ]; then
        ok "lift cloud: cat ~/.aws/credentials reads the planted secret"
else
        not_ok "lift cloud reads ~/.aws" "$out"
fi
out=$(crun --profile "$BASE/cloud.json" -- cat "$HOME/.ssh/id_ed25519")
if [ "$(j verdict <<<"$out")" = denied ] && ! grep -q "PRIVATE-KEY-$$" <<<"$out"; then
        ok "lift cloud: cat ~/.ssh/id_ed25519 is still denied"
else
        not_ok "lift cloud leaves ~/.ssh hidden" "$out"
fi
out=$(crun --profile "$BASE/cloud.json" -- cat "$HOME/.aws/amazonq/token")
if [ "$(j verdict <<<"$out")" = denied ] && ! grep -q "Q-TOKEN-$$" <<<"$out"; then
        ok "lift cloud: ~/.aws/amazonq/token (group agents) inside the lifted ~/.aws is still denied"
else
        not_ok "lift cloud leaves ~/.aws/amazonq hidden" "$out"
fi
out=$(crun --profile "$BASE/cloud.json" -- ls "$HOME/.aws")
if [ "$(j verdict <<<"$out")" = ok ] && grep -q credentials <<<"$(j output <<<"$out")"; then
        ok "lift cloud: ls ~/.aws lists it"
else
        not_ok "lift cloud ls ~/.aws" "$out"
fi

# A ~/.aws that is a symlink onto ~/.ssh: lifting cloud must not show the key.
H2=$BASE/home2
mkdir -p "$H2/.ssh"
echo "LINKED-KEY-$$" > "$H2/.ssh/id_ed25519"
ln -s .ssh "$H2/.aws"
if [ "$(cat "$H2/.aws/id_ed25519")" = "LINKED-KEY-$$" ]; then
        ok "control: unconfined, the key reads through the ~/.aws symlink"
else
        not_ok "control: symlinked read"
fi
out=$(HOME=$H2 crun --profile "$BASE/cloud.json" -- cat "$H2/.aws/id_ed25519")
if [ "$(j verdict <<<"$out")" = denied ] && ! grep -q "LINKED-KEY-$$" <<<"$out"; then
        ok "lift cloud: a ~/.aws symlink onto ~/.ssh does not uncover the key"
else
        not_ok "symlinked ~/.aws lifts ~/.ssh" "$out"
fi

finish
