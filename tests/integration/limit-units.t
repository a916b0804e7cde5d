#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# One grammar for sizes and durations (cordon_parse_size and
# cordon_parse_duration, cordon.h): a limit spelled on
# the command line and the same spelling in a profile mean the same thing.
# Before, `--timeout 10m` was refused while a profile's "10m" was taken,
# and a profile's "64m" was refused while `--max-output 64m` was taken.
# Each agreement is shown twice: in what `cordon explain` says it will
# enforce, and for the timeout in a real run that the limit ends, beside a
# control that the same limit lets finish.
. "$(dirname "$0")/tap.sh"

BASE=$(mktemp -d /var/tmp/cordon-units.XXXXXX)
trap 'rm -rf "$BASE"' EXIT
cd "$BASE"

j() { python3 -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("null" if v is None else v)' "$1"; }
limits_of() { sed -n '/^limits/,$p'; }

# --- explain: the flag and the profile key say the same ---------------------
profile() { # profile FILE JSON-LIMITS
        printf '{"limits": %s}\n' "$2" > "$1"
}

profile p.json '{"timeout": "10m", "cpu": "1m", "memory": "1T", "max_output": "64m", "max_file_size": "2GiB"}'
flags=$("$CORDON" explain --timeout 10m --cpu 1m --memory 1T --max-output 64m --max-file-size 2GiB -- true 2>&1)
rc_flags=$?
prof=$("$CORDON" explain --profile p.json -- true 2>&1)
rc_prof=$?
if [ $rc_flags = 0 ] && [ $rc_prof = 0 ] && [ -n "$(limits_of <<<"$flags")" ] &&
   [ "$(limits_of <<<"$flags")" = "$(limits_of <<<"$prof")" ] &&
   grep -q "wall clock 600000 ms" <<<"$flags" && grep -q "^  60 CPU seconds" <<<"$flags" &&
   grep -q "1099511627776 bytes of memory" <<<"$flags" && grep -q "output: 67108864 bytes" <<<"$flags" &&
   grep -q "files up to 2147483648 bytes" <<<"$flags"; then
        ok "--timeout 10m --cpu 1m --memory 1T --max-output 64m --max-file-size 2GiB explain as the profile's same strings"
else
        not_ok "flags and profile limits agree" "flags rc=$rc_flags: $(limits_of <<<"$flags")" \
                "profile rc=$rc_prof: $(limits_of <<<"$prof")" "${flags:0:300}"
fi

# fractions and units the old CLI parser (strtod) and the old profile
# parser (integers with s|m|h) each lacked
profile f.json '{"timeout": "1.5m"}'
a=$("$CORDON" explain --timeout 1.5m -- true 2>&1 | limits_of)
b=$("$CORDON" explain --profile f.json -- true 2>&1 | limits_of)
if grep -q "wall clock 90000 ms" <<<"$a" && [ "$a" = "$b" ]; then
        ok "--timeout 1.5m and a profile's \"1.5m\" are both 90 s"
else
        not_ok "1.5m agrees" "flag: $a" "profile: $b"
fi
a=$("$CORDON" explain --timeout 1.5 -- true 2>&1 | limits_of)
if grep -q "wall clock 1500 ms" <<<"$a"; then
        ok "a bare number is still seconds, fractions still work: --timeout 1.5 is 1500 ms"
else
        not_ok "--timeout 1.5" "$a"
fi

# --- refusals agree too ------------------------------------------------------
for bad in 10x 1e3 -5 "1 s" 10M; do
        profile bad.json "{\"timeout\": \"$bad\"}"
        out_f=$("$CORDON" explain --timeout "$bad" -- true 2>&1); rc_f=$?
        out_p=$("$CORDON" profile validate bad.json 2>&1); rc_p=$?
        if [ $rc_f != 0 ] && grep -q -- "--timeout: '$bad' is not" <<<"$out_f" &&
           [ $rc_p != 0 ] && grep -q "at /limits/timeout: \"$bad\" is not a duration" <<<"$out_p"; then
                ok "\"$bad\" is refused as a duration by the flag and the profile alike"
        else
                not_ok "\"$bad\" refused by both" "flag rc=$rc_f: $out_f" "profile rc=$rc_p: $out_p"
        fi
done
for bad in 64X 1.5M 1P 64Mb; do
        profile bad.json "{\"memory\": \"$bad\"}"
        out_f=$("$CORDON" explain --memory "$bad" -- true 2>&1); rc_f=$?
        out_p=$("$CORDON" profile validate bad.json 2>&1); rc_p=$?
        if [ $rc_f != 0 ] && grep -q -- "--memory: '$bad' is not a size" <<<"$out_f" &&
           [ $rc_p != 0 ] && grep -q "at /limits/memory: \"$bad\" is not a size" <<<"$out_p"; then
                ok "\"$bad\" is refused as a size by the flag and the profile alike"
        else
                not_ok "\"$bad\" refused by both" "flag rc=$rc_f: $out_f" "profile rc=$rc_p: $out_p"
        fi
done
# A profile keeps whole seconds; so does --cpu. --timeout has milliseconds.
profile ms.json '{"timeout": "1500ms"}'
out_p=$("$CORDON" profile validate ms.json 2>&1); rc_p=$?
out_c=$("$CORDON" explain --cpu 1500ms -- true 2>&1); rc_c=$?
out_t=$("$CORDON" explain --timeout 1500ms -- true 2>&1 | limits_of)
if [ $rc_p != 0 ] && grep -q '"1500ms" is not a whole number of seconds' <<<"$out_p" &&
   [ $rc_c != 0 ] && grep -q -- "--cpu: '1500ms'" <<<"$out_c" && grep -q "wall clock 1500 ms" <<<"$out_t"; then
        ok "\"1500ms\": refused where whole seconds are kept (profile, --cpu), 1500 ms for --timeout"
else
        not_ok "1500ms" "profile rc=$rc_p: $out_p" "cpu rc=$rc_c: $out_c" "timeout: $out_t"
fi

# --- a real run: "1s" ends the command, "10m" lets it finish -----------------
out=$("$CORDON" run --json --timeout 10m -- true 2>&1)
if [ "$(j verdict <<<"$out" 2>/dev/null)" = unavailable ] || [ "$(j enforcement <<<"$out" 2>/dev/null)" = none ]; then
        skip "--timeout in a real run" "no enforcing backend here: $(j runner_line <<<"$out" 2>/dev/null)"
else
        profile t1.json '{"timeout": "1s"}'
        profile t10.json '{"timeout": "10m"}'
        for how in "--timeout 1s" "--profile t1.json"; do
                t0=$(date +%s)
                # shellcheck disable=SC2086 # $how is two words on purpose
                out=$("$CORDON" run --json $how -- sleep 30 2>&1)
                t1=$(date +%s)
                if [ "$(j verdict <<<"$out")" = timeout ] && [ "$(j exit_code <<<"$out")" = 124 ] &&
                   [ $((t1 - t0)) -le 10 ]; then
                        ok "$how: sleep 30 is killed after a second (verdict timeout, exit 124)"
                else
                        not_ok "$how ends sleep 30" "$((t1 - t0)) s" "$out"
                fi
                ctl=${how/1s/10m}
                ctl=${ctl/t1.json/t10.json}
                # shellcheck disable=SC2086
                out=$("$CORDON" run --json $ctl -- sleep 0.2 2>&1)
                if [ "$(j verdict <<<"$out")" = ok ] && [ "$(j exit_code <<<"$out")" = 0 ]; then
                        ok "control, $ctl: sleep 0.2 finishes (verdict ok, exit 0)"
                else
                        not_ok "control $ctl" "$out"
                fi
        done
fi

finish
