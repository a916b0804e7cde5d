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

finish
