"""The tracker's buttons: each carries the fight's step and tag, and is enabled only when the fight
accepts it (R1-R4)."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.encounter.document import Encounter
from bot.encounter.results import TurnAction
from bot.rules.dice import ScriptedDice
from bot.ui.buttons import TURN_BUTTON, tracker_buttons, turn_custom_id, view_of
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()


def fight() -> Encounter:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    encounter.join(7, character("Alice"), None)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=1)
    return encounter


def test_before_the_first_deal_only_deal_round_1_can_be_pressed() -> None:
    buttons = tracker_buttons(fight())
    assert [(b.label, b.disabled) for b in buttons] == [
        ("Next", True),
        ("Hold", True),
        ("Act", True),
        ("Deal round 1", False),
    ]


def test_r1_r4_in_a_turn_next_and_hold_can_be_pressed_and_deal_is_gone() -> None:
    encounter = fight()
    encounter.initiative.deck = deck_dealing("KS", "2C")
    encounter.deal(ScriptedDice([]))
    labels = {b.label: b.disabled for b in tracker_buttons(encounter)}
    assert labels == {"Next": False, "Hold": False, "Act": True}


def test_a_turn_button_carries_its_action_the_step_and_the_fight() -> None:
    encounter = fight()
    [next_button, *_] = tracker_buttons(encounter)
    pressed = TURN_BUTTON.fullmatch(next_button.custom_id or "")
    assert pressed is not None
    assert (pressed["action"], int(pressed["step"]), pressed["fight"]) == (
        "next",
        encounter.flow.step,
        encounter.tag,
    )
    assert turn_custom_id(TurnAction.DEAL, 4, "ab12") == "pommel:turn:deal:4:ab12"


def test_a_view_puts_each_row_on_a_row_of_its_own_and_none_when_nothing_to_click() -> None:
    assert view_of([[], []]) is None
    first, second = tracker_buttons(fight())[:2]
    view = view_of([[first], [second]])
    assert view is not None
    assert [(item.row, getattr(item, "label", None)) for item in view.children] == [(0, "Next"), (1, "Hold")]
