#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A sandbox cannot steer the next policy through a link it made: a grant
# (filesystem.write, filesystem.read, a socket, a tool's paths, the
# workspace itself) that reaches its path through a symlink inside any
# writable root (the workspace, /tmp, $TMPDIR, a write grant) is refused
# with the path and the link named, never followed. The link is planted by
# a real earlier run; after each refusal the host's store is unchanged.
# Controls: a plain directory grant and a link outside every writable root
# (as /var/run -> /run) still work.
set -u

. "$(dirname "$0")/tap.sh"

tap_base grants

if ! "$CORDON" probe --json | "$PY" -c 'import json,sys; sys.exit(0 if any(b["backend"]=="native" and b["usable"] for b in json.load(sys.stdin)["backends"]) else 1)'; then
        skip "grants through links" "the native backend is not usable here"
        finish; exit
fi

export HOME=$BASE/home XDG_CACHE_HOME=$BASE/cache
ws=$BASE/ws
mkdir -p "$HOME/.ssh" "$ws" "$BASE/extra" "$BASE/etclike" "$BASE/sysdir"
echo "PRIVATE-KEY-$$" > "$HOME/.ssh/id_ed25519"
ssh_before=$(ls -la "$HOME/.ssh" | md5sum)
cd "$ws"

prof() { # prof NAME SECTION JSON-LIST: a profile extending workspace-write
        printf '{ "extends": "workspace-write", "%s": { "%s": %s } }\n' "$2" "$3" "$4" > "$BASE/$1.json"
}
crun() { "$CORDON" run --backend native "$@"; }

# An earlier run plants the links, for real, from inside its sandbox.
crun -- sh -c "ln -s '$HOME/.ssh' build && ln -s '$BASE/etclike' out" 2>/dev/null
check "an earlier run could plant build -> ~/.ssh and out -> elsewhere" [ -L "$ws/build" -a -L "$ws/out" ]

# ---- write grants ---------------------------------------------------------
prof w1 filesystem write '["$WORKSPACE/build"]'
err=$(crun --profile "$BASE/w1.json" -- sh -c "echo pwned > build/authorized_keys" 2>&1)
rc=$?
check "filesystem.write through build -> ~/.ssh is refused" [ $rc -ne 0 ]
check "... naming the grant and the link" grep -q "symlink $ws/build" <<<"$err"
check "... and the host's ~/.ssh is unchanged" [ "$(ls -la "$HOME/.ssh" | md5sum)" = "$ssh_before" -a ! -e "$HOME/.ssh/authorized_keys" ]

prof w2 filesystem write '["$WORKSPACE/out/x"]'
mkdir -p "$BASE/etclike/x"
crun --profile "$BASE/w2.json" -- sh -c "echo pwned > out/x/passwd" 2>/dev/null
rc=$?
check "a link in a middle component (out/x, out -> elsewhere) is refused" [ $rc -ne 0 -a ! -e "$BASE/etclike/x/passwd" ]

prof w3 filesystem write '["$WORKSPACE/build/../.ssh"]'
crun --profile "$BASE/w3.json" -- true 2>/dev/null
check "a '..' after the link (build/../.ssh) is refused" [ $? -ne 0 ]

# A link in a write grant's own directory redirects another grant.
ln -s "$HOME/.ssh" "$BASE/extra/keys"
printf '{ "extends": "workspace-write", "filesystem": { "write": ["%s", "%s"] } }\n' "$BASE/extra" "$BASE/extra/keys" > "$BASE/w4.json"
crun --profile "$BASE/w4.json" -- true 2>/dev/null
check "a link inside another write grant is refused too" [ $? -ne 0 ]
rm -f "$BASE/extra/keys"

# ---- read grants, sockets, the workspace ------------------------------------
prof r1 filesystem read '["$WORKSPACE/build"]'
out=$(crun --profile "$BASE/r1.json" -- sh -c "cat build/id_ed25519" 2>&1)
rc=$?
check "a read grant through build -> ~/.ssh is refused (the hiding holds)" [ $rc -ne 0 ]
check "... and the key never reaches the output" not grep -q "PRIVATE-KEY-$$" <<<"$out"

"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$BASE/host.sock"
ln -s "$BASE/host.sock" "$ws/agent.sock"
crun --allow-unix-socket "$ws/agent.sock" -- true 2>/dev/null
check "--allow-unix-socket through a link in the workspace is refused" [ $? -ne 0 ]
prof s1 network allow_unix_sockets '["$WORKSPACE/agent.sock"]'
crun --profile "$BASE/s1.json" -- true 2>/dev/null
check "network.allow_unix_sockets through a link in the workspace is refused" [ $? -ne 0 ]

mkdir -p "$BASE/tmpd"
ln -s "$HOME/.ssh" "$BASE/tmpd/ws"
(cd / && TMPDIR=$BASE/tmpd "$CORDON" run --backend native --workspace "$BASE/tmpd/ws" -- sh -c 'echo x > pwned') 2>/dev/null
check "a workspace given through a link inside \$TMPDIR is refused" [ $? -ne 0 -a ! -e "$HOME/.ssh/pwned" ]

# A tool's paths (command_policies): its exec and read grants the same.
cat > "$BASE/t1.json" <<EOF
{ "extends": "workspace-write",
  "command_policies": { "commands": { "true": { "sandbox": { "fs_read": ["\$WORKSPACE/build"] } } } } }
EOF
err=$("$CORDON" profile validate "$BASE/t1.json" 2>&1)
rc=$?
check "a tool sandbox's read grant through the link is refused at load" [ $rc -ne 0 ]
check "... naming the link" grep -q "symlink $ws/build" <<<"$err"

for key in fs_write exec_paths; do
        printf '{ "extends": "workspace-write", "command_policies": { "commands": { "true": { "sandbox": { "%s": ["$WORKSPACE/out/x"] } } } } }\n' "$key" > "$BASE/t-$key.json"
        err=$("$CORDON" profile validate "$BASE/t-$key.json" 2>&1)
        rc=$?
        check "a tool sandbox's $key through out -> elsewhere is refused at load" [ $rc -ne 0 ]
        check "... naming the link" grep -q "symlink $ws/out" <<<"$err"
done

# A link inside a tool's writable directory redirects the profile's grant.
mkdir -p "$BASE/toolcache"
ln -s "$HOME/.ssh" "$BASE/toolcache/keys"
printf '{ "extends": "workspace-write", "filesystem": { "read": ["%s"] }, "command_policies": { "commands": { "true": { "sandbox": { "fs_write": ["%s"] } } } } }\n' "$BASE/toolcache/keys" "$BASE/toolcache" > "$BASE/t2.json"
err=$("$CORDON" profile validate "$BASE/t2.json" 2>&1)
rc=$?
check "a read grant through a link inside a tool's fs_write is refused" [ $rc -ne 0 ]
check "... naming the link" grep -q "symlink $BASE/toolcache/keys" <<<"$err"

# ---- controls ----------------------------------------------------------------
printf '{ "extends": "workspace-write", "command_policies": { "commands": { "true": { "sandbox": { "fs_read": ["$WORKSPACE"], "exec_paths": ["/usr"] } } } } }\n' > "$BASE/t-ok.json"
check "control: a tool sandbox's paths with no link in a writable root load" "$CORDON" profile validate "$BASE/t-ok.json"
printf '{ "extends": "workspace-write", "filesystem": { "write": ["%s"] } }\n' "$BASE/extra" > "$BASE/c1.json"
crun --profile "$BASE/c1.json" -- sh -c "echo granted > '$BASE/extra/made'"
check "control: a plain directory grant works" [ "$(cat "$BASE/extra/made" 2>/dev/null)" = granted ]
ln -s "$BASE/sysdir" "$BASE/syslink"
printf '{ "extends": "workspace-write", "filesystem": { "write": ["%s"] } }\n' "$BASE/syslink" > "$BASE/c2.json"
crun --profile "$BASE/c2.json" -- sh -c "echo granted > '$BASE/syslink/made'"
check "control: a link outside every writable root is followed" [ "$(cat "$BASE/sysdir/made" 2>/dev/null)" = granted ]
ln -s "$BASE/sysdir" "$BASE/wslink"
(cd / && "$CORDON" run --backend native --workspace "$BASE/wslink" -- sh -c "echo ws > '$BASE/wslink/made-ws'")
check "control: a workspace through a link outside every writable root works" [ "$(cat "$BASE/sysdir/made-ws" 2>/dev/null)" = ws ]

finish
