#!/usr/bin/env python3
# packs.t's loopback HTTPS server: serves ROOT over TLS with CERT/KEY on
# 127.0.0.1 (a port of its choosing, printed on stdout's first line).
# /to-http/PATH answers 302 to http://127.0.0.1:1/PATH (a redirect to
# plain http, which the fetcher must refuse); /to-https/PATH answers 302
# to this server's /PATH (a redirect it may follow).
#   pack-https-server.py ROOT CERT KEY
import http.server
import os
import ssl
import sys

root, cert, key = sys.argv[1:4]


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=root, **kw)

    def log_message(self, *a):
        pass

    def do_GET(self):
        for prefix, target in (('/to-http/', 'http://127.0.0.1:1/'),
                               ('/to-https/', 'https://127.0.0.1:%d/' % self.server.server_port)):
            if self.path.startswith(prefix):
                self.send_response(302)
                self.send_header('Location', target + self.path[len(prefix):])
                self.send_header('Content-Length', '0')
                self.end_headers()
                return
        super().do_GET()


srv = http.server.HTTPServer(('127.0.0.1', 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print(srv.server_port, flush=True)
srv.serve_forever()
