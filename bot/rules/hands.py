"""What a fighter's two hands can hold (R26), checked wherever gear is given to a fighter.

A character's sheet and a combatant's gear in a fight obey the same rule, so both call
:func:`check_hands` rather than each re-deriving it.
"""

from __future__ import annotations

from .attack_rolls import check_two_weapons
from .equipment import Shield, Weapon
from .errors import IllegalAction


def check_hands(main: Weapon, *, shield: Shield | None = None, off_hand: Weapon | None = None) -> None:
    """R26: the gear fits in two hands, or :class:`IllegalAction` says what does not.

    A two-handed main weapon leaves no hand for a shield; the off hand holds a shield or a second
    weapon, not both; and a second weapon makes a pair that :func:`check_two_weapons` allows (neither
    two-handed, a spear, a lance or a missile weapon, and at most one of them martial).
    """
    if shield is not None and main.two_handed:
        raise IllegalAction(f"{main.name} needs both hands, so it cannot be used with a shield.")
    if off_hand is not None:
        if shield is not None:
            raise IllegalAction("The off hand can hold a shield or a second weapon, not both.")
        check_two_weapons(main, off_hand)
