# SPDX-License-Identifier: LGPL-2.1-or-later
"""Cases for terminal.t, each driven through a real pty this script owns.

    pty_cases.py CASE BASE [PREFIX... --]

PREFIX is what runs the command (cordon run ... --), or nothing for the
unconfined control. Exit 0: the case held; 1: it did not (why on stdout).
"""
import fcntl, os, pty, re, select, shutil, signal, struct, sys, termios, time


class Session:
    """A command on a fresh pty: type into it, wait for what it prints."""

    def __init__(self, argv, rows=24, cols=80, cwd=None):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            if cwd:
                os.chdir(cwd)
            os.execvp(argv[0], argv)
        self.resize(rows, cols)
        self.out, self.pos, self.code = b"", 0, None

    def resize(self, rows, cols):
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def pump(self, t):
        """Read what comes within t seconds: False once the pty has ended."""
        r, _, _ = select.select([self.fd], [], [], t)
        if not r:
            return True
        try:
            d = os.read(self.fd, 65536)
        except OSError:
            return False
        self.out += d
        return bool(d)

    def expect(self, pattern, timeout=15):
        rx = re.compile(pattern.encode())
        end = time.time() + timeout
        while True:
            m = rx.search(self.out, self.pos)
            if m:
                self.pos = m.end()
                return m
            if time.time() > end or not self.pump(0.05):
                fail("no %r in the output:\n%s" % (pattern, self.text()))

    def quiet_for(self, seconds):
        """Read for that long; True if nothing ended the command meanwhile."""
        end = time.time() + seconds
        while time.time() < end:
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                self.code = -1
                return False
            self.pump(0.05)
        return True

    def send(self, data):
        os.write(self.fd, data.encode())

    def wait(self, timeout=15):
        end = time.time() + timeout
        while time.time() < end:
            p, st = os.waitpid(self.pid, os.WNOHANG)
            if p:
                while self.pump(0.05):
                    pass
                self.code = os.waitstatus_to_exitcode(st)
                return self.code
            self.pump(0.05)
        os.kill(self.pid, signal.SIGKILL)
        fail("the command did not end; output:\n" + self.text())

    def text(self):
        return self.out.decode(errors="replace")

    def outer_tty(self):
        """The pty's slave (what the command was started on): its path and (st_dev, st_ino)."""
        n = struct.unpack("I", fcntl.ioctl(self.fd, getattr(termios, "TIOCGPTN", 0x80045430), b"\0" * 4))[0]
        st = os.stat("/dev/pts/%d" % n)
        return "/dev/pts/%d" % n, (st.st_dev, st.st_ino)


def fail(msg):
    print(msg)
    sys.exit(1)


def descendants(pid):
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(p))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


SHELL = ["env", "PS1=PROMPT$ ", "bash", "--norc", "--noprofile", "-i"]


def case_prompt(base, prefix):
    """bash -i: a prompt, job control on, a tty on every stdio fd, /dev/tty opens, ^D ends it."""
    s = Session(prefix + SHELL)
    s.expect(r"PROMPT\$ ")
    s.send("tty; for fd in 0 1 2; do test -t $fd && echo tty-$fd; done\r")
    s.expect(r"/dev/pts/\d+")
    s.expect(r"tty-0\r\ntty-1\r\ntty-2")
    s.send("echo via-dev-tty > /dev/tty && echo devtty-ok\r")
    s.expect(r"via-dev-tty\r\ndevtty-ok")
    # typed only at the prompt: a ^D typed while bash still has the pty in
    # canonical mode is an end of file readline never sees
    s.expect(r"PROMPT\$ ")
    s.send("\x04")
    if s.wait() != 0:
        fail("^D: exit %d, not 0:\n%s" % (s.code, s.text()))
    if "no job control" in s.text() or "cannot set terminal process group" in s.text():
        fail("bash has no job control:\n" + s.text())


def case_jobs(base, prefix):
    """^Z stops the foreground job, bg and fg move it, ^C ends it (130), ^D ends the shell."""
    s = Session(prefix + SHELL)
    s.expect(r"PROMPT\$ ")
    s.send("sleep 60\r")
    time.sleep(0.5)
    s.send("\x1a")
    s.expect(r"Stopped\s+sleep 60")
    s.expect(r"PROMPT\$ ")
    s.send("bg\r")
    s.expect(r"sleep 60 &")
    s.expect(r"PROMPT\$ ")
    s.send("jobs\r")
    s.expect(r"Running\s+sleep 60")
    s.expect(r"PROMPT\$ ")
    s.send("fg\r")
    time.sleep(0.5)
    s.send("\x03")
    s.expect(r"PROMPT\$ ")
    s.send("echo status=$?\r")
    s.expect(r"status=130")
    s.expect(r"PROMPT\$ ")
    s.send("\x04")
    if s.wait() != 0:
        fail("exit %d:\n%s" % (s.code, s.text()))


def case_pager(base, prefix):
    """git log pages through less, which waits for its keys from /dev/tty: q ends it, exit 0."""
    s = Session(prefix + ["git", "-C", base + "/repo", "log", "--oneline"], rows=10)
    s.expect(r"commit number 40")
    s.expect(r"\r\n:")
    if not s.quiet_for(1.0):
        fail("the pager did not wait for a key:\n" + s.text())
    if "commit number 1\x1b" in s.text() or "commit number 1\r" in s.text():
        fail("everything was printed, no pager:\n" + s.text())
    s.send("q")
    if s.wait() != 0:
        fail("exit %d after q:\n%s" % (s.code, s.text()))


def case_editor(base, prefix):
    """A full-screen editor (vi) edits and writes a file."""
    vi = shutil.which("vim.tiny") or shutil.which("vim") or shutil.which("vi")
    if not vi:
        fail("no vi installed (scripts/install-deps installs vim-tiny)")
    path = base + "/note.txt"
    if os.path.exists(path):
        os.unlink(path)
    s = Session(prefix + [vi, "-u", "NONE", "-N", "-n", "-i", "NONE", path], rows=20, cols=70)
    time.sleep(1.5)
    s.send("ihello from vi\x1b")
    time.sleep(0.3)
    s.send(":wq\r")
    if s.wait() != 0:
        fail("exit %d:\n%s" % (s.code, s.text()))
    with open(path) as f:
        if f.read() != "hello from vi\n":
            fail("the file does not hold what was typed")


RESIZE = r"""
import os, signal, time
n = 0
def winch(sig, frame):
    global n
    n += 1
    c, l = os.get_terminal_size()
    os.write(1, b"winch %d %d\n" % (l, c))
signal.signal(signal.SIGWINCH, winch)
c, l = os.get_terminal_size()
print("ready %d %d" % (l, c), flush=True)
t = time.time()
while time.time() - t < 2.5:
    time.sleep(0.05)
print("total %d" % n, flush=True)
"""


def case_resize(base, prefix):
    """The window size at start, and one SIGWINCH with the new size on a resize."""
    s = Session(prefix + [sys.executable, "-c", RESIZE], rows=24, cols=80)
    s.expect(r"ready 24 80")
    s.resize(30, 100)
    s.expect(r"winch 30 100")
    s.expect(r"total 1\b")
    if s.wait() != 0:
        fail("exit %d:\n%s" % (s.code, s.text()))


def case_denied(base, prefix):
    """A denial inside is still explained (the output passes through the relay)."""
    s = Session(prefix + ["touch", "/etc/cordon-pty-denied"])
    s.expect(r"Read-only file system|Permission denied")
    s.expect(r"\[cordon: access denied under workspace-write mode\]")
    if s.wait() != 1:
        fail("exit %d, not 1:\n%s" % (s.code, s.text()))


def fresh_settings():
    """What every new pty starts with: what the caller's terminal must be again."""
    m, sl = os.openpty()
    t = termios.tcgetattr(sl)
    os.close(m)
    os.close(sl)
    return t


def case_restored(base, prefix):
    """The terminal is as it was afterwards (stty -a before and after, in
    the shell that ran cordon), and raw while the command ran."""
    cmd = " ".join("'%s'" % a for a in prefix + ["sh", "-c", "echo ran"])
    s = Session(["sh", "-c", "stty -a > %s/before; %s; stty -a > %s/after; echo done" % (base, cmd, base)])
    s.expect(r"ran")
    s.expect(r"done")
    s.wait()
    before, after = open(base + "/before").read(), open(base + "/after").read()
    if before != after:
        fail("stty -a differs:\n%s\n---\n%s" % (before, after))


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def parent_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def raw_while_running(prefix):
    s = Session(prefix + ["sh", "-c", "echo ready; exec sleep 30"])
    s.expect(r"ready")
    time.sleep(0.3)
    if termios.tcgetattr(s.fd)[3] & (termios.ICANON | termios.ECHO | termios.ISIG):
        fail("the terminal is not raw while the command runs")
    return s


def settings_back(s, how):
    end = time.time() + 3
    while time.time() < end and termios.tcgetattr(s.fd) != fresh_settings():
        time.sleep(0.05)
    if termios.tcgetattr(s.fd) != fresh_settings():
        fail("after %s the terminal was left as %r, not %r" % (how, termios.tcgetattr(s.fd), fresh_settings()))


def case_kill_runner(base, prefix):
    """SIGKILL of the runner (cordon run's child): cordon run puts the settings back."""
    s = raw_while_running(prefix)
    runner = [p for p in descendants(s.pid) if parent_of(p) == s.pid]
    if not runner:
        fail("no runner under cordon run")
    os.kill(runner[0], signal.SIGKILL)
    s.wait()
    settings_back(s, "the runner's SIGKILL")


def case_kill_cordon(base, prefix):
    """SIGKILL of cordon run itself: the runner (told by its parent-death
    signal) puts the settings back before it goes; SIGTERM: cordon run does.
    Either way nothing of the sandbox is left."""
    for sig in (signal.SIGKILL, signal.SIGTERM):
        s = raw_while_running(prefix)
        tree = descendants(s.pid)
        os.kill(s.pid, sig)
        s.wait()
        settings_back(s, signal.Signals(sig).name + " of cordon")
        end = time.time() + 3
        while True:
            left = [p for p in tree if alive(p)]
            if not left:
                break
            if time.time() > end:
                fail("after %s of cordon, still running: %s" % (signal.Signals(sig).name, left))
            time.sleep(0.05)


def case_outer_unreachable(base, prefix):
    """No process in the sandbox holds the caller's terminal (only the runner,
    outside, does), and writing to it by name fails."""
    s = Session(prefix + ["sh", "-c", "echo ready; exec sleep 30"])
    outer_path, outer = s.outer_tty()
    s.expect(r"ready")
    time.sleep(0.3)
    pids = descendants(s.pid)
    runner = [p for p in pids if parent_of(p) == s.pid]
    holders = []
    for p in pids:
        if p in runner:
            continue
        try:
            fds = os.listdir("/proc/%d/fd" % p)
        except OSError as e:
            fail("cannot list the fds of %d: %s" % (p, e))
        for fd in fds:
            try:
                st = os.stat("/proc/%d/fd/%s" % (p, fd))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == outer:
                holders.append("%d:%s" % (p, fd))
    if len(pids) < 2:
        fail("found no process in the sandbox (%s)" % pids)
    if holders:
        fail("the sandbox holds the caller's terminal: %s" % holders)
    os.kill(s.pid, signal.SIGTERM)
    s.wait()
    # By name: the caller's terminal's path (unless it names the sandbox's
    # own pty, as /dev/pts/0 of a devpts of its own may).
    w = Session(prefix + ["sh", "-c", 'ls /dev/pts | tr "\\n" " "; echo; if [ "$(tty)" = %s ]; then echo same-name; '
                          'else echo intruder > %s && echo wrote-outer; fi' % (outer_path, outer_path)])
    w.wait()
    if "wrote-outer" in w.text():
        fail("the command wrote to the caller's terminal %s by name:\n%s" % (outer_path, w.text()))
    if "same-name" not in w.text() and "intruder" in w.text().replace("echo intruder", ""):
        fail("the write reached the terminal:\n" + w.text())


def case_outer_writable(base, prefix):
    """Control: unconfined, the same write to the terminal by name works."""
    w = Session(["sh", "-c", "p=$(tty); echo written > $p && echo wrote-outer"])
    w.expect(r"wrote-outer")
    w.wait()


def case_max_output(base, prefix):
    """--max-output on a terminal: the command still has a tty, and at most
    that much of its output is shown."""
    s = Session(prefix + ["sh", "-c", "tty; head -c 20000 /dev/zero | tr '\\0' x; echo"])
    s.expect(r"/dev/pts/\d+")
    s.expect(r"output limit reached")
    s.wait()
    n = s.text().count("x")
    if n > 400 or n < 100:
        fail("%d bytes of x shown with --max-output 400:\n%s" % (n, s.text()[:600]))


def case_no_terminal(base, prefix):
    """Without a terminal of its own (--json, bwrap): no controlling
    terminal, so /dev/tty fails."""
    s = Session(prefix + ["sh", "-c", "echo x > /dev/tty || echo no-dev-tty"])
    s.expect(r"no-dev-tty")
    s.wait()


if __name__ == "__main__":
    case, base, prefix = sys.argv[1], sys.argv[2], sys.argv[3:]
    # what a terminal emulator sets (CI runs without one); cordon passes TERM
    os.environ["TERM"] = "xterm"
    globals()["case_" + case](base, prefix)
