"""Pommel's buttons (:class:`bot.ui.buttons.Button`) are sent as exactly the JSON discord.py's own
:class:`discord.ui.Button` would send, key for key: each alone, whatever it shows, and in every kind of
view Pommel builds (the tracker's in each state of a fight, a defense's, a result's, the morale
proposals', the confirmations and pages), rows and order included."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from functools import partial

import discord
import pytest

from bot.encounter.attacks import ExchangeAction
from bot.encounter.document import Encounter
from bot.encounter.lifecycle import EndAsked
from bot.encounter.records import Exchange, FightMessage, MoraleProposal, Reaction, ReactionKind
from bot.rules.dice import RandomDice
from bot.rules.morale import MoraleTriggerReason
from bot.store import HistoryStep
from bot.ui.attack_views.follow_ups import reaction_buttons
from bot.ui.buttons import Button, view_of
from bot.ui.encounter_views import overview_page
from bot.ui.fight_log import end_confirmation, redo_confirmation, redo_view, undo_confirmation
from bot.ui.message_buttons import custom_ids, message_buttons
from bot.ui.morale_views import proposal_view
from bot.ui.server_views import forget_confirmation
from bot.ui.tracker import tracker_view
from tests.ui.attack_views.duels import CATALOG, answered, attacked, duel

EMOJIS = [None, "⏭️", "🂠", "🃏", "🂡", "🛡️", "↩️", "↪️", "😱", "⛓️", "😵", "🎯", "🏁", "◀️", "▶️", "📜", "🎲"]


def json_of(view: discord.ui.View | None) -> str:
    return json.dumps(view.to_components() if view is not None else [], ensure_ascii=False)


def as_discord_draws_it(view: discord.ui.View) -> discord.ui.View:
    """The same view built of :class:`discord.ui.Button`: the JSON discord.py sent before."""
    twin = discord.ui.View(timeout=None)
    for item in view.children:
        assert isinstance(item, Button)
        twin.add_item(
            discord.ui.Button[discord.ui.View](
                label=item.label,
                emoji=item.emoji,
                style=item.style,
                custom_id=item.custom_id,
                disabled=item.disabled,
                row=item.row,
            )
        )
    return twin


def assert_as_discord_draws_it(view: discord.ui.View | None) -> None:
    assert view is not None
    assert view.children
    assert json_of(view) == json_of(as_discord_draws_it(view))


@pytest.mark.parametrize(
    ("label", "style"),
    list(itertools.product([None, "", "Next", "Active 2 dice"], list(discord.ButtonStyle)[:4])),
)
def test_a_button_alone_is_the_json_discord_py_sends(label: str | None, style: discord.ButtonStyle) -> None:
    for emoji, disabled in itertools.product(EMOJIS, (False, True)):
        ours = Button(label=label, emoji=emoji, style=style, custom_id="pommel:x:1", disabled=disabled)
        theirs = discord.ui.Button[discord.ui.View](
            label=label, emoji=emoji, style=style, custom_id="pommel:x:1", disabled=disabled
        )
        assert json.dumps(ours.to_component_dict()) == json.dumps(theirs.to_component_dict())


def fight_of_bandits(groups: int) -> Encounter:
    encounter = Encounter(channel_id=1, guild_id=2, gm_id=3)
    bandit = CATALOG.monster("bandit")
    for n in range(groups):
        encounter.add_npcs(bandit, None, count=1, name=f"Bandit {n + 1}")
    return encounter


def test_the_tracker_s_buttons_in_every_state_of_a_fight() -> None:
    """Before the deal, in a turn, between turns with a card held, and once the round is over."""
    encounter = fight_of_bandits(8)
    assert_as_discord_draws_it(tracker_view(encounter))
    encounter.deal(RandomDice.seeded(7))
    assert_as_discord_draws_it(tracker_view(encounter))
    encounter.hold()
    assert_as_discord_draws_it(tracker_view(encounter))
    while not encounter.initiative.is_round_over:
        encounter.next_turn()
        assert_as_discord_draws_it(tracker_view(encounter))


def message_view(encounter: Encounter, message: FightMessage, passive: int = 10) -> discord.ui.View | None:
    return view_of(message_buttons(encounter, message, lambda _: passive))


def duel_asking_a_defense() -> tuple[Encounter, Exchange, FightMessage]:
    """A duel whose attack waits for its defense, its request's message known to the fight."""
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    exchange.message_id = 50
    message = FightMessage(
        id=50, exchange=exchange.id, attacker=exchange.attacker, defender=exchange.defender
    )
    encounter.messages.append(message)
    return encounter, exchange, message


def test_a_defense_a_result_and_an_owed_attack_as_their_messages_carry_them() -> None:
    encounter, exchange, message = duel_asking_a_defense()
    assert_as_discord_draws_it(message_view(encounter, message))  # Passive, Active 1-2 dice, Void
    answered(encounter, exchange, ExchangeAction.ACTIVE, [3, 5], dice=1)
    assert_as_discord_draws_it(message_view(encounter, message))  # the desperation defense
    owed = Reaction(kind=ReactionKind.COUNTERATTACK, by="c2", against="c1", round=1, reason="a tie")
    assert_as_discord_draws_it(view_of([reaction_buttons(encounter, owed)]))


def test_the_morale_proposals_and_the_confirmations() -> None:
    proposals = [
        MoraleProposal(id=n, group=f"Bandits {n}", reason=MoraleTriggerReason.LEADER_LOST, detail="", round=2)
        for n in range(1, 4)
    ]
    assert_as_discord_draws_it(proposal_view(proposals, "5f3a9c1e"))
    assert_as_discord_draws_it(forget_confirmation(20)[1])
    asked = EndAsked(fight="5f3a9c1e", version=4, rounds=3, combatants=2)
    assert_as_discord_draws_it(end_confirmation(asked)[1])
    steps = [
        HistoryStep(version=7, user_id=3, at=datetime(2026, 12, 1, tzinfo=UTC), lines=("Alice attacks",))
    ]
    assert_as_discord_draws_it(undo_confirmation(steps, "5f3a9c1e", 7)[1])
    assert_as_discord_draws_it(redo_confirmation(steps, "5f3a9c1e", 2)[1])
    assert_as_discord_draws_it(redo_view("5f3a9c1e", 2))


def test_the_pages_of_a_big_fight_s_overview() -> None:
    encounter = fight_of_bandits(60)
    _, buttons = overview_page(encounter, CATALOG, guild_id=2, gm=True, page=1)
    assert_as_discord_draws_it(buttons)


def passive_of(shown: int, exchange_id: int) -> int:
    return shown


def test_the_passive_defense_shows_in_a_label_only() -> None:
    """:meth:`bot.fight_messages.FightMessageBoard.redraw` compares a message's custom ids without
    reckoning the passive defense: they must not depend on it."""
    encounter, _, message = duel_asking_a_defense()
    ids = [
        custom_ids(message_buttons(encounter, message, partial(passive_of, shown))) for shown in (0, 7, 21)
    ]
    assert ids[0] == ids[1] == ids[2]
    assert ids[0]
