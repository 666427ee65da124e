"""A duel to render: Alice (player 11, arming sword, a buckler) attacks a Bandit (an NPC of the GM, 1),
on Alice's turn, with scripted dice."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.catalog import load_catalog
from bot.encounter.attacks import Declaration, ExchangeAction, answer, attack
from bot.encounter.document import Encounter
from bot.encounter.permissions import Actor
from bot.encounter.records import Exchange
from bot.encounter.results import ExchangeReport
from bot.rules.dice import ScriptedDice
from bot.table_options import DefensePolicy, TableOptions
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
GM = Actor(user_id=1)
ALICE = 11
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def duel(policy: DefensePolicy = DefensePolicy.ASK_GM) -> Encounter:
    encounter = Encounter(
        channel_id=5, guild_id=6, gm_id=GM.user_id, table=TableOptions(defense_policy=policy)
    )
    sheet = character("Alice", shield="buckler")
    encounter.join(ALICE, sheet, CATALOG.armor(sheet.armor))
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor(bandit.armor or "none"), count=1)
    encounter.initiative.deck = deck_dealing("KS", "2C")
    encounter.deal(ScriptedDice([]))
    return encounter


def attacked(encounter: Encounter, faces: list[int], declared: Declaration | None = None) -> ExchangeReport:
    """Alice's ``/attack target:Bandit``, rolled with ``faces``."""
    done = attack(
        encounter,
        CATALOG,
        GM,
        who="Alice",
        target="Bandit",
        declared=declared or Declaration(dice=1),
        dice=ScriptedDice(faces),
        now=NOW,
    )
    return done.result


def answered(
    encounter: Encounter, exchange: Exchange, action: ExchangeAction, faces: list[int], dice: int = 0
) -> ExchangeReport:
    """The Bandit's defense, clicked by the GM."""
    done = answer(
        encounter,
        CATALOG,
        GM,
        fight=encounter.tag,
        exchange_id=exchange.id,
        step=exchange.step,
        action=action,
        dice_committed=dice,
        dice=ScriptedDice(faces),
    )
    return done.result


def hit_on_the_passive_defense(encounter: Encounter) -> tuple[Exchange, ExchangeReport]:
    """Alice's 15 (20 in all) against the Bandit's passive 10, and the arming sword's 6 (3 after DR)."""
    exchange = attacked(encounter, [15]).exchange
    return exchange, answered(encounter, exchange, ExchangeAction.PASSIVE, [6])


def weapon(exchange: Exchange) -> str:
    return CATALOG.weapon(exchange.weapon).name
