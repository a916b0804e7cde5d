#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A test approval webhook on 127.0.0.1, on a port the kernel picks.

    webhook-server.py PORTFILE LOGFILE     (the key in $WEBHOOK_TEST_KEY)

Writes its port to PORTFILE once it listens, and one JSON line per request
to LOGFILE: path, whether the X-Cordon-Signature header is the HMAC-SHA256
of the body under the key, the headers and the body. A request whose
signature does not verify gets 401. Otherwise the path picks the answer:

  /allow /deny          a valid decision echoing request_id and digest
  /slow                 /allow, 3 s late
  /wrong-id /wrong-digest   a valid allow, but echoing another id / digest
  /500                  an allow body with status 500
  /redirect             302 to /allow on this server
  /malformed            a 200 whose body is cut-off JSON
  /duplicate            "decision" twice: deny, then allow
  /oversized            a valid allow padded to 100 KiB, with Content-Length
  /oversized-stream     the same without Content-Length (ends at close)
"""
import hashlib
import hmac
import http.server
import json
import os
import sys
import threading
import time

KEY = os.environb[b"WEBHOOK_TEST_KEY"]
LOG_LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

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
        with LOG_LOCK, open(sys.argv[2], "a") as log:
            log.write(json.dumps({"path": self.path, "sig_ok": sig_ok, "headers": dict(self.headers),
                                  "body": req, "raw": raw.decode("utf-8", "replace")}) + "\n")
        if not sig_ok or not isinstance(req, dict):
            self.answer(401, b'{"error":"bad signature"}')
            return

        def decision(d, **over):
            out = {"request_id": req.get("request_id"), "digest": req.get("digest"),
                   "decision": d, "reason": "test says " + d}
            out.update(over)
            return json.dumps(out).encode()

        path = self.path
        if path == "/allow":
            self.answer(200, decision("allow"))
        elif path == "/deny":
            self.answer(200, decision("deny", reason="no \x1b[31mway\x1b[0m\r\n"))
        elif path == "/slow":
            time.sleep(3)
            self.answer(200, decision("allow"))
        elif path == "/wrong-id":
            self.answer(200, decision("allow", request_id="0" * 32))
        elif path == "/wrong-digest":
            self.answer(200, decision("allow", digest="0" * 64))
        elif path == "/500":
            self.answer(500, decision("allow"))
        elif path == "/redirect":
            port = self.server.server_address[1]
            self.answer(302, b"", headers=[("Location", "http://127.0.0.1:%d/allow" % port)])
        elif path == "/malformed":
            self.answer(200, decision("allow")[:20])
        elif path == "/duplicate":
            body = decision("deny")[:-1] + b', "decision": "allow"}'
            self.answer(200, body)
        elif path in ("/oversized", "/oversized-stream"):
            body = decision("allow")[:-1] + b" " * (100 * 1024) + b"}"
            self.answer(200, body, length=path == "/oversized")
        else:
            self.answer(404, b'{"error":"no such scenario"}')


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
