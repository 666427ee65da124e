"""A player's character sheet as the bot keeps it: what a fight needs to build a combatant.

Ability values are *modifiers* (``dexterity=2`` means +2), because every rule takes modifiers
(``Fighter.dex_mod``, ``MoraleSubject.wis_mod`` and ``cha_mod``). The INT, WIS and CHA *scores* are
kept too, optionally, because a spiritual attack lowers them (R27); a score not given is rated
7 + modifier. Equipment is named by catalog key; whether the key exists is checked where the
catalog is at hand, so this stays a plain data model the store can save and load.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from .rules.armor_class import MAX_MAGIC_AC
from .rules.feats import MartialFeat

NOTHING = "none"
"""The value an edit takes for an empty slot: no shield, or the off-hand weapon put away."""

MAX_NAME_LENGTH = 64
MAX_PROWESS = 10
"""Prowess 3 already fills the Martial Pool (R6: Prowess + 1, at most 4); beyond that it only adds to
attack and defense bonuses, and 10 is far past any level the game reaches."""
MIN_MODIFIER = -5
MAX_MODIFIER = 10
"""The modifiers of ability scores 1 to 30."""
MAX_PROFICIENCY = 10
MAX_HP = 999

ShortText = StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_LENGTH)
CharacterName = Annotated[str, ShortText]
CatalogKey = Annotated[str, ShortText]
AbilityModifier = Annotated[int, Field(ge=MIN_MODIFIER, le=MAX_MODIFIER)]
MIN_SCORE = 1
MAX_SCORE = 30
AbilityScore = Annotated[int, Field(ge=MIN_SCORE, le=MAX_SCORE)]


def name_key(name: str) -> str:
    """The form a character's name is unique in: one player cannot have both "Ansel" and "ansel"."""
    return name.strip().casefold()


class Character(BaseModel):
    """One character of one player in one guild; a player may have several, by name."""

    model_config = ConfigDict(extra="forbid")

    name: CharacterName
    """Unique per player and guild, ignoring case."""
    prowess: int = Field(ge=0, le=MAX_PROWESS)
    dexterity: AbilityModifier
    """The DEX modifier: passive defense, capped by the armor's Max Dex (R13)."""
    wisdom: AbilityModifier
    """The WIS modifier: morale checks (R21)."""
    charisma: AbilityModifier
    """The CHA modifier: rallying others (R23)."""
    intelligence: AbilityModifier = 0
    """The INT modifier: defending against a spiritual attack on INT (R27)."""
    int_score: AbilityScore | None = None
    """The INT score a spiritual attack lowers (R27); None: not rated (7 + the modifier is used)."""
    wis_score: AbilityScore | None = None
    cha_score: AbilityScore | None = None
    proficiency: int = Field(ge=0, le=MAX_PROFICIENCY)
    hp: int = Field(ge=1, le=MAX_HP)
    """Maximum hit points."""
    weapon: CatalogKey
    armor: CatalogKey = "none"
    shield: CatalogKey | None = None
    off_hand: CatalogKey | None = None
    """A second weapon for fighting with two (R26)."""
    knightly_combat: bool = False
    """Proficient in Knightly Combat (all knights and Templars are): R25 mounted combat."""
    feats: list[MartialFeat] = Field(default_factory=list)
    """The Martial Feats the GM granted, applied by their effect in a fight (R13, R14, R17)."""
    magic_ac: int = Field(default=0, ge=0, le=MAX_MAGIC_AC)
    """R24: Armor Class added by magic items and spells, on top of armor, DEX and shield."""

    @property
    def key(self) -> str:
        """The name as the store looks it up (see :func:`name_key`)."""
        return name_key(self.name)
