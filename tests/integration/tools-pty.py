#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Play the person at the terminal of a tool session.

    tools-pty.py ANSWER WORKSPACE CORDON ARGS...

Runs CORDON ARGS (`cordon run --profile P -- AGENT...`) in WORKSPACE with a
fresh pty as its controlling terminal and stdio (as a person's shell would
start it: the agent then gets a terminal of its own, which the session's
runner relays). When the supervisor's question ("Type yes") shows, types
ANSWER and Enter (ANSWER "^C": the interrupt key alone, and how long the
prompt took to close, denied_after_ms=N); when the agent prints "ready-for-input", types
"after-the-prompt" and Enter (the agent's terminal must work again after
the prompt). Prints everything the terminal showed, then "status=N".
With TOOLS_PTY_BEFORE set, that shell command runs on the host while the
question is up, before the answer (what the host does to a pending call).
"""
import os
import pty
import select
import subprocess
import sys
import time

QUESTION = b"Type yes"


def main():
    # "^C": the interrupt key alone, no Enter
    answer = b"\x03" if sys.argv[1] == "^C" else sys.argv[1].encode() + b"\r"
    ws, argv = sys.argv[2], sys.argv[3:]
    answered_at = closed_ms = None
    seen = 0
    pid, master = pty.fork()
    if pid == 0:
        os.chdir(ws)
        os.execv(argv[0], argv)
    screen = b""
    answered = typed = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            screen += chunk
        if not answered and QUESTION in screen:
            time.sleep(0.2)  # the prompt is reading now
            if os.environ.get("TOOLS_PTY_BEFORE"):
                subprocess.run(["sh", "-c", os.environ["TOOLS_PTY_BEFORE"]], check=False)
            os.write(master, answer)
            answered = True
            answered_at, seen = time.monotonic(), len(screen)
        if answered and closed_ms is None and b"cordon: denied" in screen[seen:]:
            closed_ms = int((time.monotonic() - answered_at) * 1000)
        if not typed and b"ready-for-input" in screen:
            os.write(master, b"after-the-prompt\r")
            typed = True
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(screen.decode("utf-8", "replace"))
    if closed_ms is not None:
        print("\ndenied_after_ms=%d" % closed_ms)
    print("\nstatus=%d" % os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
