"""What ``/encounter``, ``/npc`` and ``/combatant`` show: the fight's overview, its options, and the
replies that tell the table what changed.

Every name a user typed (characters, NPCs, groups, conditions) goes through :func:`~bot.ui.tracker.name`
so it cannot break the formatting; mentions are text only, as the bot pings nobody by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import discord

from ..catalog import Catalog
from ..encounter.document import Combatant, Encounter, Side, TableOptions
from ..encounter.log_lines import TURN_CUT_SHORT, Change, banishment_line, listing, option_label, option_value
from ..encounter.roster import HandedOver, HpChanged, option_changes
from ..guild_settings import GuildSettings
from ..rules.cards import Card
from ..rules.options import DEFAULT_OPTIONS, RuleOptions
from ..store import SetAsideFight
from .announcements import Announcement
from .morale_views import proposal_line
from .tracker import (
    DESCRIPTION_LIMIT,
    TRACKER_COLOUR,
    clip,
    clip_keeping,
    conditions_label,
    name,
    pool_pips,
    range_lines,
)
from .waiting import add_waiting

RULE_OPTION_HELP: dict[str, str] = {
    "attack_types_vs_armor": "R17: DR from the armor's column for the attack type (Bash uses Pierce)",
    "dynamic_criticals": "R16: a primary-type attack with n ≥ 2 dice rolls n crit dice",
    "critical_damage": "R16: crit dice by attack type, a simple d10, or double damage",
    "bash_critical": "R16: a Bash crit deals nonlethal damage, or is a Knock-Out threat",
    "missile_tie": "R14: a tie against a missile is a near miss, or a Bind",
    "joker_bonus": "R3: the bonus to rolls made on a Joker's turn",
    "desperation_min_pool": "R6/R15: a desperation penalty never takes the pool below this",
    "routed_attack_disadvantage": "R25: Routed attackers are at disadvantage, like Frightened ones",
    "ac_natural_results": "R24: against AC a natural 20 always hits, a natural 1 always misses",
}
"""What each rule option decides (at most 100 characters: Discord's limit for an option's description)."""

TABLE_OPTION_HELP: dict[str, str] = {
    "repost_tracker": "Post the tracker anew at the bottom of the channel each turn (play-by-post)",
    "hide_npc_cards": "Show NPC groups' cards only when their turn comes",
    "claim_pause": "When Next stops to offer the turn to Jokers or held cards (R3, R4)",
    "defense_policy": "Who defends for NPCs, and for players who do not answer in time",
    "defense_timeout_minutes": "Minutes a player has to pick a defense before the policy decides (0: wait)",
    "remind_after_hours": "Hours a turn, defense or offered turn may wait before a ping reminds (0: off)",
    "players_undo": "Players may undo or redo the fight's last changes when they made all of them",
}

OVERVIEW_RANGES_BUDGET = 1500
"""The characters the overview keeps for the ranges (all of them, as many as fit), whatever the roster."""
REPLY_NAMES_LIMIT = 1500
"""The names a reply lists: 20 NPCs added or a group of 60 removed, with names of 64 characters and
all of them escaped, would take it past Discord's 2000 characters; the rest are counted instead."""


def _change_line(change: Change) -> str:
    field, old, new = change
    return f"{option_label(field)}: {option_value(old)} → **{option_value(new)}**"


def options_changed_reply(changes: Sequence[Change]) -> str:
    return _changed_reply(changes, "⚙️ The GM changed this fight's options:")


def defaults_changed_reply(changes: Sequence[Change]) -> str:
    """``/server defaults``: what the fights started from now on begin with."""
    return _changed_reply(changes, "⚙️ New fights on this server now start with (running ones keep theirs):")


def _changed_reply(changes: Sequence[Change], heading: str) -> str:
    if not changes:
        return "Those options were already set that way; nothing changed."
    return heading + "\n" + "\n".join(f"- {_change_line(change)}" for change in changes)


def not_default_lines(encounter: Encounter) -> list[str]:
    """The rulings this fight runs with that are not RULINGS.md's defaults."""
    return [
        f"{option_label(field)}: **{option_value(new)}** (default {option_value(old)})"
        for field, old, new in option_changes(DEFAULT_OPTIONS, encounter.options)
    ]


def table_line(table: TableOptions) -> str:
    """The table's habits on one line."""
    return " · ".join(
        f"{option_label(field)} **{option_value(getattr(table, field))}**" for field in TABLE_OPTION_HELP
    )


def options_embed(encounter: Encounter) -> discord.Embed:
    """Every option and its value now; those changed from the defaults are marked."""
    lines = [
        *_all_options(encounter.options, encounter.table),
        "",
        "The GM changes them with `/encounter options`.",
    ]
    return discord.Embed(title="⚙️ Options of this fight", description=clip(lines), colour=TRACKER_COLOUR)


def defaults_embed(settings: GuildSettings) -> discord.Embed:
    """``/server defaults`` without options: what new fights on the server start with."""
    lines = [
        *_all_options(settings.options, settings.table),
        "",
        "Manage Server changes them with `/server defaults`; a fight's GM with `/encounter options`.",
    ]
    return discord.Embed(
        title="⚙️ What new fights here start with", description=clip(lines), colour=TRACKER_COLOUR
    )


def _all_options(options: RuleOptions, table: TableOptions) -> list[str]:
    lines = ["**Rulings**"]
    for field, help_text in RULE_OPTION_HELP.items():
        line = _option_line(field, getattr(options, field), getattr(DEFAULT_OPTIONS, field))
        lines.append(f"{line} — *{help_text}*")
    lines += ["", "**Table**"]
    defaults = TableOptions()
    for field, help_text in TABLE_OPTION_HELP.items():
        line = _option_line(field, getattr(table, field), getattr(defaults, field))
        lines.append(f"{line} — *{help_text}*")
    return lines


def _option_line(field: str, value: object, default: object) -> str:
    changed = "" if value == default else f" (default {option_value(default)})"
    return f"{option_label(field)}: **{option_value(value)}**{changed}"


def tracker_url(guild_id: int, encounter: Encounter) -> str | None:
    if encounter.tracker is None:
        return None
    tracker = encounter.tracker
    return f"https://discord.com/channels/{guild_id}/{tracker.channel_id}/{tracker.message_id}"


def _gear(catalog: Catalog, combatant: Combatant) -> str:
    """Weapons (``&`` between two), then armor, then shield, by their catalog names."""
    weapons = [catalog.weapons.get(combatant.weapon)]
    keys = [combatant.weapon]
    if combatant.off_hand:
        weapons.append(catalog.weapons.get(combatant.off_hand))
        keys.append(combatant.off_hand)
    parts = [" & ".join(weapon.name if weapon else key for weapon, key in zip(weapons, keys, strict=True))]
    if combatant.armor and combatant.armor != "none":
        armor = catalog.armors.get(combatant.armor)
        parts.append(armor.name if armor else combatant.armor)
    if combatant.shield:
        shield = catalog.shields.get(combatant.shield)
        parts.append(shield.name if shield else combatant.shield)
    return " · ".join(name(part) for part in parts)


def stats_line(catalog: Catalog, combatant: Combatant, *, full: bool) -> str:
    """A combatant as the overview shows it; without ``full`` only what the tracker shows anyway."""
    who = f"**{name(combatant.name)}**"
    if combatant.side is Side.PLAYER and combatant.owner_id is not None:
        who += f" (<@{combatant.owner_id}>)"
    elif combatant.group is not None:
        who += f" ({name(combatant.group)}{', leader' if combatant.leader else ''})"
    parts = [who, f"HP {combatant.hp}/{combatant.max_hp}"]
    if combatant.is_down:
        parts.append("**down**")
    if full:
        pool = combatant.pool
        parts += [
            f"Prowess {combatant.prowess}",
            f"pool {pool_pips(combatant)} {pool.remaining}/{pool.size}",
            _gear(catalog, combatant),
        ]
    if combatant.conditions:
        parts.append(", ".join(name(condition) for condition in combatant.conditions))
    return " · ".join(parts)


def overview_embed(encounter: Encounter, catalog: Catalog, *, guild_id: int, gm: bool) -> discord.Embed:
    """``/encounter show``: who runs the fight, where it stands, its options, everyone's numbers, and
    the pairs at Melee or Grapple (R12).

    NPCs' numbers beyond HP are for the GM's eyes (``gm``); players see their own side in full.
    """
    state = encounter.initiative
    lines = [f"GM: <@{encounter.gm_id}>", f"Round: {state.round or 'not dealt yet'}"]
    url = tracker_url(guild_id, encounter)
    if url is not None:
        lines.append(f"Tracker: {url}")
    changed = not_default_lines(encounter)
    lines += [
        "",
        "**Rulings** changed from the defaults:" if changed else "**Rulings**: RULINGS.md's defaults",
    ]
    lines += changed
    lines.append(f"**Table**: {table_line(encounter.table)}")
    lines += ["", f"**Combatants** ({len(encounter.combatants)})"]
    if not encounter.combatants:
        lines.append("Nobody yet: players `/join`, the GM adds NPCs with `/npc add`.")
    for combatant in encounter.combatants:
        full = gm or combatant.side is Side.PLAYER
        lines.append(stats_line(catalog, combatant, full=full))
    ranges = range_lines(encounter, at_most=None, budget=OVERVIEW_RANGES_BUDGET)
    embed = discord.Embed(
        title="⚔️ This fight",
        description=clip_keeping(lines, ranges, DESCRIPTION_LIMIT),
        colour=TRACKER_COLOUR,
    )
    return add_waiting(embed, encounter)


def started_reply(encounter: Encounter) -> str:
    return (
        f"⚔️ A fight starts here, run by <@{encounter.gm_id}>. Players join with `/join`; "
        "the GM adds NPCs with `/npc add` and deals round 1 from the tracker."
    )


def reopened_reply(encounter: Encounter, by: str, ended_at: datetime) -> str:
    """``/encounter reopen``: the fight is back as it ended."""
    people = len(encounter.combatants)
    rounds = encounter.initiative.round
    when = f"in round {rounds}" if rounds else "before round 1"
    return (
        f"↩️ {name(by)} reopened the fight run by <@{encounter.gm_id}> that ended "
        f"<t:{int(ended_at.timestamp())}:R>: it is back as it ended, {when}, with {people} "
        f"combatant{'' if people == 1 else 's'}. Its tracker is posted below."
    )


def gm_handed_reply(handed: HandedOver) -> str:
    return f"👑 <@{handed.old_gm}> hands this fight to <@{handed.new_gm}>, who is now its GM."


def gm_role_reply(role_id: int | None) -> str:
    """``/server gm_role`` and ``clear_gm_role``: who may start fights now."""
    if role_id is None:
        return "👑 Anyone on this server may now start fights."
    return f"👑 Only members with the <@&{role_id}> role (or Manage Server) may now start fights here."


def who_runs_fights(encounter: Encounter | None, settings: GuildSettings) -> str:
    """``/encounter gm`` without a member: this fight's GM, and who may run fights on the server."""
    lines = [f"This fight's GM: <@{encounter.gm_id}>." if encounter else "No fight runs in this channel."]
    if settings.gm_role_id is None:
        lines.append("Anyone on this server may start a fight.")
    else:
        lines.append(
            f"Only members with the <@&{settings.gm_role_id}> role (or Manage Server) may run fights."
        )
    return "\n".join(lines)


def npcs_added_reply(added: Sequence[Combatant]) -> str:
    group = added[0].group or added[0].name
    names = listing(
        [f"**{name(npc.name)}**{' (leader)' if npc.leader else ''}" for npc in added], ", ", REPLY_NAMES_LIMIT
    )
    if len(added) == 1 and group == added[0].name:  # a group of its own
        return f"🆕 {names} joins the fight (it acts on a card of its own, R2)."
    verb, who = ("joins", "it acts") if len(added) == 1 else ("join", "they act")
    return f"🆕 {names} {verb} the fight in the group **{name(group)}** ({who} on the group's card)."


def npcs_removed_reply(
    removed: Sequence[Combatant],
    emptied: str | None,
    discarded: Card | None,
    *,
    hide_card: bool = False,
    cut_short: bool = False,
) -> str:
    """NPCs leaving; when their group is empty, whether its card went to the discards (R2), and
    whether the turn in progress was theirs (``cut_short``: it is over)."""
    names = listing([f"**{name(npc.name)}**" for npc in removed], ", ", REPLY_NAMES_LIMIT)
    verb = "leaves" if len(removed) == 1 else "leave"
    lines = [f"🚪 {names} {verb} the fight."]
    if emptied is not None and discarded is not None:
        card = "" if hide_card else f" ({discarded.label})"
        lines.append(f"Nobody is left in **{name(emptied)}**: its card{card} is discarded (R2).")
    elif emptied is not None and len(removed) > 1:
        lines.append(f"The group **{name(emptied)}** is gone.")
    if cut_short:
        lines.append(TURN_CUT_SHORT)
    return "\n".join(lines)


def hp_reply(combatant: Combatant, old: int) -> str:
    down = f" — **{combatant.state_label}**" if combatant.is_down else ""
    line = f"❤️ **{name(combatant.name)}**: HP {old} → **{combatant.hp}**/{combatant.max_hp}{down}"
    banished = banishment_line(combatant, old)
    return f"{line}\n✨ {name(banished)}." if banished is not None else line


def hp_announcement(changed: HpChanged, gm_id: int, actor_id: int) -> Announcement:
    """HP that set off a morale trigger (R22): the change, the proposed checks, and the GM pinged to
    roll them (unless the GM made the change)."""
    notice = Announcement([hp_reply(changed.combatant, changed.old), *map(proposal_line, changed.proposals)])
    gm = notice.notify(gm_id, actor_id)
    notice.lines.append(f"🏳️ {gm}: roll the check with the button, or see `/morale proposals`.")
    return notice


def conditions_text(combatant: Combatant) -> str:
    return conditions_label(combatant) or "none"


def condition_reply(combatant: Combatant, condition: str, *, added: bool) -> str:
    verb = "is now" if added else "is no longer"
    return (
        f"🩹 **{name(combatant.name)}** {verb} *{name(condition)}*. Conditions: {conditions_text(combatant)}."
    )


def _shown(value: object) -> str:
    return "none" if value is None else name(str(value))


def edit_reply(combatant_name: str, changes: Sequence[Change]) -> str:
    listed = "\n".join(f"- {label}: {_shown(old)} → **{_shown(new)}**" for label, old, new in changes)
    return f"✏️ **{name(combatant_name)}** changed:\n{listed}"


def set_aside_note(set_aside: SetAsideFight, *, starting: bool) -> str:
    """A fight whose stored document could not be read was set aside (kept whole, for whoever runs the
    bot): say so to the channel, why, and that a new fight starts afresh."""
    gm = f" (GM <@{set_aside.gm_id}>)" if set_aside.gm_id is not None else ""
    head = (
        f"⚠️ The fight that was running here{gm} could not be read ({set_aside.reason}), so it was set aside"
    )
    if starting:
        return f"{head}; it is kept for whoever runs the bot. This new fight starts afresh."
    return (
        f"{head}; it is kept for whoever runs the bot. There is no fight in this channel now: the GM "
        "starts a new one with `/encounter start`."
    )
