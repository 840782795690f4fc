#!/usr/bin/env python3
"""Processes a run left behind: every process whose environment carries the run's mark
(`TEST_RUN_MARK=<mark>`), but for the caller and its ancestors. Each is printed and then
killed; the exit code is 1 when there was one. Usage: scripts/leftovers.py <mark> <caller pid>
"""
import os
import signal
import sys
import time

mark, caller = sys.argv[1], int(sys.argv[2])
want = f"TEST_RUN_MARK={mark}".encode()


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


# The caller, this script and their ancestors are the run itself.
mine, p = set(), os.getpid()
while p > 1:
    mine.add(p)
    p = parent(p)
p = caller
while p > 1:
    mine.add(p)
    p = parent(p)


def marked():
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in mine:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if want in env and cmd:
            found.append((int(name), cmd))
    return found


# A process that is exiting right now is given a moment.
left = marked()
for _ in range(20):
    if not left:
        break
    time.sleep(0.25)
    left = marked()
for pid, cmd in left:
    print(f"left running: pid {pid}: {cmd[:200]}")
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
if left:
    print(f"leftovers: {len(left)} process(es) outlived the run that started them")
    sys.exit(1)
print("leftovers: no process outlived the run")
