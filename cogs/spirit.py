"""``/spirit attack | drive-out | heal``: a spirit's spiritual attack on a living combatant's INT, WIS or
CHA, a possessing spirit driven out, and a drained score healed (R27).

The spirit rolls d20 + its attack modifier; the defender rolls an ability check at disadvantage unless
a protection of the text negates it. A win drains the damage from the ability score; at 0 the text's
effect befalls the defender, and the bot marks it as a condition (the feeble-minded, the mad and the
possessed are then the GM's to play). The fight keeps the score a drain lowers: from the character
sheet, else given (``defender_score``), else rated 7 + modifier as the text says for monsters. The GM
rules a possessing spirit driven out (the person returns at CHA 1, Frightened until healed to 3) and
heals drained scores.
Choices where the text is silent: the attack spends no Martial Pool dice (it is a Lords of Hack check,
not a Martial Pool roll), and damage dice are rolled with the attack and count only if it wins.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter.records import FightMessage
from bot.encounter.spirits import drive_out, heal_mind, make_spiritual_attack
from bot.interactions.actors import actor_of, encounter_channel
from bot.interactions.answering import answer
from bot.interactions.options import CombatantName
from bot.notation import MAX_EXPRESSION_LENGTH
from bot.rules.spirits import MAX_SCORE, SpiritProtection, SpiritTarget
from bot.ui.buttons import view_of
from bot.ui.morale_views import proposal_button
from bot.ui.spirit_views import driven_out_reply, mind_healed_reply, protection_choice_name, spirit_reply

AbilityChoice = Literal["INT", "WIS", "CHA"]
MAX_DAMAGE = 100


@app_commands.guild_only()
class Spirit(commands.GroupCog, group_name="spirit", group_description="Spirits and their attacks (R27)"):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name="attack", description="A spirit drains a living target's INT, WIS or CHA (R27)"
    )
    @app_commands.describe(
        target="The living combatant the spirit touches",
        ability="The score drained: INT (feeble-minded at 0), WIS (mad at 0), CHA (possessed at 0)",
        modifier="The spirit's attack modifier (its strong modifier), added to its d20",
        who="The spirit that attacks (default: yours, or for the GM the one whose turn it is)",
        defender_modifier="The target's modifier for that ability (default: the one the fight keeps)",
        defender_score="The target's score now (default: the one the fight keeps, else 7 + modifier)",
        protection="Negates the target's disadvantage (any one of the text's protections)",
        confirmed="The target was confirmed in the Church or had a Bar Mitzvah: adds its proficiency",
        proficiency="The target's proficiency bonus, if not the one the fight knows",
        communion="The target took Communion in the last week: advantage",
        damage="The spirit's damage, as a number of ability points",
        damage_dice="Or the spirit's damage as dice to roll, e.g. 1d6 (counts only if it wins)",
    )
    @app_commands.choices(
        protection=[
            app_commands.Choice(name=protection_choice_name(p), value=p.value) for p in SpiritProtection
        ]
    )
    async def attack(
        self,
        interaction: discord.Interaction,
        target: CombatantName,
        ability: AbilityChoice,
        modifier: app_commands.Range[int, -10, 20],
        who: CombatantName | None = None,
        defender_modifier: app_commands.Range[int, -10, 20] | None = None,
        defender_score: app_commands.Range[int, 0, MAX_SCORE] | None = None,
        protection: str | None = None,
        confirmed: bool = False,
        proficiency: app_commands.Range[int, 0, 10] | None = None,
        communion: bool = False,
        damage: app_commands.Range[int, 0, MAX_DAMAGE] | None = None,
        damage_dice: app_commands.Range[str, 1, MAX_EXPRESSION_LENGTH] | None = None,
    ) -> None:
        actor = actor_of(interaction)
        dice = self.bot.dice
        drained = SpiritTarget(ability)
        protected = SpiritProtection(protection) if protection is not None else None
        _, done = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: make_spiritual_attack(
                encounter,
                actor,
                dice,
                who=who,
                target=target,
                ability=drained,
                modifier=modifier,
                defender_modifier=defender_modifier,
                defender_score=defender_score,
                protection=protected,
                confirmed=confirmed,
                proficiency=proficiency,
                communion=communion,
                damage=damage,
                damage_dice=damage_dice,
            ),
        )
        await answer(interaction, spirit_reply(done))

    @app_commands.command(
        name="drive-out", description="GM: a possessing spirit is driven out; the person returns at CHA 1"
    )
    @app_commands.describe(
        target="The possessed combatant the spirit leaves (R27)",
        spirit="The spirit driven out, if it is in the fight: by divine means it checks morale (R22)",
    )
    async def drive_out(
        self, interaction: discord.Interaction, target: CombatantName, spirit: CombatantName | None = None
    ) -> None:
        actor = actor_of(interaction)
        saved, done = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: drive_out(encounter, actor, target=target, spirit=spirit),
        )
        if done.proposal is None:
            await answer(interaction, driven_out_reply(done))
        else:
            buttons = view_of([[proposal_button(done.proposal, saved.tag)]])
            sent = await answer(interaction, driven_out_reply(done), view=buttons, echo=True)
            if sent is not None:  # its button goes once the check is rolled or dismissed
                shown = FightMessage(id=sent, proposals=[done.proposal.id], dismissable=False)
                saved = await self.bot.fight_messages.remember(saved, shown, buttons)

    @app_commands.command(name="heal", description="GM: heal a score a spirit drained; at 3 its effect ends")
    @app_commands.describe(
        target="Whose score",
        ability="INT (feeble-minded below 3), WIS (mad below 3), CHA (Frightened below 3 after a possession)",
        points="How many points the score comes back",
    )
    async def heal(
        self,
        interaction: discord.Interaction,
        target: CombatantName,
        ability: AbilityChoice,
        points: app_commands.Range[int, 1, MAX_SCORE],
    ) -> None:
        actor = actor_of(interaction)
        healed = SpiritTarget(ability)
        _, done = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: heal_mind(encounter, actor, target=target, ability=healed, points=points),
        )
        await answer(interaction, mind_healed_reply(done))


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Spirit(bot))
