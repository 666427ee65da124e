"""Dice: an injected source of randomness and the Martial Pool roll (R9, R10).

The core never touches the global ``random``: every rule takes a :class:`DiceSource`. Production
uses :class:`RandomDice` over ``random.SystemRandom``; tests use a seeded ``random.Random`` or
:class:`ScriptedDice` with the exact faces they need.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, MutableSequence
from enum import IntEnum
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from .errors import RulesError


class DiceSource(Protocol):
    """Where every die face and every shuffle comes from."""

    def roll(self, sides: int) -> int:
        """One die of ``sides`` faces, 1..sides."""
        ...

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Shuffle ``items`` in place."""
        ...


class RandomDice:
    """A :class:`DiceSource` over a ``random.Random``; ``RandomDice.system()`` for production."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    @classmethod
    def system(cls) -> RandomDice:
        return cls(random.SystemRandom())

    @classmethod
    def seeded(cls, seed: int) -> RandomDice:
        return cls(random.Random(seed))

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)

    def shuffle(self, items: MutableSequence[Any]) -> None:
        self._rng.shuffle(items)


class D20Witness:
    """A :class:`DiceSource` that rolls with ``dice`` and keeps the face of every d20 it rolled, in order
    (dropped, rerolled and free dice too): what ``/stats dice`` counts of a fight."""

    def __init__(self, dice: DiceSource) -> None:
        self._dice = dice
        self.d20s: list[int] = []

    def roll(self, sides: int) -> int:
        face = self._dice.roll(sides)
        if sides == 20:
            self.d20s.append(face)
        return face

    def shuffle(self, items: MutableSequence[Any]) -> None:
        self._dice.shuffle(items)


class ScriptedDice:
    """Fixed faces for tests: each ``roll`` takes the next face; shuffles keep the order.

    A face larger than the die asked for, or a script that runs dry, is a test bug and fails loudly.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    def roll(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise AssertionError(f"ScriptedDice ran out after {self._next} faces (asked for a d{sides})")
        face = self._faces[self._next]
        self._next += 1
        if not 1 <= face <= sides:
            raise AssertionError(f"scripted face {face} does not fit a d{sides}")
        return face

    def shuffle(self, items: MutableSequence[Any]) -> None:
        return None

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._next


class Advantage(IntEnum):
    """The net Lords of Hack situation on a roll (R10, R25)."""

    DISADVANTAGE = -1
    NONE = 0
    ADVANTAGE = 1

    @classmethod
    def net(cls, advantages: int, disadvantages: int) -> Advantage:
        """R10/R25: any advantage and any disadvantage cancel; several of one kind count once."""
        if advantages and not disadvantages:
            return cls.ADVANTAGE
        if disadvantages and not advantages:
            return cls.DISADVANTAGE
        return cls.NONE

    def combine(self, other: Advantage) -> Advantage:
        """Two sources on one roll: the same kind counts once, opposite kinds cancel."""
        return Advantage.net(
            int(Advantage.ADVANTAGE in (self, other)), int(Advantage.DISADVANTAGE in (self, other))
        )


class Modifier(BaseModel):
    """One line of a bonus breakdown, e.g. ``Modifier(label="Speed", value=3)``."""

    model_config = ConfigDict(frozen=True)

    label: str
    value: int

    def __str__(self) -> str:
        return f"{self.value:+d} {self.label}"


def with_joker(modifiers: Iterable[Modifier], joker_bonus: int) -> tuple[Modifier, ...]:
    """R3: the modifiers of a roll made on a Joker's turn, the Joker's bonus listed last (when any)."""
    listed = tuple(modifiers)
    return (*listed, Modifier(label="Joker", value=joker_bonus)) if joker_bonus else listed


def sum_of(modifiers: Iterable[Modifier]) -> int:
    return sum(modifier.value for modifier in modifiers)


class PoolRoll(BaseModel):
    """A roll-many-keep-one of d20s (R9), with the R10 extra die already applied.

    ``faces`` holds every die rolled, in rolling order. ``removed`` is the index of the die that
    disadvantage took away (it can never count); ``counting`` is the index of the die that counts.
    ``committed`` is the number of Martial Pool dice paid for the roll (free dice excluded).
    """

    model_config = ConfigDict(frozen=True)

    faces: tuple[int, ...]
    committed: int
    advantage: Advantage = Advantage.NONE
    removed: int | None = None
    counting: int

    @property
    def value(self) -> int:
        """The natural face of the die that counts."""
        return self.faces[self.counting]

    @property
    def available(self) -> tuple[int, ...]:
        """Indexes of the dice that may count (all but the one disadvantage removed)."""
        return tuple(i for i in range(len(self.faces)) if i != self.removed)

    @property
    def natural_20(self) -> bool:
        return self.value == 20

    @property
    def natural_1(self) -> bool:
        return self.value == 1

    @property
    def fumble(self) -> bool:
        """R9: a 1 fumbles only when it counts and every die that could count shows 1."""
        return self.value == 1 and all(self.faces[i] == 1 for i in self.available)

    @property
    def dropped(self) -> tuple[int, ...]:
        """Indexes of the dice shown struck through: everything but the die that counts."""
        return tuple(i for i in range(len(self.faces)) if i != self.counting)

    def choose(self, index: int) -> PoolRoll:
        """R9: the owner picks another of their dice to count (e.g. to force a Bind)."""
        if index not in self.available:
            if 0 <= index < len(self.faces):
                raise RulesError("That die was taken away by disadvantage; pick one of the others.")
            raise RulesError(f"There is no die number {index + 1}; this roll has {len(self.faces)} dice.")
        return self.model_copy(update={"counting": index})

    def index_of_face(self, face: int) -> int | None:
        """The first available die showing ``face``, if any (to offer a Bind choice, R9)."""
        return next((i for i in self.available if self.faces[i] == face), None)


def roll_pool(
    dice: DiceSource, committed: int, advantage: Advantage = Advantage.NONE, free: int = 0
) -> PoolRoll:
    """R9, R10: roll ``committed`` pool dice plus ``free`` dice and keep the highest.

    Advantage adds one free die. Disadvantage adds one die and removes the highest die rolled
    before the counting die is picked (so one die with disadvantage is 2d20 keep-lowest).
    """
    if committed < 0 or free < 0:
        raise RulesError("A roll needs a whole number of dice, zero or more.")
    if committed + free < 1:
        raise RulesError("A roll needs at least one die.")
    total = committed + free + (1 if advantage is not Advantage.NONE else 0)
    faces = tuple(dice.roll(20) for _ in range(total))
    removed = None
    if advantage is Advantage.DISADVANTAGE:
        removed = max(range(total), key=lambda i: (faces[i], -i))
    available = [i for i in range(total) if i != removed]
    counting = max(available, key=lambda i: (faces[i], -i))
    return PoolRoll(faces=faces, committed=committed, advantage=advantage, removed=removed, counting=counting)


class Check(BaseModel):
    """A plain check: a d20 (2d20 under advantage, R10; pool dice join it, R20) plus modifiers."""

    model_config = ConfigDict(frozen=True)

    roll: PoolRoll
    modifiers: tuple[Modifier, ...]

    @property
    def total(self) -> int:
        return self.roll.value + sum_of(self.modifiers)


def roll_check(
    dice: DiceSource,
    modifiers: Iterable[Modifier],
    advantage: Advantage = Advantage.NONE,
    *,
    pool_dice: int = 0,
) -> Check:
    """One free d20 plus ``pool_dice`` Martial Pool dice, highest counts (R9, R10, R20), + modifiers."""
    return Check(roll=roll_pool(dice, pool_dice, advantage, free=1), modifiers=tuple(modifiers))
