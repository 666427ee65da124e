"""The message about an exchange as it stands: a request pings whoever must defend and carries the
defense buttons; a result pings nobody by itself, and an exchange an undo left waiting after its time
ran out asks the GM."""

from __future__ import annotations

from bot.encounter.attacks import ExchangeAction
from bot.ui.attack_views.request import request_content
from bot.ui.attack_views.result import result_content
from bot.ui.exchange_message import asked_again_content, exchange_message
from tests.ui.attack_views.duels import CATALOG, GM, answered, attacked, duel, weapon


def test_a_request_pings_the_gm_of_an_npc_and_carries_the_defense_buttons() -> None:
    encounter = duel()
    report = attacked(encounter, [15])
    assert report.passive is not None
    content, view, ping = exchange_message(encounter, report, CATALOG, actor_id=11)
    assert content == request_content(encounter, report.exchange, weapon(report.exchange), report.passive)
    assert ping == [GM.user_id]
    assert view is not None
    labels = [getattr(item, "label", None) for item in view.children]
    assert labels[0] is not None
    assert "Passive" in labels[0]


def test_a_result_is_the_result_and_pings_nobody_for_what_they_did() -> None:
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    report = answered(encounter, exchange, ExchangeAction.PASSIVE, [6])
    content, _, ping = exchange_message(encounter, report, CATALOG, actor_id=GM.user_id)
    assert content.startswith(result_content(encounter, report.exchange, weapon(report.exchange), report))
    assert GM.user_id not in ping


def test_asked_again_after_its_time_ran_out_asks_the_gm() -> None:
    encounter = duel()
    assert asked_again_content(encounter, "the request", time_ran_out=False) == "the request"
    again = asked_again_content(encounter, "the request", time_ran_out=True)
    assert again == f"<@{encounter.gm_id}>: its time had run out, so you decide.\nthe request"
