"""What an attack's buttons carry, read back by the patterns the cogs route them with."""

from __future__ import annotations

from bot.encounter.attacks import ExchangeAction
from bot.ui.attack_views.custom_ids import (
    EXCHANGE_BUTTON,
    KNOCKOUT_BUTTON,
    exchange_custom_id,
    knockout_custom_id,
)
from tests.ui.attack_views.duels import attacked, duel


def test_an_exchange_button_and_a_will_save_button_read_back_as_they_were_written() -> None:
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    passive = EXCHANGE_BUTTON.fullmatch(exchange_custom_id(exchange, ExchangeAction.PASSIVE))
    assert passive is not None
    assert passive.groupdict() == {
        "fight": encounter.tag,
        "exchange": str(exchange.id),
        "step": str(exchange.step),
        "action": "passive",
        "dice": None,
    }
    save = KNOCKOUT_BUTTON.fullmatch(knockout_custom_id(exchange, 0))
    assert save is not None
    assert (save["fight"], save["exchange"], save["dice"]) == (encounter.tag, str(exchange.id), "0")
