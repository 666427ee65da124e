"""Exact odds of an attack, computed over every face of the dice that count (no sampling).

The decision itself is :func:`bot.rules.judgement.judge`'s (R13, R14, R16, R18; its core
:func:`~bot.rules.judgement.decide`), so the odds can never
disagree with what the bot rolls.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .dice import Advantage
from .judgement import Outcome, decide, passive_ties_declared, ties_are_near_misses
from .options import DEFAULT_OPTIONS, RuleOptions

FACES = range(1, 21)


@lru_cache(maxsize=256)
def counting_die_ways(dice: int, advantage: Advantage = Advantage.NONE) -> tuple[tuple[int, ...], int]:
    """In how many of the equally likely rolls the die that counts shows f (f = 1..20), and of how many.

    ``dice`` d20s are kept high (R9) with R10 applied: advantage is one more die kept high;
    disadvantage is one more die with the highest removed, so the die that counts is the second
    highest of ``dice + 1``. Whole numbers keep the exact odds exact and quick.
    """
    if dice < 1:
        raise ValueError("at least one die")
    rolled = dice + (0 if advantage is Advantage.NONE else 1)

    def at_most(face: int) -> int:
        if advantage is Advantage.DISADVANTAGE:
            return int(face**rolled + rolled * face ** (rolled - 1) * (20 - face))
        return int(face**rolled)

    return tuple(at_most(f) - at_most(f - 1) for f in FACES), 20**rolled


def counting_die_distribution(dice: int, advantage: Advantage = Advantage.NONE) -> tuple[Fraction, ...]:
    """P(the die that counts shows f) for f = 1..20 (see :func:`counting_die_ways`)."""
    ways, rolls = counting_die_ways(dice, advantage)
    return tuple(Fraction(w, rolls) for w in ways)


class AttackOdds(BaseModel):
    """Exact probabilities; ``hit + miss + bind == 1``; critical is part of hit, fumble part of miss."""

    model_config = ConfigDict(frozen=True)

    hit: Fraction
    critical: Fraction
    miss: Fraction
    bind: Fraction
    fumble: Fraction
    counterattack: Fraction
    near_miss: Fraction = Field(default=Fraction(0))
    declarable: Fraction = Field(default=Fraction(0))
    """R13 (``passive_tie: declared``): a tie against the passive defense, a miss that either side with
    dice left may declare a Bind; part of miss."""

    def percent(self, name: str) -> float:
        return float(getattr(self, name)) * 100


FLAGS = ("critical", "fumble", "counterattack", "near_miss", "declarable")
"""The facts of a :class:`~bot.rules.judgement.Judgement` the odds count, each part of an outcome."""


@lru_cache(maxsize=1024)
def attack_odds(
    *,
    attack_dice: int,
    attack_bonus: int,
    passive_defense: int | None = None,
    defense_dice: int = 0,
    defense_bonus: int = 0,
    attack_advantage: Advantage = Advantage.NONE,
    defense_advantage: Advantage = Advantage.NONE,
    void: bool = False,
    missile: bool = False,
    automatic: bool = False,
    options: RuleOptions | None = None,
) -> AttackOdds:
    """The exact odds of hit, critical, bind, fumble and counterattack (R9-R10, R13-R16, R18).

    Give ``passive_defense`` for a passive defender, or ``defense_dice`` (free shield/cover dice
    included) and ``defense_bonus`` for an active one. Answers are cached: a table asks the same
    questions again and again.
    """
    options = options or DEFAULT_OPTIONS
    if (passive_defense is None) == (defense_dice < 1):
        raise ValueError("give either a passive defense or at least one active defense die")
    attack, attack_rolls = counting_die_ways(attack_dice, attack_advantage)
    defense: tuple[tuple[int | None, int, int], ...]
    if passive_defense is not None:
        defense, defense_rolls = ((None, 1, passive_defense),), 1
    else:
        ways, defense_rolls = counting_die_ways(defense_dice, defense_advantage)
        defense = tuple((f, ways[f - 1], f + defense_bonus) for f in FACES)
    # Each decision is one cached Judgement (see judge): tally the ways by decision, row by row, and
    # read each decision's outcome and flags once at the end.
    near_miss_ties = ties_are_near_misses(missile, options)
    declared_ties = passive_ties_declared(options)
    tally: dict[int, list[Any]] = {}
    for a_face in FACES:
        a_ways = attack[a_face - 1]
        if not a_ways:
            continue
        fumble, a_total = a_face == 1, a_face + attack_bonus
        row: dict[int, list[Any]] = {}
        for d_face, d_ways, d_total in defense:
            verdict = decide(
                a_face, fumble, a_total, d_face, d_total, void, near_miss_ties, automatic, declared_ties
            )
            cell = row.get(id(verdict))
            if cell is None:
                row[id(verdict)] = [verdict, d_ways]
            else:
                cell[1] += d_ways
        for key, (verdict, ways) in row.items():
            cell = tally.get(key)
            if cell is None:
                tally[key] = [verdict, a_ways * ways]
            else:
                cell[1] += a_ways * ways
    counts = dict.fromkeys(("hit", "miss", "bind", *FLAGS), 0)
    for verdict, n in tally.values():
        counts[verdict.outcome.value] += n
        for flag in FLAGS:
            if getattr(verdict, flag):
                counts[flag] += n
    totals = {name: Fraction(n, attack_rolls * defense_rolls) for name, n in counts.items()}
    assert totals["hit"] + totals["miss"] + totals["bind"] == 1
    return AttackOdds(**totals)


__all__ = ["AttackOdds", "Outcome", "attack_odds", "counting_die_distribution", "counting_die_ways"]
