"""Children that end with the supervisor that started them, however it ends (SIGKILL and OOM
included, when it can run no clean-up): each is started with PR_SET_PDEATHSIG set to SIGKILL.

The kernel sends that signal when the *thread* that started the child ends, not the process, so
every child is started from one thread that lives as long as the stack (``Spawner``): a restart
made from a short-lived recovery thread would otherwise be killed as soon as that thread ends.
A child's own pool processes are the child's business: Celery's set PR_SET_PDEATHSIG themselves,
the AI's watch their parent (boxedin.common.parent_watch)."""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

# Loaded before any fork: between fork and exec the child may only call what is already there.
_libc = ctypes.CDLL(None, use_errno=True)


def ending_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` for subprocess.Popen: the child is SIGKILLed when the thread that starts it
    (its parent) ends. Called in the thread that will start the child."""
    parent = os.getpid()

    def preexec() -> None:
        if _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != parent:
            # The parent died between fork and prctl: no signal will come for it.
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


_Calls = queue.SimpleQueue[tuple[Callable[[], object], "Future[object]"] | None]


class Spawner:
    """Runs every start of a child in one thread of its own, which lives until ``close``."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._calls: _Calls = queue.SimpleQueue()
        self._lock = threading.Lock()

    def run(self, start: Callable[[], T]) -> T:
        """``start()`` run in the spawner's thread; its result or its exception."""
        with self._lock:
            if self._thread is None:
                self._calls = queue.SimpleQueue()
                self._thread = threading.Thread(target=self._serve, args=(self._calls,), name="spawner", daemon=True)
                self._thread.start()
            thread, calls = self._thread, self._calls
        if threading.current_thread() is thread:
            return start()
        future: Future[object] = Future()
        calls.put((start, future))
        return future.result()  # type: ignore[return-value]  # the future holds start()'s result

    @staticmethod
    def _serve(calls: _Calls) -> None:
        while (call := calls.get()) is not None:
            start, future = call
            try:
                future.set_result(start())
            except BaseException as exc:  # handed to the caller, which raises it
                future.set_exception(exc)

    def close(self) -> None:
        """Ends the thread: every child it started is SIGKILLed by the kernel if still running,
        so call it once they are stopped."""
        with self._lock:
            thread, self._thread = self._thread, None
            calls = self._calls
        if thread is not None:
            calls.put(None)
            thread.join()
