#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# ^C through a real terminal (a pty this test owns, python's pty.fork)
# reaches the confined command once, and reaches a shell's children too:
# the runner passes a signal to the command's whole process group (it
# leads its own session), exactly as a terminal would. Each case has the
# same run unconfined as its control.
set -u

. "$(dirname "$0")/tap.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

unset TMPDIR
BASE=$(mktemp -d /var/tmp/cordon-sig.XXXXXX)
chmod 755 "$BASE"
trap 'rm -rf "$BASE"' EXIT

cat > "$BASE/counter.py" <<'EOF'
import signal, time
n = 0
def h(s, f):
    global n
    n += 1
signal.signal(signal.SIGINT, h)
print("ready", flush=True)
t = time.time()
while time.time() - t < 2:
    time.sleep(0.05)
print("total %d" % n, flush=True)
EOF
cat > "$BASE/on_pty.py" <<'EOF'
# on_pty.py COMMAND...: run COMMAND on a fresh pty, type ^C half a second
# after it printed "ready" (as a person would: a ^C typed between sh's echo
# and its fork of sleep is one dash takes and acts on only after sleep, also
# unconfined), print what it wrote and how long it ran after the ^C.
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out, start, sent, sent_at, ready_at = b"", time.time(), False, 0.0, 0.0
while time.time() - start < 15:
    if not ready_at and b"ready" in out:
        ready_at = time.time()
    if not sent and ready_at and time.time() - ready_at >= 0.5:
        os.write(fd, b"\x03")
        sent, sent_at = True, time.time()
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        out += d
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
print("\nafter-ctrl-c %.1f" % (time.time() - sent_at if sent else 99))
EOF

for mode in native-full native-light; do
        iso=${mode#native-}
        out=$(cd "$BASE" && "$PY" on_pty.py "$CORDON" run --backend native --isolation "$iso" -- "$PY" counter.py)
        check "$iso: one ^C reaches the command exactly once" grep -q "total 1" <<<"$out"
        out=$(cd "$BASE" && "$PY" on_pty.py "$CORDON" run --backend native --isolation "$iso" -- sh -c "$PY counter.py; echo after")
        check "$iso: ... also a shell's child (sh -c 'counter; ...')" grep -q "total 1" <<<"$out"
        out=$(cd "$BASE" && "$PY" on_pty.py "$CORDON" run --backend native --isolation "$iso" -- sh -c 'echo ready; sleep 100; echo after')
        t=$(sed -n 's/^after-ctrl-c //p' <<<"$out")
        check "$iso: ^C ends sh -c 'sleep 100; echo after' at once, as a terminal would (${t}s)" \
                "$PY" -c "import sys; sys.exit(0 if float('$t') < 3 and 'after\n' not in '''$out''' else 1)"
done
# The command starts with every disposition at SIG_DFL, whatever its caller
# ignored and whatever handlers cordon installed for itself (SIGINT, SIGTERM,
# SIGHUP); the runner resets only the ones /proc/self/status lists as not
# SIG_DFL. The caller here ignores classic signals and a real-time one, and
# 32, one of the two glibc keeps for itself (its sigaction refuses them, so
# the runner resets those through the kernel's call); whatever the test's
# own caller left ignored (a CI harness may leave 32 so) is reset as well.
masks() { grep -E '^Sig(Ign|Cgt):' | tr -s '\t\n' '  '; }
# ign32 COMMAND...: COMMAND with signal 32 ignored, set through the
# kernel's call as glibc's sigaction (and bash's trap) cannot (x86-64's
# rt_sigaction number; elsewhere it leaves 32 as it is)
ign32() {
        "$PY" -c 'import ctypes, os, platform, sys
if platform.machine() == "x86_64":
    k = (ctypes.c_ulong * 4)(1, 0, 0, 0)  # SIG_IGN, flags, restorer, mask
    ctypes.CDLL(None, use_errno=True).syscall(13, 32, ctypes.byref(k), None, 8)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
for mode in native-full native-light; do
        iso=${mode#native-}
        for json in "" --json; do
                out=$(cd "$BASE" && ign32 bash -c "trap '' PIPE USR1 INT QUIT TERM HUP 40; exec \"\$@\"" sh \
                        "$CORDON" run $json --backend native --isolation "$iso" -- cat /proc/self/status)
                [ -n "$json" ] && out=$("$PY" -c 'import json,sys; print(json.load(sys.stdin)["output"])' <<<"$out")
                check "$iso${json:+ $json}: the command starts with no ignored and no caught signal ($(masks <<<"$out"))" \
                        grep -qx 'SigIgn: 0000000000000000 SigCgt: 0000000000000000 ' <<<"$(masks <<<"$out")"
        done
done
out=$(ign32 bash -c "trap '' PIPE USR1 INT QUIT TERM HUP 40; exec cat /proc/self/status")
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' <<<"$out")
check "control: unconfined, the same caller's command starts with those signals ignored (SigIgn: $ign)" \
        "$PY" -c "import sys; sys.exit(0 if int('$ign', 16) & 0x8080005207 == 0x8080005207 else 1)"
out=$(cd "$BASE" && "$PY" on_pty.py sh -c "$PY counter.py; echo after")
check "control: unconfined, the shell's child counts one ^C too" grep -q "total 1" <<<"$out"
out=$(cd "$BASE" && "$PY" on_pty.py sh -c 'echo ready; sleep 100; echo after')
check "control: unconfined, ^C ends sh -c 'sleep 100; ...' without after" [ -z "$(grep -x after <<<"$out")" ]

finish
