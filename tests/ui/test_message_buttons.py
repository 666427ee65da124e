"""The messages of a fight over any sequence of attacks, defenses, follow-ups, undos and redos: the
fight knows each message, and after every change (redrawn as :mod:`bot.fight_messages` does) no button
left live on any message is refused as out of date, none the fight accepts is missing from the message
it belongs on, and a message whose moment passed has none.

The channel is simulated: message id -> the custom ids its buttons carry. The cog's part (a reply
posts a message the fight then knows; an undo or a redo posts the defenses asked again and strips the
messages it made untrue) is played as the cogs play it.
"""

from __future__ import annotations

import copy
import re
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.catalog import load_catalog
from bot.encounter import attacks, history, initiative, messages
from bot.encounter.attacks import Declaration, ExchangeAction
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.errors import OtherFight, OutOfDate
from bot.encounter.permissions import Actor
from bot.encounter.records import FightMessage
from bot.encounter.results import ExchangeReport, TurnAction
from bot.rules.dice import RandomDice
from bot.rules.errors import RulesError
from bot.ui.attack_views.custom_ids import EXCHANGE_BUTTON, KNOCKOUT_BUTTON, REACTION_BUTTON
from bot.ui.buttons import TURN_BUTTON
from bot.ui.message_buttons import custom_ids, message_buttons
from bot.ui.morale_views import MORALE_PROPOSAL_BUTTON
from tests.encounter.test_attacks import duel

CATALOG = load_catalog()
GM = Actor(user_id=1)
NOW = datetime(2026, 12, 1, tzinfo=UTC)

Channel = dict[int, list[str]]


def passive_of(encounter: Encounter):  # type: ignore[no-untyped-def]
    def passive(exchange_id: int) -> int:
        report = attacks.waiting_report(encounter, CATALOG, exchange_id)
        return report.passive or 0

    return passive


def drawn_now(encounter: Encounter, message: FightMessage) -> list[str]:
    return custom_ids(message_buttons(encounter, message, passive_of(encounter)))


def redraw(encounter: Encounter, channel: Channel) -> None:
    """What :meth:`bot.fight_messages.FightMessageBoard.redraw` does, on the simulated channel."""
    drawn = {}
    for message in encounter.messages:
        wanted = drawn_now(encounter, message)
        if channel[message.id] != wanted:
            channel[message.id] = wanted
        if wanted != message.drawn:
            drawn[message.id] = wanted
    messages.note_drawn(encounter, drawn)


def post(encounter: Encounter, channel: Channel, exchange_id: int, report_proposals: list[int]) -> None:
    """A reply about an exchange: posted with its buttons, then known to the fight."""
    message_id = max(channel, default=100) + 1
    exchange = encounter.exchange(exchange_id)
    message = FightMessage(
        id=message_id,
        exchange=exchange_id,
        attacker=exchange.attacker,
        defender=exchange.defender,
        proposals=report_proposals,
    )
    if exchange.pending:
        message.drawn = drawn_now(
            encounter.model_copy(
                update={
                    "exchanges": [
                        e.model_copy(update={"message_id": message_id}) if e.id == exchange_id else e
                        for e in encounter.exchanges
                    ]
                }
            ),
            message,
        )
    else:
        message.drawn = drawn_now(encounter, message)
    channel[message_id] = list(message.drawn)
    messages.remember(encounter, message)


def refused_as_stale(encounter: Encounter, custom_id: str, dice: RandomDice) -> bool:
    """Whether a click on ``custom_id`` now is refused because its moment passed (the click is tried
    on a copy of the fight)."""
    fight = copy.deepcopy(encounter)
    try:
        if match := re.fullmatch(EXCHANGE_BUTTON, custom_id):
            attacks.answer(
                fight,
                CATALOG,
                GM,
                fight=match["fight"],
                exchange_id=int(match["exchange"]),
                step=int(match["step"]),
                action=ExchangeAction(match["action"]),
                dice_committed=int(match["dice"] or 0),
                dice=dice,
            )
        elif match := re.fullmatch(KNOCKOUT_BUTTON, custom_id):
            attacks.will_save(
                fight,
                GM,
                fight=match["fight"],
                exchange_id=int(match["exchange"]),
                step=int(match["step"]),
                pool_dice=int(match["dice"]),
                dice=dice,
            )
        elif match := re.fullmatch(REACTION_BUTTON, custom_id):
            attacks.attack(
                fight,
                CATALOG,
                GM,
                who=match["by"],
                target=match["against"],
                declared=Declaration(dice=int(match["dice"])),
                dice=dice,
                now=NOW,
                fight=match["fight"],
            )
        elif match := re.fullmatch(MORALE_PROPOSAL_BUTTON, custom_id):
            return not any(p.id == int(match["proposal"]) for p in fight.morale_proposals)
        elif match := re.fullmatch(TURN_BUTTON, custom_id):
            initiative.press(
                fight, TurnAction(match["action"]), GM, dice, step=int(match["step"]), fight=match["fight"]
            )
        else:
            raise AssertionError(f"a button the test does not know: {custom_id}")
    except (OutOfDate, OtherFight):
        return True
    except RulesError as error:
        return "no longer open" in str(error)
    return False


steps = st.lists(
    st.sampled_from(["alice attacks", "bandit attacks", "click", "click", "deal", "undo", "redo"]),
    min_size=1,
    max_size=10,
)


@settings(max_examples=40, deadline=None)
@given(steps=steps, seed=st.integers(0, 2**32 - 1), picks=st.lists(st.integers(0, 50), min_size=10))
def test_no_live_button_is_stale_and_no_stale_message_keeps_one(
    steps: list[str], seed: int, picks: list[int]
) -> None:
    dice = RandomDice.seeded(seed)
    encounter = duel()
    encounter.table = encounter.table.model_copy(update={"defense_timeout_minutes": 0})
    channel: Channel = {}
    past: list[Encounter] = []
    undone: list[Encounter] = []
    for number, step in enumerate(steps):
        pick = picks[number % len(picks)]
        before = encounter.model_copy(deep=True)
        try:
            if step in ("alice attacks", "bandit attacks"):
                who, target = ("Alice", "Bandit") if step == "alice attacks" else ("Bandit", "Alice")
                done = attacks.attack(
                    encounter,
                    CATALOG,
                    GM,
                    who=who,
                    target=target,
                    declared=Declaration(dice=1),
                    dice=dice,
                    now=NOW,
                )
                post(encounter, channel, done.result.exchange.id, [p.id for p in done.result.proposals])
            elif step == "deal":
                for _ in range(len(encounter.combatants) + 1):  # the round's turns end
                    if encounter.initiative.is_round_over:
                        break
                    encounter.next_turn()
                encounter.deal(dice)  # the next round: the choices of the last one close (R9, R15)
            elif step == "click":
                live = [(m, i) for m, ids in channel.items() for i in ids]
                if not live:
                    continue
                message_id, custom_id = live[pick % len(live)]
                clicked = _click(encounter, custom_id, dice)
                if clicked is not None and re.fullmatch(REACTION_BUTTON, custom_id):  # a reply of its own
                    report = clicked.result
                    post(encounter, channel, report.exchange.id, [p.id for p in report.proposals])
                elif clicked is not None:  # the click's answer redraws its message
                    channel[message_id] = drawn_now(encounter, _known(encounter, message_id))
            elif step == "undo":
                if not past:
                    continue
                earlier = past.pop()
                undone.append(before)
                encounter = _put_back(earlier, before, channel)
                redraw(encounter, channel)
                _check(encounter, channel, dice)
                continue
            elif step == "redo":
                if not undone:
                    continue
                encounter = _put_back(undone.pop(), before, channel)
                past.append(before)
                redraw(encounter, channel)
                _check(encounter, channel, dice)
                continue
        except RulesError:
            encounter = before  # refused: nothing changed
            continue
        past.append(before)
        undone.clear()
        redraw(encounter, channel)
        _check(encounter, channel, dice)


def _known(encounter: Encounter, message_id: int) -> FightMessage:
    for message in encounter.messages:
        if message.id == message_id:
            return message
    return FightMessage(id=message_id, exchange=-1)


def _click(encounter: Encounter, custom_id: str, dice: RandomDice) -> Done[ExchangeReport] | None:
    if match := re.fullmatch(EXCHANGE_BUTTON, custom_id):
        return attacks.answer(
            encounter,
            CATALOG,
            GM,
            fight=match["fight"],
            exchange_id=int(match["exchange"]),
            step=int(match["step"]),
            action=ExchangeAction(match["action"]),
            dice_committed=int(match["dice"] or 0),
            dice=dice,
        )
    if match := re.fullmatch(KNOCKOUT_BUTTON, custom_id):
        return attacks.will_save(
            encounter,
            GM,
            fight=match["fight"],
            exchange_id=int(match["exchange"]),
            step=int(match["step"]),
            pool_dice=int(match["dice"]),
            dice=dice,
        )
    if match := re.fullmatch(REACTION_BUTTON, custom_id):
        return attacks.attack(
            encounter,
            CATALOG,
            GM,
            who=match["by"],
            target=match["against"],
            declared=Declaration(dice=int(match["dice"])),
            dice=dice,
            now=NOW,
            fight=match["fight"],
        )
    if match := re.fullmatch(TURN_BUTTON, custom_id):
        initiative.press(
            encounter, TurnAction(match["action"]), GM, dice, step=int(match["step"]), fight=match["fight"]
        )
        return None  # its answer is a message of its own
    return None  # a proposal: the morale cog's, not played here


def _put_back(earlier: Encounter, current: Encounter, channel: Channel) -> Encounter:
    """An undo or a redo, with what ``on_fight_restored`` does: the messages it made untrue lose their
    buttons, and each defense asked again gets a request of its own."""
    after = history.restored(earlier, current, now=NOW)
    for exchange in history.superseded(current, after):
        assert exchange.message_id is not None
        channel[exchange.message_id] = []
    for exchange in history.asked_again(current, after):
        post(after, channel, exchange.id, [])
    return after


def _check(encounter: Encounter, channel: Channel, dice: RandomDice) -> None:
    known = {message.id for message in encounter.messages}
    for message in encounter.messages:  # and none the fight accepts is missing
        assert channel[message.id] == drawn_now(encounter, message), message
    for message_id, ids in channel.items():
        for custom_id in ids:
            assert message_id in known, f"message {message_id} is forgotten but keeps {custom_id}"
            assert not refused_as_stale(encounter, custom_id, dice), (message_id, custom_id)
    for exchange in encounter.exchanges:
        if exchange.pending:
            assert exchange.message_id is not None
            assert any(
                i.startswith(f"pommel:x:{encounter.tag}:{exchange.id}:") for i in channel[exchange.message_id]
            )


def test_a_message_left_to_the_redraw_is_drawn_as_the_fight_will_know_it() -> None:
    """The redraw after an attack's answer draws the fight as it reads once it knows the answer's message
    (:func:`~bot.encounter.messages.remembered`), without changing the fight it was handed."""
    encounter = duel()
    one, dice = Declaration(dice=1), RandomDice.seeded(7)
    done = attacks.attack(
        encounter, CATALOG, GM, who="Alice", target="Bandit", declared=one, dice=dice, now=NOW
    )
    exchange = done.result.exchange
    assert exchange.pending
    handed = encounter.model_copy(deep=True)
    message = FightMessage(
        id=500, exchange=exchange.id, attacker=exchange.attacker, defender=exchange.defender
    )
    message.drawn = ["a", "b"]
    fight = messages.remembered(encounter, [message])
    assert encounter == handed  # left as it was
    saved = copy.deepcopy(encounter)
    messages.remember(saved, message)
    assert fight == saved
    assert drawn_now(fight, message) == drawn_now(saved, message) != []  # its defense buttons
