"""One combatant of a fight, as the fight's document keeps it: its numbers, its Martial Pool, HP,
conditions and where it stands (R25). What ``/combatant`` changes in one is :mod:`bot.encounter.combatant`."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ..characters import MAX_NAME_LENGTH
from ..rules.armor_class import MAX_MAGIC_AC, Opening
from ..rules.equipment import Size
from ..rules.errors import IllegalAction, shown
from ..rules.feats import MartialFeat
from ..rules.morale import MoraleStanding
from ..rules.pool import MartialPool
from ..rules.situations import Steed
from ..rules.spirits import MAX_SCORE, SpiritEffect, SpiritTarget, banishment

MAX_CONDITIONS = 8
MAX_CONDITION_LENGTH = 32
MAX_CONDITION_ROUNDS = 20
MAX_HP = 9999
MAX_HIT_DICE = 100
KNOCKED_OUT = "unconscious"
"""The condition a failed Will save against a Knock-Out threat puts on (R16); like nonlethal damage at
the HP left, it puts its holder out of the fight until it is removed."""
CombatantName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_LENGTH)
]


class Lasting(BaseModel):
    """How long a condition lasts; a condition without one lasts until it is removed."""

    model_config = ConfigDict(extra="forbid")

    rounds_left: int | None = Field(default=None, ge=1, le=MAX_CONDITION_ROUNDS)
    """Deals still to come before it runs out: each deal counts one down, and it ends at 0."""
    until_turn_end: bool = False
    """It runs out when its holder's next turn ends."""
    skip_turn_end: bool = False
    """Put on during its holder's own turn: that turn is not the next one, so its end is skipped."""


class Position(BaseModel):
    """R25: where a combatant stands in the fight, as the situations of the text read it; set with
    ``/situation`` and shown in the tracker. Prone and incapacitated are conditions."""

    model_config = ConfigDict(extra="forbid")

    mount: str | None = None
    """The id of the combatant it rides (a combatant with a :class:`Steed`)."""
    shield_wall: bool = False
    scaling: bool = False
    """Scaling a wall, fence, rampart or stockade."""
    unseen: bool = False
    """Hidden from its foes by stealth or magic."""
    cover: int = Field(default=0, ge=0, le=4)
    """Cover against missiles, in quarters (25% each)."""
    opening: Opening | None = None
    """In a roofed area behind a window (at least AC 17), or behind an arrow slit (at least AC 21)."""
    beside: str | None = None
    """The id of the ally it stands side by side or back to back with."""

    @property
    def in_cover(self) -> bool:
        return self.cover > 0 or self.opening is not None


class Side(StrEnum):
    PLAYER = "player"
    NPC = "npc"


class Combatant(BaseModel):
    """One fighter in the fight: a player's character or an NPC. Ability values are modifiers."""

    model_config = ConfigDict(extra="forbid")

    id: str
    """Short and stable within the fight ("c3"); what buttons and autocomplete refer to."""
    name: CombatantName
    side: Side
    owner_id: int | None = None
    """The player who controls it; None for NPCs, which the GM runs."""
    holder: str
    """The initiative holder it acts with: its player's card, or its NPC group's card (R2)."""
    group: str | None = None
    """The NPC group's name (NPCs only); a lone NPC is a group of one."""
    leader: bool = False
    """R22: the group's leader; its fall is a morale trigger."""
    character: str | None = None
    """The saved character it was built from (players), by name key."""
    template: str | None = None
    """The catalog monster template it was built from (NPCs)."""
    prowess: int = Field(ge=0, le=20)
    dex_mod: int = 0
    int_mod: int = 0
    wis_mod: int = 0
    cha_mod: int = 0
    int_score: int | None = Field(default=None, ge=0, le=MAX_SCORE)
    """R27: the INT score the fight keeps, which a spiritual attack lowers; None: not rated (a spiritual
    attack then rates it 7 + the modifier and keeps what is left)."""
    wis_score: int | None = Field(default=None, ge=0, le=MAX_SCORE)
    cha_score: int | None = Field(default=None, ge=0, le=MAX_SCORE)
    proficiency: int = 0
    max_hp: int = Field(ge=1, le=MAX_HP)
    hp: int = Field(ge=-MAX_HP, le=MAX_HP)
    weapon: str
    off_hand: str | None = None
    armor: str | None = None
    shield: str | None = None
    morale: int | None = None
    ac_modifier: int = 0
    magic_ac: int = Field(default=0, ge=0, le=MAX_MAGIC_AC)
    """R24: Armor Class added by magic items and spells (an attack against AC meets it)."""
    size: Size = Size.MEDIUM
    spirit: bool = False
    demon: bool = False
    """R27: a spirit that is a demon: at 0 HP it is sent back to Hell rather than dissipated."""
    hit_dice: int | None = Field(default=None, ge=1, le=MAX_HIT_DICE)
    """R27: a spirit's Hit Dice; at 0 HP it is gone for 100 ÷ HD days."""
    driven_out: bool = False
    """R27: a possessing spirit was driven out of it: Frightened until its CHA is healed to 3."""
    pool: MartialPool
    conditions: list[str] = Field(default_factory=list)
    lasting: dict[str, Lasting] = Field(default_factory=dict)
    """How long its conditions last, by their casefolded names; one not here lasts until removed."""
    nonlethal: int = Field(default=0, ge=0)
    """Nonlethal damage taken (R16 Bash criticals); at or above the HP left, the combatant is out cold."""
    armor_hp: int | None = None
    """The armor's HP left (R17, attacks at the armor); None while it is undamaged."""
    shield_hp: int | None = None
    """The shield's HP left (R17, a Bind against an active shield defense); None while undamaged."""
    standing: MoraleStanding = MoraleStanding.STEADY
    """R21: Steady, Routed, Frightened or Demoralized."""
    morale_rechecked_round: int | None = None
    """R21: the round of its last morale recheck while Routed (one an exploration turn)."""
    moves: int = Field(default=0, ge=0)
    """R19: moves made this round."""
    knightly_combat: bool = False
    """R25 mounted: proficient in Knightly Combat (all knights and Templars are)."""
    feats: list[MartialFeat] = Field(default_factory=list)
    """The Martial Feats the GM granted it, applied by their effect (R13, R14, R17)."""
    steed: Steed | None = None
    """R25 mounted: it is a mount, and what kind."""
    constructed: bool = False
    """A construct: numbers never give advantage against it (R25)."""
    position: Position = Field(default_factory=Position)
    """R25: mounted, shield wall, scaling, unseen, cover, beside an ally."""
    forfeit_round: int = 0
    """R25: the round whose actions it forfeited (mounting, a failed quick mount or dismount, getting up
    from prone armed): no move and no attack on its own turn in it."""
    attack_forfeit_round: int = 0
    """R25: the round whose active action it spent getting up from prone empty-handed: no attack on its
    own turn in it (it may still move)."""
    last_target: str | None = None
    """The id of whom its last attack was on (R25: a Knightly rider against the man who struck his
    horse)."""

    @property
    def is_down(self) -> bool:
        return self.hp <= 0

    @property
    def unconscious(self) -> bool:
        """Knocked out (and still alive): by as much nonlethal damage as HP left, or by a failed Will save
        against a Knock-Out threat (R16), which leaves the condition :data:`KNOCKED_OUT`."""
        if self.is_down:
            return False
        knocked_out = self.condition_named(KNOCKED_OUT) is not None
        return knocked_out or (self.nonlethal > 0 and self.nonlethal >= self.hp)

    @property
    def out_of_the_fight(self) -> bool:
        return self.is_down or self.unconscious

    def require_able(self, doing: str) -> None:
        """Refuse ``doing`` to a combatant that is down or knocked out."""
        if self.out_of_the_fight:
            raise IllegalAction(f"{shown(self.name)} is {self.state_label} and cannot {doing}.")

    @property
    def state_label(self) -> str | None:
        """What the tracker and the results say beside the HP: down (a spirit: dissipated or sent back to
        Hell, R27), unconscious, routed, frightened (by morale, R21, or after a possession, R27)."""
        if self.is_down:
            return banishment(self.demon).value if self.spirit else "down"
        if self.unconscious:
            return "unconscious"
        if self.standing is not MoraleStanding.STEADY:
            return self.standing.value
        if self.driven_out:
            return MoraleStanding.FRIGHTENED.value
        return None

    # ----------------------------------------------------------------------------- the mind (R27)

    def modifier(self, ability: SpiritTarget) -> int:
        """The INT, WIS or CHA modifier the fight keeps."""
        if ability is SpiritTarget.INT:
            return self.int_mod
        return self.wis_mod if ability is SpiritTarget.WIS else self.cha_mod

    def score(self, ability: SpiritTarget) -> int | None:
        """R27: the INT, WIS or CHA score the fight keeps; None when it was never rated."""
        if ability is SpiritTarget.INT:
            return self.int_score
        return self.wis_score if ability is SpiritTarget.WIS else self.cha_score

    def keep_score(self, ability: SpiritTarget, score: int) -> None:
        setattr(self, f"{ability.value.lower()}_score", max(0, min(MAX_SCORE, score)))

    @property
    def mind_lost(self) -> SpiritEffect | None:
        """R27: the spiritual effect that gives this combatant to the GM: feeble-minded or stark-raving mad
        until healed to 3, possessed until the spirit is driven out."""
        if not self.conditions:
            return None
        return next((effect for effect in SpiritEffect if self.condition_named(effect.value)), None)

    def clamp_hp(self, hp: int) -> int:
        """HP as the fight keeps it: never above the maximum nor below its negative."""
        return max(-self.max_hp, min(self.max_hp, hp))

    def add_condition(self, condition: str, lasting: Lasting | None = None) -> None:
        """A condition (any short text; the usual ones are R13, R21, R25's) joins the others, for as
        long as ``lasting`` says (none: until removed)."""
        has = self.condition_named(condition)
        if has is not None:
            raise IllegalAction(f"{self.name} is already {has}.")
        if len(self.conditions) >= MAX_CONDITIONS:
            raise IllegalAction(f"{self.name} already has {MAX_CONDITIONS} conditions; remove one first.")
        self.conditions.append(condition)
        if lasting is not None:
            self.lasting[condition.casefold()] = lasting

    def remove_condition(self, condition: str) -> str:
        """Take a condition off (ignoring case); returns it as it was written."""
        has = self.condition_named(condition)
        if has is None:
            current = ", ".join(self.conditions) or "none"
            raise IllegalAction(f"{self.name} is not {condition}. Conditions now: {current}.")
        self.conditions.remove(has)
        self.lasting.pop(has.casefold(), None)
        return has

    def condition_named(self, condition: str) -> str | None:
        """The condition as written on the combatant (ignoring case), or None. Asked many times by every
        attack (most fighters have none)."""
        if not self.conditions:
            return None
        folded = condition.casefold()
        return next((c for c in self.conditions if c.casefold() == folded), None)
