# SPDX-License-Identifier: LGPL-2.1-or-later
# mountns.py: what the integration tests' helpers need to run a command in
# a mount namespace of its own, leaving the host as it was (resolv-ns.py,
# sshd-ns.py): mount(2) through ctypes, and enter() that unshares a mount
# namespace (and, when not root, a user namespace mapping only the caller)
# with every mount private.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
CLONE_NEWNS, CLONE_NEWUSER = 0x20000, 0x10000000


def check(r, what):
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, what + ": " + os.strerror(e))


def mount(src, tgt, fs, flags, data=None):
    check(libc.mount(src and src.encode(), tgt.encode(), fs and fs.encode(), ctypes.c_ulong(flags),
                     data and data.encode()), "mount " + tgt)


def enter():
    """A private mount namespace; as another user than root, inside a user
    namespace mapping only that user and group. Returns the caller's uid."""
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        check(libc.unshare(CLONE_NEWNS), "unshare")
    else:
        check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare")
        with open("/proc/self/uid_map", "w") as f:
            f.write("%d %d 1" % (uid, uid))
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/gid_map", "w") as f:
            f.write("%d %d 1" % (gid, gid))
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    return uid
