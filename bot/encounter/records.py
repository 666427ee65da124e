"""What a fight remembers between the moments of an exchange: attacks waiting for a defense, the
reactions the rules allow (counterattacks, opportunity attacks) and the morale checks proposed.

These are plain records inside the :class:`~bot.encounter.document.Encounter` document, so they are saved in
the same transaction as everything else and survive a restart: a defender can click an hour later,
or after the bot came back up, and the exchange resolves as if nothing had happened in between.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from ..rules.attack_rolls import AttackRoll
from ..rules.defenses import Defense
from ..rules.engagement import Range
from ..rules.exchange import AttackResult
from ..rules.morale import MoraleTriggerReason
from ..rules.saves import SaveResult


class ExchangeStatus(StrEnum):
    AWAITING_DEFENSE = "awaiting defense"
    RESOLVED = "resolved"


class Applied(BaseModel):
    """What a resolved exchange did, so that a later choice (R9 Bind, R15 desperation) can take it back
    before applying the new result."""

    model_config = ConfigDict(extra="forbid")

    hp: int = 0
    """The HP the defender lost (lethal damage, less what the floor of minus its maximum stopped)."""
    nonlethal: int = 0
    armor_changed: bool = False
    armor_hp_before: int | None = None
    shield_changed: bool = False
    shield_hp_before: int | None = None
    range_before: Range | None = None
    """The pair's range before a grapple attack put it in Grapple (R12)."""


class Exchange(BaseModel):
    """One attack, from the roll to the last choice either side may still make about it."""

    model_config = ConfigDict(extra="forbid")

    id: int
    fight: str
    """The fight's :attr:`~bot.encounter.document.Encounter.tag`, which its buttons carry."""
    attacker: str
    """The attacking combatant's id."""
    defender: str
    attack: AttackRoll
    weapon: str
    """The attacker's weapon, by catalog key (the damage and the shield damage come from it)."""
    status: ExchangeStatus = ExchangeStatus.AWAITING_DEFENSE
    round: int
    asked_at: AwareDatetime
    deadline: AwareDatetime | None = None
    """When the defense policy decides for a player who has not clicked (None: no timeout)."""
    gm_pinged: bool = False
    message_id: int | None = None
    """The message that asks for the defense, so a timeout can take its buttons away."""
    undefended: bool = False
    """Declared against an unaware or helpless target (R13)."""
    situations: list[str] = Field(default_factory=list)
    """The R25 situations that gave the attack advantage or disadvantage, as the message names them."""
    notes: list[str] = Field(default_factory=list)
    """What else the situations of the fight did to the attack (R25: automatic hit, lance charge)."""
    allies_in_melee: list[str] = Field(default_factory=list)
    """A missile shot into a melee: the attacker's allies in it, one of whom a fumble hits (R25)."""
    cover_dice: int = Field(default=0, ge=0)
    """R14: free dice the defender's cover gave its active defense against the missile."""
    defense: Defense | None = None
    result: AttackResult | None = None
    applied: Applied = Field(default_factory=Applied)
    follow_ups: bool = False
    """Whether R9 (another die for a Bind) and R15 (desperation) may still change the result."""
    step: int = 0
    """Bumped at every change of the exchange; its buttons carry it, so a double click acts once."""
    knockout_save: SaveResult | None = None
    """R16 (Knock-Out option): the defender's Will save against the blow's Knock-Out threat, once rolled."""
    knocked_out: bool = False
    """The failed save put the :data:`~bot.encounter.combatants.KNOCKED_OUT` condition on the defender."""

    @property
    def pending(self) -> bool:
        return self.status is ExchangeStatus.AWAITING_DEFENSE

    @property
    def knockout_threat(self) -> int | None:
        """R16: the Will save's target number a Bash critical of this exchange forces, if any."""
        damage = self.result.damage if self.result is not None else None
        return damage.knockout_threat if damage is not None else None

    @property
    def awaiting_knockout_save(self) -> bool:
        """A Knock-Out threat whose Will save the defender has not rolled yet (R16)."""
        return self.knockout_threat is not None and self.knockout_save is None

    def overdue(self, now: datetime) -> bool:
        return self.pending and self.deadline is not None and now >= self.deadline


class Blow(BaseModel):
    """An attack made this round, as the numbers of R25 count it: by whom, on whom, and whether it
    came from a rider or a footman with a long spear or bill."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    by: str
    against: str
    mounted: bool = False
    long_spear_or_bill: bool = False
    charge: bool = False
    """A mounted charge: the mount carrying the rider moved (R25), so a warhorse does not strike too."""


class ReactionKind(StrEnum):
    COUNTERATTACK = "counterattack"
    OPPORTUNITY = "opportunity attack"
    TRAMPLE = "trample"
    """R25 mounted: a warhorse tramples the target of its rider's charge."""
    BIND_ATTACK = "bind attack"
    """R14: a Bind gave a holder of Bind & Strike or Mutieren an attack on its opponent."""


class Reaction(BaseModel):
    """An attack the rules give someone outside their turn (R12, R14): ``by`` may attack ``against``
    once, until the round ends."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ReactionKind
    by: str
    against: str
    round: int
    reason: str
    at: Range | None = None
    """The range the attack is made at when it is not the pair's range now: a grappled target strikes
    "first", before the Grapple holds (R12)."""
    together: bool = False
    """R14 (``bind_feats: simultaneous``): both sides of the Bind hold a feat it triggers, and their
    attacks land together: this one is made even if the other's fells its maker first."""


class MoraleProposal(BaseModel):
    """R22: a morale check the bot proposes for an NPC group; the GM confirms it (or ignores it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    group: str
    reason: MoraleTriggerReason
    detail: str
    round: int


class FightMessage(BaseModel):
    """A message on the fight's channel that shows a step of it (a request for a defense, a result and
    its follow-ups, the morale proposals), so that every change can bring it up to date: its buttons
    are always the ones the fight would accept now (:mod:`bot.fight_messages`)."""

    model_config = ConfigDict(extra="forbid")

    id: int
    exchange: int | None = None
    """The exchange it shows (None: the list of morale proposals, ``/morale proposals``)."""
    attacker: str | None = None
    """The exchange's attacker and defender, for the attacks owed between them (R12, R14) that its
    buttons offer after the exchange itself is forgotten."""
    defender: str | None = None
    proposals: list[int] = Field(default_factory=list)
    """The morale proposals (R22) whose buttons it carries while they are open."""
    dismissable: bool = True
    """A message about no exchange offers each proposal's "No check" beside its roll (``/morale
    proposals``); an HP change's announcement, the roll alone."""
    drawn: list[str] = Field(default_factory=list)
    """The custom ids of the buttons it carries now, as last drawn (["?"]: not known, draw them anew)."""
