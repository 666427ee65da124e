"""What may follow an exchange, its buttons, and the notice that tells the others a click needs them
(R12, R13, R14, R15)."""

from __future__ import annotations

from datetime import timedelta

from bot.encounter.attacks import ExchangeAction
from bot.encounter.records import Reaction, ReactionKind
from bot.ui.attack_views.custom_ids import EXCHANGE_BUTTON, REACTION_BUTTON
from bot.ui.attack_views.follow_ups import (
    answered_notice,
    follow_up_buttons,
    follow_up_lines,
    reaction_buttons,
)
from tests.ui.attack_views.duels import ALICE, GM, NOW, answered, attacked, duel, hit_on_the_passive_defense


def test_r15_a_hit_through_an_active_defense_offers_a_desperation_defense_with_the_dice_left() -> None:
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    answered(encounter, exchange, ExchangeAction.ACTIVE, [3, 5], dice=1)
    assert follow_up_lines(encounter, exchange) == [
        "😱 Bandit may make a **desperation defense** with the last die left (R15)."
    ]
    [[button]] = follow_up_buttons(encounter, exchange)
    assert button.label == "Desperation defense (1 die)"
    pressed = EXCHANGE_BUTTON.fullmatch(button.custom_id or "")
    assert pressed is not None
    assert pressed["action"] == ExchangeAction.DESPERATE.value


def test_nothing_follows_a_hit_on_the_passive_defense() -> None:
    encounter = duel()
    exchange, _ = hit_on_the_passive_defense(encounter)
    assert follow_up_lines(encounter, exchange) == []
    assert follow_up_buttons(encounter, exchange) == []


def test_r14_a_counterattack_is_offered_with_each_number_of_the_strikers_dice() -> None:
    encounter = duel()
    owed = Reaction(kind=ReactionKind.COUNTERATTACK, by="c2", against="c1", round=1, reason="a tie")
    buttons = reaction_buttons(encounter, owed)
    assert [button.label for button in buttons] == ["Counterattack 1 die", "Counterattack 2 dice"]
    pressed = REACTION_BUTTON.fullmatch(buttons[1].custom_id or "")
    assert pressed is not None
    assert (pressed["fight"], pressed["by"], pressed["against"], pressed["dice"]) == (
        encounter.tag,
        "c2",
        "c1",
        "2",
    )


def test_r13_a_late_answer_tells_the_attackers_player_and_pings_only_them() -> None:
    encounter = duel()
    exchange, report = hit_on_the_passive_defense(encounter)
    late = answered_notice(encounter, exchange, report, actor_id=GM.user_id, now=NOW + timedelta(hours=5))
    assert late is not None
    assert late.lines == [
        f"📬 <@{ALICE}>: **Bandit** answered **Alice**'s attack: a hit (see the result above)."
    ]
    assert late.ping == [ALICE]
    in_time = answered_notice(
        encounter, exchange, report, actor_id=GM.user_id, now=NOW + timedelta(minutes=1)
    )
    assert in_time is None
