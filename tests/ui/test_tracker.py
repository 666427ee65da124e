"""The tracker's line for a combatant: pool, HP and what state it is in (R6, R16, R21, R25)."""

from __future__ import annotations

from bot.encounter.document import Combatant, Side
from bot.rules.morale import MoraleStanding
from bot.rules.pool import MartialPool
from bot.ui.tracker import combatant_line


def bandit(**over: object) -> Combatant:
    fields: dict[str, object] = {
        "id": "c1",
        "name": "Bandit",
        "side": Side.NPC,
        "holder": "g:bandit",
        "prowess": 1,
        "max_hp": 11,
        "hp": 11,
        "weapon": "messer",
        "pool": MartialPool.full(2),
    }
    return Combatant.model_validate(fields | over)


def test_a_steady_fighter_shows_its_pool_and_hp_only() -> None:
    assert combatant_line(bandit()) == "Bandit · ●● · HP 11/11"


def test_down_beats_every_other_state() -> None:
    line = combatant_line(bandit(hp=0, nonlethal=3, standing=MoraleStanding.ROUTED))
    assert line.endswith("HP 0/11 · **down**")


def test_r16_nonlethal_damage_as_high_as_the_hp_left_knocks_out() -> None:
    assert combatant_line(bandit(hp=4, nonlethal=4)).endswith("HP 4/11 · **unconscious**")
    assert combatant_line(bandit(hp=4, nonlethal=3)).endswith("HP 4/11")


def test_r21_routed_and_frightened_show_on_the_tracker() -> None:
    assert combatant_line(bandit(standing=MoraleStanding.ROUTED)).endswith("· **routed**")
    assert combatant_line(bandit(standing=MoraleStanding.FRIGHTENED)).endswith("· **frightened**")
