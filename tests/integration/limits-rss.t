#!/usr/bin/env bash
# cordon must not grow with its child's output: 10 GiB through --max-output 1M
# (captured with --json, and relayed interactively) keeps cordon's peak RSS
# under 16 MiB, measured by /usr/bin/time -v.
. "$(dirname "$0")/tap.sh"

if [ ! -x /usr/bin/time ]; then
        skip "peak RSS under 10 GiB of output" "/usr/bin/time is not installed (package time)"
        finish; exit
fi
tmp=$(mktemp -d /tmp/cordon-it-rss.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_CACHE_HOME=$tmp/cache
SIZE=${CORDON_RSS_BYTES:-10G}

for how in json interactive; do
        case $how in json) extra=(--json) ;; interactive) extra=() ;; esac
        t0=$(date +%s)
        /usr/bin/time -v -o "$tmp/time" "$CORDON" run --timeout 240 --max-output 1M "${extra[@]}" -- head -c "$SIZE" /dev/zero > "$tmp/out" 2> "$tmp/err"
        rc=$?
        secs=$(($(date +%s) - t0))
        kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
        echo "# $how: $SIZE through --max-output 1M in $secs s, peak RSS ${kb} KiB, exit $rc"
        if [ "$rc" = 0 ] && [ -n "$kb" ] && [ "$kb" -lt 16384 ]; then
                ok "$how: $SIZE of output, peak RSS ${kb} KiB < 16 MiB"
        else
                not_ok "$how: $SIZE of output, peak RSS ${kb:-?} KiB" "rc=$rc" "$(head -c 500 "$tmp/err")"
        fi
done
finish
