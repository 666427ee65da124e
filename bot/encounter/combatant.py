"""``/combatant hp | condition | edit | feat``: a combatant's HP (a hurt NPC group may have to check
morale, R22), conditions, stats and gear (the Martial Pool follows Prowess and armor, R6; the hands
hold what fits, R26) and Martial Feats.

Each operation checks, changes the document it is given and returns a
:class:`~bot.encounter.done.Done` whose result carries what the reply needs and whose log lines
(:mod:`bot.encounter.log_lines`) tell the fight's log; a refusal raises having saved nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum

from ..catalog import Catalog
from ..characters import NOTHING
from ..rules.equipment import Armor, Shield, Size, Weapon
from ..rules.errors import IllegalAction, RulesError, shown
from ..rules.feats import MartialFeat
from ..rules.hands import check_hands
from ..rules.pool import pool_size
from ..rules.situations import Steed
from ..wording.phrases import Change
from ..wording.roster import condition_log_line, edit_log_line, hp_log_line
from .combatants import MAX_CONDITION_ROUNDS, Combatant, Lasting
from .document import Encounter
from .done import Done
from .morale import group_snapshot, propose_checks
from .permissions import Actor, require_control, require_gm
from .records import MoraleProposal
from .results import HpChange

_HP_CHANGE = re.compile(r"^\s*([+-]?)\s*([0-9]{1,4})\s*$")
"""ASCII digits only: a regular expression's digit class would take an Arabic-Indic ``٣`` for 3."""


def parse_hp_change(text: str) -> HpChange:
    found = _HP_CHANGE.match(text)
    if found is None:
        raise RulesError(
            f"'{text[:20]}' is not an HP change. Write -5 to take 5 HP, +3 to give 3, or 12 to set HP to 12."
        )
    return HpChange(found.group(1), int(found.group(2)))


@dataclass(frozen=True, slots=True)
class HpChanged:
    combatant: Combatant
    old: int
    """The HP it had."""
    proposals: list[MoraleProposal]
    """R22: the morale check its group should make now (proposed to the GM), if any."""


def change_hp(encounter: Encounter, actor: Actor, by: str, who: str, change: HpChange) -> Done[HpChanged]:
    """Take, give or set a combatant's HP (its player or the GM); an NPC group it hurts enough is
    proposed a morale check (R22, :func:`~bot.encounter.morale.propose_checks`)."""
    combatant = encounter.combatant(who)
    require_control(encounter, actor, combatant, "change HP")
    before = group_snapshot(encounter, combatant.group) if combatant.group else None
    old = combatant.hp
    combatant.hp = combatant.clamp_hp(change.apply(old))
    if combatant.hp == old:
        raise IllegalAction(
            f"{shown(combatant.name)} is at HP {old}/{combatant.max_hp}, and `{change}` leaves it there: "
            "nothing was changed or posted."
        )
    proposals = propose_checks(encounter, before) if before is not None else []
    return Done(HpChanged(combatant, old, proposals), log=[hp_log_line(by, combatant, old, change)])


def condition_name(text: str) -> str:
    """A condition as the fight keeps it: its words, single-spaced."""
    wanted = " ".join(text.split())
    if not wanted:
        raise RulesError("Name the condition with at least one letter.")
    return wanted


@dataclass(frozen=True, slots=True)
class ConditionChanged:
    combatant: Combatant
    condition: str
    """As the combatant has (or had) it written."""
    added: bool


def change_condition(
    encounter: Encounter,
    actor: Actor,
    by: str,
    who: str,
    condition: str,
    *,
    add: bool,
    rounds: int | None = None,
    until_turn_end: bool = False,
) -> Done[ConditionChanged]:
    """Add or remove a condition (its player or the GM); ``condition`` from :func:`condition_name`.
    Added, it lasts ``rounds`` deals, or until the end of its holder's next turn, or until removed."""
    combatant = encounter.combatant(who)
    require_control(encounter, actor, combatant, "change conditions")
    lasting = _lasting(encounter, combatant, rounds, until_turn_end)
    if add:
        combatant.add_condition(condition, lasting)
        changed = condition
    elif lasting is not None:
        raise RulesError("A duration goes with `action:add`; removing a condition takes it off now.")
    else:
        changed = combatant.remove_condition(condition)
    log = condition_log_line(by, combatant, changed, added=add, lasting=lasting)
    return Done(ConditionChanged(combatant, changed, add), log=[log])


def _lasting(
    encounter: Encounter, combatant: Combatant, rounds: int | None, until_turn_end: bool
) -> Lasting | None:
    """How long a condition put on now lasts; none: until removed."""
    if rounds is not None and until_turn_end:
        raise RulesError(
            "Give the condition one duration: `rounds` (it runs out at a deal) or `until_next_turn_end` "
            "(it runs out when its holder's next turn ends), not both."
        )
    if rounds is not None:
        if not 1 <= rounds <= MAX_CONDITION_ROUNDS:
            raise RulesError(f"A condition lasts 1 to {MAX_CONDITION_ROUNDS} rounds.")
        return Lasting(rounds_left=rounds)
    if until_turn_end:
        return Lasting(until_turn_end=True, skip_turn_end=encounter.initiative.turn_of == combatant.holder)
    return None


# ----------------------------------------------------------------------------- the GM's edits


@dataclass(frozen=True, slots=True)
class CombatantEdit:
    """What ``/combatant edit`` was asked to change; at least one thing (``repair`` False is nothing).

    Gear is a catalog key or name; ``shield`` and ``off_hand`` take :data:`NOTHING` for none."""

    name: str | None = None
    prowess: int | None = None
    dex: int | None = None
    intelligence: int | None = None
    wis: int | None = None
    cha: int | None = None
    int_score: int | None = None
    wis_score: int | None = None
    cha_score: int | None = None
    hit_dice: int | None = None
    max_hp: int | None = None
    weapon: str | None = None
    armor: str | None = None
    shield: str | None = None
    off_hand: str | None = None
    repair: bool = False
    leader: bool | None = None
    knightly_combat: bool | None = None
    steed: str | None = None
    """A :class:`~bot.rules.situations.Steed` value, or :data:`NOTHING` for none (R25 mounted)."""
    constructed: bool | None = None
    size: Size | None = None
    magic_ac: int | None = None
    """R24: Armor Class added by magic items and spells."""

    def __post_init__(self) -> None:
        given = [getattr(self, f.name) for f in fields(self) if f.name != "repair"]
        if not self.repair and all(value is None for value in given):
            raise RulesError("Say what to change: a name, a stat or a piece of gear.")


@dataclass(frozen=True, slots=True)
class Edited:
    name: str
    """The combatant's name before the edit."""
    changes: list[Change]
    """Each change with its old and new value as the reply shows them (gear by its catalog name); empty
    when everything already had the values asked for (nothing is logged)."""


def gear_name(catalog: Catalog, field: str, value: object) -> object:
    """A weapon (main or off hand), armor or shield by its catalog name; any other value as it is."""
    tables: dict[str, Mapping[str, Weapon | Armor | Shield]] = {
        "weapon": catalog.weapons,
        "off_hand": catalog.weapons,
        "armor": catalog.armors,
        "shield": catalog.shields,
    }
    if field in ("armor_hp", "shield_hp") and value is None:
        return "whole"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, StrEnum):
        return value.value
    if field == "steed" and value is None:
        return "none"
    entry = tables[field].get(value) if field in tables and isinstance(value, str) else None
    return entry.name if entry is not None else value


def check_gear(catalog: Catalog, combatant: Combatant) -> None:
    """R26: the combatant's weapon, shield and off-hand weapon fit in two hands (:func:`check_hands`).

    Gear no longer in the catalog is left unchecked: there is nothing to tell how many hands it takes.
    """
    main = catalog.weapons.get(combatant.weapon)
    if main is None:
        return
    shield = catalog.shields.get(combatant.shield) if combatant.shield is not None else None
    off_hand = catalog.weapons.get(combatant.off_hand) if combatant.off_hand is not None else None
    check_hands(main, shield=shield, off_hand=off_hand)


def _nothing(value: str) -> bool:
    return value.strip().casefold() == NOTHING


def edit_combatant(
    encounter: Encounter, actor: Actor, by: str, catalog: Catalog, who: str, edit: CombatantEdit
) -> Done[Edited]:
    """The GM changes a combatant's name, stats or gear. The Martial Pool follows Prowess and armor
    (R6); new armor or a new shield comes whole, ``repair`` mends both (R17); a new leader takes over
    from its group's or the party's (R22, R23); what the hands hold must fit (R26).

    The edit is made on a copy of the roster, which replaces the document's only once every check
    has passed: a refused edit leaves the document as it was."""
    require_gm(encounter, actor, "edit combatants")
    draft = encounter.model_copy(deep=True)
    combatant = draft.combatant(who)
    before = combatant.name
    changes: list[Change] = []

    def put(label: str, field: str, value: object) -> None:
        old = getattr(combatant, field)
        if old != value:
            changes.append((label, gear_name(catalog, field, old), gear_name(catalog, field, value)))
            setattr(combatant, field, value)

    if edit.name is not None:
        new_name = " ".join(edit.name.split())
        if not new_name:
            raise RulesError("A name needs at least one letter or digit.")
        old_name = combatant.name
        draft.rename(combatant, new_name)
        if new_name != old_name:
            changes.append(("name", old_name, new_name))
    if edit.prowess is not None:
        put("Prowess", "prowess", edit.prowess)
    if edit.dex is not None:
        put("DEX", "dex_mod", edit.dex)
    if edit.intelligence is not None:
        put("INT", "int_mod", edit.intelligence)
    if edit.wis is not None:
        put("WIS", "wis_mod", edit.wis)
    if edit.cha is not None:
        put("CHA", "cha_mod", edit.cha)
    for label, field, score in (
        ("INT score", "int_score", edit.int_score),
        ("WIS score", "wis_score", edit.wis_score),
        ("CHA score", "cha_score", edit.cha_score),
        ("Hit Dice", "hit_dice", edit.hit_dice),
    ):
        if score is not None:
            put(label, field, score)
    if edit.max_hp is not None:
        put("max HP", "max_hp", edit.max_hp)
        put("HP", "hp", combatant.clamp_hp(combatant.hp))
    if edit.weapon is not None:
        put("weapon", "weapon", catalog.weapon(edit.weapon).key)
    if edit.armor is not None:
        put("armor", "armor", catalog.armor(edit.armor).key)
    if edit.shield is not None:
        put("shield", "shield", None if _nothing(edit.shield) else catalog.shield(edit.shield).key)
    if edit.leader is not None:
        if edit.leader:  # one leader per NPC group, and one for the party of player characters
            for other in draft.combatants:
                same = other.group == combatant.group and other.side is combatant.side
                if same and other.id != combatant.id and other.leader:
                    other.leader = False
                    changes.append((f"{other.name} leader", "yes", "no"))
        put("leader", "leader", edit.leader)
    if edit.knightly_combat is not None:
        put("Knightly Combat", "knightly_combat", edit.knightly_combat)
    if edit.steed is not None:
        steed = None if _nothing(edit.steed) else Steed(edit.steed)
        if steed is not None and combatant.position.mount is not None:
            raise IllegalAction(f"{shown(combatant.name)} is riding; a rider cannot be a mount too.")
        if steed is None:
            for rider in draft.combatants:
                if rider.position.mount == combatant.id:
                    raise IllegalAction(
                        f"{shown(rider.name)} rides {shown(combatant.name)}: "
                        "dismount first (/situation dismount)."
                    )
        put("mount", "steed", steed)
    if edit.constructed is not None:
        put("construct", "constructed", edit.constructed)
    if edit.size is not None:
        put("size", "size", edit.size)
    if edit.magic_ac is not None:
        put("magic AC", "magic_ac", edit.magic_ac)
    if edit.repair or edit.armor is not None:  # new armor comes whole
        put("armor HP", "armor_hp", None)
    if edit.repair or edit.shield is not None:
        put("shield HP", "shield_hp", None)
    if edit.off_hand is not None:
        put("off hand", "off_hand", None if _nothing(edit.off_hand) else catalog.weapon(edit.off_hand).key)
    if edit.weapon is not None or edit.shield is not None or edit.off_hand is not None:
        # Only when what the hands hold changes, so a fighter's other numbers stay editable.
        check_gear(catalog, combatant)
    worn = catalog.armors.get(combatant.armor) if combatant.armor else None
    size = pool_size(combatant.prowess, worn)
    pool = combatant.pool
    if size != pool.size:
        changes.append(("Martial Pool", pool.size, size))
        pool.resize(size)
    encounter.combatants = draft.combatants
    return Done(Edited(before, changes), log=[edit_log_line(by, before, changes)] if changes else [])


def grant_feat(
    encounter: Encounter, actor: Actor, by: str, who: str, feat: MartialFeat, *, remove: bool = False
) -> Done[Edited]:
    """The GM grants a combatant a Martial Feat, or takes one back; the fight applies it by the effect
    the Codex gives it (R13, R14, R17)."""
    require_gm(encounter, actor, "grant Martial Feats")
    combatant = encounter.combatant(who)
    holds = feat in combatant.feats
    if remove and not holds:
        raise RulesError(f"{shown(combatant.name)} does not hold {feat.value}; nothing was changed.")
    if not remove and holds:
        raise RulesError(f"{shown(combatant.name)} already holds {feat.value}; nothing was changed.")
    before = feats_text(combatant.feats)
    kept = set(combatant.feats) - {feat} if remove else set(combatant.feats) | {feat}
    combatant.feats = [f for f in MartialFeat if f in kept]
    changes: list[Change] = [("Martial Feats", before, feats_text(combatant.feats))]
    return Done(Edited(combatant.name, changes), log=[edit_log_line(by, combatant.name, changes)])


def feats_text(feats: list[MartialFeat]) -> str:
    return ", ".join(f.value for f in feats) or "none"
