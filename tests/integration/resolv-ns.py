# resolv-ns.py DIR MODE TEXT [LINK] -- COMMAND...: for net-allow.t, COMMAND
# in a mount namespace of its own (and a user namespace mapping only the
# caller, when not root) where /etc/resolv.conf is the file TEXT: MODE
# "file" binds it over the host's; MODE "link" makes /etc/resolv.conf a
# symlink to LINK (an overlay on /etc, its upper layer in DIR) whose target,
# in a tmpfs /run, holds a copy of TEXT. The host is left as it was.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mountns import MS_BIND, enter, mount  # noqa: E402

d, mode, text = sys.argv[1], sys.argv[2], sys.argv[3]
cmd = sys.argv[sys.argv.index("--") + 1:]
enter()
if mode == "file":
    mount(text, "/etc/resolv.conf", None, MS_BIND)
else:
    link = sys.argv[4]
    for sub in ("upper", "work"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    os.symlink(link, os.path.join(d, "upper", "resolv.conf"))
    opts = "lowerdir=/etc,upperdir=%s/upper,workdir=%s/work" % (d, d)
    try:
        mount("overlay", "/etc", "overlay", 0, opts + ",userxattr")
    except OSError:
        mount("overlay", "/etc", "overlay", 0, opts)
    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755")
    target = os.path.normpath(os.path.join("/etc", link))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(text) as f, open(target, "w") as out:
        out.write(f.read())
os.execvp(cmd[0], cmd)
