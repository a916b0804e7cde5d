#!/usr/bin/env bash
# A credential capture (issue 23): run lazily, once within its lifetime and
# again after it; a lifetime from expires_at (epoch seconds, RFC 3339) when
# the capture says one, else its ttl; a capture that fails, prints nothing,
# prints an expired token or outlives its timeout gives an error and no
# value; it runs in a sandbox of its own (what read grants, nothing
# writable, no proxy variable); its audit records never hold the value.
# Driven through the supervisor's store (capture-driver).
. "$(dirname "$0")/tap.sh"
tap_base creds-capture
DRIVER=${CORDON_BUILDDIR:?}/tests/integration/capture-driver
export XDG_STATE_HOME=$BASE/state HOME=$BASE/home CORDON_RUNNER=$CORDON
mkdir -p "$BASE/state" "$BASE/home" "$BASE/sec" "$BASE/audit"
chmod 755 "$BASE/home" "$BASE/sec"
tok=tok$$x$RANDOM
printf '%s-file\n' "$tok" > "$BASE/sec/tok"
chmod 644 "$BASE/sec/tok"
P=$BASE/p.json
mkprofile() { # the profile, its expiries 2 s from now
now=$(date +%s)
soon=$((now + 2))
soon3339=$(date -u -d "@$((now + 2))" +%Y-%m-%dT%H:%M:%SZ)
past=$((now - 10))
# name, script, timeout, ttl[, read]: each capture a credential of its own
"$PY" - "$P" "$BASE" "$tok" "$soon" "$soon3339" "$past" <<'PYEOF'
import json, sys
p, base, tok, soon, soon3339, past = sys.argv[1:]
caps = [
    # the values are made by the shell, so that no argv holds one (the
    # audit log keeps a redacted argv)
    ("ttl", "echo %s''-ttl" % tok, "5s", "2s"),
    ("epoch", "printf '{\"token\": \"%%s-epoch\", \"expires_at\": %s}' " % soon + tok, "5s", "1h"),
    ("rfc", "printf '{\"token\": \"%%s-rfc\", \"expires_at\": \"%s\"}' " % soon3339 + tok, "5s", "1h"),
    ("expired", "printf '{\"token\": \"%%s-old\", \"expires_at\": %s}' " % past + tok, "5s", "1h"),
    ("slow", "while :; do :; done", "300ms", "1h"),
    ("fails", "echo %s''-fail; exit 3" % tok, "5s", "1h"),
    ("empty", "printf ''", "5s", "1h"),
    ("proxyvars", "echo p${HTTPS_PROXY:-none}x${http_proxy:-none}", "5s", "1h"),
    ("granted", "read -r t < %s/sec/tok && echo $t" % base, "5s", "1h", [base + "/sec"]),
    ("ungranted", "read -r t < %s/sec/tok && echo $t" % base, "5s", "1h"),
    ("writes", "echo x > %s/sec/w 2>/dev/null && echo wrote || echo nowrite" % base, "5s", "1h"),
]
prof = {"credentials": {}, "credential_capture": {}}
for i, c in enumerate(caps):
    prof["credentials"][c[0]] = {"source": "cmd://" + c[0], "hosts": ["example.com"], "inject": {"query": "k"},
                                 "phantom": {"env": "T%d" % i, "shape": "p{32:hex}"}, "grant_to": ["session"]}
    cap = {"command": ["/bin/sh", "-c", c[1]], "timeout": c[2], "ttl": c[3]}
    if len(c) > 4:
        cap["read"] = c[4]
    prof["credential_capture"][c[0]] = cap
json.dump(prof, open(p, "w"), indent=1)
PYEOF
}
mkprofile
if ! "$CORDON" profile validate "$P" >"$BASE/v" 2>&1; then
	not_ok "the capture profile loads" "$(cat "$BASE/v")" "$(cat "$P")"
	finish
	exit
fi

drive() { # drive CRED OP...: OUT
	OUT=$("$DRIVER" "$P" "$BASE/audit" "$@" 2>&1)
	RC=$?
	ERR=
}

drive ttl get get sleep=2300 get
expect "a capture runs at its first use and gives its value" has "$OUT" "value=$tok-ttl runs=1"
expect "... runs once within its ttl (the second use takes the same value)" eval \
	'[ "$(grep -c "value=$tok-ttl runs=1" <<<"$OUT")" = 2 ]'
expect "... and again once the ttl is over" has "$OUT" "value=$tok-ttl runs=2"

# the capture prints the same expiry each time: once it is past, the
# capture runs again and what it prints is refused as expired
mkprofile
drive epoch get get sleep=2500 get
expect "expires_at in epoch seconds: kept until then" eval '[ "$(grep -c "value=$tok-epoch runs=1" <<<"$OUT")" = 2 ]'
expect "... and captured again after it (though the ttl is an hour)" has "$OUT" "has expired runs=2"

mkprofile
drive rfc get get sleep=2500 get
expect "expires_at in RFC 3339: kept until then" eval '[ "$(grep -c "value=$tok-rfc runs=1" <<<"$OUT")" = 2 ]'
expect "... and captured again after it" has "$OUT" "has expired runs=2"

drive expired get
expect "a token that says it has expired is refused" has "$OUT" "has expired runs=1"
expect "... and its value is nowhere" hasnt "$OUT" "$tok-old"

start=$(date +%s%N)
drive slow get
took=$(( ($(date +%s%N) - start) / 1000000 ))
expect "a capture past its timeout is ended and reported" has "$OUT" "error=capture slow: timed out after 300 ms"
expect "... promptly (${took} ms)" eval '[ "$took" -lt 4000 ]'

drive fails get
expect "a capture that fails gives its exit status, no value" has "$OUT" "error=capture fails: exited 3"
expect "... never its output" hasnt "$OUT" "$tok-fail"
drive empty get
expect "a capture that prints nothing is an error" has "$OUT" "error=capture empty: the capture printed nothing"

OUT=$(HTTPS_PROXY=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9 "$DRIVER" "$P" "$BASE/audit" proxyvars get 2>&1)
expect "the proxy variables are removed from a capture's environment" has "$OUT" "value=pnonexnone"

drive granted get
expect "a capture reads what its read grants" has "$OUT" "value=$tok-file"
drive ungranted get
expect "... and not what it does not (its own sandbox)" has "$OUT" "error=capture ungranted: exited"
expect "... (so no value)" hasnt "$OUT" "$tok-file"
drive writes get
expect "a capture writes nothing on the host" has "$OUT" "value=nowrite"
[ ! -e "$BASE/sec/w" ] && ok "... (no file made)" || not_ok "the capture wrote $BASE/sec/w"
(echo x > "$BASE/sec/w") && ok "... (control: unconfined, the write works)" || not_ok "write control"

logs=$(cat "$BASE"/audit/*.jsonl)
OUT=$(grep -- "$tok-\|\"capture" <<<"$logs" | head -c 3000)
expect "each capture is audited: 7 that gave a value" eval '[ "$(grep -cF "\"event\":\"capture\"" <<<"$logs")" = 7 ]'
expect "... and 7 that failed" eval '[ "$(grep -cF "\"event\":\"capture_failed\"" <<<"$logs")" = 7 ]'
expect "... a failed one too, with its reason" has "$logs" "\"event\":\"capture_failed\""
expect "... with its command redacted, its exit status, duration and byte count" eval \
	'has "$logs" "\"argv_redacted\"" && has "$logs" "\"exit_code\"" && has "$logs" "\"duration_ms\"" && has "$logs" "\"stdout_bytes\""'
for v in "$tok-ttl" "$tok-epoch" "$tok-rfc" "$tok-old" "$tok-fail" "$tok-file"; do
	expect "... never a value ($v)" hasnt "$logs" "$v"
done
finish
