#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cordon run on a terminal gives the command a terminal of its own: a pty
# whose master only the runner holds (full isolation: the sandbox's devpts;
# light: the host's /dev/ptmx). Every case runs through a real pty this test
# owns (pty_cases.py, python's pty.fork): a prompt with job control, ^Z, bg,
# fg, ^C, ^D, a pager waiting for its keys on /dev/tty, a full-screen editor,
# a resize, a denial still explained, the caller's terminal put back however
# the run ended, and the caller's terminal out of the sandbox's reach. Where
# it means something, the same case runs unconfined as its control; --json
# and bwrap keep today's behaviour (no terminal of its own), shown too.
set -u

. "$(dirname "$0")/tap.sh"
tap_base pty
CASES="$(cd "$(dirname "$0")" && pwd)/pty_cases.py"
cd "$BASE"

# A repository whose log is longer than the window: git pages it.
git init -q repo
for i in $(seq 40); do
        git -C repo -c user.name=t -c user.email=t@t commit -q --allow-empty -m "commit number $i"
done

case_check() { # case_check DESC CASE PREFIX...
        local desc=$1 case=$2
        shift 2
        check "$desc" "$PY" "$CASES" "$case" "$BASE" "$@"
}

for iso in full light; do
        run=("$CORDON" run --isolation "$iso" --workspace "$BASE")
        case_check "$iso: bash -i: a prompt, job control, a tty on stdin, stdout and stderr, /dev/tty opens, ^D ends it (exit 0)" \
                prompt "${run[@]}" --
        case_check "$iso: ^Z stops the foreground job, bg and fg move it, ^C ends it (130)" jobs "${run[@]}" --
        case_check "$iso: git log pages through less, which waits for q on /dev/tty" pager "${run[@]}" --
        case_check "$iso: a full-screen editor (vi) writes what was typed" editor "${run[@]}" --
        case_check "$iso: the window size at start, one SIGWINCH with the new size on a resize" resize "${run[@]}" --
        case_check "$iso: a denial inside is still explained ([cordon: access denied ...], exit 1)" denied "${run[@]}" --
        case_check "$iso: stty -a is the same before and after the run" restored "${run[@]}" --
        case_check "$iso: raw during the run, put back after a SIGKILL of the runner" kill_runner "${run[@]}" --
        case_check "$iso: put back after a SIGKILL (by the runner) and a SIGTERM of cordon run; nothing left running" \
                kill_cordon "${run[@]}" --
        case_check "$iso: no process in the sandbox holds the caller's terminal, and it is not writable by name" \
                outer_unreachable "${run[@]}" --
        case_check "$iso: --max-output 400 on a terminal: still a tty, at most 400 bytes shown" \
                max_output "${run[@]}" --max-output 400 --
done

case_check "control: unconfined, bash -i has its prompt and job control" prompt
case_check "control: unconfined, ^Z, bg, fg, ^C" jobs
case_check "control: unconfined, git log pages" pager
case_check "control: unconfined, vi writes the file" editor
case_check "control: unconfined, the resize arrives once" resize
case_check "control: unconfined, the caller's terminal is writable by name" outer_writable

case_check "--json: no terminal of its own (/dev/tty fails), as before" \
        no_terminal "$CORDON" run --json --workspace "$BASE" --
if command -v bwrap >/dev/null && "$CORDON" run --backend bwrap -- true >/dev/null 2>&1; then
        case_check "bwrap: no controlling terminal (/dev/tty fails), as before" \
                no_terminal "$CORDON" run --backend bwrap --workspace "$BASE" --
        check "explain --backend bwrap says the command has no terminal of its own" \
                sh -c "'$CORDON' explain --backend bwrap -- true | grep -q '^terminal: none of its own under bwrap'"
else
        skip "bwrap: no terminal of its own" "bwrap not usable here"
        skip "explain --backend bwrap says so" "bwrap not usable here"
fi
check "explain says when the command gets a terminal of its own" \
        sh -c "'$CORDON' explain -- true | grep -q '^terminal: when cordon run.s stdin, stdout and stderr are one terminal'"

finish
