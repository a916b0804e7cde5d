#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Warm launches from Python through ctypes: libcordon's session API
(cordon/session.h), standard library only.

One Session is one sandbox instance built from the default profile (the
working directory is the workspace): its commands share its private /tmp,
each is confined as `cordon run` would confine it and classified the same
way, and each costs a fork and an exec, not a new sandbox.

    with Session() as s:
        r = s.run(["git", "status"])
        print(r.verdict, r.exit_code, r.output)

Run it as a script for a demonstration:
    python3 session.py [LIBCORDON.so [CORDON_BINARY]]
"""
import ctypes
import ctypes.util
import os
import sys

VERDICTS = {0: "ok", 1: "denied", 2: "runner_failed", 3: "timeout", 4: "unavailable", 5: "limit_exceeded"}


class _Error(ctypes.Structure):  # struct cordon_error
    _fields_ = [("file", ctypes.c_char * 256), ("line", ctypes.c_int), ("column", ctypes.c_int),
                ("path", ctypes.c_char * 256), ("message", ctypes.c_char * 512)]


class _Result(ctypes.Structure):  # the leading fields of struct cordon_result
    _fields_ = [("exit_code", ctypes.c_int), ("signal", ctypes.c_int), ("verdict", ctypes.c_int),
                ("runner_line", ctypes.c_char_p), ("output", ctypes.POINTER(ctypes.c_char)),
                ("output_len", ctypes.c_size_t)]


class Result:
    def __init__(self, r):
        self.exit_code = r.exit_code
        self.signal = r.signal
        self.verdict = VERDICTS.get(r.verdict, str(r.verdict))
        self.output = ctypes.string_at(r.output, r.output_len).decode(errors="replace")


class CordonError(Exception):
    pass


class Session:
    def __init__(self, lib=None, runner=None):
        self._c = ctypes.CDLL(lib or os.environ.get("CORDON_LIB") or ctypes.util.find_library("cordon") or "libcordon.so.0")
        c = self._c
        vp, e = ctypes.c_void_p, ctypes.POINTER(_Error)
        c.cordon_set_runner_path.argtypes = [ctypes.c_char_p]
        c.cordon_launch_new.argtypes = [vp, vp, ctypes.POINTER(vp), e]
        c.cordon_launch_free.argtypes = [vp]
        c.cordon_session_open.argtypes = [vp, ctypes.POINTER(vp), e]
        c.cordon_session_close.argtypes = [vp]
        c.cordon_session_run.argtypes = [vp, ctypes.POINTER(ctypes.c_char_p), vp, ctypes.POINTER(ctypes.POINTER(_Result)), e]
        c.cordon_result_free.argtypes = [ctypes.POINTER(_Result)]
        if runner:
            c.cordon_set_runner_path(runner.encode())
        self._launch, self._session, err = vp(), vp(), _Error()
        # the default profile, no overrides: the working directory is the workspace
        if c.cordon_launch_new(None, None, ctypes.byref(self._launch), ctypes.byref(err)) < 0:
            raise CordonError(err.message.decode())
        if c.cordon_session_open(self._launch, ctypes.byref(self._session), ctypes.byref(err)) < 0:
            c.cordon_launch_free(self._launch)
            raise CordonError(err.message.decode())

    def run(self, argv):
        """Run argv to its end in the session: a Result (verdict, exit_code, output)."""
        args = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
        res, err = ctypes.POINTER(_Result)(), _Error()
        if self._c.cordon_session_run(self._session, args, None, ctypes.byref(res), ctypes.byref(err)) < 0:
            raise CordonError(err.message.decode())
        try:
            return Result(res.contents)
        finally:
            self._c.cordon_result_free(res)

    def close(self):
        if self._session:
            self._c.cordon_session_close(self._session)
            self._c.cordon_launch_free(self._launch)
            self._session = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else None
    runner = sys.argv[2] if len(sys.argv) > 2 else None
    with Session(lib, runner) as s:
        r = s.run(["sh", "-c", "echo warm > /tmp/note; echo hello"])
        print(f"ok exit={r.exit_code} verdict={r.verdict} output={r.output.strip()!r}")
        r = s.run(["cat", "/tmp/note"])
        print(f"shared /tmp: {r.output.strip()!r}")
        r = s.run(["sh", "-c", "echo x > /etc/cordon-example"])
        print(f"denied exit={r.exit_code} verdict={r.verdict}")


if __name__ == "__main__":
    main()
