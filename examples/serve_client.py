#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A small client for `cordon serve` (JSON lines), standard library only.

One Sandbox is one `cordon serve` session: one sandbox instance whose
commands share its private /tmp, each confined as `cordon run` with the same
options would confine it. run() sends one request and returns its result
(`cordon run --json`'s object); on_output, if given, sees the output as it
streams. Several commands may be in flight: submit() returns at once, and
result() waits for one of them.

    with Sandbox(["--net", "none"], cwd="/path/to/workspace") as sb:
        r = sb.run(["git", "status"])
        print(r["verdict"], r["exit_code"], r["output"])
        r = sb.run(["cat", "/home/me/.ssh/id_ed25519"])
        print(r["verdict"], r["denials"])       # denied, and why

Run it as a script for a demonstration: python3 serve_client.py [CORDON]
"""
import itertools
import json
import subprocess
import sys
import threading


class SandboxError(Exception):
    """The session refused a request (error.kind, error.message)."""


class Sandbox:
    def __init__(self, options=(), cwd=None, cordon="cordon"):
        self._p = subprocess.Popen([cordon, "serve", *options], cwd=cwd, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, bufsize=1)
        self._ids = itertools.count(1)
        self._lock = threading.Condition()
        self._results = {}
        self._listeners = {}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self._p.stdout:
            msg = json.loads(line)
            rid = msg.get("id")
            if "stream" in msg:
                fn = self._listeners.get(rid)
                if fn:
                    fn(msg["stream"], msg["data"])
                continue
            with self._lock:
                self._results[rid] = msg.get("result", msg)
                self._lock.notify_all()
        with self._lock:
            self._results[None] = {"error": {"kind": "ended", "message": "cordon serve ended"}}
            self._lock.notify_all()

    def submit(self, argv, cwd=None, env=None, stdin=None, timeout=None, max_output=None, on_output=None):
        """Start a command; returns its id."""
        rid = next(self._ids)
        req = {"id": rid, "argv": list(argv)}
        for key, val in (("cwd", cwd), ("env", env), ("stdin", stdin), ("timeout", timeout),
                         ("max_output", max_output)):
            if val is not None:
                req[key] = val
        if on_output:
            self._listeners[rid] = on_output
        self._p.stdin.write(json.dumps(req) + "\n")
        self._p.stdin.flush()
        return rid

    def result(self, rid):
        """Wait for the command's result; SandboxError if it was refused."""
        with self._lock:
            while rid not in self._results and None not in self._results:
                self._lock.wait()
            msg = self._results.pop(rid, None) or self._results[None]
        self._listeners.pop(rid, None)
        if "error" in msg and "verdict" not in msg:
            raise SandboxError(f"{msg['error']['kind']}: {msg['error']['message']}")
        return msg

    def run(self, argv, **kw):
        return self.result(self.submit(argv, **kw))

    def close(self):
        """End the session: whatever still runs in it is killed."""
        if self._p.stdin:
            self._p.stdin.close()
        self._p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main():
    cordon = sys.argv[1] if len(sys.argv) > 1 else "cordon"
    with Sandbox(["--net", "none"], cordon=cordon) as sb:
        r = sb.run(["sh", "-c", "echo hello from the sandbox; id -u"])
        print(f"{r['verdict']} exit={r['exit_code']}: {r['output']!r}")
        r = sb.run(["sh", "-c", "echo planted > ~/.bashrc"])
        print(f"{r['verdict']} exit={r['exit_code']}: {r['output'].strip()!r}")
        ids = [sb.submit(["sh", "-c", f"sleep 0.2; echo {k}"]) for k in range(3)]
        print("in flight at once:", [sb.result(i)["output"].strip() for i in ids])
        try:
            sb.run(["true"], env={"CORDON_SANDBOX": "0"})
        except SandboxError as e:
            print("refused:", e)


if __name__ == "__main__":
    main()
