#!/usr/bin/env bash
# Chains of approval backends: "all" asks in order and stops at the first
# deny, "any" stops at the first grant; the result names the member that
# decided; a member that times out counts as its outcome (deny for a
# webhook, the default for a terminal). Members are the test webhook
# (webhook-server.py) and terminals with no controlling terminal (--no-tty:
# their default applies at once).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/approve-lib.sh"
tap_base approve-chain
cd "$BASE" || exit 1
start_webhook

YES="name=yes,type=webhook,url=unix:$SOCKS/allow.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=5000"
YES2="name=yes2,type=webhook,url=unix:$SOCKS/allow.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=5000"
NO="name=no,type=webhook,url=unix:$SOCKS/deny.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=5000"
NO2="name=no2,type=webhook,url=unix:$SOCKS/deny.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=5000"
SLOW="name=slow,type=webhook,url=unix:$SOCKS/slow.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=400"
TTY_ALLOW="name=tty-allow,type=terminal,timeout=30000,default=allow"
TTY_DENY="name=tty-deny,type=terminal,timeout=30000,default=deny"

chain() { # chain MODE MEMBERS [CHAIN_TIMEOUT]: every backend above, and the chain "c"
        "$DRIVER" --no-tty --backend "$YES" --backend "$YES2" --backend "$NO" --backend "$NO2" \
                --backend "$SLOW" --backend "$TTY_ALLOW" --backend "$TTY_DENY" \
                --backend "name=c,type=chain,mode=$1,members=$2,timeout=${3:-0}" --ask c -- push 2>&1
}

out=$(chain all yes:yes2)
expect "all [allow, allow]: granted, by the last member" "$out" granted 1 yes2
before=$(requests_to /allow)
out=$(chain all no:yes)
expect "all [deny, allow]: denied by the first" "$out" denied 0 no
check "  ... and the member after the deny was not asked" test "$(requests_to /allow)" = "$before"
out=$(chain all yes:no)
expect "all [allow, deny]: denied by the second" "$out" denied 0 no
out=$(chain any no:yes)
expect "any [deny, allow]: granted by the second" "$out" granted 1 yes
out=$(chain any no:no2)
expect "any [deny, deny]: denied, by the last member" "$out" denied 0 no2
before=$(requests_to /slow)
out=$(chain any yes:slow)
expect "any [allow, slow]: granted by the first" "$out" granted 1 yes
check "  ... and the slow member was not asked" test "$(requests_to /slow)" = "$before"

# timeouts inside a chain
out=$(chain any slow:yes)
expect "any [webhook timing out, allow]: the timeout counts as a deny; granted by the second" "$out" granted 1 yes
out=$(chain all slow:yes)
expect "all [webhook timing out, allow]: the timeout denies" "$out" timeout 0 slow
ms=$(res elapsed_ms "$out")
if [ -n "$ms" ] && [ "$ms" -lt 900 ]; then
        ok "  ... at the member's timeout (400 ms): ${ms} ms"
else
        not_ok "  ... at the member's timeout (400 ms)" "elapsed: ${ms:-?} ms"
fi

# terminals with no terminal: their default
out=$(chain all tty-allow:yes)
expect "all [terminal defaulting to allow, allow]: granted" "$out" granted 1 yes
out=$(chain all tty-deny:yes)
expect "all [terminal defaulting to deny, allow]: denied by the terminal" "$out" denied 0 tty-deny
out=$(chain any no:tty-allow)
expect "any [deny, terminal defaulting to allow]: granted by the terminal" "$out" granted 1 tty-allow

# a chain in a chain, and the chain's own timeout
out=$("$DRIVER" --no-tty --backend "$YES" --backend "$NO" --backend "name=inner,type=chain,mode=any,members=no:yes" \
        --backend "name=c,type=chain,mode=all,members=inner:yes" --ask c -- push 2>&1)
expect "all [any [deny, allow], allow]: granted" "$out" granted 1 yes
out=$("$DRIVER" --no-tty --backend "name=slow,type=webhook,url=unix:$SOCKS/slow.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=5000" \
        --backend "$YES" --backend "name=c,type=chain,mode=any,members=slow:yes,timeout=500" --ask c -- push 2>&1)
ms=$(res elapsed_ms "$out")
if [ "$(res allow "$out")" = 0 ] && [ -n "$ms" ] && [ "$ms" -lt 1000 ]; then
        ok "a chain's own timeout (500 ms) cuts a slower member (5 s) short and denies: ${ms} ms"
else
        not_ok "a chain's own timeout (500 ms) cuts a slower member (5 s) short and denies" "$out"
fi

# refused at start
out=$("$DRIVER" --backend "name=c,type=chain,mode=all,members=c" --ask c -- push 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "ELOOP" <<<"$out"; then
        ok "a chain that contains itself refuses the session"
else
        not_ok "a chain that contains itself refuses the session" "rc=$rc" "$out"
fi
out=$("$DRIVER" --backend "$YES" --backend "name=c,type=chain,mode=all,members=yes:nobody" --ask c -- push 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q 'no approval backend "nobody"' <<<"$out"; then
        ok "a chain naming an unknown member refuses the session"
else
        not_ok "a chain naming an unknown member refuses the session" "rc=$rc" "$out"
fi
out=$(env -u WEBHOOK_TEST_KEY "$DRIVER" --backend "$TTY_ALLOW" --backend "$NO" \
        --backend "name=c,type=chain,mode=any,members=tty-allow:no" --ask c -- push 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "ENOKEY" <<<"$out"; then
        ok "a webhook member without its key refuses the session"
else
        not_ok "a webhook member without its key refuses the session" "rc=$rc" "$out"
fi

finish
