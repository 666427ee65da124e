"""``/combatant hp | condition | edit``: the numbers and conditions of one combatant in this channel's fight.

A player changes HP and conditions of their own characters; the GM of anyone. Only the GM edits a
combatant's stats and gear; the Martial Pool follows Prowess and armor (R6), and the gear must fit in
two hands (R26), as on a character sheet.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.catalog import Catalog
from bot.characters import MAX_MODIFIER, MAX_NAME_LENGTH, MIN_MODIFIER
from bot.encounter.document import MAX_CONDITION_LENGTH, MAX_HP, Combatant, Encounter
from bot.encounter.done import Done
from bot.encounter.morale import group_snapshot, propose_checks
from bot.encounter.permissions import require_control, require_gm
from bot.encounter.records import MoraleProposal
from bot.interactions import actor_of, channel_encounter, encounter_channel
from bot.rules.equipment import Armor, Shield, Weapon
from bot.rules.errors import RulesError
from bot.rules.hands import check_hands
from bot.rules.pool import pool_size
from bot.ui.announcements import Announcement
from bot.ui.buttons import view_of
from bot.ui.combatant_choices import combatant_choices, condition_choices
from bot.ui.encounter_views import condition_reply, edit_reply, hp_reply
from bot.ui.equipment_choices import NOTHING, armor_choices, off_hand_choices, shield_choices, weapon_choices
from bot.ui.morale_views import proposal_button, proposal_line

NO_SHIELD = "none"
Wanted = app_commands.Range[str, 1, 100]
"""A name, id or catalog key picked from autocomplete; Discord refuses anything longer before we see it."""

_HP_CHANGE = re.compile(r"^\s*([+-]?)\s*(\d{1,4})\s*$")


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


def parse_hp_change(text: str) -> HpChange:
    found = _HP_CHANGE.match(text)
    if found is None:
        raise RulesError(
            f"'{text[:20]}' is not an HP change. Write -5 to take 5 HP, +3 to give 3, or 12 to set HP to 12."
        )
    return HpChange(found.group(1), int(found.group(2)))


class HpChangeTransformer(app_commands.Transformer):
    @property
    def max_value(self) -> int:
        return 12

    async def transform(self, interaction: discord.Interaction, value: str) -> HpChange:
        return parse_hp_change(value)


EditChange = tuple[str, object, object]
"""What an edit changed: a label, the old value and the new one."""


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
    if field == "leader":
        return "yes" if value else "no"
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


@app_commands.guild_only()
class CombatantCog(
    commands.GroupCog, group_name="combatant", group_description="HP, conditions and stats in this fight"
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def who_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return combatant_choices(await channel_encounter(interaction), current)

    async def _publish_reply(self, interaction: discord.Interaction, saved: Encounter, reply: str) -> None:
        await interaction.response.send_message(reply)
        await self.bot.trackers.publish(saved)

    # ------------------------------------------------------------------------------ hp

    @app_commands.command(name="hp", description="Take or give HP (-5, +3) or set it (12)")
    @app_commands.describe(who="Whose HP", change="-5 takes 5 HP, +3 gives 3, 12 sets HP to 12")
    async def hp(
        self,
        interaction: discord.Interaction,
        who: Wanted,
        change: app_commands.Transform[HpChange, HpChangeTransformer],
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name

        def apply(encounter: Encounter) -> Done[tuple[Combatant, int, list[MoraleProposal]]]:
            combatant = encounter.combatant(who)
            require_control(encounter, actor, combatant, "change HP")
            before = group_snapshot(encounter, combatant.group) if combatant.group else None
            old = combatant.hp
            combatant.hp = combatant.clamp_hp(change.apply(old))
            down = " (down)" if combatant.is_down else ""
            line = f"{by}: {combatant.name} HP {old} → {combatant.hp} ({change}){down}"
            proposals = propose_checks(encounter, before) if before is not None else []  # R22
            return Done((combatant, old, proposals), log=[line])

        saved, (combatant, old, proposals) = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, apply
        )
        if not proposals:
            await self._publish_reply(interaction, saved, hp_reply(combatant, old))
            return
        notice = Announcement([hp_reply(combatant, old), *(proposal_line(p) for p in proposals)])
        gm = notice.notify(saved.gm_id, actor.user_id)
        notice.lines.append(f"🏳️ {gm}: roll the check with the button, or see `/morale proposals`.")
        await interaction.response.send_message(
            notice.content,
            allowed_mentions=notice.allowed_mentions,
            view=view_of([[proposal_button(p) for p in proposals]]) or discord.utils.MISSING,
        )
        await self.bot.trackers.publish(saved)

    hp.autocomplete("who")(who_choices)

    # ------------------------------------------------------------------------------ conditions

    @app_commands.command(name="condition", description="Add or remove a condition: prone, stunned, routed…")
    @app_commands.describe(
        who="Whose condition",
        action="Add it or remove it",
        condition=f"The condition (any short text, up to {MAX_CONDITION_LENGTH} characters)",
    )
    async def condition(
        self,
        interaction: discord.Interaction,
        who: Wanted,
        action: Literal["add", "remove"],
        condition: app_commands.Range[str, 1, MAX_CONDITION_LENGTH],
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        wanted = " ".join(condition.split())
        if not wanted:
            raise RulesError("Name the condition with at least one letter.")

        def apply(encounter: Encounter) -> Done[tuple[Combatant, str]]:
            combatant = encounter.combatant(who)
            require_control(encounter, actor, combatant, "change conditions")
            if action == "add":
                combatant.add_condition(wanted)
                changed, line = wanted, f"{by}: {combatant.name} is now {wanted}"
            else:
                changed = combatant.remove_condition(wanted)
                line = f"{by}: {combatant.name} is no longer {changed}"
            return Done((combatant, changed), log=[line])

        saved, (combatant, changed) = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, apply
        )
        reply = condition_reply(combatant, changed, added=action == "add")
        await self._publish_reply(interaction, saved, reply)

    condition.autocomplete("who")(who_choices)

    @condition.autocomplete("condition")
    async def condition_suggestions(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        encounter = await channel_encounter(interaction)
        who = getattr(interaction.namespace, "who", None)
        combatant = None
        if encounter is not None and isinstance(who, str) and who:
            try:
                combatant = encounter.combatant(who)
            except RulesError:
                combatant = None
        removing = getattr(interaction.namespace, "action", None) == "remove"
        return condition_choices(combatant, current, removing=removing)

    # ------------------------------------------------------------------------------ edit

    @app_commands.command(name="edit", description="GM: change a combatant's name, stats or gear")
    @app_commands.describe(
        who="Whom to change",
        name="A new name",
        prowess="Prowess (the Martial Pool follows it, R6)",
        dex="DEX modifier",
        wis="WIS modifier (morale, R21)",
        cha="CHA modifier (rally, R23)",
        max_hp="Maximum HP (HP above it drops to it)",
        weapon="Main weapon",
        armor="Armor (the Martial Pool follows it, R6)",
        shield=f"Shield ('{NO_SHIELD}' for none)",
        off_hand=f"Second weapon, R26 ('{NOTHING}' to put it away)",
        repair="Mend the armor and shield: back to their full HP (R17)",
        leader="Make it its group's leader (R22, R23): the NPC group's, or the party's for a PC",
    )
    @app_commands.autocomplete(weapon=weapon_choices, armor=armor_choices, off_hand=off_hand_choices)
    async def edit(
        self,
        interaction: discord.Interaction,
        who: Wanted,
        name: app_commands.Range[str, 1, MAX_NAME_LENGTH] | None = None,
        prowess: app_commands.Range[int, 0, 20] | None = None,
        dex: app_commands.Range[int, MIN_MODIFIER, MAX_MODIFIER] | None = None,
        wis: app_commands.Range[int, MIN_MODIFIER, MAX_MODIFIER] | None = None,
        cha: app_commands.Range[int, MIN_MODIFIER, MAX_MODIFIER] | None = None,
        max_hp: app_commands.Range[int, 1, MAX_HP] | None = None,
        weapon: Wanted | None = None,
        armor: Wanted | None = None,
        shield: Wanted | None = None,
        off_hand: Wanted | None = None,
        repair: bool | None = None,
        leader: bool | None = None,
    ) -> None:
        given = (
            name,
            prowess,
            dex,
            wis,
            cha,
            max_hp,
            weapon,
            armor,
            shield,
            off_hand,
            repair or None,
            leader,
        )
        if all(value is None for value in given):
            raise RulesError("Say what to change: a name, a stat or a piece of gear.")
        actor = actor_of(interaction)
        catalog = self.bot.catalog
        by = interaction.user.display_name

        def apply(encounter: Encounter) -> Done[tuple[str, list[EditChange]]]:
            require_gm(encounter, actor, "edit combatants")
            combatant = encounter.combatant(who)
            before = combatant.name
            changes: list[EditChange] = []

            def put(label: str, field: str, value: object) -> None:
                old = getattr(combatant, field)
                if old != value:
                    changes.append((label, gear_name(catalog, field, old), gear_name(catalog, field, value)))
                    setattr(combatant, field, value)

            if name is not None:
                new_name = " ".join(name.split())
                if not new_name:
                    raise RulesError("A name needs at least one letter or digit.")
                old_name = combatant.name
                encounter.rename(combatant, new_name)
                if new_name != old_name:
                    changes.append(("name", old_name, new_name))
            if prowess is not None:
                put("Prowess", "prowess", prowess)
            if dex is not None:
                put("DEX", "dex_mod", dex)
            if wis is not None:
                put("WIS", "wis_mod", wis)
            if cha is not None:
                put("CHA", "cha_mod", cha)
            if max_hp is not None:
                put("max HP", "max_hp", max_hp)
                put("HP", "hp", combatant.clamp_hp(combatant.hp))
            if weapon is not None:
                put("weapon", "weapon", catalog.weapon(weapon).key)
            if armor is not None:
                put("armor", "armor", catalog.armor(armor).key)
            if shield is not None:
                put(
                    "shield",
                    "shield",
                    None if shield.strip().casefold() == NO_SHIELD else catalog.shield(shield).key,
                )
            if leader is not None:
                if leader:  # one leader per NPC group, and one for the party of player characters
                    for other in encounter.combatants:
                        same = other.group == combatant.group and other.side is combatant.side
                        if same and other.id != combatant.id and other.leader:
                            other.leader = False
                            changes.append((f"{other.name} leader", "yes", "no"))
                put("leader", "leader", leader)
            if repair or armor is not None:  # new armor comes whole
                put("armor HP", "armor_hp", None)
            if repair or shield is not None:
                put("shield HP", "shield_hp", None)
            if off_hand is not None:
                put(
                    "off hand",
                    "off_hand",
                    None if off_hand.strip().casefold() == NOTHING else catalog.weapon(off_hand).key,
                )
            if weapon is not None or shield is not None or off_hand is not None:
                # Only when what the hands hold changes, so a fighter's other numbers stay editable.
                check_gear(catalog, combatant)
            worn = catalog.armors.get(combatant.armor) if combatant.armor else None
            size = pool_size(combatant.prowess, worn)
            pool = combatant.pool
            if size != pool.size:
                changes.append(("Martial Pool", pool.size, size))
                pool.resize(size)
            listed = "; ".join(f"{label} {old} → {new}" for label, old, new in changes)
            lines = [f"{by} edited {before}: {listed}"] if changes else []
            return Done((before, changes), log=lines)

        saved, (before, changes) = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, apply
        )
        if not changes:
            await interaction.response.send_message(
                "Those were already its values; nothing changed.", ephemeral=True
            )
            return
        await self._publish_reply(interaction, saved, edit_reply(before, changes))

    edit.autocomplete("who")(who_choices)

    @edit.autocomplete("shield")
    async def shield_or_none(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        choices = await shield_choices(interaction, current)
        if NO_SHIELD.startswith(current.strip().casefold()):
            choices = [app_commands.Choice(name="No shield", value=NO_SHIELD), *choices[:24]]
        return choices


async def setup(bot: Pommel) -> None:
    await bot.add_cog(CombatantCog(bot))
