"""A warm spare of a supervised child: ``python -m boxedin.supervisor.standby MODULE`` imports what
``python -m MODULE`` would, says "warm", then waits; told "go", it runs MODULE as ``python -m``
would, in the same process. A restart through a spare skips starting the interpreter and
importing the service, which is most of the time a Python service takes to start (the gateway's
imports alone take about 1.3 s of CPU), so a crash costs the players only the service's own start.

The spare talks with its supervisor over its standard input, one end of a socket pair
(``Spare``). That end closed without a "go": the spare is not needed, it ends."""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import os
import runpy
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

WARM = b"warm\n"
GO = b"go\n"


@dataclass
class Spare:
    """The supervisor's side of a spare: its process and its end of the line."""

    process: subprocess.Popen[bytes]
    line: socket.socket
    warm: bool = False

    @classmethod
    def start(cls, module_and_args: list[str], popen: Callable[[list[str], int], subprocess.Popen[bytes]]) -> Spare:
        """A spare of ``python -m MODULE ARGS...``, started by ``popen(args, stdin)``."""
        ours, theirs = socket.socketpair()
        try:
            process = popen([sys.executable, "-m", "boxedin.supervisor.standby", *module_and_args], theirs.fileno())
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()  # the spare has its own copy
        ours.setblocking(False)
        return cls(process, ours)

    def is_warm(self) -> bool:
        """Whether it has said it has imported everything (it does not block)."""
        if not self.warm:
            with contextlib.suppress(BlockingIOError):
                self.warm = self.line.recv(len(WARM)) == WARM
        return self.warm

    def go(self) -> bool:
        """Tells it to run the service; False if it is gone (then it is ended)."""
        try:
            self.line.sendall(GO)
        except OSError:
            self.end()
            return False
        self.line.close()
        return self.process.poll() is None

    def end(self) -> None:
        """Ends an idle spare (it holds nothing worth a graceful stop)."""
        self.process.kill()
        self.process.wait()
        self.line.close()


def main() -> None:
    module = sys.argv[1]
    spec = importlib.util.find_spec(module)
    if spec is None:
        raise SystemExit(f"standby: no module {module}")
    # A package runs as its __main__ module: importing that is what imports the service. It is run
    # again as __main__ below (its own lines are cheap: what they import is imported).
    main_module = f"{module}.__main__" if spec.submodule_search_locations is not None else module
    importlib.import_module(main_module)
    del sys.modules[main_module]
    # What importing made lives as long as the process: out of the collector's sight now, so
    # that the collection a service makes once started (boxedin.common.gc_pauses) is quick.
    gc.collect()
    gc.freeze()
    os.write(0, WARM)
    heard = b""
    while not heard.endswith(b"\n"):
        part = os.read(0, 16)
        if not part:
            return  # not needed
        heard += part
    if heard != GO:
        raise SystemExit(f"standby: told {heard!r}")
    # The service must not read what was its supervisor's line.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.argv = [module, *sys.argv[2:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
