"""What a fight waits for, as the tracker lists it: whose decision, pinged, with a link to its message."""

from __future__ import annotations

import discord

from bot.encounter.attacks import ExchangeAction
from bot.ui.waiting import WAITING_TITLE, add_waiting, waiting_lines
from tests.ui.attack_views.duels import GM, answered, attacked, duel

LINK = "[its message](https://discord.com/channels/6/5/555)"


def test_a_fight_waiting_for_nothing_adds_no_field() -> None:
    encounter = duel()
    assert waiting_lines(encounter) == []
    assert add_waiting(discord.Embed(), encounter).fields == []


def test_r13_a_defense_asked_pings_whoever_defends_and_links_the_request() -> None:
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    exchange.message_id = 555
    assert waiting_lines(encounter) == [
        f"🛡️ <@{GM.user_id}>: **Bandit**'s defense against **Alice**'s attack — {LINK}"
    ]


def test_a_request_not_posted_yet_says_it_is_being_posted_again() -> None:
    encounter = duel()
    attacked(encounter, [15])
    assert waiting_lines(encounter)[0].endswith("'s attack — its request is being posted again")


def test_r15_choices_still_open_after_a_result_are_in_the_trackers_field() -> None:
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    exchange.message_id = 555
    answered(encounter, exchange, ExchangeAction.ACTIVE, [3, 5], dice=1)
    [field] = add_waiting(discord.Embed(), encounter).fields
    assert field.name == WAITING_TITLE
    assert field.value == (
        f"🎯 <@{GM.user_id}>: choices still open after **Alice**'s attack on **Bandit** (R9, R15) — {LINK}"
    )
