#!/usr/bin/env bash
# A consumer's trust variables are cordon's (issue 23, "Trust without
# environment variables"): for a consumer granted a credential, cordon
# points SSL_CERT_FILE, GIT_SSL_CAINFO, NODE_EXTRA_CA_CERTS and the rest
# (policy_trust_env) at the session's trust bundle, so a set_vars naming
# one, a tool's (its own sandbox's or a caller's) or the session's when
# `session` is granted, is refused when the profile loads, naming the file,
# the key, the variable, the credential and why, never replaced silently at
# run time; so is the caller's --setenv for a granted session. A sandbox
# that is no consumer but whose network is the proxy (a tool's, the
# session's by the profile or by the caller's --net proxy) is refused the
# same, its proxy intercepting the credentials' hosts. Controls: the same
# variables in the set_vars of a tool that
# holds no credential (and has no network, so no interception), and in the
# session's when only a tool is granted, load and the value is seen; the
# names are compared exactly, as the programs that read them do.
. "$(dirname "$0")/tap.sh"
tap_base creds-trustvars

WS=$BASE/ws BIN=$BASE/bin
mkdir -p "$WS" "$BIN"
chmod 755 "$WS" "$BIN"
cp "$(command -v env)" "$BIN/tenv"
cp "$(command -v env)" "$BIN/tother"
chmod 755 "$BIN/tenv" "$BIN/tother"
export XDG_STATE_HOME=$BASE/state CORDON_TV_REAL=tv-real-$$-value

# profile NAME GRANT_TO SESSION_SET_VARS TENV_SET_VARS TOTHER_SET_VARS [TENV_FROM]
profile() {
	cat > "$BASE/$1.json" <<EOF
{
  "workspace": "$WS",
  "environment": { "set_vars": { $3 } },
  "command_policies": { "commands": {
    "tenv": { "executable": "$BIN/tenv",
              "sandbox": { "network": { "mode": "proxy", "allow_domains": ["example.invalid"] },
                           "environment": { "set_vars": { $4 } } } ${6:+, $6} },
    "tother": { "executable": "$BIN/tother",
                "sandbox": { "environment": { "set_vars": { $5 } } } }
  } },
  "credentials": {
    "api": {
      "source": "env://CORDON_TV_REAL",
      "hosts": ["example.invalid"],
      "inject": { "header": "Authorization", "format": "Bearer {}" },
      "phantom": { "env": "TV_TOKEN", "shape": "tv_{24}" },
      "grant_to": [$2]
    }
  }
}
EOF
}

# refused NAME WHERE KEY CONSUMER: validate and run of $BASE/bad.json refuse it
refused() {
	local name=$1 where=$2 key=$3 consumer=$4 out rc
	out=$("$CORDON" profile validate "$BASE/bad.json" 2>&1); rc=$?
	if [ $rc != 0 ] && has "$out" "$BASE/bad.json:" && has "$out" "at $key:" &&
	   has "$out" "refusing to set $name for $consumer: cordon points $name at the session's trust bundle for consumers of credential api"; then
		ok "$where set_vars naming $name: refused by profile validate (file, key, credential, reason)"
	else
		not_ok "$where set_vars $name at validate" "rc=$rc" "$out"
	fi
	out=$(cd "$WS" && "$CORDON" run --profile "$BASE/bad.json" -- sh -c 'echo RAN' 2>&1 </dev/null); rc=$?
	if [ $rc = 125 ] && hasnt "$out" RAN && has "$out" "cordon points $name at the session's trust bundle"; then
		ok "... and by cordon run (125, nothing runs)"
	else
		not_ok "$where set_vars $name at run" "rc=$rc" "$out"
	fi
}

T=/command_policies/commands/tenv
# a granted tool's own sandbox: the two the issue names and two it does not
for name in SSL_CERT_FILE GIT_SSL_CAINFO NODE_EXTRA_CA_CERTS SSL_CERT_DIR; do
	profile bad '"cmd.tenv"' "" "\"$name\": \"/etc/my-ca.pem\"" ""
	refused "$name" "a granted tool's" "$T/sandbox/environment/set_vars/$name" cmd.tenv
done
# a granted tool's sandbox for one caller
profile bad '"cmd.tenv"' "" "" "" '"from": { "session": { "sandbox": { "environment": { "set_vars": { "REQUESTS_CA_BUNDLE": "/etc/my-ca.pem" } } } } }'
refused REQUESTS_CA_BUNDLE "a granted tool's per-caller" "$T/from/session/sandbox/environment/set_vars/REQUESTS_CA_BUNDLE" cmd.tenv
# the session's, when the session is granted
for name in SSL_CERT_FILE GIT_SSL_CAINFO DENO_CERT; do
	profile bad '"session"' "\"$name\": \"/etc/my-ca.pem\"" "" ""
	refused "$name" "the granted session's" "/environment/set_vars/$name" session
done

# the caller's --setenv for a granted session: the same refusal, at launch
profile bad '"session"' "" "" ""
for name in SSL_CERT_FILE CURL_CA_BUNDLE; do
	out=$(cd "$WS" && "$CORDON" run --profile "$BASE/bad.json" --setenv "$name=/etc/my-ca.pem" -- sh -c 'echo RAN' 2>&1 </dev/null); rc=$?
	if [ $rc = 125 ] && hasnt "$out" RAN &&
	   has "$out" "refusing to set $name for session: cordon points $name at the session's trust bundle for consumers of credential api"; then
		ok "--setenv $name=... for a granted session: refused (125), saying why"
	else
		not_ok "--setenv $name for a granted session" "rc=$rc" "$out"
	fi
done

# no consumer, but on the proxy: its proxy intercepts the credential's
# hosts with the session CA, so the runner points it at the bundle as a
# consumer's; a tool's own set_vars, and the session's when its network is
# the proxy, are refused too, saying so
intercepted() { # intercepted WHERE NAME KEY WHO
	local out rc
	out=$("$CORDON" profile validate "$BASE/bad.json" 2>&1); rc=$?
	if [ $rc != 0 ] && has "$out" "at $3:" &&
	   has "$out" "refusing to set $2 for $4: its network is cordon's proxy, which intercepts the hosts of this session's credentials (api among them)"; then
		ok "$1 set_vars naming $2, no consumer but on the proxy: refused by profile validate, saying why"
	else
		not_ok "$1 $2 intercepted at validate" "rc=$rc" "$out"
	fi
	out=$(cd "$WS" && "$CORDON" run --profile "$BASE/bad.json" -- sh -c 'echo RAN' 2>&1 </dev/null); rc=$?
	[ $rc = 125 ] && hasnt "$out" RAN && has "$out" "its network is cordon's proxy" &&
		ok "... and by cordon run (125, nothing runs)" || not_ok "$1 $2 intercepted at run" "rc=$rc" "$out"
}
profile bad '"session"' "" "\"SSL_CERT_FILE\": \"/etc/my-ca.pem\"" ""
intercepted "a tool's (tenv: network proxy, not granted)" SSL_CERT_FILE "$T/sandbox/environment/set_vars/SSL_CERT_FILE" cmd.tenv
profile bad '"cmd.tenv"' '"GIT_SSL_CAINFO": "/etc/my-ca.pem"' "" ""
sed -i 's|"workspace": "'"$WS"'",|&\n  "network": { "mode": "proxy", "allow_domains": ["example.invalid"] },|' "$BASE/bad.json"
intercepted "the session's (network proxy, only a tool granted)" GIT_SSL_CAINFO "/environment/set_vars/GIT_SSL_CAINFO" session

# ... and when the caller puts such a session on the proxy: its --setenv,
# and the profile's own set_vars the loader saw with no network
profile bad '"cmd.tenv"' '"SSL_CERT_FILE": "/etc/session-ca.pem"' "" ""
for args in "--setenv CURL_CA_BUNDLE=/etc/my-ca.pem" ""; do
	what=${args:-"the profile's session set_vars"}
	name=CURL_CA_BUNDLE; [ -n "$args" ] || name=SSL_CERT_FILE
	out=$(cd "$WS" && "$CORDON" run --profile "$BASE/bad.json" --net proxy --allow-domain example.invalid $args -- sh -c 'echo RAN' 2>&1 </dev/null); rc=$?
	if [ $rc = 125 ] && hasnt "$out" RAN && has "$out" "refusing to set $name for session: its network is cordon's proxy"; then
		ok "--net proxy from the caller, $what naming $name: refused (125), saying why"
	else
		not_ok "--net proxy and $what" "rc=$rc" "$out"
	fi
done

# controls: a tool holding no credential, no network (nothing intercepted),
# and the session when only a tool is granted, keep their own bundle
profile good '"cmd.tenv"' '"SSL_CERT_FILE": "/etc/session-ca.pem"' "" \
	'"SSL_CERT_FILE": "/etc/my-ca.pem", "GIT_SSL_CAINFO": "/etc/my-git-ca.pem", "NODE_EXTRA_CA_CERTS": "/etc/my-extra.pem"'
out=$("$CORDON" profile validate "$BASE/good.json" 2>&1); rc=$?
[ $rc = 0 ] && ok "control: trust variables in a non-consumer's set_vars (tool and session) load" ||
	not_ok "control profile" "rc=$rc" "$out"
out=$(cd "$WS" && "$CORDON" run --profile "$BASE/good.json" -- sh -c 'echo "s=$SSL_CERT_FILE"; tother' 2>&1 </dev/null)
if has "$out" "s=/etc/session-ca.pem" && has "$out" "SSL_CERT_FILE=/etc/my-ca.pem" &&
   has "$out" "GIT_SSL_CAINFO=/etc/my-git-ca.pem" && has "$out" "NODE_EXTRA_CA_CERTS=/etc/my-extra.pem"; then
	ok "... the session and the tool without a credential see their own values"
else
	not_ok "control run" "$out"
fi
out=$(cd "$WS" && "$CORDON" run --profile "$BASE/good.json" --setenv CURL_CA_BUNDLE=/etc/my-curl.pem -- \
	sh -c 'echo "c=$CURL_CA_BUNDLE"' 2>&1 </dev/null); rc=$?
[ $rc = 0 ] && has "$out" "c=/etc/my-curl.pem" && ok "... and --setenv CURL_CA_BUNDLE=... for that session stands" ||
	not_ok "--setenv control" "rc=$rc" "$out"
# ... while the granted tool gets cordon's bundle (what a set_vars would lose)
out=$(cd "$WS" && "$CORDON" run --profile "$BASE/good.json" -- sh -c 'tenv' 2>&1 </dev/null)
if has "$out" "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt" && has "$out" "TV_TOKEN=tv_"; then
	ok "... and the granted tool sees cordon's bundle (what its own value would have lost to)"
else
	not_ok "granted tool's trust variables" "$out"
fi
# names compare exactly: ssl_cert_file is no client's variable
profile good '"cmd.tenv"' "" '"ssl_cert_file": "/etc/my-ca.pem"' ""
out=$("$CORDON" profile validate "$BASE/good.json" 2>&1); rc=$?
[ $rc = 0 ] && ok "control: ssl_cert_file (another name, case-sensitive) in a consumer's set_vars loads" ||
	not_ok "case control" "rc=$rc" "$out"

finish
