# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared pieces of cordon's benchmarks (bench/compare; bench/launch may
build on it): timed spawns, bounded waits, interleaved rounds, statistics.

    import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import benchlib
    samples = benchlib.interleave({"bare": ["/usr/bin/true"], ...}, env, cwd, n=100, warmup=10)
"""
import os
import select
import signal
import statistics
import subprocess
import sys
import time


# A confined argv from `cordon confine` expects a pipe's write end at its
# status fd (3, and 4 for cordon's runner nested in bwrap): its runner
# reports failures there, and refuses to start without it. One pipe serves
# every launch; a failure record in it would not block (the runs succeed).
_STATUS = []


def status_fds():
    if not _STATUS:
        r, w = os.pipe()
        _STATUS.extend([r, w])
    return [(os.POSIX_SPAWN_DUP2, _STATUS[1], 3), (os.POSIX_SPAWN_DUP2, _STATUS[1], 4)]


SPAWN_TIMEOUT_S = 30


def spawn_wait(argv, env, cwd, devnull, timeout=SPAWN_TIMEOUT_S):
    """Time posix_spawn + wait, in ns. Returns (ns, exit_code); exit code
    -1000 on timeout (the process group is killed)."""
    os.chdir(cwd)
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, setpgroup=0,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                       (os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)] + status_fds())
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd], [], [], timeout)
        if not ready:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return time.perf_counter_ns() - start, -1000
        _, status = os.waitpid(pid, 0)
        elapsed = time.perf_counter_ns() - start
    finally:
        os.close(pidfd)
    return elapsed, os.waitstatus_to_exitcode(status)


def run_capture(argv, env=None, cwd=None, timeout=60):
    # the status pipe at fds 3 and 4 (see status_fds), through a shell so
    # subprocess's own fd closing cannot take them away
    w = status_fds()[0][1]
    wrapped = ["/bin/sh", "-c", 'exec 3>&%d 4>&%d; exec "$@"' % (w, w), "sh", *argv]
    try:
        p = subprocess.run(wrapped, env=env, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL, pass_fds=(w,))
        return p.returncode, p.stdout, p.stderr
    except FileNotFoundError as e:
        return 127, "", str(e)
    except subprocess.TimeoutExpired:
        return -1000, "", f"timed out after {timeout}s"


def first_line(text):
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line[:200]
    return ""


def version_of(argv):
    rc, out, err = run_capture(argv, timeout=30)
    return first_line(out) or first_line(err) or f"unknown (exit {rc})"


def stats_ms(samples):
    if not samples:
        return None
    s = sorted(samples)
    return {"min": s[0] / 1e6, "median": statistics.median(s) / 1e6, "max": s[-1] / 1e6,
            "samples": len(s)}


def spawn_many(argv, k, env, cwd, devnull, timeout=120):
    """Start k copies at once; time until every one has exited, in ns.
    Returns (ns, failures)."""
    os.chdir(cwd)
    start = time.perf_counter_ns()
    pids = [os.posix_spawn(argv[0], argv, env, setpgroup=0,
                           file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                         (os.POSIX_SPAWN_DUP2, devnull, 1),
                                         (os.POSIX_SPAWN_DUP2, devnull, 2)] + status_fds())
            for _ in range(k)]
    bad = 0
    end_by = time.monotonic() + timeout
    for pid in pids:
        pidfd = os.pidfd_open(pid)
        ready, _, _ = select.select([pidfd], [], [], max(0.0, end_by - time.monotonic()))
        os.close(pidfd)
        if not ready:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
        if not ready or os.waitstatus_to_exitcode(status) != 0:
            bad += 1
    return time.perf_counter_ns() - start, bad


def find_cordon(given, root):
    if given:
        return os.path.abspath(given)
    if os.environ.get("CORDON"):
        return os.path.abspath(os.environ["CORDON"])
    for build in ("build", "build-bench"):
        cand = os.path.join(root, build, "src", "cli", "cordon")
        if os.access(cand, os.X_OK):
            return cand
    sys.exit("bench: no cordon binary (make build, or pass --cordon PATH)")


def interleave(variants, env, cwd, n, warmup, max_seconds=600, on_round=None):
    """Run every (name -> argv) once per round, the order rotating each
    round (A B C, B C A, ...), after `warmup` unmeasured rounds; at most n
    measured rounds and max_seconds of wall time. Returns ({name: [ns]},
    {name: failures}, rounds_done). A non-zero exit is a failure, not a
    sample."""
    names = list(variants)
    samples = {k: [] for k in names}
    failures = {k: 0 for k in names}
    devnull = os.open("/dev/null", os.O_RDWR)
    deadline = time.monotonic() + max_seconds
    done = 0
    try:
        for rnd in range(warmup + n):
            if rnd >= warmup and time.monotonic() > deadline:
                break
            k = rnd % len(names)
            for name in names[k:] + names[:k]:
                ns, rc = spawn_wait(variants[name], env, cwd, devnull)
                if rnd < warmup:
                    continue
                if rc != 0:
                    failures[name] += 1
                else:
                    samples[name].append(ns)
            if rnd >= warmup:
                done += 1
                if on_round:
                    on_round(done)
    finally:
        os.close(devnull)
    return samples, failures, done


def cpu_snapshot():
    """(monotonic s, busy jiffies of the whole machine, total jiffies, CPU
    seconds used by this process and its waited-for children)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    t = os.times()
    return time.monotonic(), sum(v) - idle, sum(v), t.user + t.system + t.children_user + t.children_system


def background_cores(a, b):
    """Cores kept busy between two snapshots by everything but this process
    tree (approximate: kernel work done for us in worker threads, and
    children that outlive their parent, count as background)."""
    ncpu = os.cpu_count() or 1
    wall = max(b[0] - a[0], 1e-6)
    total = max(b[2] - a[2], 1)
    busy = (b[1] - a[1]) / total * ncpu
    ours = (b[3] - a[3]) / wall
    return {"busy_cores": round(busy, 2), "ours_cores": round(ours, 2),
            "background_cores": round(max(busy - ours, 0.0), 2)}


def wait_quiet(max_seconds, threshold=0.3, window=2.0, log=None):
    """Wait (at most max_seconds) until other processes use < threshold
    cores over a window. Returns the last measurement, with waited_s."""
    start = time.monotonic()
    while True:
        a = cpu_snapshot()
        time.sleep(window)
        m = background_cores(a, cpu_snapshot())
        m["waited_s"] = round(time.monotonic() - start, 1)
        if m["background_cores"] < threshold or time.monotonic() - start >= max_seconds:
            m["quiet"] = m["background_cores"] < threshold
            return m
        if log:
            log(f"waiting for a quiet machine: {m['background_cores']} cores busy elsewhere")
