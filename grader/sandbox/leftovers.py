"""What a sandbox uid still owns on the host: after a run, nothing may be listed.

Files in the folders every user may write (/tmp, /var/tmp, /dev/shm, /run/lock, /dev/mqueue),
SysV IPC objects (shared memory, message queues, semaphores), keys in the kernel's key rings
(which belong to the uid and outlive every process) and processes. The tests and
`bench/gallery_replay.py` call it with a sandbox's slot uid after its run.
"""

from __future__ import annotations

import os
from pathlib import Path

SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")


def owned_by(uid: int) -> list[str]:
    found = []
    for folder in SHARED_WRITABLE:
        for root, dirs, files in os.walk(folder):
            for name in dirs + files:
                path = os.path.join(root, name)
                try:
                    if os.lstat(path).st_uid == uid:
                        found.append(f"file {path}")
                except OSError:
                    continue
    for kind in ("shm", "msg", "sem"):
        try:
            header, *rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except OSError:
            continue
        column = header.split().index("uid")
        found += [f"sysv {kind} {row.split()[1]}" for row in rows if int(row.split()[column]) == uid]
    try:  # "  uid:  keys ...": every key the uid owns, its user key rings included
        users = Path("/proc/key-users").read_text().splitlines()
    except OSError:
        users = []
    found += [f"keys {line.split()[1]}" for line in users if line.split(":")[0].strip() == str(uid)]
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{name}/status").read_text()
        except OSError:
            continue
        uids = next((line for line in status.splitlines() if line.startswith("Uid:")), "Uid:").split()[1:]
        if str(uid) in uids:
            found.append(f"process {name}")
    return found
