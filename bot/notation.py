"""Dice notation for ``/roll``: parse with the d20 library, roll with an injected dice source.

d20 rolls with the global ``random`` module; Pommel's dice come from a :class:`DiceSource` instead
(``SystemRandom`` in production, fixed faces in tests), so the roller below builds its dice from
that source. Parsing, keep/drop operators and totals stay d20's.

Advantage and disadvantage (a trailing ``adv`` or ``dis``) turn a leading ``1d20`` into ``2d20kh1`` /
``2d20kl1`` as d20 does; any other expression is rolled twice and the higher / lower total kept
(``3d6 dis`` is ``(3d6, 3d6)kl1``).
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import d20
from d20 import expression as d20_expression

from .rules.dice import DiceSource
from .rules.errors import RulesError

MAX_EXPRESSION_LENGTH = 120
MAX_DICE = 100
"""Dice rolled by one expression, rerolls and explosions included."""
MAX_SIDES = 1000
MAX_ANSWER_LENGTH = 1500
"""Longer breakdowns are cut so the answer stays within one Discord message."""

_ADVANTAGE_WORDS = {
    "adv": d20.AdvType.ADV,
    "advantage": d20.AdvType.ADV,
    "dis": d20.AdvType.DIS,
    "disadv": d20.AdvType.DIS,
    "disadvantage": d20.AdvType.DIS,
}
_TRAILING_WORD = re.compile(
    rf"^(?P<dice>.*?)\s*(?<![a-z])(?P<word>{'|'.join(_ADVANTAGE_WORDS)})\s*$", re.IGNORECASE | re.DOTALL
)

_PARSER = d20.Roller()

EXAMPLES = "`1d20+5`, `4d20kh1+5`, `2d6+3`, `1d20 adv`, `3d6 dis`"


class NotationError(RulesError):
    """An expression ``/roll`` cannot roll; the message says why and shows what works."""


class _SourcedContext(d20.RollContext):  # type: ignore[misc]
    """Counts dice like d20's context, and carries the source the dice are rolled from."""

    def __init__(self, dice: DiceSource) -> None:
        super().__init__(max_rolls=MAX_DICE)
        self.dice = dice


class _SourcedDie(d20.Die):  # type: ignore[misc]
    """A die whose faces come from the context's :class:`DiceSource` rather than ``random``."""

    def _add_roll(self) -> None:
        if self.size != "%" and self.size < 1:
            raise d20.RollValueError("Cannot roll a 0-sided die.")
        self._context.count_roll()
        if self.size == "%":
            face = (self._context.dice.roll(10) - 1) * 10
        else:
            face = self._context.dice.roll(self.size)
        self.values.append(d20.Literal(face))


class _SourcedDice(d20.Dice):  # type: ignore[misc]
    @classmethod
    def new(cls, num: int, size: Any, context: _SourcedContext | None = None) -> _SourcedDice:
        return cls(num, size, [_SourcedDie.new(size, context=context) for _ in range(num)], context=context)

    def roll_another(self) -> None:
        self.values.append(_SourcedDie.new(self.size, context=self._context))


class _SourcedRoller(d20.Roller):  # type: ignore[misc]
    def _eval_dice(self, node: Any) -> _SourcedDice:
        return _SourcedDice.new(node.num, node.size, context=self.context)


class _Breakdown(d20.MarkdownStringifier):  # type: ignore[misc]
    """d20's Markdown (dropped dice struck through), with natural 1 and 20 of a d20 in bold."""

    _nodes: dict[type, Any]

    def __init__(self) -> None:
        super().__init__()
        nodes = dict(self._nodes)
        nodes.update({_SourcedDice: self._str_dice, _SourcedDie: self._str_die})
        self._nodes = nodes

    def _str_die(self, node: Any) -> str:
        faces = []
        for value in node.values:
            face = self._stringify(value)
            if node.size == 20 and value.number in (1, 20):
                face = f"**{face}**"
            faces.append(face)
        return ", ".join(faces)


@dataclass(frozen=True)
class NotationRoll:
    expression: str
    """The expression as rolled (advantage folded in), for the log."""
    total: int
    breakdown: str
    """Markdown: every die, dropped ones struck through, naturals on a d20 in bold."""
    comment: str | None
    natural_20: bool
    """A kept d20 shows 20."""
    natural_1: bool
    d20_faces: tuple[int, ...] = ()
    """Every face a d20 of the roll showed, dropped and rerolled ones too (before ``mi``/``ma`` changed
    it), for ``/stats dice``."""


def roll_notation(text: str, dice: DiceSource) -> NotationRoll:
    """Roll ``text`` (``4d20kh1+5``, ``1d20 adv``, ``2d6+3 fire``) from ``dice``.

    Raises :class:`NotationError`, naming the limit or the mistake, for anything it will not roll.
    """
    text = text.strip()
    if not text:
        raise NotationError(f"Give the dice to roll, for example {EXAMPLES}.")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise NotationError(
            f"That expression is {len(text)} characters long; the most is {MAX_EXPRESSION_LENGTH}. "
            f"Try something like {EXAMPLES}."
        )
    text, advantage = _split_advantage(text)
    try:
        parsed = _parse(text)
        _check_label(text, parsed.comment)
        tree = _with_advantage(parsed, advantage)
        _check_size(tree)
        result = _SourcedRoller(_SourcedContext(dice)).roll(tree, stringifier=_Breakdown())
        # d20 computes totals lazily: a division by zero surfaces here, and is still bad input.
        total = int(result.total)
        breakdown = result.result
    except d20.TooManyRolls:
        raise NotationError(
            f"That rolls more than {MAX_DICE} dice (rerolls and explosions count); "
            f"roll at most {MAX_DICE}, e.g. `{MAX_DICE}d6`."
        ) from None
    except d20.RollSyntaxError:
        raise NotationError(f"`{text}` is not dice notation I can read. Try {EXAMPLES}.") from None
    except d20.RollError as error:
        reason = str(error).rstrip(".")
        raise NotationError(f"`{text}` can't be rolled: {reason}. Try {EXAMPLES}.") from None
    kept_d20s = _kept_faces(result.expr, 20)
    if len(breakdown) > MAX_ANSWER_LENGTH:
        breakdown = f"{breakdown[: MAX_ANSWER_LENGTH - 20]}… = `{total}`"
    return NotationRoll(
        expression=str(result.ast),
        total=total,
        breakdown=breakdown,
        comment=result.comment,
        natural_20=20 in kept_d20s,
        natural_1=1 in kept_d20s,
        d20_faces=tuple(_rolled_faces(result.expr, 20)),
    )


@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> Any:
    """Parsing is most of a roll's cost and tables roll the same few expressions all night.

    d20 caches parses itself, but not with comments allowed, and only per roller. Evaluating never
    changes a tree (d20's own cache relies on that too), so one tree serves every roll of ``text``.
    """
    return _PARSER.parse(text, allow_comments=True)


def _check_label(text: str, label: str | None) -> None:
    """A label must stand apart from the dice: ``1d2O`` is a typo for ``1d20``, not a d2 labelled O."""
    if label and not text[: len(text) - len(label)][-1:].isspace():
        raise NotationError(
            f"`{text}` has `{label}` stuck to the dice. Put a space before a label (`1d20+5 to hit`) "
            f"or fix the typo."
        )


def _check_size(tree: Any) -> None:
    """Refuse too many or too big dice before any is rolled (the roll itself counts rerolls)."""
    dice = list(_dice_nodes(tree))
    count = sum(node.num for node in dice)
    if count > MAX_DICE:
        raise d20.TooManyRolls("Too many dice rolled.")
    for node in dice:
        if node.size != "%" and node.size > MAX_SIDES:
            raise NotationError(f"A d{node.size} is too big to roll; dice go up to d{MAX_SIDES}.")


def _dice_nodes(node: Any) -> Iterator[Any]:
    if isinstance(node, d20.diceast.Dice):
        yield node
        return
    for child in node.children:
        yield from _dice_nodes(child)


def _split_advantage(text: str) -> tuple[str, d20.AdvType]:
    """``1d20+5 adv`` → (``1d20+5``, ADV); ``3d6 dis`` → (``3d6``, DIS)."""
    match = _TRAILING_WORD.match(text)
    if match is None or match["word"].lower() not in _ADVANTAGE_WORDS:
        return text, d20.AdvType.NONE
    dice = match["dice"].strip()
    if not dice:
        raise NotationError(f"Give the dice to roll, for example {EXAMPLES}.")
    return dice, _ADVANTAGE_WORDS[match["word"].lower()]


def _with_advantage(tree: Any, advantage: d20.AdvType) -> Any:
    """``tree`` rolled with ``advantage``: d20's ``2d20kh1`` for a leading 1d20, else twice, keep one.

    The parsed tree is shared (see :func:`_parse`), so this builds a new one around it.
    """
    if advantage is d20.AdvType.NONE:
        return tree
    with_d20 = d20.utils.ast_adv_copy(tree, advantage)
    if str(with_d20) != str(tree):
        return with_d20
    keep = d20.diceast.SetSelector("h" if advantage is d20.AdvType.ADV else "l", 1)
    twice = d20.diceast.NumberSet([tree.roll, copy.deepcopy(tree.roll)])
    both = d20.diceast.OperatedSet(twice, d20.diceast.SetOperator("k", [keep]))
    return d20.diceast.Expression(both, tree.comment)


def _kept_faces(node: Any, size: int) -> list[int]:
    """The faces of kept dice of ``size`` sides anywhere in an evaluated d20 expression."""
    faces: list[int] = []
    if isinstance(node, d20_expression.Die):
        if node.size == size and node.kept:
            faces.extend(int(value.number) for value in node.values if value.kept)
        return faces
    if not node.kept:
        return faces
    parts = node.values if isinstance(node, d20_expression.Set) else node.children
    for child in parts:
        faces.extend(_kept_faces(child, size))
    return faces


def _rolled_faces(node: Any, size: int) -> Iterator[int]:
    """Every face the dice of ``size`` sides showed anywhere in an evaluated d20 expression, kept or not:
    each die's first value (``mi``/``ma`` add a changed one after it), a reroll a die of its own."""
    if isinstance(node, d20_expression.Die):
        if node.size == size:
            yield from (int(value.values[0]) for value in node.values)
        return
    parts = node.values if isinstance(node, d20_expression.Set) else node.children
    for child in parts:
        yield from _rolled_faces(child, size)
