# Shared by the approve-*.t scripts: source after tap.sh, with the driver's
# path as the script's first argument.
DRIVER=${1:?usage: approve-*.t APPROVE_DRIVER}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# res NAME OUTPUT: NAME's value in the driver's result line (reason: the rest
# of the line).
res() {
        local line
        line=$(grep -m1 '^outcome=' <<<"$2")
        if [ "$1" = reason ]; then
                sed -n 's/.* reason=//p' <<<"$line"
        else
                grep -o "\(^\| \)$1=[^ ]*" <<<"$line" | head -n 1 | cut -d= -f2-
        fi
}

# expect DESC OUTPUT OUTCOME ALLOW [BACKEND]: the result line says so.
expect() {
        local desc=$1 out=$2 outcome=$3 allow=$4 backend=${5:-}
        if [ "$(res outcome "$out")" = "$outcome" ] && [ "$(res allow "$out")" = "$allow" ] &&
                { [ -z "$backend" ] || [ "$(res backend "$out")" = "$backend" ]; }; then
                ok "$desc"
        else
                not_ok "$desc" "want outcome=$outcome allow=$allow${backend:+ backend=$backend}" "got: $out"
        fi
}

# start_webhook: the test webhook, a unix socket per scenario in SOCKS and
# plain HTTP on loopback (URL); sets WEBHOOK_LOG, and the two keys.
start_webhook() {
        export WEBHOOK_TEST_KEY WEBHOOK_TEST_ANSWER_KEY
        WEBHOOK_TEST_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
        WEBHOOK_TEST_ANSWER_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
        WEBHOOK_LOG=$BASE/webhook.log
        SOCKS=$BASE/hooks
        "$PY" "$HERE/webhook-server.py" "$BASE/port" "$WEBHOOK_LOG" "$SOCKS" &
        PIDS+=($!)
        for _ in $(seq 100); do
                [ -s "$BASE/port" ] && break
                sleep 0.05
        done
        [ -s "$BASE/port" ] || { echo "Bail out! the test webhook did not start"; exit 1; }
        URL=http://127.0.0.1:$(cat "$BASE/port")
}

# hook NAME /SCENARIO TIMEOUT_MS: a --backend spec for the test webhook's
# SCENARIO (its unix socket).
hook() {
        echo "name=$1,type=webhook,url=unix:$SOCKS$2.sock,secret_env=WEBHOOK_TEST_KEY,answer_env=WEBHOOK_TEST_ANSWER_KEY,timeout=$3"
}

# requests_to PATH: how many requests the test webhook has had for PATH.
requests_to() {
        [ -f "$WEBHOOK_LOG" ] || { echo 0; return; }
        "$PY" -c 'import json,sys; print(sum(json.loads(l)["path"] == sys.argv[2] for l in open(sys.argv[1])))' \
                "$WEBHOOK_LOG" "$1"
}
