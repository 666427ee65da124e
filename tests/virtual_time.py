"""An event loop whose clock is virtual: it stands still while callbacks run, and when every task waits
on a timer it jumps straight to the next one. ``asyncio.sleep``, ``wait_for``, ``asyncio.wait(timeout=)``
and ``loop.time()`` all read it, so code that measures or waits in seconds on the loop's clock (the
tracker board, its budget) is tested to the exact virtual second however loaded the machine is, and a
test's sleeps take no real time.

Not for code that waits on threads or sockets while a timer is pending: the clock would jump past it.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


TICK = 1e-6
"""What a turn of the loop with nothing ready costs on the virtual clock: as on a real one, time always
moves on, so a wait computed to fall a rounding error short of its deadline does not spin forever."""


class _SkippingSelector(selectors.DefaultSelector):
    """Never sleeps for a timer: polls, and when nothing is ready moves the clock on by the time the loop
    would have slept (at least :data:`TICK`)."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:  # no timer at all: only a thread or a socket can wake the loop
            return super().select(None)
        events = super().select(0)
        if not events:
            self.now += max(timeout, TICK)
        return events


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self._skipping = _SkippingSelector()
        super().__init__(self._skipping)

    def time(self) -> float:
        return self._skipping.now


def run_in_virtual_time(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on a :class:`VirtualTimeLoop`."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(main)
