# Tiny TAP helpers for integration scripts. Source it; call `finish` at the end.
# $CORDON is the built binary (set by tests/meson.build).
set -u
: "${CORDON:?CORDON must point at the built cordon binary}"
_n=0
_failed=0

ok() {
        _n=$((_n + 1))
        echo "ok $_n - $1"
}

not_ok() {
        _n=$((_n + 1))
        _failed=$((_failed + 1))
        echo "not ok $_n - $1"
        shift
        # every line of a multi-line detail is a comment, or TAP breaks
        for line in "$@"; do printf '%s\n' "$line" | sed 's/^/#   /'; done
}

# check "description" command... : ok when the command succeeds
check() {
        local desc=$1; shift
        local out
        if out=$("$@" 2>&1); then
                ok "$desc"
        else
                not_ok "$desc" "command: $*" "output: ${out:0:2000}"
        fi
}

skip() { # skip DESC [REASON]
        _n=$((_n + 1))
        if [ "${CORDON_TEST_MUST_WORK:-0}" = 1 ]; then
                _failed=$((_failed + 1))
                echo "not ok $_n - $1 # skipped, but CORDON_TEST_MUST_WORK=1: ${2:-}"
        else
                echo "ok $_n - $1 # SKIP ${2:-}"
        fi
}

diag() { printf '# %s\n' "$@"; }

# json_field FILE KEY : print one field of a JSON object
json_field() {
        python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print("null" if v is None else (str(v).lower() if isinstance(v,bool) else v))' "$1" "$2"
}

finish() {
        echo "1..$_n"
        [ "$_failed" -eq 0 ]
}

# has TEXT PART / hasnt TEXT PART: whether TEXT contains PART
has() { [[ "$1" == *"$2"* ]]; }
hasnt() { [[ "$1" != *"$2"* ]]; }

# expect DESC CONDITION...: ok when CONDITION succeeds, else not ok with the
# last attempt's RC, OUT and ERR (which the script's own runner sets)
expect() {
        local desc=$1
        shift
        if "$@"; then ok "$desc"; else not_ok "$desc" "rc=${RC:-}" "out: ${OUT:0:2000}" "err: ${ERR:0:2000}"; fi
}

# not COMMAND...: succeeds when COMMAND fails (for check, which runs a command)
not() { ! "$@"; }

# The python3 the scripts drive attempts with.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# tap_base NAME [PATH...]: BASE, a fresh directory below /var/tmp (never
# TMPDIR, nor /tmp: the sandbox's /tmp is its own), world-readable so the
# unprivileged pass can use it; at exit every pid in PIDS is killed, then
# BASE and the PATHs are removed.
PIDS=()
_tap_extra=()
_tap_cleanup() {
        local p
        for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
        wait 2>/dev/null # reaped here: no "Killed" notice from the shell
        rm -rf "$BASE" "${_tap_extra[@]}" 2>/dev/null
}
tap_base() {
        unset TMPDIR
        BASE=$(mktemp -d "/var/tmp/cordon-$1.XXXXXX") || exit 1
        chmod 755 "$BASE"
        shift
        _tap_extra=("$@")
        trap _tap_cleanup EXIT
}
