#!/usr/bin/env bash
# --net proxy decides "an address of this host" by asking the kernel at each
# connection (a route lookup), not from a list taken at start. The proxy and
# a server run in a network namespace the test makes, with its own
# /etc/hosts; addresses and routes added to lo AFTER the proxy started must
# be refused as this host's, and allow_addresses still admits them (the
# control). A deny rule's address wins over allow_addresses.
. "$(dirname "$0")/tap.sh"

dir=$(mktemp -d /var/tmp/cordon-it-proxyhost.XXXXXX)
trap 'rm -rf "$dir"' EXIT

cat >"$dir/ns.sh" <<'SH'
set -u
dir=$1 cordon=$2
mount --bind "$dir/hosts" /etc/hosts || { echo "setup: cannot bind /etc/hosts"; exit 0; }
ip link set lo up || { echo "setup: no ip"; exit 0; }
python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        open(sys.argv[1], "a").write(self.path + "\n")
        self.send_response(200); self.send_header("Content-Length", "8"); self.end_headers(); self.wfile.write(b"ns-here\n")
    def log_message(self, *a): pass
http.server.HTTPServer(("0.0.0.0", 8080), H).serve_forever()' "$dir/ns-log" &
server=$!
"$cordon" proxy --listen-http 127.0.0.1:3128 --allow-domain '*.test' --deny-domain 11.0.0.44 \
        >"$dir/ns-px.out" 2>"$dir/ns-px.err" &
px=$!
"$cordon" proxy --listen-http 127.0.0.1:3129 --allow-domain '*.test' --allow-address 11.0.0.0/8 \
        --allow-address 12.0.0.0/8 --deny-domain 11.0.0.44 >/dev/null 2>&1 &
px2=$!
for _ in $(seq 50); do
        grep -q listening "$dir/ns-px.out" 2>/dev/null && curl -s -o /dev/null 127.0.0.1:8080/ready && break
        sleep 0.1
done
get() { # name [proxy-port]
        curl -sS -i -m 5 -x "http://127.0.0.1:${2:-3128}" "http://$1:8080/$1" 2>&1 | tr -d '\r' |
                grep -E '^(HTTP/1.1 |X-Cordon-Error:|ns-here)' | tr '\n' ' '
        echo
}
echo "before: $(get pub.test)"
ip addr add 11.0.0.1/24 dev lo
ip route add local 12.0.0.0/24 dev lo
ip route add 13.0.0.0/24 dev lo
ip route add broadcast 14.0.0.255 dev lo
echo "gained: $(get pub.test)"
echo "prefix: $(get other.test)"
echo "local-route: $(get localroute.test)"
echo "via-lo: $(get vialo.test)"
echo "broadcast: $(get bcast.test)"
echo "spelt: $(get Pub.Test.)"
echo "allowed: $(get pub.test 3129)"
echo "allowed-route: $(get localroute.test 3129)"
echo "denied-address: $(get denied.test 3129)"
if ip -6 addr add 2001:db9::1/64 dev lo nodad 2>/dev/null; then
        echo "v6: $(get pub6.test)"
else
        echo "v6: no IPv6 here"
fi
echo "server-log: $(tr '\n' ' ' <"$dir/ns-log")"
kill $server $px $px2 2>/dev/null
wait 2>/dev/null
SH
printf '127.0.0.1 localhost\n11.0.0.1 pub.test\n11.0.0.77 other.test\n12.0.0.5 localroute.test\n13.0.0.9 vialo.test\n14.0.0.255 bcast.test\n11.0.0.44 denied.test\n2001:db9::7 pub6.test\n' \
        >"$dir/hosts"
: >"$dir/ns-log"
if [ "$(id -u)" = 0 ]; then ns=(unshare -nm); else ns=(unshare -rnm); fi
if "${ns[@]}" true 2>/dev/null; then
        out=$("${ns[@]}" bash "$dir/ns.sh" "$dir" "$CORDON" 2>&1)
        nsok() { # desc key expected
                local line
                line=$(echo "$out" | grep "^$2: " | head -1)
                if [ "$line" = "$2: $3" ]; then ok "$1"; else not_ok "$1" "got: $line" "expected: $2: $3" "$out" "$(cat "$dir/ns-px.err")"; fi
        }
        this='HTTP/1.1 403 Forbidden X-Cordon-Error: address-this-host '
        if echo "$out" | grep -q "^setup:"; then
                skip "the host as it is now" "$(echo "$out" | grep "^setup:")"
        else
                nsok "control: before the address exists, pub.test is dialled (no route: 502), not refused as this host's" \
                        before "HTTP/1.1 502 Bad Gateway X-Cordon-Error: upstream-connect-failed "
                nsok "an address lo gained after the proxy started: refused as this host's" gained "$this"
                nsok "another address of a prefix on lo: refused" prefix "$this"
                nsok "a route-only local prefix (ip route add local): refused" local-route "$this"
                nsok "a prefix routed out of lo: refused" via-lo "$this"
                nsok "a broadcast route: refused" broadcast "$this"
                nsok "Pub.Test. (another spelling): refused the same" spelt "$this"
                nsok "control: --allow-address 11.0.0.0/8 admits the lo address, the server answers" allowed \
                        "HTTP/1.1 200 OK ns-here "
                nsok "control: --allow-address 12.0.0.0/8 admits the local route's address" allowed-route \
                        "HTTP/1.1 200 OK ns-here "
                nsok "a deny rule's address wins over --allow-address" denied-address \
                        "HTTP/1.1 403 Forbidden X-Cordon-Error: address-denied "
                if echo "$out" | grep -q "^v6: no IPv6"; then
                        skip "an IPv6 address gained on lo" "no IPv6 in the namespace"
                else
                        nsok "an IPv6 address gained on lo: refused" v6 "$this"
                fi
                nsok "the server saw only what allow_addresses admitted" server-log "/ready /pub.test /localroute.test "
        fi
else
        skip "the host as it is now" "cannot make a network namespace here (${ns[*]})"
fi

finish
