# SPDX-License-Identifier: LGPL-2.1-or-later
# sshd-ns.py DIR CONFIG: for net-allow-ssh.t, the test's own sshd (-D -e -f
# CONFIG) in a mount namespace of its own, touching nothing on the host: as
# root, a tmpfs /run for its privilege-separation directory (/run/sshd); as
# another user (sshd then runs without privilege separation), a user
# namespace mapping only that user and a copy of /etc/passwd (in DIR) bound
# over the real one that gives the user a shell (a service account's
# nologin would refuse every command).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mountns import MS_BIND, enter, mount  # noqa: E402

d, conf = sys.argv[1], sys.argv[2]
uid = enter()
if uid == 0:
    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755")
    os.mkdir("/run/sshd", 0o755)
else:
    with open("/etc/passwd") as f, open(d + "/passwd", "w") as out:
        for line in f:
            p = line.rstrip("\n").split(":")
            if len(p) == 7 and p[2] == str(uid):
                p[6] = "/bin/sh"
            out.write(":".join(p) + "\n")
    mount(d + "/passwd", "/etc/passwd", None, MS_BIND)
os.execv("/usr/sbin/sshd", ["/usr/sbin/sshd", "-D", "-e", "-f", conf])
