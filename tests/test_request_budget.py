"""Discord's global limit kept where requests leave: a sliding second of at most N, answers to
interactions not counted."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
import yarl

from bot.request_budget import RequestWindow, metered


async def test_a_window_lets_n_go_at_once_and_holds_the_next_until_the_first_is_a_second_old() -> None:
    window = RequestWindow(3)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for _ in range(3):
        await asyncio.wait_for(window.take(), 0.05)
    fourth = asyncio.ensure_future(window.take())
    await asyncio.sleep(0.2)
    assert not fourth.done()
    await fourth
    assert loop.time() - started >= 1.0 - 0.01


def test_a_window_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="allows nothing"):
        RequestWindow(0)


async def test_answers_to_interactions_take_no_turn_and_other_requests_do() -> None:
    taken: list[str] = []

    class Window(RequestWindow):
        async def take(self) -> None:
            taken.append("turn")

    trace = metered(Window(1))
    [start] = trace.on_request_start
    [created] = trace.on_connection_create_end
    [reused] = trace.on_connection_reuseconn
    base = "https://discord.com/api/v10"
    for path, ready in (
        ("/interactions/1/token/callback", created),
        ("/webhooks/1/token/messages/@original", reused),
        ("/channels/1/messages/2", reused),
        ("/channels/1/messages", created),
    ):
        context = SimpleNamespace()
        await start(None, context, SimpleNamespace(url=yarl.URL(base + path)))  # type: ignore[arg-type]
        await ready(None, context, None)  # type: ignore[arg-type]
    assert taken == ["turn", "turn"]
