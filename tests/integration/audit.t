#!/usr/bin/env bash
# The audit trail end to end: logs written by the supervisor's own writer
# (audit-driver, linked with src/supervisor/audit.c), read and verified by
# `cordon audit` through the lean cordon, which execs cordon-supervisor for
# it. Every kind of tampering is caught and named; a writer killed midway
# leaves everything it wrote, verified and reported incomplete; nothing
# secret reaches the file. Runs as root and as any user: everything lives
# below a fresh directory.
set -u
. "$(dirname "$0")/tap.sh"
: "${CORDON_BUILDDIR:?CORDON_BUILDDIR must point at the build directory}"
driver=$CORDON_BUILDDIR/tests/integration/audit-driver
tap_base audit
export XDG_STATE_HOME=$BASE/state
unset CORDON_SUPERVISOR
logs=$XDG_STATE_HOME/cordon/audit
ID=20261202T014731Z-1a2b3c4d
work=$BASE/work
mkdir -m 700 "$work"

# audit CMD...: run `cordon audit CMD...`; OUT and RC
audit() {
	OUT=$("$CORDON" audit "$@" 2>&1)
	RC=$?
}
# expect_rc DESC RC [GREP]: the last audit call exited RC and said GREP
expect_rc() {
	if [ "$RC" = "$2" ] && { [ -z "${3:-}" ] || grep -qF -- "$3" <<<"$OUT"; }; then
		ok "$1"
	else
		not_ok "$1" "exit $RC, want $2${3:+, saying '$3'}" "$OUT"
	fi
}

# ---- a log, as the supervisor writes it ----
if out=$("$driver" write - "$ID" --calls 3 2>&1); then
	ok "the writer makes a log in \$XDG_STATE_HOME/cordon/audit"
else
	not_ok "the writer makes a log in \$XDG_STATE_HOME/cordon/audit" "$out"
	finish
	exit
fi
log=$(head -1 <<<"$out")
head=$(sed -n 's/^head //p' <<<"$out")
if [ "$log" = "$logs/$ID.jsonl" ] && [ "$(stat -c %a "$logs")" = 700 ] && [ "$(stat -c %a "$log")" = 600 ] &&
   [ "$(stat -c %a "$XDG_STATE_HOME/cordon")" = 700 ]; then
	ok "the log is $ID.jsonl, mode 600, in directories of mode 700"
else
	not_ok "the log is $ID.jsonl, mode 600, in directories of mode 700" "$log: $(stat -c '%a %n' "$logs" "$log" 2>&1)"
fi
if [ "$(wc -l <"$log")" = 8 ] && [ "$(sha256sum <(tail -1 "$log" | tr -d '\n') | cut -d' ' -f1)" = "$head" ]; then
	ok "8 records (start, 3 calls of 2, end); the head the writer reports is the last line's SHA-256"
else
	not_ok "8 records (start, 3 calls of 2, end); the head the writer reports is the last line's SHA-256" \
		"$(wc -l <"$log") lines, head $head" "$(cat "$log")"
fi
leaked=$(grep -oE 'hunter2|SECRET|ghp_|secret-project|GIT_SECRET_NAME' "$log")
if [ -z "$leaked" ] && grep -q '"argv_redacted":\["push",' "$log" && grep -q '"main","--force"\]' "$log"; then
	ok "no secret, raw argv, environment name or cwd in the file; the redacted argv is readable"
else
	not_ok "no secret, raw argv, environment name or cwd in the file; the redacted argv is readable" \
		"leaked: $leaked" "$(sed -n 2p "$log")"
fi

# ---- reading it through the lean cordon ----
audit verify "$ID"
expect_rc "cordon audit verify SESSION: intact, exit 0" 0 "intact: $log: 8 records of session $ID, head $head"
audit verify "$log" --head "$head"
expect_rc "verify FILE --head with the writer's head: intact" 0 "intact"
audit verify "$log" --head "$(sha256sum <<<x | cut -d' ' -f1)"
expect_rc "verify --head with another head: tampered, exit 1" 1 "not the"
if OUT=$(CORDON_SUPERVISOR=$BASE/nonexistent "$CORDON" audit verify "$ID" 2>&1); then RC=0; else RC=$?; fi
expect_rc "the lean cordon hands audit to cordon-supervisor (a missing one is said, exit 125)" 125 \
	"cordon audit needs cordon-supervisor, which cannot be started"

audit show "$ID"
# a hidden value is "<redacted N bytes, sha256:XXXXXXXX>" (show quotes the words it is in): compared short
short=$(sed -E "s/<redacted [0-9]+ bytes, sha256:[0-9a-f]{8}>/<redacted>/g; s/'//g" <<<"$OUT")
if [ "$RC" = 0 ] && grep -q "allowed \[c0\] session -> git: push https://<redacted>@example.com/repo.git --token <redacted> --password=<redacted> API_KEY=<redacted> <redacted> main --force decision=allow" <<<"$short" &&
   grep -q "<redacted 7 bytes, sha256:f52fbd32>\|<redacted [0-9]* bytes, sha256:[0-9a-f]\{8\}>" <<<"$OUT" &&
   grep -q "exited \[c2\] session -> git exit=2 duration=12ms stdin=0B stdout=102B stderr=0B" <<<"$OUT" &&
   ! grep -qE 'hunter2|SECRET' <<<"$OUT" && tail -1 <<<"$OUT" | grep -q "^intact: "; then
	ok "show: one readable line per record (caller, command, redacted argv, decision, exit, duration, bytes), then the verdict"
else
	not_ok "show: one readable line per record (caller, command, redacted argv, decision, exit, duration, bytes), then the verdict" "exit $RC" "$OUT"
fi
audit show "$ID" --json
if [ "$RC" = 0 ] && "$PY" -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["state"] == "intact" and o["records"] == 8 and len(o["entries"]) == 8, o
assert all(e["verified"] for e in o["entries"])
assert o["entries"][3]["record"]["argv_redacted"][-2:] == ["main", "--force"]
' "$OUT" 2>&1; then
	ok "show --json: the verdict and every record, verified"
else
	not_ok "show --json: the verdict and every record, verified" "$OUT"
fi

# ---- tampering: each on a copy, checked as a FILE ----
# tamper NAME CMD...: a copy of the log changed by CMD (given the copy's path)
tamper() {
	local name=$1
	shift
	cp "$log" "$work/$name.jsonl"
	"$@" "$work/$name.jsonl"
	T=$work/$name.jsonl
}
edit_line5() { sed -i '5s/"exit_code":1/"exit_code":0/' "$1"; }
swap_4_5() { sed -i -n '4{h;n;G};p' "$1"; }
dup_line3() { sed -i '3p' "$1"; }
del_line6() { sed -i '6d' "$1"; }
garbage_line2() { sed -i '2s/.*/not json at all/' "$1"; }
drop_end() { sed -i '$d' "$1"; }
cut_end() { truncate -s -20 "$1"; }
too_big() { truncate -s 65M "$1"; }

tamper edited edit_line5
audit verify "$T"
expect_rc "an edited line (an exit code): tampered, named by the next line's prev" 1 \
	"line 6: prev is not the SHA-256 of the line before"
tamper reordered swap_4_5
audit verify "$T"
expect_rc "two lines swapped: tampered at the first, seq out of order" 1 "line 4: seq is 4 where 3 was expected"
tamper inserted dup_line3
audit verify "$T"
expect_rc "a line inserted (a repeated record): tampered" 1 "line 4: seq is 2 where 3 was expected"
tamper deleted del_line6
audit verify "$T"
expect_rc "a line deleted: tampered" 1 "line 6: seq is 6 where 5 was expected: a record before it was deleted"
tamper garbage garbage_line2
audit verify "$T"
expect_rc "a line that is not JSON: tampered" 1 "line 2: not JSON"
tamper big too_big
audit verify "$T"
expect_rc "a file over the size cap: tampered, unread" 1 "over 67108864 bytes"
tamper truncated drop_end
audit verify "$T"
expect_rc "session_end cut off: incomplete, exit 2" 2 "no session_end record"
tamper cut cut_end
audit verify "$T"
expect_rc "the last line cut midway: incomplete" 2 "line 8 is cut"
audit show "$work/edited.jsonl"
if [ "$RC" = 1 ] && grep -q '^!    6 ' <<<"$OUT" && grep -q '^     5 ' <<<"$OUT" && grep -q "marked ! come after" <<<"$OUT"; then
	ok "show of a tampered log: the records after the bad line marked unverified, exit 1"
else
	not_ok "show of a tampered log: the records after the bad line marked unverified, exit 1" "exit $RC" "$OUT"
fi

# a log renamed to another session's name, in the audit directory
other=20261202T014731Z-ffffffff
cp "$log" "$logs/$other.jsonl"
audit verify "$other"
expect_rc "a log under another session's name: tampered" 1 "line 1: the session id is $ID, not $other"

# a record whose text would act on a terminal (written by hand: the writer escapes)
printf '{"event":"denied","prev":"x","reason":"\\u001b[2J\\u001b]0;pwned\\u0007","seq":1,"session":"%s","time":"t","v":1}\n' "$ID" >"$work/esc.jsonl"
audit show "$work/esc.jsonl"
if ! grep -q $'\e' <<<"$OUT" && grep -qF 'reason=\x1b[2J\x1b]0;pwned\x07' <<<"$OUT"; then
	ok "show escapes control characters from the file"
else
	not_ok "show escapes control characters from the file" "$(od -c <<<"$OUT" | head -20)"
fi

# ---- a writer killed midway ----
killed=20261202T014731Z-0000dead
"$driver" write - "$killed" --calls 100000 --sleep-ms 2 >/dev/null 2>&1 &
pid=$!
PIDS+=("$pid")
for _ in $(seq 200); do
	[ "$(cat "$logs/$killed.jsonl" 2>/dev/null | wc -l)" -ge 40 ] && break
	sleep 0.05
done
{ kill -9 "$pid" && wait "$pid"; } 2>/dev/null
lines=$(wc -l <"$logs/$killed.jsonl")
audit verify "$killed" --json
if [ "$RC" = 2 ] && [ "$lines" -ge 40 ] && "$PY" -c '
import json, sys
o = json.loads(sys.argv[1])
lines = int(sys.argv[2])
assert o["state"] == "incomplete" and o["records"] >= lines and o["records"] <= lines + 1, (o, lines)
' "$OUT" "$lines" 2>&1; then
	ok "a writer killed by SIGKILL: every line it wrote ($lines) survives and verifies; incomplete, exit 2"
else
	not_ok "a writer killed by SIGKILL: every line it wrote survives and verifies; incomplete, exit 2" "exit $RC, $lines lines" "$OUT"
fi

# ---- many threads at once ----
threads=20261202T014731Z-00000008
if out=$("$driver" write - "$threads" --calls 50 --threads 8 2>&1); then
	audit verify "$threads"
	expect_rc "8 threads writing at once: the chain holds, all 802 records" 0 "802 records"
else
	not_ok "8 threads writing at once" "$out"
fi

# ---- list ----
audit list
if [ "$RC" = 0 ] && grep -qE "^$ID +[0-9T:.-]+Z +git +8  intact$" <<<"$OUT" &&
   grep -qE "^$other .* tampered \(line 1\)$" <<<"$OUT" && grep -qE "^$killed .* incomplete$" <<<"$OUT"; then
	ok "list: each session with its start, profile, records and state"
else
	not_ok "list: each session with its start, profile, records and state" "$OUT"
fi
audit list --json
if [ "$RC" = 0 ] && "$PY" -c '
import json, sys
o = json.loads(sys.argv[1])
s = {x["session"]: x for x in o["sessions"]}
assert s[sys.argv[2]]["state"] == "intact" and s[sys.argv[2]]["profile"] == "git", s
assert s[sys.argv[3]]["state"] == "incomplete"
assert o["directory"] == sys.argv[4]
' "$OUT" "$ID" "$killed" "$logs" 2>&1; then
	ok "list --json"
else
	not_ok "list --json" "$OUT"
fi

# ---- what the writer refuses, beside a private directory that works ----
mkdir -m 700 "$work/private"
if "$driver" write "$work/private" "$ID" >/dev/null 2>&1; then ok "control: a private directory takes a log"; else not_ok "control: a private directory takes a log"; fi
# refused DESC WANT DIR ID: the writer refuses DIR, saying WANT
refused() {
	local out
	if out=$("$driver" write "$3" "$4" 2>&1); then
		not_ok "$1" "it wrote: $out"
		rm -f "$3/$4.jsonl"
	elif grep -qF "$2" <<<"$out"; then
		ok "$1"
	else
		not_ok "$1" "want '$2'" "$out"
	fi
}
mkdir -m 700 "$work/shared" && chmod 770 "$work/shared"
refused "a group-writable directory is refused" "Operation not permitted" "$work/shared" "$ID"
refused "a world-writable directory (/tmp) is refused" "Operation not permitted" /tmp "$ID"
ln -s "$work/private" "$work/link"
refused "a symlinked directory is refused" "Too many levels of symbolic links" "$work/link" 20261202T014731Z-11111111
refused "an existing log is never reopened" "File exists" "$work/private" "$ID"
ln -s "$work/elsewhere" "$work/private/20261202T014731Z-22222222.jsonl"
refused "a symlink in the log's place is not followed" "File exists" "$work/private" 20261202T014731Z-22222222
if [ ! -e "$work/elsewhere" ]; then ok "...and nothing was written through it"; else not_ok "...and nothing was written through it"; fi

# ---- trouble ----
audit verify 20261202T014731Z-99999999
expect_rc "verify of a session that has no log: 125, said" 125 "cannot open the audit log"
audit verify "$work/"
expect_rc "verify of a directory: 125, said" 125 "is not a regular file"
audit verify 'a b'
expect_rc "verify of a name that is neither a session id nor a file: 125, said" 125 "is neither a session id nor a file"
audit show 'no/such'
expect_rc "show of a missing file: 125" 125 "cannot open"

finish
