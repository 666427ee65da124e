"""Putting a fight in a channel's store directly, for tests of commands that run inside one.

The commands that build a fight (/encounter start, /join, /npc add) have tests of their own; tests of
initiative start from a known roster instead of going through them every time.
"""

from __future__ import annotations

from collections.abc import Callable, MutableSequence, Sequence
from typing import Any

from bot.characters import Character
from bot.encounter.document import Encounter
from bot.rules.cards import Card
from bot.rules.dice import ScriptedDice
from bot.store import LogEntry
from tests import sheets

from .fake_discord import FakeChannel, FakeMessage, FakeUser, World
from .harness import InteractionResult, RunningBot


def character(name: str, prowess: int = 2, weapon: str = "arming_sword") -> Character:
    """The test sheet with CHA +0 and 14 HP: Dex +1, Wis +0, proficiency 2."""
    return sheets.character(name, prowess=prowess, weapon=weapon, charisma=0, hp=14)


async def fight_of(pommel: RunningBot, world: World) -> Encounter:
    """The fight saved for #table (the test fails if there is none)."""
    encounter = await pommel.bot.store.load_encounter(world.table.id)
    assert encounter is not None, "no fight in #table"
    return encounter


async def start(pommel: RunningBot, world: World, user: FakeUser | None = None) -> InteractionResult:
    """``user`` (the GM unless given) runs /encounter start in #table."""
    return await pommel.slash("encounter start", user=user or world.gm)


async def join(pommel: RunningBot, world: World, user: FakeUser, name: str) -> Encounter:
    """``user``'s character ``name`` joins #table's fight straight through the store (not /join)."""
    encounter = await fight_of(pommel, world)
    sheet = character(name)
    encounter.join(user.id, sheet, pommel.bot.catalog.armor(sheet.armor))
    return await pommel.bot.store.save_encounter(encounter)


async def channel_log(pommel: RunningBot, world: World) -> list[LogEntry]:
    """#table's log lines (rolls and fight events), oldest first."""
    return await pommel.bot.store.read_log(channel_id=world.table.id)


def stored_tracker(world: World, encounter: Encounter) -> FakeMessage:
    """The message the fight's stored tracker id points to (compare :func:`tracker_message`)."""
    assert encounter.tracker is not None, "the fight has no tracker"
    return world.table.messages[encounter.tracker.message_id]


async def seed_fight(
    pommel: RunningBot,
    world: World,
    *,
    players: Sequence[tuple[FakeUser, str]] = (),
    npcs: Sequence[tuple[str, int, str]] = (),
    channel: FakeChannel | None = None,
) -> Encounter:
    """A fight run by ``world.gm`` with the players' characters (user, name) and NPC groups
    (template, count, group), saved as a fresh fight of the channel."""
    where = channel or world.table
    catalog = pommel.bot.catalog
    encounter = Encounter(channel_id=where.id, guild_id=world.guild.id, gm_id=world.gm.id)
    for user, name in players:
        sheet = character(name)
        encounter.join(user.id, sheet, catalog.armor(sheet.armor))
    for template_key, count, group in npcs:
        template = catalog.monster(template_key)
        armor = catalog.armor(template.armor) if template.armor else None
        encounter.add_npcs(template, armor, count=count, group=group)
    return await pommel.bot.store.save_encounter(encounter)


class StackedDice:
    """A dice source that stacks the deck: each shuffle puts the next scripted cards on top.

    ``stacks[i]`` lists card codes ("BJ", "KS", "7D") in the order the i-th shuffle should deal them;
    the rest of the deck keeps its order below them. Dice rolls are not expected in initiative tests.
    """

    def __init__(self, *stacks: Sequence[str]) -> None:
        self.stacks = [list(stack) for stack in stacks]
        self.shuffles = 0

    def roll(self, sides: int) -> int:
        raise AssertionError(f"an initiative test rolled a d{sides}")

    def shuffle(self, items: MutableSequence[Any]) -> None:
        self.shuffles += 1
        if not self.stacks:
            return
        wanted = [Card.model_validate(code) for code in self.stacks.pop(0)]
        missing = [card.code for card in wanted if card not in items]
        assert not missing, f"stacked cards are not in the pile being shuffled: {missing}"
        rest = [card for card in items if card not in wanted]
        items[:] = rest + list(reversed(wanted))  # the deck draws from the end of the list


def tracker_message(channel: FakeChannel) -> FakeMessage:
    """The channel's live tracker: the newest message of the bot with an embed and the turn buttons
    (a result may offer Next too, without an embed; compare :func:`stored_tracker`)."""
    for message in reversed(channel.history):
        if message.embeds and any(custom_id.startswith("pommel:turn:") for custom_id in message.custom_ids()):
            return message
    raise AssertionError("no tracker message in the channel")


def button_id(message: FakeMessage, action: str) -> str:
    """The custom id of the tracker's ``action`` button (it carries the fight's step)."""
    for custom_id in message.custom_ids():
        if custom_id.startswith(f"pommel:turn:{action}:"):
            return custom_id
    raise AssertionError(f"the tracker has no {action} button: {message.custom_ids()}")


async def gather_four_through_commands(pommel: RunningBot, world: World) -> None:
    """The GM starts a fight; Ansel (player) and Brigit (player2) are created and join; the GM adds
    two Bandits and two goblins as "Wolves" — all through the slash commands, as a table would."""
    started = await pommel.slash("encounter start", user=world.gm)
    assert not started.ephemeral, started.content
    for user, name in ((world.player, "Ansel"), (world.player2, "Brigit")):
        sheet = {
            "name": name,
            "prowess": 2,
            "dexterity": 1,
            "wisdom": 0,
            "charisma": 0,
            "proficiency": 2,
            "hp": 14,
            "weapon": "arming_sword",
        }
        created = await pommel.slash("character create", user=user, options=sheet)
        assert "Saved" in created.content, created.content
        joined = await pommel.slash("join", user=user, options={"character": name})
        assert not joined.ephemeral, joined.content
    for template, group in (("bandit", "Bandits"), ("goblin", "Wolves")):
        options = {"template": template, "count": 2, "group": group}
        added = await pommel.slash("npc add", user=world.gm, options=options)
        assert not added.ephemeral, added.content


ROUND_ONE = ("KS", "7D", "2C")
"""Alice K♠, Bob 7♦, Bandit 2♣: Alice's turn first (R1)."""


async def dealt_fight(
    world: World,
    start_bot: Any,
    faces: Sequence[int] = (),
    *,
    cards: Sequence[str] = ROUND_ONE,
    npcs: Sequence[tuple[str, int, str]] = (("bandit", 1, "Bandit"),),
    edit: Callable[[Encounter], None] | None = None,
) -> RunningBot:
    """A bot whose dice roll ``faces``, and #table's fight with round 1 dealt from ``cards``; ``edit``
    changes the fight before the test starts (gear, policy, turns)."""
    pommel: RunningBot = await start_bot(dice=ScriptedDice(faces))
    encounter = await seed_fight(
        pommel, world, players=[(world.player, "Alice"), (world.player2, "Bob")], npcs=npcs
    )
    encounter.deal(StackedDice(list(cards)))
    if edit is not None:
        edit(encounter)
    await pommel.bot.store.save_encounter(encounter)
    return pommel


async def edit_fight(pommel: RunningBot, world: World, edit: Callable[[Encounter], None]) -> Encounter:
    """Change #table's fight straight in the store (to set up a state the test starts from)."""
    encounter = await fight_of(pommel, world)
    edit(encounter)
    return await pommel.bot.store.save_encounter(encounter)


def exchange_action(custom_id: str) -> str:
    """A button's action as tests name it: an exchange's "passive", "active:2", "desperate"...; an
    attack owed (counterattack or opportunity attack) with n dice is "counter:n"; others whole."""
    if custom_id.startswith("pommel:x:"):  # pommel:x:<fight>:<exchange>:<step>:<action>[:<dice>]
        return ":".join(custom_id.split(":")[5:])
    if custom_id.startswith("pommel:react:"):
        return f"counter:{custom_id.rsplit(':', 1)[1]}"
    return custom_id


def exchange_button(message: FakeMessage | InteractionResult, action: str) -> str:
    """The custom id of the button ``action`` ("passive", "active:2", "counter:1", see
    :func:`exchange_action`)."""
    found = message.message if isinstance(message, InteractionResult) else message
    assert found is not None, "no message"
    for custom_id in found.custom_ids():
        if exchange_action(custom_id) == action:
            return custom_id
    raise AssertionError(f"no {action} button: {found.custom_ids()}")
