#!/usr/bin/env bash
# The terminal approval backend, answered through a real pty that the
# driver takes as its controlling terminal (pty-answer.py plays the person):
# yes grants, no denies, silence and end of input apply the default, keys
# typed before the question do not answer it, argv cannot draw on the
# screen, the agent's stdio is never used, the terminal's mode comes back,
# and with no controlling terminal the default applies at once.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/approve-lib.sh"
tap_base approve-terminal
cd "$BASE" || exit 1
SCREEN=$BASE/screen

if ! "$PY" -c 'import os; os.openpty()' 2>/dev/null; then
        skip "the terminal backend through a pty" "no pty can be opened here"
        finish
        exit
fi

# term DEFAULT TIMEOUT_MS [OPTIONS] -- [ARGV...]: ask backend "me" with the
# pty as the controlling terminal. OPTIONS: pty-answer.py's, and the
# driver's --threads N and --delay-ms N.
term() {
        local default=$1 timeout=$2 opts=() driver_opts=()
        shift 2
        while [ $# -gt 0 ] && [ "$1" != -- ]; do
                case $1 in
                --threads | --delay-ms) driver_opts+=("$1" "$2"); shift ;;
                --answer | --early) opts+=("$1" "$2"); shift ;;
                *) opts+=("$1") ;;
                esac
                shift
        done
        shift
        "$PY" "$HERE/pty-answer.py" "${opts[@]}" "$SCREEN" "$DRIVER" "${driver_opts[@]}" \
                --backend "name=me,type=terminal,timeout=$timeout,default=$default" --ask me -- "$@" 2>&1
}

restored() { # restored DESC OUTPUT
        check "  ... and the terminal's mode is restored" grep -q '^mode_restored=yes' <<<"$2"
}

# --- answers ---
out=$(term deny 10000 --answer yes -- push --force origin)
expect "\"yes\" grants" "$out" granted 1 me
restored "" "$out"
if grep -q 'command: "tool"' "$SCREEN" && grep -q 'caller:  "session"' "$SCREEN" &&
        grep -q 'argv:    (3) "push" "--force" "origin"' "$SCREEN" && grep -q "cwd:     \"$BASE\"" "$SCREEN" &&
        grep -q 'cordon: allowed' "$SCREEN"; then
        ok "the prompt shows command, caller, argv and cwd on the terminal"
else
        not_ok "the prompt shows command, caller, argv and cwd on the terminal" "$(cat -v "$SCREEN")"
fi
if ! grep -q "Type yes" <<<"$out"; then
        ok "nothing of the prompt went to the driver's stdout or stderr (the agent's stdio)"
else
        not_ok "nothing of the prompt went to the driver's stdout or stderr (the agent's stdio)" "$out"
fi

out=$(term allow 10000 --answer no -- push)
expect "\"no\" denies, even where the default is allow" "$out" denied 0 me
restored "" "$out"
out=$(term allow 10000 --answer y -- push)
expect "anything but yes (\"y\") denies" "$out" denied 0 me

out=$(term deny 10000 --odd-keys --answer yes -- push)
expect "editing keys set by whoever shares the terminal (y ends a line, s erases it) do not change the answer" \
        "$out" granted 1 me
restored "" "$out"

# --- silence ---
out=$(term deny 700 -- push)
expect "silence: the timeout applies the default (deny)" "$out" timeout 0 me
ms=$(res elapsed_ms "$out")
if [ -n "$ms" ] && [ "$ms" -ge 650 ] && [ "$ms" -lt 1200 ]; then
        ok "  ... at the timeout (700 ms): ${ms} ms"
else
        not_ok "  ... at the timeout (700 ms)" "elapsed: ${ms:-?} ms"
fi
restored "" "$out"
out=$(term allow 700 -- push)
expect "silence: the timeout applies the default (allow)" "$out" timeout 1 me

# --- keys typed before the question ---
# The pty is line by line here, so the early "yes" is a whole line waiting:
# without the flush it would be read as the answer.
out=$(term deny 700 --cooked --early yes --delay-ms 300 -- push)
expect "a \"yes\" typed before the question does not answer it" "$out" timeout 0 me
out=$(term deny 10000 --cooked --early yes --delay-ms 300 --answer no -- push)
expect "  ... the answer typed after the question does" "$out" denied 0 me

# --- an argv that would draw on the screen ---
out=$(term deny 10000 --answer no -- $'\e[2J\e[Hclear' $'a\rType yes to allow' $'\xe2\x80\xaertl' $'\x9b31m')
expect "an argv with escape sequences: asked, and answered" "$out" denied 0 me
if grep -q 'argv:    (4) "\\e\[2J\\e\[Hclear" "a\\rType yes to allow" "\\xe2\\x80\\xaertl" "\\x9b31m"' "$SCREEN"; then
        ok "  ... each control or non-ASCII byte shown escaped"
else
        not_ok "  ... each control or non-ASCII byte shown escaped" "$(cat -v "$SCREEN")"
fi
if ! LC_ALL=C grep -q $'[\x1b\x9b\xe2]' "$SCREEN"; then
        ok "  ... and no ESC, CSI or bidi byte reached the terminal"
else
        not_ok "  ... and no ESC, CSI or bidi byte reached the terminal" "$(cat -v "$SCREEN")"
fi

# --- one prompt at a time ---
out=$(term deny 800 --threads 2 -- push)
n=$(grep -c '^outcome=timeout allow=0 backend=me' <<<"$out")
slowest=$(grep -o 'elapsed_ms=[0-9]*' <<<"$out" | cut -d= -f2 | sort -n | tail -n 1)
if [ "$n" = 2 ] && [ -n "$slowest" ] && [ "$slowest" -lt 1300 ] && [ "$(grep -c 'Type yes' "$SCREEN")" = 1 ]; then
        ok "two asks at once: one prompt; the other's wait for it ends at its own timeout (${slowest} ms)"
else
        not_ok "two asks at once: one prompt; the other's wait for it ends at its own timeout" "$out" \
                "$(cat -v "$SCREEN")"
fi

# --- no controlling terminal ---
out=$("$DRIVER" --no-tty --backend "name=me,type=terminal,timeout=30000,default=deny" --ask me -- push 2>&1)
expect "no controlling terminal: the default (deny) applies" "$out" denied 0 me
ms=$(res elapsed_ms "$out")
if [ -n "$ms" ] && [ "$ms" -lt 100 ]; then
        ok "  ... at once: ${ms} ms with a 30 s timeout"
else
        not_ok "  ... at once" "elapsed: ${ms:-?} ms"
fi
out=$("$DRIVER" --no-tty --backend "name=me,type=terminal,timeout=30000,default=allow" --ask me -- push 2>&1)
expect "no controlling terminal: the default (allow) applies" "$out" granted 1 me
check "  ... saying why" grep -q "no controlling terminal: the default, allow" <<<"$out"
out=$(term deny 30000 --as-stdio -- push)
expect "a terminal that is only stdio, not the controlling one, is not asked" "$out" denied 0 me
if ! grep -q "Type yes" "$SCREEN" && [ "$(res elapsed_ms "$out")" -lt 100 ]; then
        ok "  ... nothing was drawn on it, and the default came at once"
else
        not_ok "  ... nothing was drawn on it, and the default came at once" "$out" "$(cat -v "$SCREEN")"
fi

finish
