#!/usr/bin/env bash
# The audit trail of a real session (cordon run with command_policies):
# a call whose record cannot be written does not run; the log's end is
# signed with a per-session key and a cut-and-closed-again log is caught
# by `cordon audit verify`; approvals are asked by a bounded pool.
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
tap_base audit-session

WS=$BASE/ws BIN=$BASE/bin
mkdir -p "$WS" "$BIN" "$BASE/state"
chmod 755 "$WS" "$BIN"
# a tool that leaves a mark as it starts (the host counts them), then waits
# for the host's word to end: every call is decided before any ends
printf '#!/bin/sh\necho "ran $1" >> %s/marks\nwhile [ ! -e %s/release ]; do sleep 0.05; done\n' "$WS" "$WS" > "$BIN/tmark"
chmod 755 "$BIN/tmark"
export XDG_STATE_HOME=$BASE/state

P=$BASE/profile.json
cat > "$P" <<EOF
{
  "workspace": "$WS",
  "command_policies": {
    "commands": {
      "tmark": { "executable": "$BIN/tmark", "sandbox": { "fs_read": ["\$WORKSPACE"], "fs_write": ["\$WORKSPACE"],
                 "exec_paths": ["/bin/dash", "/usr/bin/dash", "/bin/sh", "/usr/bin/sh", "/bin/sleep", "/usr/bin/sleep"] } }
    }
  }
}
EOF

# ---- a call that cannot be audited does not run ------------------------------
# The audit directory is a small tmpfs in a user and mount namespace of the
# test's own (root and unprivileged alike). Once the session has started,
# the host fills it: the 24 calls' "allowed" records (all written before
# any tool ends) then land in the log's last page until one does not fit.
# Every mark a tool left must have its complete "allowed" record in the
# log: no tool ran unrecorded.
full_run() { # full_run FILL(0|1)
	rm -f "$WS/marks" "$WS/filled" "$WS/release" "$WS/calls.err"
	unshare -Urm bash -c '
		mount -t tmpfs -o size=1m tmpfs "$XDG_STATE_HOME" || exit 99
		"$CORDON" run --profile "$1" -- sh -c "
			while [ ! -e $2/filled ]; do sleep 0.05; done
			for i in \$(seq 1 24); do tmark \$i 2>>$2/calls.err & done; wait; echo done" >"$3/out" 2>"$3/err" &
		run=$!
		for _ in $(seq 200); do ls "$XDG_STATE_HOME"/cordon/audit/*.jsonl >/dev/null 2>&1 && break; sleep 0.05; done
		if [ "$4" = 1 ]; then
			dd if=/dev/zero of="$XDG_STATE_HOME/fill" bs=1k count=4096 2>/dev/null
		fi
		touch "$2/filled"
		# every call decided (run, or refused), then the tools may end
		for _ in $(seq 300); do
			m=$(cat "$2/marks" 2>/dev/null | wc -l) d=$(cat "$2/calls.err" 2>/dev/null | grep -c denied)
			[ $((m + d)) -ge 24 ] && break
			sleep 0.05
		done
		touch "$2/release"
		wait $run
		cp "$XDG_STATE_HOME"/cordon/audit/*.jsonl "$3/full.jsonl"
	' sh "$P" "$WS" "$BASE" "$1"
}
# complete records of event E in the log copy
records() {
	"$PY" -c 'import json,sys
n = 0
for l in open(sys.argv[1], "rb"):
    try:
        o = json.loads(l)
    except ValueError:
        continue
    n += o.get("event") == sys.argv[2]
print(n)' "$BASE/full.jsonl" "$1"
}
marks() { [ -f "$WS/marks" ] && wc -l < "$WS/marks" || echo 0; }

full_run 0
rc=$?
if [ $rc = 99 ]; then
	skip "a call that cannot be audited does not run" "no tmpfs in a user namespace here"
else
	if [ "$(marks)" = 24 ] && [ "$(records allowed)" = 24 ]; then
		ok "control: with room in the log, 24 calls run, each with its record"
	else
		not_ok "control: with room in the log, 24 calls run, each with its record" \
			"marks=$(marks) allowed=$(records allowed)" "$(cat "$BASE/err")"
	fi
	full_run 1
	m=$(marks) a=$(records allowed)
	if [ "$m" -lt 24 ] && [ "$m" = "$a" ]; then
		ok "the log full: no tool ran without its allowed record ($m ran, $a recorded, of 24)"
	else
		not_ok "the log full: no tool ran without its allowed record" "marks=$m allowed=$a" \
			"$(tail -c 600 "$BASE/full.jsonl")"
	fi
	if grep -q "the audit log cannot be written: no tool runs unrecorded" "$WS/calls.err"; then
		ok "  ... the refused calls say why"
	else
		not_ok "  ... the refused calls say why" "$(tail -n 3 "$WS/calls.err")"
	fi
fi

# ---- the log's end is signed, and kept where no sandbox reaches ---------------
rm -f "$WS/marks" "$WS/calls.err"
touch "$WS/release"
HEADS=$XDG_STATE_HOME/cordon/audit-heads
(cd "$WS" && "$CORDON" run --profile "$P" -- sh -c "
	for i in 1 2 3 4; do tmark \$i; done
	cat $HEADS/* >/dev/null 2>&1 && echo heads=readable || echo heads=hidden
	ls $XDG_STATE_HOME/cordon/audit >/dev/null 2>&1 && echo logs=readable || echo logs=hidden" \
	>"$BASE/out" 2>"$BASE/err" </dev/null)
line=$(grep '^\[cordon: audit: session' "$BASE/err")
S=$(sed -n 's/.*verify \([^ ]*\) --head.*/\1/p' <<<"$line")
H=$(sed -n 's/.* --head \([0-9a-f]*\).*/\1/p' <<<"$line")
K=$(sed -n 's/.* --pubkey \([0-9a-f]*\).*/\1/p' <<<"$line")
G=$(sed -n 's/.* --sig \([0-9a-f]*\).*/\1/p' <<<"$line")
if [ ${#H} = 64 ] && [ ${#K} = 64 ] && [ ${#G} = 128 ] && [ -n "$S" ]; then
	ok "the session's end prints its signed head: head, public key, signature"
else
	not_ok "the session's end prints its signed head: head, public key, signature" "$(cat "$BASE/err")"
fi
check "the private key is written nowhere: the state holds the log and the signed head only" \
	test "$(find "$XDG_STATE_HOME" -type f | sed "s|$XDG_STATE_HOME/||" | sort | tr '\n' ' ')" = \
	"cordon/audit-heads/$S.head cordon/audit/$S.jsonl "
check "the signed head is stored in the supervisor's state" grep -q "\"signature\":\"$G\"" "$HEADS/$S.head"
check "  ... the host reads it (control)" cat "$HEADS/$S.head"
check "  ... the session cannot reach it, nor the logs" grep -q "heads=hidden" "$BASE/out"
check "  ... (logs)" grep -q "logs=hidden" "$BASE/out"
LOG=$XDG_STATE_HOME/cordon/audit/$S.jsonl
verify() { out=$("$CORDON" audit verify "$@" 2>&1); vrc=$?; }
verify "$S"
if [ $vrc = 0 ] && grep -q "signed by the session's key $K (stored)" <<<"$out"; then
	ok "an intact log verifies, with its stored signed head"
else
	not_ok "an intact log verifies, with its stored signed head" "rc=$vrc" "$out"
fi
verify "$S" --head "$H" --pubkey "$K" --sig "$G"
check "an intact log verifies with the printed head, key and signature" test $vrc = 0
forged=$(sed 's/^./X/; s/^X/0/' <<<"$G"); [ "$forged" = "$G" ] && forged=1${G:1}
verify "$S" --head "$H" --pubkey "$K" --sig "$forged"
if [ $vrc = 1 ] && grep -q "does not verify" <<<"$out"; then
	ok "a forged signature of the head is refused"
else
	not_ok "a forged signature of the head is refused" "rc=$vrc" "$out"
fi
other=$(sha256sum <<<"x" | cut -c1-64)
verify "$S" --head "$other" --pubkey "$K" --sig "$G"
check "  ... so is another head under the real signature" test $vrc = 1
verify "$S" --json
check "--json: the signed head, its key and signature" "$PY" -c 'import json,sys
o = json.loads(sys.argv[1]); h = o["signed_head"]
assert o["state"] == "intact" and h["head"] == sys.argv[2] and h["head_key"] == sys.argv[3] and h["signature"] == sys.argv[4], o' \
	"$out" "$H" "$K" "$G"

# --json: the signed head under audit, and it verifies
out=$(cd "$WS" && "$CORDON" run --json --profile "$P" -- sh -c 'tmark j' 2>/dev/null </dev/null)
check "cordon run --json: audit {session, records, head, head_key, signature, stored}, and verify takes them" \
	"$PY" -c 'import json,subprocess,sys
a = json.loads(sys.argv[1])["audit"]
assert a["stored"] is True and len(a["head"]) == 64 and len(a["head_key"]) == 64 and len(a["signature"]) == 128, a
r = subprocess.run([sys.argv[2], "audit", "verify", a["session"], "--head", a["head"], "--pubkey", a["head_key"],
                    "--sig", a["signature"]], capture_output=True)
assert r.returncode == 0, r' "$out" "$CORDON"

# the attack: cut the last records and append a session_end recomputed as
# the writer would; the chain alone cannot tell
cp "$LOG" "$BASE/intact.jsonl"
"$PY" "$here/audit-forge.py" cut "$LOG" 3
verify "$LOG"
if [ $vrc = 1 ] && grep -q "not the signed" <<<"$out"; then
	ok "a log cut and closed again is tampered: its head is not the stored signed one"
else
	not_ok "a log cut and closed again is tampered: its head is not the stored signed one" "rc=$vrc" "$out"
fi
verify "$S" --head "$H" --pubkey "$K" --sig "$G"
check "  ... and against the printed signed head" test $vrc = 1
cp "$LOG" "$BASE/cut.jsonl"
"$CORDON" audit verify "$BASE/cut.jsonl" >/dev/null 2>&1
check "  ... while the chain alone (a copy, without the signed head) calls it intact: the attack is real" test $? = 0
cp "$BASE/intact.jsonl" "$LOG"
verify "$S"
check "  ... the intact log, put back, verifies again (control)" test $vrc = 0
# the attacker rewrites the whole log under a key of its own and signs that
"$PY" "$here/audit-forge.py" rekey "$LOG" "$HEADS"
frc=$?
if [ $frc = 77 ]; then
	skip "a log rewritten under another key" "python3-cryptography is missing"
else
	verify "$S" --head "$H" --pubkey "$K" --sig "$G"
	if [ $vrc = 1 ] && grep -q "names key" <<<"$out"; then
		ok "a log rewritten whole under the attacker's key, its stored head re-signed, fails against the printed key"
	else
		not_ok "a log rewritten whole under the attacker's key fails against the printed key" "rc=$vrc" "$out"
	fi
fi

# ---- approvals are asked by a bounded pool -----------------------------------
# 12 calls at once that each need a webhook's approval (3 s to answer): a
# pool of 4 threads asks them, a sandbox may have 8 pending, the rest are
# denied at once with the reason; before, each had a thread of its own.
export WEBHOOK_TEST_KEY=hook-$$ WEBHOOK_TEST_ANSWER_KEY=answer-$$
"$PY" "$here/webhook-server.py" "$BASE/hport" "$BASE/hook.log" "$BASE/hooks" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$BASE/hport" ] && break; sleep 0.05; done
P2=$BASE/profile2.json
cat > "$P2" <<EOF
{
  "workspace": "$WS",
  "command_policies": {
    "approval_backends": { "slow": { "type": "webhook", "url": "unix:$BASE/hooks/slow.sock",
        "secret_env": "WEBHOOK_TEST_KEY", "answer_secret_env": "WEBHOOK_TEST_ANSWER_KEY", "timeout_secs": 20 },
      "yes": { "type": "webhook", "url": "unix:$BASE/hooks/allow.sock",
        "secret_env": "WEBHOOK_TEST_KEY", "answer_secret_env": "WEBHOOK_TEST_ANSWER_KEY", "timeout_secs": 20 } },
    "commands": {
      "tdb": { "executable": "$BIN/tmark", "secret_flags": ["--db-pass"],
               "sandbox": { "fs_read": ["\$WORKSPACE"], "fs_write": ["\$WORKSPACE"],
                 "environment": { "allow_vars": ["DBHOST"] },
                 "exec_paths": ["/bin/dash", "/usr/bin/dash", "/bin/sh", "/usr/bin/sh", "/bin/sleep", "/usr/bin/sleep"] },
               "invocation_policy": { "default": "approve", "backend": "yes" } },
      "tmark": { "executable": "$BIN/tmark", "sandbox": { "fs_read": ["\$WORKSPACE"], "fs_write": ["\$WORKSPACE"],
                 "exec_paths": ["/bin/dash", "/usr/bin/dash", "/bin/sh", "/usr/bin/sh", "/bin/sleep", "/usr/bin/sleep"] },
                 "invocation_policy": { "default": "approve", "backend": "slow" } }
    }
  }
}
EOF
rm -f "$WS/marks" "$WS/go" "$WS/calls.err"
touch "$WS/release"
(cd "$WS" && exec "$CORDON" run --profile "$P2" -- sh -c "
	while [ ! -e $WS/go ]; do sleep 0.05; done
	for i in \$(seq 1 12); do tmark \$i 2>>$WS/calls.err & done; wait" >"$BASE/out" 2>"$BASE/err" </dev/null) &
run=$!
sleep 1.5
base_threads=$(ls /proc/$run/task | wc -l)
touch "$WS/go"
# within 2.5 s: the webhook answers none before 3 s, so no tool (and none of
# its stdio relays) runs yet: what threads there are ask approvals
peak=0
for _ in $(seq 25); do
	n=$(ls /proc/$run/task 2>/dev/null | wc -l)
	[ "$n" -gt "$peak" ] && peak=$n
	sleep 0.1
done
wait $run
if [ "$peak" -gt 0 ] && [ $((peak - base_threads)) -le 4 ]; then
	ok "12 approvals at once: at most 4 more threads ($base_threads before, $peak at most)"
else
	not_ok "12 approvals at once: at most 4 more threads" "before=$base_threads peak=$peak"
fi
denied=$(grep -c "too many approvals pending for this sandbox (8)" "$WS/calls.err")
if [ "$denied" = 4 ] && [ "$(marks)" = 8 ]; then
	ok "  ... 8 pending per sandbox are asked and run, the 4 over the cap are denied saying why"
else
	not_ok "  ... 8 pending per sandbox are asked and run, the 4 over the cap are denied saying why" \
		"denied=$denied ran=$(marks)" "$(head -c 800 "$WS/calls.err")" "$(head -c 800 "$BASE/err")"
fi

# ---- what an approver is sent, and the audit keeps, from a real session ----
rm -f "$WS/marks"
: > "$BASE/hook.log"
(cd "$WS" && "$CORDON" run --profile "$P2" -- sh -c "
	DBHOST=db1 tdb --db-pass hunter2 --passes 3 --password s3cr3tpw; DBHOST=db2 tdb --db-pass hunter2 --passes 3 --password s3cr3tpw" \
	>"$BASE/out" 2>"$BASE/err" </dev/null)
S2=$(sed -n 's/.*cordon audit verify \([^ ]*\) --head.*/\1/p' "$BASE/err")
check "two approved calls ran" test "$(marks)" = 2
check "the webhook saw the declared and the built-in secret flags' values hidden, the neighbours shown, the environment's values" \
	"$PY" -c 'import json,sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
for r in reqs:
    assert "hunter2" not in r["raw"] and "s3cr3tpw" not in r["raw"], r["raw"]
    a = r["body"]["argv_redacted"]
    assert a[0] == "--db-pass" and a[1] == "<redacted 7 bytes, sha256:f52fbd32>" and a[2:4] == ["--passes", "3"], a
    assert a[4] == "--password" and a[5].startswith("<redacted 8 bytes, sha256:"), a
assert "DBHOST=db1" in reqs[0]["body"]["env_redacted"] and "DBHOST=db2" in reqs[1]["body"]["env_redacted"]
assert reqs[0]["body"]["digest"] != reqs[1]["body"]["digest"], "an environment value is not in the digest"' "$BASE/hook.log"
log2=$XDG_STATE_HOME/cordon/audit/$S2.jsonl
if [ -s "$log2" ] && ! grep -q -e hunter2 -e s3cr3tpw "$log2" && grep -q '"--db-pass","<redacted 7 bytes, sha256:f52fbd32>","--passes","3"' "$log2"; then
	ok "the audit keeps the same redaction: no secret in clear, the neighbours shown"
else
	not_ok "the audit keeps the same redaction" "$(grep -o '"argv_redacted":[^]]*]' "$log2" | head -2)"
fi

finish
