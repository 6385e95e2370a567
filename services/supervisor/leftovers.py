"""What a run of `boxedin up` started, recorded in its data folder, so that the next start on that
folder stops whatever a run that could not stop its children left running (they would hold its
ports and its Redis's files). A child is recorded by its pid, its start time and the machine's
boot: a pid that another process has taken since is never signalled."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .process_groups import group_members, kill_group, start_time

# How long the children of an earlier run have to stop on SIGTERM before they are SIGKILLed.
STOP_SECONDS = 5.0


def _boot() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "unknown"


@dataclass(frozen=True)
class Recorded:
    """One child of a run: its name in the stack, its pid (which leads its process group) and
    when it started (clock ticks since boot)."""

    name: str
    pid: int
    started: int

    def running(self) -> bool:
        """Whether this very process still runs (not another that took its pid)."""
        return start_time(self.pid) == self.started

    def left_in_group(self) -> list[int]:
        """Processes of its group that started after it: its pool processes, if it is gone. None
        once its pid is another process's (that process's group is not this one)."""
        if start_time(self.pid) not in (None, self.started):
            return []
        return [pid for pid in group_members(self.pid) or [] if (start_time(pid) or -1) >= self.started]


class ChildrenRecord:
    """The file that names the running children of one run: a line with the boot, then one line
    per child, "name pid start-time"."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, children: Mapping[str, int]) -> None:
        """Records the children (name -> pid) now running; replaced whole, never half written."""
        lines = [f"boot {_boot()}"]
        for name, pid in sorted(children.items()):
            started = start_time(pid)
            if started is not None:
                lines.append(f"{name} {pid} {started}")
        partial = self.path.with_name(self.path.name + ".new")
        partial.write_text("\n".join(lines) + "\n")
        os.replace(partial, self.path)

    def read(self) -> list[Recorded]:
        """The children recorded in this boot of the machine (a record from before a reboot names
        processes that are long gone)."""
        try:
            lines = self.path.read_text().splitlines()
        except OSError:
            return []
        if not lines or lines[0] != f"boot {_boot()}":
            return []
        found = []
        for line in lines[1:]:
            with contextlib.suppress(ValueError):
                name, pid, started = line.split()
                found.append(Recorded(name, int(pid), int(started)))
        return found

    def clear(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def stop_leftovers(self, wait: float = STOP_SECONDS) -> list[Recorded]:
        """Stops what the recorded run left running, each with its process group: SIGTERM, then
        SIGKILL after ``wait`` seconds. Returns the children it found running."""
        left = [child for child in self.read() if child.running() or child.left_in_group()]
        for child in left:
            if child.running():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(child.running() for child in left):
            time.sleep(0.05)
        for child in left:
            if child.running():
                kill_group(child.pid)
            for pid in child.left_in_group():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        self.clear()
        return left
