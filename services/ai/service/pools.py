"""Stopping a process pool for good before the interpreter exits.

``ProcessPoolExecutor.shutdown(wait=False)`` leaves the pool's manager thread running, and at
exit Python 3.11 wakes every such thread through a pipe the thread may be closing at that moment
(``_python_exit``): the wake-up fails with EBADF and the interpreter then waits on the thread
for ever, so a SIGTERM'd service never exits. A pool stopped here has no thread left by then.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor, ProcessPoolExecutor

# How long a worker process may take to finish on its own before it is killed. Nothing it holds is
# lost: a computer turn's entry stays pending in its stream for another replica, and a review's
# turns are taken over (review_work).
WORKER_GRACE_SECONDS = 1.0


def stop_pool(pool: Executor, grace: float = WORKER_GRACE_SECONDS) -> None:
    """Stops the pool's processes (killing those still busy after ``grace``) and joins its
    manager thread. Blocking: call it off the event loop."""
    if not isinstance(pool, ProcessPoolExecutor):
        pool.shutdown(wait=True, cancel_futures=True)
        return
    # Private, but the only handles there are on the processes and the thread; shutdown() drops
    # them, so they are taken first.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
    # With every process gone the thread sees the pool broken or drained and ends.
    if manager is not None:
        manager.join()
