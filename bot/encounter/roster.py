"""Who is in a fight and with what numbers, who runs it, and how it starts and ends.

``/join`` and ``/leave`` bring a player's saved characters in and out; ``/npc add | remove`` the
GM's NPCs, in groups that act on one card (R2); ``/combatant hp | condition | edit`` their HP (a hurt
NPC group may have to check morale, R22), conditions, stats and gear (the Martial Pool follows
Prowess and armor, R6; the hands hold what fits, R26); ``/encounter start | end | options | gm`` the
fight itself; ``/server gm_role`` who may run fights on the server.

Each operation checks, changes the document it is given and returns a
:class:`~bot.encounter.done.Done` whose result carries what the reply needs and whose log lines
(:mod:`bot.encounter.log_lines`) tell the fight's log; a refusal raises having saved nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum

from pydantic import AwareDatetime, BaseModel, ConfigDict, ValidationError

from ..catalog import Catalog
from ..characters import NOTHING, Character
from ..guild_settings import GuildSettings
from ..rules.cards import Card
from ..rules.equipment import Armor, Shield, Size, Weapon
from ..rules.errors import IllegalAction, RulesError, shown
from ..rules.feats import MartialFeat
from ..rules.hands import check_hands
from ..rules.options import RuleOptions
from ..rules.pool import pool_size
from ..rules.situations import Steed
from ..wording.phrases import Change
from ..wording.roster import (
    TURN_CUT_SHORT,
    card_discarded_log_line,
    condition_log_line,
    defaults_log_line,
    edit_log_line,
    ended_log_line,
    gm_role_log_line,
    handed_over_log_line,
    hp_log_line,
    joined_log_line,
    left_log_line,
    npcs_added_log_line,
    npcs_removed_log_line,
    options_log_line,
    reopened_log_line,
    started_log_line,
)
from .document import MAX_CONDITION_ROUNDS, Combatant, Encounter, Lasting, Side, TableOptions, group_holder
from .done import Done
from .errors import NotAllowed, OtherFight, OutOfDate
from .fighters import NO_ARMOR
from .morale import group_snapshot, propose_checks
from .permissions import Actor, is_gm, may_run_fights, require_control, require_gm, require_may_run_fights
from .records import MoraleProposal
from .results import HpChange

# ----------------------------------------------------------------------------- the fight


def start(settings: GuildSettings, actor: Actor, by: str, channel_id: int) -> Done[Encounter]:
    """A new fight in the channel, run by whoever starts it (if the server lets them), with the
    server's rulings and table habits. The store creates it (refused if the channel has one already)."""
    require_may_run_fights(settings, actor, "start a fight")
    encounter = Encounter(
        channel_id=channel_id,
        guild_id=settings.guild_id,
        gm_id=actor.user_id,
        options=settings.options,
        table=settings.table,
    )
    return Done(encounter, log=[started_log_line(by)])


class FinalState(BaseModel):
    """A combatant as the fight left it, for its summary and its log file."""

    model_config = ConfigDict(frozen=True)

    name: str
    hp: int
    max_hp: int
    down: bool = False
    conditions: tuple[str, ...] = ()


ENDED = "ended"
"""The key of a fight's last log entry's data that keeps its :class:`EndedFight`."""


class EndedFight(BaseModel):
    """What is kept of a fight once it ended, in the data of its last log entry (``data["ended"]``): its
    GM, when it started, how many rounds it ran and how everyone came out of it. The fight itself is
    deleted; with this and the channel's log, its summary and its log file can be made again."""

    model_config = ConfigDict(frozen=True)

    fight: str
    """The fight's :attr:`~bot.encounter.document.Encounter.tag`."""
    gm_id: int
    started_at: AwareDatetime
    rounds: int
    final_state: tuple[FinalState, ...] = ()

    @classmethod
    def of(cls, encounter: Encounter) -> EndedFight:
        return cls(
            fight=encounter.tag,
            gm_id=encounter.gm_id,
            started_at=encounter.started_at,
            rounds=encounter.initiative.round,
            final_state=tuple(
                FinalState(
                    name=combatant.name,
                    hp=combatant.hp,
                    max_hp=combatant.max_hp,
                    down=combatant.is_down,
                    conditions=tuple(combatant.conditions),
                )
                for combatant in encounter.combatants
            ),
        )

    @classmethod
    def recorded(cls, data: Mapping[str, object]) -> EndedFight | None:
        """The ended fight a log entry's data keeps, or None (another entry, or one that does not read)."""
        kept = data.get(ENDED)
        if not isinstance(kept, dict):
            return None
        try:
            return cls.model_validate(kept)
        except ValidationError:
            return None


@dataclass(frozen=True, slots=True)
class EndAsked:
    """What the GM is asked before the fight ends: how long it ran and who is in it; the confirmation's
    buttons carry its ``fight`` tag and ``version``, so they end this fight as it was shown, or nothing."""

    fight: str
    version: int
    rounds: int
    combatants: int


END_OUT_OF_DATE = (
    "The fight has changed since you asked to end it (someone acted in it, or it was handed on). "
    "Nothing was changed; `/encounter end` again asks about the fight as it is now."
)


def ask_to_end(encounter: Encounter, actor: Actor) -> EndAsked:
    """Only the GM may end the fight; what the confirmation shows them first."""
    require_gm(encounter, actor, "end the fight")
    return EndAsked(encounter.tag, encounter.version, encounter.initiative.round, len(encounter.combatants))


def end(
    encounter: Encounter, actor: Actor, by: str, *, fight: str | None = None, version: int | None = None
) -> Done[EndedFight]:
    """The GM ends the fight: it is deleted, and its last log line says after how many rounds and keeps
    the :class:`EndedFight` (the log stays, so the fight's log can be had again once it is gone).

    ``fight`` and ``version`` are the tag and version the GM's confirmation was drawn for: a click on one
    from an earlier fight, or from before this one changed, is refused and ends nothing."""
    if fight is not None and fight != encounter.tag:
        raise OtherFight()
    require_gm(encounter, actor, "end the fight")
    if version is not None and version != encounter.version:
        raise OutOfDate(END_OUT_OF_DATE)
    ended = EndedFight.of(encounter)
    line = ended_log_line(by, encounter.initiative.round)
    return Done(ended, log=[line], end=True, data={ENDED: ended.model_dump(mode="json")})


def keep_going(encounter: Encounter, actor: Actor, *, fight: str) -> Done[None]:
    """The GM's "Keep it going" under the confirmation: nothing changes but the fight's version, so
    that the same confirmation's "End the fight", clicked too, is refused instead of ending the fight
    the GM was just told goes on (it logs nothing: no step of the fight's history)."""
    if fight != encounter.tag:
        raise OtherFight()
    require_gm(encounter, actor, "keep the fight going")
    return Done(None)


def reopen(ended: Encounter, actor: Actor, by: str) -> Done[Encounter]:
    """The GM of an ended fight (or Manage Server) brings it back, exactly as it ended (the store saves it
    at the version after the one it ended at, so what was drawn before the end stays stale), with the
    line "X reopened the fight". Refused to anyone else; the store refuses it while a fight runs."""
    require_gm(ended, actor, "reopen it")
    return Done(ended, log=[reopened_log_line(by)])


def option_changes(old: BaseModel, new: BaseModel) -> list[Change]:
    """The fields whose values differ between two option sets of the same kind, in declaration order."""
    return [
        (field, getattr(old, field), getattr(new, field))
        for field in type(old).model_fields
        if getattr(old, field) != getattr(new, field)
    ]


def change_options(
    encounter: Encounter, actor: Actor, rules: Mapping[str, object], table: Mapping[str, object]
) -> Done[list[Change]]:
    """The GM sets some of the fight's rulings (:class:`RuleOptions`) and table habits
    (:class:`TableOptions`); the result lists those that changed (none: nothing is logged)."""
    require_gm(encounter, actor, "change the fight's options")
    options: RuleOptions = encounter.options.model_copy(update=dict(rules))
    table_options: TableOptions = encounter.table.model_copy(update=dict(table))
    changes = option_changes(encounter.options, options) + option_changes(encounter.table, table_options)
    encounter.options, encounter.table = options, table_options
    return Done(changes, log=[options_log_line(changes)] if changes else [])


# ----------------------------------------------------------------------------- who runs it


@dataclass(frozen=True, slots=True)
class HandedOver:
    old_gm: int
    new_gm: int


def hand_over(
    encounter: Encounter, actor: Actor, by: str, settings: GuildSettings, member: Actor, whom: str
) -> Done[HandedOver]:
    """The GM hands the fight to ``member`` (named ``whom``), who must be allowed to run fights here."""
    require_gm(encounter, actor, "hand the fight to someone else")
    mention = f"<@{member.user_id}>"
    if encounter.gm_id == member.user_id:
        raise RulesError(f"{mention} already runs this fight.")
    if not may_run_fights(settings, member):
        raise NotAllowed(
            f"{mention} can't run fights here: on this server only members with the "
            f"<@&{settings.gm_role_id}> role (or Manage Server) can."
        )
    old, encounter.gm_id = encounter.gm_id, member.user_id
    return Done(HandedOver(old, member.user_id), log=[handed_over_log_line(by, whom)])


@dataclass(frozen=True, slots=True)
class Role:
    """A server role as the settings need it: its id, and its name for the log."""

    id: int
    name: str


def set_gm_role(settings: GuildSettings, actor: Actor, by: str, role: Role | None) -> Done[GuildSettings]:
    """Manage Server: only members with ``role`` (or Manage Server) may start fights or be handed one;
    None lets anyone again. The result is the settings to save; its log lines are of kind "settings"."""
    if not actor.manages_server:
        raise NotAllowed("Only members with the Manage Server permission can set who may run fights here.")
    if role is not None and role.id == settings.guild_id:  # @everyone's id is the server's
        raise RulesError("Everyone has @everyone; to let anyone run fights, clear the GM role instead.")
    chosen = settings.model_copy(update={"gm_role_id": role.id if role is not None else None})
    return Done(chosen, log=[gm_role_log_line(by, role.name if role is not None else None)], kind="settings")


@dataclass(frozen=True, slots=True)
class DefaultsChanged:
    """The server's settings to save, and which of the defaults of new fights changed (none: nothing to
    save or log)."""

    settings: GuildSettings
    changes: list[Change]


def set_defaults(
    settings: GuildSettings, actor: Actor, by: str, rules: Mapping[str, object], table: Mapping[str, object]
) -> Done[DefaultsChanged]:
    """Manage Server: the rulings (:class:`RuleOptions`) and table habits (:class:`TableOptions`) the
    fights started after begin with; a running fight keeps its own. Its log lines are of kind "settings"."""
    if not actor.manages_server:
        raise NotAllowed("Only members with the Manage Server permission can set the defaults of new fights.")
    options: RuleOptions = settings.options.model_copy(update=dict(rules))
    table_options: TableOptions = settings.table.model_copy(update=dict(table))
    changes = option_changes(settings.options, options) + option_changes(settings.table, table_options)
    chosen = settings.model_copy(update={"options": options, "table": table_options})
    log = [defaults_log_line(by, changes)] if changes else []
    return Done(DefaultsChanged(chosen, changes), log=log, kind="settings")


def require_may_forget(actor: Actor) -> None:
    """Manage Server: only its members may delete what Pommel keeps about the server."""
    if not actor.manages_server:
        raise NotAllowed("Only members with the Manage Server permission can delete this server's data.")


def may_check_rolls(settings: GuildSettings, actor: Actor) -> bool:
    """Who may read the server's rolls, private ones included: members with Manage Server, and those
    with the server's GM role when it has one (not everyone, though anyone may run fights without)."""
    return actor.manages_server or (settings.gm_role_id is not None and settings.gm_role_id in actor.role_ids)


def require_may_check_rolls(settings: GuildSettings, actor: Actor) -> None:
    if may_check_rolls(settings, actor):
        return
    if settings.gm_role_id is None:
        raise NotAllowed(
            "Only members with Manage Server can read the server's rolls, private ones included "
            "(a server admin can name the server's GM role with `/server gm_role`; its members may too)."
        )
    raise NotAllowed(
        f"Only members with the <@&{settings.gm_role_id}> role or Manage Server can read the server's "
        "rolls, private ones included."
    )


# ----------------------------------------------------------------------------- players


def pool_armor(catalog: Catalog, sheet: Character) -> Armor | None:
    """The armor a joining character's pool is sized for (R6); a catalog without a No Armor entry
    means no armor at all."""
    if sheet.armor == NO_ARMOR and NO_ARMOR not in catalog.armors:
        return None
    return catalog.armor(sheet.armor)


def join(
    encounter: Encounter, user_id: int, player: str, sheet: Character, armor: Armor | None
) -> Done[Joined]:
    """A player's saved character joins the fight (:meth:`Encounter.join`); ``armor`` from
    :func:`pool_armor`."""
    returning = encounter.departed_as(user_id, sheet.key) is not None
    joined = encounter.join(user_id, sheet, armor)
    line = joined_log_line(player, joined, returning=returning)
    return Done(Joined(joined, returning), log=[line], data={"combatant": joined.id})


@dataclass(frozen=True, slots=True)
class Joined:
    combatant: Combatant
    returning: bool
    """It had left this fight and comes back as it left (HP, pool, conditions)."""


@dataclass(frozen=True, slots=True)
class Left:
    combatant: Combatant
    discarded: bool
    """Nobody is left on its player's card, which is discarded (R2)."""
    cut_short: bool
    """The turn in progress was theirs; it is over."""


def leaving(encounter: Encounter, actor: Actor, wanted: str | None) -> Combatant:
    """The player character leaving: the one named (by id or name), or the user's only one. A player
    takes out only their own; the GM may take out anyone's (a player who left the table, say)."""
    user_id = actor.user_id
    own = [c for c in encounter.combatants if c.side is Side.PLAYER and c.owner_id == user_id]
    if wanted is None:
        if not own:
            raise RulesError("You have no character in this fight.")
        if len(own) > 1:
            names = ", ".join(shown(c.name) for c in own)
            raise RulesError(f"You have several characters in this fight ({names}); name the one leaving.")
        return own[0]
    combatant = encounter.combatant(wanted)
    if combatant.side is not Side.PLAYER:
        raise RulesError(f"{shown(combatant.name)} is an NPC: the GM takes NPCs out with /npc remove.")
    if combatant.owner_id != user_id and not is_gm(encounter, actor):
        raise NotAllowed(
            f"{shown(combatant.name)} is not yours; only its player or the GM can take it out with /leave."
        )
    return combatant


def leave(encounter: Encounter, actor: Actor, player: str, wanted: str | None) -> Done[Left]:
    """A player takes a character out of the fight (see :func:`leaving` for which one)."""
    left = leaving(encounter, actor, wanted)
    emptied, cut_short = _take_out(encounter, [left])
    lines = [left_log_line(player, left)] + ([TURN_CUT_SHORT] if cut_short else [])
    return Done(Left(left, emptied is not None, cut_short), log=lines)


def _take_out(encounter: Encounter, targets: Sequence[Combatant]) -> tuple[Combatant | None, bool]:
    """Remove ``targets`` (all acting on one card). Returns the one whose leaving emptied the card (R2:
    it is discarded), None while someone is left on it, and whether the turn in progress was theirs
    (it is over)."""
    acting = encounter.initiative.turn_of == targets[0].holder
    emptied: Combatant | None = None
    for target in targets:
        if encounter.remove(target) is not None:
            emptied = target
    return emptied, acting and encounter.initiative.turn_of is None


# ----------------------------------------------------------------------------- NPCs


def add_npcs(
    encounter: Encounter,
    actor: Actor,
    by: str,
    catalog: Catalog,
    template: str,
    *,
    count: int = 1,
    name: str | None = None,
    group: str | None = None,
    leader: bool = False,
    prowess: int | None = None,
    dex: int | None = None,
    hp: int | None = None,
    morale: int | None = None,
) -> Done[list[Combatant]]:
    """The GM adds NPCs built from the catalog's monster ``template`` (:meth:`Encounter.add_npcs`)."""
    require_gm(encounter, actor, "add NPCs")
    monster = catalog.monster(template)
    armor = catalog.armor(monster.armor) if monster.armor else None
    added = encounter.add_npcs(
        monster,
        armor,
        count=count,
        name=name,
        group=group,
        leader=leader,
        prowess=prowess,
        dex_mod=dex,
        hp=hp,
        morale=morale,
    )
    return Done(added, log=[npcs_added_log_line(by, added, monster.name)])


def npcs(encounter: Encounter, wanted: str) -> list[Combatant]:
    """Whom ``/npc remove`` means: a combatant id picked from the list, a group, or an NPC by name."""
    for combatant in encounter.combatants:
        if combatant.id == wanted:
            targets = [combatant]
            break
    else:
        group = encounter.group_named(wanted)
        targets = encounter.members(group_holder(group)) if group else [encounter.combatant(wanted)]
    for target in targets:
        if target.side is not Side.NPC:
            raise IllegalAction(
                f"{shown(target.name)} is a player's character, not an NPC; "
                "take it out of the fight with /leave."
            )
    return targets


@dataclass(frozen=True, slots=True)
class Removal:
    removed: list[Combatant]
    emptied: str | None
    """The group left empty, if any."""
    discarded: Card | None
    """The card that group discarded, if it held one (R2)."""
    cut_short: bool
    """The turn in progress was theirs; it is over."""


def remove_npcs(encounter: Encounter, actor: Actor, by: str, wanted: str) -> Done[Removal]:
    """The GM takes an NPC, or a whole group (see :func:`npcs`), out of the fight."""
    require_gm(encounter, actor, "remove NPCs")
    targets = npcs(encounter, wanted)
    card = encounter.initiative.cards.get(targets[0].holder)
    emptied, cut_short = _take_out(encounter, targets)
    group = emptied.group if emptied is not None else None
    discarded = card if emptied is not None else None
    lines = [npcs_removed_log_line(by, targets)]
    if discarded is not None:
        lines.append(card_discarded_log_line(group, discarded))
    if cut_short:
        lines.append(TURN_CUT_SHORT)
    return Done(Removal(targets, group, discarded, cut_short), log=lines)


# ----------------------------------------------------------------------------- HP and conditions

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
