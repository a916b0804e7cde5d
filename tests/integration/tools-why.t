#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# `cordon why --command`: what a profile's command_policies decide for one
# call (allow, deny, approve and its backend), naming the rule by file,
# line and JSON pointer; --caller, the caller's environment, --json, the
# exit codes; and the other side of it: `cordon run` and `profile validate`
# still refuse such a profile (nothing enforces it yet), while `profile
# show` prints it in a form that loads back to the same decisions.
. "$(dirname "$0")/tap.sh"

tap_base tools-why
unset CI GIT_DIR
export HOME=$BASE/home
mkdir -p "$HOME" "$BASE/ws"
cd "$BASE/ws"

P=$BASE/p.json
cat > "$P" <<'EOF'
{
  "command_policies": {
    "approval_backends": {
      "me": { "type": "terminal", "timeout_secs": 30, "default": "deny" }
    },
    "commands": {
      "git": {
        "invocation_policy": {
          "default": "allow",
          "deny": [ { "argv": { "prefix": ["push", "--force"] }, "reason": "no force pushes" } ],
          "approve": [ { "argv": { "prefix": ["push"] }, "backend": "me" } ],
          "allow": [ { "argv": { "prefix": ["log"] }, "env": { "CI": { "equals": "true" } } } ]
        },
        "can_use": ["ssh"]
      },
      "ssh": { "from": { "session": "deny" } },
      "curl": { "invocation_policy": { "default": "deny", "allow": [ { "argv": { "exact": ["--version"] } } ] } }
    }
  }
}
EOF

# why_is WANT_RC WANT_OUT DESC ARGS...: stdout exactly WANT_OUT, exit WANT_RC
why_is() {
        local want_rc=$1 want=$2 desc=$3 out rc
        shift 3
        out=$("$CORDON" why "$@" 2>"$BASE/err"); rc=$?
        if [ "$rc" -eq "$want_rc" ] && [ "$out" = "$want" ]; then
                ok "$desc"
        else
                not_ok "$desc" "rc=$rc (want $want_rc)" "got:      $out" "expected: $want" "stderr: $(cat "$BASE/err")"
        fi
}

why_is 1 "deny: no force pushes
  rule: $P:10 at /command_policies/commands/git/invocation_policy/deny/0" \
        "a deny rule: its reason, file:line and pointer; exit 1" \
        --profile "$P" --command git -- push --force origin
why_is 2 "approve: the call matches this approve rule
  backend: me
  rule: $P:11 at /command_policies/commands/git/invocation_policy/approve/0" \
        "an approve rule: the backend to ask; exit 2" \
        --profile "$P" --command git -- push origin
why_is 0 "allow: no rule matches: the invocation_policy's default is allow
  rule: $P:9 at /command_policies/commands/git/invocation_policy/default" \
        "no rule matches: the default, at its own line; exit 0" \
        --profile "$P" --command git -- status
why_is 1 "deny: session may not call ssh: from.session is \"deny\"
  rule: $P:16 at /command_policies/commands/ssh/from/session" \
        "--caller defaults to the session, and from.session \"deny\" holds" \
        --profile "$P" --command ssh -- example.org
why_is 0 "allow: ssh has no invocation_policy: every call is allowed
  rule: $P:16 at /command_policies/commands/ssh" \
        "--caller git: git's can_use reaches ssh" \
        --profile "$P" --command ssh --caller git -- example.org
why_is 1 "deny: ssh may not call git: it is not in ssh's can_use
  rule: $P:16 at /command_policies/commands/ssh/can_use" \
        "--caller ssh: not in ssh's can_use" \
        --profile "$P" --command git --caller ssh -- status
why_is 1 "deny: rm is not a command under command_policies
  rule: $P at /command_policies/commands" \
        "an unknown command is a deny, with a reason" \
        --profile "$P" --command rm -- -rf /
why_is 0 "allow: no rule matches: the invocation_policy's default is allow
  rule: $P:9 at /command_policies/commands/git/invocation_policy/default" \
        "no arguments at all: the default" \
        --profile "$P" --command git
why_is 1 "deny: no rule matches: the invocation_policy's default is deny
  rule: $P:17 at /command_policies/commands/curl/invocation_policy/default" \
        "exact: one more argument is not the list" \
        --profile "$P" --command curl -- --version -v

# The caller's environment is why's own: env conditions match against it.
out=$(CI=true "$CORDON" why --profile "$P" --command curl -- --version); rc=$?
out2=$(CI=true "$CORDON" why --profile "$P" --command git -- log); rc2=$?
out3=$(CI=false "$CORDON" why --profile "$P" --command git -- log); rc3=$?
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] &&
   [[ $out2 == *"/invocation_policy/allow/0" ]] && [[ $out3 == *"/invocation_policy/default" ]]; then
        ok "env: CI=true matches the allow rule, CI=false falls to the default"
else
        not_ok "env conditions" "$rc $out" "$rc2 $out2" "$rc3 $out3"
fi

# --json: one object
"$CORDON" why --json --profile "$P" --command git --caller session -- push 'it"s' > "$BASE/why.json"; rc=$?
if [ $rc -eq 2 ] && "$PY" - "$BASE/why.json" "$P" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
want = {"allow": False, "decision": "approve", "reason": "the call matches this approve rule",
        "pointer": "/command_policies/commands/git/invocation_policy/approve/0", "backend": "me",
        "command": "git", "caller": "session", "argv": ["push", 'it"s'], "file": sys.argv[2], "line": 11,
        "profile": sys.argv[2], "profile_file": sys.argv[2]}
# the deny rule push --force is positional: passed by push REMOTE main --force and push -f
warnings = o.pop("warnings")
assert len(warnings) == 2 and "`git push -f`" in warnings[1], warnings
assert o == want, o
PY
then ok "--json: one object with the decision, the rule, the backend and the question"; else not_ok "--json" "rc=$rc" "$(cat "$BASE/why.json")"; fi
# a command calling itself: it runs directly in its caller's sandbox, never
# through the broker (which would give it the edge's sandbox)
out=$("$CORDON" why --profile "$P" --command git --caller git -- status 2>&1); rc=$?
if [ $rc -ne 0 ] && [[ "$out" == *"git calls itself directly"* ]]; then
        ok "--caller git --command git: deny, a command never calls itself through the broker"
else
        not_ok "self call" "rc=$rc" "$out"
fi
"$CORDON" why --json --profile "$P" --command git -- status > "$BASE/why.json"
if [ "$(json_field "$BASE/why.json" backend)" = null ] && [ "$(json_field "$BASE/why.json" allow)" = true ]; then
        ok "--json: backend is null when no approval is asked"
else
        not_ok "--json backend null" "$(cat "$BASE/why.json")"
fi

# ---- refusals -------------------------------------------------------------------

err=$("$CORDON" why --command git -- status 2>&1 >/dev/null); rc=$?
if [ $rc -eq 125 ] && [ "$err" = "cordon: --command needs --profile P: a profile with command_policies (the built-in ones have none)" ]; then
        ok "--command needs --profile (exit 125)"
else
        not_ok "--command without --profile" "rc=$rc" "$err"
fi
echo '{ "mode": "read-only" }' > "$BASE/plain.json"
err=$("$CORDON" why --profile "$BASE/plain.json" --command git 2>&1 >/dev/null); rc=$?
if [ $rc -eq 125 ] && [ "$err" = "cordon: profile $BASE/plain.json has no command_policies: no command is under a policy" ]; then
        ok "a profile without command_policies: exit 125, said so"
else
        not_ok "no command_policies" "rc=$rc" "$err"
fi
printf '{\n  "command_policies": { "commands": { "git": { "can_use": ["shh"] }, "ssh": {} } }\n}\n' > "$BASE/bad.json"
err=$("$CORDON" why --profile "$BASE/bad.json" --command git 2>&1 >/dev/null); rc=$?
want="cordon: $BASE/bad.json:2:60: at /command_policies/commands/git/can_use/0: no command \"shh\", did you mean \"ssh\"?"
if [ $rc -eq 125 ] && [ "$err" = "$want" ]; then
        ok "a profile error: exit 125, file:line:column and pointer"
else
        not_ok "profile error" "rc=$rc" "got:      $err" "expected: $want"
fi

# The supervisor runs it (tools.t): validate accepts what why explains.
err=$("$CORDON" profile validate "$P" 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ]; then ok "profile validate accepts command_policies (exit 0)"; else not_ok "validate" "rc=$rc" "$err"; fi

# profile show prints command_policies; what it prints decides the same
if "$CORDON" profile show "$P" > "$BASE/shown.json" &&
   "$CORDON" profile show "$BASE/shown.json" > "$BASE/again.json" && cmp -s "$BASE/shown.json" "$BASE/again.json"; then
        ok "profile show prints command_policies, and loads back to the same"
else
        not_ok "profile show round trip" "$(diff "$BASE/shown.json" "$BASE/again.json" 2>&1 | head -20)"
fi
a=$("$CORDON" why --profile "$P" --command git -- push --force | head -1)
b=$("$CORDON" why --profile "$BASE/shown.json" --command git -- push --force | head -1)
c=$("$CORDON" why --profile "$BASE/shown.json" --command git -- push x | head -2)
if [ "$a" = "deny: no force pushes" ] && [ "$a" = "$b" ] && [ "$c" = "approve: the call matches this approve rule
  backend: me" ]; then
        ok "the shown profile decides as the original"
else
        not_ok "shown decides the same" "$a" "$b" "$c"
fi

# ---- deny-lists under "default": "allow" are weak: why --command says so ----
W=$BASE/weak.json
cat > "$W" <<'EOF'
{ "command_policies": { "commands": {
  "git": { "invocation_policy": { "default": "allow",
    "deny": [ { "argv": { "prefix": ["push", "--force"] }, "reason": "no force pushes" } ] } },
  "gh": { "invocation_policy": { "default": "allow",
    "deny": [ { "argv": { "contains": ["repo", "--delete"] } } ] } },
  "kubectl": { "invocation_policy": { "default": "allow",
    "deny": [ { "argv": { "exact": ["delete", "--all"] } } ] } },
  "hg": { "invocation_policy": { "default": "deny",
    "allow": [ { "argv": { "prefix": ["status"] } }, { "argv": { "prefix": ["log"] } } ] } } } } }
EOF
# the weakness is real: the same push said another way is allowed
for call in "push origin main --force" "push -f"; do
        "$CORDON" why --profile "$W" --command git -- $call >/dev/null 2>&1
        check "a prefix deny of push --force lets \`git $call\` through (exit 0: allow)" test $? = 0
done
"$CORDON" why --profile "$W" --command git -- push --force >/dev/null 2>"$BASE/warn"
check "  ... while \`git push --force\` itself is denied (control)" test $? = 1
if grep -q 'does not deny `git push REMOTE main --force`' "$BASE/warn" && grep -q 'does not deny `git push -f`' "$BASE/warn" &&
   grep -q 'list what may run (allow rules)' "$BASE/warn"; then
        ok "why --command warns that the positional deny rule passes push REMOTE main --force and push -f"
else
        not_ok "why --command warns about the positional deny rule" "$(cat "$BASE/warn")"
fi
out=$("$CORDON" why --profile "$W" --command git --json -- status 2>/dev/null)
check "  ... in --json too (warnings, whatever the call asked)" "$PY" -c 'import json,sys
w = json.loads(sys.argv[1])["warnings"]
assert len(w) == 2 and "push REMOTE main --force" in w[0] and "push -f" in w[1], w' "$out"
"$CORDON" why --profile "$W" --command gh -- repo --delete x >/dev/null 2>"$BASE/warn"
if grep -q 'does not deny `gh repo -d`' "$BASE/warn" && ! grep -q "REMOTE" "$BASE/warn"; then
        ok "a contains deny rule: its words anywhere are denied, a short flag is warned about"
else
        not_ok "a contains deny rule: its words anywhere are denied, a short flag is warned about" "$(cat "$BASE/warn")"
fi
"$CORDON" why --profile "$W" --command kubectl -- delete --all >/dev/null 2>"$BASE/warn"
check "an exact deny rule is warned about too (delete REMOTE main --all, delete -a)" \
        grep -q 'does not deny `kubectl delete REMOTE main --all`' "$BASE/warn"
"$CORDON" why --profile "$W" --command hg -- push --force >/dev/null 2>"$BASE/warn"
rc=$?
if [ $rc = 1 ] && ! grep -q warning "$BASE/warn"; then
        ok "an allow-list (default deny) denies push --force, and has nothing to warn about (control)"
else
        not_ok "an allow-list (default deny) denies push --force, and has nothing to warn about" "rc=$rc" "$(cat "$BASE/warn")"
fi

finish
