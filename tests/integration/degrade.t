#!/usr/bin/env bash
# Verdicts stay honest when the runner cannot do all it would. When the host
# gives no usable user namespace, full isolation falls back to light: never
# silently. The runner says so on every run, the warning is not
# read as a runner failure, and --require userns refuses instead.
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
        finish; exit
elif unshare -Ur true; then
        ok "control: user namespaces work here, and none can be made in the test's own namespace"
else
        skip "fallback tests" "unprivileged user namespaces are off on this host"
        finish; exit
fi

err=$(inner -- sh -c 'echo out' 2>&1 >/dev/null)
if echo "$err" | grep -q '^cordon: warning: no usable user namespace here: fell back to light isolation'; then
        ok "interactive: the fallback is announced on stderr"
else
        not_ok "interactive: the fallback is announced" "$err"
fi

inner --json -- sh -c 'echo hi; exit 3' > "$tmp/o.json" 2>/dev/null
v=$(json_field "$tmp/o.json" verdict); e=$(json_field "$tmp/o.json" exit_code)
if [ "$v" = ok ] && [ "$e" = 3 ] && grep -q "no usable user namespace" "$tmp/o.json"; then
        ok "--json: the warning is in the output and not read as a runner failure (verdict ok, exit 3)"
else
        not_ok "--json: the warning is informational" "$(cat "$tmp/o.json" 2>/dev/null)"
fi

# after the fallback Landlock still confines writes: outside the workspace
out=$(mktemp -d /var/tmp/cordon-it-degrade-out.XXXXXX)
if unshare -Ur sh -c "echo x > '$out/control'" && [ -s "$out/control" ]; then
        inner --json -- sh -c "echo x > '$out/f'" > "$tmp/o.json" 2>/dev/null
        if [ "$(json_field "$tmp/o.json" verdict)" = denied ] && [ ! -e "$out/f" ]; then
                ok "after the fallback a write outside the workspace is refused (denied; the control wrote it)"
        else
                not_ok "after the fallback the sandbox still confines writes" "$(cat "$tmp/o.json" 2>/dev/null)"
        fi
else
        not_ok "control: the same write succeeds unconfined in the test's namespace"
fi
rm -rf "$out"

err=$(inner --require userns -- true 2>&1)
rc=$?
if [ $rc = 125 ] && echo "$err" | grep -q "^cordon: "; then
        ok "--require userns refuses instead (125)"
else
        not_ok "--require userns refuses" "rc=$rc" "$err"
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
