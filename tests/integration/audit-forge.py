#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What an attacker who can write an audit log does to hide its end:

    audit-forge.py cut LOG N
        drop the last N records and the session_end, and append a
        session_end recomputed as the writer would (seq, prev, time,
        records): the chain verifies on its own
    audit-forge.py rekey LOG HEADS_DIR
        the same cut, and the whole log rewritten with a head_key of the
        attacker's (a fresh Ed25519 key), its stored signed head replaced by
        one signed with that key (needs python3-cryptography; exit 77
        without it)
"""
import hashlib
import json
import os
import sys
import time


def dump(o):
    return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def rechain(records):
    out, prev = [], "0" * 64
    for i, o in enumerate(records):
        o["seq"], o["prev"] = i, prev
        line = dump(o)
        prev = hashlib.sha256(line.encode()).hexdigest()
        out.append(line)
    return out, prev


def cut(path, n):
    recs = [json.loads(l) for l in open(path, "rb")]
    end = recs.pop()
    assert end["event"] == "session_end"
    recs = recs[:len(recs) - n]
    end["time"] = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    end["records"] = len(recs)
    recs.append(end)
    return recs


def main():
    if sys.argv[1] == "cut":
        recs = cut(sys.argv[2], int(sys.argv[3]))
        lines, _ = rechain(recs)
        open(sys.argv[2], "w").write("\n".join(lines) + "\n")
        return 0
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives import serialization
    except ImportError:
        return 77
    recs = cut(sys.argv[2], 1)
    key = Ed25519PrivateKey.generate()
    pub = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    recs[0]["head_key"] = pub
    lines, head = rechain(recs)
    open(sys.argv[2], "w").write("\n".join(lines) + "\n")
    session = recs[0]["session"]
    sig = key.sign(("cordon.audit_head.v1\n%s\n%s" % (session, head)).encode()).hex()
    hp = os.path.join(sys.argv[3], session + ".head")
    os.unlink(hp)
    open(hp, "w").write(dump({"head": head, "head_key": pub, "records": len(recs), "session": session,
                              "signature": sig}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
