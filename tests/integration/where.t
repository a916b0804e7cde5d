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

# ---- a workspace below /tmp: what the private /tmp hides is said -------------
TW=$(mktemp -d /tmp/cordon-where-ws.XXXXXX) || exit 1
_tap_extra+=("$TW")
chmod 755 "$TW"
mkdir -p "$TW/ws" "$TW/dep"
echo dep-text > "$TW/dep/f"
echo ws-text > "$TW/ws/a"
chmod -R a+rX "$TW"
chmod 777 "$TW/ws"
expect_out() { if has "$out" "$2"; then ok "$1"; else not_ok "$1" "$out"; fi; }

# the backend's probe judges the kernel and the runner, not the caller's
# directory: a first run (no probe cache yet) from /tmp itself, which the
# private /tmp hides, is refused for its directory, and the native backend
# is not called unusable for it
FRESH=$(mktemp -d /var/tmp/cordon-where-cache.XXXXXX) || exit 1
_tap_extra+=("$FRESH")
out=$(cd /tmp && XDG_CACHE_HOME=$FRESH "$CORDON" run -- true 2>&1 </dev/null)
if ! has "$out" "backend is unusable" && has "$out" "chdir: /tmp: not the same directory"; then
	ok "a first run from /tmp is refused for its directory, not by a probe that calls native unusable"
else
	not_ok "a probe run from the caller's directory /tmp" "$out"
fi
control=$(cat "$TW/dep/f")
out=$(cd "$TW/ws" && "$CORDON" run --json -- sh -c 'cat ../dep/f' 2>&1 </dev/null)
if [ "$control" = dep-text ] && ! has "$out" dep-text && has "$out" "$TW/dep" && has "$out" "--read PATH"; then
	ok "a sibling of a workspace below /tmp is hidden, and the run's hints name it and --read"
else
	not_ok "a sibling of a workspace below /tmp is hidden, and the run's hints name it" "control: $control" "$out"
fi
out=$(cd "$TW/ws" && "$CORDON" run -- sh -c 'cat ../dep/f' 2>&1 </dev/null)
expect_out "... also without --json, on stderr" "hint: the sandbox's /tmp is its own"
# any host path below /tmp, from a workspace elsewhere: named when it exists
# on the host; one the command made in its own /tmp is not
out=$(cd "$WS" && "$CORDON" run --json -- sh -c "cat $TW/dep/f; echo x > /tmp/own; cat /tmp/own/x" 2>&1 </dev/null)
if ! has "$out" dep-text && has "$out" "the host's $TW/dep/f below /tmp" && ! has "$out" "/tmp/own below"; then
	ok "a host path below /tmp the command could not see is named in the hints (its own /tmp file is not)"
else
	not_ok "a host path below /tmp the command could not see is named in the hints" "$out"
fi
for backend in native bwrap; do
	if [ $backend = bwrap ] && ! command -v bwrap >/dev/null; then
		skip "bwrap: --read brings a sibling back" "bubblewrap is not installed"
		continue
	fi
	out=$(cd "$TW/ws" && "$CORDON" run --backend $backend --read "$TW/dep" -- \
		sh -c 'cat ../dep/f; echo changed > ../dep/f; echo wrc=$?; touch ../dep/new; echo trc=$?' 2>&1 </dev/null)
	if has "$out" dep-text && ! has "$out" "wrc=0" && ! has "$out" "trc=0" && [ "$(cat "$TW/dep/f")" = dep-text ] &&
	   [ ! -e "$TW/dep/new" ]; then
		ok "$backend: --read brings a sibling back, read-only (a write and a create fail, the host file is unchanged)"
	else
		not_ok "$backend: --read brings a sibling back, read-only" "$out"
	fi
done
# a tool's fs_read grant below /tmp: the host's files, for that tool only
cat > "$BASE/tw-tools.json" <<EOF
{ "workspace": "$WS",
  "command_policies": { "commands": { "tcat": { "executable": "$BIN/tcat", "sandbox": { "fs_read": ["$TW/dep"] } } } } }
EOF
session "$CORDON" "tcat $TW/dep/f; echo tool=\$?; cat $TW/dep/f; echo session=\$?" "$BASE/tw-tools.json"
if has "$OUT" dep-text && has "$OUT" tool=0 && has "$OUT" session=1; then
	ok "a tool's fs_read grant below /tmp reads the host's file; the session, without it, does not"
else
	not_ok "a tool's fs_read grant below /tmp" "out: $OUT" "err: $ERR"
fi
out=$(cd "$TW/ws" && "$CORDON" run --read /etc -- true 2>&1 </dev/null)
expect_out "--read of a path the private /tmp does not hide is refused, saying why" "not below /tmp or /dev/shm"
# the working directory below /tmp, a parent of the workspace: it comes back
# read-only, and the workspace inside it stays writable
out=$(cd "$TW" && "$CORDON" run --workspace "$TW/ws" -- \
	sh -c 'cat dep/f; echo x > ws/w && echo ws-writable; touch t; echo trc=$?' 2>&1 </dev/null)
if has "$out" dep-text && has "$out" ws-writable && ! has "$out" "trc=0" && [ ! -e "$TW/t" ]; then
	ok "a working directory below /tmp comes back read-only, the workspace inside it stays writable"
else
	not_ok "a working directory below /tmp comes back read-only" "$out"
fi
# `cordon exec --write /tmp` started below /tmp: /tmp is the private tmpfs,
# the working directory the host's
out=$(cd "$TW/ws" && "$CORDON" exec --write /tmp -- sh -c 'cat a' 2>&1 </dev/null)
expect_out "the runner started below /tmp with --write /tmp finds its working directory" ws-text
# a command whose binary lies below /tmp runs
cp /bin/echo "$INST/tmp-echo"
out=$(cd "$WS" && "$CORDON" run -- "$INST/tmp-echo" binary-below-tmp 2>&1 </dev/null)
expect_out "a command whose binary lies below /tmp runs" binary-below-tmp

# ---- cordon why agrees with what a run sees ----------------------------------
H=$BASE/home
mkdir -p "$H/.ssh" && echo key > "$H/.ssh/id_ed25519" && chmod -R a+rX "$H"
SHM=/dev/shm/cordon-where-$$
echo shm > "$SHM" && chmod 644 "$SHM"
_tap_extra+=("$SHM")
runpath=$(ls -d /run/* 2>/dev/null | head -1)
devpath=
for d in /dev/loop0 /dev/kmsg /dev/console /dev/vda /dev/sda /dev/tty0; do
	if [ -e "$d" ]; then devpath=$d; break; fi
done
# sees P: 0 when the sandbox sees P (a file it can read, a directory it can
# list, another node that exists)
sees='p=$1; if [ -f "$p" ]; then cat "$p" >/dev/null 2>&1; elif [ -d "$p" ]; then ls "$p" >/dev/null 2>&1; else test -e "$p"; fi'
for p in "$TW/dep/f" "$TW/ws/a" "$TW/dep" $runpath $devpath /dev/null /dev/urandom "$SHM" "$H/.ssh/id_ed25519" \
	/etc/hostname; do
	(cd "$TW/ws" && HOME=$H "$CORDON" run -- sh -c "$sees" sh "$p" >/dev/null 2>&1 </dev/null)
	inside=$?
	(cd "$TW/ws" && HOME=$H "$CORDON" why --path "$p" --op read >"$BASE/why" 2>&1 </dev/null)
	said=$?
	if { [ $inside = 0 ] && [ $said = 0 ]; } || { [ $inside != 0 ] && [ $said = 1 ]; }; then
		ok "why agrees with a run for $p (run: $inside, why: $said)"
	else
		not_ok "why agrees with a run for $p" "run: $inside" "why: $(cat "$BASE/why")"
	fi
done
(cd "$TW/ws" && "$CORDON" why --read "$TW/dep" --path "$TW/dep/f" --op read >"$BASE/why" 2>&1 </dev/null)
if [ $? = 0 ]; then ok "why --read agrees: the sibling is readable then"; else not_ok "why --read" "$(cat "$BASE/why")"; fi

finish
