"""``/spirit attack``: a spirit's spiritual attack on a living combatant's INT, WIS or CHA (R27).

The spirit rolls d20 + its attack modifier; the defender rolls an ability check at disadvantage unless
a protection of the text negates it. A win drains the damage from the ability score; at 0 the text's
effect befalls the defender, and the bot marks it as a condition. The fight keeps ability modifiers, not
scores, so the score is given (``defender_score``) or rated 7 + modifier as the text says for monsters.
Choices where the text is silent: the attack spends no Martial Pool dice (it is a Lords of Hack check,
not a Martial Pool roll), and damage dice are rolled with the attack and count only if it wins.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter import Combatant, Encounter
from bot.fighters import joker_bonus
from bot.fights import Outcome, update_fight
from bot.names import shown
from bot.notation import MAX_EXPRESSION_LENGTH, roll_notation
from bot.permissions import Actor, acting_combatant, require_turn
from bot.rules.dice import DiceSource
from bot.rules.errors import IllegalAction, RulesError
from bot.rules.initiative import RollKind
from bot.rules.spirits import SpiritProtection, SpiritTarget, spiritual_attack
from bot.ui.actors import actor_of, channel_fight, fight_channel
from bot.ui.combatant_choices import combatant_choices
from bot.ui.spirit_views import SpiritAttack, protection_choice_name, spirit_log_line, spirit_reply

Wanted = app_commands.Range[str, 1, 100]
AbilityChoice = Literal["INT", "WIS", "CHA"]
MAX_DAMAGE = 100
DOING = "make a spiritual attack"


def defender_modifier_of(target: Combatant, ability: SpiritTarget, given: int | None) -> int:
    """The defender's modifier for the check: the one given, else the fight's WIS or CHA modifier.

    The fight keeps no INT modifier, so an attack on INT needs it given."""
    if given is not None:
        return given
    if ability is SpiritTarget.WIS:
        return target.wis_mod
    if ability is SpiritTarget.CHA:
        return target.cha_mod
    raise RulesError(
        f"The fight does not know {shown(target.name)}'s INT modifier; give it with `defender_modifier:`."
    )


def mark_effect(target: Combatant, effect: str) -> bool:
    """R27: the effect at 0 becomes a condition on the defender, when it has room for one more."""
    if target.condition_named(effect) is not None:
        return False
    try:
        target.add_condition(effect)
    except IllegalAction:
        return False
    return True


def make_spiritual_attack(
    encounter: Encounter,
    actor: Actor,
    dice: DiceSource,
    *,
    who: str | None,
    target: str,
    ability: SpiritTarget,
    modifier: int,
    defender_modifier: int | None,
    defender_score: int | None,
    protection: SpiritProtection | None,
    confirmed: bool,
    proficiency: int | None,
    communion: bool,
    damage: int | None,
    damage_dice: str | None,
) -> SpiritAttack:
    """R27 on the fight: the acting spirit, on its own turn (R1), against a living combatant."""
    spirit = acting_combatant(encounter, actor, who, DOING)
    if not spirit.spirit:
        raise IllegalAction(
            f"{shown(spirit.name)} is not a spirit; only spirits make spiritual attacks (R27). "
            "Living fighters use /attack."
        )
    if spirit.out_of_the_fight:
        raise IllegalAction(f"{shown(spirit.name)} is {spirit.state_label} and cannot attack (R27).")
    require_turn(encounter, spirit, DOING)
    defender = encounter.combatant(target)
    if defender.id == spirit.id:
        raise IllegalAction(f"{shown(spirit.name)} cannot attack itself; pick a target.")
    if defender.spirit:
        raise IllegalAction(
            f"{shown(defender.name)} is a spirit too: spirits fight each other with their standard attack "
            "(/attack), not a spiritual one (R27)."
        )
    if (damage is None) == (damage_dice is None):
        given = "both" if damage is not None else "neither"
        raise RulesError(
            f"You gave {given} of `damage:` and `damage_dice:`. Give the spirit's damage as a number "
            "(`damage: 3`) or as dice to roll (`damage_dice: 1d6`)."
        )
    rolled = roll_notation(damage_dice, dice) if damage_dice is not None else None
    drained = rolled.total if rolled is not None else damage or 0
    if drained < 0:
        raise RulesError(f"The damage came to {drained}; a spiritual attack drains 0 or more points.")
    result = spiritual_attack(
        dice,
        attacker_modifier=modifier,
        defender_modifier=defender_modifier_of(defender, ability, defender_modifier),
        ability=ability,
        protections=(protection,) if protection is not None else (),
        confirmed=confirmed,
        proficiency=defender.proficiency if proficiency is None else proficiency,
        communion_last_week=communion,
        damage=drained,
        defender_score=defender_score,
        joker_bonus=joker_bonus(encounter, spirit, RollKind.ATTACK),
    )
    marked = mark_effect(defender, result.effect.value) if result.effect is not None else False
    return SpiritAttack(
        spirit=spirit.name,
        defender=defender.name,
        result=result,
        damage_roll=rolled if result.attacker_wins else None,
        condition_added=marked,
    )


@app_commands.guild_only()
class SpiritCog(commands.GroupCog, group_name="spirit", group_description="Spirits and their attacks (R27)"):
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
        defender_modifier="The target's modifier for that ability (default: its WIS or CHA in the fight)",
        defender_score="The target's current score in that ability (default: 7 + its modifier)",
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
        target: Wanted,
        ability: AbilityChoice,
        modifier: app_commands.Range[int, -10, 20],
        who: Wanted | None = None,
        defender_modifier: app_commands.Range[int, -10, 20] | None = None,
        defender_score: app_commands.Range[int, 0, 30] | None = None,
        protection: str | None = None,
        confirmed: bool = False,
        proficiency: app_commands.Range[int, 0, 10] | None = None,
        communion: bool = False,
        damage: app_commands.Range[int, 0, MAX_DAMAGE] | None = None,
        damage_dice: app_commands.Range[str, 1, MAX_EXPRESSION_LENGTH] | None = None,
    ) -> None:
        actor = actor_of(interaction)
        dice = self.bot.dice

        def apply(encounter: Encounter) -> Outcome[SpiritAttack]:
            done = make_spiritual_attack(
                encounter,
                actor,
                dice,
                who=who,
                target=target,
                ability=SpiritTarget(ability),
                modifier=modifier,
                defender_modifier=defender_modifier,
                defender_score=defender_score,
                protection=SpiritProtection(protection) if protection is not None else None,
                confirmed=confirmed,
                proficiency=proficiency,
                communion=communion,
                damage=damage,
                damage_dice=damage_dice,
            )
            return Outcome(done, log=[spirit_log_line(done)], kind="spirit")

        saved, done = await update_fight(self.bot.store, fight_channel(interaction), actor.user_id, apply)
        await interaction.response.send_message(spirit_reply(done))
        if done.condition_added:
            await self.bot.trackers.publish(saved)

    @attack.autocomplete("target")
    @attack.autocomplete("who")
    async def who_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return combatant_choices(await channel_fight(interaction), current)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(SpiritCog(bot))
