"""A table's campaign through the fake Discord, each message read as its reader would read it: who is
pinged (only whoever must act, never the one who acted), which buttons are live (only those that still
mean something), what the tracker says the fight waits for.

The play-by-post fight runs over days: four players (Alice with a Martial Feat and magic AC), the
Bandits led by their captain, the Goblins, a ghost, a knight on a warhorse; the ``play-by-post`` preset;
attacks answered by buttons hours apart, a defense whose day runs out, morale proposals rolled, an undo
and a redo, a restart with a defense pending, ``/encounter show``, the end and a reopen. The voice fight
is the default table's: a round played from the buttons.

``POMMEL_CAMPAIGN_JOURNAL=path`` writes every message as its readers saw it, for reading the day.
"""

from __future__ import annotations

import os
import random
from collections.abc import MutableSequence, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.encounter.document import Encounter
from bot.rules.cards import Card
from bot.rules.dice import RandomDice

from .fake_discord import FakeDiscord, FakeMessage, FakeUser, World
from .fights import edit_fight, exchange_action, fight_of, join, tracker_message
from .harness import InteractionResult, RunningBot

JOURNAL = os.environ.get("POMMEL_CAMPAIGN_JOURNAL")


class Campaign:
    """Seeded dice whose shuffles put chosen cards on top, so that the test knows whose turn it is while
    the rolls fall as they may (the assertions hold whatever they show)."""

    def __init__(self, seed: int, *stacks: Sequence[str]) -> None:
        self.random = RandomDice(random.Random(seed))
        self.stacks = [list(stack) for stack in stacks]

    def roll(self, sides: int) -> int:
        return self.random.roll(sides)

    def shuffle(self, items: MutableSequence[Any]) -> None:
        self.random.shuffle(items)
        if self.stacks:
            wanted = [Card.model_validate(code) for code in self.stacks.pop(0)]
            rest = [card for card in items if card not in wanted]
            items[:] = rest + list(reversed(wanted))  # the deck draws from the end of the list


class Table:
    """The bot as the table uses it, writing what each step showed to the journal."""

    def __init__(self, pommel: RunningBot, world: World) -> None:
        self.pommel = pommel
        self.world = world
        self.lines: list[str] = []
        self.seen = 0

    async def slash(self, command: str, user: FakeUser, **options: Any) -> InteractionResult:
        done = await self.pommel.slash(command, user=user, options=options)
        self.note(f"/{command} {options} by {user.username}", done)
        return done

    async def click(
        self, message: FakeMessage | InteractionResult, action: str, user: FakeUser
    ) -> InteractionResult:
        found = message.message if isinstance(message, InteractionResult) else message
        assert found is not None
        done = await self.pommel.click(found, button(found, action), user=user)
        self.note(f"{user.username} clicks {action}", done)
        return done

    def note(self, title: str, result: InteractionResult | None = None) -> None:
        self.lines.append(f"\n======== {title}")
        if result is not None and result.message is not None:
            self.lines.append(shown(result.message, "reply"))
        for message in self.world.table.history[self.seen :]:
            if result is None or message is not result.message:
                self.lines.append(shown(message, "posted"))
        self.seen = len(self.world.table.history)
        if JOURNAL:
            with open(JOURNAL, "w", encoding="utf-8") as out:
                out.write("\n".join(self.lines))

    def posted_since(self, count: int) -> list[FakeMessage]:
        return self.world.table.history[count:]


def shown(message: FakeMessage, how: str) -> str:
    private = " (private)" if message.ephemeral else ""
    head = f"--- {how} {message.id}{private} pings {pinged(message)}"
    buttons = [exchange_action(c) for c in message.custom_ids()]
    return "\n".join([head, message.content, message.embed_text, f"buttons: {buttons}"])


def pinged(message: FakeMessage | InteractionResult | None) -> list[int]:
    found = message.message if isinstance(message, InteractionResult) else message
    assert found is not None
    return [user.id for user in found.mentions]


def actions(message: FakeMessage | InteractionResult | None) -> list[str]:
    """The fight's buttons a message carries ("passive", "desperate", "morale:1", "next"...)."""
    found = message.message if isinstance(message, InteractionResult) else message
    assert found is not None
    return [_action(custom_id) for custom_id in found.custom_ids()]


def _action(custom_id: str) -> str:
    parts = custom_id.split(":")
    if parts[1] == "turn":
        return parts[2]  # pommel:turn:<action>:<step>:<fight>
    if parts[1] == "morale":
        return ":".join(["morale", *parts[2:-1]])  # pommel:morale:<id>[:dismiss]:<fight>
    return exchange_action(custom_id)


def button(message: FakeMessage, action: str) -> str:
    found = [custom_id for custom_id in message.custom_ids() if _action(custom_id) == action]
    assert found, f"no {action} button on {message.content[:60]!r}: {actions(message)}"
    return found[0]


def link(world: World, message: FakeMessage) -> str:
    return f"https://discord.com/channels/{world.guild.id}/{world.table.id}/{message.id}"


def live_turn_buttons(world: World) -> set[str]:
    """The steps that the turn buttons of every message in the channel name."""
    return {
        c.split(":")[3] for m in world.table.history for c in m.custom_ids() if c.startswith("pommel:turn:")
    }


SHEETS: dict[str, dict[str, Any]] = {
    "Alice": {"shield": "heater", "magic_ac": 1},
    "Bob": {},
    "Carol": {"weapon": "long_bow"},
    "Dave": {},
}
ROUND_ONE = ["KS", "QH", "JD", "10C", "9S", "8H", "7D", "6C", "5S"]
"""Alice, Bob, Carol, Dave, the Bandits, then the rest (the warhorse, goblins, ghost, knight)."""


async def test_a_play_by_post_fight_over_days(
    world: World, start_bot: Any, fake_discord: FakeDiscord
) -> None:
    carol, dave = fake_discord.create_user("carol"), fake_discord.create_user("dave")
    world.guild.add_member(carol)
    world.guild.add_member(dave)
    gm, alice, bob = world.gm, world.player, world.player2
    players = {"Alice": alice, "Bob": bob, "Carol": carol, "Dave": dave}
    table = Table(await start_bot(dice=Campaign(7, ROUND_ONE)), world)
    # Days of play in seconds, every state drawn at once: #table's buckets (5 message edits per 5 s)
    # would hold the bot back for minutes that days of play never make it wait.
    fake_discord.rate_limits.per_route = False

    # ------------------------------------------------------------------ the table gathers
    await table.slash("encounter start", gm)
    preset = await table.slash("encounter options", gm, preset="play-by-post")
    assert "defense timeout minutes: 10 → **1440**" in preset.content
    assert "remind after hours: 0 → **12**" in preset.content
    for name, user in players.items():
        sheet = {"name": name, "prowess": 2, "dexterity": 1, "wisdom": 0, "charisma": 0}
        sheet |= {"proficiency": 2, "hp": 14, "weapon": "arming_sword", **SHEETS[name]}
        created = await table.slash("character create", user, **sheet)
        assert created.ephemeral, created.content
        assert "Saved" in created.content, created.content
    feat = await table.slash("character feat", alice, name="Alice", feat="missile parrying")
    assert "missile parrying" in feat.content
    for name, user in players.items():
        joined = await table.slash("join", user, character=name)
        assert not joined.ephemeral, joined.content
        assert pinged(joined) == [], joined.content
    for options in (
        {"template": "bandit", "count": 3, "group": "Bandits"},
        {"template": "bandit_captain", "group": "Bandits", "leader": True},
        {"template": "goblin", "count": 2, "group": "Goblins"},
        {"template": "ghost", "name": "Ghost"},
        {"template": "knight", "name": "Knight"},
        {"template": "warhorse", "name": "Warhorse"},
    ):
        added = await table.slash("npc add", gm, **options)
        assert not added.ephemeral, added.content
    mounted = await table.slash("situation mount", gm, who="Knight", horse="Warhorse")
    assert "before the first deal it costs Knight nothing" in mounted.content
    dealt = await table.slash("init deal", gm)
    assert "▶️ **Alice**'s turn" in dealt.content
    assert pinged(dealt) == [alice.id]  # only whoever must act
    fight = await fight_of(table.pommel, world)
    assert fight.combatant("Alice").magic_ac == 1
    assert fight.combatant("Alice").feats

    # ------------------------------------------------------------------ day 1
    asked = await table.slash("attack", alice, target="Bandit 1")
    assert "how does **Bandit 1** defend?" in asked.content
    assert pinged(asked) == [gm.id]  # the GM answers for the NPC; Alice is not pinged by her own attack
    assert "passive" in actions(asked)
    answered = await table.click(asked, "passive", gm)  # five hours later
    assert pinged(answered) == []
    assert actions(asked) == ["next"]  # the defense is given: only the turn's Next is left on it
    over = await table.click(asked, "next", alice)
    assert "▶️ **Bob**'s turn" in over.text
    assert actions(asked) == []
    assert live_turn_buttons(world) == {str((await fight_of(table.pommel, world)).flow.step)}

    asked_bob = await table.slash("attack", bob, target="Goblin 1")
    assert pinged(asked_bob) == [gm.id]
    posted = len(world.table.history)
    await table.click(asked_bob, "active:1", gm)  # the next morning
    assert table.posted_since(posted) == []  # nobody else to tell: the result is the GM's own click's
    fight = await fight_of(table.pommel, world)
    assert "**Now:** Q♥ **Bob**" in tracker_message(world.table).embed_text

    # ------------------------------------------------------------------ day 2
    await table.slash("init next", bob)
    reminders: Any = table.pommel.bot.get_cog("Reminders")
    morning = datetime.now(UTC)
    await reminders.sweep(morning)
    posted = len(world.table.history)
    await reminders.sweep(morning + timedelta(hours=13))
    table.note("day 2: Carol has not played for 13 hours")
    [reminder] = table.posted_since(posted)
    assert pinged(reminder) == [carol.id]  # only whoever must act, with the message to act on
    assert "since your turn (**Carol**, J♦) began" in reminder.content
    assert link(world, tracker_message(world.table)) in reminder.content
    await reminders.sweep(morning + timedelta(hours=30))
    assert len(world.table.history) == posted + 1  # once
    before = await fight_of(table.pommel, world)
    ghost = await table.slash("attack", carol, target="Ghost")
    assert ghost.ephemeral  # refused, saying what would work
    assert "Holy Blessed" in ghost.content
    assert await fight_of(table.pommel, world) == before
    await table.slash("init next", carol)
    await table.slash("init next", dave)

    # ------------------------------------------------------------------ day 3: the Bandits' turn
    tracker = tracker_message(world.table)
    assert "**Now:** 9♠ **Bandits**" in tracker.embed_text
    asked_alice = await table.slash("attack", gm, target="Alice", who="Bandit Captain")
    assert pinged(asked_alice) == [alice.id]
    fight = await fight_of(table.pommel, world)
    [asking] = [e for e in fight.exchanges if e.pending]
    assert asking.deadline is not None
    # a day to answer: the deadline with its date, or "by 14:03" reads as gone the next morning
    assert f"⏰ If nobody picks by <t:{int(asking.deadline.timestamp())}:f>" in asked_alice.content
    assert "(+1 free die with the shield)" in asked_alice.content
    answered = await table.click(asked_alice, "active:1", alice)
    assert pinged(answered) == []

    undo = await table.pommel.slash("encounter undo", user=gm)
    table.note("/encounter undo asks", undo)
    posted = len(world.table.history)
    undone = await table.pommel.click(undo, undo.message.custom_ids()[0], user=gm)  # type: ignore[union-attr]
    table.note("the GM undoes", undone)
    [note, again] = table.posted_since(posted)
    assert note.content.startswith("↩️ Gamemaster undid the last change")
    assert pinged(again) == [alice.id]  # she must answer again; the GM undid it himself
    assert "Put back: the defense is asked again" in asked_alice.content
    assert actions(asked_alice) == []
    redone = await table.pommel.click(undone, undone.message.custom_ids()[0], user=gm)  # type: ignore[union-attr]
    table.note("the GM redoes", redone)
    assert "Redone" in again.content
    assert actions(again) == []
    assert "Redone" in asked_alice.content
    assert "asked again" not in asked_alice.content
    fight = await fight_of(table.pommel, world)
    [exchange] = [e for e in fight.exchanges if e.defender == fight.combatant("Alice").id]
    assert exchange.result is not None
    assert not exchange.pending

    asked_carol = await table.slash("attack", gm, target="Carol", who="Bandit 1")
    assert pinged(asked_carol) == [carol.id]
    fight = await fight_of(table.pommel, world)
    [waiting] = [e for e in fight.exchanges if e.pending]

    def a_day_passed(encounter: Encounter) -> None:
        for exchange in encounter.exchanges:
            if exchange.id == waiting.id and exchange.deadline is not None:
                exchange.deadline -= timedelta(days=1, minutes=1)

    await edit_fight(table.pommel, world, a_day_passed)
    posted = len(world.table.history)
    combat: Any = table.pommel.bot.get_cog("Attack")
    await combat.run_timeout(world.table.id, waiting.id)  # what the timer does when the day is over
    table.note("day 4: Carol's day to defend is over")
    [decide] = [m for m in table.posted_since(posted) if m.content.startswith("⏰")]
    assert pinged(decide) == [gm.id]
    assert "passive" in actions(decide)
    assert "the GM decides, in [this message]" in asked_carol.content
    assert actions(asked_carol) == []
    tracker = tracker_message(world.table)
    assert link(world, decide) in tracker.embed_text  # the tracker says what the fight waits for

    asked_dave = await table.slash("attack", gm, target="Dave", who="Bandit 2")
    assert pinged(asked_dave) == [dave.id]

    # ------------------------------------------------------------------ the bot restarts
    await table.pommel.close()
    table.pommel = await start_bot(dice=Campaign(8))
    table.note("the bot restarted")
    fight = await fight_of(table.pommel, world)
    [waiting] = [e for e in fight.exchanges if e.pending and e.defender == fight.combatant("Dave").id]
    restarted: Any = table.pommel.bot.get_cog("Attack")
    assert (world.table.id, waiting.id) in restarted.timers  # Dave's day to answer still runs
    assert asked_dave.message is not None
    dave_answers = await table.click(world.table.messages[asked_dave.message.id], "passive", dave)
    assert not dave_answers.ephemeral
    assert "Passive defense" in dave_answers.content
    assert actions(asked_dave) == []

    # ------------------------------------------------------------------ day 4: the captain falls
    killed = await table.slash("combatant hp", gm, who="Bandit Captain", change="-40")
    assert "the leader, is down" in killed.content
    assert actions(killed) == ["morale:2"]
    assert pinged(killed) == []
    proposals = await table.slash("morale proposals", gm)
    assert actions(proposals) == ["morale:1", "morale:1:dismiss", "morale:2", "morale:2:dismiss"]
    rolled = await table.click(proposals, "morale:2", gm)
    assert not rolled.ephemeral
    assert "Morale check" in rolled.text
    assert actions(killed) == []
    assert actions(proposals) == ["morale:1", "morale:1:dismiss"]
    assert actions(asked_bob) == ["morale:1"]

    shown_gm = await table.slash("encounter show", gm)
    assert shown_gm.ephemeral
    assert shown_gm.message is not None
    assert link(world, decide) in shown_gm.message.embed_text
    assert "**Carol**'s defense against **Bandit 1**'s attack" in shown_gm.message.embed_text
    shown_alice = await table.slash("encounter show", alice)
    assert shown_alice.ephemeral  # an NPC's numbers are the GM's
    assert "Prowess 1 ·" not in shown_alice.text

    stats = await table.slash("stats dice", alice, of="fight")
    assert "10 d20s from 8 rolls" in stats.content  # 7 attacks and defenses, 3 bandits' morale
    log = await table.slash("encounter log", alice)
    assert log.ephemeral
    assert "Carol did not defend in time; the GM is asked" in log.text

    # ------------------------------------------------------------------ day 5: ended by mistake
    ending = await table.pommel.slash("encounter end", user=gm)
    ended = await table.pommel.click(ending, _end(ending), user=gm)
    table.note("the GM ends the fight", ended)
    assert all(message.custom_ids() == [] for message in world.table.history), "a button outlived the fight"
    reopened = await table.slash("encounter reopen", gm)
    assert not reopened.ephemeral, reopened.content
    assert "passive" in actions(decide)  # the defense the fight waits for can be given again
    assert actions(asked_bob) == ["morale:1"]
    decided = await table.click(decide, "passive", gm)
    assert not decided.ephemeral, decided.content
    fight = await fight_of(table.pommel, world)
    assert not any(exchange.pending for exchange in fight.exchanges)
    assert live_turn_buttons(world) == {str(fight.flow.step)}  # the reposted trackers left none behind
    table.note("the end: every message as it reads now")
    for message in world.table.history:
        table.lines.append(shown(message, "now"))
    table.note("")


def _end(asked: InteractionResult) -> str:
    assert asked.message is not None
    [custom_id] = [
        c for c in asked.message.custom_ids() if c.startswith("pommel:end:") and c.endswith(":end")
    ]
    return custom_id


async def test_a_voice_fight_played_from_the_buttons(world: World, start_bot: Any) -> None:
    """The default table (voice): the tracker is edited in place, and the round is played from its
    buttons and the results' own Next."""
    gm, alice, bob = world.gm, world.player, world.player2
    table = Table(await start_bot(dice=Campaign(3, ["KS", "QH", "2C"])), world)
    started = await table.slash("encounter start", gm)
    assert not started.ephemeral
    for user, name in ((alice, "Alice"), (bob, "Bob")):
        await join(table.pommel, world, user, name)
    await table.slash("npc add", gm, template="bandit", name="Bandit")
    tracker = tracker_message(world.table)

    dealt = await table.click(tracker, "deal", gm)
    assert "▶️ **Alice**'s turn" in dealt.text
    assert [pinged(m) for m in dealt.messages if m.mentions] == [[alice.id]]
    assert tracker_message(world.table) is tracker  # edited in place, not posted again

    asked = await table.slash("attack", alice, target="Bandit")
    assert pinged(asked) == [gm.id]
    await table.click(asked, "passive", gm)
    assert actions(asked) == ["next"]
    turned = await table.click(asked, "next", alice)  # Next on her own result: no scrolling up
    assert "▶️ **Bob**'s turn" in turned.text
    assert actions(asked) == []
    assert [pinged(m) for m in turned.messages if m.mentions] == [[bob.id]]

    held = await table.click(tracker, "hold", bob)
    assert "▶️ **Bandit**'s turn" in held.text
    assert alice.id not in [u for m in held.messages for u in pinged(m)]
    assert bob.id not in [u for m in held.messages for u in pinged(m)]  # he held it himself
    acted = await table.click(tracker, "act", bob)
    assert "**Bob** claims the next turn: it starts when **Bandit**'s turn ends" in acted.content
    assert pinged(acted) == []
    claimed = await table.click(tracker, "next", gm)
    assert "▶️ **Bob**'s turn" in claimed.text
    assert [pinged(m) for m in claimed.messages if m.mentions] == [[bob.id]]
    fight = await fight_of(table.pommel, world)
    assert live_turn_buttons(world) == {str(fight.flow.step)}  # no button of an older step is live
    table.note("the voice fight: every message as it reads now")
    for message in world.table.history:
        table.lines.append(shown(message, "now"))
    table.note("")
