"""Each server's catalog: the shipped tables with the server's homebrew laid over them, read from the
store once and kept until the server changes its homebrew (through :meth:`ServerCatalogs.change`) or
is forgotten.

A guild is served by one process (its shard's), so a process's copy is the only one to keep fresh, and
its changes are made one at a time there (PostgreSQL locks a server's rows, but not rows not written yet:
two first imports at once could pass the limit between them).
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from .catalog import Catalog, CatalogLayer
from .store import Store

T = TypeVar("T")

KEPT = 512
"""How many servers' catalogs a process keeps; the least recently used goes first."""


class ServerCatalogs:
    def __init__(self, builtins: Callable[[], Catalog], store: Callable[[], Store]) -> None:
        self._builtins = builtins
        self._store = store
        self._kept: OrderedDict[int, Catalog] = OrderedDict()
        self._changing: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    async def of(self, guild_id: int | None) -> Catalog:
        """The server's catalog; outside a server (a DM), the shipped tables alone."""
        if guild_id is None:
            return self._builtins()
        kept = self._kept.get(guild_id)
        if kept is None:
            layer = await self._store().homebrew(guild_id)
            kept = self._builtins().layered(layer)
            self._kept[guild_id] = kept
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        self._kept.move_to_end(guild_id)
        return kept

    async def change(self, guild_id: int, change: Callable[[CatalogLayer], tuple[CatalogLayer, T]]) -> T:
        """Change the server's homebrew in one transaction (see :meth:`Store.change_homebrew`); its
        catalog is read afresh next time."""
        lock = self._changing.setdefault(guild_id, asyncio.Lock())
        async with lock:
            try:
                return await self._store().change_homebrew(guild_id, change)
            finally:
                self.forget(guild_id)

    def forget(self, guild_id: int) -> None:
        """The server's homebrew changed, or was deleted: read it again when it is next wanted."""
        self._kept.pop(guild_id, None)
