#!/usr/bin/env bash
# cordon works from wherever it is built or installed: the shim, the runner
# and the supervisor copied below /tmp (which every sandbox replaces with a
# private tmpfs) still reach the sandbox, and one of them inside a root the
# session can write is refused, naming the path. Real runs, no network.
. "$(dirname "$0")/tap.sh"
tap_base where
CLI=$(dirname "$CORDON")
# the copies live below the host's /tmp: the sandbox's /tmp is its own
INST=$(mktemp -d /tmp/cordon-where-inst.XXXXXX) || exit 1
_tap_extra+=("$INST")
chmod 755 "$INST"
cp "$CLI/cordon" "$CLI/cordon-shim" "$CLI/cordon-supervisor" "$INST/"
chmod 755 "$INST"/*

WS=$BASE/ws BIN=$BASE/bin
mkdir -p "$WS/public" "$BIN" "$BASE/state"
chmod 755 "$WS" "$BIN" "$WS/public"
echo public-text > "$WS/public/a.txt"
chmod 644 "$WS/public/a.txt"
cp /bin/cat "$BIN/tcat"
cp /bin/dash "$BIN/tsh"
chmod 755 "$BIN"/*
export XDG_STATE_HOME=$BASE/state

profile() { # profile FILE WORKSPACE
	cat > "$1" <<EOF
{
  "workspace": "$2",
  "command_policies": {
    "commands": {
      "tcat": { "executable": "$BIN/tcat", "sandbox": { "fs_read": ["\$WORKSPACE/public"] } },
      "tsh": { "executable": "$BIN/tsh", "sandbox": { "fs_read": ["\$WORKSPACE"] }, "can_use": ["tcat"] }
    }
  }
}
EOF
}
P=$BASE/profile.json
profile "$P" "$WS"

# session CORDON SCRIPT [PROFILE]: OUT, ERR, RC
session() {
	(cd "$WS" && "$1" run --profile "${3:-$P}" -- sh -c "$2" >"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
expect() { # expect DESC CONDITION...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc" "rc=$RC" "out: ${OUT:0:1500}" "err: ${ERR:0:1500}"; fi
}
has() { [[ "$1" == *"$2"* ]]; }

# ---- the shim, from a build below /tmp ----------------------------------------
session "$CORDON" 'tcat public/a.txt; echo rc=$?'
expect "control: from the build tree, the session calls a tool through its shim" has "$OUT" "public-text"
session "$INST/cordon" 'tcat public/a.txt; echo rc=$?'
expect "from a copy below /tmp, the session calls a tool through its shim" has "$OUT" "public-text"
expect "... and it exits as the tool did" has "$OUT" "rc=0"
session "$INST/cordon" 'tsh -c "tcat public/a.txt; echo inner=\$?"'
expect "... and a tool calls another through its own shim (the execute-only gate lets the shim run)" has "$OUT" "public-text"
session "$INST/cordon" 'test -x /run/cordon/bin/tcat && echo shim-there; echo x > /run/cordon/bin/tcat; echo rc=$?'
sealed() { has "$OUT" shim-there && ! has "$OUT" rc=0; }
expect "... the shim in the sealed directory is there and cannot be written" sealed

# ---- cordon's own binaries inside a root the session can write ----------------
OWN=$WS/cordon-copy
mkdir -p "$OWN" && chmod 755 "$OWN"
cp "$CLI/cordon" "$CLI/cordon-shim" "$CLI/cordon-supervisor" "$OWN/"
chmod 755 "$OWN"/*
session "$OWN/cordon" 'tcat public/a.txt; echo rc=$?'
expect "a shim inside the workspace is refused ..." not has "$OUT" "public-text"
expect "... with an error naming the shim and the root" has "$ERR" "$OWN/cordon-shim lies in $WS"
(cd "$WS" && CORDON_SHIM=$INST/cordon-shim "$OWN/cordon" run --profile "$P" -- sh -c 'tcat public/a.txt' \
	>"$BASE/out" 2>"$BASE/err" </dev/null)
RC=$? OUT=$(cat "$BASE/out") ERR=$(cat "$BASE/err")
expect "a runner or supervisor inside the workspace is refused, naming it" \
	eval 'has "$ERR" "$OWN/cordon" && has "$ERR" "which the session can write" && ! has "$OUT" public-text'
# the runner's own check, for any caller of `cordon exec`
out=$("$INST/cordon" exec --isolation full --private-tmp --write "$WS" --broker-fd 3 --shim-path "$OWN/cordon-shim" \
	--shim tcat -- true 2>&1 </dev/null 3</dev/null)
if has "$out" "the shim $OWN/cordon-shim lies in $WS"; then
	ok "the runner refuses a shim inside a writable root"
else
	not_ok "the runner refuses a shim inside a writable root" "$out"
fi

# ---- bwrap, from a copy below /tmp --------------------------------------------
if command -v bwrap >/dev/null; then
	out=$(cd "$WS" && "$INST/cordon" run --backend bwrap --json -- sh -c 'echo inside-bwrap' 2>&1 </dev/null)
	if has "$out" "inside-bwrap" && has "$out" '"verdict":"ok"'; then
		ok "bwrap backend from a copy below /tmp runs the command (runner reached)"
	else
		not_ok "bwrap backend from a copy below /tmp runs the command" "$out"
	fi
	out=$(cd "$WS" && "$INST/cordon" run --backend bwrap -- sh -c 'touch /etc/cordon-where-$$; echo rc=$?' 2>&1 </dev/null)
	if has "$out" "rc=1" && [ ! -e /etc/cordon-where-$$ ]; then
		ok "... and still confines (a write to /etc fails)"
	else
		not_ok "... and still confines" "$out"
	fi
else
	skip "bwrap backend from a copy below /tmp" "bubblewrap is not installed"
fi

finish
