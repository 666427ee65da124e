"""``/combatant hp | condition | edit``: the numbers and conditions of one combatant in this channel's fight.

A player changes HP and conditions of their own characters; the GM of anyone. Only the GM edits a
combatant's stats and gear; the Martial Pool follows Prowess and armor (R6), and the gear must fit in
two hands (R26), as on a character sheet.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.characters import MAX_MODIFIER, MAX_NAME_LENGTH, MIN_MODIFIER, NOTHING
from bot.encounter.combatant import (
    CombatantEdit,
    change_condition,
    change_hp,
    condition_name,
    edit_combatant,
    grant_feat,
    parse_hp_change,
)
from bot.encounter.combatants import MAX_CONDITION_LENGTH, MAX_CONDITION_ROUNDS, MAX_HIT_DICE, MAX_HP
from bot.encounter.kept_entries import with_server_entries
from bot.encounter.records import FightMessage
from bot.encounter.results import HpChange
from bot.interactions.actors import actor_of, channel_encounter, encounter_channel
from bot.interactions.answering import answer
from bot.interactions.options import (
    CatalogKey,
    CombatantName,
    armor_choices,
    off_hand_choices,
    shield_or_nothing_choices,
    weapon_choices,
)
from bot.rules.armor_class import MAX_MAGIC_AC
from bot.rules.equipment import Size
from bot.rules.errors import RulesError
from bot.rules.feats import MartialFeat
from bot.rules.spirits import MAX_SCORE
from bot.ui.buttons import view_of
from bot.ui.combatant_choices import condition_choices
from bot.ui.encounter_views import (
    FEAT_CHOICE_NAMES,
    condition_reply,
    edit_reply,
    feat_reply,
    hp_announcement,
    hp_reply,
)
from bot.ui.morale_views import proposal_button

SteedChoice = Literal["heavy warhorse", "warhorse", "riding horse", "none"]
SizeChoice = Literal["T", "S", "M", "L", "VL"]


class HpChangeTransformer(app_commands.Transformer):
    @property
    def max_value(self) -> int:
        return 12

    async def transform(self, interaction: discord.Interaction, value: str) -> HpChange:
        return parse_hp_change(value)


@app_commands.guild_only()
class Combatant(
    commands.GroupCog, group_name="combatant", group_description="HP, conditions and stats in this fight"
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    # ------------------------------------------------------------------------------ hp

    @app_commands.command(name="hp", description="Take or give HP (-5, +3) or set it (12)")
    @app_commands.describe(who="Whose HP", change="-5 takes 5 HP, +3 gives 3, 12 sets HP to 12")
    async def hp(
        self,
        interaction: discord.Interaction,
        who: CombatantName,
        change: app_commands.Transform[HpChange, HpChangeTransformer],
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        saved, changed = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: change_hp(encounter, actor, by, who, change),
        )
        if not changed.proposals:
            await answer(interaction, hp_reply(changed.combatant, changed.old))
        else:
            notice = hp_announcement(changed, saved.gm_id, actor.user_id)
            view = view_of([[proposal_button(p, saved.tag) for p in changed.proposals]])
            sent = await answer(
                interaction,
                notice.content,
                allowed_mentions=notice.allowed_mentions,
                view=view or discord.utils.MISSING,
                echo=True,
            )
            if sent is not None:  # its buttons go once the check is rolled or dismissed
                proposed = [p.id for p in changed.proposals]
                shown = FightMessage(id=sent, proposals=proposed, dismissable=False)
                saved = await self.bot.fight_messages.remember(saved, shown, view)

    # ------------------------------------------------------------------------------ conditions

    @app_commands.command(name="condition", description="Add or remove a condition: prone, stunned, routed…")
    @app_commands.describe(
        who="Whose condition",
        action="Add it or remove it",
        condition=f"The condition (any short text, up to {MAX_CONDITION_LENGTH} characters)",
        rounds="Added: it runs out after this many deals (none: until removed)",
        until_next_turn_end="Added: it runs out when its holder's next turn ends",
    )
    async def condition(
        self,
        interaction: discord.Interaction,
        who: CombatantName,
        action: Literal["add", "remove"],
        condition: app_commands.Range[str, 1, MAX_CONDITION_LENGTH],
        rounds: app_commands.Range[int, 1, MAX_CONDITION_ROUNDS] | None = None,
        until_next_turn_end: bool = False,
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        wanted = condition_name(condition)
        _, changed = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: change_condition(
                encounter,
                actor,
                by,
                who,
                wanted,
                add=action == "add",
                rounds=rounds,
                until_turn_end=until_next_turn_end,
            ),
        )
        reply = condition_reply(changed.combatant, changed.condition, added=changed.added)
        await answer(interaction, reply)

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
        intelligence="INT modifier (a spiritual attack on INT, R27)",
        int_score="The INT score the fight keeps (a spirit drains it, R27)",
        wis_score="The WIS score the fight keeps (a spirit drains it, R27)",
        cha_score="The CHA score the fight keeps (a spirit drains it, R27)",
        hit_dice="A spirit's Hit Dice: at 0 HP it is gone for 100 ÷ HD days (R27)",
        wis="WIS modifier (morale, R21)",
        cha="CHA modifier (rally, R23)",
        max_hp="Maximum HP (HP above it drops to it)",
        weapon="Main weapon",
        armor="Armor (the Martial Pool follows it, R6)",
        shield=f"Shield ('{NOTHING}' for none)",
        off_hand=f"Second weapon, R26 ('{NOTHING}' to put it away)",
        repair="Mend the armor and shield: back to their full HP (R17)",
        leader="Make it its group's leader (R22, R23): the NPC group's, or the party's for a PC",
        knightly_combat="Proficient in Knightly Combat: mounted combat (R25)",
        steed="Make it a mount, of this kind, or 'none' (R25 mounted combat)",
        construct="A construct: numbers never give advantage against it (R25)",
        size="Its size: L is a large monster (horse, ogre), VL a huge one (dragon) for the numbers (R25)",
        magic_ac=f"AC from magic items and spells, 0-{MAX_MAGIC_AC} (R24; the total AC stays at most 22)",
    )
    @app_commands.rename(intelligence="int")
    @app_commands.autocomplete(
        weapon=weapon_choices,
        armor=armor_choices,
        shield=shield_or_nothing_choices,
        off_hand=off_hand_choices,
    )
    async def edit(
        self,
        interaction: discord.Interaction,
        who: CombatantName,
        name: app_commands.Range[str, 1, MAX_NAME_LENGTH] | None = None,
        prowess: app_commands.Range[int, 0, 20] | None = None,
        dex: app_commands.Range[int, MIN_MODIFIER, MAX_MODIFIER] | None = None,
        wis: app_commands.Range[int, MIN_MODIFIER, MAX_MODIFIER] | None = None,
        cha: app_commands.Range[int, MIN_MODIFIER, MAX_MODIFIER] | None = None,
        max_hp: app_commands.Range[int, 1, MAX_HP] | None = None,
        intelligence: app_commands.Range[int, MIN_MODIFIER, MAX_MODIFIER] | None = None,
        int_score: app_commands.Range[int, 0, MAX_SCORE] | None = None,
        wis_score: app_commands.Range[int, 0, MAX_SCORE] | None = None,
        cha_score: app_commands.Range[int, 0, MAX_SCORE] | None = None,
        hit_dice: app_commands.Range[int, 1, MAX_HIT_DICE] | None = None,
        weapon: CatalogKey | None = None,
        armor: CatalogKey | None = None,
        shield: CatalogKey | None = None,
        off_hand: CatalogKey | None = None,
        repair: bool | None = None,
        leader: bool | None = None,
        knightly_combat: bool | None = None,
        steed: SteedChoice | None = None,
        construct: bool | None = None,
        size: SizeChoice | None = None,
        magic_ac: app_commands.Range[int, 0, MAX_MAGIC_AC] | None = None,
    ) -> None:
        edit = CombatantEdit(
            name=name,
            prowess=prowess,
            dex=dex,
            wis=wis,
            cha=cha,
            max_hp=max_hp,
            intelligence=intelligence,
            int_score=int_score,
            wis_score=wis_score,
            cha_score=cha_score,
            hit_dice=hit_dice,
            weapon=weapon,
            armor=armor,
            shield=shield,
            off_hand=off_hand,
            repair=bool(repair),
            leader=leader,
            knightly_combat=knightly_combat,
            steed=steed,
            constructed=construct,
            size=Size(size) if size else None,
            magic_ac=magic_ac,
        )
        actor = actor_of(interaction)
        by = interaction.user.display_name
        server = await self.bot.catalogs.of(interaction.guild_id)
        _, edited = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: with_server_entries(
                encounter,
                server,
                self.bot.catalog,
                lambda catalog: edit_combatant(encounter, actor, by, catalog, who, edit),
            ),
        )
        if not edited.changes:
            await answer(interaction, "Those were already its values; nothing changed.", ephemeral=True)
            return
        await answer(interaction, edit_reply(edited.name, edited.changes))

    # ------------------------------------------------------------------------------ feat

    @app_commands.command(name="feat", description="GM: grant a combatant a Martial Feat, or take it back")
    @app_commands.describe(
        who="Who holds the feat",
        feat="The feat, by what the Codex says it does (the fight applies it)",
        remove="Take the feat back instead of granting it",
    )
    @app_commands.choices(
        feat=[app_commands.Choice(name=label, value=f.value) for f, label in FEAT_CHOICE_NAMES.items()]
    )
    async def feat(
        self,
        interaction: discord.Interaction,
        who: CombatantName,
        feat: app_commands.Choice[str],
        remove: bool = False,
    ) -> None:
        granted = MartialFeat(feat.value)
        actor = actor_of(interaction)
        by = interaction.user.display_name
        _, edited = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: grant_feat(encounter, actor, by, who, granted, remove=remove),
        )
        await answer(interaction, feat_reply(edited.name, granted, removed=remove))


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Combatant(bot))
