#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The write gate: nothing a run writes is run later by the host. What
# makes git run code (config, hooks, info, commondir, a .git entry) in
# every repository at any depth, editor and agent configuration at any
# depth, HOME's dot-entries and PATH directories once HOME is writable —
# none can be made, written, replaced, linked or moved from inside, also
# after the host replaces the protected file by rename during the run (the
# mount a rename detaches is not what holds), and the host's own trigger
# (git status, bash -i) then finds no marker. Each refusal has an
# unconfined control that plants the same payload and sees it fire.
set -u

. "$(dirname "$0")/tap.sh"

tap_base persist

H=$BASE/home
mkdir -p "$H"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
export GIT_CONFIG_NOSYSTEM=1

crun() { # crun WS ARGS... : cordon run in WS, HOME=$H, interactive: the command's own exit status
        local ws=$1
        shift
        (cd "$ws" && HOME=$H "$CORDON" run --backend native --keep-env 'GIT_*' "$@")
}

new_repo() { # new_repo DIR: a repository with one commit
        mkdir -p "$1" && git -C "$1" init -q && git -C "$1" commit -q --allow-empty -m init
}
payload() { # payload MARKER: the fsmonitor line a host `git status` runs
        printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$1"
}
fires() { # fires DIR MARKER: a host git status in DIR runs a planted fsmonitor
        rm -f "$2"
        (cd "$1" && HOME=$H git status >/dev/null 2>&1)
        [ -e "$2" ]
}

# ---------------------------------------------------------------------------
# 1. A nested repository's config, at depth, and the host's git status there
W=$BASE/ws1
new_repo "$W"
new_repo "$W/a/b/sub"
M=$BASE/mark1
crun "$W" -- sh -c "printf '[core]\n\tfsmonitor = \"touch $M; false\"\n' >> a/b/sub/.git/config" 2>/dev/null
check "a nested repository's .git/config cannot be appended to from inside" [ $? -ne 0 ]
check "... and the host's git status in that directory runs nothing" not fires "$W/a/b/sub" "$M"
cp "$W/a/b/sub/.git/config" "$BASE/sub.config"
payload "$M" >> "$W/a/b/sub/.git/config"
check "control: the same append outside makes the host's git status run it" fires "$W/a/b/sub" "$M"
cp "$BASE/sub.config" "$W/a/b/sub/.git/config"

crun "$W" -- sh -c 'printf "#!/bin/sh\ntouch '"$M"'\n" > a/b/sub/.git/hooks/pre-commit; chmod +x a/b/sub/.git/hooks/pre-commit' 2>/dev/null
check "a nested repository's hook cannot be planted" [ ! -e "$W/a/b/sub/.git/hooks/pre-commit" ]
rm -f "$M"; git -C "$W/a/b/sub" commit -q --allow-empty -m host >/dev/null 2>&1
check "... and the host's git commit there runs no hook" [ ! -e "$M" ]
printf '#!/bin/sh\ntouch %s\n' "$M" > "$W/a/b/sub/.git/hooks/pre-commit" && chmod +x "$W/a/b/sub/.git/hooks/pre-commit"
rm -f "$M"; git -C "$W/a/b/sub" commit -q --allow-empty -m host >/dev/null 2>&1
check "control: the same hook made outside runs on the host's git commit" [ -e "$M" ]
rm -f "$W/a/b/sub/.git/hooks/pre-commit" "$M"
crun "$W" -- mkdir a/b/sub/.git/info/x 2>/dev/null
check "... nor anything made in its info/" [ ! -e "$W/a/b/sub/.git/info/x" ]

# 2. A gitdir: pointer, a new repository, a moved or linked config
crun "$W" -- sh -c 'mkdir -p evil && cp -r a/b/sub/.git/. evil/ 2>/dev/null; printf "gitdir: %s/evil\n" "$PWD" > a/.git' 2>/dev/null
check "a .git file (gitdir: pointer) cannot be made in a subdirectory" [ ! -e "$W/a/.git" ]
crun "$W" -- git init -q fresh 2>/dev/null
check "git init below the workspace works (an empty .git, then a validated config: git.t)" [ -d "$W/fresh/.git/objects" ]
check "... and copies no templates: no hooks/ to fill" [ ! -e "$W/fresh/.git/hooks" ]
mkdir -p "$BASE/ctl" && git -C "$BASE/ctl" init -q fresh
check "control: git init works unconfined" [ -d "$BASE/ctl/fresh/.git" ]
crun "$W" -- ln .git/config linked 2>/dev/null
check "a hard link to .git/config cannot be made (it would be writable under another name)" [ ! -e "$W/linked" ]
crun "$W" -- mv a/b/sub/.git a/b/sub/moved 2>/dev/null
check "a nested .git cannot be moved away (and its config written under another name)" [ -d "$W/a/b/sub/.git" ]
crun "$W" -- "$PY" -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
open("x", "w").write("[core]\n\tfsmonitor = touch '"$M"'\n")
AT_FDCWD = -100
r = libc.renameat2(AT_FDCWD, b"x", AT_FDCWD, b".git/config", 2)  # RENAME_EXCHANGE
raise SystemExit(0 if r == 0 else 1)' 2>/dev/null
check "renameat2(RENAME_EXCHANGE) onto .git/config is refused" [ $? -ne 0 ]
check "... and the host's git status runs nothing" not fires "$W" "$M"
crun "$W" -- truncate -s 0 .git/config 2>/dev/null
check "truncate(2) of .git/config is refused" [ -s "$W/.git/config" ]

# 3. Normal git work still lands on the host
echo hello > "$W/file"
crun "$W" -- sh -c 'git add file && git commit -q -m "from inside" && git checkout -q -b topic && git stash list >/dev/null'
check "git add, commit and checkout -b work inside" [ $? -eq 0 ]
check "... and the commit is on the host" [ "$(git -C "$W" log -1 --format=%s topic)" = "from inside" ]
crun "$W" -- git -C a/b/sub commit -q --allow-empty -m nested
check "a commit in a nested repository works too" [ "$(git -C "$W/a/b/sub" log -1 --format=%s)" = nested ]
crun "$W" -- git config user.name inside 2>/dev/null
check "git config user.name (a lock file renamed over .git/config) installs a validated copy" \
        [ "$(git -C "$W" config user.name)" = inside ]
crun "$W" -- git config core.pager "touch $M" 2>/dev/null
check "git config core.pager (not on the safe list) is refused" [ $? -ne 0 ]
check "... and the host's config has no core.pager" not git -C "$W" config core.pager

# 4. Submodule and worktree git directories
new_repo "$BASE/up"
git -C "$W" -c protocol.file.allow=always submodule add -q "$BASE/up" mods/up >/dev/null 2>&1
git -C "$W" worktree add -q "$BASE/wt1" >/dev/null 2>&1
if [ -d "$W/.git/modules/mods/up" ] && [ -d "$W/.git/worktrees/wt1" ]; then
        crun "$W" -- sh -c "payload() { :; }; printf '[core]\n\tfsmonitor = \"touch $M; false\"\n' >> .git/modules/mods/up/config" 2>/dev/null
        check "a submodule's config in .git/modules is refused" not fires "$W/mods/up" "$M"
        crun "$W" -- sh -c 'echo x > .git/modules/mods/up/hooks/post-checkout' 2>/dev/null
        check "a submodule's hook in .git/modules is refused" [ ! -e "$W/.git/modules/mods/up/hooks/post-checkout" ]
        crun "$W" -- sh -c 'echo /tmp/elsewhere > .git/worktrees/wt1/gitdir; echo x > .git/worktrees/wt1/config.worktree' 2>/dev/null
        check "a linked worktree's gitdir and config.worktree are refused" \
                [ "$(cat "$W/.git/worktrees/wt1/gitdir")" = "$BASE/wt1/.git" -a ! -e "$W/.git/worktrees/wt1/config.worktree" ]
        crun "$BASE/wt1" -- sh -c 'echo "gitdir: /tmp" > .git' 2>/dev/null
        check "a linked worktree's own .git file is refused" grep -q "$W/.git/worktrees/wt1" "$BASE/wt1/.git"
else
        skip "submodule and worktree git directories" "git could not make them here"
        skip "a submodule's hook" "as above"; skip "worktree gitdir" "as above"; skip "worktree .git file" "as above"
fi

# 5. Editor and agent configuration at any depth; node_modules is third-party
crun "$W" -- sh -c 'mkdir -p pkg/.vscode && echo "{}" > pkg/.vscode/tasks.json' 2>/dev/null
check "pkg/.vscode/tasks.json cannot be made" [ ! -e "$W/pkg/.vscode" ]
crun "$W" -- sh -c 'mkdir -p x/y/z && echo "{}" > x/y/z/.mcp.json' 2>/dev/null
check "a .mcp.json three levels down cannot be made" [ ! -e "$W/x/y/z/.mcp.json" ]
mkdir -p "$W/tools/.claude"
crun "$W" -- sh -c 'echo "{\"hooks\":{}}" > tools/.claude/settings.json' 2>/dev/null
check "an existing nested .claude/ gets no new settings.json" [ ! -e "$W/tools/.claude/settings.json" ]
crun "$W" -- sh -c 'echo "script-shell=/tmp/evil" > pkg/.npmrc; echo "export X=1" > x/.envrc' 2>/dev/null
check "nested .npmrc and .envrc cannot be made" [ ! -e "$W/pkg/.npmrc" -a ! -e "$W/x/.envrc" ]
crun "$W" -- sh -c 'mkdir -p node_modules/dep/.vscode && echo "{}" > node_modules/dep/.vscode/settings.json'
check "a package's own .vscode below node_modules can be laid down" [ -e "$W/node_modules/dep/.vscode/settings.json" ]
mkdir -p "$BASE/ctl/pkg/.vscode" && echo '{}' > "$BASE/ctl/pkg/.vscode/tasks.json"
check "control: the same nested tasks.json can be made unconfined" [ -e "$BASE/ctl/pkg/.vscode/tasks.json" ]

# 6. The host replaces a protected file by rename during the run: the
# detached mount is not what protects it.
W6=$BASE/ws6
new_repo "$W6"
echo 'export A=1' > "$W6/.envrc"
(cd "$W6" && HOME=$H "$CORDON" run --backend native -- sh -c '
        while [ ! -e go ]; do sleep 0.05; done
        printf "[core]\n\tfsmonitor = \"touch '"$M"'; false\"\n" >> .git/config 2>/dev/null && echo CONFIG-WRITTEN
        echo "touch '"$M"'" >> .envrc 2>/dev/null && echo ENVRC-WRITTEN
        echo "{}" > .vscode/tasks.json 2>/dev/null && echo TASKS-WRITTEN
        echo "{}" > sub/.vscode/tasks.json 2>/dev/null && echo SUBTASKS-WRITTEN
        :' > "$BASE/ws6.out" 2>&1) &
PIDS+=($!)
RUNPID=$!
sleep 1
git -C "$W6" config user.name renamed          # config.lock renamed over .git/config
printf 'export A=2\n' > "$W6/.envrc.tmp" && mv "$W6/.envrc.tmp" "$W6/.envrc"   # an editor's atomic save
mkdir -p "$W6/.vscode" "$W6/sub/.vscode"       # a folder opened on the host meanwhile
touch "$W6/go"
wait "$RUNPID"
check "after the host's git config (rename), .git/config stays unwritable inside" not grep -q CONFIG-WRITTEN "$BASE/ws6.out"
check "... the host's own change is there, and its git status runs nothing" \
        [ "$(git -C "$W6" config user.name)" = renamed -a ! -e "$M" ]
fires "$W6" "$M"; r=$?
check "... (host git status: no marker)" [ $r -ne 0 ]
check "after an atomic save on the host, .envrc stays unwritable inside" not grep -q ENVRC-WRITTEN "$BASE/ws6.out"
check "a .vscode the host makes during the run gets no tasks.json from inside" \
        not grep -q TASKS-WRITTEN "$BASE/ws6.out"
check "... nor a nested one" not grep -q SUBTASKS-WRITTEN "$BASE/ws6.out"

# 7. HOME writable (workspace = HOME): dot-entries, start-up files, PATH
HW=$BASE/hw
mkdir -p "$HW/project" "$HW/bin" "$HW/.config" "$HW/.cache/pip"
echo '# rc' > "$HW/.bashrc"
hrun() { (cd "$HW" && HOME=$HW PATH="$HW/bin:$PATH" "$CORDON" run --backend native --keep-env 'GIT_*' "$@"); }
hrun -- sh -c "echo 'touch $M' >> .bashrc" 2>/dev/null
check "HOME as workspace: ~/.bashrc cannot be appended to" not grep -q touch "$HW/.bashrc"
rm -f "$M"; HOME=$HW bash -i -c true </dev/null >/dev/null 2>&1
check "... and the host's bash -i runs nothing" [ ! -e "$M" ]
echo "touch $M" >> "$HW/.bashrc.ctl" && cp "$HW/.bashrc" "$BASE/rc.save" && cat "$HW/.bashrc.ctl" >> "$HW/.bashrc"
rm -f "$M"; HOME=$HW bash -i -c true </dev/null >/dev/null 2>&1
check "control: the same line appended outside runs in the host's bash -i" [ -e "$M" ]
cp "$BASE/rc.save" "$HW/.bashrc"; rm -f "$HW/.bashrc.ctl"
hrun -- sh -c 'mkdir -p .ssh && echo key > .ssh/authorized_keys' 2>/dev/null
check "... ~/.ssh cannot be made when absent" [ ! -e "$HW/.ssh" ]
hrun -- sh -c 'echo x > .gitconfig; echo x > .newdot; mkdir -p .config/systemd/user; mkdir -p .local/bin' 2>/dev/null
check "... nor ~/.gitconfig, a new dot-entry, systemd user units or ~/.local/bin" \
        [ ! -e "$HW/.gitconfig" -a ! -e "$HW/.newdot" -a ! -e "$HW/.config/systemd" -a ! -e "$HW/.local" ]
hrun -- sh -c 'printf "#!/bin/sh\ntouch '"$M"'\n" > bin/ls; chmod +x bin/ls' 2>/dev/null
check "... a PATH directory below HOME (~/bin) gets no planted command" [ ! -e "$HW/bin/ls" ]
hrun -- sh -c 'echo ok > project/notes.txt && echo ok > top.txt'
check "... while ordinary files in HOME and its projects are written" [ -e "$HW/project/notes.txt" -a -e "$HW/top.txt" ]
hrun --profile python -- sh -c 'echo cached > .cache/pip/wheel' 2>/dev/null
check "... and a cache the profile names below a dot-entry stays writable" [ -e "$HW/.cache/pip/wheel" ]
hrun -- sh -c 'echo x > .cache/other' 2>/dev/null
check "... but not the dot-entry around it" [ ! -e "$HW/.cache/other" ]

# 8. A profile's bypass lifts exactly what it names
cat > "$BASE/bypass.json" <<EOF
{ "meta": {"name": "b", "version": "1"}, "extends": "workspace-write",
  "groups": { "persistence": { "bypass": ["\$WORKSPACE/.vscode"] } } }
EOF
W8=$BASE/ws8
mkdir -p "$W8"
crun "$W8" --profile "$BASE/bypass.json" -- sh -c 'mkdir .vscode && echo "{}" > .vscode/settings.json'
check "groups.persistence.bypass of \$WORKSPACE/.vscode lets it be made" [ -e "$W8/.vscode/settings.json" ]
crun "$W8" --profile "$BASE/bypass.json" -- sh -c 'mkdir -p p/.vscode' 2>/dev/null
check "... but not a nested one it does not name" [ ! -e "$W8/p/.vscode" ]

# 9. HOME writable: a credential file the host replaces by rename, a store
# the host makes during the run, a hard link to one
HC=$BASE/hc
mkdir -p "$HC/project"
echo 'https://u:OLDTOKEN@example.invalid' > "$HC/.git-credentials"
(cd "$HC" && HOME=$HC "$CORDON" run --backend native -- sh -c '
        cat .git-credentials 2>/dev/null && echo READ-BEFORE
        ln .git-credentials project/copy 2>/dev/null && echo LINKED
        while [ ! -e project/go ]; do sleep 0.05; done
        cat .git-credentials 2>/dev/null && echo READ-AFTER
        cat .docker/config.json 2>/dev/null && echo READ-NEW-STORE
        cat /proc/self/cwd/.git-credentials 2>/dev/null && echo READ-MAGIC
        ls -a . >/dev/null && echo LISTED
        :' > "$BASE/hc.out" 2>&1) &
PIDS+=($!)
RUNPID=$!
sleep 1
echo 'https://u:NEWTOKEN@example.invalid' > "$HC/.gc.tmp" && mv "$HC/.gc.tmp" "$HC/.git-credentials"  # git credential store's rewrite
mkdir -p "$HC/.docker" && echo '{"auths":{"x":{"auth":"TOKEN"}}}' > "$HC/.docker/config.json"  # docker login meanwhile
touch "$HC/project/go"
wait "$RUNPID"
check "HOME as workspace: ~/.git-credentials is unreadable" not grep -q READ-BEFORE "$BASE/hc.out"
check "... and cannot be hard-linked to a readable name" not grep -q LINKED "$BASE/hc.out"
check "... still unreadable after the host replaces it by rename" not grep -q -e READ-AFTER -e NEWTOKEN "$BASE/hc.out"
check "... a store the host makes during the run is unreadable" not grep -q -e READ-NEW-STORE -e TOKEN "$BASE/hc.out"
check "... also through a /proc magic link" not grep -q READ-MAGIC "$BASE/hc.out"
check "... while HOME itself lists" grep -q LISTED "$BASE/hc.out"
check "control: the host reads both" grep -q NEWTOKEN "$HC/.git-credentials"

# 10. A protected path that is a symlink: its target is protected too
W10=$BASE/ws10
mkdir -p "$W10/conf"
echo 'export A=1' > "$W10/conf/envrc"
ln -s conf/envrc "$W10/.envrc"
crun "$W10" -- sh -c 'echo "touch '"$M"'" >> conf/envrc; ln -sf conf/other .envrc' 2>/dev/null
check "a protected .envrc that is a symlink: its target cannot be written" not grep -q touch "$W10/conf/envrc"
check "... nor the link replaced" [ "$(readlink "$W10/.envrc")" = conf/envrc ]

# 11. npm: a workspace .npmrc naming a script shell, and the host's npm run
if command -v npm >/dev/null; then
        W11=$BASE/ws11
        mkdir -p "$W11/pkg"
        echo '{"name":"p","version":"1.0.0","scripts":{"t":"true"}}' > "$W11/pkg/package.json"
        printf '#!/bin/sh\ntouch %s\n' "$M" > "$BASE/evil-shell" && chmod +x "$BASE/evil-shell"
        crun "$W11" -- sh -c "echo 'script-shell=$BASE/evil-shell' > pkg/.npmrc" 2>/dev/null
        rm -f "$M"; (cd "$W11/pkg" && HOME=$H npm run -s t >/dev/null 2>&1)
        check "a nested .npmrc (script-shell) cannot be planted: the host's npm run runs nothing" \
                [ ! -e "$W11/pkg/.npmrc" -a ! -e "$M" ]
        echo "script-shell=$BASE/evil-shell" > "$W11/pkg/.npmrc"
        rm -f "$M"; (cd "$W11/pkg" && HOME=$H npm run -s t >/dev/null 2>&1)
        check "control: the same .npmrc made outside makes the host's npm run run it" [ -e "$M" ]
else
        skip "a nested .npmrc (script-shell)" "npm is not installed (these machines ship Node.js with npm)"
        skip "control: .npmrc" "npm is not installed"
fi

# 12. A repository's core.hooksPath names where git takes hooks from
W12=$BASE/ws12
new_repo "$W12"
git -C "$W12" config core.hooksPath tools/hooks
mkdir -p "$W12/tools/hooks" "$W12/sub"
crun "$W12/sub" --workspace "$W12" -- sh -c 'printf "#!/bin/sh\ntouch '"$M"'\n" > ../tools/hooks/pre-commit; chmod +x ../tools/hooks/pre-commit' 2>/dev/null
rm -f "$M"; git -C "$W12" commit -q --allow-empty -m host >/dev/null 2>&1
check "a hook in the repository's core.hooksPath (tools/hooks) cannot be planted: the host's git commit runs none" \
        [ ! -e "$W12/tools/hooks/pre-commit" -a ! -e "$M" ]
printf '#!/bin/sh\ntouch %s\n' "$M" > "$W12/tools/hooks/pre-commit" && chmod +x "$W12/tools/hooks/pre-commit"
rm -f "$M"; git -C "$W12" commit -q --allow-empty -m host >/dev/null 2>&1
check "control: the same hook made outside runs on the host's git commit" [ -e "$M" ]
rm -f "$W12/tools/hooks/pre-commit"
mkdir -p "$W12/lib"
git -C "$W12" config core.hooksPath "$W12/lib"     # absolute, in the workspace
crun "$W12/lib" --workspace "$W12/lib" -- sh -c 'echo x > post-checkout' 2>/dev/null
check "... an absolute hooksPath inside a writable root too, from a workspace below the repository's top" \
        [ ! -e "$W12/lib/post-checkout" ]

# 13. A file the repository's config includes is configuration too
W13=$BASE/ws13
new_repo "$W13"
echo '[user]' > "$W13/team.gitconfig"
git -C "$W13" config include.path ../team.gitconfig
git -C "$W13" config 'includeIf.gitdir:/nowhere/.path' ../other.gitconfig
crun "$W13" -- sh -c "printf '[core]\n\tfsmonitor = \"touch $M; false\"\n' >> team.gitconfig; echo x > other.gitconfig" 2>/dev/null
check "a file .git/config includes cannot be written: the host's git status runs nothing" not fires "$W13" "$M"
check "... nor an includeIf target made" [ ! -e "$W13/other.gitconfig" ]

# 14. A hard link that follows a symlink or a /proc magic link to a
# protected file (then written under its new name)
W14=$BASE/ws14
new_repo "$W14/sub"
crun "$W14" -- "$PY" -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open("sub/.git/config", os.O_RDONLY)
os.symlink("sub/.git/config", "s")
made = 0
for src, dst in ((b"/proc/self/fd/%d" % fd, b"y"), (b"s", b"z")):
    if libc.linkat(-100, src, -100, dst, 0x400) == 0:  # AT_SYMLINK_FOLLOW
        made += 1
        open(dst, "a").write("[core]\n\tfsmonitor = \"touch '"$M"'; false\"\n")
open("plain", "w").write("x")
ok = libc.linkat(-100, b"plain", -100, b"plain2", 0x400) == 0
raise SystemExit(0 if made == 0 and ok else 1)' 2>/dev/null
check "linkat(AT_SYMLINK_FOLLOW) through a symlink or /proc/self/fd to .git/config is refused; an ordinary one works" [ $? -eq 0 ]
check "... and the host's git status in that repository runs nothing" not fires "$W14/sub" "$M"

# 15. Protected entries below the top cannot be removed or moved away, by
# unlink, rmdir or rename of the entry or of a directory holding it; what
# keeps a .git a repository stays (else git's discovery takes its directory,
# which the sandbox fills, for a bare repository of its choosing).
W15=$BASE/ws15
new_repo "$W15"
new_repo "$W15/sub"
mkdir -p "$W15/lib" "$W15/sub/.vscode" "$W15/deep/a/b"
git init -q --separate-git-dir "$BASE/libgit" "$W15/lib"
echo '{}' > "$W15/sub/.vscode/tasks.json"
echo 'echo hi' > "$W15/deep/a/b/.envrc"
echo x > "$W15/sub/plain.txt"; echo x > "$W15/lib/plain.txt"; echo x > "$W15/deep/a/b/plain.txt"
# what a sandbox plants once sub's .git is gone: sub itself as a repository
{
        echo "mkdir -p sub/objects sub/refs/heads && echo 'ref: refs/heads/main' > sub/HEAD"
        echo "printf '[core]\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = \"touch $M; false\"\\n' > sub/config"
} > "$BASE/bare.sh"
real15() { # the host's git in sub still finds sub's own repository, not one planted
        [ "$(cd "$W15/sub" && HOME=$H git rev-parse --absolute-git-dir 2>/dev/null)" = "$W15/sub/.git" ] &&
                [ -z "$(cd "$W15/sub" && HOME=$H git config core.fsmonitor)" ]
}
try15() { # try15 DESC CMD: the attempt inside, then the host's git in sub
        crun "$W15" -- sh -c "$2; . '$BASE/bare.sh'" >/dev/null 2>&1
        check "$1: the host's git in sub then reads no config of the sandbox's" real15
        rm -rf "$W15/sub/objects" "$W15/sub/refs" "$W15/sub/HEAD" "$W15/sub/config"
}
try15 "rm -f lib/.git (a gitfile)" "rm -f lib/.git"
check "... lib/.git is still there" [ -f "$W15/lib/.git" ]
try15 "rm -rf sub/.vscode" "rm -rf sub/.vscode"
check "... sub/.vscode/tasks.json is still there" [ -f "$W15/sub/.vscode/tasks.json" ]
try15 "mv sub/.git sub/.git.old" "mv sub/.git sub/.git.old"
check "... sub/.git stays, no .git.old" [ -d "$W15/sub/.git" -a ! -e "$W15/sub/.git.old" ]
try15 "mv sub sub2 && mkdir sub (replacing the repository)" "mv sub sub2 && mkdir sub"
check "... sub is still the repository, no sub2" [ -d "$W15/sub/.git" -a ! -e "$W15/sub2" ]
try15 "rm -rf sub/.git (its HEAD, objects, refs)" "rm -rf sub/.git"
check "... sub/.git keeps HEAD, objects and refs" [ -f "$W15/sub/.git/HEAD" -a -d "$W15/sub/.git/objects" -a -d "$W15/sub/.git/refs" ]
try15 "rm -rf sub/.git/hooks (a nested hooks directory)" "rm -rf sub/.git/hooks"
check "... sub/.git/hooks is still there" [ -d "$W15/sub/.git/hooks" ]
try15 "renameat2(RENAME_EXCHANGE) of sub with an empty directory" \
        "mkdir decoy && $PY -c 'import ctypes; l=ctypes.CDLL(None); raise SystemExit(l.renameat2(-100, b\"sub\", -100, b\"decoy\", 2))'"
check "... sub is still the repository" [ -d "$W15/sub/.git" -a ! -e "$W15/decoy/.git" ]
crun "$W15" -- "$PY" -c '
import os
d = os.open("sub/.vscode", os.O_RDONLY | os.O_DIRECTORY)
for how in (lambda: os.unlink("tasks.json", dir_fd=d), lambda: os.symlink("sub/.vscode", "v") or os.unlink("v/tasks.json")):
    try:
        how()
    except OSError:
        pass' >/dev/null 2>&1
check "unlinkat through a dirfd of sub/.vscode, or through a symlink to it, keeps tasks.json" [ -f "$W15/sub/.vscode/tasks.json" ]
crun "$W15" -- sh -c 'rm -rf deep' >/dev/null 2>&1
check "rm -rf of a parent holding a deep .envrc keeps the .envrc" [ -f "$W15/deep/a/b/.envrc" ]
check "... while the ordinary file beside it is gone" [ ! -e "$W15/deep/a/b/plain.txt" ]
crun "$W15" -- sh -c 'rm sub/plain.txt lib/plain.txt && mkdir -p x/y && mv x x2 && rm -r x2' >/dev/null 2>&1
check "control: ordinary files and directories at the same depth are removed and moved" \
        [ $? -eq 0 -a ! -e "$W15/sub/plain.txt" -a ! -e "$W15/lib/plain.txt" -a ! -e "$W15/x2" ]
rm -rf "$W15/sub/.git"
(cd "$W15" && . "$BASE/bare.sh")
check "control: with sub/.git gone, the host's git in sub takes the planted repository and its config" not real15

finish
