"""What ``/encounter``, ``/npc`` and ``/combatant`` show: the fight's overview, its options, and the
replies that tell the table what changed.

Every name a user typed (characters, NPCs, groups, conditions) goes through :func:`~bot.ui.tracker.name`
so it cannot break the formatting; mentions are text only, as the bot pings nobody by default.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from datetime import datetime

import discord

from ..catalog import Catalog
from ..encounter.combatant import HpChanged
from ..encounter.combatants import Combatant, Side
from ..encounter.document import Encounter
from ..encounter.lifecycle import HandedOver, option_changes
from ..guild_settings import GuildSettings
from ..rules.cards import Card
from ..rules.feats import MartialFeat
from ..rules.options import DEFAULT_OPTIONS, RuleOptions
from ..store import SetAsideFight
from ..store.upgrades import NEWER
from ..table_options import TableOptions, TablePreset
from ..wording.phrases import Change, listing
from ..wording.roster import TURN_CUT_SHORT, option_label, option_value
from ..wording.spirits import banishment_line
from .announcements import Announcement
from .buttons import Button, view_of
from .morale_views import proposal_line
from .tracker import (
    TRACKER_COLOUR,
    clip,
    conditions_label,
    name,
    packed,
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
    "passive_tie": "R13: a tie against a passive defense is a Bind, or a miss either side may declare one",
    "weapon_damage_in_binds": "R17: a Bind may damage the defender's weapon (how much is the GM's)",
    "bind_feats": "R14: two feats a Bind triggers strike together, or the initiative's first",
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

OVERVIEW_PAGE_LIMIT = 3500
"""The characters of a page of ``/encounter show`` (Discord allows 4,096 in an embed's description):
a big fight's overview goes on over as many pages as it needs, everyone in it."""
ALL_OF_THEM = 1_000_000
"""The overview's budget for the ranges: every pair, over as many pages as they take."""
OVERVIEW_BUTTON = re.compile(r"pommel:show:(?P<fight>[0-9a-f]+):(?P<page>\d+):(?P<way>back|on)")
"""A page button of ``/encounter show`` (:class:`bot.button_kinds.OverviewButton`): the fight's tag and
the page it shows (from 0), so it works after a restart and never shows another fight."""
OVERVIEW_GONE = (
    "That overview was of a fight that is over. `/encounter show` shows this channel's fight, if one runs."
)

PRESET_HELP = "Several table habits at once (each choice says which); habits you give as well win"
PRESET_SUMMARIES: dict[TablePreset, str] = {
    TablePreset.PLAY_BY_POST: "tracker reposted, held cards offered turns, defenses wait 1 day, "
    "reminders at 12 h",
    TablePreset.VOICE: "tracker edited in place, Jokers offered the turn, defenses wait 10 min, no reminders",
}
"""What each preset sets (:data:`~bot.table_options.PRESETS`), as its choice in Discord's list says."""


def preset_choice_name(preset: TablePreset) -> str:
    """A preset's choice in Discord's list (at most 100 characters): its name and what it sets."""
    return f"{preset.value}: {PRESET_SUMMARIES[preset]}"


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
    """The rulings this fight runs with that are not the defaults (docs/RULES.md)."""
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
        if combatant.feats:
            parts.append(f"feats: {', '.join(feat.value for feat in combatant.feats)}")
    if combatant.conditions:
        parts.append(", ".join(name(condition) for condition in combatant.conditions))
    return " · ".join(parts)


def overview_pages(encounter: Encounter, catalog: Catalog, *, guild_id: int, gm: bool) -> list[str]:
    """``/encounter show``, page by page: who runs the fight, where it stands, its options, everyone's
    numbers, and every pair at Melee or Grapple (R12); as many pages as a big fight needs.

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
        "**Rulings** changed from the defaults (docs/RULES.md):"
        if changed
        else "**Rulings**: the defaults (docs/RULES.md)",
    ]
    lines += changed
    lines.append(f"**Table**: {table_line(encounter.table)}")
    roster = ["", f"**Combatants** ({len(encounter.combatants)})"]
    if not encounter.combatants:
        roster.append("Nobody yet: players `/join`, the GM adds NPCs with `/npc add`.")
    for combatant in encounter.combatants:
        full = gm or combatant.side is Side.PLAYER
        roster.append(stats_line(catalog, combatant, full=full))
    ranges = range_lines(encounter, at_most=None, budget=ALL_OF_THEM)
    return packed([lines, roster, ranges], OVERVIEW_PAGE_LIMIT)


def overview_page(
    encounter: Encounter, catalog: Catalog, *, guild_id: int, gm: bool, page: int = 0
) -> tuple[discord.Embed, discord.ui.View | None]:
    """One page of ``/encounter show`` (the last one when the fight got shorter than ``page``), with
    the buttons to the page before and after it when there are several."""
    pages = overview_pages(encounter, catalog, guild_id=guild_id, gm=gm)
    page = max(0, min(page, len(pages) - 1))
    embed = discord.Embed(title="⚔️ This fight", description=pages[page], colour=TRACKER_COLOUR)
    add_waiting(embed, encounter)  # on every page: what the fight waits for, with links
    if len(pages) == 1:
        return embed, None
    embed.set_footer(text=f"Page {page + 1} of {len(pages)}")
    buttons = [
        Button(
            label="Previous page",
            emoji="◀️",
            style=discord.ButtonStyle.secondary,
            custom_id=f"pommel:show:{encounter.tag}:{max(0, page - 1)}:back",
            disabled=page == 0,
        ),
        Button(
            label="Next page",
            emoji="▶️",
            style=discord.ButtonStyle.primary,
            custom_id=f"pommel:show:{encounter.tag}:{min(page + 1, len(pages) - 1)}:on",
            disabled=page == len(pages) - 1,
        ),
    ]
    return embed, view_of([buttons])


def overview_embed(encounter: Encounter, catalog: Catalog, *, guild_id: int, gm: bool) -> discord.Embed:
    """The first page of ``/encounter show`` (the whole of it, for most fights)."""
    return overview_page(encounter, catalog, guild_id=guild_id, gm=gm)[0]


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


FEAT_CHOICE_NAMES = {
    MartialFeat.MISSILE_PARRYING: "Missile Parrying: weapon DB in active defense against missiles (R14)",
    MartialFeat.FUHLEN: "Fuhlen: its weapon takes no damage in a Bind (R17)",
    MartialFeat.BIND_AND_STRIKE: "Bind & Strike: a Bind gives an attack on the opponent (R14)",
    MartialFeat.MUTIEREN: "Mutieren: a Bind gives an attack on the opponent (R14)",
    MartialFeat.SHIELD_AND_WEAPON: "Shield and weapon: the shield's and the weapon's DB add up (R14)",
    MartialFeat.PASSIVE_WEAPON: "Weapon in passive defense: the weapon's DB counts passively (R13)",
}
"""The Martial Feats as a command offers them: the name and what the fight does with it (100 characters
at most, Discord's limit for a choice)."""


def feat_reply(combatant_name: str, feat: MartialFeat, *, removed: bool) -> str:
    """``/combatant feat``: what the combatant holds now, and what the fight does with it."""
    if removed:
        return f"🥋 **{name(combatant_name)}** no longer holds **{feat.value}**."
    return f"🥋 **{name(combatant_name)}** now holds **{feat.value}**: {feat.effect}."


def edit_reply(combatant_name: str, changes: Sequence[Change]) -> str:
    listed = "\n".join(f"- {label}: {_shown(old)} → **{_shown(new)}**" for label, old, new in changes)
    return f"✏️ **{name(combatant_name)}** changed:\n{listed}"


REOPENING = "the last one can be reopened"
NOTHING_TO_REOPEN = "No fight has ended in this channel that could be reopened."
NOTHING_SET_ASIDE = "Pommel has set no fight aside in this channel, so there is nothing to recover."
FORGOTTEN = "That fight is no longer kept here (it was reopened, or more have ended since)."


def already_running(running: Encounter | None, before: str) -> str:
    """The refusal of a fight where one is running, naming its GM."""
    gm = f" (GM: <@{running.gm_id}>)" if running is not None else ""
    return (
        f"A fight is already running in this channel{gm}. Its GM ends it with `/encounter end` "
        f"before {before}."
    )


RECOVER = "`/encounter recover`"
BRING_BACK = "`/encounter recover bring_back:True`"


def _why_unread(set_aside: SetAsideFight) -> str:
    """Why a fight was set aside, in the table's words (the exact fault is in the log and the file)."""
    if set_aside.reason.startswith(NEWER):
        return "it was saved by a newer version of Pommel than the one running now"
    return "its saved copy holds something this version of Pommel does not understand"


def set_aside_note(set_aside: SetAsideFight, *, starting: bool) -> str:
    """A fight whose stored document could not be read was set aside (kept whole): say so to the channel,
    why in the table's words, how its GM gets it back, and that a new fight starts afresh."""
    gm = f" (GM <@{set_aside.gm_id}>)" if set_aside.gm_id is not None else ""
    head = (
        f"⚠️ Pommel could not read the fight that was running here{gm}: {_why_unread(set_aside)}. It was set"
        f" aside, kept whole: its GM (or anyone with Manage Server) can download it with {RECOVER}, and bring"
        " it back with the same command once Pommel reads it again."
    )
    if starting:
        return f"{head} This new fight starts afresh."
    return f"{head} There is no fight in this channel now: the GM starts a new one with `/encounter start`."


def set_aside_file(set_aside: SetAsideFight, document: str) -> discord.File:
    """The fight set aside, as the JSON document the store kept, for its GM to download."""
    filename = f"pommel-fight-set-aside-{set_aside.channel_id}-{set_aside.id}.json"
    return discord.File(io.BytesIO(document.encode()), filename=filename)


def recover_reply(set_aside: SetAsideFight, *, readable: bool, running: bool) -> str:
    """``/encounter recover``'s private answer, with the fight's file: what it is, why it was set aside
    (the exact fault, for whoever runs the bot), and whether it can come back now."""
    when = f"<t:{int(set_aside.set_aside_at.timestamp())}:f>"
    gm = f", GM <@{set_aside.gm_id}>" if set_aside.gm_id is not None else ""
    head = (
        f"📦 The fight set aside in this channel on {when}{gm}, exactly as it was kept (attached). Pommel"
        f" set it aside because {set_aside.reason}."
    )
    if not readable:
        return (
            f"{head} This version of Pommel still can't read it; once a later one does, bring it back with"
            f" {BRING_BACK}."
        )
    if running:
        return (
            f"{head} This version of Pommel reads it now: end the fight running here (`/encounter end`), then"
            f" bring it back with {BRING_BACK}."
        )
    return f"{head} This version of Pommel reads it now: bring it back with {BRING_BACK}."


def recovered_reply(by: str, set_aside: SetAsideFight, encounter: Encounter) -> str:
    """The channel is told a fight set aside is running again, as it was when it was set aside."""
    when = f"<t:{int(set_aside.set_aside_at.timestamp())}:f>"
    return (
        f"♻️ **{name(by)}** brought back the fight set aside here on {when} (GM <@{encounter.gm_id}>): it goes"
        " on as it was then."
    )


def recovered_line(by: str, set_aside: SetAsideFight) -> str:
    """The log line of a fight brought back."""
    return f"{by} brought back the fight set aside on {set_aside.set_aside_at:%Y-%m-%d %H:%M} UTC"
