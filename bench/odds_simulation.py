"""Exact attack odds against a seeded simulation of resolve_attack (R9, R10, R13, R14, R16, R18).

Run on demand (``make bench``, or ``python bench/odds_simulation.py``), never as a pass/fail test:
it rolls 100,000 attacks for each of eight cases, which takes about twenty seconds. The test suite
checks the same odds exactly, by enumerating every face of small cases
(``tests/rules/test_odds.py``); this covers the larger pools, advantage and void defenses with
random dice. For each case it prints the exact and the simulated percentage of every figure and the
difference between them in percentage points, then the largest difference of all. It exits 1 when
any difference reaches the tolerance (1 point by default).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bot.rules.attack_rolls import Attack, attack_bonus
from bot.rules.defenses import active_defense_bonus
from bot.rules.dice import Advantage, RandomDice
from bot.rules.engagement import Range
from bot.rules.equipment import AttackType
from bot.rules.exchange import resolve_attack
from bot.rules.judgement import Outcome
from bot.rules.odds import attack_odds

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.rules when run as a script
from tests.rules.conftest import ODDS_ATTACKER, ODDS_DEFENDER

SIMULATED_ATTACKS = 100_000
TOLERANCE_POINTS = 1.0
SEED = 20261130
FIGURES = (*(o.value for o in Outcome), "critical", "fumble", "counterattack")


@dataclass(frozen=True)
class Case:
    name: str
    attack_dice: int
    defense_dice: int
    """0 for a passive defense."""
    advantage: Advantage = Advantage.NONE
    void: bool = False


CASES = (
    Case("1 die vs passive", 1, 0),
    Case("3 dice vs passive", 3, 0),
    Case("2 dice, disadvantage, vs passive", 2, 0, Advantage.DISADVANTAGE),
    Case("1 vs 1 active", 1, 1),
    Case("2 vs 2 active", 2, 2),
    Case("3 with advantage vs 1 active", 3, 1, Advantage.ADVANTAGE),
    Case("1 vs 3 active, void", 1, 3, void=True),
    Case("4 vs 2 active", 4, 2),
)


def exact_percent(case: Case) -> dict[str, float]:
    """The exact odds of every figure, in percent, from bot.rules.odds."""
    attack = Attack(
        attack_type=AttackType.CHOP, dice=case.attack_dice, range=Range.MELEE, advantage=case.advantage
    )
    bonus = sum(m.value for m in attack_bonus(ODDS_ATTACKER, ODDS_DEFENDER, attack))
    defense_bonus = sum(
        m.value
        for m in active_defense_bonus(
            ODDS_DEFENDER, missile=False, at=Range.MELEE, shield=False, void=case.void
        )
    )
    passive = 8 + ODDS_DEFENDER.prowess + ODDS_DEFENDER.dex_mod
    odds = attack_odds(
        attack_dice=case.attack_dice,
        attack_bonus=bonus,
        passive_defense=None if case.defense_dice else passive,
        defense_dice=case.defense_dice,
        defense_bonus=defense_bonus,
        attack_advantage=case.advantage,
        void=case.void,
    )
    return {name: odds.percent(name) for name in FIGURES}


def simulated_percent(case: Case, attacks: int) -> dict[str, float]:
    """Every figure, in percent, over ``attacks`` seeded calls of resolve_attack."""
    attack = Attack(
        attack_type=AttackType.CHOP, dice=case.attack_dice, range=Range.MELEE, advantage=case.advantage
    )
    dice = RandomDice.seeded(SEED + case.attack_dice * 10 + case.defense_dice)
    seen: Counter[str] = Counter()
    for _ in range(attacks):
        result = resolve_attack(
            ODDS_ATTACKER,
            ODDS_DEFENDER,
            attack,
            dice,
            defense="active" if case.defense_dice else "passive",
            defense_dice=case.defense_dice,
            void=case.void,
        )
        seen[result.outcome.value] += 1
        seen["critical"] += result.judgement.critical
        seen["fumble"] += result.judgement.fumble
        seen["counterattack"] += result.judgement.counterattack
    return {name: seen[name] / attacks * 100 for name in FIGURES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--attacks", type=int, default=SIMULATED_ATTACKS, help="attacks rolled per case")
    parser.add_argument(
        "--tolerance", type=float, default=TOLERANCE_POINTS, help="largest difference allowed, in points"
    )
    args = parser.parse_args(argv)
    if args.attacks < 1:
        parser.error("--attacks must be at least 1")
    print(f"{args.attacks:,} seeded attacks per case; tolerance {args.tolerance:.1f} percentage points")
    worst = (0.0, "", "")
    failed = []
    started = time.perf_counter()
    for case in CASES:
        exact, simulated = exact_percent(case), simulated_percent(case, args.attacks)
        print(f"\n{case.name}")
        print(f"  {'figure':14} {'exact %':>9} {'simulated %':>12} {'diff':>7}")
        for name in FIGURES:
            diff = abs(simulated[name] - exact[name])
            flag = "  FAIL" if diff >= args.tolerance else ""
            print(f"  {name:14} {exact[name]:9.3f} {simulated[name]:12.3f} {diff:7.3f}{flag}")
            if diff > worst[0]:
                worst = (diff, case.name, name)
            if diff >= args.tolerance:
                failed.append(f"{case.name}: {name}")
    elapsed = time.perf_counter() - started
    print(f"\nlargest difference: {worst[0]:.3f} points ({worst[2]} in {worst[1]!r}); {elapsed:.1f} s")
    if failed:
        off = ", ".join(failed)
        print(f"FAIL: {len(failed)} figure(s) off by {args.tolerance:.1f} points or more: {off}")
        return 1
    print(f"OK: every figure less than {args.tolerance:.1f} points from the exact odds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
