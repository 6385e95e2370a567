"""A pool process (the AI's turn choosers) that ends when the service that started it is gone.

Killed hard (SIGKILL, OOM), a service cannot stop its pool: the processes it leaves go on
waiting for work that never comes, holding memory. PR_SET_PDEATHSIG would not do here: it fires
when the *thread* that started the process ends, and a pool starts its processes from whichever
thread submits work. The parent *process* is what is watched, by asking for it a few times a
second."""

from __future__ import annotations

import os
import threading

# How often the parent is looked for: a pool process outlives its service by at most this.
EVERY_SECONDS = 0.2


def end_with_parent(parent: int) -> None:
    """Ends this process as soon as its parent is no longer ``parent`` (the pid the parent gave it:
    comparing with it also catches a parent that died before this ran). For a pool's
    ``initializer``, with ``initargs=(os.getpid(),)``."""

    def watch() -> None:
        stopped = threading.Event()
        while os.getppid() == parent:
            stopped.wait(EVERY_SECONDS)
        # No clean-up: the work a pool process holds belongs to the service that died.
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
