#!/usr/bin/env bash
# The sandbox's trust in the session CA, client by client (issue 23, "Trust
# without environment variables"; "the JVM store carries the
# trusted-certificate attribute Java needs"): a tool granted a credential
# reaches a recording TLS upstream on the host's loopback (a CA this script
# makes, the credential's tls.ca) through its proxy, which terminates TLS
# with a leaf of the session CA. Clients that read only the system paths
# (openssl s_client without -CAfile, curl without CURL_CA_BUNDLE) trust it;
# the JVM's PKCS#12 store holds the host's roots and the session CA, each
# with Oracle's trusted key usage attribute, read-only, named by
# JAVA_TOOL_OPTIONS beside the proxy's options; a Java HttpsURLConnection
# trusts the CA through it, where the JDK's own store (the control) does
# not, though the JDK sends no SNI for "localhost" (a ClientHello without
# SNI gets the CONNECT host's leaf; the Host header must still be that
# host: without SNI a Host of another host, or of another port, or none,
# is refused with nothing upstream, and an SNI of another host is refused
# at the handshake); Node trusts it through NODE_EXTRA_CA_CERTS, and
# without it does not; Node 24's fetch, in a tool and in the session,
# goes through the proxy because cordon sets NODE_USE_ENV_PROXY=1 (a
# caller's 0 does not get in; a set_vars naming it is refused), where
# fetch with the variable at 0, or Node 20's fetch, reaches nothing.
# The host's trust store is unchanged after the runs.
. "$(dirname "$0")/tap.sh"
tap_base creds-trust
if ! command -v curl >/dev/null; then
	skip "the sandbox's trust in the session CA" "needs curl"
	finish
	exit
fi
# the test CA, WS BIN RO, $BIN/tpy and the recording TLS upstream on $port ($U)
. "$(dirname "$0")/creds-lib.sh"

# Java: through the proxy named explicitly (the JVM's nonProxyHosts names
# localhost, the sandbox's own), trusting what javax.net.ssl.* says; the
# JDK's own socket factory, which sends no SNI for a name without a dot
cat >"$RO/Get.java" <<'EOF'
import java.net.*;
import java.io.*;
import javax.net.ssl.*;
public class Get {
    public static void main(String[] a) throws Exception {
        HttpsURLConnection c = (HttpsURLConnection) new URL(a[0]).openConnection(
            new Proxy(Proxy.Type.HTTP, new InetSocketAddress("127.0.0.1", 3128)));
        c.setRequestProperty("Authorization", "Bearer " + System.getenv("GH_TOKEN"));
        try {
            System.out.println("status=" + c.getResponseCode());
        } catch (Exception e) {
            System.out.println("failed=" + e);
        }
    }
}
EOF
# Node: a CONNECT through the proxy, then TLS over it (any Node: Node 20's
# fetch reads no proxy variable), trusting its roots and NODE_EXTRA_CA_CERTS
cat >"$RO/get.js" <<'EOF'
const http = require("http"), tls = require("tls");
const [host, port, path] = process.argv.slice(2);
const req = http.request({ host: "127.0.0.1", port: 3128, method: "CONNECT", path: host + ":" + port });
req.on("connect", (res, sock) => {
  const t = tls.connect({ socket: sock, servername: host }, () => t.write("GET " + path + " HTTP/1.1\r\nHost: " +
    host + ":" + port + "\r\nAuthorization: Bearer " + process.env.GH_TOKEN + "\r\nConnection: close\r\n\r\n"));
  let d = "";
  t.on("data", (x) => (d += x));
  t.on("end", () => console.log("node=" + d.split("\r\n")[0]));
  t.on("error", (e) => console.log("node-failed=" + e.code));
});
req.on("error", (e) => console.log("node-failed=" + e.code));
req.end();
EOF
# one request over TLS through the proxy, the phantom in its place:
# raw.sh TAG PORT HOST (the Host header's value; empty: none) S_CLIENT-OPTIONS...
# (the target is /TAG, or $TARGET)
cat >"$RO/raw.sh" <<'EOF'
tag=$1 port=$2 host=$3
shift 3
{ printf 'GET %s HTTP/1.1\r\n' "${TARGET:-/$tag}"
  [ -z "$host" ] || printf 'Host: %s\r\n' "$host"
  printf 'Authorization: Bearer %s\r\nConnection: close\r\n\r\n' "$GH_TOKEN"; } |
	openssl s_client -quiet -proxy 127.0.0.1:3128 -connect "localhost:$port" "$@" 2>&1 | tr -d '\r' | sed "s/^/$tag: /"
EOF
# Node's fetch (undici): through HTTPS_PROXY only when NODE_USE_ENV_PROXY=1
cat >"$RO/fetch.js" <<'EOF'
const [url, tag] = process.argv.slice(2);
fetch(url, { headers: { Authorization: "Bearer " + process.env.GH_TOKEN } })
  .then(async (r) => console.log(tag + "=" + r.status + " " + (await r.text()).trim()))
  .catch((e) => console.log(tag + "-failed=" + ((e.cause && (e.cause.code || e.cause.message)) || e.message)));
EOF
# the Node 24 scripts/install-deps installs (Debian 12's is 20)
NODE24=/opt/cordon-test-node/node_modules/.bin/node
node_exec=
[ ! -d /opt/cordon-test-node ] || node_exec=', "/opt/cordon-test-node"'
printf '#!/bin/sh\nunset NO_PROXY no_proxy\nexec sh -c "$@"\n' >"$BIN/tsh"
chmod 755 "$BIN/tsh"
chmod -R a+rX "$RO"
REAL=gho_REALtrustTOKEN$$abcdefghijklmnopqrstu
P=$BASE/p.json
cat >"$P" <<EOF
{
  "workspace": "$WS",
  "filesystem": { "read": ["$RO"$node_exec] },
  "network": { "mode": "proxy", "allow_domains": ["localhost"], "allow_addresses": ["127.0.0.1"] },
  "command_policies": {
    "commands": {
      "tsh": { "executable": "$BIN/tsh",
               "sandbox": { "exec_paths": ["/usr/bin", "/bin", "/usr/lib/jvm"$node_exec], "fs_read": ["$RO"],
                            "environment": { "allow_vars": ["NODE_USE_ENV_PROXY"] },
                            "network": { "mode": "proxy", "allow_domains": ["localhost"], "allow_addresses": ["127.0.0.1"] } } },
      "tsh0": { "executable": "$BIN/tsh",
               "sandbox": { "exec_paths": ["/usr/bin", "/bin"$node_exec], "fs_read": ["$RO"],
                            "network": { "mode": "proxy", "allow_domains": ["localhost"], "allow_addresses": ["127.0.0.1"] } } }
    }
  },
  "credentials": {
    "github": {
      "source": "env://CORDON_TRUST_REAL",
      "hosts": ["localhost"],
      "inject": { "header": "Authorization", "format": "Bearer {}" },
      "phantom": { "env": "GH_TOKEN", "shape": "ghp_{36}" },
      "grant_to": ["cmd.tsh", "cmd.tsh0", "session"],
      "tls": { "ca": "$RO/ca.pem" }
    }
  }
}
EOF
call() { # call SCRIPT [TOOL]: the tool (tsh) runs SCRIPT with sh; OUT, ERR, RC
	(cd "$WS" && CORDON_TRUST_REAL=$REAL "$CORDON" run --profile "$P" -- "${2:-tsh}" "$1" \
		>"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
host_before=$(cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null | sha256sum)
# the entries of /etc/ssl/certs, not its "." and ".." (whose times change
# when another test, or the host, makes a file in /etc/ssl meanwhile)
certs_list() { find /etc/ssl/certs -mindepth 1 -printf '%p %y %s %T@ %l\n' 2>/dev/null | sort | sha256sum; }
host_list=$(certs_list)
STORE=/etc/ssl/certs/cordon-java-truststore.p12

# clients that read only the system paths: no variable names a bundle
call "unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE
echo | openssl s_client -proxy 127.0.0.1:3128 -connect localhost:$port -servername localhost \
	-verify_return_error -verify_hostname localhost 2>&1 | grep -E '^Verify return code|^verify error'
curl -sS -o /dev/null -w 'curl=%{http_code}\n' -x http://127.0.0.1:3128 -H \"Authorization: Bearer \$GH_TOKEN\" $U/a 2>&1"
expect "openssl s_client without -CAfile (the system paths only) verifies the session CA's leaf" \
	has "$OUT" "Verify return code: 0 (ok)"
expect "curl without CURL_CA_BUNDLE (its built-in bundle path) trusts it: 200" has "$OUT" "curl=200"
expect "... the upstream got the real value" eval 'grep -q "Bearer $REAL" "$BASE/log"'

# One host, one request, without SNI (what the JDK sends for a name with
# no dot): the hello gets the CONNECT host's leaf, and the Host header must
# still be the CONNECT host (with its port, or none), so nothing is
# fronted; an SNI of another host is refused at the handshake
: >"$BASE/log"
call "sh $RO/raw.sh s1 $port localhost:$port -noservername
sh $RO/raw.sh s2 $port localhost -noservername
sh $RO/raw.sh s3 $port elsewhere.test:$port -noservername
sh $RO/raw.sh s4 $port localhost:1 -noservername
sh $RO/raw.sh s5 $port '' -noservername
TARGET=https://elsewhere.test/s8 sh $RO/raw.sh s8 $port localhost:$port -noservername
sh $RO/raw.sh s6 $port localhost:$port -servername elsewhere.test
sh $RO/raw.sh s7 $port elsewhere.test:$port -servername elsewhere.test
echo | openssl s_client -proxy 127.0.0.1:3128 -connect localhost:$port -noservername \
	-verify_return_error -verify_hostname localhost 2>&1 | grep -E '^Verified peername|^Verify return code|^verify error'"
expect "no SNI, Host = the CONNECT host and port: 200, the upstream got the real value" \
	eval 'has "$OUT" "s1: HTTP/1.1 200" && grep "\"/s1\"" "$BASE/log" | grep -q "Bearer $REAL"'
expect "... Host = the CONNECT host without the port: 200" eval 'has "$OUT" "s2: HTTP/1.1 200" && grep -q "\"/s2\"" "$BASE/log"'
expect "... the leaf it gets is the CONNECT host's (verifies for localhost)" \
	eval 'has "$OUT" "Verified peername: localhost" && has "$OUT" "Verify return code: 0 (ok)"'
expect "no SNI, Host of another host: 403 host-mismatch, nothing upstream" \
	eval 'has "$OUT" "s3: HTTP/1.1 403" && has "$OUT" "s3: X-Cordon-Error: host-mismatch" && ! grep -q "\"/s3\"" "$BASE/log"'
expect "no SNI, Host of the CONNECT host on another port: 403 host-mismatch, nothing upstream" \
	eval 'has "$OUT" "s4: HTTP/1.1 403" && has "$OUT" "s4: X-Cordon-Error: host-mismatch" && ! grep -q "\"/s4\"" "$BASE/log"'
expect "no SNI and no Host header: 403 host-mismatch, nothing upstream" \
	eval 'has "$OUT" "s5: HTTP/1.1 403" && has "$OUT" "s5: X-Cordon-Error: host-mismatch" && ! grep -q "\"/s5\"" "$BASE/log"'
expect "no SNI, the CONNECT host in Host but another host in an absolute-form target: 400, nothing upstream" \
	eval 'has "$OUT" "s8: HTTP/1.1 400" && has "$OUT" "s8: X-Cordon-Error: absolute-form-in-tunnel" && ! grep -q "s8" "$BASE/log"'
expect "an SNI of another host is refused at the handshake (Host the CONNECT host's or the SNI's), nothing upstream" \
	eval 'hasnt "$OUT" "s6: HTTP/" && hasnt "$OUT" "s7: HTTP/" && ! grep -qE "\"/s[67]\"" "$BASE/log" &&
		[ "$(grep -c "sni-mismatch" <<<"$ERR")" -ge 2 ]'

# the directory itself (an overlay of ours on the host's, or a copy):
# OpenSSL's CApath lookup (HASH.N) finds the session CA; every host entry
# is still there and readable; nothing in it can be added or replaced
host_names=$(ls /etc/ssl/certs 2>/dev/null | wc -l)
host_link=$(cd /etc/ssl/certs 2>/dev/null && ls | grep -E '^[0-9a-f]{8}\.0$' | head -1)
call "echo | openssl s_client -proxy 127.0.0.1:3128 -connect localhost:$port -servername localhost -CApath /etc/ssl/certs \
	-no-CAfile -verify_return_error -verify_hostname localhost 2>&1 | grep -E '^Verify return code|^verify error'
echo names=\$(ls /etc/ssl/certs | wc -l)
[ -z '$host_link' ] || openssl x509 -noout -in /etc/ssl/certs/$host_link >/dev/null && echo host-link-read
(echo x >/etc/ssl/certs/cordon-new) 2>/dev/null && echo dir-written
(echo x >>/etc/ssl/certs/ca-certificates.crt) 2>/dev/null && echo bundle-written
rm -f /etc/ssl/certs/cordon-session-ca.pem 2>/dev/null; [ -e /etc/ssl/certs/cordon-session-ca.pem ] || echo ca-removed"
expect "openssl s_client with -CApath /etc/ssl/certs only (the hash link) verifies the session CA's leaf" \
	has "$OUT" "Verify return code: 0 (ok)"
expect "... every host entry is there beside the CA, its link and the JVM store; a host root's hash link reads" \
	eval 'has "$OUT" "names=$((host_names + 3))" && has "$OUT" "host-link-read"'
expect "... nothing can be added, appended to or removed there" \
	eval 'hasnt "$OUT" "dir-written" && hasnt "$OUT" "bundle-written" && hasnt "$OUT" "ca-removed"'

# the JVM's store
call "echo opts=\$JAVA_TOOL_OPTIONS
ls -l $STORE
(echo x >>$STORE) 2>/dev/null && echo store-written
openssl pkcs12 -in $STORE -nokeys -passin pass:changeit -info 2>&1 >/dev/null | grep MAC
openssl pkcs12 -in $STORE -nokeys -passin pass:changeit 2>/dev/null"
n_host=$(grep -c "BEGIN CERTIFICATE" /etc/ssl/certs/ca-certificates.crt 2>/dev/null || echo 0)
expect "JAVA_TOOL_OPTIONS names the store, beside the proxy's options" \
	eval 'has "$OUT" "-Djavax.net.ssl.trustStore=$STORE" && has "$OUT" "-Djavax.net.ssl.trustStoreType=PKCS12" &&
		has "$OUT" "-Dhttps.proxyHost=127.0.0.1"'
expect "the store is read-only in the sandbox" eval 'has "$OUT" "$STORE" && hasnt "$OUT" "store-written"'
# no MAC: the entries are public (a MAC under a published password guards
# nothing); the JDK reads it (the Java check below)
expect "the store parses (PKCS#12, without a MAC)" eval 'has "$OUT" "MAC is absent" && hasnt "$OUT" "MAC: sha"'
expect "... it holds the host's roots and the session CA" \
	eval '[ "$(grep -c "friendlyName: host-root-" <<<"$OUT")" = "$n_host" ] && has "$OUT" "friendlyName: cordon-session-ca" &&
		has "$OUT" "subject=CN = cordon session CA"'
# (OpenSSL 3.0 prints the attribute's value, an OBJECT, as "Unsupported
# tag 6"; 3.2 and later name it; test-trust-store checks the value itself)
expect "... every certificate with Java's trusted key usage attribute (an OBJECT)" \
	eval '[ "$(grep -cE "2.16.840.1.113894.746875.1.1: (<Unsupported tag 6>|Any Extended Key Usage)" <<<"$OUT")" = "$((n_host + 1))" ]'

if command -v java >/dev/null && java -version >/dev/null 2>&1; then
	call "java $RO/Get.java $U/j1; java -Djavax.net.ssl.trustStore= -Djavax.net.ssl.trustStorePassword= $RO/Get.java $U/j2"
	expect "a Java HttpsURLConnection through the proxy (the JDK's socket factory: no SNI for localhost) trusts the session CA: 200" \
		eval '[ "$(grep -c "^status=200" <<<"$OUT")" = 1 ] && grep "/j1" "$BASE/log" | grep -q "Bearer $REAL"'
	expect "... the control: the JDK's own store does not (PKIX), nothing reached the upstream" \
		eval 'grep -q "^failed=.*PKIX" <<<"$OUT" && ! grep -q "/j2" "$BASE/log"'
else
	diag "no JDK here (scripts/install-deps installs none): the store is checked with openssl only"
fi

if command -v node >/dev/null; then
	call "node $RO/get.js localhost $port /n1; NODE_EXTRA_CA_CERTS= node $RO/get.js localhost $port /n2"
	expect "Node (tls over a CONNECT) trusts the session CA through NODE_EXTRA_CA_CERTS: 200" \
		eval 'has "$OUT" "node=HTTP/1.1 200" && grep "/n1" "$BASE/log" | grep -q "Bearer $REAL"'
	expect "... the control: without it, Node's own roots do not, nothing reached the upstream" \
		eval 'has "$OUT" "node-failed=" && ! grep -q "/n2" "$BASE/log"'
else
	diag "no node here (scripts/install-deps installs none): Node is not checked"
fi

# Node's fetch, which reads HTTPS_PROXY only under NODE_USE_ENV_PROXY=1
# (Node 24.5 and later)
if "$NODE24" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 24 || (a === 24 && b >= 5) ? 0 : 1)' 2>/dev/null; then
	: >"$BASE/log"
	call "echo use=\$NODE_USE_ENV_PROXY phantom=\$GH_TOKEN
$NODE24 $RO/fetch.js $U/f1 fetch
NODE_USE_ENV_PROXY=0 $NODE24 $RO/fetch.js $U/f2 fetch0"
	ph=$(sed -n 's/^use=.* phantom=//p' <<<"$OUT")
	expect "cordon sets NODE_USE_ENV_PROXY=1 for the consumer" has "$OUT" "use=1 "
	expect "Node 24's fetch reaches the credential host through the proxy: 200, the upstream got the real value" \
		eval 'has "$OUT" "fetch=200 echo auth=Bearer $ph" && grep "\"/f1\"" "$BASE/log" | grep -q "Bearer $REAL"'
	expect "... the consumer saw only the phantom (in its environment and in the echoed header)" \
		eval '[[ $ph == ghp_* ]] && [ ${#ph} = 40 ] && hasnt "$OUT" "$REAL"'
	expect "... the control: with NODE_USE_ENV_PROXY=0 its fetch goes to the sandbox's own loopback and fails; nothing upstream" \
		eval 'has "$OUT" "fetch0-failed=" && ! grep -q "\"/f2\"" "$BASE/log"'
	if command -v node >/dev/null && ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 24 || (a === 24 && b >= 5) || (a === 22 && b >= 21) ? 0 : 1)'; then
		call "node $RO/fetch.js $U/f3 fetch20"
		expect "... the control: Node $(node --version)'s fetch reads no proxy variable: fails, nothing upstream" \
			eval 'has "$OUT" "fetch20-failed=" && ! grep -q "\"/f3\"" "$BASE/log"'
	fi
	# the session as the consumer (its own sandbox, the same variables)
	: >"$BASE/log"
	(cd "$WS" && CORDON_TRUST_REAL=$REAL "$CORDON" run --profile "$P" -- sh -c "unset NO_PROXY no_proxy
echo use=\$NODE_USE_ENV_PROXY phantom=\$GH_TOKEN; $NODE24 $RO/fetch.js $U/f6 fetch; NODE_USE_ENV_PROXY=0 $NODE24 $RO/fetch.js $U/f7 fetch0" \
		>"$BASE/out" 2>"$BASE/err" </dev/null)
	OUT=$(cat "$BASE/out")
	ph=$(sed -n 's/^use=.* phantom=//p' <<<"$OUT")
	expect "the session as the consumer: NODE_USE_ENV_PROXY=1, Node 24's fetch 200, the real value upstream, only the phantom inside" \
		eval 'has "$OUT" "use=1 phantom=ghp_" && has "$OUT" "fetch=200 echo auth=Bearer $ph" && hasnt "$OUT" "$REAL" &&
			grep "\"/f6\"" "$BASE/log" | grep -q "Bearer $REAL"'
	expect "... the control: with NODE_USE_ENV_PROXY=0 it fails; nothing upstream" \
		eval 'has "$OUT" "fetch0-failed=" && ! grep -q "\"/f7\"" "$BASE/log"'
	# the variable is cordon's: a caller's value (allow_vars names it) does
	# not replace it, and a policy's set_vars naming it is refused at load
	# (env-owned.t)
	NODE_USE_ENV_PROXY=0 call "echo use=\$NODE_USE_ENV_PROXY; $NODE24 $RO/fetch.js $U/f4 fetch"
	expect "a caller's NODE_USE_ENV_PROXY=0 (allow_vars names it) does not get in: fetch still 200 through the proxy" \
		eval 'has "$OUT" "use=1" && has "$OUT" "fetch=200" && grep -q "\"/f4\"" "$BASE/log"'
	call "echo use=\$NODE_USE_ENV_PROXY; $NODE24 $RO/fetch.js $U/f5 fetch" tsh0
	expect "a tool that names no NODE_USE_ENV_PROXY gets cordon's 1 too" \
		eval 'has "$OUT" "use=1" && has "$OUT" "fetch=200" && grep -q "\"/f5\"" "$BASE/log"'
else
	skip "Node 24's fetch through the proxy" "no Node >= 24.5 at $NODE24 (scripts/install-deps installs it)"
fi

expect "the host's trust store is unchanged" eval '[ "$(cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null | sha256sum)" = "$host_before" ] &&
	[ "$(certs_list)" = "$host_list" ] && [ ! -e $STORE ]'
finish
