#!/usr/bin/env bash
# --net allow with ssh, and git over ssh://: clients that honour no proxy
# variable. The test runs its own sshd on the host's 127.0.0.1 (a free high
# port, its own host key, config and authorized_keys, as the test's own
# user) and reaches it from the sandbox as host.cordon.internal:PORT. The
# client's key and known_hosts live in the host's /tmp, which the sandbox's
# private /tmp hides, and are granted to the sandbox explicitly (--read);
# never the user's ~/.ssh. Each refusal is tried for real from inside,
# beside the same attempt where it should work.
. "$(dirname "$0")/tap.sh"

SSHD=/usr/sbin/sshd
if [ ! -x "$SSHD" ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
        skip "ssh through --net allow" "no sshd (scripts/install-deps installs openssh-server)"
        finish
        exit
fi

here=$(cd "$(dirname "$0")" && pwd)
keys=$(mktemp -d /tmp/cordon-it-netsshk.XXXXXX)
tap_base it-netssh "$keys"
dir=$BASE/sshd
ws=$BASE/ws
mkdir -m 755 "$dir" "$ws"
cd "$ws" || exit 1

user=$(id -un)
H=host.cordon.internal
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
other=$(free_port)

ssh-keygen -q -t ed25519 -N '' -C cordon-test-host -f "$dir/hostkey"
ssh-keygen -q -t ed25519 -N '' -C cordon-test-client -f "$keys/key"
ssh-keygen -q -t ed25519 -N '' -C cordon-test-agent -f "$keys/agentkey"
cat "$keys/key.pub" "$keys/agentkey.pub" >"$dir/authorized_keys"
echo "cordon-test-sshd $(cut -d' ' -f1,2 "$dir/hostkey.pub")" >"$keys/known_hosts"
cat >"$dir/sshd_config" <<EOF
ListenAddress 127.0.0.1:$port
HostKey $dir/hostkey
AuthorizedKeysFile $dir/authorized_keys
AllowUsers $user
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
LogLevel VERBOSE
EOF

# sshd in a mount namespace of its own, touching nothing on the host: as
# root, a tmpfs /run for its privilege-separation directory (/run/sshd);
# as another user (sshd then runs without privilege separation), a user
# namespace mapping only that user and a copy of /etc/passwd bound over the
# real one that gives the user a shell (a service account's nologin would
# refuse every command)
python3 "$here/sshd-ns.py" "$dir" "$dir/sshd_config" 2>"$dir/sshd.log" & PIDS+=($!)
for _ in $(seq 50); do grep -q "Server listening" "$dir/sshd.log" && break; sleep 0.1; done

# the client's options: the granted key and known_hosts only, no user config
sshopts="-F none -i $keys/key -o IdentitiesOnly=yes -o UserKnownHostsFile=$keys/known_hosts -o GlobalKnownHostsFile=/dev/null
 -o HostKeyAlias=cordon-test-sshd -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=10 -o LogLevel=ERROR -l $user"
sshopts=$(echo $sshopts)
grant=(--read "$keys/key" --read "$keys/known_hosts")
in_sb() { # RULES... -- COMMAND...: stdout and stderr together; the run's own stderr in $dir/stderr too
        local rules=()
        while [ "$1" != -- ]; do rules+=("$1"); shift; done
        shift
        "$CORDON" run --workspace "$ws" "${rules[@]}" -- "$@" 2>"$dir/stderr"
        echo "rc=$?"
        cat "$dir/stderr"
}

# ---- the control: the same ssh works unconfined -------------------------------
out=$(ssh $sshopts -p "$port" 127.0.0.1 'echo through-ssh' 2>&1)
if [ "$out" = through-ssh ]; then
        ok "control: ssh to the test's sshd on 127.0.0.1:$port works unconfined"
else
        not_ok "control: ssh unconfined" "$out" "sshd: $(cat "$dir/sshd.log")"
        finish
        exit
fi

# ---- ssh by an allowed name --------------------------------------------------
allow=(--net allow --allow-domain "$H:$port")
out=$(in_sb "${allow[@]}" "${grant[@]}" -- ssh $sshopts -p "$port" "$H" 'echo through-ssh; true')
if [ "$(echo "$out" | head -2)" = "through-ssh
rc=0" ]; then
        ok "ssh -p $port $H works under --net allow with $H:$port allowed and the key granted"
else
        not_ok "ssh through --net allow" "$out" "sshd: $(tail -5 "$dir/sshd.log")"
fi
if grep -q "^cordon-proxy: handed over $H:$port (127.0.0.1) to the sandbox" "$dir/stderr"; then
        ok "the proxy audits the ssh connection it handed over"
else
        not_ok "ssh hand-over audit" "$(cat "$dir/stderr")"
fi

# the grant is what lets ssh use the key: without it, the same command fails
out=$(in_sb "${allow[@]}" -- ssh $sshopts -p "$port" "$H" 'echo through-ssh')
if echo "$out" | grep -q "^rc=255" && ! echo "$out" | grep -q through-ssh; then
        ok "without --read for the key and known_hosts the same ssh fails (no key, no host key)"
else
        not_ok "ssh without the grant" "$out"
fi

# an agent instead of a key file: the test's own ssh-agent (never the
# caller's SSH_AUTH_SOCK, which cordon hides), its socket in the hidden
# /tmp, granted with --allow-unix-socket and --read; the agent's key is
# the only one ssh has
ssh-agent -D -a "$keys/agent.sock" >/dev/null 2>&1 & PIDS+=($!)
for _ in $(seq 50); do [ -S "$keys/agent.sock" ] && break; sleep 0.1; done
SSH_AUTH_SOCK="$keys/agent.sock" ssh-add -q "$keys/agentkey" 2>/dev/null
agentopts="-F none -o IdentityAgent=$keys/agent.sock -o UserKnownHostsFile=$keys/known_hosts -o GlobalKnownHostsFile=/dev/null
 -o HostKeyAlias=cordon-test-sshd -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=10 -o LogLevel=ERROR -l $user"
agentopts=$(echo $agentopts)
agrant=(--allow-unix-socket "$keys/agent.sock" --read "$keys/agent.sock" --read "$keys/known_hosts")
out=$(env -u SSH_AUTH_SOCK "$CORDON" run --workspace "$ws" "${allow[@]}" "${agrant[@]}" -- ssh $agentopts -p "$port" "$H" 'echo by-agent' 2>&1)
if [ "$(echo "$out" | grep -v '^cordon-proxy: ')" = by-agent ] && grep -q "Accepted publickey.*$(ssh-keygen -lf "$keys/agentkey.pub" | cut -d' ' -f2)" "$dir/sshd.log"; then
        ok "ssh with the test's own agent, its socket granted, logs in with the agent's key under --net allow"
else
        not_ok "ssh with a granted agent" "$out" "sshd: $(tail -5 "$dir/sshd.log")"
fi
out=$(env -u SSH_AUTH_SOCK "$CORDON" run --workspace "$ws" "${allow[@]}" --read "$keys/known_hosts" -- ssh $agentopts -p "$port" "$H" 'echo by-agent' 2>&1)
if ! echo "$out" | grep -q by-agent; then
        ok "without the agent socket's grant the same ssh fails (the agent is not reachable)"
else
        not_ok "ssh with an agent not granted" "$out"
fi

# ---- refused: by name, by port -----------------------------------------------
n=$(grep -c "Accepted publickey" "$dir/sshd.log")
out=$(in_sb "${allow[@]}" "${grant[@]}" -- ssh $sshopts -p "$port" other.test 'echo through-ssh')
if echo "$out" | grep -q "^rc=255" && echo "$out" | grep -q "Could not resolve hostname other.test" &&
        ! echo "$out" | grep -q through-ssh; then
        ok "ssh to another name is refused: the resolver does not resolve it"
else
        not_ok "ssh by another name" "$out"
fi
out=$(in_sb --json "${allow[@]}" -- python3 -c 'import socket
try:
    socket.getaddrinfo("other.test", 22); print("resolved")
except socket.gaierror:
    print("gaierror")')
if echo "$out" | grep -q gaierror && echo "$out" | grep -q '"resolve"' && echo "$out" | grep -q 'other.test'; then
        ok "the refused name is recorded as a denial (resolve other.test)"
else
        not_ok "denial of other.test" "$out"
fi
out=$(in_sb --net allow --allow-domain "$H:$other" "${grant[@]}" -- ssh $sshopts -p "$port" "$H" 'echo through-ssh')
if echo "$out" | grep -q "^rc=255" && echo "$out" | grep -q "port $port: Permission denied" &&
        ! echo "$out" | grep -q through-ssh; then
        ok "ssh to $H:$port with only $H:$other allowed is refused (EACCES at connect)"
else
        not_ok "ssh by port" "$out"
fi
if [ "$(grep -c "Accepted publickey" "$dir/sshd.log")" = "$n" ]; then
        ok "sshd saw no login from the refused attempts"
else
        not_ok "logins after the refusals" "$(tail -5 "$dir/sshd.log")"
fi

# ---- git over ssh:// -----------------------------------------------------------
mkdir -p "$dir/srv"
git -C "$dir/srv" init -q --bare -b main repo.git
git -C "$dir/srv" clone -q repo.git seed 2>/dev/null
(cd "$dir/srv/seed" && echo over-ssh >f && git add f && git -c user.name=t -c user.email=t@t commit -qm seed &&
        git push -q origin HEAD:main) >/dev/null 2>&1
url="ssh://$H:$port$dir/srv/repo.git"
# GIT_SSH_COMMAND is not taken from outside (cordon drops it): set inside
gitssh="ssh $sshopts"
out=$(in_sb "${allow[@]}" "${grant[@]}" -- sh -c 'export GIT_SSH_COMMAND="$1"
git clone -q "$2" clone && git -C clone show HEAD:f &&
cd clone && echo pushed >g && git add g && git -c user.name=t -c user.email=t@t commit -qm push && git push -q origin HEAD:main' \
        sh "$gitssh" "$url")
if [ "$(echo "$out" | head -2)" = "over-ssh
rc=0" ] && [ "$(git -C "$dir/srv/repo.git" show main:g 2>&1)" = pushed ]; then
        ok "git clone $url and git push to it work under --net allow"
else
        not_ok "git over ssh://" "$out" "sshd: $(tail -5 "$dir/sshd.log")"
fi
rm -rf "$ws/clone"
# git@host:path, the scp-like form most remotes use (the port in the ssh command)
out=$(in_sb "${allow[@]}" "${grant[@]}" -- sh -c 'export GIT_SSH_COMMAND="$1"
git clone -q "$2" clone && git -C clone show HEAD:g' sh "$gitssh -p $port" "$user@$H:$dir/srv/repo.git")
if [ "$(echo "$out" | head -2)" = "pushed
rc=0" ]; then
        ok "git clone $user@$H:PATH (the scp-like form) works under --net allow"
else
        not_ok "git scp-like remote" "$out"
fi
rm -rf "$ws/clone"
before=$(git -C "$dir/srv/repo.git" rev-parse main)
out=$(in_sb --net allow --allow-domain "$H:$other" "${grant[@]}" -- sh -c 'export GIT_SSH_COMMAND="$1"
git clone -q "$2" clone2; echo clone=$?
git init -q push && cd push && echo no >h && git add h && git -c user.name=t -c user.email=t@t commit -qm no &&
git push -q "$2" HEAD:main; echo push=$?' sh "$gitssh" "$url")
if echo "$out" | grep -qx "clone=128" && echo "$out" | grep -qx "push=128" &&
        ! git -C "$ws/clone2" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
        [ "$(git -C "$dir/srv/repo.git" rev-parse main)" = "$before" ]; then
        ok "git clone and git push over ssh:// are refused when the port is not allowed (the bare repository unchanged)"
else
        not_ok "git over ssh:// refused" "$out"
fi
rm -rf "$ws/clone2" "$ws/push"
out=$(in_sb --net allow --allow-domain "other.test:$port" "${grant[@]}" -- sh -c 'export GIT_SSH_COMMAND="$1"
git clone -q "$2" clone3; echo clone=$?' sh "$gitssh" "$url")
if echo "$out" | grep -qx "clone=128" && echo "$out" | grep -q "Could not resolve hostname $H"; then
        ok "git clone over ssh:// is refused when the name is not allowed (it does not resolve)"
else
        not_ok "git over ssh:// by name" "$out"
fi
rm -rf "$ws/clone3"

finish
