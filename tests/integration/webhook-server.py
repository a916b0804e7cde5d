#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A test approval webhook: on a unix socket per scenario, and on 127.0.0.1
(plain HTTP, on a port the kernel picks: cordon refuses http:// URLs, so this
one serves only the tests of that refusal and of TLS failing).

    webhook-server.py PORTFILE LOGFILE SOCKDIR
        the request key in $WEBHOOK_TEST_KEY, the answer key in
        $WEBHOOK_TEST_ANSWER_KEY
    webhook-server.py --impostor PORTFILE LOGFILE SOCKDIR
        knows neither key: answers every request "allow", echoing its id
        and digest, with a MAC under a key of its own (what an agent that
        binds the approver's address can do)

Writes its port to PORTFILE once every socket listens, and one JSON line per
request to LOGFILE: path (the scenario), whether the X-Cordon-Signature
header is the HMAC-SHA256 of the body under the request key, the headers and
the body. A request whose signature does not verify gets 401. Otherwise the
scenario (SOCKDIR/NAME.sock, or /NAME on the TCP port) picks the answer:

  allow deny            a decision echoing request_id and digest, signed:
                        expires_ms the request's, mac the HMAC-SHA256 under
                        the answer key (cordon.approval_answer.v1 ...)
  slow                  allow, 3 s late
  wrong-id wrong-digest a signed allow, but echoing another id / digest
  500                   an allow body with status 500
  redirect              302 to /allow on this server's TCP port (http)
  malformed             a 200 whose body is cut-off JSON
  duplicate             "decision" twice: deny, then allow
  oversized             a valid allow padded to 100 KiB, with Content-Length
  oversized-stream      the same without Content-Length (ends at close)
  unsigned              an allow echoing id and digest, without a mac
  request-key           an allow signed with the request key
  flipped               decision allow, with the mac of a deny
  expired               a signed allow whose expires_ms has passed
  late-expiry           a signed allow holding a minute past the request
"""
import hashlib
import hmac
import http.server
import json
import os
import socketserver
import sys
import threading
import time

IMPOSTOR = sys.argv[1] == "--impostor"
ARGS = sys.argv[2:] if IMPOSTOR else sys.argv[1:]
PORTFILE, LOGFILE, SOCKDIR = ARGS[0], ARGS[1], ARGS[2]
KEY = b"" if IMPOSTOR else os.environb[b"WEBHOOK_TEST_KEY"]
ANSWER_KEY = os.urandom(32) if IMPOSTOR else os.environb[b"WEBHOOK_TEST_ANSWER_KEY"]
LOG_LOCK = threading.Lock()
SCENARIOS = ["allow", "deny", "slow", "wrong-id", "wrong-digest", "500", "redirect", "malformed",
             "duplicate", "oversized", "oversized-stream", "unsigned", "request-key", "flipped",
             "expired", "late-expiry"]
TCP_PORT = [0]


def answer_mac(key, request_id, digest, decision, expires_ms):
    text = "cordon.approval_answer.v1\n%s\n%s\n%s\n%d" % (request_id, digest, decision, expires_ms)
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def address_string(self):
        return "unix"

    def answer(self, status, body, headers=(), length=True):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for k, v in headers:
            self.send_header(k, v)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading (over its cap, or timed out)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        want = "sha256=" + hmac.new(KEY, raw, hashlib.sha256).hexdigest()
        got = self.headers.get("X-Cordon-Signature", "")
        sig_ok = hmac.compare_digest(want, got)
        try:
            req = json.loads(raw)
        except ValueError:
            req = None
        scenario = getattr(self.server, "scenario", None) or self.path.lstrip("/")
        with LOG_LOCK, open(LOGFILE, "a") as log:
            log.write(json.dumps({"path": "/" + scenario, "sig_ok": sig_ok, "headers": dict(self.headers),
                                  "body": req, "raw": raw.decode("utf-8", "replace")}) + "\n")
        if not isinstance(req, dict) or (not sig_ok and not IMPOSTOR):
            self.answer(401, b'{"error":"bad signature"}')
            return
        if IMPOSTOR:
            scenario = "allow"

        def decision(d, key=ANSWER_KEY, mac_of=None, **over):
            out = {"request_id": req.get("request_id"), "digest": req.get("digest"),
                   "decision": d, "reason": "test says " + d,
                   "expires_ms": req.get("expires_ms", 0)}
            out.update(over)
            out["mac"] = answer_mac(key, req.get("request_id"), req.get("digest"), mac_of or d,
                                    out["expires_ms"])
            return json.dumps(out).encode()

        if scenario == "allow":
            self.answer(200, decision("allow"))
        elif scenario == "deny":
            self.answer(200, decision("deny", reason="no \x1b[31mway\x1b[0m\r\n"))
        elif scenario == "slow":
            time.sleep(3)
            self.answer(200, decision("allow"))
        elif scenario == "wrong-id":
            self.answer(200, decision("allow", request_id="0" * 32))
        elif scenario == "wrong-digest":
            self.answer(200, decision("allow", digest="0" * 64))
        elif scenario == "500":
            self.answer(500, decision("allow"))
        elif scenario == "redirect":
            self.answer(302, b"", headers=[("Location", "http://127.0.0.1:%d/allow" % TCP_PORT[0])])
        elif scenario == "malformed":
            self.answer(200, decision("allow")[:20])
        elif scenario == "duplicate":
            body = decision("deny")[:-1] + b', "decision": "allow"}'
            self.answer(200, body)
        elif scenario in ("oversized", "oversized-stream"):
            body = decision("allow")[:-1] + b" " * (100 * 1024) + b"}"
            self.answer(200, body, length=scenario == "oversized")
        elif scenario == "unsigned":
            o = json.loads(decision("allow"))
            del o["mac"]
            self.answer(200, json.dumps(o).encode())
        elif scenario == "request-key":
            self.answer(200, decision("allow", key=KEY))
        elif scenario == "flipped":
            self.answer(200, decision("allow", mac_of="deny"))
        elif scenario == "expired":
            self.answer(200, decision("allow", expires_ms=int(time.time() * 1000) - 1000))
        elif scenario == "late-expiry":
            self.answer(200, decision("allow", expires_ms=req.get("expires_ms", 0) + 60000))
        else:
            self.answer(404, b'{"error":"no such scenario"}')


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 64  # a unix socket's full backlog refuses at once


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    TCP_PORT[0] = server.server_address[1]
    os.makedirs(SOCKDIR, exist_ok=True)
    for name in SCENARIOS:
        path = os.path.join(SOCKDIR, name + ".sock")
        if os.path.exists(path):
            os.unlink(path)
        u = UnixServer(path, Handler)
        os.chmod(path, 0o777)  # the unprivileged pass's supervisor connects too
        u.scenario = name
        threading.Thread(target=u.serve_forever, daemon=True).start()
    tmp = PORTFILE + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, PORTFILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
