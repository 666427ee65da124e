"""The request for a defense: read on its own hours later, asking whoever defends, with one button per
choice (R13, R14)."""

from __future__ import annotations

from bot.encounter.attacks import ExchangeAction
from bot.encounter.document import Encounter
from bot.encounter.records import Exchange
from bot.ui.attack_views.custom_ids import EXCHANGE_BUTTON
from bot.ui.attack_views.request import (
    defense_buttons,
    expired_request_content,
    put_back_exchange_content,
    request_content,
)
from tests.ui.attack_views.duels import attacked, duel, weapon


def asked(encounter: Encounter) -> tuple[Exchange, int]:
    """Alice's attack of 20, waiting for the Bandit's defense (a passive one would be 10)."""
    report = attacked(encounter, [15])
    assert report.passive is not None
    return report.exchange, report.passive


def test_the_request_names_both_sides_the_roll_and_asks_the_gm_for_an_npc() -> None:
    encounter = duel()
    exchange, passive = asked(encounter)
    content = request_content(encounter, exchange, weapon(exchange), passive)
    assert content.splitlines() == [
        "⚔️ **Alice** attacks **Bandit** — Sword, Arming, pierce, 1 die at Onset",
        "🎲 Attack: **15** +2 Prowess +3 Reach = **20**",
        "🛡️ <@1> (GM): how does **Bandit** defend? Passive **10**, or active with 1 to 2 of 2 dice left "
        "(R13, R14).",
    ]


def test_r13_the_buttons_offer_passive_then_each_number_of_dice_left() -> None:
    encounter = duel()
    exchange, passive = asked(encounter)
    rows = defense_buttons(encounter, exchange, passive)
    assert [[button.label for button in row] for row in rows] == [
        ["Passive (10)"],
        ["Active 1 die", "Active 2 dice"],
        ["Void 1 die", "Void 2 dice"],
    ]
    pressed = EXCHANGE_BUTTON.fullmatch(rows[1][1].custom_id or "")
    assert pressed is not None
    assert pressed["fight"] == encounter.tag
    assert int(pressed["exchange"]) == exchange.id
    assert int(pressed["step"]) == exchange.step
    assert (pressed["action"], pressed["dice"]) == (ExchangeAction.ACTIVE.value, "2")


def test_a_defender_with_no_dice_left_is_offered_the_passive_defense_alone() -> None:
    encounter = duel()
    bandit = encounter.combatant("Bandit")
    exchange, passive = asked(encounter)
    bandit.pool.remaining = 0
    assert [[b.label for b in row] for row in defense_buttons(encounter, exchange, passive)] == [
        ["Passive (10)"]
    ]


def test_an_expired_request_says_who_decides_now_and_where() -> None:
    encounter = duel()
    exchange, _ = asked(encounter)
    content = expired_request_content(
        encounter, exchange, weapon(exchange), where="[this message](https://discord.com/x)"
    )
    assert content.startswith("⚔️ **Alice** attacks **Bandit**")
    assert content.endswith(
        "⏰ Nobody picked a defense: the GM decides, in [this message](https://discord.com/x)."
    )


def test_an_undone_request_says_what_became_of_the_attack() -> None:
    encounter = duel()
    exchange, _ = asked(encounter)
    name = weapon(exchange)
    undone = put_back_exchange_content(encounter, exchange, name, now=None, asked_again=None)
    assert undone.endswith("↩️ Undone: this attack no longer stands; the fight went back to before it.")
    redone = put_back_exchange_content(encounter, exchange, name, now=exchange, asked_again=None)
    assert redone.endswith("(see `/encounter log`).")
    again = put_back_exchange_content(
        encounter, exchange, name, now=exchange, asked_again="[here](https://x)"
    )
    assert again.endswith("↩️ Put back: the defense is asked again, in [here](https://x).")
