"""The Martial Pool: its size, spending it, refilling it (R6, R7, R8, R15)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from .equipment import Armor
from .errors import NotEnoughDice, RulesError

MIN_POOL = 1
MAX_POOL = 4


class Spend(StrEnum):
    """R7: what Martial Pool dice are spent on."""

    ATTACK = "attack"
    ACTIVE_DEFENSE = "active defense"
    DESPERATION_DEFENSE = "desperation defense"
    MOVEMENT = "movement"
    RANGE_CHANGE = "range change"
    SAVE = "saving throw"
    OPPORTUNITY_ATTACK = "opportunity attack"
    COUNTERATTACK = "counterattack"
    OTHER = "other action"


def pool_size(prowess: int, armor: Armor | None = None) -> int:
    """R6: Prowess + 1, clamped to 1..4; armor with Max Dex +1 or less costs one die (never below 1)."""
    size = min(MAX_POOL, max(MIN_POOL, prowess + 1))
    if armor is not None and armor.costs_a_pool_die:
        size -= 1
    return max(MIN_POOL, size)


class MartialPool(BaseModel):
    """One combatant's pool this round. ``spent`` counts the dice spent per purpose this round."""

    size: int = Field(ge=MIN_POOL, le=MAX_POOL)
    remaining: int = Field(ge=0, le=MAX_POOL)
    spent: dict[Spend, int] = Field(default_factory=dict)
    penalty_next_round: int = Field(default=0, ge=0)
    """R6/R15: dice lost at the next refill (a desperation defense without the initiative)."""

    @classmethod
    def full(cls, size: int) -> MartialPool:
        return cls(size=size, remaining=size)

    def spend(self, dice: int, purpose: Spend) -> int:
        """R7: spend ``dice`` dice; more than remain is refused with the number left, spending nothing.

        Returns the dice left.
        """
        if dice < 1:
            raise RulesError(f"Spend at least one die on {purpose.value}.")
        if dice > self.remaining:
            raise NotEnoughDice(dice, self.remaining, purpose.value)
        self.remaining -= dice
        self.spent[purpose] = self.spent.get(purpose, 0) + dice
        return self.remaining

    def spend_all(self, purpose: Spend) -> int:
        """Spend every die left (running, R19; desperation defense, R15). Returns how many were spent."""
        spent = self.remaining
        if spent:
            self.spend(spent, purpose)
        return spent

    def spent_on_other_than(self, *purposes: Spend) -> int:
        return sum(n for purpose, n in self.spent.items() if purpose not in purposes)

    def resize(self, size: int) -> None:
        """R6: the pool's size changed during a round (Prowess or armor edited); the dice left never
        exceed the new size, and nothing is refilled before the next round (R8)."""
        self.size = size
        self.remaining = min(self.remaining, size)

    def refill(self, size: int, minimum: int = MIN_POOL) -> int:
        """R8: a new round refills the pool to its size (unspent dice do not carry over), less any
        R6 desperation penalty, never below ``minimum``. Returns the dice now available."""
        self.size = min(MAX_POOL, max(MIN_POOL, size))
        self.remaining = max(min(minimum, self.size), self.size - self.penalty_next_round)
        self.penalty_next_round = 0
        self.spent = {}
        return self.remaining
