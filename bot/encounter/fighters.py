"""A combatant as the rules core sees it: its :class:`~bot.rules.fighter.Fighter`, its Joker bonus and
the situations its own state puts on its rolls. Shared by every command that rolls for a combatant."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..catalog import Catalog
from ..rules.armor_class import Opening
from ..rules.dice import Advantage
from ..rules.engagement import Distance, Range
from ..rules.equipment import Size, Weapon
from ..rules.errors import IllegalAction, shown
from ..rules.fighter import Fighter
from ..rules.initiative import RollKind
from ..rules.morale import MoraleStanding
from ..rules.situations import (
    AttackFacts,
    Numbers,
    Party,
    Situation,
    SituationResult,
    situational_advantage,
    situations_of,
)
from .combatants import Combatant
from .document import Encounter

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
        feats=frozenset(combatant.feats),
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
    unaware, it has the helpless or unaware condition, or it is helpless by its state (down, out cold,
    unconscious or incapacitated: :func:`is_helpless`). This is the one rule ``/attack`` and ``/odds``
    both follow for "what defends against this attack".

    The Codex: "Undefended targets have a Passive Defense value of 2 vs melee weapons (roll dice for
    Critical) and are considered to have a Passive Defense value of 8 against missile weapons". So an
    unconscious target shot at meets 8, not its full passive defense, and an incapacitated one is not
    asked for an active defense. One with no dice left is not undefended: it defends passively (R7).
    """
    if declared:
        return "helpless"
    named = next((c for c in UNDEFENDED_CONDITIONS if target.condition_named(c)), None)
    if named is None and is_helpless(target):
        return helpless_word(target)
    return named


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


def require_actions_left(encounter: Encounter, combatant: Combatant, doing: str) -> None:
    """R25: refuse ``doing`` on its turn to a combatant that forfeited this round's actions (mounting,
    or a failed quick mount or dismount)."""
    if encounter.initiative.round and combatant.forfeit_round == encounter.initiative.round:
        raise IllegalAction(
            f"{shown(combatant.name)} forfeited this round's actions (mounting, or a failed quick mount or "
            f"dismount, R25): it cannot {doing} until the next round."
        )


def joker_bonus(encounter: Encounter, combatant: Combatant, kind: RollKind) -> int:
    """R3: the Joker bonus to a roll of ``kind`` by ``combatant`` now (0 off its Joker turn)."""
    if encounter.initiative.round == 0:
        return 0
    return encounter.initiative.bonus_for(combatant.holder, kind, encounter.options.joker_bonus)


HELPLESS_CONDITIONS = ("unconscious", "incapacitated")
"""R25: conditions that leave a target hit automatically in melee (besides being down or out cold)."""


def is_helpless(combatant: Combatant) -> bool:
    """R25: unconscious or incapacitated: down, out cold (nonlethal damage), or with one of
    :data:`HELPLESS_CONDITIONS`."""
    if combatant.out_of_the_fight:
        return True
    return bool(combatant.conditions) and any(
        combatant.condition_named(c) is not None for c in HELPLESS_CONDITIONS
    )


def helpless_word(combatant: Combatant) -> str:
    """How a helpless combatant is named (R25): "down", "unconscious", or its condition."""
    if combatant.state_label in ("down", "unconscious"):
        return combatant.state_label
    return next((c for c in HELPLESS_CONDITIONS if combatant.condition_named(c)), "helpless")


def mount_of(encounter: Encounter, rider: Combatant) -> Combatant | None:
    """The combatant ``rider`` rides, if it rides one still in the fight."""
    wanted = rider.position.mount
    return next((c for c in encounter.combatants if c.id == wanted), None) if wanted else None


def ally_beside(encounter: Encounter, combatant: Combatant) -> Combatant | None:
    """The ally ``combatant`` stands side by side or back to back with, if still in the fight."""
    wanted = combatant.position.beside
    return next((c for c in encounter.combatants if c.id == wanted), None) if wanted else None


def _party(encounter: Encounter, combatant: Combatant, weapon: Weapon) -> Party:
    """R25: what the situations of the text read of one side of an attack."""
    position = combatant.position
    mount = mount_of(encounter, combatant)
    moving = mount is not None and (combatant.moves > 0 or mount.moves > 0)
    return Party(
        mounted=mount is not None,
        knightly=combatant.knightly_combat,
        moving=moving,
        steed=combatant.steed is not None,
        shield_wall=position.shield_wall,
        scaling=position.scaling,
        unseen=position.unseen,
        prone=combatant.condition_named("prone") is not None,
        helpless=is_helpless(combatant),
        cover=position.cover,
        opening=position.opening,
        long_spear_or_bill=weapon.long_spear_or_bill,
        # R27: a person a possessing spirit was driven out of is Frightened until its CHA is healed to 3.
        standing=MoraleStanding.FRIGHTENED if combatant.driven_out else combatant.standing,
        size=combatant.size,
        constructed=combatant.constructed,
        beside_ally=ally_beside(encounter, combatant) is not None,
    )


def _human_sized(combatant: Combatant) -> bool:
    return combatant.steed is None and combatant.size in (Size.TINY, Size.SMALL, Size.MEDIUM)


@dataclass(frozen=True, slots=True)
class AttackState:
    """R25: an attack as the fight stands: the facts the rules read (:func:`situations_of`) and who
    they are about, so each situation can say where it came from."""

    facts: AttackFacts
    attackers: tuple[Combatant, ...]
    """Everyone who has attacked the target (or the ally beside it) this round, this attacker too."""
    allies_in_melee: tuple[Combatant, ...]
    """The attacker's allies at Melee or Grapple with the target (a missile may hit them)."""
    mount: Combatant | None


def attack_state(
    encounter: Encounter,
    catalog: Catalog,
    attacker: Combatant,
    target: Combatant,
    weapon: Weapon,
    *,
    unseen_declared: bool = False,
) -> AttackState:
    """R25: everything the fight knows that bears on ``attacker``'s attack on ``target`` with
    ``weapon``: both sides' positions, the distance, who attacked whom this round, allies in the
    melee. ``/attack`` and ``/odds`` both read it, so they name the same situations."""
    by_id = {c.id: c for c in encounter.combatants}
    beside = ally_beside(encounter, target)
    pair = {target.id} | ({beside.id} if beside is not None else set())

    def attackers_of(ids: set[str]) -> list[Combatant]:
        found = [by_id[b.by] for b in encounter.blows if b.against in ids and b.by in by_id]
        return list({c.id: c for c in [*found, attacker]}.values())

    on_target = attackers_of({target.id})
    qualified = {
        b.by for b in encounter.blows if b.against == target.id and (b.mounted or b.long_spear_or_bill)
    }
    mount = mount_of(encounter, attacker)
    if mount is not None or weapon.long_spear_or_bill:
        qualified.add(attacker.id)
    on_pair = attackers_of(pair)
    numbers = Numbers(
        attackers=len(on_target),
        human_sized=sum(1 for c in on_target if _human_sized(c)),
        riders_or_spears=len(qualified),
        on_the_pair=len(on_pair),
    )
    allies = tuple(
        c
        for c in encounter.combatants
        if c.side is attacker.side
        and c.id not in (attacker.id, target.id)
        and not c.out_of_the_fight
        and encounter.engagement_now(c, target).range is not Range.ONSET
    )
    target_weapon = catalog.weapon(target.weapon)
    facts = AttackFacts(
        attacker=_party(encounter, attacker, weapon),
        target=_party(encounter, target, target_weapon),
        missile=weapon.is_missile,
        thrown=weapon.kind == "thrown",
        distance=encounter.engagement_now(attacker, target).distance if weapon.is_missile else Distance.NEAR,
        numbers=numbers,
        ally_in_melee=bool(allies),
        struck_my_horse=mount is not None and target.last_target == mount.id,
        unseen_declared=unseen_declared,
        routed_too=encounter.options.routed_attack_disadvantage,
    )
    return AttackState(
        facts=facts, attackers=tuple(on_pair if beside else on_target), allies_in_melee=allies, mount=mount
    )


NAMES_IN_A_SITUATION = 6
"""The most combatants a situation names (the attackers of a target, the allies in its melee); the
rest are counted, so that a crowd never pushes an attack's outcome out of its message."""


def named(combatants: tuple[Combatant, ...]) -> str:
    """``Alice, Bob, Bandit 1``: past :data:`NAMES_IN_A_SITUATION` names, the rest counted (``Alice, Bob,
    Bandit 1, Bandit 2, Bandit 3, Bandit 4 and 18 more``)."""
    listed = ", ".join(shown(c.name) for c in combatants[:NAMES_IN_A_SITUATION])
    rest = len(combatants) - NAMES_IN_A_SITUATION
    return f"{listed} and {rest} more" if rest > 0 else listed


def situation_source(state: AttackState, situation: Situation, attacker: Combatant, target: Combatant) -> str:
    """Where the fight learned a situation, for the attack's message: "Alice is prone"."""
    who, whom = shown(attacker.name), shown(target.name)
    facts = state.facts
    mount = shown(state.mount.name) if state.mount is not None else "a horse"
    names = named(state.attackers)
    allies = named(state.allies_in_melee)
    opening = {Opening.WINDOW: "behind a window", Opening.ARROW_SLIT: "behind an arrow slit"}
    cover = (
        opening[facts.target.opening]
        if facts.target.opening is not None
        else f"{facts.target.cover * 25}% cover"
    )
    sources = {
        Situation.UNTRAINED_MOUNTED_MELEE: f"{who} rides {mount} without Knightly Combat",
        Situation.RANGED_FROM_MOVING_HORSE: f"{who} rides {mount}, which moved this round",
        Situation.FOOTMAN_AGAINST_RIDER: f"{whom} is mounted, {who} on foot",
        Situation.KNIGHT_AGAINST_FOOTMAN: f"{who} rides {mount} with Knightly Combat, {whom} is on foot",
        Situation.KNIGHT_AGAINST_HORSE_ATTACKER: f"{whom}'s last attack was on {mount}",
        Situation.PRONE_TARGET_MELEE: f"{whom}'s condition",
        Situation.PRONE_TARGET_RANGED: f"{whom}'s condition",
        Situation.NUMBERS_AGAINST_LONE_FOOTMAN: f"{names} on {whom} this round",
        Situation.NUMBERS_AGAINST_LARGE_MONSTER: f"{names} on {whom} this round",
        Situation.NUMBERS_AGAINST_TWO_FOOTMEN: f"{names} on {whom} and the ally beside this round",
        Situation.SPEARS_AGAINST_LONE_HORSEMAN: f"{names} on {whom} this round",
        Situation.SHIELD_WALL: f"{whom} stands in a shield wall",
        Situation.ATTACKER_SCALING: f"{who} is scaling",
        Situation.TARGET_SCALING: f"{whom} is scaling",
        Situation.UNSEEN_ATTACKER: f"{who} is unseen" if facts.attacker.unseen else "declared with `unseen:`",
        Situation.RANGED_LONG_RANGE: f"{who} and {whom} are {facts.distance.label} apart",
        Situation.THROWN_LONG_RANGE: f"{who} and {whom} are {facts.distance.label} apart",
        Situation.COVER: f"{whom} is {cover}" if facts.target.opening else f"{whom} has {cover}",
        Situation.SHOOTING_INTO_MELEE: f"{whom} is in melee with {allies}",
        Situation.ATTACKER_FRIGHTENED: f"{who}'s morale, R21",
        Situation.ATTACKER_ROUTED: f"{who}'s morale, R21",
    }
    return sources[situation]


def explained(
    state: AttackState, attacker: Combatant, target: Combatant, extra: Advantage = Advantage.NONE
) -> tuple[SituationResult, list[str]]:
    """R25, R10: the situations of ``state`` with their net effect (``extra``: a bare advantage or
    disadvantage the GM gave), and each named with where the fight learned it."""
    found = situations_of(state.facts)
    labels = [f"{s.label}: {situation_source(state, s, attacker, target)}" for s in found]
    return situational_advantage(found, extra), labels
