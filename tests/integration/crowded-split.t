#!/usr/bin/env bash
# A hidden path below a granted directory is kept hidden by granting its
# siblings one by one (src/exec/landlock.c): light isolation's deny_read,
# and a tool sandbox's own reads. A crowded directory on that way (a full
# /var/tmp or HOME: 10,000 entries, past the old cap of 4096) still runs,
# the hidden file stays hidden and its siblings readable; beyond the bound
# (LANDLOCK_MAX_RULES) the launch is refused, saying what to do.
. "$(dirname "$0")/tap.sh"
tap_base crowded-split

D=$BASE/crowd BIG=$BASE/huge WS=$BASE/ws BIN=$BASE/bin
mkdir -p "$WS" "$BIN" "$BASE/state"
chmod 755 "$WS" "$BIN"
export XDG_STATE_HOME=$BASE/state
# 10,000 entries (files and a few directories), and 70,000 past the bound
"$PY" - "$D" 10000 "$BIG" 70000 <<'EOF'
import os, sys
for d, n in ((sys.argv[1], int(sys.argv[2])), (sys.argv[3], int(sys.argv[4]))):
    os.makedirs(d)
    for i in range(n):
        if i % 1000 == 999:
            os.mkdir(os.path.join(d, "d%d" % i))
        else:
            open(os.path.join(d, "f%d" % i), "w").close()
    with open(os.path.join(d, "f0"), "w") as f:
        f.write("crowded-secret\n")
    with open(os.path.join(d, "f1"), "w") as f:
        f.write("sibling\n")
EOF
chmod -R a+rX "$D" "$BIG"
cp /bin/cat "$BIN/tcat"
chmod 755 "$BIN/tcat"

[ "$(cat "$D/f0")" = crowded-secret ] && ok "control: unconfined, the file is readable" || not_ok "control" "$(cat "$D/f0" 2>&1)"

# ---- light isolation: deny_read in a crowded directory -----------------------
out=$(cd "$WS" && "$CORDON" run --isolation light --deny-read "$D/f0" -- sh -c "cat $D/f0; echo rc=\$?; cat $D/f1; ls -d $D/d999 && echo dir-ok" 2>&1)
if has "$out" "rc=1" && hasnt "$out" crowded-secret && has "$out" sibling && has "$out" dir-ok; then
	ok "light isolation, 10,000 entries beside a denied file: it runs, the file stays hidden, siblings readable"
else
	not_ok "light isolation in a crowded directory" "$out"
fi

# ---- a tool sandbox granting a crowded HOME, whose ~/.ssh cordon hides --------
# (the credential catalogue below HOME is denied to every sandbox; a tool's
# fs_read naming HOME splits it around .ssh)
mkdir -p "$D/.ssh"
echo ssh-secret > "$D/.ssh/id_test"
chmod 755 "$D/.ssh"
chmod 644 "$D/.ssh/id_test"
cat > "$BASE/p.json" <<EOF
{
  "workspace": "$WS",
  "command_policies": { "commands": {
    "tcat": { "executable": "$BIN/tcat", "sandbox": { "fs_read": ["$D"] } }
  } }
}
EOF
[ "$(cat "$D/.ssh/id_test")" = ssh-secret ] && ok "control: unconfined, ~/.ssh/id_test is readable" ||
	not_ok "ssh control"
out=$(cd "$WS" && HOME=$D "$CORDON" run --profile "$BASE/p.json" -- sh -c "tcat $D/.ssh/id_test; echo rc=\$?; tcat $D/f1" 2>&1 </dev/null)
if has "$out" "rc=1" && hasnt "$out" ssh-secret && has "$out" sibling; then
	ok "a tool whose fs_read is a HOME of 10,000 entries: it runs, ~/.ssh stays hidden, siblings readable"
else
	not_ok "tool in a crowded HOME" "${out:0:2000}"
fi

# ---- beyond the bound: refused, saying what to do ----------------------------------
out=$(cd "$WS" && "$CORDON" run --isolation light --deny-read "$BIG/f0" -- sh -c "echo RAN; cat $BIG/f0" 2>&1); rc=$?
if [ $rc = 125 ] && hasnt "$out" RAN && has "$out" "rules needed" && has "$out" "near $BIG" &&
   has "$out" "subdirectories" && has "$out" "cordon: landlock: more than" && hasnt "$out" "landlock: landlock:"; then
	ok "70,000 entries: the launch is refused (125), naming the directory and what to do, its step named once"
else
	not_ok "beyond the bound" "rc=$rc" "${out:0:2000}"
fi

finish
