"""R26: what two hands can hold, the one check behind both /character and /combatant edit."""

from __future__ import annotations

import pytest

from bot.rules.equipment import Shield, Weapon
from bot.rules.errors import IllegalAction
from bot.rules.hands import check_hands
from tests.rules.conftest import bow, dagger, shield, sword


@pytest.mark.parametrize(
    ("off_hand", "carried"),
    [
        (None, None),
        (None, shield()),
        (dagger(), None),
    ],
    ids=["weapon alone", "weapon and shield", "martial and simple pair"],
)
def test_gear_that_fits_in_two_hands_is_allowed(off_hand: Weapon | None, carried: Shield | None) -> None:
    check_hands(sword(), shield=carried, off_hand=off_hand)


def test_a_two_handed_weapon_alone_is_allowed() -> None:
    check_hands(sword(two_handed=True))


def test_a_two_handed_weapon_leaves_no_hand_for_a_shield() -> None:
    with pytest.raises(
        IllegalAction, match="Greatsword needs both hands, so it cannot be used with a shield"
    ):
        check_hands(sword(name="Greatsword", two_handed=True), shield=shield())


def test_a_two_handed_weapon_leaves_no_hand_for_a_second_weapon() -> None:
    """The greatsword a GM gave to a combatant holding an off-hand dagger (review of issue 4)."""
    with pytest.raises(IllegalAction, match="Greatsword cannot be used for two-weapon fighting"):
        check_hands(sword(name="Greatsword", two_handed=True), off_hand=dagger())


def test_the_off_hand_holds_a_shield_or_a_weapon_not_both() -> None:
    with pytest.raises(IllegalAction, match="a shield or a second weapon, not both"):
        check_hands(sword(), shield=shield(), off_hand=dagger())


def test_only_one_of_two_weapons_may_be_martial() -> None:
    with pytest.raises(IllegalAction, match="Only one of the two weapons may be a martial weapon"):
        check_hands(sword(), off_hand=dagger(martial=True))


@pytest.mark.parametrize(
    "off_hand",
    [dagger(two_handed=True), dagger(spear_or_lance=True), bow(martial=False)],
    ids=["two-handed", "spear", "missile"],
)
def test_an_off_hand_weapon_unfit_for_a_pair_is_refused(off_hand: Weapon) -> None:
    with pytest.raises(IllegalAction, match="cannot be used for two-weapon fighting"):
        check_hands(sword(), off_hand=off_hand)
