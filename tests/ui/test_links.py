"""Jump links to a fight's messages: the tracker for the turns, an attack's message for its exchange."""

from __future__ import annotations

from bot.encounter.document import TrackerMessage
from bot.ui.links import jump_url, linked, shown_at
from tests.ui.attack_views.duels import attacked, duel


def test_a_message_in_a_server_or_a_direct_message() -> None:
    assert jump_url(6, 5, 7) == "https://discord.com/channels/6/5/7"
    assert jump_url(None, 5, 7) == "https://discord.com/channels/@me/5/7"


def test_the_tracker_and_an_exchange_are_linked_once_their_messages_are_known() -> None:
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    assert shown_at(encounter) is None
    assert shown_at(encounter, exchange) is None
    encounter.tracker = TrackerMessage(channel_id=5, message_id=70)
    exchange.message_id = 71
    assert shown_at(encounter) == "https://discord.com/channels/6/5/70"
    assert shown_at(encounter, exchange) == "https://discord.com/channels/6/5/71"
    assert linked("the tracker", shown_at(encounter)) == "[the tracker](https://discord.com/channels/6/5/70)"
    assert linked("the tracker", None) == "the tracker"
