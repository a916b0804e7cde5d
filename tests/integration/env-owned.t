#!/usr/bin/env bash
# The proxy variables are cordon's (issue 23): a profile's set_vars, the
# session's or a tool's, naming one (HTTP_PROXY, https_proxy, No_Proxy,
# NODE_USE_ENV_PROXY: any case) is refused when the profile loads, naming
# the variable, the file, the key and why, never dropped at run time; so is
# --setenv on the command line. A tool whose way out is cordon's proxy sees
# cordon's value whatever its caller sets. Each beside a control that works.
. "$(dirname "$0")/tap.sh"
tap_base env-owned

WS=$BASE/ws BIN=$BASE/bin
mkdir -p "$WS" "$BIN"
chmod 755 "$WS" "$BIN"
cp "$(command -v env)" "$BIN/tenv"
chmod 755 "$BIN/tenv"
export XDG_STATE_HOME=$BASE/state

# profile NAME SESSION_SET_VARS TOOL_SET_VARS: a profile in $BASE/NAME.json
profile() {
	cat > "$BASE/$1.json" <<EOF
{
  "workspace": "$WS",
  "environment": { "set_vars": { $2 } },
  "command_policies": { "commands": {
    "tenv": { "executable": "$BIN/tenv",
              "sandbox": { "network": { "mode": "proxy" },
                           "environment": { "allow_vars": ["HTTPS_PROXY", "Https_Proxy"], "set_vars": { $3 } } } }
  } }
}
EOF
}

for name in HTTP_PROXY https_proxy No_Proxy NODE_USE_ENV_PROXY; do
	for where in session tool; do
		if [ $where = session ]; then
			profile bad "\"$name\": \"http://evil.invalid:1\"" ""
			key=/environment/set_vars/$name
		else
			profile bad "" "\"$name\": \"http://evil.invalid:1\""
			key=/command_policies/commands/tenv/sandbox/environment/set_vars/$name
		fi
		out=$("$CORDON" profile validate "$BASE/bad.json" 2>&1); rc=$?
		if [ $rc != 0 ] && has "$out" "$BASE/bad.json:" && has "$out" "at $key:" &&
		   has "$out" "cordon sets $name itself: the proxy variables name cordon's proxy"; then
			ok "a $where's set_vars naming $name: refused by profile validate (file, key, reason)"
		else
			not_ok "$where set_vars $name at validate" "rc=$rc" "$out"
		fi
		out=$(cd "$WS" && "$CORDON" run --profile "$BASE/bad.json" -- sh -c 'echo RAN' 2>&1); rc=$?
		if [ $rc = 125 ] && hasnt "$out" RAN && has "$out" "cordon sets $name itself"; then
			ok "... and by cordon run (125, nothing runs)"
		else
			not_ok "$where set_vars $name at run" "rc=$rc" "$out"
		fi
	done
done
profile bad '"CORDON_SANDBOX_MODE": "none"' ""
out=$("$CORDON" profile validate "$BASE/bad.json" 2>&1); rc=$?
if [ $rc != 0 ] && has "$out" "refusing to set CORDON_SANDBOX_MODE: cordon sets its own variables itself"; then
	ok "set_vars naming cordon's own CORDON_SANDBOX_MODE: refused at load"
else
	not_ok "CORDON_SANDBOX_MODE at validate" "rc=$rc" "$out"
fi

# control: ordinary names load and reach the session and the tool
profile good '"OWNED_TEST_S": "from-session-profile"' '"OWNED_TEST_T": "from-tool-profile"'
out=$("$CORDON" profile validate "$BASE/good.json" 2>&1); rc=$?
[ $rc = 0 ] && ok "control: set_vars with ordinary names loads" || not_ok "control profile" "rc=$rc" "$out"
out=$(cd "$WS" && "$CORDON" run --profile "$BASE/good.json" -- sh -c 'echo "s=$OWNED_TEST_S"; tenv' 2>&1 </dev/null)
if has "$out" "s=from-session-profile" && has "$out" "OWNED_TEST_T=from-tool-profile"; then
	ok "... the session sees its set_vars and the tool its own"
else
	not_ok "control run" "$out"
fi

# the tool, behind cordon's proxy, sees cordon's value, not its caller's (any case)
out=$(cd "$WS" && "$CORDON" run --profile "$BASE/good.json" -- \
	sh -c 'HTTPS_PROXY=http://evil.invalid:1 Https_Proxy=http://evil.invalid:2 tenv' 2>&1 </dev/null)
if has "$out" "HTTPS_PROXY=http://127.0.0.1:3128" && has "$out" "https_proxy=http://127.0.0.1:3128" &&
   hasnt "$out" "evil.invalid"; then
	ok "a tool behind cordon's proxy gets cordon's HTTPS_PROXY, not its caller's (HTTPS_PROXY, Https_Proxy)"
else
	not_ok "tool proxy value" "$out"
fi
out=$(HTTPS_PROXY=http://evil.invalid:1 Https_Proxy=http://evil.invalid:2 "$BIN/tenv")
has "$out" "Https_Proxy=http://evil.invalid:2" && ok "... (control: unconfined, env shows the caller's)" ||
	not_ok "unconfined control" "$out"

# --setenv on the command line
for name in HTTPS_PROXY all_proxy No_Proxy; do
	out=$(cd "$WS" && "$CORDON" run --setenv "$name=http://evil.invalid:1" -- sh -c 'echo RAN' 2>&1); rc=$?
	if [ $rc = 125 ] && hasnt "$out" RAN && has "$out" "cordon sets $name itself"; then
		ok "--setenv $name=...: refused (125), saying why"
	else
		not_ok "--setenv $name" "rc=$rc" "$out"
	fi
done
out=$(cd "$WS" && "$CORDON" run --setenv OWNED_TEST_C=cli -- sh -c 'echo "c=$OWNED_TEST_C"' 2>&1); rc=$?
[ $rc = 0 ] && has "$out" "c=cli" && ok "... (control: --setenv of an ordinary name is set)" ||
	not_ok "--setenv control" "rc=$rc" "$out"

finish
