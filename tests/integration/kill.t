#!/usr/bin/env bash
# Nothing outlives `cordon run`: SIGKILL, SIGTERM or SIGHUP to it ends the
# whole tree the command started, at once, in every backend (native full,
# native light, bwrap), interactive or --json, with and without limits.
# Also the commonest agent pattern: Python's subprocess.run(timeout=...),
# which SIGKILLs cordon at the timeout. A control shows the same tree under
# a plain parent outlives that parent's SIGKILL.
#
# Each tree's sleeps carry a unique duration (300.<tag>), so the test finds
# their host pids (a pid namespace hides them from the command itself) and
# kills leftovers by pid only.
. "$(dirname "$0")/tap.sh"

BASE=$(mktemp -d /var/tmp/cordon-kill.XXXXXX)
chmod 755 "$BASE"
export HOME=$BASE XDG_CACHE_HOME=$BASE/cache
cd "$BASE"
survivors=()
cleanup() {
        for p in "${survivors[@]}"; do kill -9 "$p" 2>/dev/null; done
        rm -rf "$BASE"
}
trap cleanup EXIT

seq_n=0
# pids_of TAG: host pids whose command line is exactly "sleep 300.TAG"
pids_of() {
        local p
        for p in /proc/[0-9]*; do
                [ "$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null)" = "sleep 300.$1 " ] && echo "${p#/proc/}"
        done
}
# alive PID: exists and is not a zombie
alive() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

# wait_tree TAG N: until N sleeps of TAG run (5 s at most); prints their pids
wait_tree() {
        local i pids
        for i in $(seq 100); do
                pids=$(pids_of "$1")
                [ "$(grep -c . <<<"$pids")" -ge "$2" ] && { echo "$pids"; return 0; }
                sleep 0.05
        done
        echo "$pids"
        return 1
}

# gone_within PIDS...: every pid gone (or a zombie) within 2 s
gone_within() {
        local i p left
        for i in $(seq 40); do
                left=
                for p in "$@"; do alive "$p" && left="$left $p"; done
                [ -z "$left" ] && return 0
                sleep 0.05
        done
        echo "$left"
        return 1
}

# The tree: two background sleeps, one in a session of its own, one
# double-forked away (orphaned), then the shell waits.
tree_cmd() {
        echo "sleep 300.$1 & setsid sleep 300.$1 & (sleep 300.$1 &) ; echo started > '$BASE/marker.$1'; wait"
}

backends=(full light)
if command -v bwrap >/dev/null && "$CORDON" run --backend bwrap -- true >/dev/null 2>&1; then
        backends+=(bwrap)
else
        skip "bwrap: a killed cordon leaves nothing" "bwrap not usable here"
fi

for be in "${backends[@]}"; do
        case $be in bwrap) sel=(--backend bwrap) ;; *) sel=(--isolation "$be") ;; esac
        for sig in KILL TERM HUP; do
                for out in interactive json; do
                        for lim in none memory; do
                                seq_n=$((seq_n + 1))
                                tag=$$$seq_n
                                args=("${sel[@]}" --workspace "$BASE")
                                [ $out = json ] && args+=(--json)
                                [ $lim = memory ] && args+=(--memory 256M)
                                desc="$be, $out, limits $lim: SIG$sig to cordon ends the tree"
                                "$CORDON" run "${args[@]}" -- sh -c "$(tree_cmd $tag)" > "$BASE/out" 2>&1 &
                                cpid=$!
                                if ! pids=$(wait_tree $tag 3); then
                                        not_ok "$desc" "the tree did not start: $(cat "$BASE/out")"
                                        kill -9 $cpid; wait $cpid 2>/dev/null
                                        survivors+=($pids)
                                        continue
                                fi
                                kill -$sig $cpid
                                wait $cpid
                                rc=$?
                                if left=$(gone_within $pids) && { [ $sig = KILL ] || [ $rc = $((128 + $(kill -l $sig))) ]; }; then
                                        ok "$desc (exit $rc; $(echo $pids | wc -w) sleeps gone)"
                                else
                                        not_ok "$desc" "exit $rc; still alive:$left" "$(head -c 400 "$BASE/out")"
                                        survivors+=($pids)
                                fi
                        done
                done
        done

        # subprocess.run(timeout=2): Python SIGKILLs cordon at the timeout
        seq_n=$((seq_n + 1))
        tag=$$$seq_n
        python3 - "$CORDON" "$(tree_cmd $tag)" "${sel[@]}" --workspace "$BASE" <<'EOF' > "$BASE/py" 2>&1
import subprocess, sys
cordon, script, opts = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    subprocess.run([cordon, "run", *opts, "--", "sh", "-c", script], timeout=2,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print("returned before the timeout")
except subprocess.TimeoutExpired:
    print("timeout")
EOF
        pids=$(pids_of $tag)
        if [ "$(cat "$BASE/py")" = timeout ] && [ -e "$BASE/marker.$tag" ] && left=$(gone_within $pids); then
                ok "$be: subprocess.run(timeout=2) kills cordon; nothing of the tree is left"
        else
                not_ok "$be: subprocess.run(timeout=2)" "$(cat "$BASE/py")" "still alive:${left:-} (tree $pids)"
                survivors+=($pids)
        fi
done

# A run that ends by itself (native, full isolation): init ends every other
# process of the sandbox and reaps it before the runner reports the end, so
# when `cordon run` returns nothing of the sandbox is left, checked at once
# (no grace period): sleeps in the background, in a session of their own,
# orphaned, a stopped one, and a writer that ignores SIGTERM, SIGHUP and
# SIGINT and appends to a file of the workspace until it is killed.
left_cmd() {
        echo "sleep 300.$1 & setsid sleep 300.$1 & (sleep 300.$1 &) ; (sh -c 'kill -STOP \$\$; exec sleep 300.$1' &) ;" \
             "(trap '' TERM HUP INT; while :; do echo x >> '$BASE/writer.$1'; done) &" \
             "while [ ! -s '$BASE/writer.$1' ]; do :; done; echo started > '$BASE/marker.$1'; exit 7"
}
for out in interactive json; do
        seq_n=$((seq_n + 1))
        tag=$$$seq_n
        args=(--isolation full --workspace "$BASE")
        [ $out = json ] && args+=(--json)
        "$CORDON" run "${args[@]}" -- sh -c "$(left_cmd $tag)" > "$BASE/out" 2>&1
        rc=$?
        # at once: every process whose command line names this tag (the
        # sleeps, the stopped shell, the writer's shell)
        left=
        for p in $(pgrep -f -- "300\\.$tag"); do alive "$p" && left="$left $p"; done
        size1=$(stat -c %s "$BASE/writer.$tag" 2>/dev/null || echo 0)
        sleep 0.3
        size2=$(stat -c %s "$BASE/writer.$tag" 2>/dev/null || echo 0)
        desc="full, $out: when cordon run returns, nothing of the sandbox is left"
        if { [ $rc = 7 ] || { [ $out = json ] && grep -q '"exit_code":7' "$BASE/out"; }; } &&
           [ -e "$BASE/marker.$tag" ] && [ -z "$left" ] && [ "$size1" -gt 0 ] && [ "$size1" = "$size2" ]; then
                ok "$desc (exit 7; the writer stopped at $size1 bytes)"
        else
                not_ok "$desc" "exit $rc; still alive:$left; writer $size1 then $size2 bytes" "$(head -c 400 "$BASE/out")"
                pkill -KILL -f -- "300\\.$tag" 2>/dev/null
        fi
done
# Control: the same command under a plain parent leaves its writer and sleeps running.
seq_n=$((seq_n + 1))
tag=$$$seq_n
sh -c "$(left_cmd $tag)" > /dev/null 2>&1
n=0
for p in $(pgrep -f -- "300\\.$tag"); do alive "$p" && n=$((n + 1)); done
size1=$(stat -c %s "$BASE/writer.$tag" 2>/dev/null || echo 0)
sleep 0.3
size2=$(stat -c %s "$BASE/writer.$tag" 2>/dev/null || echo 0)
pkill -KILL -f -- "300\\.$tag" 2>/dev/null
if [ $n -ge 5 ] && [ "$size2" -gt "$size1" ]; then
        ok "control: without cordon, $n processes (sleeps, the stopped one, the writer) outlive the command"
else
        not_ok "control: the command's tree outlives it under a plain parent" "$n alive; writer $size1 then $size2 bytes"
fi

# Control: the same tree under a plain parent outlives its SIGKILL.
seq_n=$((seq_n + 1))
tag=$$$seq_n
sh -c "$(tree_cmd $tag)" > /dev/null 2>&1 &
cpid=$!
pids=$(wait_tree $tag 3)
kill -9 $cpid
wait $cpid 2>/dev/null
survivors+=($pids)
sleep 0.5
n=0
for p in $pids; do alive "$p" && n=$((n + 1)); done
if [ $n -ge 3 ]; then
        ok "control: without cordon, $n sleeps outlive their parent's SIGKILL"
else
        not_ok "control: the tree outlives a plain parent" "$n of $(echo $pids | wc -w) alive"
fi
finish
