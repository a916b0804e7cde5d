#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A hand-made broker client for tests: what any process in a sandbox can
send to its broker socket, not only the shim. Prints what came back.

usage: broker-client.py call COMMAND [ARG...]   a well-formed request (stdio and cwd fds)
       broker-client.py fds N COMMAND            a request with N fds instead of four
       broker-client.py oversize                 a header announcing a body over the cap
       broker-client.py badmagic                 a header with the wrong magic
       broker-client.py signal-first             a SIGNAL frame before any request
       broker-client.py twice COMMAND [ARG...]   two requests on one connection
       broker-client.py dupenv NAME V1 V2 COMMAND [ARG...]
                                                 NAME=V1 and NAME=V2 both in the request's
                                                 environment (V2 "-": NAME once, =V1)
       broker-client.py open-url URL             an opener's request (open_urls), no fds
Output: "denied: REASON", "exit: HOW VALUE MESSAGE", or "closed" when the
supervisor dropped the connection without an answer.
"""
import os
import socket
import struct
import sys

SOCK = "/run/cordon/broker"
MAGIC, VERSION = 0xC7, 1
CALL, SIGNAL, OPEN_URL, DENIED, EXIT = 1, 2, 3, 0x81, 0x82


def s(b):
    return struct.pack(">I", len(b)) + b


def strv(v):
    return struct.pack(">I", len(v)) + b"".join(s(x) for x in v)


def header(typ, body_len, nfds):
    return bytes([MAGIC, VERSION, typ >> 8, typ & 0xFF, nfds, 0, 0, 0]) + struct.pack(">I", body_len)


def call_body(cmd, args, extra=()):
    env = [("%s=%s" % kv).encode() for kv in sorted(os.environ.items()) if "=" not in kv[0] and kv[0]]
    env += [e.encode() for e in extra]
    return s(cmd.encode()) + strv([a.encode() for a in args]) + s(os.getcwd().encode()) + strv(env) + b"\x00"


def send(sock, typ, body, fds=()):
    data = header(typ, len(body), len(fds)) + body
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("%di" % len(fds), *fds))] if fds else []
    sock.sendmsg([data], anc)


def answer(sock):
    buf = b""
    while len(buf) < 12:
        chunk = sock.recv(65536)
        if not chunk:
            return "closed"
        buf += chunk
    typ = buf[2] << 8 | buf[3]
    n = struct.unpack(">I", buf[8:12])[0]
    while len(buf) < 12 + n:
        chunk = sock.recv(65536)
        if not chunk:
            return "closed"
        buf += chunk
    body = buf[12:12 + n]
    if typ == DENIED:
        ln = struct.unpack(">I", body[:4])[0]
        return "denied: " + body[4:4 + ln].decode(errors="replace")
    if typ == EXIT:
        how, value = body[0], struct.unpack(">I", body[1:5])[0]
        ln = struct.unpack(">I", body[5:9])[0]
        return "exit: %d %d %s" % (how, value, body[9:9 + ln].decode(errors="replace"))
    return "type %d" % typ


def main():
    mode = sys.argv[1]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(SOCK)
    cwd = os.open(".", os.O_PATH | os.O_DIRECTORY)
    stdio = [0, 1, 2, cwd]
    if mode == "call":
        send(sock, CALL, call_body(sys.argv[2], sys.argv[3:]), stdio)
    elif mode == "fds":
        n = int(sys.argv[2])
        send(sock, CALL, call_body(sys.argv[3], []), (stdio * 2)[:n])
    elif mode == "oversize":
        sock.sendall(header(CALL, (1 << 20) + 1, 0))
    elif mode == "badmagic":
        sock.sendall(b"\x00" + header(CALL, 0, 0)[1:])
    elif mode == "signal-first":
        send(sock, SIGNAL, struct.pack(">I", 2))
    elif mode == "dupenv":
        name, v1, v2 = sys.argv[2:5]
        extra = ["%s=%s" % (name, v1)] + ([] if v2 == "-" else ["%s=%s" % (name, v2)])
        send(sock, CALL, call_body(sys.argv[5], sys.argv[6:], extra), stdio)
    elif mode == "open-url":
        send(sock, OPEN_URL, s(sys.argv[2].encode()))
    elif mode == "twice":
        send(sock, CALL, call_body(sys.argv[2], sys.argv[3:]), stdio)
        send(sock, CALL, call_body(sys.argv[2], sys.argv[3:]), stdio)
    else:
        sys.exit("unknown mode " + mode)
    print(answer(sock), flush=True)


if __name__ == "__main__":
    main()
