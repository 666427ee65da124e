"""An interaction's first answer without Discord's echo, unless its message id is needed, and then its id
alone.

discord.py asks Discord to send back every interaction callback's result (``?with_response=1``): the
message it made, 1 to 3 KB of JSON built into discord.py's ``InteractionMessage`` each time, though
Pommel needs the message's id only when the fight must remember it (a defense's request, whose deadline
may edit it later; a message whose buttons the fight keeps true). Within :func:`echoed` ``False`` the
callback is sent without it: Discord answers "204 No Content", and discord.py is handed the little it
reads of a callback's result (the interaction's id); the response's ``message_id`` is then None. Within
:func:`echoed` ``True`` Discord is asked for the result, and discord.py is handed only its
``interaction`` part, which holds the message's id (``response_message_id``): the response's
``message_id`` is set, its ``resource`` (the message itself, which nothing in Pommel reads) is None.

Pommel's views are stopped before they are sent (:func:`bot.ui.buttons.button_view`), so discord.py
stores none of them under a message id, echoed or not.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from discord.http import MultipartParameters, Route
from discord.webhook.async_ import AsyncWebhookAdapter

_echo: ContextVar[bool] = ContextVar("pommel_echo", default=True)
"""Whether the interaction callbacks sent now ask for their result (discord.py's way, by default)."""

WITH_RESPONSE = {"with_response": "1"}


@contextlib.contextmanager
def echoed(wanted: bool) -> Iterator[None]:
    """The interaction callbacks sent within ask Discord for their result only when ``wanted``."""
    token = _echo.set(wanted)
    try:
        yield
    finally:
        _echo.reset(token)


async def _create_interaction_response(
    self: AsyncWebhookAdapter,
    interaction_id: int,
    token: str,
    *,
    params: MultipartParameters,
    **connection: Any,
) -> Any:
    route = Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction_id,
        webhook_token=token,
    )
    query = WITH_RESPONSE if _echo.get() else None
    if params.files:
        sent = await self.request(
            route, files=params.files, multipart=params.multipart, params=query, **connection
        )
    else:
        sent = await self.request(route, payload=params.payload, params=query, **connection)
    if query is None:
        return {"interaction": {"id": str(interaction_id)}}
    return {"interaction": sent["interaction"]}  # its response_message_id; not the message itself


AsyncWebhookAdapter.create_interaction_response = _create_interaction_response  # type: ignore[method-assign]
