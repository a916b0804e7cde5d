#!/usr/bin/env bash
# `cordon why --host H --path P --method M [--command C]` (issue 23): a
# request answered as the credential proxy decides it, naming the
# credential and the rule (file:line, pointer): allowed, denied with the
# rule's reason, an approval naming its backend, the default, an
# ambiguous path refused before any rule, a consumer not granted, a host
# no credential is spent at; bad combinations of flags refused.
. "$(dirname "$0")/tap.sh"
tap_base creds-why
P=$BASE/p.json
cat > "$P" <<'EOF'
{
  "command_policies": {
    "approval_backends": { "me": { "type": "terminal", "timeout_secs": 30, "default": "deny" } },
    "commands": { "gh": { "executable": "/usr/bin/true" }, "other": { "executable": "/usr/bin/true" }, "onhost": { "executable": "/usr/bin/true", "sandbox": { "network": { "mode": "host" } } }, "onproxy": { "executable": "/usr/bin/true", "sandbox": { "network": { "mode": "proxy", "allow_domains": ["api.github.com"] } } } }
  },
  "credentials": {
    "github": {
      "source": "env://GH_REAL_FOR_WHY",
      "hosts": ["api.github.com"],
      "inject": { "header": "Authorization", "format": "Bearer {}" },
      "phantom": { "env": "GH_TOKEN", "shape": "ghp_{36}" },
      "grant_to": ["cmd.gh"],
      "endpoint_policy": { "default": "deny",
        "allow": [{ "method": "GET", "path": "/repos/*/*/issues/**" }],
        "approve": [{ "method": "POST", "path": "/repos/*/*/issues", "backend": "me" }],
        "deny": [{ "method": "DELETE", "path": "/**", "reason": "no deletes" }] }
    }
  }
}
EOF
why() { OUT=$("$CORDON" why --profile "$P" "$@" 2>&1); RC=$?; ERR=; }

why --host api.github.com --path /repos/o/r/issues/1 --method GET --command gh
expect "an allowed endpoint: exit 0, the credential and its rule named" eval \
	'[ $RC = 0 ] && has "$OUT" "allow: GET /repos/o/r/issues/1 matches allow rule" && has "$OUT" "credential: github" && has "$OUT" "p.json:14 at /credentials/github/endpoint_policy/allow/0"'
why --host api.github.com --path /repos/o/r --method DELETE --command gh
expect "a denied method: exit 1 with the rule's reason" eval '[ $RC = 1 ] && has "$OUT" "deny: " && has "$OUT" "no deletes" && has "$OUT" "deny/0"'
why --host api.github.com --path /repos/o/r/issues --method POST --command gh
expect "an approve rule: exit 2, naming the backend" eval '[ $RC = 2 ] && has "$OUT" "backend: me"'
why --host api.github.com --path /repos/o/r/pulls --method GET --command gh
expect "another path: the default (deny)" eval '[ $RC = 1 ] && has "$OUT" "its default is deny"'
for p in "/repos/o/../r/issues/1" "/repos/o/%2e%2e/issues/1" "/repos//o/r/issues/1" "/repos/o;x/r/issues/1"; do
	why --host api.github.com --path "$p" --method GET --command gh
	expect "an ambiguous path ($p) is refused before any rule" eval '[ $RC = 1 ] && has "$OUT" "refused: "'
done
why --host api.github.com --path /repos/o/r/issues/1 --method GET --command other
expect "a consumer it is not granted to: refused, credential-not-granted" eval '[ $RC = 1 ] && has "$OUT" "not granted to other"'
expect "... its network is none: nothing reaches the host" has "$OUT" "whose network is none"
why --host api.github.com --path /repos/o/r/issues/1 --method GET --command onproxy
expect "a non-consumer on the proxy: refused, its proxy intercepts the host all the same" eval \
	'[ $RC = 1 ] && has "$OUT" "not granted to onproxy" && has "$OUT" "intercepts api.github.com all the same"'
why --host api.github.com --path /repos/o/r/issues/1 --method GET --command onhost
expect "a non-consumer on network host: said to be not intercepted" eval \
	'has "$OUT" "not granted to onhost, whose network is host: no proxy intercepts it"'
why --host api.github.com --path /repos/o/r/issues/1 --method GET
expect "... the session likewise" eval '[ $RC = 1 ] && has "$OUT" "not granted to session"'
why --host example.org --path / --method GET --command gh
expect "a host no credential is spent at: not intercepted" eval '[ $RC = 0 ] && has "$OUT" "tunnel: "'
why --host api.github.com --path /repos/o/r/issues/1 --method GET --command gh --json
expect "--json: one object" eval 'has "$OUT" "\"decision\":\"allow\"" && has "$OUT" "\"credential\":\"github\""'
why --host api.github.com --method GET
expect "--method without --path is refused" eval '[ $RC != 0 ] && has "$OUT" "--method goes with --host HOST and --path PATH"'
why --host api.github.com --path / --method get
expect "a lower-case method is refused" eval '[ $RC != 0 ] && has "$OUT" "is not a method"'
OUT=$("$CORDON" why --host api.github.com --path / --method GET 2>&1); RC=$?
expect "--method without --profile is refused" eval '[ $RC != 0 ] && has "$OUT" "needs --profile"'
finish
