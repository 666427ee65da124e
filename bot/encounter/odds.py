"""The exact odds of an attack (``/odds``), from bare numbers or as the encounter stands.

With numbers (:func:`numbers_odds`) nothing but the rules core is needed. With a target
(:func:`odds_in_encounter`) the encounter supplies every number the attack would use: the attacker's
bonus (R11, by the pair's range, R12, and the Joker, R3), its situations (R25), the target's passive
defense (R13) and, when the target could defend actively, an active defense with all its dice left and
its shield (R14). What defends against the attack is the one rule ``/attack`` follows
(:func:`~bot.encounter.fighters.undefended_because`,
:func:`~bot.encounter.fighters.may_defend_actively`): a helpless or unaware target, or one down, out
cold or incapacitated, is undefended (R13). Nothing is rolled, spent or logged; the document is only read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from ..catalog import Catalog
from ..rules.attack_rolls import AttackKind, attack_bonus, check_attack
from ..rules.defenses import active_defense_bonus, passive_defense
from ..rules.dice import Advantage, Modifier, sum_of
from ..rules.equipment import AttackType
from ..rules.errors import IllegalAction, RulesError, shown
from ..rules.odds import AttackOdds, attack_odds
from ..rules.options import RuleOptions
from ..rules.pool import MAX_POOL
from ..wording.phrases import dice_count
from .attacks import Declaration, plan_attack
from .combatants import Combatant
from .document import Encounter
from .fighters import fighter, may_defend_actively, shield_usable, undefended_because
from .permissions import Actor, acting_combatant
from .records import ReactionKind

NUMBERS_HELP = (
    "Outside a fight, give the defense as numbers: `defense:` for a passive defense (R13), or "
    "`defense_dice:` with `defense_bonus:` for an active one (R14), not both. "
    "In a fight, `target:` fills everything in from the fight."
)
"""How ``/odds`` is asked, said with every refusal of a question it cannot answer."""
SITUATION_GIVEN = "your `situation:`"
FIGHT_ONLY = ("who", "attack_type", "unseen", "merciful")
"""Options that name someone in a fight: they need ``target:``."""
NUMBERS_ONLY = ("bonus", "defense", "defense_dice", "defense_bonus", "missile")
"""Options the fight supplies itself when ``target:`` is given."""


# ----------------------------------------------------------------------------- what the odds are of


@dataclass(frozen=True, slots=True)
class NumbersOdds:
    """``/odds`` with bare numbers: what was asked and the answer."""

    dice: int
    bonus: int
    advantage: Advantage
    missile: bool
    odds: AttackOdds
    passive_defense: int | None = None
    defense_dice: int = 0
    defense_bonus: int = 0
    void: bool = False


@dataclass(frozen=True, slots=True)
class DefenseOdds:
    """One way the target may defend, with its numbers and the odds against it.

    ``dice`` is 0 for a passive defense (``bonus`` then adds up to it, R13), else the pool dice of an
    active one (R14), to which ``shield`` adds a free die. ``undefended`` says why the target cannot
    defend, when it cannot (R13: unaware, helpless, down, unconscious, incapacitated)."""

    odds: AttackOdds
    bonus: tuple[Modifier, ...]
    dice: int = 0
    shield: bool = False
    void: bool = False
    undefended: str | None = None
    cover: int = 0
    """R14: free dice from the target's cover against a missile (one per 25%)."""

    @property
    def active(self) -> bool:
        return self.dice > 0


@dataclass(frozen=True, slots=True)
class EncounterOdds:
    """``/odds target:`` in a fight: the attack as the encounter sees it, and the odds per defense."""

    attacker: str
    target: str
    dice: int
    dice_left: int
    weapon: str
    attack_type: str
    kind: str
    """``attack``, ``counterattack`` or ``opportunity attack`` (R11: the last two use Speed)."""
    range_label: str
    bonus: tuple[Modifier, ...]
    advantage: Advantage
    situations: tuple[str, ...]
    missile: bool
    defenses: tuple[DefenseOdds, ...]
    notes: tuple[str, ...] = ()


# ----------------------------------------------------------------------------- the questions


def require_options_fit(given: Mapping[str, object], *, target: bool) -> None:
    """Refuse options that do not go with the question: with ``target:`` the fight supplies the bonus
    and the defense; without it, nobody in a fight can be named."""
    if target:
        wrong = [f"`{name}:`" for name in NUMBERS_ONLY if given.get(name) is not None]
        if wrong:
            raise RulesError(
                "With `target:` the fight supplies the bonus and the defense; leave out "
                f"{', '.join(wrong)}, or leave out `target:` to work from your own numbers."
            )
        return
    wrong = [f"`{name}:`" for name in FIGHT_ONLY if given.get(name) is not None]
    if wrong:
        raise RulesError(f"{', '.join(wrong)} name someone in a fight; give `target:` too.")


def numbers_odds(
    *,
    dice: int,
    bonus: int,
    defense: int | None,
    defense_dice: int | None,
    defense_bonus: int | None,
    advantage: Advantage,
    void: bool,
    missile: bool,
    options: RuleOptions,
) -> NumbersOdds:
    """``/odds`` with numbers: exactly one of a passive defense and active defense dice (R13, R14)."""
    if (defense is None) == (defense_dice is None):
        given = "both" if defense is not None else "neither"
        raise RulesError(f"You gave {given} of `defense:` and `defense_dice:`. {NUMBERS_HELP}")
    if defense is not None and defense_bonus is not None:
        raise RulesError(f"`defense_bonus:` goes with `defense_dice:` (an active defense). {NUMBERS_HELP}")
    if defense is not None and void:
        raise RulesError("`void:` is a way to defend actively (R14 step 6); give `defense_dice:` with it.")
    odds = attack_odds(
        attack_dice=dice,
        attack_bonus=bonus,
        passive_defense=defense,
        defense_dice=defense_dice or 0,
        defense_bonus=defense_bonus or 0,
        attack_advantage=advantage,
        void=void,
        missile=missile,
        options=options,
    )
    return NumbersOdds(
        dice=dice,
        bonus=bonus,
        advantage=advantage,
        missile=missile,
        odds=odds,
        passive_defense=defense,
        defense_dice=defense_dice or 0,
        defense_bonus=defense_bonus or 0,
        void=void,
    )


def encounter_odds(
    encounter: Encounter,
    catalog: Catalog,
    attacker: Combatant,
    target: Combatant,
    *,
    dice: int | None,
    attack_type: AttackType | None,
    extra: Advantage,
    void: bool,
    unseen: bool = False,
    merciful: bool = False,
) -> EncounterOdds:
    """The odds of ``attacker``'s next attack on ``target`` as the encounter stands (R3, R11-R14, R25).

    The range is the one the attack would happen at (R12: a second attack in a round closes to Melee
    unless every attack of the round used 2+ dice), the attack type /attack would pick, and off its
    turn an attacker owed a counterattack or opportunity attack on the target makes that (Speed, R11).
    The defenses are those /attack would allow (R13, R14): undefended, passive only, or passive and
    active with every die left.
    """
    if attacker.id == target.id:
        raise IllegalAction(f"{shown(attacker.name)} cannot attack themselves; pick another target.")
    attacker.require_able("attack")  # as /attack: a combatant down or knocked out makes no attack
    attacking, defending = fighter(attacker, catalog), fighter(target, catalog)
    weapon = attacking.weapon
    dice = dice or 1
    missile = weapon.is_missile
    on_turn = encounter.initiative.turn_of == attacker.holder
    reaction = encounter.reaction(attacker, target)
    kind = AttackKind(reaction.kind.value) if reaction is not None and not on_turn else AttackKind.NORMAL
    if encounter.reaction(attacker, target, ReactionKind.BIND_ATTACK) is not None:
        kind = AttackKind.BIND_ATTACK  # R14: made as such on the attacker's turn too, as /attack does
    # Holy Blessed: whether the weapon can harm a spirit is a note below, not a refusal.
    declared = Declaration(
        dice=dice,
        attack_type=attack_type,
        situation=extra,
        holy_blessed=True,
        unseen=unseen,
        merciful=merciful,
    )
    planned = plan_attack(encounter, catalog, attacking, attacker, target, declared, kind)
    attack, situations = planned.attack, planned.situations
    at, chosen = attack.range, attack.attack_type
    check_attack(attacking, defending, attack)
    bonus = tuple(attack_bonus(attacking, defending, attack))
    name, attacker_name = shown(target.name), shown(attacker.name)
    notes: list[str] = list(planned.notes)

    def against(passive: int | None = None, rolled: int = 0, defense_bonus: int = 0) -> AttackOdds:
        return attack_odds(
            attack_dice=dice,
            attack_bonus=sum_of(bonus),
            passive_defense=passive,
            defense_dice=rolled,
            defense_bonus=defense_bonus,
            attack_advantage=situations.advantage,
            void=void and rolled > 0,
            missile=missile,
            automatic=attack.automatic,
            options=encounter.options,
        )

    undefended = undefended_because(target)
    passive = passive_defense(defending, missile=missile, undefended=undefended is not None, at=at)
    defenses = [DefenseOdds(against(passive.total), tuple(passive.bonus), undefended=undefended)]
    left = target.pool.remaining
    if may_defend_actively(target, undefended=undefended is not None):
        # R12: passive only at Grapple; a void defense uses neither weapon nor shield (R14 step 6).
        shield = shield_usable(target, at) and not void
        parts = tuple(active_defense_bonus(defending, missile=missile, at=at, shield=shield, void=void))
        cover = target.position.cover if missile else 0
        odds = against(rolled=left + int(shield) + cover, defense_bonus=sum_of(parts))
        defenses.append(DefenseOdds(odds, parts, dice=left, shield=shield, void=void, cover=cover))
        notes.append(
            f"A counterattack needs dice left after the defense (R14); with all of them in it, {name} "
            "would have none."
        )
    elif undefended is None:
        notes.append(
            f"{name} has no Martial Pool dice left this round, so it can only defend passively (R7)."
        )
    round_now = encounter.initiative.round
    if on_turn and round_now and round_now in (attacker.forfeit_round, attacker.attack_forfeit_round):
        notes.append(
            f"{attacker_name} cannot attack this round: it forfeited its actions (mounting, getting up "
            "armed, a failed quick action) or spent its active action getting up (R25). These are the odds "
            "of an attack it cannot make now."
        )
    if dice > attacker.pool.remaining:
        notes.append(
            f"{attacker_name} has {dice_count(attacker.pool.remaining)} left this round (R7): these are the "
            "odds of an attack it cannot make now."
        )
    if target.spirit and not attacker.spirit:
        notes.append(f"{name} is a spirit: only a Holy Blessed weapon harms it (R27).")
    labels = tuple(planned.labels) + ((SITUATION_GIVEN,) if extra is not Advantage.NONE else ())
    return EncounterOdds(
        attacker=attacker.name,
        target=target.name,
        dice=dice,
        dice_left=attacker.pool.remaining,
        weapon=weapon.name,
        attack_type=chosen.value,
        kind=kind.value,
        range_label=at.label,
        bonus=bonus,
        advantage=situations.advantage,
        situations=labels,
        missile=missile,
        defenses=tuple(defenses),
        notes=tuple(notes),
    )


def odds_in_encounter(
    encounter: Encounter | None,
    catalog: Catalog,
    actor: Actor,
    *,
    target: str,
    attacker: str | None,
    dice: int | None,
    attack_type: AttackType | None,
    extra: Advantage,
    void: bool,
    unseen: bool = False,
    merciful: bool = False,
) -> EncounterOdds:
    """``/odds target:``: the attacker is the one named in ``who:`` (yours, or anyone for the GM), else
    yours (:func:`~bot.encounter.permissions.acting_combatant`)."""
    if encounter is None:
        raise RulesError(f"There is no fight in this channel for `target:` to name. {NUMBERS_HELP}")
    attacking = acting_combatant(encounter, actor, attacker, "ask the odds of an attack")
    return encounter_odds(
        encounter,
        catalog,
        attacking,
        encounter.combatant(target),
        dice=dice,
        attack_type=attack_type,
        extra=extra,
        void=void,
        unseen=unseen,
        merciful=merciful,
    )


# ----------------------------------------------------------------------------- the plan (the chart)

PLAN_DICE = MAX_POOL
"""``/odds`` charts the same attack with 1 to this many dice (4: the most an attack may commit, R9)."""

Asked = TypeVar("Asked")


def odds_plan(ask: Callable[[int], Asked]) -> tuple[tuple[int, Asked], ...]:
    """The same question asked with each number of attack dice from 1 to :data:`PLAN_DICE`, for the chart
    of ``/odds``: where another die stops paying. A number of dice the question refuses (``ask`` raising
    a :class:`RulesError`) is left out."""
    plan = []
    for count in range(1, PLAN_DICE + 1):
        try:
            plan.append((count, ask(count)))
        except RulesError:
            continue
    return tuple(plan)
