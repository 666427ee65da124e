"""What ``/character`` and ``/join`` show: the character sheet, the list, edits, and name autocomplete.

Every name a player typed is shown with its Markdown escaped (mentions never ping: the bot sends
``AllowedMentions.none()``). The sheet shows the numbers a player reaches for at the table, worked
out by the rules core: the Martial Pool size (R6) and the passive defense (R13).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import discord
from discord import app_commands

from ..catalog import Catalog, UnknownEntry
from ..characters import Character
from ..encounter.combatants import Combatant, Side
from ..encounter.document import Encounter, player_holder
from ..rules.defenses import passive_defense
from ..rules.dice import Modifier
from ..rules.equipment import Armor, Shield, Weapon
from ..rules.errors import shown
from ..rules.fighter import Fighter
from ..rules.pool import pool_size
from ..wording.phrases import signed
from ..wording.roster import TURN_CUT_SHORT

_Entry = TypeVar("_Entry", Weapon, Armor, Shield)

SHEET_COLOUR = discord.Colour.dark_teal()
DESCRIPTION_LIMIT = 4000
"""Discord allows 4096 characters in an embed's description; a little is kept spare."""
CHOICE_LIMIT = 25
CHOICE_NAME_LIMIT = 100

FIELD_LABELS = {
    "name": "name",
    "prowess": "Prowess",
    "dexterity": "DEX",
    "wisdom": "WIS",
    "charisma": "CHA",
    "intelligence": "INT",
    "int_score": "INT score",
    "wis_score": "WIS score",
    "cha_score": "CHA score",
    "proficiency": "proficiency",
    "hp": "HP",
    "weapon": "weapon",
    "armor": "armor",
    "shield": "shield",
    "off_hand": "off hand",
    "knightly_combat": "Knightly Combat",
    "feats": "Martial Feats",
    "magic_ac": "magic AC",
}


@dataclass(frozen=True, slots=True)
class Gear:
    """A character's equipment as the catalog knows it today; None where a saved key is no longer in it."""

    weapon: Weapon | None
    armor: Armor | None
    shield: Shield | None
    off_hand: Weapon | None

    @classmethod
    def of(cls, character: Character, catalog: Catalog) -> Gear:
        return cls(
            weapon=_or_none(catalog.weapon, character.weapon),
            armor=_or_none(catalog.armor, character.armor),
            shield=_or_none(catalog.shield, character.shield),
            off_hand=_or_none(catalog.weapon, character.off_hand),
        )


def _or_none(look_up: Callable[[str], _Entry], key: str | None) -> _Entry | None:
    if key is None:
        return None
    try:
        return look_up(key)
    except UnknownEntry:
        return None


def character_pool_size(character: Character, gear: Gear) -> int:
    """R6: Prowess + 1 (at most 4), one die fewer in armor with Max Dex +1 or less."""
    return pool_size(character.prowess, gear.armor)


def character_defense(character: Character, gear: Gear) -> list[Modifier] | None:
    """R13: the parts of the passive defense, or None when the gear it depends on is missing."""
    if gear.weapon is None or gear.armor is None or (character.shield is not None and gear.shield is None):
        return None
    fighter = Fighter(
        name=character.name,
        prowess=character.prowess,
        dex_mod=character.dexterity,
        weapon=gear.weapon,
        off_hand=gear.off_hand,
        armor=gear.armor,
        shield=gear.shield,
        feats=frozenset(character.feats),
    )
    return passive_defense(fighter).bonus


def defense_text(parts: Sequence[Modifier]) -> str:
    """``13`` = 8 Base +2 Prowess +1 Dex +2 Heater Shield."""
    total = sum(part.value for part in parts)
    first, *rest = parts
    breakdown = " ".join(
        [f"{first.value} {first.label}", *(f"{part.value:+d} {part.label}" for part in rest)]
    )
    return f"**{total}** = {breakdown}"


def weapon_text(weapon: Weapon) -> str:
    hands = ", two-handed" if weapon.two_handed else ""
    return (
        f"{shown(weapon.name)} — {weapon.damage}, reach {weapon.reach}, speed {weapon.speed}, "
        f"defense {signed(weapon.defense)}{hands}"
    )


def armor_text(armor: Armor) -> str:
    cap = "no Max Dex" if armor.max_dex is None else f"Max Dex {signed(armor.max_dex)}"
    if armor.dr_pierce == 0 and armor.bypass == 0:
        return f"{shown(armor.name)} — no DR, {cap}"
    return f"{shown(armor.name)} — DR {armor.dr_pierce}, bypass {armor.bypass}, {cap}"


def shield_text(shield: Shield) -> str:
    return f"{shown(shield.name)} — defense {signed(shield.defense)}"


def missing_text(key: str) -> str:
    return f"`{key}` (no longer in the catalog: pick another with `/character edit`)"


def mind_text(label: str, modifier: int, score: int | None) -> str:
    """``WIS 13 (+1)`` with the score a spiritual attack lowers (R27), ``WIS +1`` without one."""
    return f"{label} {score} ({signed(modifier)})" if score is not None else f"{label} {signed(modifier)}"


def abilities_text(character: Character) -> str:
    return " · ".join(
        [
            f"Prowess {character.prowess}",
            f"DEX {signed(character.dexterity)}",
            mind_text("INT", character.intelligence, character.int_score),
            mind_text("WIS", character.wisdom, character.wis_score),
            mind_text("CHA", character.charisma, character.cha_score),
            f"Proficiency {signed(character.proficiency)}",
            f"HP {character.hp}",
        ]
    )


def pool_text(character: Character, gear: Gear) -> str:
    size = character_pool_size(character, gear)
    dice = "die" if size == 1 else "dice"
    text = f"**{size}** {dice}"
    if gear.armor is not None and gear.armor.costs_a_pool_die:
        text += f" (one fewer in {shown(gear.armor.name)})"
    return text


def sheet_embed(character: Character, catalog: Catalog, owner_id: int) -> discord.Embed:
    """The character sheet: abilities, Martial Pool (R6), passive defense (R13) and equipment."""
    gear = Gear.of(character, catalog)
    embed = discord.Embed(
        title=shown(character.name), description=f"Played by <@{owner_id}>", colour=SHEET_COLOUR
    )
    embed.add_field(name="Abilities", value=abilities_text(character), inline=False)
    embed.add_field(name="Martial Pool (R6)", value=pool_text(character, gear), inline=True)
    defense = character_defense(character, gear)
    embed.add_field(
        name="Passive defense (R13)",
        value=defense_text(defense) if defense is not None else "unknown until the equipment is fixed",
        inline=True,
    )
    embed.add_field(
        name="Weapon",
        value=weapon_text(gear.weapon) if gear.weapon is not None else missing_text(character.weapon),
        inline=False,
    )
    if character.off_hand is not None:
        embed.add_field(
            name="Off hand (R26)",
            value=weapon_text(gear.off_hand)
            if gear.off_hand is not None
            else missing_text(character.off_hand),
            inline=False,
        )
    embed.add_field(
        name="Armor",
        value=armor_text(gear.armor) if gear.armor is not None else missing_text(character.armor),
        inline=False,
    )
    if character.shield is not None:
        embed.add_field(
            name="Shield",
            value=shield_text(gear.shield) if gear.shield is not None else missing_text(character.shield),
            inline=False,
        )
    if character.knightly_combat:
        embed.add_field(name="Proficiencies", value="Knightly Combat (mounted combat, R25)", inline=False)
    if character.magic_ac:
        embed.add_field(
            name="Magic AC (R24)",
            value=f"+{character.magic_ac} to the Armor Class attacks against AC meet",
            inline=False,
        )
    if character.feats:
        embed.add_field(
            name="Martial Feats",
            value="\n".join(f"{feat.value}: {feat.effect}" for feat in character.feats),
            inline=False,
        )
    return embed


def character_line(character: Character, catalog: Catalog) -> str:
    """One line of ``/character list``: name, Prowess, HP and weapon."""
    weapon = _or_none(catalog.weapon, character.weapon)
    weapon_name = shown(weapon.name) if weapon is not None else f"`{character.weapon}`"
    return f"**{shown(character.name)}** · Prowess {character.prowess} · HP {character.hp} · {weapon_name}"


def roster_embed(characters: Sequence[Character], catalog: Catalog, owner_id: int) -> discord.Embed:
    """``/character list``: every character of one player in this server."""
    if characters:
        lines = [character_line(character, catalog) for character in characters]
    else:
        lines = ["No characters yet. Make one with `/character create`."]
    header = f"Played by <@{owner_id}>"
    return discord.Embed(
        title="Characters",
        description=_clip([header, "", *lines]),
        colour=SHEET_COLOUR,
    )


def changes_text(before: Character, after: Character, catalog: Catalog) -> str:
    """``Prowess 2 → 3; weapon Sword, Arming → Longsword``: the fields an edit changed.

    Semicolons between them, because catalog names have commas in them."""
    old, new = before.model_dump(), after.model_dump()
    return "; ".join(
        f"{FIELD_LABELS.get(field, field)} {_value(field, old[field], catalog)} → "
        f"{_value(field, new[field], catalog)}"
        for field in old
        if old[field] != new[field]
    )


def _value(field: str, value: object, catalog: Catalog) -> str:
    if value is None or value == []:
        return "none"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        entry: Weapon | Armor | Shield | None = None
        if field in ("weapon", "off_hand"):
            entry = _or_none(catalog.weapon, value)
        elif field == "armor":
            entry = _or_none(catalog.armor, value)
        elif field == "shield":
            entry = _or_none(catalog.shield, value)
        return shown(entry.name if entry is not None else value)
    return str(value)


def _clip(lines: list[str], limit: int = DESCRIPTION_LIMIT) -> str:
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        if used + len(line) + 1 > limit - 40:
            kept.append(f"… and {len(lines) - index} more")
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)


# ------------------------------------------------------------------------------------- /join, /leave


def joined_text(
    encounter: Encounter, owner_id: int, combatant_name: str, *, returning: Combatant | None = None
) -> str:
    """R2: a joining character acts on its player's card: this round if they hold one, else from the deal.
    One ``returning`` to this fight after leaving it comes back as it left, and the reply says so."""
    holder = player_holder(owner_id)
    card = encounter.initiative.cards.get(holder)
    who = f"**{shown(combatant_name)}** joins the fight"
    if returning is not None:
        state = ", ".join([f"HP {returning.hp}/{returning.max_hp}", *returning.conditions])
        pool = returning.pool
        who = (
            f"**{shown(combatant_name)}** comes back to the fight as they left it ({shown(state)}, "
            f"{pool.remaining}/{pool.size} dice left)"
        )
    if card is not None:
        return f"{who}; acts on <@{owner_id}>'s card, which they already hold this round."
    if encounter.initiative.round == 0:
        return f"{who}; acts on <@{owner_id}>'s card from the first deal."
    return f"{who}; acts on <@{owner_id}>'s card from the next deal."


def left_text(combatant_name: str, owner_id: int, discarded: bool, *, cut_short: bool = False) -> str:
    """R2: when the last character on a player's card leaves, the card is discarded; when it was their
    turn (``cut_short``), it is over."""
    text = f"**{shown(combatant_name)}** leaves the fight."
    if discarded:
        text += f" <@{owner_id}> has no one left in it, so their card is discarded."
    return f"{text}\n{TURN_CUT_SHORT}" if cut_short else text


# ------------------------------------------------------------------------------------- autocomplete


def character_choices(characters: Sequence[Character], current: str) -> list[app_commands.Choice[str]]:
    """The player's characters whose name contains ``current`` (ignoring case), those starting with it
    first; the value is the name."""
    needle = current.strip().casefold()
    hits = [c for c in characters if needle in c.name.casefold()]
    hits.sort(key=lambda c: (not c.name.casefold().startswith(needle), c.name.casefold()))
    return [
        app_commands.Choice(
            name=_choice_name(f"{c.name} (Prowess {c.prowess}, HP {c.hp})", c.name), value=c.name
        )
        for c in hits[:CHOICE_LIMIT]
    ]


def player_combatant_choices(
    encounter: Encounter | None, owner_id: int, current: str
) -> list[app_commands.Choice[str]]:
    """The player's own combatants in this fight; the value is the combatant's id."""
    if encounter is None:
        return []
    needle = current.strip().casefold()
    return [
        app_commands.Choice(name=_choice_name(c.name, c.name), value=c.id)
        for c in encounter.combatants
        if c.side is Side.PLAYER and c.owner_id == owner_id and needle in c.name.casefold()
    ][:CHOICE_LIMIT]


def _choice_name(full: str, short: str) -> str:
    if len(full) <= CHOICE_NAME_LIMIT:
        return full
    return short if len(short) <= CHOICE_NAME_LIMIT else f"{short[: CHOICE_NAME_LIMIT - 1]}…"
