# net-allow-dns.py PORTFILE LOG DELAY SPEC: for net-allow-nbconnect.t, a DNS
# server on the host's 127.0.0.1 (UDP, a free port, written to PORTFILE)
# that answers slowly: every query for a name SPEC knows is answered after
# DELAY seconds (each on its own timer, so parallel queries are not
# serialised). SPEC is JSON, {"name": [[A...], [A...], ...]}: the Nth A
# query of the name gets the Nth list (the last one from then on); AAAA
# gets an empty answer. Any other name: NXDOMAIN at once. Each query is
# logged as "NAME TYPE" in LOG. The question is echoed as it came (evdns
# randomises the case of the names it asks).
import json
import os
import socket
import struct
import sys
import threading

portfile, log, delay, spec = sys.argv[1], sys.argv[2], float(sys.argv[3]), json.loads(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
asked = {}
lock = threading.Lock()


def reply(q, peer):
    qid, _, qd = struct.unpack(">HHH", q[:6])
    at, labels = 12, []
    while qd == 1 and at < len(q) and q[at]:
        labels.append(q[at + 1:at + 1 + q[at]].decode("ascii", "replace"))
        at += 1 + q[at]
    at += 1
    if qd != 1 or at + 4 > len(q):
        return
    qtype = struct.unpack(">H", q[at:at + 2])[0]
    question = q[12:at + 4]
    name = ".".join(labels).lower()
    with lock:
        with open(log, "a") as f:
            f.write("%s %d\n" % (name, qtype))
        known = name in spec
        addrs = []
        if known and qtype == 1:
            n = asked.get(name, 0)
            asked[name] = n + 1
            addrs = spec[name][min(n, len(spec[name]) - 1)]
    rcode = 0 if known else 3
    out = struct.pack(">HHHHHH", qid, 0x8180 | rcode, 1, len(addrs), 0, 0) + question
    for a in addrs:
        out += struct.pack(">HHHIH", 0xc00c, 1, 1, 60, 4) + socket.inet_aton(a)
    if known:
        threading.Timer(delay, s.sendto, (out, peer)).start()
    else:
        s.sendto(out, peer)


with open(portfile + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
while True:
    q, peer = s.recvfrom(4096)
    try:
        reply(q, peer)
    except (ValueError, IndexError, struct.error):
        pass
