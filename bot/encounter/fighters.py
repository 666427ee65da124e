"""A combatant as the rules core sees it: its :class:`~bot.rules.combat.Fighter`, its Joker bonus and
the situations its own state puts on its rolls. Shared by every command that rolls for a combatant."""

from __future__ import annotations

from enum import StrEnum

from ..catalog import Catalog
from ..rules.combat import Fighter
from ..rules.engagement import Range
from ..rules.errors import IllegalAction, shown
from ..rules.initiative import RollKind
from ..rules.morale import MoraleStanding
from ..rules.situations import Situation, morale_situation
from .document import Combatant, Encounter

NO_ARMOR = "none"


def fighter(combatant: Combatant, catalog: Catalog, *, weapon: str | None = None) -> Fighter:
    """The combatant with its catalog gear, and the armor and shield HP the fight has kept (R17).

    ``weapon`` is the one it attacks with when that is not its main weapon (its off-hand weapon, or
    its bare hands: :func:`wielded`); the other hand then holds nothing to add (R26)."""
    armor = catalog.armor(combatant.armor) if combatant.armor and combatant.armor != NO_ARMOR else None
    shield = catalog.shield(combatant.shield) if combatant.shield else None
    main = weapon is None or weapon == combatant.weapon
    return Fighter(
        name=combatant.name,
        prowess=combatant.prowess,
        dex_mod=combatant.dex_mod,
        weapon=catalog.weapon(combatant.weapon if weapon is None else weapon),
        off_hand=catalog.weapon(combatant.off_hand) if combatant.off_hand and main else None,
        armor=armor,
        armor_hp=combatant.armor_hp,
        shield=shield,
        shield_hp=combatant.shield_hp,
        spirit=combatant.spirit,
    )


class Hand(StrEnum):
    """What an attack is made with (R12, R26): the main weapon, the off-hand one, or bare hands (a
    grappled fighter with a long weapon strikes with a small off-hand weapon or unarmed)."""

    MAIN = "main hand"
    OFF = "off hand"
    UNARMED = "unarmed"


UNARMED = "unarmed"
"""The catalog's key of bare-handed attacks."""


def wielded(combatant: Combatant, hand: Hand) -> str:
    """The catalog key of the weapon ``combatant`` attacks with in ``hand``; refused when that hand
    holds nothing."""
    if hand is Hand.UNARMED:
        return UNARMED
    if hand is Hand.OFF:
        if combatant.off_hand is None:
            raise IllegalAction(
                f"{shown(combatant.name)} has no off-hand weapon; attack with the main hand or unarmed "
                "(the GM gives one with /combatant edit off_hand:)."
            )
        return combatant.off_hand
    return combatant.weapon


UNDEFENDED_CONDITIONS = ("helpless", "unaware")
"""R13: conditions that leave a target undefended (defense 2 in melee, 8 against missiles)."""


def undefended_because(target: Combatant, *, declared: bool = False) -> str | None:
    """R13: why ``target`` cannot defend at all, if it cannot: the attacker declared it helpless or
    unaware, or it has the helpless or unaware condition. This is the one rule ``/attack`` and
    ``/odds`` both follow for "what defends against this attack".

    A combatant down or out cold is not undefended: it defends passively, without being asked
    (docs/CHOICES.md); nor does one with no dice left, which cannot defend actively (R7).
    """
    if declared:
        return "helpless"
    return next((c for c in UNDEFENDED_CONDITIONS if target.condition_named(c)), None)


def may_defend_actively(target: Combatant, *, undefended: bool) -> bool:
    """R13, R14: whether ``target`` could answer an attack with an active defense now: it is not
    undefended, not out of the fight, and has Martial Pool dice left."""
    return not undefended and not target.out_of_the_fight and target.pool.remaining > 0


def may_take_attack_owed(combatant: Combatant) -> bool:
    """R12, R14: whether ``combatant`` can make a counterattack or an opportunity attack now: it is in
    the fight and has a Martial Pool die left to make it with (R7). One that cannot is owed nothing,
    so nobody is pinged for an attack that cannot be made."""
    return not combatant.out_of_the_fight and combatant.pool.remaining > 0


def shield_usable(combatant: Combatant, at: Range) -> bool:
    """R12, R14, R17: a shield helps an active defense when it is not broken and the pair is not at
    Grapple (where shields defend passively only)."""
    working = combatant.shield is not None and (combatant.shield_hp is None or combatant.shield_hp > 0)
    return working and at is not Range.GRAPPLE


def joker_bonus(encounter: Encounter, combatant: Combatant, kind: RollKind) -> int:
    """R3: the Joker bonus to a roll of ``kind`` by ``combatant`` now (0 off its Joker turn)."""
    if encounter.initiative.round == 0:
        return 0
    return encounter.initiative.bonus_for(combatant.holder, kind, encounter.options.joker_bonus)


def target_situations(target: Combatant, *, missile: bool) -> list[Situation]:
    """R25 situations the fight knows about the target: prone (a condition) helps in melee and hinders
    missiles."""
    if target.condition_named("prone") is None:
        return []
    return [Situation.PRONE_TARGET_RANGED if missile else Situation.PRONE_TARGET_MELEE]


def own_situations(encounter: Encounter, combatant: Combatant) -> list[Situation]:
    """R25 situations the fight knows about the attacker itself: Frightened (and, by option, Routed);
    a person a possessing spirit was driven out of is Frightened until its CHA is healed to 3 (R27)."""
    standing = MoraleStanding.FRIGHTENED if combatant.driven_out else combatant.standing
    situation = morale_situation(standing, routed_too=encounter.options.routed_attack_disadvantage)
    return [situation] if situation is not None else []
