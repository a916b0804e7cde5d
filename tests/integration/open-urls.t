#!/usr/bin/env bash
# open_urls end to end: a sandboxed tool (and the agent) asks the host to
# open a URL through the opener shim on its PATH (xdg-open, open,
# sensible-browser, $BROWSER); the supervisor checks it and runs the host's
# opener, here a fake one (CORDON_BROWSER) that records its argv. Every
# refusal is a real attempt from inside a sandbox beside a control that
# opens, and nothing refused reaches the opener.
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
tap_base open-urls

WS=$BASE/ws BIN=$BASE/bin
mkdir -p "$WS" "$BIN" "$BASE/state"
chmod 755 "$WS" "$BIN"
for t in tgh tgh2 tasker tdenied trated tprefix tnourl tcaller; do cp /bin/dash "$BIN/$t"; done
# the host's opener: records its argument count and each argument, one per
# line, in one write (openers run concurrently), and its environment
OPENED=$BASE/opened
cat > "$BIN/fake-opener" <<EOF
#!/bin/sh
env > "$OPENED.env.\$\$" && mv "$OPENED.env.\$\$" "$OPENED.env"
r="argc=\$#"
for a in "\$@"; do r="\$r
arg=\$a"; done
printf '%s\n' "\$r" >> "$OPENED"
EOF
chmod 755 "$BIN"/*
export XDG_STATE_HOME=$BASE/state CORDON_BROWSER=$BIN/fake-opener
export CORDON_TEST_HOOK_KEY=hook-key-$$ CORDON_TEST_HOOK_ANSWER_KEY=hook-answer-key-$$

WEBHOOK_TEST_KEY=$CORDON_TEST_HOOK_KEY WEBHOOK_TEST_ANSWER_KEY=$CORDON_TEST_HOOK_ANSWER_KEY \
	"$PY" "$here/webhook-server.py" "$BASE/port" "$BASE/hook.log" "$BASE/hooks" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$BASE/port" ] && break; sleep 0.05; done
hook() { # hook NAME PATH
	printf '"%s": {"type": "webhook", "url": "unix:%s/%s.sock", "secret_env": "CORDON_TEST_HOOK_KEY", "answer_secret_env": "CORDON_TEST_HOOK_ANSWER_KEY", "timeout_secs": 5}' \
		"$1" "$BASE/hooks" "$2"
}
tool() { # tool NAME OPEN_URLS-JSON (or "")
	if [ -n "$2" ]; then
		printf '"%s": {"executable": "%s", "sandbox": {"open_urls": %s}}' "$1" "$BIN/$1" "$2"
	else
		printf '"%s": {"executable": "%s"}' "$1" "$BIN/$1"
	fi
}
GH='{"allow_origins": ["https://github.com"], "allow_localhost_ports": [8080], "approve": false}'

# P: the tools have open_urls, the session has none
P=$BASE/profile.json
cat > "$P" <<EOF
{
  "workspace": "$WS",
  "command_policies": {
    "approval_backends": { $(hook allow allow), $(hook deny deny) },
    "commands": {
      $(tool tgh "$GH"),
      $(tool tasker '{"allow_origins": ["https://github.com"], "backend": "allow"}'),
      $(tool tdenied '{"allow_origins": ["https://github.com"], "backend": "deny"}'),
      $(tool trated '{"allow_origins": ["https://github.com"], "approve": false, "rate_per_minute": 2}'),
      $(tool tprefix '{"allow_origins": ["https://github.com"], "approve": false, "path_prefixes": ["/login/"]}'),
      $(tool tnourl ""),
      "tcaller": {"executable": "$BIN/tcaller", "can_use": ["tnourl"]}
    }
  }
}
EOF
# S: the session itself has open_urls
S=$BASE/session.json
cat > "$S" <<EOF
{
  "workspace": "$WS",
  "open_urls": $GH,
  "command_policies": { "commands": { $(tool tnourl "") } }
}
EOF

helpers_read=()
case $here in /tmp/*) helpers_read=(--read "$here") ;; esac
# session PROFILE SCRIPT: the agent runs SCRIPT (sh -c); OUT, ERR, RC
session() {
	(cd "$WS" && "$CORDON" run "${helpers_read[@]}" --profile "$1" -- sh -c "$2" >"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
# opened_wait N: wait until the opener has recorded N calls (5 s at most)
opened_wait() {
	for _ in $(seq 100); do
		[ "$(grep -c '^argc=' "$OPENED" 2>/dev/null)" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
# opens TOOL URL DESC: TOOL's xdg-open opens URL, and the opener got exactly it
opens() {
	rm -f "$OPENED" "$OPENED.env"
	session "$P" "$1 -c 'xdg-open \"\$0\"; echo rc=\$?' '$2'"
	if has "$OUT" "rc=0" && opened_wait 1 && [ "$(cat "$OPENED")" = "$(printf 'argc=1\narg=%s' "$2")" ]; then
		ok "$3"
	else
		not_ok "$3" "rc=$RC" "out: $OUT" "err: ${ERR:0:1500}" "opened: $(cat "$OPENED" 2>/dev/null)"
	fi
}
# refused TOOL URL WHY DESC: TOOL's xdg-open is refused (non-zero, the
# reason on stderr), and nothing reached the opener
refused() {
	rm -f "$OPENED" "$OPENED.env"
	session "$P" "$1 -c 'xdg-open \"\$0\"; echo rc=\$?' '$2'"
	sleep 0.3
	if has "$OUT" "rc=126" && has "$ERR" "cordon: denied:" && has "$ERR" "$3" && [ ! -e "$OPENED" ] && [ ! -e "$OPENED.env" ]; then
		ok "$4"
	else
		not_ok "$4" "rc=$RC" "out: $OUT" "err: ${ERR:0:1500}" "opened: $(cat "$OPENED" 2>/dev/null)"
	fi
}

# ---- allowed: the control for everything below ---------------------------------
opens tgh "https://github.com/login/device" "an allowed origin opens: the host's opener gets exactly the URL, as one argument"
opens tgh "https://github.com/login/oauth/authorize?client_id=x&state=a%20b#f" \
	"... with its query and fragment as given"
opens tgh "http://localhost:8080/callback?code=1" "an allowed localhost port opens over http"
opens tgh "http://127.0.0.1:8080/callback" "... and by 127.0.0.1"
rm -f "$OPENED" "$OPENED.env"
session "$P" "tgh -c 'echo \"browser=\$BROWSER\"; for o in open sensible-browser \"\$BROWSER\"; do \$o https://github.com/x; done; echo rc=\$?'"
if has "$OUT" "browser=/run/cordon/bin/xdg-open" && has "$OUT" "rc=0" && opened_wait 3 &&
	[ "$(grep -c '^arg=https://github.com/x$' "$OPENED")" = 3 ]; then
	ok "open, sensible-browser and \$BROWSER are the same opener"
else
	not_ok "other opener names" "out: $OUT" "err: ${ERR:0:1500}" "opened: $(cat "$OPENED" 2>/dev/null)"
fi

# the opener's environment is cordon's own cut to an allow-list: the
# webhook's key (in cordon's environment, the control) does not reach it
if [ -n "${CORDON_TEST_HOOK_KEY:-}" ] && grep -q '^PATH=' "$OPENED.env" && grep -q "^HOME=" "$OPENED.env" &&
	! grep -q 'CORDON_TEST_HOOK' "$OPENED.env" && ! grep -q '^CORDON_BROWSER=' "$OPENED.env"; then
	ok "the host's opener gets cordon's PATH and HOME, never its other variables (a webhook's key)"
else
	not_ok "opener env" "$(cat "$OPENED.env" 2>/dev/null | cut -c1-80)"
fi

# ---- refused: lookalikes, schemes, tricks -------------------------------------
refused tgh "https://github.com.evil.test/" "not one open_urls allows" "a lookalike origin (github.com.evil.test) is refused"
refused tgh "http://github.com/" "not one open_urls allows" "http to an https origin is refused"
refused tgh "https://github.com@evil.test/" "userinfo" "a userinfo trick (github.com@evil.test) is refused"
refused tgh 'https://evil.test\@github.com/' "backslash" "a backslash trick (evil.test\\@github.com) is refused"
refused tgh "https://github.com:444/" "not one open_urls allows" "a port change is refused"
refused tgh "https://github.com:443/" "default port" "an explicit default port is refused (not canonical)"
refused tgh "file:///etc/passwd" "scheme" "a file: URL is refused"
refused tgh "javascript:alert(1)" "scheme" "a javascript: URL is refused"
refused tgh "https://%67ithub.com/" "percent-encoded host" "a percent-encoded host is refused"
refused tgh "https://140.82.121.3/" "numeric host" "a numeric host is refused"
refused tgh "https://0x8c.82.121.3/" "numeric host" "... in hex"
refused tgh "https://2354149635/" "numeric host" "... as one decimal number"
refused tgh "https://github.com./" "trailing dot" "a trailing dot is refused"
refused tgh "HTTPS://GITHUB.COM/" "lower case" "an upper-case scheme and host are refused (not canonical)"
refused tgh "http://localhost:8081/" "not one open_urls allows" "a localhost port not named is refused"
refused tgh "https://github.com/a/../../evil" "path segment" "dot segments are refused"
long="https://github.com/$(head -c 9000 /dev/zero | tr '\0' a)"
refused tgh "$long" "longer than 8192" "an over-long URL (9 KiB) is refused"
rm -f "$OPENED" "$OPENED.env"
session "$P" "tgh -c 'xdg-open \"\$(printf \"https://git\\\\thub.com/\")\"; echo rc=\$?; xdg-open \"\$(printf \"https://github.com/a\\\\nb\")\"; echo rc=\$?'"
sleep 0.3
if [ "$(grep -c rc=126 <<<"$OUT")" = 2 ] && has "$ERR" "control character" && [ ! -e "$OPENED" ] && [ ! -e "$OPENED.env" ]; then
	ok "a tab or a newline inside the URL is refused"
else
	not_ok "tab/newline" "out: $OUT" "err: ${ERR:0:1500}"
fi
session "$P" "tgh -c 'xdg-open; echo rc=\$?; xdg-open https://github.com/ https://github.com/; echo rc=\$?'"
if [ "$(grep -c rc=2 <<<"$OUT")" = 2 ] && [ ! -e "$OPENED" ] && [ ! -e "$OPENED.env" ]; then
	ok "no URL, or two, is a usage error"
else
	not_ok "usage" "out: $OUT" "err: $ERR"
fi

# ---- path prefixes, approval, rate ------------------------------------------
opens tprefix "https://github.com/login/device" "path_prefixes: a path under the prefix opens"
refused tprefix "https://github.com/settings/tokens" "path_prefixes" "... a path outside it is refused"
refused tprefix "https://github.com/login" "path_prefixes" "... and so is the prefix's parent"
opens tasker "https://github.com/login/device" "approval granted (webhook): opens"
refused tdenied "https://github.com/login/device" "not approved" "approval denied (webhook): refused"
rm -f "$OPENED" "$OPENED.env"
session "$P" "trated -c 'for i in 1 2 3; do xdg-open https://github.com/\$i; echo rc=\$?; done'"
sleep 0.3
if [ "$(grep -c rc=0 <<<"$OUT")" = 2 ] && has "$OUT" "rc=126" && has "$ERR" "more than 2 URLs in a minute" &&
	opened_wait 2 && [ "$(grep -c '^argc=' "$OPENED")" = 2 ] && ! grep -q 'github.com/3' "$OPENED"; then
	ok "rate_per_minute 2: two open, the third is refused and never reaches the opener"
else
	not_ok "rate" "out: $OUT" "err: ${ERR:0:1500}" "opened: $(cat "$OPENED" 2>/dev/null)"
fi

# ---- a caller without open_urls ---------------------------------------------
rm -f "$OPENED" "$OPENED.env"
session "$P" "tnourl -c 'command -v xdg-open open sensible-browser; echo browser=\${BROWSER:-unset}; [ -e /run/cordon ] || echo no-broker; echo end'
tgh -c 'command -v xdg-open; [ -e /run/cordon ] && echo has-broker'"
if has "$OUT" "browser=unset" && has "$OUT" "no-broker" && has "$OUT" "has-broker" &&
	[ "$(grep -c /run/cordon/bin/xdg-open <<<"$OUT")" = 1 ]; then
	ok "a tool without open_urls has no opener, no BROWSER and no broker at all (control: with open_urls, it has)"
else
	not_ok "no opener without open_urls" "out: $OUT" "err: ${ERR:0:1500}"
fi
session "$P" "command -v xdg-open; echo browser=\${BROWSER:-unset}; \"$PY\" \"$here/broker-client.py\" open-url https://github.com/login/device"
sleep 0.3
if has "$OUT" "browser=unset" && ! has "$OUT" "/run/cordon/bin/xdg-open" && has "$OUT" "denied:" &&
	has "$OUT" "no open_urls" && [ ! -e "$OPENED" ] && [ ! -e "$OPENED.env" ]; then
	ok "the agent without open_urls: no opener on PATH, and a hand-made request on its broker is refused"
else
	not_ok "session without open_urls" "out: $OUT" "err: ${ERR:0:1500}"
fi
session "$P" "tcaller -c 'for f in /run/cordon/bin/*; do echo \$f; done; echo end'"
if has "$OUT" "tnourl" && ! has "$OUT" "xdg-open"; then
	ok "a tool with a broker (can_use) but no open_urls: its shims are its callees, no opener"
else
	not_ok "tcaller shims" "out: $OUT" "err: ${ERR:0:1500}"
fi

# ---- the session's own open_urls (top level) ---------------------------------
rm -f "$OPENED" "$OPENED.env"
session "$S" "echo browser=\$BROWSER; xdg-open https://github.com/login/device; echo rc=\$?; \"$PY\" \"$here/broker-client.py\" open-url https://github.com/hand; xdg-open https://evil.test/; echo rc=\$?"
if has "$OUT" "browser=/run/cordon/bin/xdg-open" && has "$OUT" "rc=0" && has "$OUT" "exit: 0 0" && has "$OUT" "rc=126" && opened_wait 2 &&
	[ "$(grep '^arg=' "$OPENED" | sort | tr '\n' ' ')" = "arg=https://github.com/hand arg=https://github.com/login/device " ]; then
	ok "the session's open_urls: BROWSER is its opener; its xdg-open and a hand-made request open, another origin does not"
else
	not_ok "session open_urls" "out: $OUT" "err: ${ERR:0:1500}" "opened: $(cat "$OPENED" 2>/dev/null)"
fi

# ---- no opener on the host: the URL is shown to the person -----------------
rm -f "$OPENED" "$OPENED.env"
(cd "$WS" && CORDON_BROWSER=none "$CORDON" run "${helpers_read[@]}" --profile "$S" -- \
	sh -c 'xdg-open "https://github.com/login/device?code=1"; echo rc=$?' >"$BASE/out" 2>"$BASE/err" </dev/null)
OUT=$(cat "$BASE/out") ERR=$(cat "$BASE/err")
if has "$OUT" "rc=0" && has "$ERR" "cordon:   https://github.com/login/device?code=1" && has "$ERR" "shown to the person" &&
	[ ! -e "$OPENED" ]; then
	ok "no opener on the host (CORDON_BROWSER=none): the supervisor prints the URL for the person and says so"
else
	not_ok "headless" "out: $OUT" "err: ${ERR:0:1500}"
fi

# ---- an opener a sandbox could rewrite is never run -----------------------
# the host runs the opener outside every sandbox: one in the workspace (the
# session writes there) refuses the session at start, as an xdg-open
# planted in a workspace directory on PATH does; the control is every
# session above, with the opener outside every writable root
mkdir -p "$WS/bin"
cp "$BIN/fake-opener" "$WS/bin/xdg-open"
chmod 755 "$WS/bin" "$WS/bin/xdg-open"
rm -f "$OPENED" "$OPENED.env"
(cd "$WS" && CORDON_BROWSER=$WS/bin/xdg-open "$CORDON" run "${helpers_read[@]}" --profile "$S" -- \
	sh -c 'echo started; xdg-open https://github.com/' >"$BASE/out" 2>"$BASE/err" </dev/null)
RC=$? OUT=$(cat "$BASE/out") ERR=$(cat "$BASE/err")
if [ "$RC" != 0 ] && hasnt "$OUT" "started" && has "$ERR" "URL opener" && has "$ERR" "$WS" && [ ! -e "$OPENED" ]; then
	ok "CORDON_BROWSER where the session can write: the session does not start, and it never runs"
else
	not_ok "writable CORDON_BROWSER" "rc=$RC" "out: $OUT" "err: ${ERR:0:1500}"
fi
(cd "$WS" && env -u CORDON_BROWSER PATH="$WS/bin:$PATH" "$CORDON" run "${helpers_read[@]}" --profile "$S" -- \
	sh -c 'echo started; xdg-open https://github.com/' >"$BASE/out" 2>"$BASE/err" </dev/null)
RC=$? OUT=$(cat "$BASE/out") ERR=$(cat "$BASE/err")
if [ "$RC" != 0 ] && hasnt "$OUT" "started" && has "$ERR" "URL opener" && [ ! -e "$OPENED" ]; then
	ok "... nor an xdg-open the session could plant in a workspace directory on PATH"
else
	not_ok "writable xdg-open on PATH" "rc=$RC" "out: $OUT" "err: ${ERR:0:1500}"
fi
rm -rf "$WS/bin"

# ---- the audit log: origin and path, never the query -------------------------
# (the agent's own call of tgh names the URL in tgh's argv: that record is
# the call's, not the opener's; only open_url records are looked at here)
if cat "$BASE/state/cordon/audit/"*.jsonl | "$PY" -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin if l.strip()]
urls = [r for r in recs if r.get("command") == "open_url"]
events = {r["event"] for r in urls}
assert {"url_opened", "url_denied", "url_printed", "approve_granted", "approve_denied"} <= events, events
red = [w for r in urls for w in r.get("argv_redacted", [])]
assert "https://github.com/login/oauth/authorize?(redacted)#(redacted)" in red, red
assert not [w for w in red if "client_id" in w or "code=1" in w], red
assert all(r["caller"] in ("tgh", "tasker", "tdenied", "trated", "tprefix", "session") for r in urls)
assert {r.get("rule") for r in urls if r["caller"] == "tgh"} == {"/command_policies/commands/tgh/sandbox/open_urls"}
assert "/open_urls" in {r.get("rule") for r in urls if r["caller"] == "session"}
'; then
	ok "the audit log records opens, approvals and refusals with origin and path, the query and fragment redacted"
else
	not_ok "audit"
fi

finish
