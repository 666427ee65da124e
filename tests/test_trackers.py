"""What the tracker board remembers of the fights it drew, and for how long.

The board waits and measures on the event loop's clock (its spacing, its budget, its retries): the
tests run it on a virtual one (:mod:`tests.virtual_time`), so their seconds are exact however loaded the
machine is, and cost no real time."""

from __future__ import annotations

import asyncio
import gc
import itertools

import aiohttp
import discord
import pytest

from bot import trackers
from bot.drawing_budget import Budget
from bot.encounter.document import Encounter
from bot.recent import Recent
from bot.trackers import TrackerBoard
from tests.virtual_time import run_in_virtual_time


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_recent_forgets_what_was_last_set_longer_ago_than_it_keeps() -> None:
    clock = Clock()
    recent: Recent[str, int] = Recent(10.0, clock)
    recent.set("a", 1)
    clock.now = 6
    recent.set("b", 2)
    assert (recent.get("a"), recent.get("b")) == (1, 2)
    clock.now = 11
    assert recent.get("a") is None  # gone to a reader at once
    assert len(recent) == 2  # and from memory at the next set
    recent.set("c", 3)
    assert len(recent) == 2
    clock.now = 15
    recent.set("b", 4)  # set again: kept from now
    clock.now = 22
    recent.set("d", 5)
    assert (recent.get("b"), recent.get("c"), recent.get("d")) == (4, None, 5)
    assert len(recent) == 2
    recent.pop("b")
    recent.pop("nothing")
    assert (recent.get("b"), len(recent)) == (None, 1)


def test_a_channel_s_drawing_lock_lives_only_while_in_use() -> None:
    async def run() -> None:
        board = TrackerBoard(discord.Client(intents=discord.Intents.none()), lambda: None)  # type: ignore[arg-type, return-value]
        lock = board._lock(1)
        assert board._lock(1) is lock
        async with lock:
            assert board._lock(1) is lock
        del lock
        gc.collect()
        assert len(board._locks) == 0

    run_in_virtual_time(run())


# ---------------------------------------------------------------------------------- coalescing


class Fights:
    """The store as the board reads it: each channel's newest fight saved."""

    def __init__(self) -> None:
        self.saved: dict[int, Encounter] = {}
        self.reads = 0

    def save(self, encounter: Encounter) -> None:
        kept = self.saved.get(encounter.channel_id)
        if kept is None or (kept.started_at, kept.version) <= (encounter.started_at, encounter.version):
            self.saved[encounter.channel_id] = encounter

    async def load_encounter(self, channel_id: int) -> Encounter | None:
        self.reads += 1
        return self.saved.get(channel_id)


class Drawings:
    """A board whose drawing only records what it drew (its version, whether reposted, when)."""

    def __init__(self, *, spacing: float = 0.0, takes: float = 0.01, fails: bool = False) -> None:
        client = discord.Client(intents=discord.Intents.none())
        self.fights = Fights()
        self.board = TrackerBoard(client, lambda: self.fights, spacing=spacing)  # type: ignore[arg-type, return-value]
        self.drawn: list[tuple[int, bool]] = []
        self.started: list[float] = []
        self.takes = takes
        self.fails = fails
        self.board._draw = self.draw  # type: ignore[method-assign]

    async def publish(self, encounter: Encounter, *, repost: bool = False) -> None:
        """As a command does: the fight saved, then its tracker asked for."""
        self.fights.save(encounter)
        await self.board.publish(encounter, repost=repost)

    async def draw(self, encounter: Encounter, *, repost: bool) -> None:
        self.started.append(asyncio.get_running_loop().time())
        await asyncio.sleep(self.takes)
        if self.fails:
            raise ValueError("a bug in drawing")
        self.drawn.append((encounter.version, repost))


FIGHT = Encounter(channel_id=7, guild_id=1, gm_id=1)


def at(version: int) -> Encounter:
    return FIGHT.model_copy(update={"version": version})


async def soon() -> None:
    """Let the tasks started so far run to their first wait."""
    for _ in range(5):
        await asyncio.sleep(0)


def test_states_asked_at_once_on_one_channel_are_drawn_once_as_the_last() -> None:
    async def run() -> Drawings:
        drawings = Drawings()
        await asyncio.gather(*(drawings.publish(at(version)) for version in range(1, 11)))
        return drawings

    assert run_in_virtual_time(run()).drawn == [(10, False)]


def test_a_burst_on_one_channel_costs_the_first_drawing_and_one_of_its_last_state() -> None:
    async def run() -> Drawings:
        drawings = Drawings(spacing=0.2)
        askers = []
        for version in range(1, 11):  # one click after another, 20 ms apart
            askers.append(asyncio.create_task(drawings.publish(at(version))))
            await asyncio.sleep(0.02)
        await asyncio.gather(*askers)
        await drawings.board.idle()
        assert not drawings.board._due  # nothing kept once idle
        assert not drawings.board._drawers
        return drawings

    drawings = run_in_virtual_time(run())
    assert drawings.drawn == [(1, False), (10, False)]
    first, last = drawings.started
    assert last - first >= 0.2 - 0.01  # the second drawing waited out the spacing (loop clock slack)


def test_states_further_apart_than_the_spacing_are_each_drawn_at_once() -> None:
    """A play-by-post table: no burst, no waiting."""

    async def run() -> Drawings:
        drawings = Drawings(spacing=0.05)
        for version in (1, 2, 3):
            await asyncio.wait_for(drawings.publish(at(version)), 0.04)
            await asyncio.sleep(0.06)
        return drawings

    assert run_in_virtual_time(run()).drawn == [(1, False), (2, False), (3, False)]


def test_the_default_spacing_keeps_within_discord_s_limit_on_editing_one_channel() -> None:
    board = TrackerBoard(discord.Client(intents=discord.Intents.none()), lambda: None)  # type: ignore[arg-type, return-value]
    assert board.spacing == trackers.TRACKER_SPACING >= 1.0  # 5 edits in 5 s


def test_the_newest_state_wins_and_a_repost_asked_in_a_burst_is_kept() -> None:
    async def run() -> Drawings:
        drawings = Drawings(spacing=0.01)
        first = asyncio.create_task(drawings.publish(at(1)))
        await soon()  # version 1 is being drawn
        later = [
            asyncio.create_task(drawings.publish(at(5))),
            asyncio.create_task(drawings.publish(at(3), repost=True)),  # late, but it asked a repost
        ]
        await asyncio.gather(first, *later)
        await drawings.board.idle()
        return drawings

    assert run_in_virtual_time(run()).drawn == [(1, False), (5, True)]


def test_with_a_spacing_no_asker_waits_for_its_drawing_and_each_state_is_drawn() -> None:
    """A voice-chat table: a command ends as soon as it has answered; the channel's drawing task draws
    its state at once, and the next one once the spacing is out."""

    async def run() -> tuple[Drawings, list[list[tuple[int, bool]]]]:
        drawings = Drawings(spacing=0.3)
        drawn_when_answered = []
        for version in (1, 2):
            await asyncio.wait_for(drawings.publish(at(version)), 5)
            drawn_when_answered.append(list(drawings.drawn))
            await soon()
        await drawings.board.idle()
        return drawings, drawn_when_answered

    drawings, drawn_when_answered = run_in_virtual_time(run())
    # Each publish returned before its own state was drawn (not even the first drawing's 10 ms waited
    # for): counted in drawings, not in seconds, so a loaded machine cannot make it fail.
    assert (1, False) not in drawn_when_answered[0]
    assert (2, False) not in drawn_when_answered[1]
    assert drawings.drawn == [(1, False), (2, False)]
    first, second = drawings.started
    assert second - first >= 0.3 - 0.01


def test_an_asker_given_up_leaves_its_state_to_be_drawn() -> None:
    async def run() -> Drawings:
        drawings = Drawings(spacing=0.01)
        first = asyncio.create_task(drawings.publish(at(1)))
        await soon()
        second = asyncio.create_task(drawings.publish(at(2)))
        await soon()
        second.cancel()
        await first
        await drawings.board.idle()
        return drawings

    assert run_in_virtual_time(run()).drawn == [(1, False), (2, False)]


def test_a_drawing_that_fails_is_reported_to_its_askers_and_the_board_goes_on() -> None:
    async def run() -> Drawings:
        drawings = Drawings(fails=True)
        with pytest.raises(ValueError, match="a bug in drawing"):
            await drawings.publish(at(1))
        drawings.fails = False
        await drawings.publish(at(2))
        return drawings

    assert run_in_virtual_time(run()).drawn == [(2, False)]


# ---------------------------------------------------------------------------------- the global budget


def test_a_budget_allows_its_rate_and_its_burst_in_any_second() -> None:
    async def run() -> list[float]:
        budget = Budget(20, at_once=5)
        loop = asyncio.get_running_loop()
        taken = []
        for _ in range(45):
            await budget.take()
            taken.append(loop.time())
        return taken

    taken = run_in_virtual_time(run())
    first = taken[0]
    assert all(t - first < 0.05 for t in taken[:5])  # the burst at once
    assert taken[-1] - first >= (45 - 5) / 20 - 0.05  # then 20 a second
    most = max(sum(1 for u in taken if t <= u < t + 1.0) for t in taken)
    assert most <= 20 + 5


def test_a_burst_over_many_channels_is_drawn_within_the_budget_each_channel_once_as_its_last() -> None:
    """A burst over hundreds of channels edited every tracker at once, past Discord's 50 requests a
    second. Now drawings wait their turn over all channels, and a channel asked again meanwhile is still
    drawn once, as its latest state."""

    async def run() -> tuple[list[float], dict[int, list[int]]]:
        drawings = Drawings(spacing=0.0, takes=0.001)
        drawings.board.budget = Budget(20, at_once=5)
        drawn: dict[int, list[int]] = {}

        async def draw(encounter: Encounter, *, repost: bool) -> None:
            drawings.started.append(asyncio.get_running_loop().time())
            drawn.setdefault(encounter.channel_id, []).append(encounter.version)

        drawings.board._draw = draw  # type: ignore[method-assign]
        fights = [Encounter(channel_id=100 + n, guild_id=1, gm_id=1) for n in range(30)]
        askers = [asyncio.create_task(drawings.publish(f.model_copy(update={"version": 1}))) for f in fights]
        await soon()
        askers += [asyncio.create_task(drawings.publish(f.model_copy(update={"version": 2}))) for f in fights]
        await asyncio.gather(*askers)
        await drawings.board.idle()
        return drawings.started, drawn

    started, drawn = run_in_virtual_time(run())
    assert started[-1] - started[0] >= (30 - 5) / 20 - 0.05
    assert max(sum(1 for u in started if t <= u < t + 1.0) for t in started) <= 20 + 5
    assert all(versions[-1] == 2 for versions in drawn.values())
    assert sum(len(v) for v in drawn.values()) < 60  # those still waiting were drawn once, as version 2


def test_at_shutdown_what_is_due_is_drawn_within_the_time_given_and_the_rest_stopped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def run() -> tuple[Drawings, list[Encounter]]:
        drawings = Drawings(spacing=0.01, takes=0.001)
        drawings.board.budget = Budget(20, at_once=5)
        fights = [Encounter(channel_id=100 + n, guild_id=1, gm_id=1) for n in range(30)]
        for fight in fights:
            await drawings.publish(fight)
        await drawings.board.finish(timeout=0.5)
        assert not drawings.board._drawers  # none left running
        return drawings, fights

    with caplog.at_level("WARNING", logger="bot.trackers"):
        drawings, fights = run_in_virtual_time(run())
    assert 5 + 8 <= len(drawings.drawn) < len(fights)  # the burst, then 20 a second for half a second
    [warned] = [r.getMessage() for r in caplog.records if "at shutdown" in r.getMessage()]
    assert warned.startswith(f"{len(fights) - len(drawings.drawn)} trackers were still to be drawn")


def test_channels_waiting_their_turn_cost_neither_a_task_nor_their_fight() -> None:
    """The memory benchmark touched 10,000 fights in 12 s: waiting for the budget, each channel kept a
    drawing task and its whole fight (+112 % RSS). Now a channel waiting its turn is a small record;
    its fight is read back from the store when drawn (but for the first few in line: the next test)."""

    async def run() -> tuple[int, bool, list[tuple[int, bool]]]:
        drawings = Drawings(spacing=0.5, takes=0.001)
        drawings.board.budget = Budget(50, at_once=5)
        for n in range(200):
            await drawings.publish(Encounter(channel_id=100 + n, guild_id=1, gm_id=1, version=3))
        await soon()
        tasks = len(drawings.board._drawers)
        dues, waiting = drawings.board._due, list(drawings.board._waiting)
        assert len(waiting) > trackers.KEPT_WHILE_WAITING
        kept = sum(1 for due in dues.values() if due.encounter is not None)
        light = kept <= trackers.KEPT_WHILE_WAITING and all(
            dues[channel].encounter is None for channel in waiting[trackers.KEPT_WHILE_WAITING :]
        )
        await drawings.board.finish(timeout=0.2)
        return tasks, light, drawings.drawn

    tasks, light, drawn = run_in_virtual_time(run())
    assert tasks <= 5
    assert light
    assert 5 <= len(drawn) < 200
    assert all(version == 3 for version, _ in drawn)  # read back from the store


def test_the_channels_first_in_line_are_drawn_from_the_fight_handed_over() -> None:
    """Reading a fight back costs a parse of its document: the channels whose turn comes within a couple of
    seconds keep the fight their command handed over, and only those further back read it again."""

    async def run() -> tuple[int, list[tuple[int, bool]]]:
        drawings = Drawings(spacing=0.5, takes=0.001)
        drawings.board.budget = Budget(50, at_once=5)
        for n in range(200):
            await drawings.publish(Encounter(channel_id=100 + n, guild_id=1, gm_id=1, version=3))
        await drawings.board.idle()
        return drawings.fights.reads, drawings.drawn

    reads, drawn = run_in_virtual_time(run())
    assert len(drawn) == 200
    assert reads == 200 - 5 - trackers.KEPT_WHILE_WAITING  # the budget's first five, then the first in line


# ---------------------------------------------------------------------------------- Discord's faults


class Refusal:
    """What discord.py reads of Discord's answer to build its HTTPException."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "refused"


class FailingDrawings(Drawings):
    """Drawings Discord fails with ``faults`` first, one a drawing, in order."""

    def __init__(self, faults: list[BaseException]) -> None:
        super().__init__()
        self.faults = faults

    async def draw(self, encounter: Encounter, *, repost: bool) -> None:
        self.started.append(asyncio.get_running_loop().time())
        if self.faults:
            raise self.faults.pop(0)
        self.drawn.append((encounter.version, repost))


def test_a_drawing_that_failed_is_tried_again_each_wait_twice_the_last_as_the_fight_then_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dropped connection, Discord's 503, its 429: each may pass, so the tracker is drawn again, after
    0.1, 0.2 then 0.4 s here; what was saved meanwhile is what the retry draws, once."""
    monkeypatch.setattr(trackers, "RETRY_FIRST", 0.1)
    faults: list[BaseException] = [
        aiohttp.ServerDisconnectedError(),
        discord.DiscordServerError(Refusal(503), "unavailable"),
        discord.HTTPException(Refusal(429), "slow down"),
    ]

    async def run() -> FailingDrawings:
        drawings = FailingDrawings(faults)
        await drawings.publish(at(1))
        await asyncio.sleep(0.05)
        drawings.fights.save(at(2))  # saved during the first wait; asked for after it (spacing 0)
        await drawings.board.idle()
        return drawings

    drawings = run_in_virtual_time(run())
    assert drawings.drawn == [(2, False)]
    waits = [later - earlier for earlier, later in itertools.pairwise(drawings.started)]
    assert len(waits) == 3
    for wait, due in zip(waits, [0.1, 0.2, 0.4], strict=True):
        assert due - 0.01 <= wait < due + 0.3  # exact on the virtual clock
    assert not drawings.board._failures  # drawn: the next failure starts again from the first wait


@pytest.mark.parametrize(
    "refusal",
    [
        discord.Forbidden(Refusal(403), {"message": "Missing Permissions", "code": 50013}),
        discord.NotFound(Refusal(404), {"message": "Unknown Channel", "code": 10003}),
        discord.HTTPException(Refusal(400), {"message": "Invalid Form Body", "code": 50035}),
    ],
    ids=["missing permissions", "unknown channel", "a request refused as invalid"],
)
def test_a_drawing_discord_refuses_for_good_is_not_tried_again(
    monkeypatch: pytest.MonkeyPatch, refusal: discord.HTTPException
) -> None:
    monkeypatch.setattr(trackers, "RETRY_FIRST", 0.05)

    async def run() -> tuple[FailingDrawings, list[int]]:
        drawings = FailingDrawings([refusal])
        told: list[int] = []

        async def cannot_draw(encounter: Encounter, error: BaseException) -> None:
            told.append(encounter.channel_id)

        drawings.board.cannot_draw = cannot_draw  # type: ignore[method-assign]
        await drawings.publish(at(1))
        await drawings.board.idle()
        await asyncio.sleep(0.2)
        return drawings, told

    drawings, told = run_in_virtual_time(run())
    assert len(drawings.started) == 1
    assert drawings.drawn == []
    assert told == ([] if refusal.code == 50035 else [FIGHT.channel_id])


def test_a_fight_that_ends_while_its_tracker_waits_to_be_tried_again_is_not_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(trackers, "RETRY_FIRST", 0.1)

    async def run() -> FailingDrawings:
        drawings = FailingDrawings([aiohttp.ServerDisconnectedError()])
        await drawings.publish(at(1))
        del drawings.fights.saved[FIGHT.channel_id]  # ended meanwhile: its end closes the tracker
        await drawings.board.idle()
        return drawings

    drawings = run_in_virtual_time(run())
    assert len(drawings.started) == 1
    assert drawings.drawn == []
