#!/usr/bin/env bash
# git over HTTPS with a `basic` credential (issue 23, "git gets its phantom
# through a credential helper cordon configures for the consumer"): a
# smart-HTTP server over TLS on the host's loopback (git http-backend behind
# Basic authentication, git-upstream.py, a CA this script makes) wants the
# real token. The granted consumer's git clones, pushes and lists it through
# its proxy: the upstream sees the real token, git only its phantom (the
# helper's answer, the environment, /proc/self/environ); a helper of the
# repository's own config is neither asked nor told the phantom, where the
# control (a git without the grant) does ask it. A git that was not granted
# the credential, sending the consumer's phantom, gets 403 and nothing
# authenticated reaches the upstream.
. "$(dirname "$0")/tap.sh"
tap_base creds-git
for need in openssl git; do
	if ! command -v $need >/dev/null; then
		skip "git over HTTPS with a credential" "needs $need"
		finish
		exit
	fi
done
export HOME=$BASE/home XDG_STATE_HOME=$BASE/state
WS=$BASE/ws BIN=$BASE/bin RO=$BASE/ro SRV=$BASE/srv
mkdir -p "$HOME" "$XDG_STATE_HOME" "$WS" "$BIN" "$RO" "$SRV"
chmod 755 "$HOME" "$WS" "$BIN" "$RO"
chmod 777 "$WS"
mk() { openssl "$@" >/dev/null 2>&1; }
mk req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=cordon-git-ca -keyout "$BASE/ca.key" -out "$RO/ca.pem" &&
	mk req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$BASE/srv.key" -out "$BASE/srv.csr" &&
	printf 'subjectAltName=DNS:localhost\n' >"$BASE/ext" &&
	mk x509 -req -in "$BASE/srv.csr" -CA "$RO/ca.pem" -CAkey "$BASE/ca.key" -CAcreateserial -days 1 \
		-extfile "$BASE/ext" -out "$BASE/srv.pem" || { skip "git over HTTPS with a credential" "openssl cannot make a CA"; finish; exit; }
chmod 644 "$RO/ca.pem"

# the served repository, one commit
G() { git -c user.name=t -c user.email=t@t -c init.defaultBranch=main "$@"; }
G init -q --bare "$SRV/r.git" && git -C "$SRV/r.git" config http.receivepack true &&
	G init -q "$BASE/seed" && echo one >"$BASE/seed/f" && G -C "$BASE/seed" add f &&
	G -C "$BASE/seed" commit -qm one && G -C "$BASE/seed" push -q "$SRV/r.git" HEAD:main ||
	{ not_ok "the served repository is made"; finish; exit; }
git -C "$SRV/r.git" symbolic-ref HEAD refs/heads/main

# the basic user with a quote, a dollar and a backslash: the helper's
# shell takes it literally
USER_="x-access'\$to\\ken"
REAL=gho_REALgitTOKEN$$abcdefghijklmnopqrstu
"$PY" "$(dirname "$0")/git-upstream.py" "$BASE/port" "$BASE/log" "$BASE/srv.pem" "$BASE/srv.key" "$SRV" \
	"$USER_:$REAL" 2>"$BASE/upstream.err" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$BASE/port" ] && break; sleep 0.1; done
port=$(cat "$BASE/port")
: >"$BASE/log"
U=https://localhost:$port/r.git

# git as the tools: the upstream is the host's localhost, through the proxy,
# not the sandbox's own loopback that NO_PROXY names
for t in tgit ngit; do
	printf '#!/bin/sh\nunset NO_PROXY no_proxy\nexec git "$@"\n' >"$BIN/$t"
	chmod 755 "$BIN/$t"
done
P=$BASE/p.json
sb='"exec_paths": ["/usr/bin", "/bin", "/usr/lib/git-core"], "fs_read": ["'$RO'"], "fs_write": ["'$WS'"],
    "network": { "mode": "proxy", "allow_domains": ["localhost"], "allow_addresses": ["127.0.0.1"] }'
cat >"$P" <<EOF
{
  "workspace": "$WS",
  "command_policies": {
    "commands": {
      "tgit": { "executable": "$BIN/tgit", "sandbox": { $sb } },
      "ngit": { "executable": "$BIN/ngit", "sandbox": { $sb } }
    }
  },
  "credentials": {
    "forge": {
      "source": "env://CORDON_GIT_REAL",
      "hosts": ["localhost"],
      "inject": { "basic": { "user": "${USER_//\\/\\\\}" } },
      "phantom": { "env": "GIT_TOKEN", "shape": "ghp_{36}" },
      "grant_to": ["cmd.tgit"],
      "tls": { "ca": "$RO/ca.pem" }
    }
  }
}
EOF
call() { # call DIR TOOL ARGS...: the tool, called from the session; OUT, ERR, RC
	local dir=$1
	shift
	(cd "$dir" && CORDON_GIT_REAL=$REAL GIT_TERMINAL_PROMPT=0 "$CORDON" run --profile "$P" -- "$@" \
		>"$BASE/out" 2>"$BASE/err" <"${IN:-/dev/null}")
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
authed() { grep -c '"auth": "Basic' "$BASE/log"; }

call "$WS" tgit clone -q "$U" clone
if [ ! -f "$WS/clone/f" ]; then
	not_ok "the granted consumer's git clones over HTTPS through its proxy" "rc=$RC" "out: $OUT" "err: $ERR" \
		"upstream: $(tail -5 "$BASE/log")" "$(tail -5 "$BASE/upstream.err")"
	finish
	exit
fi
ok "the granted consumer's git clones over HTTPS through its proxy (it trusts the session CA)"
want="Basic $(printf '%s:%s' "$USER_" "$REAL" | base64 -w0)"
expect "... the upstream got the real token in Basic" eval 'grep -qF "\"auth\": \"$want\"" "$BASE/log"'
expect "... and nothing else authenticated" eval '[ "$(authed)" = "$(grep -cF "$want" "$BASE/log")" ]'

# what git inside holds: the helper's answer, its environment
printf 'protocol=https\nhost=localhost:%s\npath=r.git\n\n' "$port" >"$RO/ask"
IN=$RO/ask call "$WS" tgit credential fill
phantom=$(sed -n 's/^password=//p' <<<"$OUT")
expect "git's credential helper answers the basic user" has "$OUT" "username=$USER_"
expect "... and the phantom (ghp_ + 36), never the value" eval '[[ "$phantom" =~ ^ghp_[A-Za-z0-9]{36}$ ]] && hasnt "$OUT" "$REAL"'
call "$WS" tgit -c alias.env='!env; cat /proc/self/environ | tr "\0" "\n"; git config --show-origin --get-all credential.helper; git credential fill <'"$RO/ask" env
ph=$(sed -n 's/^password=//p' <<<"$OUT")
expect "git's environment holds its phantom (the helper's answer)" eval '[ -n "$ph" ] && has "$OUT" "GIT_TOKEN=$ph"'
expect "... never the value (env, /proc/self/environ, its config)" hasnt "$OUT" "$REAL"
expect "... its helper comes after a reset of credential.helper" \
	eval 'has "$OUT" "GIT_CONFIG_VALUE_0=" && has "$(grep "^command line:" <<<"$OUT")" "!f()"'

# push and ls-remote from the clone, whose own config names a helper that
# records what it is asked and told (it must be neither)
git -C "$WS/clone" config credential.helper "!f() { echo \"\$1\" >>$WS/repo-helper.log; cat >>$WS/repo-helper.log; }; f"
n=$(authed)
call "$WS/clone" tgit -c user.name=t -c user.email=t@t commit -q --allow-empty -m two
call "$WS/clone" tgit push -q origin HEAD:main
expect "the granted consumer's git pushes" eval '[ "$RC" = 0 ] && [ "$(git -C "$SRV/r.git" log -1 --format=%s main)" = two ]'
call "$WS/clone" tgit ls-remote origin
expect "... and lists the remote" eval 'has "$OUT" "refs/heads/main"'
expect "... with the real token each time" eval '[ "$(grep -cF "$want" "$BASE/log")" -gt "$n" ] && [ "$(authed)" = "$(grep -cF "$want" "$BASE/log")" ]'
expect "the repository's own helper was neither asked nor told the phantom" eval '[ ! -e "$WS/repo-helper.log" ]'

# one session: the consumer's git shows its phantom (its helper's answer,
# not a secret), a git that was not granted the credential sends it in the
# URL (refused at its proxy, nothing authenticated reaches the upstream),
# and its repository's own helper is asked (the control: no reset without
# a grant)
n=$(authed)
(cd "$WS/clone" && CORDON_GIT_REAL=$REAL GIT_TERMINAL_PROMPT=0 "$CORDON" run --profile "$P" -- sh -c "
ph=\$(tgit credential fill <$RO/ask | sed -n 's/^password=//p'); echo consumer-phantom=\$ph
ngit ls-remote https://$(printf %q "$USER_"):\$ph@localhost:$port/r.git; echo nongrant-rc=\$?
ngit ls-remote origin; echo control-rc=\$?" >"$BASE/out" 2>"$BASE/err" </dev/null)
RC=$? OUT=$(cat "$BASE/out") ERR=$(cat "$BASE/err")
ph=$(sed -n 's/^consumer-phantom=//p' <<<"$OUT")
expect "the session runs and the consumer's git shows its phantom" eval '[[ "$ph" =~ ^ghp_[A-Za-z0-9]{36}$ ]]'
expect "a git not granted the credential, with the consumer's phantom of the session: refused 403" \
	eval 'has "$OUT" "nongrant-rc=128" && has "$ERR" "403"'
expect "... the proxy's reason: credential-not-granted" has "$ERR" "credential-not-granted"
expect "... nothing authenticated reached the upstream" eval '[ "$(authed)" = "$n" ]'
expect "... its repository's helper is asked (control)" eval 'grep -q "^get" "$WS/repo-helper.log"'
expect "... and holds no phantom" eval '! grep -q "ghp_" "$WS/repo-helper.log"'

logs=$(cat "$XDG_STATE_HOME"/cordon/audit/*.jsonl 2>/dev/null)
expect "the audit log has the sessions" has "$logs" "session_start"
expect "... never the value" hasnt "$logs" "$REAL"
finish
