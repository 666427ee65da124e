"""A player's character sheet as the bot keeps it: what a fight needs to build a combatant.

Ability values are *modifiers* (``dexterity=2`` means +2), because every rule takes modifiers
(``Fighter.dex_mod``, ``MoraleSubject.wis_mod`` and ``cha_mod``). The INT, WIS and CHA *scores* are
kept too, optionally, because a spiritual attack lowers them (R27); a score not given is rated
7 + modifier. Equipment is named by catalog key; whether the key exists is checked where the
catalog is at hand, so this stays a plain data model the store can save and load.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from .catalog import Catalog
from .rules.armor_class import MAX_MAGIC_AC
from .rules.errors import RulesError, shown
from .rules.feats import MartialFeat
from .rules.hands import check_hands

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


class NoSuchCharacter(RulesError):
    def __init__(self, name: str, whose: str = "You have") -> None:
        super().__init__(
            f"{whose} no character called '{shown(name)}'. Pick one from the list offered as you type, "
            "or make one with /character create."
        )


def optional_slot(key: str | None) -> str | None:
    """An optional slot: empty, or named ``none``, holds nothing."""
    if key is None or name_key(key) == NOTHING:
        return None
    return key


def checked_character(catalog: Catalog, fields: dict[str, Any]) -> Character:
    """The character these fields describe, its equipment keys checked against the catalog (and
    written as the catalog's keys), and its hands not holding more than two hands can (R26).

    Raises :class:`RulesError` naming what is wrong; the catalog's refusals suggest the closest keys.
    """
    main = catalog.weapon(fields["weapon"])
    armor = catalog.armor(fields["armor"])
    shield = catalog.shield(fields["shield"]) if fields["shield"] is not None else None
    off_hand = catalog.weapon(fields["off_hand"]) if fields["off_hand"] is not None else None
    check_hands(main, shield=shield, off_hand=off_hand)
    checked = {
        **fields,
        "weapon": main.key,
        "armor": armor.key,
        "shield": shield.key if shield is not None else None,
        "off_hand": off_hand.key if off_hand is not None else None,
    }
    try:
        return Character.model_validate(checked)
    except ValidationError as error:
        raise RulesError(_in_our_words(error.errors()[0])) from None


def _in_our_words(problem: Any) -> str:
    """What a sheet's validation found wrong, said as the bot says things (not the library's wording)."""
    field = ".".join(str(part) for part in problem["loc"])
    context = problem.get("ctx") or {}
    if problem["type"] == "string_too_short":
        return f"The {field} needs at least one letter or digit; it was blank. Nothing was saved."
    if problem["type"] == "string_too_long":
        return f"The {field} can be at most {context.get('max_length')} characters long. Nothing was saved."
    if "ge" in context or "le" in context:
        return (
            f"The {field} must be from {context.get('ge', '…')} to {context.get('le', '…')}; "
            f"you gave {problem.get('input')}. Nothing was saved."
        )
    return f"That {field} can't be used ({problem['msg'].lower()}). Nothing was saved."


def changes_given(options: dict[str, Any]) -> dict[str, Any]:
    """The fields an edit changes: the options given (not None), an empty slot read as nothing; refused
    when none was given."""
    given = {field: value for field, value in options.items() if value is not None}
    if not given:
        raise RulesError("Nothing to change: fill in at least one of the options after the name.")
    return given | {slot: optional_slot(given[slot]) for slot in ("shield", "off_hand") if slot in given}


def edited(catalog: Catalog, before: Character, given: dict[str, Any]) -> Character:
    """``before`` with the fields given changed, checked; refused when it already had those values."""
    return require_changed(before, checked_character(catalog, {**before.model_dump(), **given}))


def require_changed(before: Character, after: Character) -> Character:
    if after == before:
        raise RulesError(f"{shown(before.name)} already has those values; nothing was changed.")
    return after


def with_feat(before: Character, feat: MartialFeat, *, remove: bool) -> Character:
    """The sheet with the Martial Feat written down, or struck (refused when there is nothing to do)."""
    if (feat in before.feats) != remove:
        holds = "already has" if not remove else "does not have"
        raise RulesError(f"{shown(before.name)} {holds} {feat.value}; nothing was changed.")
    kept = set(before.feats) - {feat} if remove else set(before.feats) | {feat}
    return before.model_copy(update={"feats": [f for f in MartialFeat if f in kept]})
