"""Who wins an exchange: the R13/R14 decision on bare numbers, with criticals (R16) and fumbles (R18).

:func:`judge` decides; :func:`decide` is its core with the arguments in order, which the exact odds
(:mod:`bot.rules.odds`) ask hundreds of times, so the odds can never disagree with a fight.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache

from pydantic import BaseModel, ConfigDict

from .options import DEFAULT_OPTIONS, MissileTie, PassiveTie, RuleOptions


class Outcome(StrEnum):
    HIT = "hit"
    MISS = "miss"
    BIND = "bind"


class Judgement(BaseModel):
    """The R13/R14 decision: the outcome, and the facts around it."""

    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    critical: bool = False
    fumble: bool = False
    counterattack: bool = False
    near_miss: bool = False
    declarable: bool = False
    """R13 (``passive_tie: declared``): a tie against a passive defense, a miss that either side with
    dice left may declare a Bind."""
    rule: str
    """Which ruling or R14 step decided, e.g. ``R14.3``."""


@cache
def _verdict(
    outcome: Outcome,
    rule: str,
    critical: bool = False,
    fumble: bool = False,
    counterattack: bool = False,
    near_miss: bool = False,
    declarable: bool = False,
) -> Judgement:
    """Judgements are few and frozen: each is built once, and the same one is returned for the same
    decision (the exact odds count them by identity, which keeps them fast). Positional, so the cache
    key is cheap."""
    return Judgement(
        outcome=outcome,
        rule=rule,
        critical=critical,
        fumble=fumble,
        counterattack=counterattack,
        near_miss=near_miss,
        declarable=declarable,
    )


def _hit(rule: str, critical: bool, counterattack: bool = False) -> Judgement:
    return _verdict(Outcome.HIT, rule, critical, False, counterattack)


def _tie(rule: str, near_miss: bool) -> Judgement:
    if near_miss:
        return _verdict(Outcome.MISS, rule, False, False, False, True)
    return _verdict(Outcome.BIND, rule)


def judge(
    *,
    attack_face: int,
    attack_fumble: bool,
    attack_total: int,
    defense_face: int | None,
    defense_total: int,
    void: bool = False,
    missile: bool = False,
    automatic: bool = False,
    options: RuleOptions | None = None,
) -> Judgement:
    """R13, R14, R16, R18 on bare numbers. ``defense_face`` is None for a passive defense.

    A critical needs a natural 20 that counts and a total above the defense's total (R16). An
    ``automatic`` hit (R25: a helpless target in melee) hits whatever the dice show; a natural 20
    above the defense is still a critical."""
    options = options or DEFAULT_OPTIONS
    near_miss = ties_are_near_misses(missile, options)
    declared = passive_ties_declared(options)
    return decide(
        attack_face,
        attack_fumble,
        attack_total,
        defense_face,
        defense_total,
        void,
        near_miss,
        automatic,
        declared,
    )


def ties_are_near_misses(missile: bool, options: RuleOptions) -> bool:
    """Whether a tie is a near miss rather than a Bind: a missile attack under that option (R13)."""
    return missile and options.missile_tie is MissileTie.NEAR_MISS


def passive_ties_declared(options: RuleOptions) -> bool:
    """Whether a tie against a passive defense is a miss either side may declare a Bind (R13)."""
    return options.passive_tie is PassiveTie.DECLARED


DECLARED_BIND = _verdict(Outcome.BIND, "R13")
"""R13: the Bind a side declared on a passive tie."""


def decide(
    attack_face: int,
    attack_fumble: bool,
    attack_total: int,
    defense_face: int | None,
    defense_total: int,
    void: bool,
    tie_is_near_miss: bool,
    automatic: bool = False,
    passive_tie_declared: bool = False,
) -> Judgement:
    """:func:`judge` with its arguments in order and the ties already settled
    (:func:`ties_are_near_misses`, :func:`passive_ties_declared`): for the exact odds, which ask it
    hundreds of times."""
    critical = attack_face == 20 and attack_total > defense_total

    if automatic:
        return _hit("R25", critical)
    if defense_face is None:
        if attack_fumble:
            return _verdict(Outcome.MISS, "R18", False, True)
        if attack_face == 20:
            return _hit("R16", critical)
        if attack_total == defense_total:
            if passive_tie_declared and not tie_is_near_miss:
                return _verdict(Outcome.MISS, "R13", False, False, False, False, True)
            return _tie("R13", tie_is_near_miss)
        if attack_total > defense_total:
            return _hit("R13", critical)
        return _verdict(Outcome.MISS, "R13")

    if attack_face == 1 and defense_face == 1 and not void:
        return _tie("R14.1", tie_is_near_miss)
    if defense_face == 1 and attack_face != 1:
        return _hit("R14.2", critical)
    if attack_face == 20:
        return _hit("R14.3", critical, counterattack=defense_face == 20)
    if defense_face == 20:
        return _verdict(Outcome.MISS, "R14.4", False, False, True)
    if attack_fumble and defense_face != 1:
        return _verdict(Outcome.MISS, "R14.5", False, True, True)
    if attack_face == defense_face and not void:
        return _tie("R14.6", tie_is_near_miss)
    if attack_total > defense_total:
        return _hit("R14.7", critical)
    return _verdict(Outcome.MISS, "R14.7")
