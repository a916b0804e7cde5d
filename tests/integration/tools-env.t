#!/usr/bin/env bash
# A tool's inputs belong to the tool (issue 20, section 1): its environment
# is built from its policy. HOME, TMPDIR and XDG_* are its own private
# directories; its caller passes only the variables allow_vars names, one
# by one (a pattern, a repeat, HOME and the like are refused at load); a
# value leading where any sandbox of the session can write keeps the call
# from running; the supervisor's own key reaches no sandbox; a command
# calling itself keeps its caller's sandbox; an exported bash function
# fails no call. Each attempt is real, from inside the session, with the
# effect checked on the host, beside a control where it should work.
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
tap_base tools-env

WS=$BASE/ws BIN=$BASE/bin RO=$BASE/ro TW=$BASE/tw SECRET2=$BASE/secret2
mkdir -p "$WS" "$BIN" "$RO" "$TW" "$SECRET2" "$BASE/state" "$BASE/realhome"
chmod 755 "$WS" "$BIN" "$RO" "$TW" "$SECRET2" "$BASE/realhome"
cp /bin/cat "$BIN/tcat"
cp /bin/dash "$BIN/tsh"
# the Python tools: a copy (the session still runs $PY itself, for its
# hand-made broker requests)
cp "$(readlink -f "$PY")" "$BIN/tpy"
chmod 755 "$BIN"/*
# the supervisor's own HOME (the "real" one a tool's home_files come from)
export HOME=$BASE/realhome
printf '[user]\n\tname = Real Person\n' > "$HOME/.gitconfig"
chmod 644 "$HOME/.gitconfig"
export XDG_STATE_HOME=$BASE/state
export CORDON_TEST_HOOK_KEY=hook-key-$$ CORDON_TEST_HOOK_ANSWER=hook-answer-$$ CORDON_TEST_VISIBLE=visible-$$
echo tool-secret > "$SECRET2/s.txt"
chmod 644 "$SECRET2/s.txt"
git init -q --bare "$RO/repo.git"
printf '[user]\n\tname = Good Name\n' > "$RO/good.gitconfig"
echo "# a config outside every writable root" > "$RO/ok.cnf"
cat > "$RO/show.py" <<'EOF'
import os, tempfile
for k in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "PYTHONINSPECT", "CORDON_TEST_HOOK_KEY", "CORDON_TEST_HOOK_ANSWER", "KUBECONFIG",
          "OPENSSL_CONF", "GIT_CONFIG_GLOBAL"):
    print("%s=%s" % (k, os.environ.get(k, "unset")))
print("GETTEMPDIR=" + tempfile.gettempdir())
EOF
cat > "$RO/readsecret.py" <<EOF
try:
    print("read:" + open("$SECRET2/s.txt").read().strip())
except OSError as e:
    print("unreadable:", e.errno)
EOF
cat > "$RO/plant.py" <<'EOF'
import os, site
d = site.getusersitepackages()
os.makedirs(d, exist_ok=True)
open(os.path.join(d, "usercustomize.py"), "w").write("print('PLANTED-RAN')\n")
print("planted in " + d)
EOF
cat > "$RO/selfexec.py" <<EOF
import subprocess, sys
subprocess.run([sys.executable, "$RO/readsecret.py"])
EOF
chmod -R a+rX "$RO"
ln -s "$WS" "$BASE/lnk"
PYT=$BIN/tpy

# the webhook is declared only for its key: no call asks it
P=$BASE/profile.json
cat > "$P" <<EOF
{
  "workspace": "$WS",
  "environment": { "allow_vars": ["*"] },
  "command_policies": {
    "approval_backends": {
      "hook": {"type": "webhook", "url": "unix:/nonexistent/never", "secret_env": "CORDON_TEST_HOOK_KEY", "answer_secret_env": "CORDON_TEST_HOOK_ANSWER", "timeout_secs": 1}
    },
    "commands": {
      "git": {
        "executable": "/usr/bin/git",
        "sandbox": { "fs_read": ["\$WORKSPACE", "$RO"], "home_files": [".gitconfig"],
                     "environment": { "allow_vars": ["GIT_CONFIG_GLOBAL", "GIT_DIR"] } }
      },
      "tpy": {
        "executable": "$PYT",
        "can_use": ["tcat"],
        "sandbox": { "fs_read": ["$here", "$RO", "$SECRET2"],
                     "environment": { "allow_vars": ["OPENSSL_CONF", "KUBECONFIG", "CORDON_TEST_HOOK_KEY", "CORDON_TEST_HOOK_ANSWER"] } },
        "from": { "session": { "sandbox": { "fs_read": ["$here", "$RO"],
                     "environment": { "allow_vars": ["OPENSSL_CONF", "KUBECONFIG", "CORDON_TEST_HOOK_KEY", "CORDON_TEST_HOOK_ANSWER"] } } } }
      },
      "tpyi": { "executable": "$PYT", "sandbox": { "fs_read": ["$RO"],
                "environment": { "allow_vars": ["PYTHONINSPECT"] } } },
      "tcat": { "executable": "$BIN/tcat", "sandbox": { "fs_read": ["$RO"] } },
      "tsh": { "executable": "$BIN/tsh", "can_use": ["tpy"] },
      "tw": { "executable": "$BIN/tcat", "sandbox": { "fs_write": ["$TW"] } }
    }
  }
}
EOF

session() { # session SCRIPT [SHELL]: run SCRIPT as the agent; OUT, ERR, RC
	(cd "$WS" && "$CORDON" run --profile "$P" -- "${2:-sh}" -c "$1" >"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}

session "tpy $RO/show.py; echo rc=\$?"
if ! has "$OUT" "rc=0"; then
	not_ok "a Python tool runs at all" "out: $OUT" "err: $ERR"
	finish
	exit
fi
ok "a Python tool runs (the control for what follows)"
TOOLS_HOMES=$XDG_STATE_HOME/cordon/tools
home=$(grep '^HOME=' <<<"$OUT" | cut -d= -f2-)
expect "its HOME is a private directory of its own, under the supervisor's state, per caller" \
	eval '[[ "$home" == "$TOOLS_HOMES"/*/tpy/session ]]'
expect "... XDG_CONFIG_HOME below it" has "$OUT" "XDG_CONFIG_HOME=$home/.config"
expect "... and its temporary directory its private /tmp" has "$OUT" "GETTEMPDIR=/tmp"
[ -z "$(ls -A "$TOOLS_HOMES")" ] && ok "the session's tool homes are removed at its end" ||
	not_ok "tool homes left behind" "$(ls -la "$TOOLS_HOMES")"

# ---- a supervisor killed with SIGKILL: the next session removes its homes ----
# (a live session's directory, held by its flock, stays)
# (cordon run holds the session: it is the supervisor)
(cd "$WS" && exec "$CORDON" run --profile "$P" -- sh -c "tpy -c 'import time; time.sleep(60.$$)'" >/dev/null 2>&1 </dev/null) &
bg=$!
for _ in $(seq 100); do [ -n "$(ls -A "$TOOLS_HOMES")" ] && break; sleep 0.1; done
killed=$(ls -A "$TOOLS_HOMES")
sup=$bg
kill -9 $bg
wait $bg 2>/dev/null
pkill -9 -f "time.sleep\(60\.$$\)" 2>/dev/null # this test's own, not another's
# the killed session's last processes (its tool) go away; until then its
# directory is still held
for _ in $(seq 100); do flock -n "$TOOLS_HOMES/$killed" true 2>/dev/null && break; sleep 0.1; done
if [ -n "$killed" ] && [ -n "$sup" ] && [ -d "$TOOLS_HOMES/$killed" ]; then
	ok "control: a supervisor killed with SIGKILL leaves its tool homes ($killed)"
else
	not_ok "could not kill a supervisor with its homes made" "homes: $killed" "supervisor: $sup"
fi
mkdir -p "$TOOLS_HOMES/held"
flock "$TOOLS_HOMES/held" sleep 30 &
holder=$!
sleep 0.3
session "tpy $RO/show.py; echo rc=\$?"
if has "$OUT" "rc=0" && [ ! -e "$TOOLS_HOMES/$killed" ] && [ -d "$TOOLS_HOMES/held" ]; then
	ok "the next session removes the killed one's homes and keeps a directory a live session holds"
else
	not_ok "orphaned tool homes not swept (or a held one removed)" "out: $OUT" "$(ls -la "$TOOLS_HOMES")"
fi
kill $holder 2>/dev/null; wait $holder 2>/dev/null
rmdir "$TOOLS_HOMES/held" 2>/dev/null

# ---- HOME: a usercustomize.py the session wrote in a HOME it chose ----------
FH=$WS/fh
USITE=$(HOME=$FH "$PY" -c 'import site; print(site.getusersitepackages())')
mkdir -p "$USITE"
printf 'open("%s/ucmark", "w").write("ran")\n' "$WS" > "$USITE/usercustomize.py"
session "HOME=$FH tpy $RO/show.py; echo rc=\$?"
expect "HOME=<a directory the session wrote>: the tool runs with its own HOME" has "$OUT" "rc=0"
if [ ! -e "$WS/ucmark" ] && hasnt "$OUT" "HOME=$FH"; then
	ok "... and Python never runs the session's usercustomize.py"
else
	not_ok "usercustomize ran or HOME passed" "out: $OUT"
fi
HOME=$FH "$PY" -c 'pass'
[ -e "$WS/ucmark" ] && ok "... (control: unconfined, with that HOME, it runs)" || not_ok "usercustomize control did not run"
rm -f "$WS/ucmark"

# ---- XDG_CONFIG_HOME, TMPDIR, PYTHONINSPECT: cordon's, or not named ----------
mkdir -p "$WS/xdg/git" "$WS/t"
printf '[user]\n\temail = evil@example.com\n' > "$WS/xdg/git/config"
session "XDG_CONFIG_HOME=$WS/xdg git config --global user.email; echo rc=\$?"
expect "XDG_CONFIG_HOME from the session does not steer git (its config is not read)" hasnt "$OUT" "evil@example.com"
ctl=$(XDG_CONFIG_HOME=$WS/xdg HOME=$BASE/nohome git config --global user.email)
[ "$ctl" = evil@example.com ] && ok "... (control: unconfined, git reads it)" || not_ok "xdg control" "$ctl"
session "TMPDIR=$WS/t tpy $RO/show.py"
expect "TMPDIR from the session: the tool's temporary directory stays its private /tmp" has "$OUT" "GETTEMPDIR=/tmp"
ctl=$(TMPDIR=$WS/t "$PY" -c 'import tempfile; print(tempfile.gettempdir())')
[ "$ctl" = "$WS/t" ] && ok "... (control: unconfined, Python takes it)" || not_ok "tmpdir control" "$ctl"
session "PYTHONINSPECT=1 tpy $RO/show.py"
expect "PYTHONINSPECT, not named by the tool's allow_vars, never reaches it" has "$OUT" "PYTHONINSPECT=unset"
session "PYTHONINSPECT=1 tpyi $RO/show.py </dev/null"
expect "... (control: a tool naming it gets it)" has "$OUT" "PYTHONINSPECT=1"

# ---- values that lead where a sandbox of the session can write ---------------
printf '[user]\n\tname = Evil Name\n' > "$WS/evil.gitconfig"
session "GIT_CONFIG_GLOBAL=$WS/evil.gitconfig git config --global user.name; echo rc=\$?"
expect "GIT_CONFIG_GLOBAL into the workspace: the call is denied (126)" has "$OUT" "rc=126"
expect "... naming the variable" has "$ERR" "GIT_CONFIG_GLOBAL leads to $WS/evil.gitconfig"
expect "... and git never read it" hasnt "$OUT" "Evil Name"
session "GIT_CONFIG_GLOBAL=$RO/good.gitconfig git config --global user.name"
expect "... (control: GIT_CONFIG_GLOBAL outside every writable root is passed)" has "$OUT" "Good Name"
git init -q "$WS/fake"
session "GIT_DIR=$WS/fake/.git git rev-parse --git-dir; echo rc=\$?"
expect "GIT_DIR into the workspace: denied" has "$ERR" "GIT_DIR leads to"
session "GIT_DIR=$RO/repo.git git rev-parse --git-dir"
expect "... (control: a GIT_DIR nothing writes is passed)" has "$OUT" "$RO/repo.git"
for v in "$WS/evil.cnf" /dev/stdin /proc/self/cwd/evil.cnf "$BASE/lnk/evil.cnf" "$TW/evil.cnf" ./evil.cnf; do
	session "OPENSSL_CONF=$v tpy $RO/show.py; echo rc=\$?"
	expect "OPENSSL_CONF=$v: denied before the tool runs" has "$ERR" "OPENSSL_CONF leads to"
done
session "OPENSSL_CONF=$RO/ok.cnf tpy $RO/show.py"
expect "... (control: OPENSSL_CONF outside every writable root is passed)" has "$OUT" "OPENSSL_CONF=$RO/ok.cnf"
session "KUBECONFIG=/etc/x:$WS/kube tpy $RO/show.py; echo rc=\$?"
expect "KUBECONFIG with a list whose second path is in the workspace: denied" has "$ERR" "KUBECONFIG leads to $WS/kube"
session "KUBECONFIG=/etc/x:$RO/kube tpy $RO/show.py"
expect "... (control: the same list outside every root is passed)" has "$OUT" "KUBECONFIG=/etc/x:$RO/kube"

# ---- a variable sent twice --------------------------------------------------
session "$PY $here/broker-client.py dupenv KUBECONFIG $RO/a $RO/b tpy $RO/show.py"
expect "a variable sent twice in one call is denied" has "$OUT" "denied: KUBECONFIG is set twice"
session "$PY $here/broker-client.py dupenv KUBECONFIG $RO/a - tpy $RO/show.py"
expect "... (control: sent once, the call runs)" has "$OUT" "exit: "
expect "... (and is not denied)" hasnt "$OUT" "denied"

# ---- the supervisor's key ---------------------------------------------------
session 'echo key=${CORDON_TEST_HOOK_KEY:-unset} answer=${CORDON_TEST_HOOK_ANSWER:-unset} vis=${CORDON_TEST_VISIBLE:-unset}'
expect "the webhook's key is not in the session, though its allow_vars is \"*\"" has "$OUT" "key=unset"
expect "... nor its answer key" has "$OUT" "answer=unset"
expect "... (control: \"*\" passes the supervisor's other variables)" has "$OUT" "vis=visible-$$"
session "CORDON_TEST_HOOK_KEY=from-session CORDON_TEST_HOOK_ANSWER=from-session tpy $RO/show.py; KUBECONFIG=$RO/k tpy $RO/show.py"
expect "... nor in a tool that names it, from the session or the supervisor" has "$OUT" "CORDON_TEST_HOOK_KEY=unset"
expect "... the answer key neither" has "$OUT" "CORDON_TEST_HOOK_ANSWER=unset"
expect "... never their values" hasnt "$OUT" "hook-key-$$"
expect "... (either of them)" hasnt "$OUT" "hook-answer-$$"
expect "... (control: a variable the tool names is passed)" has "$OUT" "KUBECONFIG=$RO/k"

# ---- home_files: named files of the real HOME, read-only -------------------
session "git config --global user.name; git config --global user.name Changed; echo rc=\$?"
expect "home_files: the tool reads the real ~/.gitconfig in its private HOME" has "$OUT" "Real Person"
expect "... and cannot change it" hasnt "$OUT" "rc=0"
grep -q "Real Person" "$HOME/.gitconfig" && ! grep -q Changed "$HOME/.gitconfig" &&
	ok "... (the host's file is unchanged)" || not_ok "the real .gitconfig changed" "$(cat "$HOME/.gitconfig")"
session "tpy -c 'import os; print(os.path.exists(os.path.expanduser(\"~/.gitconfig\")))'"
expect "... a tool that does not name it has no such file" has "$OUT" "False"

# ---- what a caller makes a tool leave in its HOME steers no other caller's ----
session "tpy $RO/plant.py; tpy $RO/show.py; tsh -c 'tpy $RO/show.py'"
expect "control: the session's tpy keeps its HOME between calls (its usercustomize runs)" has "$OUT" "PLANTED-RAN"
n=$(grep -c PLANTED-RAN <<<"$OUT")
expect "... but tpy called by tsh (its own, wider sandbox) has another HOME: it never runs it" eval '[ "$n" = 1 ]'

# ---- a command calling itself keeps its caller's sandbox ---------------------
session "tsh -c 'tpy $RO/readsecret.py'"
expect "control: tpy's own sandbox (from tsh) reads the secret" has "$OUT" "read:tool-secret"
session "tpy $RO/readsecret.py"
expect "from the session (from.session's sandbox) it does not" has "$OUT" "unreadable:"
session "tpy $here/broker-client.py call tpy $RO/readsecret.py"
expect "tpy calling tpy through its broker is denied (it would get its own, wider sandbox)" has "$OUT" "denied: tpy calls itself"
expect "... and never read the secret" hasnt "$OUT" "read:tool-secret"
session "tpy $here/broker-client.py call tcat $RO/ok.cnf"
expect "... (control: a call through the same broker to its can_use runs)" has "$OUT" "exit: "
session "tpy $RO/selfexec.py"
expect "running itself directly, it stays in the caller's sandbox" has "$OUT" "unreadable:"

# ---- an exported bash function -----------------------------------------------
session 'f() { echo hi; }; export -f f; env | grep -c "^BASH_FUNC_f" ; tcat '"$RO"'/ok.cnf; echo rc=$?' bash
expect "bash's export -f is in the session's environment" has "$OUT" "1"
expect "... and fails no tool call (it is dropped, not refused)" has "$OUT" "rc=0"
expect "... the call ran" has "$OUT" "outside every writable root"

mkdir -p "$BASE/home2"
printf '[user]\n\tname = Chosen By The Session\n' > "$WS/dot.gitconfig"
ln -s "$WS/dot.gitconfig" "$BASE/home2/.gitconfig"
out=$(cd "$WS" && HOME=$BASE/home2 "$CORDON" run --profile "$P" -- true 2>&1)
rc=$?
if [ $rc != 0 ] && has "$out" "home_files: .gitconfig is $WS/dot.gitconfig"; then
	ok "a home_files entry that resolves into the workspace stops the session's start, named"
else
	not_ok "home_files into the workspace" "rc=$rc" "$out"
fi

# ---- what the profile may say for a tool -----------------------------------
for entry in '"*"' '"GIT_*"' '"HOME"' '"XDG_CONFIG_HOME"' '"TMPDIR"' '"LANG", "LANG"' '"NODE_OPTIONS"' \
	'"BASH_ENV"' '"PYTHONSTARTUP"' '"LD_PRELOAD"'; do
	cat > "$BASE/bad.json" <<EOF
{ "workspace": "$WS", "command_policies": { "commands": {
  "tcat": { "executable": "$BIN/tcat", "sandbox": { "environment": { "allow_vars": [$entry] } } } } } }
EOF
	out=$("$CORDON" run --profile "$BASE/bad.json" -- true 2>&1)
	rc=$?
	name=${entry%%,*}
	if [ $rc != 0 ] && has "$out" "allow_vars/" && has "$out" "${name//\"/}"; then
		ok "a tool's allow_vars [$entry] is refused at load, the entry named"
	else
		not_ok "allow_vars [$entry] loaded" "rc=$rc" "$out"
	fi
done
cat > "$BASE/good.json" <<EOF
{ "workspace": "$WS", "command_policies": { "commands": {
  "tcat": { "executable": "$BIN/tcat", "sandbox": { "environment": { "allow_vars": ["LANG", "KUBECONFIG"] } } } } } }
EOF
out=$("$CORDON" run --profile "$BASE/good.json" -- true 2>&1)
[ $? = 0 ] && ok "... (control: names, each once, load)" || not_ok "a good allow_vars refused" "$out"

finish
