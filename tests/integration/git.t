#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# git init, clone and config in the workspace, safely (the write gate's
# validated install, src/exec/gate_git.h). A repository's config is code
# the host's git runs later: inside, git init, git clone of a local
# repository, git remote add and git config user.email work and land on
# the host; every key off the safe list is refused with a line naming it,
# and the host's own git (status, log, commit, fetch, credential) then
# runs no marker. Each refused key has an unconfined control where the
# same key makes the same host command run the marker. Also: a remote URL
# through a helper, a changed remote URL, an fd held on the candidate
# after its rename, a hook renamed into hooks/, and bare repositories.
set -u

. "$(dirname "$0")/tap.sh"

tap_base git

H=$BASE/home
mkdir -p "$H"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
unset GIT_TEMPLATE_DIR EDITOR VISUAL GIT_EDITOR PAGER GIT_PAGER
M=$BASE/marker
nr=0 nb=0

crun() { # crun WS ARGS... : cordon run in WS (workspace-write), HOME=$H; the command's status, its output on stdout
        local ws=$1
        shift
        (cd "$ws" && HOME=$H "$CORDON" run --backend native --keep-env 'GIT_*' "$@" 2>&1)
}
hgit() { HOME=$H git "$@"; } # the host's git, as the user later runs it

# ---------------------------------------------------------------------------
# 1. What agents do works, and lands on the host
W=$BASE/ws
mkdir -p "$W"
out=$(crun "$W" -- git init -q .)
check "git init inside the workspace works" [ $? -eq 0 -a -d "$W/.git/objects" ]
check "... the host's git sees a repository" hgit -C "$W" rev-parse --git-dir
check "... and no templates were copied: no hooks/ to fill" [ ! -e "$W/.git/hooks" -a ! -e "$W/.git/info" ]
out=$(crun "$W" -- git config user.email agent@example.com)
check "git config user.email works inside" [ $? -eq 0 ]
check "... the host reads it" [ "$(hgit -C "$W" config user.email)" = agent@example.com ]
out=$(crun "$W" -- git remote add origin https://example.com/project.git)
check "git remote add (https) works inside" [ $? -eq 0 ]
check "... the host reads it" [ "$(hgit -C "$W" config remote.origin.url)" = https://example.com/project.git ]
for url in ssh://git@example.com/p.git git@example.com:p.git ../other.git /srv/repo.git; do
        nr=$((nr + 1))
        out=$(crun "$W" -- git remote add "r$nr" "$url")
        check "git remote add, a plain form: $url" [ $? -eq 0 -a "$(hgit -C "$W" config "remote.r$nr.url")" = "$url" ]
done
echo hi > "$W/f" && out=$(crun "$W" -- sh -c 'git add f && git commit -q -m inside')
check "git add and commit inside the new repository" [ "$(hgit -C "$W" log -1 --format=%s)" = inside ]

SRC=$BASE/src
mkdir -p "$SRC" && git -C "$SRC" init -q && git -C "$SRC" commit -q --allow-empty -m upstream
out=$(crun "$W" -- git clone -q "$SRC" cl)
check "git clone of a local repository works inside" [ $? -eq 0 ]
check "... the host sees its history" [ "$(hgit -C "$W/cl" log -1 --format=%s)" = upstream ]
check "... and its origin" [ "$(hgit -C "$W/cl" config remote.origin.url)" = "$SRC" ]
check "... and no hooks/" [ ! -e "$W/cl/.git/hooks" ]
out=$(crun "$W" -- sh -c 'mkdir -p deep/er && cd deep/er && git init -q sub && git -C sub config user.name n')
check "git init and config at depth work" [ "$(hgit -C "$W/deep/er/sub" config user.name)" = n ]

# ---------------------------------------------------------------------------
# 2. Every key off the safe list: refused inside, nothing runs on the host;
# unconfined, the same key makes the same host command run the marker.
HK=$BASE/hooks.d
mkdir -p "$HK" && printf '#!/bin/sh\ntouch %s\n' "$M" > "$HK/pre-commit" && chmod +x "$HK/pre-commit"
INC=$BASE/inc.cfg
printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > "$INC"
TRAP=$BASE/trap
mkdir -p "$TRAP" && git -C "$TRAP" init -q && git -C "$TRAP" commit -q --allow-empty -m trap

# trigger NAME REPO: the host's everyday command that runs what key NAME names
trigger() {
        local r=$2
        case $1 in
        fsmonitor|include|includeif) (cd "$r" && hgit status) ;;
        hookspath) (cd "$r" && hgit commit -q --allow-empty -m x) ;;
        editor) (cd "$r" && hgit commit -q --allow-empty) ;; # no -m: the editor opens
        sshcommand) hgit -C "$r" ls-remote ssh://example.invalid/r ;;
        pager) script -qec "cd '$r' && HOME='$H' git log -1" /dev/null ;;
        alias) hgit -C "$r" st ;;
        filter) (cd "$r" && echo '* filter=x' > .gitattributes && echo new > g && hgit add g) ;;
        textconv) (cd "$r" && echo '*.txt diff=x' > .gitattributes && echo 1 > a.txt && hgit add a.txt &&
                hgit commit -q -m a && echo 2 > a.txt && hgit diff) ;;
        credential) printf 'protocol=https\nhost=example.com\n\n' | hgit -C "$r" credential fill ;;
        insteadof) hgit -C "$r" ls-remote https://example.invalid/r | grep -q . && touch "$M" ;;
        uploadpack) hgit -C "$r" fetch -q origin ;;
        esac
}

# refused NAME KEY VALUE: git config KEY VALUE is refused inside (naming KEY),
# the host's trigger then runs nothing; unconfined it runs the marker.
n=0
refused() {
        local name=$1 key=$2 value=$3 r c rc
        n=$((n + 1))
        r=$W/k$n c=$BASE/ctl$n
        for d in "$r" "$c"; do
                mkdir -p "$d" && git -C "$d" init -q && git -C "$d" commit -q --allow-empty -m base &&
                        git -C "$d" remote add origin "$SRC"
        done
        rm -rf "$r/.git/hooks" # as made inside: no templates
        out=$(crun "$r" -- git config "$key" "$value")
        rc=$?
        if [ $rc -ne 0 ] && grep -qiF "git config $key refused" <<<"$out"; then
                ok "git config $key: refused, the run names the key"
        else
                not_ok "git config $key refused" "rc=$rc" "$out"
        fi
        check "... $key is not in the host's config" not hgit -C "$r" config --get-all "$key"
        rm -f "$M"
        trigger "$name" "$r" >/dev/null 2>&1
        check "... the host's $name trigger runs nothing" [ ! -e "$M" ]
        git -C "$c" config "$key" "$value"
        rm -f "$M"
        trigger "$name" "$c" >/dev/null 2>&1
        check "control: $key set unconfined makes the same host command run the marker" [ -e "$M" ]
        rm -f "$M"
}

refused fsmonitor core.fsmonitor "touch $M; false"
refused hookspath core.hooksPath "$HK"
refused sshcommand core.sshCommand "touch $M; false"
refused pager core.pager "touch $M; cat"
refused alias alias.st "!touch $M"
refused include include.path "$INC"
refused includeif 'includeIf.gitdir:/.path' "$INC"
refused filter filter.x.clean "touch $M; cat"
refused textconv diff.x.textconv "sh -c 'touch $M; cat \"\$1\"' -"
refused credential credential.helper "!touch $M; false"
refused insteadof "url.$TRAP.insteadOf" https://example.invalid/r
# two the issue does not name
refused editor core.editor "touch $M; true"
refused uploadpack remote.origin.uploadpack "touch $M; false"

# init.templateDir: refused too, although git reads it from the user's
# and the system's config only (no host command reads it from a
# repository's: no marker control for it)
out=$(crun "$W" -- git config init.templateDir "$HK")
check "git config init.templateDir is refused (naming it)" has "$out" "git config init.templatedir refused"
check "... and not in the host's config" not hgit -C "$W" config init.templateDir

# a key hand-written in a candidate: any edit of the file goes the same way
out=$(crun "$W" -- sh -c "cp .git/config .git/config.lock && printf '[core]\n\tfsmonitor = \"touch $M; false\"\n' >> .git/config.lock && mv .git/config.lock .git/config")
check "a hand-made candidate with core.fsmonitor renamed onto .git/config is refused" [ $? -ne 0 ]
rm -f "$W/.git/config.lock" # what a refused mv leaves (git itself removes its lock)
rm -f "$M"; (cd "$W" && hgit status >/dev/null 2>&1)
check "... and the host's git status runs nothing" [ ! -e "$M" ]
out=$(crun "$W" -- sh -c "printf '[core]\n\tfsmonitor = \"touch $M; false\"\n' >> .git/config")
check "a direct append to .git/config stays refused" [ $? -ne 0 ]
check "... the host's config has no fsmonitor" not hgit -C "$W" config core.fsmonitor

# ---------------------------------------------------------------------------
# 3. Remote URLs: plain forms only, and an existing remote keeps its URL
out=$(crun "$W" -- git remote add evil "ext::sh -c touch% $M")
check "a helper::address remote URL (ext::) is refused" [ $? -ne 0 ]
rm -f "$M"; hgit -C "$W" -c protocol.ext.allow=always fetch -q evil >/dev/null 2>&1
check "... the host's fetch (even with ext allowed) runs nothing" [ ! -e "$M" ]
mkdir -p "$BASE/ctl-ext" && git -C "$BASE/ctl-ext" init -q && git -C "$BASE/ctl-ext" remote add evil "ext::sh -c touch% $M"
rm -f "$M"; hgit -C "$BASE/ctl-ext" -c protocol.ext.allow=always fetch -q evil >/dev/null 2>&1
check "control: the same remote unconfined runs the marker on fetch" [ -e "$M" ]
rm -f "$M"
for url in "fd::3" "testhelper::x" "gopher://example.com/x" "-oProxyCommand=x:y"; do
        nb=$((nb + 1))
        out=$(crun "$W" -- git remote add "bad$nb" "$url")
        check "a remote URL not in a plain form is refused: $url" [ $? -ne 0 ]
done
out=$(crun "$W" -- git remote set-url origin https://evil.example/x.git)
check "changing an existing remote's URL is refused" [ $? -ne 0 ]
check "... origin keeps its URL on the host" [ "$(hgit -C "$W" config remote.origin.url)" = https://example.com/project.git ]
out=$(crun "$W" -- git remote remove origin)
check "removing an existing remote (to add it again elsewhere) is refused" [ $? -ne 0 ]
out=$(crun "$W" -- git config submodule.s.url "ext::sh -c touch% $M")
check "a helper submodule URL is refused" [ $? -ne 0 ]

# ---------------------------------------------------------------------------
# 4. An fd the sandbox holds on the candidate reaches nothing installed
out=$(crun "$W" -- "$PY" -c '
import os
fd = os.open(".git/config.lock", os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
os.write(fd, open(".git/config", "rb").read())
os.rename(".git/config.lock", ".git/config")
os.lseek(fd, 0, os.SEEK_END)
os.write(fd, b"[core]\n\tfsmonitor = \"touch '"$M"'; false\"\n")
os.close(fd)
')
check "a rename of a safe candidate with an fd kept open succeeds" [ $? -eq 0 ]
check "... a write through that fd after the rename does not reach the installed config" \
        not grep -q fsmonitor "$W/.git/config"
rm -f "$M"; (cd "$W" && hgit status >/dev/null 2>&1)
check "... and the host's git status runs nothing" [ ! -e "$M" ]

# ---------------------------------------------------------------------------
# 5. hooks/ stays impossible to populate
PLANT="printf '#!/bin/sh\ntouch $M\n' > x && chmod +x x && mv x hk/.git/hooks/pre-commit"
git -C "$W" init -q hk && git -C "$BASE" init -q hk # the host's own: hooks/ with its samples
out=$(crun "$W" -- sh -c "$PLANT")
check "a hook renamed into an existing .git/hooks is refused" [ ! -e "$W/hk/.git/hooks/pre-commit" ]
rm -f "$M"; hgit -C "$W/hk" commit -q --allow-empty -m host >/dev/null 2>&1
check "... the host's git commit there runs no hook" [ ! -e "$M" ]
(cd "$BASE" && sh -c "$PLANT") && rm -f "$M" && hgit -C "$BASE/hk" commit -q --allow-empty -m host >/dev/null 2>&1
check "control: the same rename unconfined makes the host's git commit run it" [ -e "$M" ]
rm -f "$M"
out=$(crun "$W" -- mkdir .git/hooks)
check "... nor can .git/hooks be made" [ ! -e "$W/.git/hooks" ]
out=$(crun "$W" -- sh -c "mkdir h && printf '#!/bin/sh\ntouch $M\n' > h/pre-commit && chmod +x h/pre-commit && mv h .git/hooks")
check "... nor a directory of hooks renamed onto it" [ ! -e "$W/.git/hooks" ]
rm -f "$M"; hgit -C "$W" commit -q --allow-empty -m host >/dev/null 2>&1
check "... the host's git commit runs no hook" [ ! -e "$M" ]
out=$(crun "$W" -- env GIT_TEMPLATE_DIR=/usr/share/git-core/templates git init -q tpl)
check "a git init asked for templates explicitly cannot copy its hooks" [ ! -e "$W/tpl/.git/hooks/pre-commit.sample" ]

# ---------------------------------------------------------------------------
# 6. Bare repositories in the workspace: what git finds is protected as .git
out=$(crun "$W" -- git init -q --bare b.git)
check "git init --bare works inside" [ $? -eq 0 -a -f "$W/b.git/config" ]
out=$(crun "$W" -- git -C b.git config core.fsmonitor "touch $M; false")
check "git config core.fsmonitor in a bare repository is refused" [ $? -ne 0 ]
out=$(crun "$W" -- sh -c 'printf "[alias]\n\tst = !touch '"$M"'\n" >> b.git/config')
check "a direct append to a bare repository's config is refused" [ $? -ne 0 ]
out=$(crun "$W" -- sh -c "mkdir b.git/hooks && printf '#!/bin/sh\ntouch $M\n' > b.git/hooks/post-update")
check "a bare repository's hooks/ cannot be made" [ ! -e "$W/b.git/hooks" ]
rm -f "$M"; hgit -C "$W/b.git" st >/dev/null 2>&1
check "... the host's git in the bare repository runs nothing" [ ! -e "$M" ]

# made in the order that would slip past a check at the config: the config
# first, HEAD, objects and refs after
MKBARE="mkdir d && printf '[alias]\n\tst = !touch $M\n' > d/config && mkdir d/objects d/refs && echo 'ref: refs/heads/main' > d/HEAD"
out=$(crun "$W" -- sh -c "$MKBARE")
check "a raw config made first, then HEAD, objects, refs: the last one is refused" [ $? -ne 0 -a ! -e "$W/d/HEAD" ]
rm -f "$M"; (cd "$W/d" && hgit st >/dev/null 2>&1)
check "... the host's git there runs nothing" [ ! -e "$M" ]
mkdir -p "$BASE/ctl-bare" && (cd "$BASE/ctl-bare" && sh -c "$MKBARE")
rm -f "$M"; (cd "$BASE/ctl-bare/d" && hgit st >/dev/null 2>&1)
check "control: the same directory made unconfined runs the marker" [ -e "$M" ]
rm -f "$M"
out=$(crun "$W" -- sh -c "mkdir e && printf '[user]\n\tname = n\n' > e/config && mkdir e/objects e/refs && echo 'ref: refs/heads/main' > e/HEAD")
check "the same with a safe config works (it is re-installed validated)" [ $? -eq 0 -a -e "$W/e/HEAD" ]
out=$(crun "$W" -- sh -c "mkdir -p proj/refs && echo 'not = git; at all' > proj/c.tmp && mv proj/c.tmp proj/config && echo 'x = 1' >> proj/config")
check "a project's own config beside a refs/ directory is written as usual (no repository there)" \
        [ $? -eq 0 -a "$(tail -1 "$W/proj/config")" = "x = 1" ]
out=$(crun "$W" -- sh -c "mkdir f && echo 'ref: refs/heads/main' > f/HEAD && echo ../b.git > f/commondir")
check "a commondir (git would read another directory's config) cannot be made" [ ! -e "$W/f/commondir" ]

# ---------------------------------------------------------------------------
# 7. The run's verdict names the key (denials carry the gate's line)
j=$(cd "$W" && HOME=$H "$CORDON" run --backend native --json --keep-env 'GIT_*' -- git config core.hooksPath "$HK")
check "--json: verdict denied" [ "$(json_field <(echo "$j") verdict)" = denied ]
check "--json: a denial's line names core.hookspath" has "$j" "git config core.hookspath refused"

finish
