"""What the operations of the encounter report, for the replies and the log lines to read: one
vocabulary between :mod:`bot.encounter`'s families, :mod:`bot.wording` and :mod:`bot.ui`.

(An operation returns its report inside a :class:`~bot.encounter.done.Done`, with its log lines.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from ..notation import NotationRoll
from ..rules.armor_class import AcAttackResult
from ..rules.damage import DamageRoll
from ..rules.dice import Advantage, Modifier
from ..rules.initiative import DealResult
from ..rules.morale import (
    MoraleResult,
    RallyResult,
)
from ..rules.spirits import ScoreHealing, SpiritualAttackResult
from ..rules.turns import Advance
from .combatants import Combatant
from .records import Exchange, MoraleProposal


@dataclass(frozen=True, slots=True)
class SpiritAttack:
    """What ``/spirit attack`` did: the core's result, the damage roll if one was made, and whether the
    effect at 0 was put on the defender as a condition."""

    spirit: str
    defender: str
    result: SpiritualAttackResult
    damage_roll: NotationRoll | None = None
    condition_added: bool = False


@dataclass(frozen=True, slots=True)
class DrivenOut:
    """``/spirit drive-out`` (R27): whom the possessing spirit left, and the CHA it returns at."""

    person: str
    cha_before: int | None
    cha_after: int
    spirit: str | None = None
    """The spirit driven out, when the GM named it."""
    proposal: MoraleProposal | None = None
    """R22: the morale check proposed for the spirit driven out by divine means."""
    no_check: str | None = None
    """Why the spirit named is proposed no check (R21, R22), when it is not."""


@dataclass(frozen=True, slots=True)
class MindHealed:
    """``/spirit heal`` (R27): the score healed, and the effect it ended at 3 (its condition as it was
    written, or "frightened" for a person a spirit was driven out of), if any."""

    person: str
    healing: ScoreHealing
    ended: str | None = None
    still_possessed: bool = False
    """Healing never frees the possessed: only driving the spirit out does."""


@dataclass(frozen=True, slots=True)
class HpChange:
    """``-5`` takes 5 HP, ``+3`` gives 3, ``12`` sets HP to 12."""

    sign: str
    amount: int

    def apply(self, hp: int) -> int:
        """The HP this change asks for (the fight keeps it within bounds: ``Combatant.clamp_hp``)."""
        if self.sign == "-":
            return hp - self.amount
        if self.sign == "+":
            return hp + self.amount
        return self.amount

    def __str__(self) -> str:
        return f"{self.sign}{self.amount}"


@dataclass(frozen=True, slots=True)
class Passed:
    """A combatant a check passes over, and why ("down", "already routed")."""

    combatant: Combatant
    why: str


@dataclass(slots=True)
class MoraleCheckReport:
    """What one morale check did: each roll (immune ones included, R21), who was passed over and why,
    and the proposals it settled."""

    results: list[tuple[Combatant, MoraleResult]] = field(default_factory=list)
    passed_over: list[Passed] = field(default_factory=list)
    settled: list[MoraleProposal] = field(default_factory=list)
    advantage: Advantage = Advantage.NONE
    can_escape: bool = True
    recheck: bool = False
    """R21: a recheck of the Routed (a pass returns them to Steady), not a first check."""

    @property
    def failed(self) -> list[Combatant]:
        return [c for c, result in self.results if not result.passed]


@dataclass(slots=True)
class RallyReport:
    """A rally: who rallied, the rules' result, and the allies whose standing it changed."""

    rallier: Combatant
    result: RallyResult
    allies: list[Combatant]


class TurnAction(StrEnum):
    """What a press does: the tracker's buttons and ``/init``'s subcommands of the same names."""

    NEXT = "next"
    HOLD = "hold"
    ACT = "act"
    DEAL = "deal"


@dataclass(frozen=True, slots=True)
class RanOut:
    """A condition that ran out: its rounds at a deal, or the end of its holder's next turn."""

    combatant: str
    """The combatant's name."""
    condition: str
    """As the combatant had it written."""


@dataclass(frozen=True, slots=True)
class TurnMove:
    """What one press did, for the announcement: the round dealt (Deal only), how the turns moved and
    which conditions ran out on the way."""

    action: TurnAction
    advance: Advance
    actor_id: int
    """Who pressed: the announcement never pings them."""
    dealt: DealResult | None = None
    ran_out: list[RanOut] = field(default_factory=list)
    proposals: list[MoraleProposal] = field(default_factory=list)
    """R25: the morale checks the deal proposed (riding horses check every round)."""

    @property
    def held(self) -> bool:
        return self.action is TurnAction.HOLD


@dataclass(slots=True)
class ExchangeReport:
    """What one step of an exchange did, for the message that tells the table: the exchange as it now
    stands, and (while it awaits the defense) the defender's passive defense the request offers."""

    exchange: Exchange
    hp_before: int
    nonlethal_before: int
    proposals: list[MoraleProposal] = field(default_factory=list)
    decided_by: str | None = None
    """Who picked the defense when the defender's player did not: "policy", "timeout"."""
    desperation_improved: bool | None = None
    swap_initiative: bool = False
    pool_penalty: int = 0
    chose_die: Literal["attacker", "defender"] | None = None
    declared_bind: Literal["attacker", "defender"] | None = None
    """R13 (``passive_tie: declared``): the side that declared the passive tie a Bind."""
    passive: int | None = None
    """R13: the defender's passive defense, offered by the request while the defense is awaited."""

    @property
    def exchange_id(self) -> int:
        return self.exchange.id


class AcAttack(BaseModel):
    """R24: an attack on a foe that only has an Armor Class, with its damage on a hit."""

    attacker: str
    defender: str
    weapon: str
    bonus: list[Modifier]
    """The attack bonus line by line (R11: Prowess, the weapon's, the rest); the Joker's is in the roll."""
    roll: AcAttackResult
    damage: DamageRoll | None = None
    hp_before: int
    situations: list[str] = Field(default_factory=list)
    """The R25 situations on the roll, each with its source."""
    notes: list[str] = Field(default_factory=list)
    allies_in_melee: list[str] = Field(default_factory=list)
    """A missile shot into a melee: the attacker's allies in it, one of whom a natural 1 hits (R25)."""
