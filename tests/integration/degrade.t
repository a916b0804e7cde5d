#!/usr/bin/env bash
# Fail closed. When the host gives no usable user namespace, full isolation
# refuses (exit 125, runner_failed) and names the opt-in; light isolation runs
# only when asked for, graded partial, and still fences writes.
#
# A host without user namespaces is made without touching the machine: cordon
# runs inside a user namespace of its own (unshare -Ur) whose limit on
# nested user namespaces is set to 0.
. "$(dirname "$0")/tap.sh"

tmp=$(mktemp -d /var/tmp/cordon-it-degrade.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/outer-cache
cd "$tmp"

# inner ARGS...: cordon run ARGS where no user namespace can be made
inner() {
        unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"' sh \
                env XDG_CACHE_HOME="$tmp/inner-cache" "$CORDON" run --backend native --workspace "$tmp" "$@"
}

# control: with user namespaces the same inner run is silent
err=$("$CORDON" run --backend native --workspace "$tmp" -- sh -c 'echo out' 2>&1 >/dev/null)
if [ -z "$err" ]; then ok "control: with user namespaces the run is silent"; else not_ok "control: silent run" "$err"; fi
# Everything below depends on this control: when it fails or skips, stop.
if unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec unshare -U true' 2>/dev/null; then
        not_ok "control: no user namespace can be made in the test's own namespace"
        finish; exit # what follows would prove nothing
elif unshare -Ur true; then
        ok "control: user namespaces work here, and none can be made in the test's own namespace"
else
        skip "fail-closed tests" "unprivileged user namespaces are off on this host"
        finish; exit # a skip stops what depends on it
fi

err=$(inner -- sh -c "echo ran > '$tmp/ran'" 2>&1 >/dev/null)
rc=$?
if [ $rc = 125 ] && [ ! -e "$tmp/ran" ] &&
   echo "$err" | grep -q '^cordon: namespaces: no usable user namespace here' &&
   echo "$err" | grep -q -- '--isolation light'; then
        ok "without user namespaces full isolation refuses (125), names the opt-in, runs nothing"
else
        not_ok "without user namespaces full isolation refuses" "rc=$rc ran=$([ -e "$tmp/ran" ] && echo yes)" "$err"
fi

inner --json -- sh -c "echo ran > '$tmp/ran'" > "$tmp/o.json" 2>/dev/null
if [ "$(json_field "$tmp/o.json" verdict)" = runner_failed ] && [ "$(json_field "$tmp/o.json" exit_code)" = 125 ] &&
   [ ! -e "$tmp/ran" ]; then
        ok "--json: the refusal is runner_failed with exit 125, never a silent light run"
else
        not_ok "--json: the refusal is runner_failed" "$(cat "$tmp/o.json" 2>/dev/null)"
fi

# light isolation is an explicit opt-in: it runs, says it is partial
inner --isolation light --json -- sh -c 'echo hi; exit 3' > "$tmp/o.json" 2>/dev/null
if [ "$(json_field "$tmp/o.json" verdict)" = ok ] && [ "$(json_field "$tmp/o.json" exit_code)" = 3 ] &&
   [ "$(json_field "$tmp/o.json" grade)" = partial ]; then
        ok "--isolation light runs without user namespaces, graded partial (exit 3 kept)"
else
        not_ok "--isolation light runs, graded partial" "$(cat "$tmp/o.json" 2>/dev/null)"
fi

# light still confines writes: outside the workspace
out=$(mktemp -d /var/tmp/cordon-it-degrade-out.XXXXXX)
if unshare -Ur sh -c "echo x > '$out/control'" && [ -s "$out/control" ]; then
        inner --isolation light --json -- sh -c "echo x > '$out/f'" > "$tmp/o.json" 2>/dev/null
        if [ "$(json_field "$tmp/o.json" verdict)" = denied ] && [ ! -e "$out/f" ]; then
                ok "light isolation refuses a write outside the workspace (denied; the control wrote it)"
        else
                not_ok "light isolation confines writes" "$(cat "$tmp/o.json" 2>/dev/null)"
        fi
else
        not_ok "control: the same write succeeds unconfined in the test's namespace"
fi
rm -rf "$out"

err=$(inner --isolation light --require userns -- true 2>&1)
rc=$?
if [ $rc = 125 ] && echo "$err" | grep -q "userns"; then
        ok "--isolation light --require userns refuses (125)"
else
        not_ok "--isolation light --require userns refuses" "rc=$rc" "$err"
fi

if "$CORDON" explain --isolation light -- true 2>&1 | grep -q "light isolation gives up: the read-only root"; then
        ok "explain lists what light isolation gives up"
else
        not_ok "explain lists what light isolation gives up" "$("$CORDON" explain --isolation light -- true 2>&1 | tail -3)"
fi

# A runner setup failure is the runner failing, even when its errno is
# EACCES: cordon inside cordon's light sandbox cannot list / to hide what it
# contains, and that must read as runner_failed (the command never ran),
# not as "denied" (the command ran and was refused something).
"$CORDON" run --isolation light --workspace "$tmp" -- \
        env XDG_CACHE_HOME="$tmp/nested-cache" "$CORDON" run --json --isolation light --workspace "$tmp" -- true \
        > "$tmp/o.json" 2>/dev/null
if [ "$(json_field "$tmp/o.json" verdict)" = runner_failed ] && [ "$(json_field "$tmp/o.json" exit_code)" = 125 ] &&
   json_field "$tmp/o.json" runner_line | grep -q '^cordon: '; then
        ok "a runner setup failure with EACCES classifies as runner_failed, not denied"
else
        not_ok "runner setup failure classified as runner_failed" "$(cat "$tmp/o.json" 2>/dev/null)"
fi

finish
