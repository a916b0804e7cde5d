#!/usr/bin/env bash
# Credentials never enter a sandbox (issue 23, the values): an env://
# source's value is in no sandbox's environment (the session's with
# allow_vars "*", a tool's that names it, one a caller passes it to) nor in
# any /proc/*/environ inside; a file:// source and a client key are
# unreadable inside even under a grant of their directory; a consumer gets
# its phantom (ghp_ + 36 base62 characters, another for each consumer and
# each session) and no other sandbox gets the variable, not even the host's
# own GH_TOKEN; profile show prints neither a value nor a phantom. Each
# attempt is real, from inside, beside a control where it should work.
. "$(dirname "$0")/tap.sh"
tap_base creds-values

WS=$BASE/ws BIN=$BASE/bin RO=$BASE/ro SEC=$BASE/sec
mkdir -p "$WS" "$BIN" "$RO" "$SEC" "$BASE/state" "$BASE/home"
chmod 755 "$WS" "$BIN" "$RO" "$SEC" "$BASE/home"
export HOME=$BASE/home XDG_STATE_HOME=$BASE/state
cp "$(readlink -f "$PY")" "$BIN/tpy"
chmod 755 "$BIN/tpy"
REAL=real-env-value-$$-$RANDOM
FILEVAL=real-file-value-$$-$RANDOM
printf '%s' "$FILEVAL" > "$SEC/token"
printf 'other-file\n' > "$SEC/other"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=client \
	-keyout "$SEC/client.key" -out "$SEC/client.crt" >/dev/null 2>&1
chmod 644 "$SEC"/*
cat > "$RO/show.py" <<'EOF'
import glob, os, sys
for k in ("GH_TOKEN", "F_TOKEN", "REAL_GH", "CORDON_TEST_VISIBLE"):
    print("%s=%s" % (k, os.environ.get(k, "unset")))
hits = []
for p in glob.glob("/proc/[0-9]*/environ"):
    try:
        if sys.argv[1].encode() in open(p, "rb").read():
            hits.append(p)
    except OSError:
        pass
print("environ-hits=%d" % len(hits))
for f in sys.argv[2:]:
    try:
        print("read %s: %s" % (f, open(f).read().strip()))
    except OSError as e:
        print("unreadable %s: %d" % (f, e.errno))
EOF
chmod -R a+rX "$RO"

P=$BASE/profile.json
cat > "$P" <<EOF
{
  "workspace": "$WS",
  "filesystem": { "read": ["$SEC", "$RO"] },
  "environment": { "allow_vars": ["*"] },
  "command_policies": {
    "commands": {
      "gh": { "executable": "$BIN/tpy",
              "sandbox": { "fs_read": ["$RO", "$SEC"], "environment": { "allow_vars": ["REAL_GH", "GH_TOKEN"] } } },
      "other": { "executable": "$BIN/tpy",
                 "sandbox": { "fs_read": ["$RO", "$SEC"], "environment": { "allow_vars": ["REAL_GH", "GH_TOKEN", "CORDON_TEST_VISIBLE"] } } }
    }
  },
  "credentials": {
    "github": { "source": "env://REAL_GH", "hosts": ["api.github.com"],
                "inject": { "header": "Authorization", "format": "Bearer {}" },
                "phantom": { "env": "GH_TOKEN", "shape": "ghp_{36}" }, "grant_to": ["cmd.gh"] },
    "filed": { "source": "file://$SEC/token", "hosts": ["example.com"],
               "inject": { "query": "key" }, "tls": { "client_cert": "$SEC/client.crt", "client_key": "$SEC/client.key" },
               "phantom": { "env": "F_TOKEN", "shape": "f{32:hex}" }, "grant_to": ["session", "cmd.gh"] }
  }
}
EOF

session() { # session SCRIPT: run SCRIPT as the agent; OUT, ERR, RC
	(cd "$WS" && REAL_GH=$REAL GH_TOKEN=host-gh-token CORDON_TEST_VISIBLE=visible-$$ \
		"$CORDON" run --profile "$P" -- sh -c "$1" >"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}

# ---- the session ---------------------------------------------------------
session "$PY $RO/show.py $REAL $SEC/token $SEC/client.key $SEC/other; echo rc=\$?"
if ! has "$OUT" "rc=0"; then
	not_ok "the session runs at all" "out: $OUT" "err: $ERR"
	finish
	exit
fi
expect "control: allow_vars \"*\" passes the session another variable" has "$OUT" "CORDON_TEST_VISIBLE=visible-$$"
expect "env:// source: not in the session's environment, though allow_vars is \"*\"" has "$OUT" "REAL_GH=unset"
expect "... nor in any /proc/*/environ inside" has "$OUT" "environ-hits=0"
expect "... its value nowhere in the session's output" hasnt "$OUT" "$REAL"
expect "the host's own GH_TOKEN (a phantom's name) is not passed to a non-consumer" has "$OUT" "GH_TOKEN=unset"
sess_f=$(grep '^F_TOKEN=' <<<"$OUT" | cut -d= -f2)
expect "the session, a consumer of filed, has its phantom (f + 32 hex)" eval '[[ "$sess_f" =~ ^f[0-9a-f]{32}$ ]]'
expect "file:// source: unreadable in the session under a grant of its directory" has "$OUT" "unreadable $SEC/token"
expect "... a client key likewise" has "$OUT" "unreadable $SEC/client.key"
expect "... (control: a file beside them is read)" has "$OUT" "read $SEC/other: other-file"
expect "... the key nowhere in the output" hasnt "$OUT" "PRIVATE KEY"
expect "... the file's value nowhere in the output" hasnt "$OUT" "$FILEVAL"
[ "$(cat "$SEC/token")" = "$FILEVAL" ] && ok "... (control: unconfined, the file is readable)" || not_ok "file control"
env | grep -q "^HOME=" && [ -n "$REAL" ] &&
	REAL_GH=$REAL "$PY" "$RO/show.py" "$REAL" | grep -q "REAL_GH=$REAL" &&
	ok "... (control: unconfined, the variable is seen)" || not_ok "env control"

# ---- a second session: another phantom ------------------------------------
session "$PY $RO/show.py x"
sess_f2=$(grep '^F_TOKEN=' <<<"$OUT" | cut -d= -f2)
expect "another session's phantom differs" eval '[[ "$sess_f2" =~ ^f[0-9a-f]{32}$ && "$sess_f2" != "$sess_f" ]]'

# ---- the consumer tool ------------------------------------------------------
session "gh $RO/show.py $REAL $SEC/token $SEC/client.key $SEC/other; echo F=\$F_TOKEN"
gh_token=$(grep '^GH_TOKEN=' <<<"$OUT" | cut -d= -f2)
gh_f=$(grep '^F_TOKEN=' <<<"$OUT" | cut -d= -f2)
sess_f3=$(grep '^F=' <<<"$OUT" | cut -d= -f2)
expect "the consumer gets its phantom: ghp_ + 36 base62" eval '[[ "$gh_token" =~ ^ghp_[A-Za-z0-9]{36}$ ]]'
expect "... never the host's GH_TOKEN" hasnt "$OUT" "host-gh-token"
expect "... one per consumer: the tool's phantom of filed is not the session's" eval \
	'[[ "$gh_f" =~ ^f[0-9a-f]{32}$ && -n "$sess_f3" && "$gh_f" != "$sess_f3" ]]'
expect "env:// source: not in the consumer though its allow_vars names it" has "$OUT" "REAL_GH=unset"
expect "... nor in any /proc/*/environ inside it" has "$OUT" "environ-hits=0"
expect "file:// source: unreadable in the consumer under a grant of its directory" has "$OUT" "unreadable $SEC/token"
expect "... a client key likewise" has "$OUT" "unreadable $SEC/client.key"
expect "... (control: a file beside them is read)" has "$OUT" "read $SEC/other: other-file"

# ---- a tool that is not a consumer; a caller passing the value -------------
session "REAL_GH=$REAL GH_TOKEN=$REAL other $RO/show.py $REAL; echo rc=\$?"
expect "a non-consumer tool: no phantom" has "$OUT" "GH_TOKEN=unset"
expect "... the env:// source not passed by its caller, though allow_vars names it" has "$OUT" "REAL_GH=unset"
expect "... nowhere in its /proc/*/environ" has "$OUT" "environ-hits=0"
expect "... (control: a variable it names is passed)" has "$OUT" "CORDON_TEST_VISIBLE=visible-$$"

# ---- fail closed at start ------------------------------------------------
(cd "$WS" && "$CORDON" run --profile "$P" -- true >"$BASE/out" 2>&1 </dev/null)
RC=$? OUT=$(cat "$BASE/out")
expect "an env:// source that is not set refuses the session's start" eval \
	'[ $RC != 0 ] && has "$OUT" "credential github: REAL_GH is not set in cordon'"'"'s environment"'
cp "$SEC/client.key" "$BASE/key.keep"
printf 'not a key\n' > "$SEC/client.key"
session "true"
expect "a client key that is not one refuses the session's start" has "$ERR" "holds no PEM private key"
cp "$BASE/key.keep" "$SEC/client.key"

# ---- profile show --------------------------------------------------------
show=$(REAL_GH=$REAL "$CORDON" profile show "$P" 2>&1)
expect "profile show lists each credential" eval 'has "$show" "\"github\"" && has "$show" "\"filed\""'
expect "... with its source and phantom shape" eval 'has "$show" "env://REAL_GH" && has "$show" "ghp_{36:base62}"'
expect "... never the value of an env:// source" hasnt "$show" "$REAL"
expect "... nor of a file:// source" hasnt "$show" "$FILEVAL"
expect "... nor a phantom" eval 'hasnt "$show" "$gh_token" && hasnt "$show" "$sess_f"'
finish
