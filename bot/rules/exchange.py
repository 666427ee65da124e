"""An exchange resolved: the attack roll against the defense, judged, then its damage; and the
desperation defense after a hit (R9-R18).

An exchange happens in steps, as at the table: :func:`~bot.rules.attack_rolls.roll_attack` rolls the
attacker's dice, the defender picks a defense (:func:`~bot.rules.defenses.passive_defense` or
:func:`~bot.rules.defenses.roll_active_defense`), and :func:`resolve_exchange` judges it and rolls
damage. :func:`resolve_attack` does all three at once.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from .attack_rolls import Attack, AttackRoll, roll_attack
from .damage import DamageRoll, ShieldDamage, WeaponDamage, roll_damage
from .defenses import Defense, passive_defense, roll_active_defense
from .dice import Advantage, DiceSource, PoolRoll
from .errors import IllegalAction
from .feats import MartialFeat
from .fighter import Fighter
from .judgement import DECLARED_BIND, Judgement, Outcome, judge
from .options import DEFAULT_OPTIONS, RuleOptions


class AttackResult(BaseModel):
    """Every fact a message about one attack needs."""

    attacker: str
    defender: str
    attack: AttackRoll
    defense: Defense
    judgement: Judgement
    damage: DamageRoll | None = None
    shield_damage: ShieldDamage | None = None
    weapon_damage: WeaponDamage | None = None
    attacker_bind_choice: int | None = None
    """R9: the index of another attacker die that would make a Bind, when one exists."""
    defender_bind_choice: int | None = None
    desperation: Defense | None = None
    """R15: the second active-defense roll, when one was made."""

    @property
    def outcome(self) -> Outcome:
        return self.judgement.outcome

    @property
    def hit(self) -> bool:
        return self.judgement.outcome is Outcome.HIT

    @property
    def counterattacker(self) -> str | None:
        """R14: the defender, when the exchange lets it counterattack (if it has dice left)."""
        return self.defender if self.judgement.counterattack else None


def _bind_choice(roll: PoolRoll, other_face: int | None) -> int | None:
    """R9: another available die showing the other side's counting face, if that is not already it."""
    if other_face is None or roll.value == other_face:
        return None
    return roll.index_of_face(other_face)


def judge_exchange(attack: AttackRoll, defense: Defense, options: RuleOptions | None = None) -> Judgement:
    """R13/R14 for rolled dice."""
    return judge(
        attack_face=attack.roll.value,
        attack_fumble=attack.roll.fumble,
        attack_total=attack.total,
        defense_face=defense.roll.value if defense.roll is not None else None,
        defense_total=defense.total,
        void=defense.void,
        missile=attack.missile,
        automatic=attack.attack.automatic,
        options=options,
    )


def resolve_exchange(
    attacker: Fighter,
    defender: Fighter,
    attack: AttackRoll,
    defense: Defense,
    dice: DiceSource,
    options: RuleOptions | None = None,
    *,
    bind_declared: bool = False,
) -> AttackResult:
    """R13-R18: judge the exchange, then roll damage on a hit and shield damage on a shield Bind.

    ``bind_declared``: a side declared a Bind on a passive tie (R13, ``passive_tie: declared``). With
    ``weapon_damage_in_binds``, a Bind not taken on the shield may have damaged the defender's weapon
    (R17; how much is the GM's), unless the defender holds Fuhlen."""
    options = options or DEFAULT_OPTIONS
    judgement = judge_exchange(attack, defense, options)
    if bind_declared:
        if not judgement.declarable:
            raise IllegalAction("Only a tie against a passive defense can be declared a Bind (R13).")
        judgement = DECLARED_BIND
    result = AttackResult(
        attacker=attacker.name, defender=defender.name, attack=attack, defense=defense, judgement=judgement
    )
    if judgement.outcome is Outcome.HIT:
        result.damage = roll_damage(
            attacker, defender, attack.attack, dice, critical=judgement.critical, options=options
        )
    elif judgement.outcome is Outcome.BIND and defense.shield and defender.shield is not None:
        faces, rolled = attacker.weapon.damage.roll(dice)
        rolled += attack.attack.joker_bonus
        toughness = defender.shield.toughness
        result.shield_damage = ShieldDamage(
            shield=defender.shield.name,
            faces=faces,
            rolled=rolled,
            toughness=toughness,
            damage=max(0, rolled - toughness),
        )
    elif judgement.outcome is Outcome.BIND and options.weapon_damage_in_binds:
        fuhlen = MartialFeat.FUHLEN in defender.feats
        result.weapon_damage = WeaponDamage(weapon=defender.weapon.name, fuhlen=fuhlen)
    if judgement.outcome is not Outcome.BIND and defense.roll is not None and not defense.void:
        result.attacker_bind_choice = _bind_choice(attack.roll, defense.roll.value)
        result.defender_bind_choice = _bind_choice(defense.roll, attack.roll.value)
    return result


def resolve_attack(
    attacker: Fighter,
    defender: Fighter,
    attack: Attack,
    dice: DiceSource,
    *,
    defense: Literal["passive", "active", "undefended"] = "passive",
    defense_dice: int = 0,
    shield: bool = False,
    void: bool = False,
    cover_quarters: int = 0,
    defense_advantage: Advantage = Advantage.NONE,
    options: RuleOptions | None = None,
) -> AttackResult:
    """R9-R18 in one call: roll the attack, the defense, judge, and roll damage."""
    rolled = roll_attack(attacker, defender, attack, dice)
    if defense == "active":
        chosen = roll_active_defense(
            defender,
            rolled,
            dice,
            committed=defense_dice,
            shield=shield,
            void=void,
            cover_quarters=cover_quarters,
            advantage=defense_advantage,
        )
    else:
        chosen = passive_defense(
            defender, missile=rolled.missile, undefended=defense == "undefended", at=attack.range
        )
    return resolve_exchange(attacker, defender, rolled, chosen, dice, options)


_DEFENDER_RANK = {Outcome.HIT: 0, Outcome.BIND: 2, Outcome.MISS: 3}


def _defender_rank(judgement: Judgement) -> tuple[int, int]:
    return (_DEFENDER_RANK[judgement.outcome] - int(judgement.critical), int(judgement.counterattack))


class Desperation(BaseModel):
    """R15: the second defense, which one stood, and its price."""

    result: AttackResult
    improved: bool
    swap_initiative: bool
    """The defender had the initiative: the two swap initiative next round."""
    pool_penalty: int
    """The defender did not: it loses this many dice next round (R6)."""


def desperation_defense(
    first: AttackResult,
    attacker: Fighter,
    defender: Fighter,
    dice: DiceSource,
    *,
    dice_left: int,
    defender_has_initiative: bool,
    cover_quarters: int = 0,
    options: RuleOptions | None = None,
) -> Desperation:
    """R15: a defender hit while defending actively may spend all remaining dice on a second active
    defense; the better defense stands (the one whose outcome is better for the defender). Spend the
    pool (Spend.DESPERATION_DEFENSE) before calling this."""
    if not first.defense.active:
        raise IllegalAction("A desperation defense follows an active defense only.")
    if not first.hit:
        raise IllegalAction("A desperation defense is for an attack that hit; this one did not.")
    if first.desperation is not None:
        raise IllegalAction("This attack already met a desperation defense.")
    if dice_left < 1:
        raise IllegalAction("A desperation defense needs at least one die left in your Martial Pool.")
    shield = first.defense.shield and defender.shield_intact
    second = roll_active_defense(
        defender,
        first.attack,
        dice,
        committed=dice_left,
        shield=shield,
        void=first.defense.void,
        cover_quarters=cover_quarters,
    )
    improved = _defender_rank(judge_exchange(first.attack, second, options)) > _defender_rank(first.judgement)
    stood = (
        resolve_exchange(attacker, defender, first.attack, second, dice, options)
        if improved
        else first.model_copy()
    )
    stood.desperation = second
    return Desperation(
        result=stood,
        improved=improved,
        swap_initiative=defender_has_initiative,
        pool_penalty=0 if defender_has_initiative else 1,
    )
