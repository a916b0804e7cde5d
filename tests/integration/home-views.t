#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The HOME allowlist where home-allowlist.t does not look: what
# `profile show --effective` says it hides and shows (read back from the
# runner's own flags), a Windows home mounted under WSL's /mnt/<d>/Users,
# and XDG_*_HOME directories outside HOME. Each hidden file is read for
# real from inside beside a catalogue-only control that reads it.
. "$(dirname "$0")/tap.sh"

unset TMPDIR
BASE=$(mktemp -d /var/tmp/cordon-hviews.XXXXXX)
chmod 755 "$BASE"
trap 'rm -rf "$BASE" 2>/dev/null' EXIT
H=$BASE/home
WS=$H/ws
mkdir -p "$WS" "$H/.cargo/bin" "$BASE/xdgconf/app"
export HOME=$H
unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CACHE_HOME
printf '[user]\n\tname = A\n' > "$H/.gitconfig"
echo xdg-secret > "$BASE/xdgconf/app/token"
echo ws-visible > "$WS/marker"
# a refusal counts only from a run whose command ran: it reads the workspace too
hidden() { ! grep -q "$1" <<<"$2" && grep -q ws-visible <<<"$2"; }

# --- profile show --effective: the allowlist's lists
out=$(cd "$WS" && "$CORDON" profile show --effective strict 2>&1)
if grep -qx "  hidden: $H" <<<"$out" && grep -qx "  shown: $H/.cargo/bin" <<<"$out" &&
   grep -qx "  shown filtered (credential-bearing keys removed): $H/.gitconfig" <<<"$out"; then
	ok "profile show --effective strict: HOME hidden, a toolchain shown, .gitconfig filtered"
else
	not_ok "profile show --effective strict lists the allowlist" "$out"
fi
out=$(cd "$WS" && "$CORDON" profile show --effective strict --json 2>&1)
if python3 -c '
import json, sys
h = json.loads(sys.argv[1])["home_policy"]
assert h["policy"] == "allowlist", h
assert sys.argv[2] in h["hidden"], h
assert sys.argv[2] + "/.cargo/bin" in h["shown"], h
assert sys.argv[2] + "/.gitconfig" in h["filtered"], h
' "$out" "$H" 2>&1; then
	ok "profile show --effective --json: home_policy with hidden, shown, filtered"
else
	not_ok "profile show --effective --json: home_policy" "$out"
fi
out=$(cd "$WS" && "$CORDON" profile show --effective default 2>&1)
grep -q "^home policy: catalogue" <<<"$out" && ! grep -q "  hidden: " <<<"$out" &&
	ok "profile show --effective default: the catalogue, nothing listed as hidden" ||
	not_ok "profile show --effective default says catalogue" "$out"
# a workspace that is HOME cannot be hidden from itself: the view says so
out=$(cd "$H" && "$CORDON" profile show --effective strict 2>&1)
grep -q "hidden: none (every home is at or below a writable root" <<<"$out" || grep -qv "  hidden: $H\$" <<<"$out" &&
	! grep -qx "  hidden: $H" <<<"$out" &&
	ok "profile show --effective strict with HOME as the workspace: HOME not listed as hidden" ||
	not_ok "HOME as workspace: the view must not claim HOME hidden" "$out"

# --- XDG_CONFIG_HOME outside HOME
out=$(cd "$WS" && XDG_CONFIG_HOME=$BASE/xdgconf "$CORDON" run -- cat "$BASE/xdgconf/app/token" 2>&1)
grep -q xdg-secret <<<"$out" && ok "control: XDG_CONFIG_HOME outside HOME reads under the catalogue" ||
	not_ok "control: XDG_CONFIG_HOME file reads under the catalogue" "$out"
for iso in full light; do
	out=$(cd "$WS" && XDG_CONFIG_HOME=$BASE/xdgconf "$CORDON" run --home allowlist --isolation $iso -- sh -c 'cat "$1"; cat marker' _ "$BASE/xdgconf/app/token" 2>&1)
	hidden xdg-secret "$out" && ok "$iso: XDG_CONFIG_HOME outside HOME is hidden under the allowlist" ||
		not_ok "$iso: XDG_CONFIG_HOME outside HOME read under the allowlist" "$out"
done

# --- WSL: a Windows home under /mnt/<d>/Users, made in a private mount
# namespace so the host's /mnt is untouched (unprivileged: in a user
# namespace of our own, where cordon nests its own)
if [ "$(id -u)" = 0 ]; then NS=(unshare -m --propagation private); else NS=(unshare -r -m --propagation private); fi
wsl() { # wsl HOME-POLICY ISOLATION
	"${NS[@]}" bash -c '
		mount -t tmpfs wsl /mnt || exit 90
		mkdir -p /mnt/c/Users/bob/AppData && echo wsl-secret > /mnt/c/Users/bob/AppData/token
		cd "$1" && "$CORDON" run --home "$2" --isolation "$3" -- sh -c "cat /mnt/c/Users/bob/AppData/token; cat marker"' _ "$WS" "$1" "$2" 2>&1
}
if ! "${NS[@]}" true 2>/dev/null; then
	skip "WSL /mnt/<d>/Users" "cannot make a private mount namespace here"
else
	out=$(wsl catalogue full)
	grep -q wsl-secret <<<"$out" && ok "control: /mnt/c/Users/bob reads under the catalogue" ||
		not_ok "control: /mnt/c/Users/bob reads under the catalogue" "$out"
	for iso in full light; do
		out=$(wsl allowlist $iso)
		hidden wsl-secret "$out" && ok "$iso: /mnt/c/Users/bob (WSL) is hidden under the allowlist" ||
			not_ok "$iso: /mnt/c/Users/bob read under the allowlist" "$out"
	done
fi
finish
