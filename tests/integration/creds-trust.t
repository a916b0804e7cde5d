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
# not; Node trusts it through NODE_EXTRA_CA_CERTS, and without it does not.
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
# JDK sends no SNI for a name without a dot, which the proxy requires (the
# TLS name is the CONNECT host's): set here
cat >"$RO/Get.java" <<'EOF'
import java.net.*;
import java.io.*;
import java.util.List;
import javax.net.ssl.*;
public class Get {
    static class Sni extends SSLSocketFactory {
        final SSLSocketFactory d = (SSLSocketFactory) SSLSocketFactory.getDefault();
        Socket sni(Socket s, String host) {
            SSLSocket t = (SSLSocket) s;
            SSLParameters p = t.getSSLParameters();
            p.setServerNames(List.of(new SNIHostName(host)));
            t.setSSLParameters(p);
            return t;
        }
        public Socket createSocket(Socket s, String h, int p, boolean c) throws IOException { return sni(d.createSocket(s, h, p, c), h); }
        public Socket createSocket(String h, int p) throws IOException { return sni(d.createSocket(h, p), h); }
        public Socket createSocket(String h, int p, InetAddress l, int lp) throws IOException { return sni(d.createSocket(h, p, l, lp), h); }
        public Socket createSocket(InetAddress h, int p) throws IOException { return d.createSocket(h, p); }
        public Socket createSocket(InetAddress h, int p, InetAddress l, int lp) throws IOException { return d.createSocket(h, p, l, lp); }
        public String[] getDefaultCipherSuites() { return d.getDefaultCipherSuites(); }
        public String[] getSupportedCipherSuites() { return d.getSupportedCipherSuites(); }
    }
    public static void main(String[] a) throws Exception {
        HttpsURLConnection c = (HttpsURLConnection) new URL(a[0]).openConnection(
            new Proxy(Proxy.Type.HTTP, new InetSocketAddress("127.0.0.1", 3128)));
        c.setSSLSocketFactory(new Sni());
        c.setRequestProperty("Authorization", "Bearer " + System.getenv("GH_TOKEN"));
        try {
            System.out.println("status=" + c.getResponseCode());
        } catch (Exception e) {
            System.out.println("failed=" + e);
        }
    }
}
EOF
# Node: a CONNECT through the proxy, then TLS over it (its fetch reads no
# proxy variable before Node 24), trusting its roots and NODE_EXTRA_CA_CERTS
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
printf '#!/bin/sh\nunset NO_PROXY no_proxy\nexec sh -c "$@"\n' >"$BIN/tsh"
chmod 755 "$BIN/tsh"
chmod -R a+rX "$RO"
REAL=gho_REALtrustTOKEN$$abcdefghijklmnopqrstu
P=$BASE/p.json
cat >"$P" <<EOF
{
  "workspace": "$WS",
  "command_policies": {
    "commands": {
      "tsh": { "executable": "$BIN/tsh",
               "sandbox": { "exec_paths": ["/usr/bin", "/bin", "/usr/lib/jvm"], "fs_read": ["$RO"],
                            "network": { "mode": "proxy", "allow_domains": ["localhost"], "allow_addresses": ["127.0.0.1"] } } }
    }
  },
  "credentials": {
    "github": {
      "source": "env://CORDON_TRUST_REAL",
      "hosts": ["localhost"],
      "inject": { "header": "Authorization", "format": "Bearer {}" },
      "phantom": { "env": "GH_TOKEN", "shape": "ghp_{36}" },
      "grant_to": ["cmd.tsh"],
      "tls": { "ca": "$RO/ca.pem" }
    }
  }
}
EOF
call() { # call SCRIPT: the tool runs SCRIPT with sh; OUT, ERR, RC
	(cd "$WS" && CORDON_TRUST_REAL=$REAL "$CORDON" run --profile "$P" -- tsh "$1" \
		>"$BASE/out" 2>"$BASE/err" </dev/null)
	RC=$?
	OUT=$(cat "$BASE/out")
	ERR=$(cat "$BASE/err")
}
host_before=$(cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null | sha256sum)
host_list=$(ls -la /etc/ssl/certs 2>/dev/null | sha256sum)
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
	expect "a Java HttpsURLConnection through the proxy trusts the session CA: 200" \
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

expect "the host's trust store is unchanged" eval '[ "$(cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null | sha256sum)" = "$host_before" ] &&
	[ "$(ls -la /etc/ssl/certs 2>/dev/null | sha256sum)" = "$host_list" ] && [ ! -e $STORE ]'
finish
