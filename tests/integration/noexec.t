#!/usr/bin/env bash
# Nothing a sandbox of a session can write is mapped executable by any of
# them, and a tool maps executable only its closure and the library
# directories: the kernel refuses, not only execve's Landlock check. Each
# attempt is real, from inside a tool or the session, beside a control (the
# same attempt unconfined, or on an allowed file) that succeeds. Then the
# session start: a tool whose closure a sandbox could write is refused,
# naming the path; the same file read-only starts.
. "$(dirname "$0")/tap.sh"
tap_base noexec

WS=$BASE/ws BIN=$BASE/bin TW=$BASE/toolw
mkdir -p "$WS" "$BIN" "$TW" "$BASE/state"
chmod 755 "$WS" "$BIN" "$TW"
chmod 777 "$TW"
export XDG_STATE_HOME=$BASE/state

LOADER=
for l in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 /lib/ld-linux-armhf.so.3; do
	[ -x "$l" ] && { LOADER=$l; break; }
done
CC=${CC:-cc}
if [ -z "$LOADER" ] || ! command -v "$CC" >/dev/null || [ ! -x /usr/bin/git ]; then
	skip "the noexec attempts" "needs a known loader, a C compiler and /usr/bin/git"
	finish
	exit
fi
# a shared object whose constructor says it was mapped and run
printf '#include <stdio.h>\n__attribute__((constructor)) static void said(void) { fputs("PRELOADED\\n", stderr); }\n' \
	> "$BASE/mark.c"
"$CC" -shared -fPIC -o "$BIN/mark.so" "$BASE/mark.c" || { not_ok "cannot build mark.so"; finish; exit; }
chmod 644 "$BIN/mark.so"
# the tool: a copy of python (the session keeps /usr/bin/python3 for its controls)
cp "$(readlink -f "$PY")" "$BIN/tpy" && chmod 755 "$BIN/tpy"

P=$BASE/profile.json
cat > "$P" <<EOF
{
  "workspace": "$WS",
  "command_policies": {
    "commands": {
      "git": { "executable": "/usr/bin/git", "sandbox": { "fs_read": ["\$WORKSPACE"] } },
      "tpy": { "executable": "$BIN/tpy", "sandbox": { "fs_read": ["\$WORKSPACE", "$BIN", "$TW"], "fs_write": ["$TW"] } }
    }
  }
}
EOF

# session SCRIPT: run SCRIPT (sh -c) as the agent; OUT, ERR, RC
session() {
	(cd "$WS" && "$CORDON" run --profile "$P" -- sh -c "$1" >"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}

# ---- inside a tool ----------------------------------------------------------
# One Python program run as the tool (and, for the controls, unconfined):
# each line says what one attempt gave.
cat > "$BIN/attempts.py" <<'EOF'
import ctypes, mmap, os, shutil, subprocess, sys
loader, bindir, tw = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = os.environ.get("TMPDIR") or "/tmp"
exe = os.readlink("/proc/self/exe")
def say(name, f):
    try:
        r = f()
        print(f"{name}={r}", flush=True)
    except Exception as e:
        print(f"{name}=ERR:{type(e).__name__}:{getattr(e, 'errno', '')}", flush=True)
def run(*argv, env=None):
    return subprocess.run(list(argv), capture_output=True, env=env).returncode
def run_err(*argv, env=None):
    p = subprocess.run(list(argv), capture_output=True, env=env)
    return "marked" if b"PRELOADED" in p.stderr else f"rc{p.returncode}"
def copy(src, dst, mode=0o755):
    shutil.copy(src, dst); os.chmod(dst, mode); return dst
def map_exec(path):
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)
        m.close()
    return "mapped"
# the loader on a binary outside the closure, and on the tool's own
say("loader-cat", lambda: run(loader, "/bin/cat", "/dev/null"))
say("loader-self", lambda: run(loader, exe, "-c", "pass"))
# a copy in the private /tmp, in the tool's writable root, in /dev/shm
for where, d in (("tmp", tmp), ("tw", tw), ("shm", "/dev/shm")):
    say(f"exec-{where}", lambda: run(copy("/bin/true", f"{d}/t-{os.getpid()}")))
    say(f"loader-{where}", lambda: run(loader, f"{d}/t-{os.getpid()}"))
    say(f"dlopen-{where}", lambda: ctypes.CDLL(copy(f"{bindir}/mark.so", f"{d}/m-{os.getpid()}.so", 0o644)) and "loaded")
    say(f"mmap-{where}", lambda: map_exec(f"{d}/m-{os.getpid()}.so"))
    say(f"preload-{where}", lambda: run_err(exe, "-c", "pass",
        env=dict(os.environ, LD_PRELOAD=f"{d}/m-{os.getpid()}.so")))
# a script whose interpreter is a copy of the shell in /dev/shm
def shm_chain():
    sh = copy("/bin/sh", f"/dev/shm/sh-{os.getpid()}")
    with open(f"{tmp}/s-{os.getpid()}", "w") as f:
        f.write(f"#!{sh}\necho chain-ran\n")
    os.chmod(f"{tmp}/s-{os.getpid()}", 0o755)
    return run(loader, sh, f"{tmp}/s-{os.getpid()}")
say("shm-chain", shm_chain)
# the allowed: a library the tool may map, and the mark in place
say("dlopen-bin", lambda: ctypes.CDLL(f"{bindir}/mark.so") and "loaded")
say("dlopen-lib", lambda: ctypes.CDLL("libm.so.6") and "loaded")
say("mmap-lib", lambda: map_exec(exe))
# anonymous files
say("memfd", lambda: os.memfd_create("x") and "made")
say("memfd-sealed", lambda: os.memfd_create("y", 8 | 1) and "made")
def shm_exec():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    i = libc.shmget(0, 4096, 0o1700)
    if i < 0:
        return f"shmget-{ctypes.get_errno()}"
    a = libc.shmat(i, None, 0o100000)  # SHM_EXEC
    e = ctypes.get_errno()
    libc.shmctl(i, 0, None)  # IPC_RMID
    return "attached" if a not in (None, ctypes.c_void_p(-1).value) else f"refused-{e}"
say("shm-exec", shm_exec)
EOF
chmod 644 "$BIN/attempts.py"

# the same attempts unconfined (TMPDIR: a directory of ours)
mkdir -p "$BASE/ctmp" "$BASE/ctw"
CONTROL=$(TMPDIR=$BASE/ctmp "$PY" "$BIN/attempts.py" "$LOADER" "$BIN" "$BASE/ctw" 2>&1)
session "tpy $BIN/attempts.py $LOADER $BIN $TW"
TOOL=$OUT
val() { sed -n "s/^$2=//p" <<<"$1" | head -1; }
both() { # both DESC NAME CONTROL-VALUE TOOL-PREDICATE
	local c t
	c=$(val "$CONTROL" "$2") t=$(val "$TOOL" "$2")
	if [ "$c" = "$3" ] && $4 "$t"; then ok "$1 (unconfined: $c; in the tool: $t)"; else
		not_ok "$1" "unconfined: '$c' (want $3)" "in the tool: '$t'" "control: ${CONTROL:0:1500}" \
			"tool out: ${TOOL:0:1500}" "err: ${ERR:0:1500}"
	fi
}
refused() { [ -n "$1" ] && [ "$1" != 0 ] && [ "$1" != loaded ] && [ "$1" != mapped ] && [ "$1" != marked ] &&
	[ "$1" != made ] && [ "$1" != attached ]; }
is0() { [ "$1" = 0 ]; }
isloaded() { [ "$1" = loaded ]; }
ismapped() { [ "$1" = mapped ]; }
eperm() { [ "$1" = "ERR:PermissionError:1" ]; }

both "a tool: the loader runs no binary outside its closure (ld.so /bin/cat)" loader-cat 0 refused
both "... control: the loader runs the tool's own binary" loader-self 0 is0
for w in tmp tw shm; do
	case $w in tmp) d="its private TMPDIR";; tw) d="its writable root";; shm) d="/dev/shm";; esac
	both "a tool: a copy of /bin/true in $d does not execute" exec-$w 0 refused
	both "... nor through the loader" loader-$w 0 refused
	both "... a .so copied there is not dlopen'ed (ctypes)" dlopen-$w loaded refused
	both "... nor mapped PROT_EXEC" mmap-$w mapped refused
	both "... nor LD_PRELOADed into a program the tool runs" preload-$w marked refused
done
both "a tool: a #! chain through a shell copied into /dev/shm, by the loader, does not run" shm-chain 0 refused
both "a tool: control: a library in a library directory is dlopen'ed" dlopen-lib loaded isloaded
both "a tool: a library outside the library directories and its closure is not, read-only or not" dlopen-bin loaded refused
both "a tool: control: its own binary maps PROT_EXEC" mmap-lib mapped ismapped
both "a tool: memfd_create fails with EPERM" memfd made eperm
both "a tool: ... a sealed, non-executable memfd too (it maps executable through /proc/self/fd)" memfd-sealed made eperm
both "a tool: shmat(SHM_EXEC) of a SysV segment is refused" shm-exec attached refused

# what the session plants in the working directory is not imported by a
# Python tool run there (PYTHONSAFEPATH: no cwd on the module path for -c, -m)
printf 'print("PLANTED")\n' > "$WS/plant.py"
control=$(cd "$WS" && "$PY" -c 'import plant' 2>&1; cd "$WS" && "$PY" -m plant 2>&1)
session "tpy -c 'import plant' 2>&1; echo c=\$?; tpy -m plant 2>&1; echo m=\$?; tpy -c 'import json; print(\"stdlib\")'"
if [ "$(grep -c PLANTED <<<"$control")" = 2 ] && hasnt "$OUT" "PLANTED" && has "$OUT" "c=1" && has "$OUT" "m=1" &&
	has "$OUT" "stdlib"; then
	ok "a Python tool does not import a module the session planted in its working directory (-c, -m); the stdlib it does"
else
	not_ok "python cwd import" "control: $control" "out: $OUT" "err: $ERR"
fi
rm -f "$WS/plant.py"

# ---- inside the session -----------------------------------------------------
control=$("$LOADER" /usr/bin/git --version 2>&1)
session "$LOADER /usr/bin/git --version; echo rc=\$?; $LOADER /bin/cat /dev/null; echo cat=\$?"
if has "$control" "git version" && has "$OUT" "cat=0" && ! has "$OUT" "git version" && ! has "$OUT" "rc=0"; then
	ok "the session: ld.so /usr/bin/git (a controlled binary) fails; the loader still runs /bin/cat"
else
	not_ok "session ld.so git" "control: $control" "out: $OUT" "err: $ERR"
fi

# The session may run what it builds (agents compile and run tests), so a
# copy of a controlled binary runs there with the session's rights, not the
# tool's: documented in cordon-run(1); the tool's value is its grants.
session "cp /bin/true ./t; ./t; echo ws=\$?; $PY -c 'import ctypes; ctypes.CDLL(\"$BIN/mark.so\")' 2>&1; echo lib=\$?"
expect "the session: what it builds in its workspace runs there (ws=0)" has "$OUT" "ws=0"
expect "... and it dlopens a library outside every writable place" has "$OUT" "PRELOADED"

# a memfd the session fills and hands a tool as its stdin (the tool cannot
# make one, but one it is given maps executable through /proc/self/fd)
cat > "$BIN/handmemfd.py" <<'EOF'
import os, subprocess, sys
try:
    fd = os.memfd_create("m", 8)  # MFD_NOEXEC_SEAL
except OSError as e:
    print(f"memfd=ERR:{e.errno}"); sys.exit()
os.write(fd, open(sys.argv[1], "rb").read()); os.lseek(fd, 0, 0)
p = subprocess.run(sys.argv[2:] + ["-c", "import ctypes; ctypes.CDLL('/proc/self/fd/0')"], stdin=fd, capture_output=True)
print("memfd=made", "marked" if b"PRELOADED" in p.stderr else f"rc{p.returncode}")
EOF
chmod 644 "$BIN/handmemfd.py"
control=$("$PY" "$BIN/handmemfd.py" "$BIN/mark.so" "$PY" 2>&1)
session "$PY $BIN/handmemfd.py $BIN/mark.so tpy"
if has "$control" "memfd=made marked" && has "$OUT" "memfd=ERR:1" && hasnt "$OUT" "marked"; then
	ok "the session cannot make a memfd (EPERM), sealed or not, to hand a tool (unconfined, one handed as stdin is dlopen'ed)"
else
	not_ok "session memfd to a tool" "control: $control" "out: $OUT" "err: $ERR"
fi

# ---- the session start: nothing a tool maps may be writable ---------------
start() { # start PROFILE: OUT, ERR, RC of a session that runs `true`
	(cd "$WS" && "$CORDON" run --profile "$1" -- true >"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
profile() { # profile FILE COMMANDS-JSON
	printf '{ "workspace": "%s", "command_policies": { "commands": { %s } } }\n' "$WS" "$2" > "$1"
}
mkdir -p "$WS/tools"
cp /bin/true "$WS/tools/wtrue" && chmod 755 "$WS/tools/wtrue"
cp /bin/true "$BIN/rtrue" && chmod 755 "$BIN/rtrue"
profile "$BASE/p-ws.json" "\"wtrue\": { \"executable\": \"$WS/tools/wtrue\" }"
start "$BASE/p-ws.json"
expect "a tool whose executable lies in the workspace: the session refuses to start, naming it" \
	eval '[ $RC != 0 ] && has "$ERR" "$WS/tools/wtrue" && has "$ERR" "can write"'
profile "$BASE/p-ro.json" "\"rtrue\": { \"executable\": \"$BIN/rtrue\" }"
start "$BASE/p-ro.json"
expect "... control: the same binary outside every writable root starts" eval '[ $RC = 0 ]'

profile "$BASE/p-other.json" "\"rtrue\": { \"executable\": \"$BIN/rtrue\" },
	\"writer\": { \"executable\": \"$BIN/rtrue\", \"sandbox\": { \"fs_write\": [\"$BIN\"] } }"
start "$BASE/p-other.json"
expect "a tool's closure another tool can write (fs_write): refused at start, naming it" \
	eval '[ $RC != 0 ] && has "$ERR" "$BIN/rtrue" && has "$ERR" "$BIN"'

printf '#!%s\necho hi\n' "$WS/tools/wtrue" > "$BIN/rscript" && chmod 755 "$BIN/rscript"
profile "$BASE/p-chain.json" "\"rscript\": { \"executable\": \"$BIN/rscript\" }"
start "$BASE/p-chain.json"
expect "a script whose #! interpreter lies in the workspace: refused, naming the interpreter" \
	eval '[ $RC != 0 ] && has "$ERR" "$WS/tools/wtrue"'

profile "$BASE/p-ep.json" "\"rtrue\": { \"executable\": \"$BIN/rtrue\", \"sandbox\": { \"exec_paths\": [\"$WS/tools\"] } }"
start "$BASE/p-ep.json"
expect "exec_paths in the workspace: refused, naming the path" eval '[ $RC != 0 ] && has "$ERR" "$WS/tools"'

mkdir -p "$BASE/opt/cache"
profile "$BASE/p-epw.json" "\"rtrue\": { \"executable\": \"$BIN/rtrue\", \"sandbox\": { \"exec_paths\": [\"$BASE/opt\"] } },
	\"writer\": { \"executable\": \"$BIN/rtrue\", \"sandbox\": { \"fs_write\": [\"$BASE/opt/cache\"] } }"
start "$BASE/p-epw.json"
expect "exec_paths holding another tool's write grant: refused, naming both" \
	eval '[ $RC != 0 ] && has "$ERR" "$BASE/opt/cache" && has "$ERR" "exec_paths"'

profile "$BASE/p-lib.json" "\"rtrue\": { \"executable\": \"$BIN/rtrue\", \"sandbox\": { \"fs_write\": [\"/usr/lib/cordon-noexec-test\"] } }"
start "$BASE/p-lib.json"
expect "a write grant inside a library directory: refused (every tool maps those executable)" \
	eval '[ $RC != 0 ] && has "$ERR" "library directory"'

# a Python interpreter's module search path: what a .pth file adds
PYREAL=$(readlink -f "$PY")
PYNAME=$(basename "$PYREAL")
mkdir -p "$BASE/py/bin" "$BASE/py/lib/$PYNAME/site-packages" "$BASE/rolib" "$WS/lib"
cp "$PYREAL" "$BASE/py/bin/$PYNAME" && chmod 755 "$BASE/py/bin/$PYNAME"
printf '# a comment\nimport os\n%s\n' "$WS/lib" > "$BASE/py/lib/$PYNAME/site-packages/evil.pth"
profile "$BASE/p-pth.json" "\"py\": { \"executable\": \"$BASE/py/bin/$PYNAME\" }"
start "$BASE/p-pth.json"
expect "a Python tool whose .pth file adds a directory in the workspace: refused, naming it" \
	eval '[ $RC != 0 ] && has "$ERR" "$WS/lib" && has "$ERR" "module search path"'
printf '%s\n' "$BASE/rolib" > "$BASE/py/lib/$PYNAME/site-packages/evil.pth"
start "$BASE/p-pth.json"
expect "... control: the .pth adding a directory outside every writable root starts" eval '[ $RC = 0 ]'
profile "$BASE/p-site.json" "\"py\": { \"executable\": \"$BASE/py/bin/$PYNAME\" },
	\"writer\": { \"executable\": \"$BIN/rtrue\", \"sandbox\": { \"fs_write\": [\"$BASE/py/lib/$PYNAME/site-packages/x\"] } }"
start "$BASE/p-site.json"
expect "another tool's write grant inside a Python tool's site-packages: refused" \
	eval '[ $RC != 0 ] && has "$ERR" "site-packages/x"'

finish
