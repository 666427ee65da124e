"""The fake Discord as one server: an aiohttp app serving its parts on 127.0.0.1."""

from __future__ import annotations

import contextlib

from aiohttp import web

from .interactions import Interactions
from .rest.channels import ChannelRoutes
from .rest.commands import CommandRoutes
from .rest.users import UserRoutes
from .validation import RequestFront


class FakeDiscord(RequestFront, UserRoutes, CommandRoutes, ChannelRoutes, Interactions):
    """The fake: an aiohttp app serving ``/api/v10/...`` and the gateway websocket on 127.0.0.1.

    Each part is a class over :class:`DiscordState` (what they all share) that brings its own methods
    and routes (``_route_table``); this class puts them together and runs them.
    """

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/gateway/", self._gateway)
        app.router.add_route("GET", "/gateway-resume/", self._gateway)
        app.router.add_route("GET", "/attachments/{attachment_id}/{filename}", self._attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._api)
        app.router.add_route("*", "/{tail:.*}", self._stray)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await self._site.start()
        server = self._site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        for conn in list(self.connections):
            with contextlib.suppress(Exception):
                await conn.close(1001, "fake discord stopping")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
