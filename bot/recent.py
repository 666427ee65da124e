"""A map that forgets: what the tracker board remembers of the fights it drew, for a while only."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """A map that forgets what was last set more than ``keep`` seconds ago, so a fight left idle costs
    nothing after a while."""

    def __init__(self, keep: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._keep = keep
        self._clock = clock
        self._items: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def get(self, key: K) -> V | None:
        item = self._items.get(key)
        if item is None or item[0] < self._clock() - self._keep:
            return None
        return item[1]

    def set(self, key: K, value: V) -> None:
        now = self._clock()
        self._items[key] = (now, value)
        self._items.move_to_end(key)
        while self._items:
            oldest = next(iter(self._items.values()))
            if oldest[0] >= now - self._keep:
                break
            self._items.popitem(last=False)

    def pop(self, key: K) -> None:
        self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)
