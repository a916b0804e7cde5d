#!/usr/bin/env bash
# Init's Landlock ruleset in two halves (src/exec/landlock_split.c): the
# walker (the runner's child, forked before the clone that makes init's
# namespaces) adds the rules of the host's tree while the runner clones and
# init mounts, init the rest at the paths it mounted on. The walker does the
# most of the work, and where it cannot (a directory it may not list, which init, root of its
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
	ok "a directory the walker may not list on the way to a hidden file: the run works, the file stays hidden, its sibling readable ($(id -un))"
else
	not_ok "unlistable directory on a split path" "$out"
fi

# Who adds the rules: the walker most of them, from before init's
# namespaces are made (the runner forks it before its clone), init the few
# at its own mounts, the runner none.
if command -v strace >/dev/null 2>&1 &&
	(cd "$WS" && strace -f -qq -o "$BASE/trace" -e trace=clone,clone3,landlock_add_rule \
		"$CORDON" run -- true) >/dev/null 2>&1; then
	# the runner's clones in order, "NS RESULT LINE" each (NS: 1 for the one
	# that makes the user namespace); a result is on the call's line or on
	# its "resumed" line
	runner=$(grep -E 'clone3?\(.*CLONE_NEWUSER' "$BASE/trace" | awk '{print $1}' | head -1)
	clones=$(awk -v p="$runner" '$1 == p && $2 ~ /^clone3?\(/ { ns = /CLONE_NEWUSER/; line = NR
			if (match($0, /= [0-9]+$/)) print ns, substr($0, RSTART + 2), line; else pending = 1; next }
		$1 == p && pending && /resumed>/ { pending = 0; if (match($0, /= [0-9]+$/)) print ns, substr($0, RSTART + 2), line }' "$BASE/trace")
	walker=$(awk '$1 == 0 { print $2; exit }' <<<"$clones")
	line_walker=$(awk '$1 == 0 { print $3; exit }' <<<"$clones")
	init=$(awk '$1 == 1 { print $2; exit }' <<<"$clones")
	line_ns=$(awk '$1 == 1 { print $3; exit }' <<<"$clones")
	nr=$(grep -cE "^$runner +landlock_add_rule\(" "$BASE/trace")
	nw=$(grep -cE "^$walker +landlock_add_rule\(" "$BASE/trace")
	ni=$(grep -cE "^$init +landlock_add_rule\(" "$BASE/trace")
	if [ -n "$runner" ] && [ -n "$walker" ] && [ -n "$init" ] && [ "$walker" != "$init" ] &&
		[ -n "$line_walker" ] && [ "$line_walker" -lt "$line_ns" ] &&
		[ "$nw" -gt 20 ] && [ "$ni" -lt "$nw" ] && [ "$nr" = 0 ]; then
		ok "the walker, forked before init's namespaces, adds $nw rules from the host's tree, init $ni at its own mounts, the runner none"
	else
		not_ok "the walker's half" "runner=$runner ($nr rules) walker=$walker ($nw rules) init=$init ($ni rules); $(grep -E 'clone|landlock' "$BASE/trace" | head -20)"
	fi
else
	skip "who adds the rules" "strace cannot trace a run here"
fi

chmod 755 "$D/locked"
finish
