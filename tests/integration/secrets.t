#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# No secret is readable, whatever the host does meanwhile: credential stores
# the catalogue names (old and new entries), a store the host replaces by
# rename during the run (git's lock-file rename, every editor's atomic save),
# a store created during the run, the passwd home when HOME points
# elsewhere, and a root caller's system secrets. Each read has an unconfined
# control that succeeds, so the attempt is a real one.
. "$(dirname "$0")/tap.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

unset TMPDIR
BASE=$(mktemp -d /var/tmp/cordon-secrets.XXXXXX)
chmod 755 "$BASE"
EXTRA=()
cleanup() { rm -rf "$BASE" "${EXTRA[@]}" 2>/dev/null; }
trap cleanup EXIT
H=$BASE/home
WS=$BASE/ws
mkdir -p "$H/.config" "$H/.cache" "$WS"
export HOME=$H XDG_CACHE_HOME=$BASE/cache

field() { "$PY" -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print("" if v is None else v)' "$1"; }
crun() { (cd "$WS" && "$CORDON" run --json "$@") 2>/dev/null; }

# expect_unreadable DESC JSON SECRET: the read failed and the secret is not in the output
expect_unreadable() {
        local desc=$1 json=$2 secret=$3 e
        e=$(field exit_code <<<"$json")
        # a hidden file may read as empty (exit 0); what matters is that the
        # runner ran the command and the secret did not come out
        if [ "$(field verdict <<<"$json")" != runner_failed ] && [ -n "$e" ] && ! grep -q "$secret" <<<"$json"; then
                ok "$desc (exit $e, $(field verdict <<<"$json"): $(field output <<<"$json" | grep -v '^\[cordon' | grep . | tail -n 1))"
        else
                not_ok "$desc: the secret was read" "$json"
        fi
}

plant() { # plant PATH SECRET: a credential file, readable unconfined
        mkdir -p "$(dirname "$1")"
        echo "$2" > "$1"
}

# --- the catalogue, old and new members --------------------------------------
n=0
for rel in .ssh/id_ed25519 .git-credentials .config/git/credentials .config/gh/hosts.yml .aws/credentials \
           .claude/.credentials.json .codex/auth.json .gemini/oauth_creds.json .config/github-copilot/apps.json \
           .pgpass .my.cnf .m2/settings.xml .gradle/gradle.properties .config/composer/auth.json \
           .nuget/NuGet/NuGet.Config .bundle/config .cache/huggingface/token .yarnrc.yml .docker/config.json \
           .kube/config .local/share/keyrings/login.keyring .mozilla/firefox/profiles.ini .vault-token \
           .zsh_history .python_history .irb_history; do
        n=$((n + 1))
        plant "$H/$rel" "cordon-secret-$n"
done
if grep -q cordon-secret-1 "$H/.ssh/id_ed25519" && cat "$H/.vault-token" >/dev/null; then
        ok "control: every planted credential reads unconfined"
fi
n=0
for rel in .ssh/id_ed25519 .git-credentials .config/git/credentials .config/gh/hosts.yml .aws/credentials \
           .claude/.credentials.json .codex/auth.json .gemini/oauth_creds.json .config/github-copilot/apps.json \
           .pgpass .my.cnf .m2/settings.xml .gradle/gradle.properties .config/composer/auth.json \
           .nuget/NuGet/NuGet.Config .bundle/config .cache/huggingface/token .yarnrc.yml .docker/config.json \
           .kube/config .local/share/keyrings/login.keyring .mozilla/firefox/profiles.ini .vault-token \
           .zsh_history .python_history .irb_history; do
        n=$((n + 1))
        j=$(crun -- cat "$H/$rel")
        expect_unreadable "full: ~/$rel" "$j" "cordon-secret-$n"
done
j=$(crun --isolation light -- cat "$H/.config/git/credentials")
expect_unreadable "light: ~/.config/git/credentials" "$j" "cordon-secret-3"
j=$(crun -- sh -c "ls '$H' >/dev/null && cat '$H/.config/git/config' 2>/dev/null; echo listed")
if [ "$(field exit_code <<<"$j")" = 0 ]; then
        ok "full: HOME itself stays listable"
else
        not_ok "full: HOME stays listable" "$j"
fi
if "$CORDON" why --path "$H/.config/git/credentials" --op read >/dev/null 2>&1; then
        not_ok "why says ~/.config/git/credentials is readable"
else
        ok "why: ~/.config/git/credentials read is denied (exit 1)"
fi

# --- the host replaces a store by rename during the run ----------------------
race() { # race DESC ISO...: the sandbox reads after the host's rename
        local desc=$1
        shift
        plant "$H/.git-credentials" "old-secret"
        rm -rf "$H/.ssh.old"
        ( sleep 0.6
          echo "https://u:renamed-secret@example.org" > "$H/.git-credentials.lock" && mv "$H/.git-credentials.lock" "$H/.git-credentials"
          mv "$H/.ssh" "$H/.ssh.old" && mkdir "$H/.ssh" && echo renamed-key > "$H/.ssh/id_rsa" ) &
        j=$(crun "$@" -- sh -c "sleep 1.5; cat '$H/.git-credentials'; cat '$H/.ssh/id_rsa'")
        wait
        if grep -q renamed-secret "$H/.git-credentials" && grep -q renamed-key "$H/.ssh/id_rsa"; then
                expect_unreadable "$desc: ~/.git-credentials and ~/.ssh replaced by rename during the run" "$j" "renamed-"
        else
                not_ok "control: the host's renames happened"
        fi
        rm -rf "$H/.ssh" && mv "$H/.ssh.old" "$H/.ssh"
}
race full
race light --isolation light

# --- stores created during the run --------------------------------------------
created() { # created DESC ISO...
        local desc=$1
        shift
        rm -rf "$H/.aws" "$H/.config/gh" "$H/.netrc"
        ( sleep 0.6
          plant "$H/.aws/credentials" "created-aws"
          plant "$H/.config/gh/hosts.yml" "created-gh"
          plant "$H/.netrc" "created-netrc" ) &
        j=$(crun "$@" -- sh -c "sleep 1.5; cat '$H/.aws/credentials' '$H/.config/gh/hosts.yml' '$H/.netrc'")
        wait
        if [ -s "$H/.aws/credentials" ] && [ -s "$H/.config/gh/hosts.yml" ] && [ -s "$H/.netrc" ]; then
                expect_unreadable "$desc: ~/.aws, ~/.config/gh and ~/.netrc created during the run" "$j" "created-"
        else
                not_ok "control: the host created the stores"
        fi
}
created full
created light --isolation light

# --- stores created between the policy and the runner -------------------------
# The policy says which entries were absent (--deny-read-absent): the runner
# mounts no stand-in for them and does not look at them again, so one made
# in between must still be hidden, by Landlock omission alone. The runner's
# argv is taken from `cordon confine`, the stores are made, then it runs;
# the control runs the same argv without those flags and reads them.
between() { # between DESC ISO...
        local desc=$1 out argv_file=$BASE/argv.json
        shift
        rm -rf "$H/.aws" "$H/.config/gh" "$H/.netrc" "$H/.pgpass"
        (cd "$WS" && "$CORDON" confine --backend native --json "$@" -- \
                sh -c "cat '$H/.aws/credentials' '$H/.config/gh/hosts.yml' '$H/.netrc' '$H/.pgpass'") > "$argv_file"
        plant "$H/.aws/credentials" "between-aws"
        plant "$H/.config/gh/hosts.yml" "between-gh"
        plant "$H/.netrc" "between-netrc"
        plant "$H/.pgpass" "between-pgpass"
        # run ARGV_FILTER: the confined argv (optionally without the
        # absent entries), with its environment and a status pipe at fd 3
        run_confined() {
                "$PY" - "$argv_file" "$1" "$WS" <<'PYEOF'
import json, os, subprocess, sys
c = json.load(open(sys.argv[1]))
argv = c["argv"]
if sys.argv[2] == "drop-absent":
    out = []
    i = 0
    while i < len(argv):
        if argv[i] == "--deny-read-absent":
            i += 2
            continue
        out.append(argv[i])
        i += 1
    argv = out
n_absent = sum(1 for a in c["argv"] if a == "--deny-read-absent")
r, w = os.pipe()
env = dict(e.split("=", 1) for e in c.get("envp") or [])
if w != 3:
    os.dup2(w, 3)
p = subprocess.run(argv, cwd=sys.argv[3], env=env, pass_fds=(3,),
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
print(f"absent-flags={n_absent} exit={p.returncode}")
sys.stdout.write(p.stdout.decode(errors="replace"))
PYEOF
        }
        out=$(run_confined keep)
        if ! grep -q '^absent-flags=[1-9]' <<<"$out"; then
                not_ok "$desc: the policy marks absent stores (--deny-read-absent)" "$out"
        elif grep -q 'between-' <<<"$out"; then
                not_ok "$desc: a store made between the policy and the runner was read" "$out"
        elif [ "$(grep -c 'Permission denied' <<<"$out")" != 4 ]; then
                not_ok "$desc: the command did not meet four denials" "$out"
        else
                ok "$desc: ~/.aws, ~/.config/gh, ~/.netrc, ~/.pgpass made after the policy, before the runner: hidden"
        fi
        out=$(run_confined drop-absent)
        if [ "$(grep -c 'between-' <<<"$out")" = 4 ]; then
                ok "control ($desc): the same argv without --deny-read-absent reads all four"
        else
                not_ok "control ($desc): without --deny-read-absent" "$out"
        fi
}
between full
between light --isolation light

# --- the passwd home, when HOME points elsewhere -------------------------------
pw_home=$(getent passwd "$(id -u)" | cut -d: -f6)
if [ -n "$pw_home" ] && [ "$pw_home" != "$H" ] && [ -d "$pw_home" ] && [ -w "$pw_home" ]; then
        mkdir -p "$pw_home/.ssh" 2>/dev/null
        key=$pw_home/.ssh/cordon-test-$$
        if echo passwd-home-secret > "$key" 2>/dev/null; then
                EXTRA+=("$key")
                j=$(crun -- cat "$key")
                expect_unreadable "HOME=$H: the passwd home's ~/.ssh ($pw_home) is hidden too" "$j" passwd-home-secret
        fi
fi

if [ "$(id -u)" = 0 ]; then
        if head -c 1 /etc/shadow >/dev/null; then
                j=$(crun -- sh -c 'cat /etc/shadow; echo; cat /etc/gshadow')
                expect_unreadable "as root: /etc/shadow and /etc/gshadow" "$j" 'root:'
        fi
        for k in /etc/ssh/ssh_host_*_key; do
                [ -f "$k" ] || continue
                j=$(crun -- cat "$k")
                expect_unreadable "as root: $k" "$j" 'PRIVATE KEY'
        done
fi

# --- system files the host makes during the run ------------------------------
# /etc holds denied paths (shadow, the host keys, ssl/private), so Landlock
# grants its entries one by one as the run starts: what the host makes
# there later (a new file in /etc, in /etc/ssh, in /etc/ssl beside the
# denied private/, a new directory) has no rule and cannot be read, while
# the entries that were there read as ever (the control, in the same run).
etc_created() { # etc_created DESC ISO...
        local desc=$1 tag made
        shift
        tag=cordon-secrets-$$-$RANDOM
        made=("/etc/$tag" "/etc/ssh/$tag" "/etc/ssl/$tag" "/etc/$tag.d")
        EXTRA+=("${made[@]}")
        ( sleep 0.6
          echo etc-created-1 > "/etc/$tag"
          echo etc-created-2 > "/etc/ssh/$tag"
          echo etc-created-3 > "/etc/ssl/$tag"
          mkdir "/etc/$tag.d" && echo etc-created-4 > "/etc/$tag.d/f" ) &
        j=$(crun "$@" -- sh -c "sleep 1.5; cat /etc/hostname; cat /etc/$tag /etc/ssh/$tag /etc/ssl/$tag /etc/$tag.d/f")
        wait
        if [ "$(cat "/etc/$tag" "/etc/ssh/$tag" "/etc/ssl/$tag" "/etc/$tag.d/f" 2>/dev/null | grep -c etc-created-)" = 4 ] &&
           grep -qF "$(head -n 1 /etc/hostname)" <<<"$(field output <<<"$j")"; then
                expect_unreadable "$desc: files the host makes in /etc, /etc/ssh, /etc/ssl and a new /etc dir during the run (/etc/hostname reads)" "$j" "etc-created-"
        else
                not_ok "control: the host made the files and /etc/hostname read in the sandbox" "$j"
        fi
        rm -rf "${made[@]}"
}
# (as root only, as the system secrets above: no one else can write /etc)
if [ "$(id -u)" = 0 ]; then
        if [ -d /etc/ssh ] && [ -d /etc/ssl/private ] && [ -s /etc/hostname ]; then
                etc_created "as root, full"
                etc_created "as root, light" --isolation light
        else
                skip "files made in /etc during the run" "needs /etc/ssh, /etc/ssl/private and /etc/hostname"
        fi
fi

# cordon why answers as a run does, for the paths above
why_deny() { # why_deny DESC PATH OP: exit 1 and the word deny
        if out=$("$CORDON" why --path "$2" --op "$3" 2>&1); then
                not_ok "why: $1 says allow" "$out"
        elif grep -q '^deny: ' <<<"$out"; then
                ok "why: $1 is denied, as at run time"
        else
                not_ok "why: $1" "$out"
        fi
}
why_deny "~/.aws/credentials (absent: created later, still hidden)" "$H/.aws/credentials" read
if [ -n "${pw_home:-}" ] && [ "$pw_home" != "$H" ]; then
        why_deny "the passwd home's ~/.ssh under HOME=$H" "$pw_home/.ssh/id_rsa" read
fi
[ "$(id -u)" = 0 ] && why_deny "as root: /etc/shadow" /etc/shadow read
if "$CORDON" why --path /tmp/x --op write >/dev/null 2>&1; then
        ok "why: a write to the private /tmp is allowed, as at run time"
else
        not_ok "why: /tmp/x write" "$("$CORDON" why --path /tmp/x --op write 2>&1)"
fi

finish
