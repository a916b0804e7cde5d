#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run approve-driver with a fresh pty as its controlling terminal and play
the person at that terminal.

    pty-answer.py [--answer TEXT] [--early TEXT] [--as-stdio] [--cooked] [--odd-keys]
                  SCREEN DRIVER ARGS...

The driver runs in a new session with stdin from /dev/null and stdout and
stderr to pipes (the agent's stdio, which the prompt must not use), and
`--tty PTY` so it takes the pty as its controlling terminal. With
--as-stdio the pty is its stdin instead, and it gets `--no-tty`: a
terminal that is only stdio, not the controlling one.

--early TEXT is typed at once, before any prompt; --answer TEXT once the
question ("Type yes") shows; each followed by Enter (a carriage return, as
a keyboard sends it). Everything the terminal shows goes to SCREEN
(raw bytes). Before the run the pty is put in raw mode (--cooked: left in
its first, line-by-line mode, where an early "yes" is a whole line waiting
to be read); afterwards "mode_restored=yes|no" says whether the mode is
still the one it was. --odd-keys sets the line's editing keys as an agent
sharing the terminal could: "y" ends a line, "s" erases it. Prints the driver's stdout,
then its stderr as "stderr=...", and exits with its status.
"""
import os
import select
import subprocess
import sys
import termios
import time
import tty

QUESTION = b"\nType yes"


def main():
    args = sys.argv[1:]
    answer = early = None
    as_stdio = cooked = odd_keys = False
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--answer":
            answer = args.pop(0).encode() + b"\r"
        elif opt == "--early":
            early = args.pop(0).encode() + b"\r"
        elif opt == "--as-stdio":
            as_stdio = True
        elif opt == "--cooked":
            cooked = True
        elif opt == "--odd-keys":
            odd_keys = True
        else:
            sys.exit("pty-answer.py: unknown option " + opt)
    screen_path, driver, rest = args[0], args[1], args[2:]

    try:
        master, slave = os.openpty()
    except OSError as e:
        print("skip=no pty: %s" % e)
        sys.exit(77)
    # raw, as an agent's full-screen interface would leave it
    if not cooked:
        tty.setraw(slave)
    if odd_keys:
        mode = termios.tcgetattr(slave)
        mode[6][termios.VEOL] = b"y"
        mode[6][termios.VKILL] = b"s"
        termios.tcsetattr(slave, termios.TCSANOW, mode)
    first_mode = termios.tcgetattr(slave)
    name = os.ttyname(slave)

    if as_stdio:
        proc = subprocess.Popen([driver, "--no-tty"] + rest, stdin=slave, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    else:
        proc = subprocess.Popen([driver, "--tty", name] + rest, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    if early:
        os.write(master, early)

    screen = b""
    answered = False
    deadline = time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                screen += os.read(master, 65536)
            except OSError:
                pass
        # the question follows the digest line (an argv may hold its words)
        if answer is not None and not answered and QUESTION in screen[screen.rfind(b"  digest:"):]:
            os.write(master, answer)
            answered = True
    if proc.poll() is None:
        proc.kill()
    out, err = proc.communicate()
    proc.wait()
    # what is left on the screen
    os.set_blocking(master, False)
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    with open(screen_path, "wb") as f:
        f.write(screen)

    restored = termios.tcgetattr(slave) == first_mode
    sys.stdout.write(out.decode("utf-8", "replace"))
    if err:
        sys.stdout.write("stderr=" + err.decode("utf-8", "replace").replace("\n", " ") + "\n")
    print("mode_restored=" + ("yes" if restored else "no"))
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
