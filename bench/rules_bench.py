"""Cost of the rules core's hot calls: resolve_attack and an exact odds query.

Run on demand (``make bench``), never as a pass/fail test. Prints microseconds per call, the median
of several repeats, and each figure as a ratio to a baseline measured in the same run: one
``roll_pool`` of two dice, the least any attack has to do.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from bot.catalog import load_catalog
from bot.rules.attack_rolls import Attack
from bot.rules.dice import Advantage, RandomDice, roll_pool
from bot.rules.engagement import Range
from bot.rules.equipment import AttackType
from bot.rules.exchange import resolve_attack
from bot.rules.fighter import Fighter
from bot.rules.odds import attack_odds, counting_die_ways

REPEATS = 7


def per_call_us(fn: Callable[[], object], calls: int) -> float:
    """Median over REPEATS of the mean time of ``calls`` calls, in microseconds."""
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def main() -> None:
    catalog = load_catalog()
    longsword, arming_sword = catalog.weapon("longsword"), catalog.weapon("arming_sword")
    mail, shield = catalog.armor("mail_haubergeon"), catalog.shield("heater")
    attacker = Fighter(name="Attacker", prowess=3, dex_mod=1, weapon=longsword)
    defender = Fighter(name="Defender", prowess=2, dex_mod=2, weapon=arming_sword, armor=mail, shield=shield)
    attack = Attack(attack_type=AttackType.CHOP, dice=2, range=Range.MELEE)
    dice = RandomDice.seeded(1)

    def baseline() -> object:
        return roll_pool(dice, 2)

    def passive() -> object:
        return resolve_attack(attacker, defender, attack, dice)

    def active() -> object:
        return resolve_attack(attacker, defender, attack, dice, defense="active", defense_dice=2, shield=True)

    def odds() -> object:
        counting_die_ways.cache_clear()
        attack_odds.cache_clear()
        return attack_odds(attack_dice=3, attack_bonus=6, defense_dice=3, defense_bonus=7)

    def worst_odds() -> object:
        """The most faces there are: 4 dice at disadvantage (5 rolled) against 9 active dice."""
        counting_die_ways.cache_clear()
        attack_odds.cache_clear()
        return attack_odds(
            attack_dice=4,
            attack_bonus=5,
            defense_dice=9,
            defense_bonus=4,
            attack_advantage=Advantage.DISADVANTAGE,
        )

    def odds_again() -> object:
        return attack_odds(attack_dice=3, attack_bonus=6, defense_dice=3, defense_bonus=7)

    base = per_call_us(baseline, 20_000)
    rows = [
        ("baseline: roll_pool(2 dice)", base),
        ("resolve_attack vs passive", per_call_us(passive, 5_000)),
        ("resolve_attack vs active + shield", per_call_us(active, 5_000)),
        ("attack_odds 3 vs 3 (first time)", per_call_us(odds, 200)),
        ("attack_odds 4 disadv. vs 9 (first, worst)", per_call_us(worst_odds, 200)),
        ("attack_odds 3 vs 3 (asked again)", per_call_us(odds_again, 20_000)),
    ]
    print(f"{'call':42} {'us/call':>10} {'x baseline':>11}")
    for name, us in rows:
        print(f"{name:42} {us:10.1f} {us / base:11.1f}")


if __name__ == "__main__":
    main()
