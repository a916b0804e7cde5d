# resolv-ns.py DIR MODE TEXT [LINK] -- COMMAND...: for net-allow.t, COMMAND
# in a mount namespace of its own (and a user namespace mapping only the
# caller, when not root) where /etc/resolv.conf is the file TEXT: MODE
# "file" binds it over the host's; MODE "link" makes /etc/resolv.conf a
# symlink to LINK (an overlay on /etc, its upper layer in DIR) whose target,
# in a tmpfs /run, holds a copy of TEXT. The host is left as it was.
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def check(r, what):
    if r != 0:
        e = ctypes.get_errno(); raise OSError(e, what + ": " + os.strerror(e))
def mount(src, tgt, fs, flags, data=None):
    check(libc.mount(src and src.encode(), tgt.encode(), fs and fs.encode(), ctypes.c_ulong(flags),
                     data and data.encode()), "mount " + tgt)
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
d, mode, text = sys.argv[1], sys.argv[2], sys.argv[3]
cmd = sys.argv[sys.argv.index("--") + 1:]
uid, gid = os.getuid(), os.getgid()
if uid == 0:
    check(libc.unshare(0x20000), "unshare")
else:
    check(libc.unshare(0x10000000 | 0x20000), "unshare")
    open("/proc/self/uid_map", "w").write("%d %d 1" % (uid, uid))
    open("/proc/self/setgroups", "w").write("deny")
    open("/proc/self/gid_map", "w").write("%d %d 1" % (gid, gid))
mount(None, "/", None, MS_REC | MS_PRIVATE)
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
