#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cordon serve, end to end (TAP on stdout; serve.t runs it).

A served command's confinement is `cordon run`'s: the held suites' denial
cases (native-deny.t, persist.t, secrets.t) run through both, each beside a
control that makes the same attempt unconfined and succeeds, and the
verdicts, exit codes and denials must match, the host unchanged. Then the
session's own promises: several commands in flight, requests bounded by the
policy (env, timeout, output cap, line size), stdin, the shared private
/tmp, the end of stdin killing what runs, and the MCP transport
(initialize, tools/list, tools/call, notifications/cancelled).
"""
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

CORDON = os.environ["CORDON"]
SRC = os.environ.get("CORDON_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(SRC, "share", "cordon", "result.schema.json")) as _f:
    RESULT_KEYS = set(json.load(_f)["required"])
MUST = os.environ.get("CORDON_TEST_MUST_WORK") == "1"
n = 0
failed = 0


def ok(cond, desc, detail=""):
    global n, failed
    n += 1
    if cond:
        print(f"ok {n} - {desc}")
    else:
        failed += 1
        print(f"not ok {n} - {desc}")
        for line in str(detail).splitlines()[:40]:
            print(f"#   {line}")
    sys.stdout.flush()


class Serve:
    """One cordon serve session; results and events by id."""

    def __init__(self, args, cwd, env, mcp=False, stderr=subprocess.PIPE):
        self.p = subprocess.Popen([CORDON, "serve", *(["--mcp"] if mcp else []), *args], cwd=cwd, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self.buf = b""
        self.lines = []

    def send(self, obj):
        data = obj if isinstance(obj, bytes) else (json.dumps(obj) + "\n").encode()
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def _pump(self, deadline):
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line, self.buf = self.buf[:nl], self.buf[nl + 1:]
                self.lines.append(json.loads(line))
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return False
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return False
            self.buf += chunk

    def wait_for(self, pred, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.lines):
                if pred(m):
                    return self.lines.pop(i)
            if not self._pump(deadline):
                return None

    def result(self, rid, timeout=20):
        """The run --json object of rid's result, or its error line."""
        m = self.wait_for(lambda m: m.get("id") == rid and ("result" in m or "error" in m), timeout)
        if m and "result" in m:
            ok(set(m) == {"id", "result"} and set(m["result"]) == RESULT_KEYS,
               f"result of {rid!r}: {{id, result}}, result exactly run --json's fields", json.dumps(m)[:600])
            return m["result"]
        return m

    def events(self, rid):
        return [m for m in self.lines if m.get("id") == rid and "stream" in m]

    def close(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        err = self.p.stderr.read() if self.p.stderr else b""
        return self.p.returncode, err.decode(errors="replace")


def crun(args, argv, cwd, env):
    p = subprocess.run([CORDON, "run", "--json", *args, "--", *argv], cwd=cwd, env=env, capture_output=True,
                       timeout=60)
    return json.loads(p.stdout)


def denials_of(res):
    return sorted((d.get("kind"), d.get("path"), d.get("rule")) for d in res.get("denials") or [])


def pids_with(marker):
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    return [p for p in out if p.isdigit()]


def main():
    base = tempfile.mkdtemp(prefix="cordon-serve.", dir="/var/tmp")
    os.chmod(base, 0o755)
    try:
        run_all(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"1..{n}")
    sys.exit(1 if failed else 0)


def run_all(base):
    home = os.path.join(base, "home")
    ws = os.path.join(base, "ws")
    outside = os.path.join(base, "outside")
    for d in (home + "/.ssh", home + "/.aws", ws, outside):
        os.makedirs(d)
    with open(home + "/.ssh/id_ed25519", "w") as f:
        f.write("-----BEGIN OPENSSH PRIVATE KEY----- cordon-serve-key\n")
    with open(home + "/.aws/credentials", "w") as f:
        f.write("[default]\naws_secret_access_key = cordon-serve-aws\n")
    with open(home + "/.bashrc", "w") as f:
        f.write("# rc\n")
    subprocess.run(["git", "-C", ws, "init", "-q"], check=True)
    env = {k: v for k, v in os.environ.items() if k != "TMPDIR"}
    env["HOME"] = home

    # a host listener the sandbox's own loopback must not reach
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(8)
    port = lsock.getsockname()[1]
    connect = ["/usr/bin/python3", "-c",
               f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')"]

    # (description, argv, host path that must stay absent or unchanged)
    cases = [
        ("write outside the workspace", ["sh", "-c", f"echo x > {outside}/new"], f"{outside}/new"),
        ("read a catalogue secret (~/.ssh)", ["cat", f"{home}/.ssh/id_ed25519"], None),
        ("read a catalogue secret (~/.aws)", ["cat", f"{home}/.aws/credentials"], None),
        ("network under --net none (host loopback)", connect, None),
        ("persistence write .git/hooks", ["sh", "-c", "echo x > .git/hooks/pre-commit"], f"{ws}/.git/hooks/pre-commit"),
        ("persistence write .git/config", ["sh", "-c", "echo x >> .git/config"], None),
        ("write the shell rc outside the workspace", ["sh", "-c", f"echo x >> {home}/.bashrc"], None),
    ]
    if os.geteuid() == 0:  # only root's control can write there
        cases.append(("write under /etc", ["sh", "-c", "echo x > /etc/cordon-serve-test"], "/etc/cordon-serve-test"))
    gitconfig = open(f"{ws}/.git/config").read()

    # controls: each attempt, unconfined, succeeds (so the attempt is real)
    for desc, argv, path in cases:
        p = subprocess.run(argv, cwd=ws, env=env, capture_output=True)
        ok(p.returncode == 0, f"control: {desc} works unconfined", p.stderr.decode(errors="replace"))
        if path and os.path.exists(path):
            os.unlink(path)
    with open(f"{ws}/.git/config", "w") as f:
        f.write(gitconfig)
    with open(home + "/.bashrc", "w") as f:
        f.write("# rc\n")

    s = Serve(["--net", "none"], ws, env)
    for i, (desc, argv, path) in enumerate(cases):
        s.send({"id": f"case{i}", "argv": argv})
    for i, (desc, argv, path) in enumerate(cases):
        got = s.result(f"case{i}")
        want = crun(["--net", "none"], argv, ws, env)
        good = got is not None and "verdict" in got
        ok(good and got["verdict"] == want["verdict"] and got["exit_code"] == want["exit_code"]
           and got["exit_code"] not in (0, None),
           f"served: {desc}: refused, with cordon run's verdict ({want['verdict']}) and exit ({want['exit_code']})",
           f"serve: {json.dumps(got)[:1500]}\nrun: {json.dumps(want)[:1500]}")
        ok(good and denials_of(got) == denials_of(want), f"served: {desc}: the same denials as cordon run",
           f"serve: {denials_of(got) if got else None}\nrun: {denials_of(want)}")
        if path:
            ok(not os.path.exists(path), f"served: {desc}: nothing made on the host")
    ok(open(f"{ws}/.git/config").read() == gitconfig, "served: .git/config unchanged on the host")
    ok(open(home + "/.bashrc").read() == "# rc\n", "served: ~/.bashrc unchanged on the host")

    # the same cases under light isolation (Landlock and seccomp without
    # namespaces): a served command is confined as cordon run's there too
    light = Serve(["--net", "none", "--isolation", "light"], ws, env)
    for i, (desc, argv, path) in enumerate(cases):
        light.send({"id": f"light{i}", "argv": argv})
    for i, (desc, argv, path) in enumerate(cases):
        got = light.result(f"light{i}")
        want = crun(["--net", "none", "--isolation", "light"], argv, ws, env)
        ok(got and got.get("verdict") == want["verdict"] and got.get("exit_code") == want["exit_code"]
           and denials_of(got) == denials_of(want),
           f"served (light): {desc}: cordon run's verdict ({want['verdict']}), exit ({want['exit_code']}) and denials",
           f"serve: {json.dumps(got)[:1200]}\nrun: {json.dumps(want)[:1200]}")
        # light isolation gives up the persistence protections (documented;
        # cordon run's verdict above is the same): only the others' paths
        if path and "/.git/" not in path:
            ok(not os.path.exists(path), f"served (light): {desc}: nothing made on the host")
        if path and "/.git/" in path and os.path.exists(path):
            os.unlink(path)
    light.close()
    with open(f"{ws}/.git/config", "w") as f:
        f.write(gitconfig)

    # re-validated per command: credential stores created in HOME after the
    # session started stay hidden (no rule of the session's ruleset names
    # them), as a fresh cordon run hides them
    os.makedirs(home + "/.config/gh")
    os.makedirs(home + "/.kube")
    late = {home + "/.config/gh/hosts.yml": "gh-token-late\n", home + "/.netrc": "machine x password late\n",
            home + "/.kube/config": "kube-late\n"}
    for path, text in late.items():
        with open(path, "w") as f:
            f.write(text)
    for i, path in enumerate(late):
        ctl = subprocess.run(["cat", path], env=env, capture_output=True, text=True)
        s.send({"id": f"late{i}", "argv": ["cat", path]})
        got = s.result(f"late{i}")
        want = crun(["--net", "none"], ["cat", path], ws, env)
        ok(ctl.returncode == 0 and got and got.get("verdict") == "denied" and want["verdict"] == "denied"
           and late[path].strip() not in json.dumps(got),
           f"a store made after the session started stays hidden: {path[len(home):]}", json.dumps(got)[:600])
    with open(home + "/notes.txt", "w") as f:
        f.write("plain\n")
    s.send({"id": "late-plain", "argv": ["cat", home + "/notes.txt"]})
    got = s.result("late-plain")
    ok(got and got.get("verdict") == "denied" and any("after this cordon serve session started" in h for h in got["hints"]),
       "a HOME entry made after the start is unreadable in the session, and the result says why", json.dumps(got)[:800])

    # allowed: the workspace is writable, as under cordon run
    s.send({"id": "w", "argv": ["sh", "-c", "echo served > out.txt && cat out.txt"]})
    got = s.result("w")
    ok(got and got.get("verdict") == "ok" and got.get("exit_code") == 0 and os.path.exists(f"{ws}/out.txt"),
       "served: a workspace write works (control)", json.dumps(got)[:800])
    ok(any(e["data"] == "served\n" and e["stream"] == "stdout" for e in s.events("w")) or got.get("output") == "served\n",
       "served: output is streamed as events and kept in the result")

    # several in flight: three half-second sleeps end together
    t0 = time.monotonic()
    for k in range(3):
        s.send({"id": 100 + k, "argv": ["sh", "-c", f"sleep 0.5; echo {k}"]})
    res = [s.result(100 + k) for k in range(3)]
    took = time.monotonic() - t0
    ok(all(r and r.get("exit_code") == 0 for r in res) and took < 1.4,
       f"three commands in flight at once ({took:.2f} s for three 0.5 s sleeps)", json.dumps(res)[:800])

    # a command cannot take the server's or its reaper's fds (the socket
    # every request passes through, the command's control socket); the
    # same call on a process of its own works (control)
    steal = os.path.join(ws, "steal.py")
    with open(steal, "w") as f:
        f.write("""import ctypes, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
def take(pid):
    pfd = libc.syscall(434, pid, 0)  # pidfd_open
    return sum(1 for fd in range(3, 16) if pfd >= 0 and libc.syscall(438, pfd, fd, 0) >= 0)  # pidfd_getfd
reaper = os.getppid()
server = int(open(f"/proc/{reaper}/stat").read().rsplit(")", 1)[1].split()[1])
r, w = os.pipe()
child = subprocess.Popen(["sleep", "5"], pass_fds=(r, w))
import time; time.sleep(0.2)
print(f"server={take(server)} reaper={take(reaper)} own={take(child.pid)}")
child.kill()
""")
    s.send({"id": "steal", "argv": ["python3", steal]})
    got = s.result("steal")
    out = got.get("output", "") if got else ""
    # the seccomp filter refuses pidfd_getfd to every sandboxed process,
    # its own child's included; the control is the same script unconfined
    ctl = subprocess.run(["python3", steal], capture_output=True, text=True, cwd=ws).stdout
    ok("server=0 reaper=0 own=0" in out and "own=0" not in ctl and "own=" in ctl,
       "a command cannot take the server's, its reaper's or any fds (pidfd_getfd); unconfined, the same script "
       "takes its own child's (control)", out + " | unconfined: " + ctl)

    # each command has a Landlock domain of its own: another command of the
    # session cannot take its fds or signal it (the same calls on its own
    # child work: the control above)
    sib = os.path.join(ws, "sib.py")
    with open(sib, "w") as f:
        f.write("""import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
pfd = libc.syscall(434, pid, 0)
got = sum(1 for fd in range(0, 8) if pfd >= 0 and libc.syscall(438, pfd, fd, 0) >= 0)
try:
    os.kill(pid, 0); k = "signal-ok"
except OSError as e:
    k = f"signal-{e.errno}"
print(f"getfd={got} {k}")
""")
    s.send({"id": "sib-a", "argv": ["sh", "-c", "echo $$; exec sleep 30"]})
    ev = s.wait_for(lambda m: m.get("id") == "sib-a" and m.get("stream") == "stdout")
    s.send({"id": "sib-b", "argv": ["python3", sib, ev["data"].strip() if ev else "1"]})
    got = s.result("sib-b")
    abi = json.loads(subprocess.run([CORDON, "probe", "--json"], capture_output=True, text=True).stdout)["kernel"]["landlock_abi"]
    want_sig = "signal-1" if abi >= 6 else "signal-ok"  # Landlock's signal scope came with ABI 6
    ok(got and got.get("output") == f"getfd=0 {want_sig}\n",
       f"a command cannot take another command's fds{' nor signal it' if abi >= 6 else ''} (a domain of its own)",
       json.dumps(got)[:500])
    s.send({"id": "sib-self", "argv": ["sh", "-c", f"sleep 5 & python3 {sib} $!"]})
    got = s.result("sib-self")
    # its own child: the signal goes through (the control for the domain's
    # signal scope); its fds are refused by the filter, as everywhere
    ok(got and got.get("output", "").startswith("getfd=0 signal-ok"),
       "a command signals its own child (control); pidfd_getfd stays refused even there", json.dumps(got)[:500])

    # nor read what only a process of its domain (or a tracer) may: another
    # command's /proc/PID/environ (Landlock's ptrace rule between domains;
    # the command's own domain adds no rule of its own); its own child's it
    # reads (control)
    peek = os.path.join(ws, "peek.py")
    with open(peek, "w") as f:
        f.write("""import sys
try:
    open(f"/proc/{sys.argv[1]}/environ", "rb").read(); print("environ-ok")
except OSError as e:
    print(f"environ-{e.errno}")
""")
    s.send({"id": "peek-a", "argv": ["sh", "-c", "echo $$; exec sleep 30"]})
    ev = s.wait_for(lambda m: m.get("id") == "peek-a" and m.get("stream") == "stdout")
    s.send({"id": "peek-b", "argv": ["python3", peek, ev["data"].strip() if ev else "1"]})
    got = s.result("peek-b")
    ok(got and got.get("output") == "environ-13\n", "a command cannot read another command's /proc/PID/environ",
       json.dumps(got)[:500])
    s.send({"id": "peek-self", "argv": ["sh", "-c", f"sleep 5 & python3 {peek} $!"]})
    got = s.result("peek-self")
    ok(got and got.get("output") == "environ-ok\n", "a command reads its own child's /proc/PID/environ (control)",
       json.dumps(got)[:500])

    # the session's private /tmp is shared by its commands, never the host's
    s.send({"id": "t1", "argv": ["sh", "-c", "echo shared > /tmp/cordon-serve-shared"]})
    s.result("t1")
    s.send({"id": "t2", "argv": ["cat", "/tmp/cordon-serve-shared"]})
    got = s.result("t2")
    ok(got and got.get("output") == "shared\n", "the session's commands share its private /tmp", json.dumps(got)[:500])
    ok(not os.path.exists("/tmp/cordon-serve-shared"), "the session's /tmp is not the host's")

    # stdin
    s.send({"id": "in", "argv": ["cat"], "stdin": "from the request\n"})
    got = s.result("in")
    ok(got and got.get("output") == "from the request\n", "stdin from the request", json.dumps(got)[:500])

    # env: cordon's variables are refused; an allowed name passes
    for name in ("CORDON_SANDBOX", "CORDON_ANYTHING", "HTTPS_PROXY", "http_proxy", "No_Proxy", "LD_PRELOAD", "NOT_ALLOWED_NAME"):
        s.send({"id": f"env-{name}", "argv": ["true"], "env": {name: "x"}})
        got = s.result(f"env-{name}")
        why = "cordon sets it itself" if name.lower().endswith("_proxy") else ""
        ok(got and "error" in got and name in got["error"]["message"] and why in got["error"]["message"],
           f"env: {name} cannot be set by a request", json.dumps(got)[:500])
    s.send({"id": "env-ok", "argv": ["sh", "-c", "echo $LANG $CORDON_SANDBOX"], "env": {"LANG": "C.serve"}})
    got = s.result("env-ok")
    ok(got and got.get("output", "").startswith("C.serve 1"), "env: an allowed name passes (control); CORDON_SANDBOX is cordon's",
       json.dumps(got)[:500])

    # working directory: absolute, existing, seen the same inside
    s.send({"id": "cwd", "argv": ["pwd"], "cwd": outside})
    got = s.result("cwd")
    ok(got and got.get("output") == outside + "\n", "cwd: a directory the sandbox sees", json.dumps(got)[:500])
    s.send({"id": "cwd-rel", "argv": ["pwd"], "cwd": "relative"})
    got = s.result("cwd-rel")
    ok(got and "error" in got, "cwd: a relative path is refused", json.dumps(got)[:300])
    s.send({"id": "cwd-file", "argv": ["pwd"], "cwd": f"{ws}/.git/config"})
    got = s.result("cwd-file")
    ok(got and "error" in got and "Not a directory" in got["error"]["message"], "cwd: a file is refused",
       json.dumps(got)[:300])
    s.send({"id": "cwd-tmp", "argv": ["pwd"], "cwd": "/tmp"})
    got = s.result("cwd-tmp")
    ok(got and got.get("verdict") == "runner_failed" and "chdir" in (got.get("runner_line") or ""),
       "cwd: the host's /tmp (not the sandbox's) is refused by identity", json.dumps(got)[:500])

    # malformed and oversized lines
    s.send(b"{not json\n")
    got = s.wait_for(lambda m: "error" in m and m.get("id") is None)
    ok(got and "not JSON" in got["error"]["message"], "a malformed line gets an error naming it", json.dumps(got))
    s.send({"id": "unk", "argv": ["true"], "timeuot": 3})
    got = s.result("unk")
    ok(got and "timeuot" in got["error"]["message"], "an unknown key is refused by name", json.dumps(got))
    s.send(b'{"id":"big","argv":["' + b"a" * (1024 * 1024 + 10) + b'"]}\n')
    got = s.wait_for(lambda m: "error" in m and "over" in m["error"]["message"])
    ok(got is not None, "an oversized line gets an error naming the cap", json.dumps(got)[:300])
    s.send({"id": "after", "argv": ["echo", "still"]})
    got = s.result("after")
    ok(got and got.get("output") == "still\n", "the session goes on after bad lines")

    # a command's end ends what it started, as `cordon run`'s does: a
    # background child, an orphan reparented to the command's reaper, and
    # a grandchild whose parent still lives (the reaper then has a child
    # left, and walks the tree); unconfined, each one outlives its shell
    for k, what, script in ((3031, "a background child", "sleep 3031 >/dev/null 2>&1 & echo started"),
                            (3032, "an orphan in a session of its own",
                             "(setsid sleep 3032 >/dev/null 2>&1 &); echo started"),
                            (3033, "a grandchild under a living parent",
                             "sh -c 'sleep 3033; true' >/dev/null 2>&1 & echo started")):
        subprocess.run(["sh", "-c", script], cwd=ws, capture_output=True, timeout=30)
        time.sleep(0.2)
        left = pids_with(f"sleep {k}")
        for pid in left:
            os.kill(int(pid), signal.SIGKILL)
        s.send({"id": f"outlive-{k}", "argv": ["sh", "-c", script]})
        got = s.result(f"outlive-{k}")
        ok(len(left) >= 1 and got and got.get("output") == "started\n" and not pids_with(f"sleep {k}"),
           f"a command's end kills what it started ({what}); unconfined it outlives its shell (control)", f"control left {left}; now {pids_with(f'sleep {k}')} {json.dumps(got)[:300]}")

    # the end of stdin ends the session and everything in it
    s.send({"id": "bg", "argv": ["sh", "-c", "sleep 3017 & sleep 3017"]})
    time.sleep(0.5)
    ok(len(pids_with("sleep 3017")) >= 1, "a command is running before the end (control)")
    rc, err = s.close()
    time.sleep(0.3)
    ok(rc == 0 and not pids_with("sleep 3017"), "the end of stdin kills what runs; nothing outlives the session",
       f"rc {rc} left {pids_with('sleep 3017')} {err}")

    # SIGTERM ends the session the same way, under light isolation too
    for iso in ("full", "light"):
        s = Serve(["--isolation", iso], ws, env)
        s.send({"id": "bg", "argv": ["sh", "-c", "sleep 3027 & sleep 3027"]})
        time.sleep(0.5)
        running = len(pids_with("sleep 3027"))
        s.p.terminate()
        got = s.result("bg", timeout=10)
        rc, err = s.close()
        time.sleep(0.3)
        ok(running >= 1 and got and got.get("signal") == 9 and rc == 128 + 15 and not pids_with("sleep 3027"),
           f"SIGTERM to cordon serve ({iso}): its commands' results come, killed, nothing outlives it",
           f"running {running} rc {rc} got {json.dumps(got)[:300]} left {pids_with('sleep 3027')} {err}")

    # the terminal cordon serve's stderr is on is no way out for a command
    # (light isolation would grant a stdio terminal by name)
    import pty
    for iso in ("full", "light"):
        master, slave = pty.openpty()
        tty = os.ttyname(slave)
        ctl = subprocess.run(["sh", "-c", f"echo control > {tty}"], capture_output=True)
        s = Serve(["--isolation", iso], ws, env, stderr=slave)
        s.send({"id": "tty", "argv": ["sh", "-c", f"echo planted > {tty}"]})
        got = s.result("tty")
        s.close()
        os.close(slave)
        seen = b""
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        ok(ctl.returncode == 0 and b"control" in seen and got and got.get("exit_code") != 0 and b"planted" not in seen,
           f"a command cannot write to cordon serve's terminal ({iso})", f"{json.dumps(got)[:400]} seen {seen[:200]!r}")

    # bounds: timeout and output cap no larger than the session's
    s = Serve(["--timeout", "2", "--max-output", "1k", "--max-file-size", "1k"], ws, env)
    # the session's rlimits bind each command as cordon run's bind its one
    big = ["sh", "-c", "head -c 5000 /dev/zero > big.bin"]
    s.send({"id": "fsize", "argv": big})
    got = s.result("fsize")
    want = crun(["--max-file-size", "1k"], big, ws, env)
    ctl = subprocess.run(big, cwd=ws, env=env, capture_output=True)
    keys = ("verdict", "exit_code", "signal", "limit", "limit_mechanism")
    ok(ctl.returncode == 0 and got and all(got.get(k) == want.get(k) for k in keys) and got["verdict"] == "limit_exceeded",
       "--max-file-size binds a served command as it binds cordon run's",
       f"serve {[got.get(k) for k in keys] if got else None} run {[want.get(k) for k in keys]}")
    os.unlink(os.path.join(ws, "big.bin"))
    s.send({"id": "t-over", "argv": ["true"], "timeout": 5})
    got = s.result("t-over")
    ok(got and "error" in got and "timeout" in got["error"]["message"], "timeout over the session's is refused",
       json.dumps(got))
    s.send({"id": "t-in", "argv": ["sleep", "5"], "timeout": 0.3})
    got = s.result("t-in")
    ok(got and got.get("verdict") == "timeout" and got.get("exit_code") == 124, "a request's own timeout fires",
       json.dumps(got)[:500])
    s.send({"id": "t-sess", "argv": ["sleep", "5"]})
    got = s.result("t-sess")
    ok(got and got.get("verdict") == "timeout", "the session's timeout binds a request without one", json.dumps(got)[:500])
    s.send({"id": "c-over", "argv": ["true"], "max_output": 4096})
    got = s.result("c-over")
    ok(got and "error" in got and "max_output" in got["error"]["message"], "an output cap over the session's is refused",
       json.dumps(got))
    s.send({"id": "c-in", "argv": ["sh", "-c", "head -c 100 /dev/zero | tr '\\0' a"], "max_output": 10})
    got = s.result("c-in")
    ok(got and got.get("output") == "a" * 10 and got.get("output_bytes") == 100 and got.get("truncated") is True,
       "a request's own cap keeps 10 of 100 bytes", json.dumps(got)[:500])
    s.close()

    # --max-processes: each served command in a pids cgroup of its own
    # (a child of none of the others), reported as cordon run reports it;
    # where this user has no pids cgroup, refused as cordon run refuses it
    forks = ["sh", "-c", "i=0; while [ $i -lt 24 ]; do sleep 2 & i=$((i+1)); done; wait"]
    few = ["sh", "-c", "sleep 0.2 & sleep 0.2 & wait; echo fine"]
    want = crun(["--max-processes", "8"], forks, ws, env)
    s = Serve(["--max-processes", "8"], ws, env)
    if want.get("verdict") == "refused":
        rc, err = s.close()
        ok(rc == 125 and "pids cgroup" in err, "no pids cgroup here: serve --max-processes is refused as run's",
           f"{rc} {err[:300]}")
    else:
        keys = ("limit", "limit_mechanism")
        for round_ in range(2):
            s.send({"id": f"pf{round_}", "argv": forks})
            got = s.result(f"pf{round_}")
            ok(got and all(got.get(k) == want.get(k) for k in keys) and got["limit"] == "processes",
               f"--max-processes binds served command {round_ + 1} as it binds cordon run's (its own count)",
               f"serve {json.dumps(got)[:300]} run {[want.get(k) for k in keys]}")
            s.send({"id": f"pk{round_}", "argv": few})
            got = s.result(f"pk{round_}")
            ok(got and got.get("exit_code") == 0 and got.get("limit") is None,
               f"control: 3 processes under --max-processes 8 run (round {round_ + 1})", json.dumps(got)[:300])
        s.close()

    # a profile with command_policies runs under the supervisor (its broker
    # and tool sandboxes); a session carries none: refused, with the reason
    prof = os.path.join(base, "tools-profile.json")
    with open(prof, "w") as f:
        json.dump({"extends": "default", "command_policies": {"commands": {"git": {}}}}, f)
    p = subprocess.run([CORDON, "serve", "--profile", prof], cwd=ws, env=env, input=b"", capture_output=True,
                       timeout=30)
    ok(p.returncode == 125 and b"command_policies" in p.stderr and b"supervisor" in p.stderr,
       "a profile with command_policies is refused by cordon serve, with the reason",
       f"{p.returncode} {p.stderr[:400]!r}")

    # MCP
    s = Serve(["--net", "none"], ws, env, mcp=True)
    s.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    got = s.wait_for(lambda m: m.get("id") == 1)
    ok(got and got["result"]["protocolVersion"] == "2025-06-18" and "tools" in got["result"]["capabilities"],
       "mcp: initialize", json.dumps(got))
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    s.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    got = s.wait_for(lambda m: m.get("id") == 2)
    ok(got and [t["name"] for t in got["result"]["tools"]] == ["run_command"], "mcp: tools/list", json.dumps(got))
    s.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "run_command", "arguments": {"command": "echo hello mcp"}}})
    got = s.wait_for(lambda m: m.get("id") == 3)
    ok(got and got["result"]["content"][0]["text"] == "hello mcp\n" and got["result"]["isError"] is False
       and got["result"]["structuredContent"]["verdict"] == "ok", "mcp: tools/call runs the command", json.dumps(got))
    s.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "run_command", "arguments": {"command": f"cat {home}/.ssh/id_ed25519"}}})
    got = s.wait_for(lambda m: m.get("id") == 4)
    ok(got and got["result"]["isError"] is True and got["result"]["structuredContent"]["verdict"] == "denied"
       and "cordon-serve-key" not in json.dumps(got), "mcp: a catalogue secret is denied", json.dumps(got)[:800])
    s.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "run_command", "arguments": {"command": "sleep 3018 & sleep 3018"}}})
    time.sleep(0.5)
    ok(len(pids_with("sleep 3018")) >= 1, "mcp: the command to cancel runs (control)")
    s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "test"}})
    time.sleep(0.5)
    ok(not pids_with("sleep 3018"), "mcp: cancellation kills the command's whole tree", str(pids_with("sleep 3018")))
    s.send({"jsonrpc": "2.0", "id": 6, "method": "ping"})
    got = s.wait_for(lambda m: m.get("id") in (5, 6))
    ok(got and got.get("id") == 6 and got.get("result") == {}, "mcp: no reply for the cancelled call; ping answers",
       json.dumps(got))
    s.send({"jsonrpc": "2.0", "id": 7, "method": "nope"})
    got = s.wait_for(lambda m: m.get("id") == 7)
    ok(got and got["error"]["code"] == -32601, "mcp: an unknown method is -32601", json.dumps(got))
    s.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "run_command", "arguments": {}}})
    got = s.wait_for(lambda m: m.get("id") == 8)
    ok(got and got["error"]["code"] == -32602, "mcp: a call without a command is -32602", json.dumps(got))
    s.close()
    lsock.close()

    # the example client drives the same session
    example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "serve_client.py")
    p = subprocess.run([sys.executable, example, CORDON], cwd=ws, env=env, capture_output=True, text=True, timeout=60)
    ok(p.returncode == 0 and "ok exit=0" in p.stdout and "denied exit=" in p.stdout and "refused:" in p.stdout,
       "examples/serve_client.py runs, is denied, is refused", p.stdout + p.stderr)

    # the library's session through ctypes (examples/session.py): the warm
    # path for programs on the C API, confined and classified the same
    lib = os.path.join(os.path.dirname(os.path.realpath(CORDON)), "..", "lib", "libcordon.so")
    example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "session.py")
    if os.path.exists(lib):
        p = subprocess.run([sys.executable, example, lib, CORDON], cwd=ws, env=env, capture_output=True, text=True,
                           timeout=60)
        ok(p.returncode == 0 and "ok exit=0 verdict=ok output='hello'" in p.stdout and "shared /tmp: 'warm'" in p.stdout
           and "verdict=denied" in p.stdout and not os.path.exists("/etc/cordon-example"),
           "examples/session.py (ctypes): runs, shares /tmp, is denied", p.stdout + p.stderr)
    else:
        ok(not MUST, "examples/session.py: no libcordon.so beside the binary", lib)


if __name__ == "__main__":
    main()
