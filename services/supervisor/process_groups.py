"""Process groups of the children a launcher starts: each child leads a group of its own, so that
stopping it reaches the pool processes it started too (read from /proc)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (the first is the state), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    return stat[stat.rindex(")") + 2 :].split()


def start_time(pid: int) -> int | None:
    """When the live process ``pid`` started, in clock ticks since boot (with the boot, it names
    one process for good: a pid is used again, its start time is not); None if it is gone."""
    fields = _stat_fields(pid)
    if fields is None or fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def group_members(group: int) -> list[int] | None:
    """The live (not zombie) processes of a process group, from /proc; None without /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    members = []
    for entry in entries:
        if not entry.isdigit():
            continue
        fields = _stat_fields(int(entry))
        if fields is None:
            continue
        if int(fields[2]) == group and fields[0] not in ("Z", "X"):
            members.append(int(entry))
    return members


def kill_group(leader: int, wait: float = 3.0) -> None:
    """SIGKILLs what is left of the process group ``leader`` led (a child starts its own group, so
    this reaches its pool processes), and waits up to ``wait`` seconds for it to be gone."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.killpg(leader, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        members = group_members(leader)
        if members == [] or time.monotonic() > deadline:
            return  # zombies may be left to whoever reaps them: they hold no port and no memory
        time.sleep(0.02)


def describe_exit(code: int | None) -> str:
    if code is None:
        return "running"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit status {code}"
