# SPDX-License-Identifier: LGPL-2.1-or-later
# A TCP echo server on the host's 127.0.0.1 (net-allow*.t): each connection
# a line "conn" in LOG; its port written to PORTFILE once it listens.
#   python3 echo-logged.py PORTFILE LOG
import os, socket, sys, threading
portfile, log = sys.argv[1], sys.argv[2]
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(64)
def h(c):
    with open(log, "a") as f:
        f.write("conn\n")
    while True:
        d = c.recv(65536)
        if not d:
            break
        c.sendall(d)
    c.close()
open(portfile + ".tmp", "w").write(str(s.getsockname()[1])); os.rename(portfile + ".tmp", portfile)
while True:
    c, _ = s.accept()
    threading.Thread(target=h, args=(c,), daemon=True).start()
