#!/usr/bin/env bash
# Signed profile packs (issue 24), end to end with keys this test makes:
# cordon's verdict on SSH signatures agrees with `ssh-keygen -Y verify`;
# a signed pack installs and its profile runs; each refusal (trust file,
# signer, owner, hashes, what a pack may carry, archives' shapes,
# confirmation) is made for real and named; a pack edited or a trust file
# removed after install refuses the next run. Runs as root and as any
# user: HOME is a fresh directory.
set -u
. "$(dirname "$0")/tap.sh"
: "${CORDON_BUILDDIR:?CORDON_BUILDDIR must point at the build directory}"
driver=$CORDON_BUILDDIR/tests/integration/pack-driver
command -v ssh-keygen >/dev/null || { echo "1..0 # SKIP no ssh-keygen"; exit 0; }
tap_base packs
export HOME=$BASE/home
unset XDG_CONFIG_HOME CORDON_SUPERVISOR
mkdir -p "$HOME/.config/cordon" "$BASE/keys" "$BASE/ws/out"
TRUST=$HOME/.config/cordon/allowed_signers
K=$BASE/keys

# run CMD...: OUT (stdout and stderr), RC
run() { OUT=$("$@" 2>&1 </dev/null); RC=$?; }
# refused DESC GREP CMD...: CMD fails and says GREP
refused() {
	local desc=$1 want=$2; shift 2
	run "$@"
	if [ "$RC" != 0 ] && grep -qF -- "$want" <<<"$OUT"; then ok "$desc"; else
		not_ok "$desc" "rc=$RC, want non-zero saying '$want'" "${OUT:0:1500}"; fi
}
works() {
	local desc=$1; shift
	run "$@"
	if [ "$RC" = 0 ]; then ok "$desc"; else not_ok "$desc" "rc=$RC" "${OUT:0:1500}"; fi
}

for t in ed25519 ecdsa rsa; do
	case $t in ecdsa) b="-b 256" ;; rsa) b="-b 3072" ;; *) b="" ;; esac
	ssh-keygen -q -t $t $b -N '' -C "$t" -f "$K/$t" || exit 1
done
ssh-keygen -q -t ed25519 -N '' -C other -f "$K/other" || exit 1
pub() { cut -d' ' -f1,2 "$K/$1.pub"; }

# ---- cordon agrees with ssh-keygen -Y verify ----
echo "a message" >"$BASE/msg"
echo "a messagf" >"$BASE/tampered"
for t in ed25519 ecdsa rsa; do
	echo "alice namespaces=\"cordon-pack\" $(pub $t)" >"$BASE/as-$t"
	ssh-keygen -q -Y sign -n cordon-pack -f "$K/$t" "$BASE/msg" && mv "$BASE/msg.sig" "$BASE/msg.$t.sig"
	for case in good tampered namespace principal; do
		msg=$BASE/msg ns=cordon-pack who=alice
		case $case in
		tampered) msg=$BASE/tampered ;;
		namespace) ns=other-ns ;;
		principal) who=mallory ;;
		esac
		# ssh-keygen's namespace must be in the file's namespaces= too
		sed "s/cordon-pack/$ns/" "$BASE/as-$t" >"$BASE/as-$t-$ns"
		"$driver" verify "$BASE/as-$t-$ns" "$who" "$ns" "$msg" "$BASE/msg.$t.sig" >/dev/null 2>&1
		mine=$?
		ssh-keygen -Y verify -f "$BASE/as-$t-$ns" -I "$who" -n "$ns" -s "$BASE/msg.$t.sig" <"$msg" >/dev/null 2>&1
		theirs=$?
		want=1
		[ $case = good ] && want=0
		if [ $mine = $want ] && [ $((theirs != 0)) = $want ]; then
			ok "$t, $case: cordon and ssh-keygen agree ($([ $want = 0 ] && echo good || echo refused))"
		else
			not_ok "$t, $case: cordon and ssh-keygen agree" "cordon exit $mine, ssh-keygen exit $theirs, want $want"
		fi
	done
done

# ---- a pack ----
# mkpack DIR VERSION KEY [PROFILE-JSON]: a signed pack acme/tools
mkpack() {
	local dir=$1 version=$2 key=$3 prof=${4:-}
	rm -rf "$dir"
	mkdir -p "$dir/profiles"
	[ -n "$prof" ] || prof='{ "extends": "workspace-write", "filesystem": { "write": ["$WORKSPACE/out"] }, "network": { "mode": "none" } }'
	printf '%s\n' "$prof" >"$dir/profiles/build.json"
	local h
	h=$(sha256sum "$dir/profiles/build.json" | cut -d' ' -f1)
	printf '{"name":"acme/tools","version":"%s","description":"a test pack","profiles":{"build":"profiles/build.json"},"files":{"profiles/build.json":"%s"}}\n' \
		"$version" "$h" >"$dir/pack.json"
	[ "$key" = none ] || ssh-keygen -q -Y sign -n cordon-pack -f "$K/$key" "$dir/pack.json"
}
cd "$BASE/ws" || exit 1
mkpack "$BASE/p1" 1.0.0 ed25519

refused "no trust file: install refused" "no trust file" "$CORDON" pack install --yes "$BASE/p1"
: >"$TRUST"
refused "an empty trust file: install refused" "lists no signer" "$CORDON" pack install --yes "$BASE/p1"
echo "acme namespaces=\"cordon-pack\" $(pub other)" >"$TRUST"
refused "a signer not in the trust file: refused" "not in the trust file" "$CORDON" pack install --yes "$BASE/p1"
echo "someone-else namespaces=\"cordon-pack\" $(pub ed25519)" >"$TRUST"
refused "a principal that does not own the pack's name: refused" "not for this owner" "$CORDON" pack install --yes "$BASE/p1"
echo "acme namespaces=\"git\" $(pub ed25519)" >"$TRUST"
refused "a key trusted for another namespace only: refused" "namespace cordon-pack" "$CORDON" pack install --yes "$BASE/p1"
echo "acme namespaces=\"cordon-pack\",valid-before=\"20200101\" $(pub ed25519)" >"$TRUST"
refused "an expired key (valid-before): refused" "expired" "$CORDON" pack install --yes "$BASE/p1"
echo "ac* namespaces=\"cordon-pack\" $(pub ed25519)" >"$TRUST"
refused "a principal pattern in the trust file: refused" "exact names" "$CORDON" pack install --yes "$BASE/p1"
echo "acme cert-authority,namespaces=\"cordon-pack\" $(pub ed25519)" >"$TRUST"
refused "cert-authority in the trust file: refused" "cert-authority" "$CORDON" pack install --yes "$BASE/p1"
echo "acme namespaces=\"cordon-pack\" sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIFNVvKKd3s8w5pAVq9eP7Wm+fhE66pRu4hhHpPyd9AXMAAAABHNzaDo= x" >"$TRUST"
refused "a security-key type in the trust file: refused by name" "security-key" "$CORDON" pack install --yes "$BASE/p1"
echo "acme namespaces=\"cordon-pack\" $(pub ed25519)" >"$TRUST"

mkpack "$BASE/nosig" 1.0.0 none
refused "a pack without pack.json.sig: refused" "no signature" "$CORDON" pack install --yes "$BASE/nosig"
mkpack "$BASE/badhash" 1.0.0 ed25519
echo " " >>"$BASE/badhash/profiles/build.json"
refused "a file whose hash does not match pack.json: refused" "does not match its SHA-256" "$CORDON" pack install --yes "$BASE/badhash"
mkpack "$BASE/tamper" 1.0.0 ed25519
sed -i 's/a test pack/a test pac/' "$BASE/tamper/pack.json"
refused "pack.json changed after signing: refused" "does not match" "$CORDON" pack install --yes "$BASE/tamper"
refused "not on a terminal and no --yes: refused" "not confirmed" "$CORDON" pack install "$BASE/p1"

# ---- what a pack may carry ----
carry() { # DESC GREP PROFILE-JSON
	mkpack "$BASE/bad" 1.0.0 ed25519 "$3"
	refused "a pack with $1: refused, named" "$2" "$CORDON" pack install --yes "$BASE/bad"
}
carry "credentials" "/credentials" '{ "credentials": { "gh": { "source": "env://GH", "hosts": ["api.github.com"] } } }'
carry "credential_capture" "/credential_capture" '{ "credential_capture": {} }'
carry "approval backends" "/command_policies/approval_backends" '{ "command_policies": { "approval_backends": { "t": { "type": "terminal" } } } }'
carry "open_urls" "/open_urls" '{ "open_urls": { "allow_origins": ["https://github.com"] } }'
carry "network mode host" "/network/mode" '{ "network": { "mode": "host" } }'
carry "allow_addresses" "/network/allow_addresses" '{ "network": { "mode": "proxy", "allow_addresses": ["10.0.0.0/8"] } }'
carry "allow_unix_sockets" "/network/allow_unix_sockets" '{ "network": { "allow_unix_sockets": ["/run/x.sock"] } }'
carry "a write outside the workspace" "/filesystem/write/0" '{ "filesystem": { "write": ["$HOME/.bashrc"] } }'
carry "a write climbing out of the workspace" "/filesystem/write/0" '{ "filesystem": { "write": ["$WORKSPACE/../x"] } }'
carry "a tool sandbox's write outside the workspace" "fs_write/0" '{ "command_policies": { "commands": { "git": { "sandbox": { "fs_write": ["/etc"] } } } } }'
carry "a group bypass (un-protecting persistence)" "/groups" '{ "groups": { "persistence": { "bypass": [".bashrc"] } } }'
carry "a credential group lifted" "/groups" '{ "groups": { "credentials": { "lift": ["ssh"] } } }'
carry "danger-full-access" "danger-full-access" '{ "mode": "danger-full-access" }'
carry "extends of a path" "/extends" '{ "extends": "/etc/cordon/mine.json" }'
carry "extends of another pack" "/extends" '{ "extends": "evil/pack/x" }'
carry "a workspace of its own" "/workspace" '{ "workspace": "/" }'
carry "a read grant of the trust file" "deny always wins" '{ "filesystem": { "read": ["$HOME/.config/cordon/allowed_signers"] } }'
carry "a read grant of ~/.ssh" "deny always wins" '{ "filesystem": { "read": ["$HOME/.ssh"] } }'
mkpack "$BASE/exe" 1.0.0 ed25519
chmod +x "$BASE/exe/profiles/build.json"
refused "a pack shipping an executable: refused" "executables" "$CORDON" pack install --yes "$BASE/exe"
mkpack "$BASE/link" 1.0.0 ed25519
ln -s /etc/passwd "$BASE/link/profiles/extra.json"
refused "a pack holding a symlink: refused" "symbolic link" "$CORDON" pack install --yes "$BASE/link"
mkpack "$BASE/extra" 1.0.0 ed25519
echo x >"$BASE/extra/unlisted.txt"
refused "a pack holding an unlisted file: refused" "not listed" "$CORDON" pack install --yes "$BASE/extra"
mkpack "$BASE/hard" 1.0.0 ed25519
ln "$BASE/hard/pack.json" "$BASE/hard/profiles/hl.json"
refused "a pack holding a hard link: refused" "hard link" "$CORDON" pack install --yes "$BASE/hard"

# ---- install, use, and every use re-checked ----
works "a signed pack installs (--yes)" "$CORDON" pack install --yes "$BASE/p1"
expect "install printed the grants (mode, writes, network)" has "$OUT" 'writes: $WORKSPACE/out'
works "pack list names it" "$CORDON" pack list
expect "pack list: acme/tools 1.0.0" has "$OUT" "acme/tools 1.0.0"
works "pack verify: it holds" "$CORDON" pack verify
works "its profile runs (--profile acme/tools/build), writing where it grants" \
	"$CORDON" run --profile acme/tools/build -- sh -c 'echo made >out/x'
expect "the write it granted landed" test "$(cat "$BASE/ws/out/x" 2>/dev/null)" = made
refused "its profile does not grant a write outside the workspace" "" \
	"$CORDON" run --profile acme/tools/build -- sh -c "echo no >$HOME/outside"
expect "nothing was written outside" test ! -e "$HOME/outside"
works "control: the trust file and the store are readable outside a sandbox" \
	cat "$TRUST" "$HOME/.config/cordon/packs/lock.json" "$HOME/.config/cordon/packs/acme/tools/pack.json"
for f in "$TRUST" "$HOME/.config/cordon/packs/lock.json" "$HOME/.config/cordon/packs/acme/tools/pack.json"; do
	refused "a sandbox cannot read ${f#$HOME/}" "" "$CORDON" run --profile acme/tools/build -- cat "$f"
	refused "... nor under the default profile" "" "$CORDON" run -- cat "$f"
done
refused "a sandbox cannot list the store" "" "$CORDON" run -- ls "$HOME/.config/cordon/packs"
mkdir -p "$HOME/.config/cordon/profiles"
echo '{ "extends": "acme/tools/build" }' >"$HOME/.config/cordon/profiles/mine.json"
works "a user's profile extending the pack's runs" "$CORDON" run --profile mine -- true

store=$HOME/.config/cordon/packs/acme/tools
cp "$store/profiles/build.json" "$BASE/saved.json"
echo '{ "extends": "workspace-write", "filesystem": { "write": ["$WORKSPACE"] } }' >"$store/profiles/build.json"
refused "a pack file edited after install: the next run is refused" "does not match" \
	"$CORDON" run --profile acme/tools/build -- true
refused "... and a profile extending it is refused too" "does not match" "$CORDON" run --profile mine -- true
refused "... and pack verify says so" "does not match" "$CORDON" pack verify
cp "$BASE/saved.json" "$store/profiles/build.json"
works "the file restored: it runs again" "$CORDON" run --profile acme/tools/build -- true
mv "$TRUST" "$BASE/trust.saved"
refused "the trust file removed after install: the next run is refused" "no trust file" \
	"$CORDON" run --profile acme/tools/build -- true
mv "$BASE/trust.saved" "$TRUST"
rm "$store/pack.json.sig"
refused "the signature removed after install: the next run is refused" "no signature" \
	"$CORDON" run --profile acme/tools/build -- true
cp "$BASE/p1/pack.json.sig" "$store/pack.json.sig"
works "the signature restored: it runs again" "$CORDON" run --profile acme/tools/build -- true
echo "acme namespaces=\"cordon-pack\" $(pub ecdsa)" >>"$TRUST"
ssh-keygen -q -Y sign -n cordon-pack -f "$K/ecdsa" -O hashalg=sha512 - <"$store/pack.json" >"$BASE/by-ecdsa.sig"
cp "$BASE/by-ecdsa.sig" "$store/pack.json.sig"
refused "re-signed in the store by another trusted key: the next run is refused (the lock pins the key)" \
	"another key" "$CORDON" run --profile acme/tools/build -- true
cp "$BASE/p1/pack.json.sig" "$store/pack.json.sig"
echo "acme namespaces=\"cordon-pack\" $(pub ed25519)" >"$TRUST"

# ---- --insecure-local: an unsigned directory, one run, said every time ----
mkpack "$BASE/local" 1.0.0 none
sed -i 's|acme/tools|acme/dev|' "$BASE/local/pack.json"
works "--insecure-local DIR: its unsigned profile runs" \
	"$CORDON" run --insecure-local "$BASE/local" --profile acme/dev/build -- true
expect "... and the run says it is unverified" has "$OUT" "UNSIGNED and UNVERIFIED"
works "... on every run" "$CORDON" run --insecure-local "$BASE/local" --profile acme/dev/build -- true
expect "... (the second says it too)" has "$OUT" "UNSIGNED and UNVERIFIED"
refused "... for that run only: without the flag it is not installed" "not installed" \
	"$CORDON" run --profile acme/dev/build -- true
cp -r "$BASE/local" "$BASE/ws/local"
refused "--insecure-local DIR inside a writable root (the workspace): refused" "inside the writable root" \
	"$CORDON" run --insecure-local "$BASE/ws/local" --profile acme/dev/build -- true
# ... and in (or holding) any tool sandbox's write grant of the session
toolprof() { # toolprof FILE KEY PATH: a profile extending the local pack, whose cat tool may write PATH
	printf '{ "extends": "acme/dev/build", "command_policies": { "commands": { "cat": {
		"executable": "/usr/bin/cat", "sandbox": { "%s": ["%s"] },
		"invocation_policy": { "default": "allow" } } } } }\n' "$2" "$3" >"$1"
}
mkdir -p "$BASE/tw/out" "$BASE/tw2/local/profiles"
cp -r "$BASE/local" "$BASE/tw/local"
toolprof "$BASE/tp-other.json" fs_write "$BASE/tw/out"
works "control: --insecure-local beside a tool sandbox writing elsewhere runs" \
	"$CORDON" run --insecure-local "$BASE/local" --profile "$BASE/tp-other.json" -- true
toolprof "$BASE/tp-above.json" fs_write "$BASE/tw"
refused "--insecure-local DIR inside a tool sandbox's fs_write: refused, named" "a write grant of cat's sandbox" \
	"$CORDON" run --insecure-local "$BASE/tw/local" --profile "$BASE/tp-above.json" -- true
toolprof "$BASE/tp-below.json" fs_write "$BASE/tw/local/profiles"
refused "--insecure-local DIR holding a tool sandbox's fs_write: refused, named" "it holds a write grant" \
	"$CORDON" run --insecure-local "$BASE/tw/local" --profile "$BASE/tp-below.json" -- true
toolprof "$BASE/tp-file.json" fs_write_file "$BASE/tw/local/profiles/build.json"
refused "--insecure-local DIR holding a tool sandbox's fs_write_file: refused, named" "it holds a write grant" \
	"$CORDON" run --insecure-local "$BASE/tw/local" --profile "$BASE/tp-file.json" -- true
printf '{ "extends": "acme/dev/build", "filesystem": { "write": ["%s"] } }\n' "$BASE/tw/local/profiles" >"$BASE/wp.json"
refused "--insecure-local DIR holding a writable root of the run (filesystem.write): refused" "it holds the writable root" \
	"$CORDON" run --insecure-local "$BASE/tw/local" --profile "$BASE/wp.json" -- true
mkpack "$BASE/local-bad" 1.0.0 none '{ "network": { "mode": "host" } }'
sed -i 's|acme/tools|acme/dev|' "$BASE/local-bad/pack.json"
refused "--insecure-local still refuses what a pack may not carry" "/network/mode" \
	"$CORDON" run --insecure-local "$BASE/local-bad" --profile acme/dev/build -- true
echo " " >>"$BASE/local/profiles/build.json"
refused "--insecure-local still checks the files against pack.json" "does not match" \
	"$CORDON" run --insecure-local "$BASE/local" --profile acme/dev/build -- true

# ---- new versions, lower versions, new keys ----
mkpack "$BASE/p2" 1.1.0 ed25519 '{ "extends": "workspace-write", "filesystem": { "write": ["$WORKSPACE/out", "$WORKSPACE/dist"] } }'
works "a new version installs" "$CORDON" pack install --yes "$BASE/p2"
expect "and shows what the grants change" has "$OUT" '+   acme/tools/build writes: $WORKSPACE/dist'
refused "a lower version: refused unless confirmed on a terminal" "LOWER" "$CORDON" pack install --yes "$BASE/p1"
echo "acme namespaces=\"cordon-pack\" $(pub ed25519)" >"$TRUST"
echo "acme namespaces=\"cordon-pack\" $(pub ecdsa)" >>"$TRUST"
mkpack "$BASE/p3" 1.2.0 ecdsa
refused "a changed signer key: refused unless confirmed on a terminal" "SIGNER KEY CHANGED" \
	"$CORDON" pack install --yes "$BASE/p3"
# on_tty ANSWER CMD...: CMD with a pty as its stdin and stderr, ANSWER typed
# once it asks; OUT, RC
on_tty() {
	local answer=$1; shift
	OUT=$("$PY" - "$answer" "$@" <<'PYEOF' 2>&1
import os, pty, sys, select, time
answer = sys.argv[1].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
seen, sent, end = b"", False, time.time() + 60
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.5)
    if not r:
        continue
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    seen += data
    if not sent and b"[y/N]" in seen:
        os.write(fd, answer + b"\r")
        sent = True
sys.stdout.write(seen.decode(errors="replace"))
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
PYEOF
)
	RC=$?
}
on_tty n "$CORDON" pack install "$BASE/p3"
if [ "$RC" != 0 ] && has "$OUT" "SIGNER KEY CHANGED"; then ok "a changed key, answered no on a terminal: not installed"; else
	not_ok "a changed key, answered no on a terminal: not installed" "rc=$RC" "${OUT:0:1500}"; fi
on_tty y "$CORDON" pack install "$BASE/p3"
if [ "$RC" = 0 ] && has "$OUT" "installed"; then ok "a changed key, confirmed on a terminal: installed"; else
	not_ok "a changed key, confirmed on a terminal: installed" "rc=$RC" "${OUT:0:1500}"; fi
works "... and its profile runs under the new key" "$CORDON" run --profile acme/tools/build -- true
on_tty y "$CORDON" pack install "$BASE/p2"
if [ "$RC" = 0 ] && has "$OUT" "LOWER" && has "$OUT" "SIGNER KEY CHANGED"; then
	ok "a lower version by the first key again, confirmed on a terminal: installed (both said)"
else
	not_ok "a lower version by the first key again, confirmed on a terminal: installed (both said)" "rc=$RC" "${OUT:0:1500}"
fi
works "... and the lock pins that key again: its profile runs" "$CORDON" run --profile acme/tools/build -- true
works "pack remove" "$CORDON" pack remove acme/tools
refused "a removed pack's profile: refused" "not installed" "$CORDON" run --profile acme/tools/build -- true

# ---- from a .tar (ustar): the archive's shapes refused by name ----
echo "acme namespaces=\"cordon-pack\" $(pub ed25519)" >"$TRUST"
mkpack "$BASE/t1" 1.0.0 ed25519
tar --format=ustar -C "$BASE/t1" -cf "$BASE/t1.tar" . || not_ok "tar made"
works "a signed pack installs from a .tar" "$CORDON" pack install --yes "$BASE/t1.tar"
works "... and its profile runs" "$CORDON" run --profile acme/tools/build -- true

# ---- from a .tar.gz: the host's gzip, run in a cordon sandbox ----
"$CORDON" pack remove acme/tools >/dev/null 2>&1
tar -C "$BASE/t1" -czf "$BASE/t1.tar.gz" . || not_ok "tar czf made"
works "a signed pack installs from a .tar.gz (tar czf)" "$CORDON" pack install --yes "$BASE/t1.tar.gz"
works "... pack verify agrees" "$CORDON" pack verify acme/tools
works "... and its profile runs" "$CORDON" run --profile acme/tools/build -- true
cp "$BASE/t1.tar.gz" "$BASE/t1.tgz"
works "... and from a .tgz (same bytes) too" "$CORDON" pack install --yes "$BASE/t1.tgz"
"$CORDON" pack remove acme/tools >/dev/null 2>&1
# corrupt: the deflate body overwritten in the middle (the CRC cannot hold)
cp "$BASE/t1.tar.gz" "$BASE/corrupt.tar.gz"
sz=$(stat -c %s "$BASE/corrupt.tar.gz")
printf 'XXXXXXXXXXXXXXXX' | dd of="$BASE/corrupt.tar.gz" bs=1 seek=$((sz / 2)) conv=notrunc status=none
refused "a corrupt gzip stream is refused, named" "not a valid gzip stream" \
	"$CORDON" pack install --yes "$BASE/corrupt.tar.gz"
head -c $((sz - 20)) "$BASE/t1.tar.gz" >"$BASE/trunc.tar.gz"
refused "a truncated gzip stream is refused, named" "not a valid gzip stream" \
	"$CORDON" pack install --yes "$BASE/trunc.tar.gz"
{ cat "$BASE/t1.tar.gz"; printf 'trailing garbage after the stream'; } >"$BASE/trail.tar.gz"
refused "a gzip stream with trailing garbage is refused, named" "trailing garbage" \
	"$CORDON" pack install --yes "$BASE/trail.tar.gz"
head -c 200M /dev/zero | gzip >"$BASE/bomb.tar.gz"
refused "a gzip bomb (200 MiB of zeros) is stopped at the cap, named" "more than 16777216 bytes (the cap)" \
	"$CORDON" pack install --yes "$BASE/bomb.tar.gz"
printf '\037\213 not gzip at all' >"$BASE/magic.tar.gz"
refused "gzip's magic and then nonsense: refused, named" "not a valid gzip stream" \
	"$CORDON" pack install --yes "$BASE/magic.tar.gz"
refused "... none of those installed anything" "not installed" "$CORDON" pack verify acme/tools
# fail closed: no runner, no sandbox, so gzip is not run at all; a .tar needs none
refused "no sandbox for gzip (no runner): the .tar.gz is refused, named" "cannot make the sandbox gzip runs in" \
	env CORDON_RUNNER=/nonexistent "$CORDON_BUILDDIR/src/cli/cordon-supervisor" pack install --yes "$BASE/t1.tar.gz"
refused "... and nothing was installed" "not installed" "$CORDON" pack verify acme/tools
works "... while a plain .tar still installs then" \
	env CORDON_RUNNER=/nonexistent "$CORDON_BUILDDIR/src/cli/cordon-supervisor" pack install --yes "$BASE/t1.tar"
# badtar NAME KIND: t1's entries plus one of KIND, made by Python's tarfile
badtar() {
	"$PY" - "$BASE/t1" "$BASE/$1.tar" "$2" <<'PYEOF'
import io, sys, tarfile
src, out, kind = sys.argv[1:4]
with tarfile.open(out, "w", format=tarfile.USTAR_FORMAT) as t:
    t.add(src, arcname=".")
    ti = tarfile.TarInfo("profiles/extra.json")
    data = b"{}"
    if kind == "symlink":
        ti.type, ti.linkname = tarfile.SYMTYPE, "/etc/passwd"
    elif kind == "hardlink":
        ti.type, ti.linkname = tarfile.LNKTYPE, "pack.json"
    elif kind == "device":
        ti.type, ti.devmajor, ti.devminor = tarfile.CHRTYPE, 1, 3
    elif kind == "fifo":
        ti.type = tarfile.FIFOTYPE
    elif kind == "absolute":
        ti.name = "/tmp/evil.json"
    elif kind == "dotdot":
        ti.name = "profiles/../../evil.json"
    elif kind == "duplicate":
        ti.name = "pack.json"
    elif kind == "exec":
        ti.mode = 0o755
    elif kind == "big":
        data = b" " * (1024 * 1024 + 1)
    if ti.type == tarfile.REGTYPE:
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    else:
        t.addfile(ti)
PYEOF
}
for k in "symlink:symbolic link" "hardlink:hard link" "device:a device" "fifo:FIFO" "absolute:not a plain relative path" \
	"dotdot:not a plain relative path" "duplicate:appears twice" "exec:executables" "big:larger than 1 MiB"; do
	badtar "bad-${k%%:*}" "${k%%:*}"
	refused "a .tar with a ${k%%:*} entry: refused, named" "${k#*:}" "$CORDON" pack install --yes "$BASE/bad-${k%%:*}.tar"
done
expect "no staging directory is left behind" test -z "$(ls -A "$HOME/.config/cordon/packs" | grep staging)"
expect "nothing was written outside the staging directory" test ! -e /tmp/evil.json -a ! -e "$HOME/.config/cordon/evil.json"
"$CORDON" pack remove acme/tools >/dev/null 2>&1

# ---- the system trust file is hidden from every sandbox, every user's ----
# /etc/cordon/allowed_signers exists only in a private mount namespace (a
# copy of /etc bound over it there), never on the host's /etc. The copy is
# two levels below BASE: light isolation's Landlock grants the siblings of
# what it walks to HOME's secrets (BASE/home), and a rule on the copy's own
# inode would reach it through the bind mount too (an alias the host's real
# /etc does not have). Inside,
# cordon runs as uid 0 and, in a user namespace of its own, as uid 1000.
if [ "$(id -u)" = 0 ]; then NS=(unshare -m --propagation private); else NS=(unshare -r -m --propagation private); fi
systrust() { # systrust UID CMD...: CMD as UID (0 or 1000) where /etc/cordon/allowed_signers exists
	local as=$1; shift
	OUT=$("${NS[@]}" bash -c '
		e=$BASE/sys/etc
		mkdir -p "$e" && cp -a /etc/. "$e/" 2>/dev/null
		mkdir -p "$e/cordon" && echo "acme namespaces=\"cordon-pack\" system-trust-marker" >"$e/cordon/allowed_signers" &&
			mount --bind "$e" /etc || exit 90
		as=$1; shift
		cd "$BASE/ws" || exit 91
		if [ "$as" = 0 ]; then exec "$@"; fi
		exec unshare --map-user="$as" --map-group="$as" "$@"' _ "$as" "$@" 2>&1 </dev/null)
	RC=$?
}
export BASE
if ! "${NS[@]}" true 2>/dev/null; then
	skip "the system trust file hidden" "cannot make a private mount namespace here"
else
	for as in 0 1000; do
		systrust $as sh -c 'id -u; cat /etc/cordon/allowed_signers'
		if [ "$RC" = 0 ] && has "$OUT" "system-trust-marker" && [ "$(head -1 <<<"$OUT")" = $as ]; then
			ok "control (uid $as): /etc/cordon/allowed_signers reads unconfined"
		else not_ok "control (uid $as): /etc/cordon/allowed_signers reads unconfined" "rc=$RC" "${OUT:0:1500}"; fi
		for iso in full light; do
			systrust $as "$CORDON" run --isolation $iso -- sh -c 'id -u; cat /etc/cordon/allowed_signers; echo ran'
			if has "$OUT" "ran" && ! has "$OUT" "system-trust-marker"; then
				ok "uid $as, isolation $iso: /etc/cordon/allowed_signers is hidden from the sandbox"
			else not_ok "uid $as, isolation $iso: /etc/cordon/allowed_signers is hidden from the sandbox" "rc=$RC" "${OUT:0:1500}"; fi
		done
		systrust $as "$CORDON" run --isolation full -- sh -c 'cat /etc/cordon/../cordon/./allowed_signers; grep -r marker /etc/cordon; echo ran'
		if has "$OUT" "ran" && ! has "$OUT" "system-trust-marker"; then
			ok "uid $as: ... nor by another spelling or a grep of /etc/cordon"
		else not_ok "uid $as: ... nor by another spelling or a grep of /etc/cordon" "rc=$RC" "${OUT:0:1500}"; fi
	done
	systrust 0 "$CORDON" why --op read --path /etc/cordon/allowed_signers
	expect "cordon why says the system trust file is hidden" has "$OUT" "deny: /etc/cordon/allowed_signers is hidden"
fi

# ---- from https:// on loopback, with a CA this test makes ----
echo "acme namespaces=\"cordon-pack\" $(pub ed25519)" >"$TRUST"
tls=$BASE/tls
mkdir -p "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=packs-test-ca \
	-keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
		-keyout "$tls/leaf.key" -out "$tls/leaf.csr" 2>/dev/null &&
	printf 'subjectAltName=IP:127.0.0.1\n' >"$tls/ext" &&
	openssl x509 -req -in "$tls/leaf.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 2 \
		-extfile "$tls/ext" -out "$tls/leaf.pem" 2>/dev/null || { not_ok "a test CA and leaf" "openssl failed"; }
mkdir -p "$BASE/www"
mkpack "$BASE/www/tools" 1.0.0 ed25519
mkpack "$BASE/www/tampered" 1.0.0 ed25519
echo " " >>"$BASE/www/tampered/profiles/build.json"
"$PY" "$CORDON_SRCDIR/tests/integration/pack-https-server.py" "$BASE/www" "$tls/leaf.pem" "$tls/leaf.key" >"$BASE/port" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$BASE/port" ] && break; sleep 0.1; done
port=$(head -1 "$BASE/port")
refused "https: a server whose CA is not trusted is refused" "certificate" \
	env -u CURL_CA_BUNDLE "$CORDON" pack install --yes "https://127.0.0.1:$port/tools"
export CURL_CA_BUNDLE=$tls/ca.pem
works "https: a signed pack installs from a loopback https server" \
	"$CORDON" pack install --yes "https://127.0.0.1:$port/tools"
works "... and its profile runs" "$CORDON" run --profile acme/tools/build -- true
expect "... no staging directory is left behind" test -z "$(ls -A "$HOME/.config/cordon/packs" | grep staging)"
refused "https: a file that does not match its hash is refused" "does not match" \
	"$CORDON" pack install --yes "https://127.0.0.1:$port/tampered"
refused "https: a redirect to http is refused" "https only" \
	"$CORDON" pack install --yes "https://127.0.0.1:$port/to-http/tools"
works "https: a redirect to https is followed" "$CORDON" pack install --yes "https://127.0.0.1:$port/to-https/tools"
refused "http:// is refused" "https:// URL only" "$CORDON" pack install --yes "http://127.0.0.1:$port/tools"
refused "https: a missing pack.json.sig is refused" "404" \
	"$CORDON" pack install --yes "https://127.0.0.1:$port/nothing-here"
unset CURL_CA_BUNDLE

finish
