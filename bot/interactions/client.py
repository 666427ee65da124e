"""What the edges of an interaction need of the bot."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..catalog import Catalog
from ..events import Bus
from ..server_catalogs import ServerCatalogs
from ..store import Store
from ..trackers import TrackerBoard

if TYPE_CHECKING:
    from .in_flight import InFlight
    from .routes import ButtonRoutes


class PommelClient(Protocol):
    """What the edges need of the bot (:class:`bot.app.Pommel`): its store, its catalog and its button
    routes."""

    @property
    def store(self) -> Store: ...

    @property
    def catalog(self) -> Catalog: ...

    @property
    def catalogs(self) -> ServerCatalogs: ...

    @property
    def buttons(self) -> ButtonRoutes: ...

    @property
    def in_flight(self) -> InFlight: ...

    @property
    def trackers(self) -> TrackerBoard: ...

    @property
    def events(self) -> Bus: ...
