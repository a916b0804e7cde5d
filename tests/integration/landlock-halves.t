#!/usr/bin/env bash
# Init's Landlock ruleset in two halves (src/exec/landlock_split.c): the
# runner adds the rules of the host's tree while init mounts, init the rest
# at the paths it mounted on. The runner does the most of the work, and
# where it cannot (a directory it may not list, which init, root of its
# user namespace over the caller's own files, may), init builds the whole
# and the run and its denials are as before.
. "$(dirname "$0")/tap.sh"
tap_base landlock-halves

D=$BASE/d WS=$BASE/ws
mkdir -p "$D/locked/open" "$WS"
echo split-secret > "$D/locked/secret"
echo split-sibling > "$D/locked/open/f"
chmod 755 "$WS" "$D"
chmod 644 "$D/locked/secret" "$D/locked/open/f"
# searchable, not listable: the way to the hidden file is walked there
chmod 311 "$D/locked"

if [ "$(cat "$D/locked/secret")" = split-secret ]; then
	ok "control: unconfined, the file below the unlistable directory is readable"
else
	not_ok "control" "$(cat "$D/locked/secret" 2>&1)"
fi

out=$(cd "$WS" && "$CORDON" run --deny-read "$D/locked/secret" -- \
	sh -c "cat $D/locked/secret; echo rc=\$?; cat $D/locked/open/f" 2>&1)
if has "$out" "rc=1" && hasnt "$out" split-secret && has "$out" split-sibling; then
	ok "a directory the runner may not list on the way to a hidden file: the run works, the file stays hidden, its sibling readable ($(id -un))"
else
	not_ok "unlistable directory on a split path" "$out"
fi

# Who adds the rules: the runner (the process whose clone makes the user
# namespace) most of them, init the few at its own mounts.
if command -v strace >/dev/null 2>&1 &&
	(cd "$WS" && strace -f -qq -o "$BASE/trace" -e trace=clone,clone3,landlock_add_rule \
		"$CORDON" run -- true) >/dev/null 2>&1; then
	runner=$(grep -E 'clone3?\(.*CLONE_NEWUSER' "$BASE/trace" | awk '{print $1}' | head -1)
	init=$(grep -E 'clone3?\(.*CLONE_NEWUSER' "$BASE/trace" | grep -oE '= [0-9]+' | head -1 | tr -dc 0-9)
	if [ -z "$init" ]; then
		# the clone's result on its "resumed" line
		init=$(grep -E "^$runner +<\.\.\. clone3? resumed>" "$BASE/trace" | grep -oE '= [0-9]+' | head -1 | tr -dc 0-9)
	fi
	nr=$(grep -cE "^$runner +landlock_add_rule\(" "$BASE/trace")
	ni=$(grep -cE "^$init +landlock_add_rule\(" "$BASE/trace")
	if [ -n "$runner" ] && [ -n "$init" ] && [ "$nr" -gt 20 ] && [ "$ni" -lt "$nr" ]; then
		ok "the runner adds $nr rules from the host's tree, init $ni at its own mounts"
	else
		not_ok "the runner's half" "runner=$runner ($nr rules) init=$init ($ni rules); $(grep -E 'clone|landlock' "$BASE/trace" | head -20)"
	fi
else
	skip "who adds the rules" "strace cannot trace a run here"
fi

chmod 755 "$D/locked"
finish
