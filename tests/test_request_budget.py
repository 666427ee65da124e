"""The budget every request under Discord's global limit takes from as it leaves: its rate, its burst, a
command's requests before the background's, and which requests it leaves alone. On a virtual clock
(:mod:`tests.virtual_time`): exact seconds however loaded the machine is."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import aiohttp
import pytest
import uvloop
import yarl
from aiohttp import web

from bot.drawing_budget import Budget
from bot.request_budget import (
    BudgetedConnector,
    PriorityBudget,
    background_task,
    exempt_from_global,
    in_background,
    is_background,
    processes_sharing,
)
from tests.virtual_time import run_in_virtual_time

APP = 1234


def test_the_budget_allows_its_rate_and_its_burst_in_any_second() -> None:
    async def run() -> list[float]:
        budget = PriorityBudget(20, at_once=5)
        loop = asyncio.get_running_loop()
        taken: list[float] = []

        async def one(background: bool) -> None:
            await budget.take(background=background)
            taken.append(loop.time())

        await asyncio.gather(*(one(n % 2 == 0) for n in range(65)))
        return taken

    taken = run_in_virtual_time(run())
    first = taken[0]
    assert all(t - first < 0.05 for t in taken[:5])  # the burst at once
    assert taken[-1] - first >= (65 - 5) / 20 - 0.05  # then 20 a second
    assert max(sum(1 for u in taken if t <= u < t + 1.0) for t in taken) <= 20 + 5


def test_a_command_s_request_goes_before_every_background_request_waiting() -> None:
    """A thousand tracker edits wait their turn; a command's post that comes after them is the next to
    leave, and the background ones go on after it, in their order."""

    async def run() -> tuple[list[str], PriorityBudget]:
        budget = PriorityBudget(40, at_once=5)
        order: list[str] = []

        async def drawing(number: int) -> None:
            background_task()
            await budget.take()
            order.append(f"edit {number}")

        async def answer(name: str) -> None:
            await budget.take()
            order.append(name)

        drawings = [asyncio.create_task(drawing(n)) for n in range(100)]
        await asyncio.sleep(0.5)  # 5 at once, then 40 a second: about 25 left, 75 waiting
        assert budget.waiting()[1] > 50
        sent = len(order)
        await asyncio.gather(answer("post"), answer("timeout's post"))
        await asyncio.gather(*drawings)
        return order[sent:], budget

    after, budget = run_in_virtual_time(run())
    assert after[:2] == ["post", "timeout's post"]
    edits = [int(name.split()[1]) for name in after[2:]]
    assert edits == sorted(edits)  # each queue in its order
    assert budget.overtaken == 0
    assert budget.taken == [2, 100]


def test_a_background_request_waits_behind_the_queue_even_with_a_token_in_hand() -> None:
    async def run() -> list[str]:
        budget = PriorityBudget(10, at_once=1)
        order: list[str] = []

        async def take(name: str, background: bool) -> None:
            await budget.take(background=background)
            order.append(name)

        await take("first", True)  # the burst spent
        waiting = asyncio.create_task(take("waiting", True))
        await asyncio.sleep(0)
        await asyncio.sleep(0.15)  # a token came back, but "waiting" is served first by the pump
        await asyncio.gather(waiting, take("late", True))
        return order

    assert run_in_virtual_time(run()) == ["first", "waiting", "late"]


def test_a_taker_cancelled_while_waiting_leaves_the_queue() -> None:
    async def run() -> PriorityBudget:
        budget = PriorityBudget(10, at_once=1)
        await budget.take()
        gone = asyncio.create_task(budget.take(background=True))
        await asyncio.sleep(0)
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        await budget.take(background=True)
        return budget

    budget = run_in_virtual_time(run())
    assert budget.waiting() == (0, 0)
    assert budget.taken == [1, 1]


def test_background_is_the_task_s_and_its_children_s() -> None:
    async def run() -> list[bool]:
        seen = [is_background()]
        with in_background():
            seen.append(is_background())
            seen.append(await asyncio.create_task(asyncio.sleep(0, is_background())))
        seen.append(is_background())

        async def drawing() -> bool:
            background_task()
            return await asyncio.create_task(asyncio.sleep(0, is_background()))

        seen.append(await asyncio.create_task(drawing()))
        seen.append(is_background())
        return seen

    assert run_in_virtual_time(run()) == [False, True, True, False, True, False]


@pytest.mark.parametrize(
    ("url", "exempt"),
    [
        ("https://discord.com/api/v10/channels/5/messages", False),
        ("https://discord.com/api/v10/channels/5/messages/6", False),
        ("https://discord.com/api/v10/interactions/7/tok/callback", True),
        (f"https://discord.com/api/v10/webhooks/{APP}/tok", True),  # a follow-up with the token
        (f"https://discord.com/api/v10/webhooks/{APP}/tok/messages/@original", True),
        ("https://discord.com/api/v10/webhooks/99/tok", False),  # a channel's webhook
        ("http://127.0.0.1:5000/api/v10/channels/5/messages", False),
        ("wss://gateway.discord.gg/?v=10", True),
        ("https://cdn.discordapp.com/avatars/1/a.png", True),
    ],
)
def test_which_requests_count_against_the_global_limit(url: str, exempt: bool) -> None:
    assert exempt_from_global(yarl.URL(url), APP) is exempt


def test_a_follow_up_counts_until_the_application_is_known() -> None:
    assert not exempt_from_global(yarl.URL(f"https://discord.com/api/v10/webhooks/{APP}/tok"), None)


def test_the_processes_sharing_a_token_share_its_budget() -> None:
    assert processes_sharing(1, (0,)) == 1
    assert processes_sharing(4, (0, 1, 2, 3)) == 1
    assert processes_sharing(4, (2, 3)) == 2
    assert processes_sharing(3, (0,)) == 3


async def test_the_bot_s_connector_takes_a_token_for_each_request_under_the_global_limit() -> None:
    """Each request sent through :class:`BudgetedConnector` (on a loopback server standing for Discord)
    takes its token as it leaves, from the queue of its task; the interaction endpoints take none."""

    async def answer(request: web.Request) -> web.Response:
        return web.Response(status=204)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        base = f"{site.name}/api/v10"
        budget = PriorityBudget(1000, at_once=1000)
        client = SimpleNamespace(requests=budget, application_id=APP)
        async with aiohttp.ClientSession(connector=BudgetedConnector(client, limit=0)) as session:
            for path in ("channels/5/messages/6", "interactions/7/tok/callback", f"webhooks/{APP}/tok"):
                async with session.patch(f"{base}/{path}") as response:
                    assert response.status == 204
            with in_background():
                async with session.patch(f"{base}/channels/5/messages/6") as response:
                    assert response.status == 204
            client.requests = None  # no limit: nothing to take
            async with session.patch(f"{base}/channels/5/messages/6") as response:
                assert response.status == 204
    finally:
        await runner.cleanup()
    assert budget.taken == [1, 1]  # the channel's edit in the foreground, then in the background


@pytest.mark.parametrize("bucket", [PriorityBudget, Budget])
def test_takers_waiting_on_uvloop_sleep_until_their_token_without_spinning(
    bucket: type[PriorityBudget] | type[Budget],
) -> None:
    """uvloop's clock and timers count whole milliseconds: a sleep of a fraction of one wakes at once to
    the same time. The takers waiting (and the budget's pump) must sleep until the token is there, not
    look again and again until the clock ticks: a few looks at the bucket per token, however long each
    token takes to come (real time: the machine's load only makes the looks fewer)."""
    looks = 0

    class Counted(bucket):  # type: ignore[misc,valid-type]
        def _refill(self) -> None:
            nonlocal looks
            looks += 1
            super()._refill()

    async def run() -> None:
        budget = Counted(200, at_once=1)
        await asyncio.gather(*(budget.take() for _ in range(31)))

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(run())
    assert looks <= 4 * 31
