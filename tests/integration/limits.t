#!/usr/bin/env bash
# Resource, time and output limits under real abuse (issue 4). Every abuse is
# bounded (a limit plus a --timeout), and each has a small control showing the
# same thing goes past the limit without it.
. "$(dirname "$0")/tap.sh"

tmp=$(mktemp -d /tmp/cordon-it-limits.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
export HOME=$tmp XDG_CACHE_HOME=$tmp/cache
cd "$tmp"
PY=/usr/bin/python3
field() { json_field "$tmp/o.json" "$1"; }
cg_memory=$(sed -n 's/^[0-9]*:memory:\(.*\)/\1/p' /proc/self/cgroup)
# cordon-PID-N cgroups of this build's cordon, or of a cordon that is gone
# (other cordons on the machine may be running their own tests meanwhile)
cordon_exe=$(readlink -f "$CORDON")
stale_cgroups() {
        local d p n=0
        for d in /sys/fs/cgroup/pids/cordon-* "/sys/fs/cgroup/memory${cg_memory%/}"/cordon-* \
                 /sys/fs/cgroup/unified/cordon-* /sys/fs/cgroup/cpuacct/cordon-*; do
                [ -d "$d" ] || continue
                p=${d##*/cordon-}; p=${p%%-*}
                if [ ! -e /proc/$p ] || [ "$(readlink -f /proc/$p/exe 2>/dev/null)" = "$cordon_exe" ]; then
                        n=$((n + 1))
                fi
        done
        echo $n
}

have_cgroups=0
# Unprivileged and with no delegated cgroup, the cgroup-only cases cannot
# run; what stands in for them is cordon refusing (the fail-closed block).
unpriv_no_cgroups=0
"$CORDON" probe --json > "$tmp/probe.json" 2>/dev/null
if python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["limits"]; sys.exit(0 if l["processes"]!="none" and l["memory"]!="rlimit" else 1)' "$tmp/probe.json"; then
        have_cgroups=1
        ok "probe reports limit mechanisms: $(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["limits"]; print("memory", l["memory"], "processes", l["processes"])' "$tmp/probe.json")"
elif [ "$(id -u)" != 0 ]; then
        unpriv_no_cgroups=1
        diag "no writable memory/pids cgroup for this user: the fail-closed cases stand in for the cgroup ones"
else
        skip "probe reports cgroup limit mechanisms" "no writable memory/pids cgroup here"
fi

# --cpu binds the tree: is there a cgroup here to count it?
"$CORDON" run --cpu 1 --json -- true > "$tmp/o.json" 2>/dev/null
cpu_mech=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["limits"]["cpu"])' "$tmp/o.json")
# four busy processes, each writing its own CPU time to DIR/PID every 10 ms
# four busy processes, each writing the CPU time it burned; with a second
# argument each stops by itself after that many CPU seconds (the control)
burn='import os,sys,time
d=sys.argv[1]; stop=float(sys.argv[2]) if len(sys.argv)>2 else None
os.fork(); os.fork()
f=os.path.join(d, str(os.getpid())); last=-1
while True:
    t=time.process_time()
    if t-last>=0.01 or (stop and t>=stop):
        open(f+".t","w").write("%f"%t); os.replace(f+".t",f); last=t
        if stop and t>=stop: sys.exit(0)'
burned() { python3 -c 'import os,sys; d=sys.argv[1]; print("%.2f" % sum(float(open(os.path.join(d,n)).read() or 0) for n in os.listdir(d) if not n.endswith(".t")))' "$1"; }
case $cpu_mech in
cgroup2|cgroup1) ok "--cpu is counted for the whole run by $cpu_mech" ;;
rlimit)
        # no CPU cgroup: said so, and refused under --limits-fallback fail
        "$CORDON" run --cpu 1 -- true 2> "$tmp/err"
        grep -q "^cordon: warning: --cpu is enforced by RLIMIT_CPU (each process" "$tmp/err" &&
                ok "no CPU cgroup here: --cpu warns it binds each process only" || not_ok "--cpu rlimit warning" "$(cat "$tmp/err")"
        "$CORDON" run --cpu 1 --limits-fallback fail -- true 2> "$tmp/err"
        rc=$?
        [ $rc = 125 ] && grep -q "^cordon: --cpu: no cgroup here" "$tmp/err" &&
                ok "no CPU cgroup here: --cpu --limits-fallback fail refuses (125)" || not_ok "--cpu fallback fail" "rc=$rc" "$(cat "$tmp/err")"
        ;;
*) not_ok "--cpu mechanism" "$(cat "$tmp/o.json")" ;;
esac

for iso in full light bwrap; do
        case $iso in bwrap) sel=(--backend bwrap) ;; *) sel=(--isolation $iso) ;; esac
        if [ $iso = bwrap ] && ! command -v bwrap >/dev/null; then skip "bwrap limits" "no bwrap"; continue; fi

        # fork bomb: bounded by the pids cgroup, ended by the timeout; a probe
        # process outside keeps ticking
        if [ $have_cgroups = 1 ]; then
                (while sleep 0.2; do echo -n .; done) > "$tmp/ticks" & tick=$!
                t0=$(date +%s)
                # every bomb process carries the marker (bash's $0) in its
                # command line, so one that escaped the cgroup is found
                bomb=cordon-bomb-$$-$iso
                "$CORDON" run "${sel[@]}" --max-processes 64 --timeout 5 --json -- bash -c ':(){ :|:& };:; sleep 30' "$bomb" > "$tmp/o.json" 2>/dev/null
                t1=$(date +%s); kill $tick; wait $tick 2>/dev/null
                ticks=$(wc -c < "$tmp/ticks")
                sleep 0.2
                escaped=$(pgrep -fc -- "$bomb")
                if [ "$(field verdict)" = timeout ] && [ $((t1 - t0)) -le 8 ] && [ "$ticks" -ge 15 ] && [ "$(stale_cgroups)" = 0 ] &&
                   [ "$escaped" = 0 ]; then
                        ok "$iso: fork bomb under --max-processes 64 ends; outside probe ticked $ticks times; cgroups removed; no process left"
                else
                        not_ok "$iso: fork bomb bounded" "took $((t1 - t0)) s, ticks $ticks, stale $(stale_cgroups), $escaped bomb processes left" "$(head -c 600 "$tmp/o.json")"
                        # stop them all first, then kill: a bomb refills what is killed one by one
                        for _ in $(seq 20); do
                                pgrep -f -- "$bomb" >/dev/null || break
                                pkill -STOP -f -- "$bomb"; pkill -KILL -f -- "$bomb"; sleep 0.1
                        done
                fi
        fi

        # memory
        "$CORDON" run "${sel[@]}" --memory 256M --timeout 20 --json -- $PY -c 'b=bytearray(8<<30)' > "$tmp/o.json" 2>/dev/null
        if [ "$(field verdict)" = limit_exceeded ] && [ "$(field limit)" = memory ] && [ "$(field limit_mechanism)" != null ]; then
                ok "$iso: 8 GiB allocation under --memory 256M: limit_exceeded, memory, by $(field limit_mechanism)"
        else
                not_ok "$iso: memory limit" "$(head -c 600 "$tmp/o.json")"
        fi

        # cpu
        t0=$(date +%s%N)
        "$CORDON" run "${sel[@]}" --cpu 1 --timeout 10 --json -- sh -c 'while :; do :; done' > "$tmp/o.json" 2>/dev/null
        ms=$((($(date +%s%N) - t0) / 1000000))
        # killed by the CPU limit (not by --timeout 10): the verdict says
        # which; no process burns 1 CPU second in less wall time than that
        if [ "$(field limit)" = cpu ] && [ "$(field verdict)" = limit_exceeded ] && [ $ms -ge 900 ]; then
                ok "$iso: busy loop under --cpu 1 killed after $ms ms"
        else
                not_ok "$iso: cpu limit" "$ms ms" "$(head -c 600 "$tmp/o.json")"
        fi

        # cpu, the whole tree: four busy children get ~1 CPU second together
        if [ "$cpu_mech" != rlimit ]; then
                rm -rf "$tmp/cpu"; mkdir "$tmp/cpu"
                "$CORDON" run "${sel[@]}" --workspace "$tmp" --cpu 1 --timeout 20 --json -- $PY -c "$burn" "$tmp/cpu" > "$tmp/o.json" 2>/dev/null
                n=$(ls "$tmp/cpu" | grep -vc '\.t$')
                total=$(burned "$tmp/cpu")
                if [ "$(field verdict)" = limit_exceeded ] && [ "$(field limit)" = cpu ] && [ "$(field limit_mechanism)" = "$cpu_mech" ] &&
                   [ "$n" = 4 ] && python3 -c "import sys; sys.exit(0 if 0.5 <= $total <= 1.6 else 1)"; then
                        ok "$iso: 4 busy processes under --cpu 1 are killed after $total CPU s together, by $cpu_mech"
                else
                        not_ok "$iso: cpu limit binds the tree" "$n processes, $total CPU s" "$(head -c 600 "$tmp/o.json")"
                fi
        fi

        # file size: EFBIG, and the file stops at the limit
        rm -f "$tmp/f"
        "$CORDON" run "${sel[@]}" --workspace "$tmp" --max-file-size 1M -- sh -c "head -c 20M /dev/zero > '$tmp/f'" 2> "$tmp/err"
        rc=$?
        if [ $rc = 1 ] && [ "$(stat -c %s "$tmp/f")" = 1048576 ] && grep -q "File too large" "$tmp/err" && grep -q "^cordon: file size limit" "$tmp/err"; then
                ok "$iso: 20M write under --max-file-size 1M: EFBIG, file is 1 MiB, one cordon: line"
        else
                not_ok "$iso: file size limit" "rc=$rc size=$(stat -c %s "$tmp/f" 2>&1)" "$(cat "$tmp/err")"
        fi

        # output, terminate: exactly the cap, the marker, 137
        "$CORDON" run "${sel[@]}" --max-output 1M --on-output-limit terminate --timeout 20 -- yes > "$tmp/out" 2> "$tmp/err"
        rc=$?
        if [ $rc = 137 ] && [ "$(wc -c < "$tmp/out")" = 1048576 ] && grep -q "^cordon: output limit" "$tmp/err"; then
                ok "$iso: yes under --max-output 1M terminate: 1 MiB, marker, exit 137"
        else
                not_ok "$iso: output terminate" "rc=$rc bytes=$(wc -c < "$tmp/out")" "$(cat "$tmp/err")"
        fi

        # output, truncate: the command finishes, the rest is counted
        "$CORDON" run "${sel[@]}" --max-output 1M --timeout 20 --json -- sh -c 'head -c 5M /dev/zero; echo finished' > "$tmp/o.json" 2>/dev/null
        if [ "$(field exit_code)" = 0 ] && [ "$(field output_bytes)" = 5242889 ] && [ "$(field truncated)" = true ] && [ "$(field limit)" = output ]; then
                ok "$iso: 5M under --max-output 1M truncate: finishes, 5242889 bytes counted"
        else
                not_ok "$iso: output truncate" "$(head -c 300 "$tmp/o.json")"
        fi

        # timeout kills a setsid'd grandchild too
        t0=$(date +%s%N)
        "$CORDON" run "${sel[@]}" --timeout 1 -- sh -c "setsid sleep 300.$$ & sleep 300.$$" 2>/dev/null
        rc=$?
        ms=$((($(date +%s%N) - t0) / 1000000))
        sleep 0.2
        if [ $rc = 124 ] && [ $ms -lt 3000 ] && ! pgrep -f "sleep 300.$$" >/dev/null; then
                ok "$iso: --timeout 1 returns in $ms ms, exit 124, no sleep survives"
        else
                not_ok "$iso: timeout" "rc=$rc $ms ms" "$(pgrep -af "sleep 300.$$")"
                pkill -f "sleep 300.$$"
        fi
done

# --max-output on a terminal: the command's stdin is then a pipe cordon feeds,
# and the native runner takes write access to terminal devices away, so
# fd 0, /dev/tty and the pty by path are no ways around the cap. A python
# pty harness is the terminal; it types one line and counts what it shows.
on_pty() {
        python3 - "$@" <<'PY'
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
os.write(fd, b"abc\n")
out, end = b"", time.time() + 20
while time.time() < end:
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.write("%d %s" % (out.count(b"x"), "got:abc" if b"got:abc" in out else "-"))
PY
}
tty_writes=(
        'import os; os.write(0, b"x" * 100000)'
        'import os; f = os.open("/dev/tty", os.O_WRONLY); os.write(f, b"x" * 100000)'
        'import glob, os
for p in glob.glob("/dev/pts/[0-9]*"):
    try:
        os.write(os.open(p, os.O_WRONLY | os.O_NOCTTY), b"x" * 100000)
    except OSError as e:
        print(p, e)'
)
tty_names=("write to fd 0" "write to /dev/tty" "write to /dev/pts/N by path")
for iso in full light bwrap; do
        case $iso in bwrap) sel=(--backend bwrap) ;; *) sel=(--isolation $iso) ;; esac
        if [ $iso = bwrap ] && ! command -v bwrap >/dev/null; then skip "bwrap tty" "no bwrap"; continue; fi
        for i in 0 1 2; do
                res=$(on_pty "$CORDON" run "${sel[@]}" --max-output 100 -- $PY -c "${tty_writes[$i]}")
                n=${res%% *}
                [ "$n" -le 100 ] && ok "$iso: --max-output 100 on a terminal, ${tty_names[$i]}: $n bytes shown" ||
                        not_ok "$iso: --max-output 100 on a terminal, ${tty_names[$i]}" "$n bytes of it reached the terminal"
        done
        res=$(on_pty "$CORDON" run "${sel[@]}" --max-output 100 -- sh -c 'read x; echo got:$x')
        [ "${res#* }" = got:abc ] && ok "$iso: the terminal's input still reaches the command through the relay" ||
                not_ok "$iso: stdin relay" "$res"
done
# control: the same writes from a plain process on the terminal get through
for i in 0 1 2; do
        res=$(on_pty $PY -c "${tty_writes[$i]}")
        n=${res%% *}
        [ "$n" -ge 100000 ] && ok "control: without cordon, ${tty_names[$i]} shows $n bytes" ||
                not_ok "control: ${tty_names[$i]}" "$n bytes"
done

# controls: the same abuse, small, runs past each limit without it
if [ "$cpu_mech" != rlimit ]; then
        rm -rf "$tmp/cpu"; mkdir "$tmp/cpu"
        # each stops by itself after 0.6 CPU s: together past the 1.6 the
        # limited tree may reach, however loaded the machine is
        "$CORDON" run --workspace "$tmp" --timeout 120 --json -- $PY -c "$burn" "$tmp/cpu" 0.6 > "$tmp/o.json" 2>/dev/null
        total=$(burned "$tmp/cpu")
        python3 -c "import sys; sys.exit(0 if $total > 2.0 else 1)" &&
                ok "control: without --cpu the 4 busy processes burn $total CPU s together" || not_ok "control: cpu tree" "$total CPU s"
fi
"$CORDON" run --json -- $PY -c 'b=bytearray(512<<20); print(len(b))' > "$tmp/o.json" 2>/dev/null
[ "$(field verdict)" = ok ] && ok "control: 512 MiB allocation succeeds without --memory" || not_ok "control: memory" "$(cat "$tmp/o.json")"
rm -f "$tmp/f"; "$CORDON" run --workspace "$tmp" -- sh -c "head -c 2M /dev/zero > '$tmp/f'"
[ "$(stat -c %s "$tmp/f")" = 2097152 ] && ok "control: 2M file written without --max-file-size" || not_ok "control: file size"
"$CORDON" run -- sh -c 'yes | head -c 2M' > "$tmp/out"
[ "$(wc -c < "$tmp/out")" = 2097152 ] && ok "control: 2 MiB relayed without --max-output" || not_ok "control: output"
"$CORDON" run --json -- sh -c 'i=0; while [ $i -lt 100 ]; do sleep 5 & i=$((i+1)); done; echo started' > "$tmp/o.json" 2>/dev/null
grep -q started "$tmp/o.json" && ok "control: 100 processes start without --max-processes" || not_ok "control: processes" "$(cat "$tmp/o.json")"
"$CORDON" run --json --max-processes 64 -- sh -c 'i=0; while [ $i -lt 100 ]; do sleep 5 & i=$((i+1)); done; echo started' > "$tmp/o.json" 2>/dev/null
rc=$?
if [ $have_cgroups = 1 ]; then
        # refused: the loop never reaches "started", and the reason is the limit
        if ! grep -q started "$tmp/o.json" &&
           { [ "$(field limit)" = processes ] || grep -qi "fork" "$tmp/o.json"; }; then
                ok "--max-processes 64 refuses the 100 processes"
        else
                not_ok "--max-processes 64 refuses the 100 processes" "$(cat "$tmp/o.json")"
        fi
elif [ $unpriv_no_cgroups = 1 ]; then
        # nothing can bound the run's processes: cordon runs nothing (125)
        if [ $rc = 125 ] && ! grep -q started "$tmp/o.json"; then
                ok "--max-processes 64 without a pids cgroup: refused (125), the 100 processes never start"
        else
                not_ok "--max-processes 64 without a pids cgroup refused" "rc=$rc" "$(cat "$tmp/o.json")"
        fi
else
        skip "--max-processes 64 refuses the 100 processes" "no writable pids cgroup here"
fi
t0=$(date +%s%N)
"$CORDON" run --timeout 10 -- sh -c 'i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done'
ms=$((($(date +%s%N) - t0) / 1000000))
[ $ms -gt 1000 ] && ok "control: the busy loop runs past 1 CPU second without --cpu ($ms ms)" || not_ok "control: cpu ($ms ms)"

# cordon killed mid-run: its cgroups do not outlive the next run's sweep
if [ $have_cgroups = 1 ]; then
        "$CORDON" run --memory 64M --max-processes 32 -- sleep 30.$$ &
        cpid=$!
        for _ in $(seq 50); do [ "$(stale_cgroups)" -gt 0 ] && break; sleep 0.1; done
        during=$(stale_cgroups)
        kill -9 $cpid; wait $cpid 2>/dev/null
        sleep 0.3 # the sandbox dies with its runner (PDEATHSIG)
        left=$(stale_cgroups)
        "$CORDON" run --memory 64M -- true
        after=$(stale_cgroups)
        if [ "$during" -gt 0 ] && [ "$after" = 0 ] && ! pgrep -f "sleep 30.$$" >/dev/null; then
                ok "cordon killed with SIGKILL: its $during cgroups ($left left at once) are swept by the next run, no process survives"
        else
                not_ok "cgroups of a killed cordon swept" "during=$during left=$left after=$after" "$(pgrep -af "sleep 30.$$")"
                pkill -9 -f "sleep 30.$$"
        fi
elif [ $unpriv_no_cgroups = 1 ]; then
        diag "cgroup sweep: not run (no cgroup this user could create)"
else
        skip "cgroups of a killed cordon swept" "no writable cgroup here"
fi

# fail closed: as an unprivileged user no cgroup is writable here (as root,
# drop to nobody for it; unprivileged, we are that user already)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || [ $unpriv_no_cgroups = 1 ]; then
        if [ "$(id -u)" = 0 ]; then
                nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$tmp XDG_CACHE_HOME=$tmp/nc)
        else
                nobody=(env HOME=$tmp XDG_CACHE_HOME=$tmp/nc)
        fi
        "${nobody[@]}" "$CORDON" run --workspace "$tmp" --memory 256M --limits-fallback fail -- true 2> "$tmp/err"
        rc=$?
        [ $rc = 125 ] && grep -q "^cordon: --memory: " "$tmp/err" && ok "--limits-fallback fail refuses RLIMIT_AS (125)" || not_ok "fallback fail" "rc=$rc" "$(cat "$tmp/err")"
        "${nobody[@]}" "$CORDON" run --workspace "$tmp" --memory 256M --json -- $PY -c 'b=bytearray(8<<30)' > "$tmp/o.json" 2> "$tmp/err"
        if grep -q "^cordon: warning: --memory is enforced by RLIMIT_AS" "$tmp/err" && [ "$(field limit_mechanism)" = rlimit ] &&
           [ "$(field verdict)" = limit_exceeded ] && [ "$(field limits_warning)" != null ]; then
                ok "--limits-fallback warn: runs under RLIMIT_AS, says so on stderr and in json"
        else
                not_ok "fallback warn" "$(cat "$tmp/err")" "$(head -c 600 "$tmp/o.json")"
        fi
        # an unprivileged user here has no CPU cgroup either (v2 root and v1
        # are root's): the same four busy processes, RLIMIT_CPU each
        if [ "$cpu_mech" != rlimit ]; then
                rm -rf "$tmp/cpu"; mkdir "$tmp/cpu"; chmod 777 "$tmp/cpu"
                "${nobody[@]}" "$CORDON" run --workspace "$tmp" --cpu 1 --timeout 20 --json -- $PY -c "$burn" "$tmp/cpu" > "$tmp/o.json" 2> "$tmp/err"
                total=$(burned "$tmp/cpu")
                if grep -q "^cordon: warning: --cpu is enforced by RLIMIT_CPU" "$tmp/err" && [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["limits"]["cpu"])' "$tmp/o.json")" = rlimit ]; then
                        ok "unprivileged, no CPU cgroup: --cpu warns it is per process (4 processes then burned $total CPU s)"
                else
                        not_ok "unprivileged --cpu warning" "$(cat "$tmp/err")" "$(head -c 400 "$tmp/o.json")"
                fi
                "${nobody[@]}" "$CORDON" run --workspace "$tmp" --cpu 1 --limits-fallback fail -- true 2> "$tmp/err"
                rc=$?
                [ $rc = 125 ] && grep -q "^cordon: --cpu: no cgroup here" "$tmp/err" &&
                        ok "unprivileged: --cpu --limits-fallback fail refuses (125)" || not_ok "--cpu fallback fail" "rc=$rc" "$(cat "$tmp/err")"
        fi
        "${nobody[@]}" "$CORDON" run --workspace "$tmp" --max-processes 64 -- true 2> "$tmp/err"
        rc=$?
        [ $rc = 125 ] && grep -q "^cordon: --max-processes: " "$tmp/err" && ok "--max-processes without a pids cgroup is refused (125)" || not_ok "processes refused" "rc=$rc" "$(cat "$tmp/err")"
elif [ "$(id -u)" = 0 ]; then
        skip "fallback" "needs setpriv to drop to an unprivileged user"
else
        diag "fallback: not run (this user has a writable cgroup, so nothing falls back)"
fi

# strict flags
for bad in "--cpu 0" "--cpu 1.5" "--memory 10k" "--max-processes 2" "--max-file-size 0" "--max-open-files 3" \
           "--on-output-limit kill" "--limits-fallback maybe"; do
        set -- $bad
        out=$("$CORDON" run "$@" -- true 2>&1); rc=$?
        [ $rc = 125 ] && [[ $out == "cordon: $1: "* ]] && ok "bad value refused, naming the flag: $bad" || not_ok "bad value $bad" "rc=$rc $out"
done
out=$("$CORDON" explain --memory 256M --max-processes 64 --cpu 1 -- true)
if [ $unpriv_no_cgroups = 1 ]; then
        # the plan says the run would be refused, and why
        grep -q "would refuse: --max-processes: " <<<"$out" &&
                out=$("$CORDON" explain --memory 256M --cpu 1 -- true) && grep -Eq "CPU seconds (for the whole run|per process)" <<<"$out" &&
                grep -q "RLIMIT_AS" <<<"$out" &&
                ok "explain says --max-processes would be refused, and describes the rlimits in words" || not_ok "explain" "$out"
else
        grep -q "processes and threads for the whole run" <<<"$out" && grep -Eq "CPU seconds (for the whole run|per process)" <<<"$out" &&
                ok "explain describes the limits in words" || not_ok "explain" "$out"
fi
finish
