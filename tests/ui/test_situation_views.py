"""What /situation says, and how the tracker names where a combatant stands (R25)."""

from __future__ import annotations

from bot.encounter.positions import PositionChange, set_position
from bot.ui.situation_views import position_labels, situation_reply
from tests.ui.attack_views.duels import CATALOG, GM, duel


def test_r25_each_change_is_a_line_with_what_it_cost() -> None:
    encounter = duel()
    done = set_position(
        encounter, CATALOG, GM, "Gamemaster", "Alice", PositionChange(cover=50, shield_wall=True)
    )
    lines = situation_reply(done.result).splitlines()
    assert lines[:3] == [
        "📍 **Alice**'s situation (R25):",
        "- shield wall: no → **yes**",
        "- cover: 0% → **50%**",
    ]
    assert lines[3].startswith("📌 Forming a shield wall takes half of Alice's move (R25)")
    assert position_labels(encounter, encounter.combatant("Alice")) == ["shield wall", "50% cover"]


def test_asking_for_what_already_is_says_nothing_changed() -> None:
    encounter = duel()
    done = set_position(encounter, CATALOG, GM, "Gamemaster", "Alice", PositionChange(cover=0))
    assert situation_reply(done.result) == "📍 **Alice**: those were already so; nothing changed."


def test_an_ally_beside_is_named_as_typed_and_escaped() -> None:
    encounter = duel()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    bandit.name = "*Bandit*"
    alice.position = alice.position.model_copy(update={"beside": bandit.id})
    assert position_labels(encounter, alice) == ["beside \\*Bandit\\*"]
