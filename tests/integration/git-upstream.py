# A smart-HTTP git server over TLS for creds-git.t: `git http-backend` as a
# CGI behind Basic authentication. Every request's method, path and
# Authorization header go to the log; a request without Authorization gets
# 401 (git then asks its credential helper), one whose Basic credential is
# not USER:TOKEN gets 403, the others reach http-backend.
import base64, http.server, json, os, socketserver, ssl, subprocess, sys

portfile, log, cert, key, root, want = sys.argv[1:7]


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, code, headers, body):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                chunk = self.rfile.read(size + 2)[:size]
                if size == 0:
                    break
                body += chunk
        auth = self.headers.get("Authorization", "")
        with open(log, "a") as f:
            f.write(json.dumps({"m": self.command, "p": self.path, "auth": auth}) + "\n")
        if not auth:
            self.reply(401, [("WWW-Authenticate", 'Basic realm="git"')], b"who?\n")
            return
        try:
            got = base64.b64decode(auth.split(" ", 1)[1]).decode()
        except Exception:
            got = ""
        if not auth.startswith("Basic ") or got != want:
            self.reply(403, [], b"wrong credential\n")
            return
        path, _, query = self.path.partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=root, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                   QUERY_STRING=query, REQUEST_METHOD=self.command, REMOTE_USER="u", REMOTE_ADDR="127.0.0.1",
                   CONTENT_TYPE=self.headers.get("Content-Type", ""), CONTENT_LENGTH=str(len(body)),
                   HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""),
                   GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        if not _:
            head, _, rest = out.partition(b"\n\n")
        code, headers = 200, []
        for line in head.decode().splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                code = int(v.split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.reply(code, headers, rest)

    do_GET = do_POST = handle_any

    def log_message(self, *a):
        pass


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


s = S(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(portfile + ".tmp", "w").write(str(s.server_address[1]))
os.rename(portfile + ".tmp", portfile)
s.serve_forever()
