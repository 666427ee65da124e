"""``/move``, ``/range``, ``/save`` and ``/pool``: spending the Martial Pool outside attacks.

Moving (R19) and changing range with one opponent (R12) happen on the combatant's own turn; a saving
throw (R20) may come at any moment. Each spends dice from the pool (R7) in one transaction with its
log line, and a refusal (too many moves, too few dice, the wrong turn) changes nothing. ``/pool``
shows where a combatant's dice went this round; pools are not secret, so anyone may look at any.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter.attacks import change_range
from bot.encounter.document import Combatant, Encounter
from bot.encounter.done import Done
from bot.encounter.errors import NotAllowed
from bot.encounter.fighters import joker_bonus
from bot.encounter.log_lines import move_log_line, range_log_line, save_log_line
from bot.encounter.permissions import Actor, acting_combatant, is_gm, require_fight, require_turn
from bot.encounter.records import Reaction, ReactionKind
from bot.interactions import actor_of, channel_encounter, encounter_channel
from bot.rules import movement
from bot.rules.engagement import Range, RangeChange
from bot.rules.errors import IllegalAction
from bot.rules.initiative import RollKind
from bot.rules.movement import MoveResult
from bot.rules.pool import MAX_POOL, Spend
from bot.rules.saves import SaveResult, saving_throw
from bot.ui.buttons import view_of
from bot.ui.combatant_choices import combatant_choices
from bot.ui.exchange_views import reaction_buttons
from bot.ui.maneuver_views import move_reply, pool_report, range_announcement, save_reply
from bot.ui.rolls import SituationChoice, advantage_of

Wanted = app_commands.Range[str, 1, 100]
"""A combatant's id or name, picked from autocomplete."""
RangeChoice = Literal["onset", "melee", "grapple"]
SAVE_TARGET_MAX = 60
BONUS_LIMIT = 50


def pool_subjects(encounter: Encounter, actor: Actor, who: str | None) -> list[Combatant]:
    """Whose pool ``/pool`` shows: the one named (anyone's: pools are not secret), else the user's own
    combatants, else for the GM the NPCs whose card has the turn."""
    if who:
        return [encounter.combatant(who)]
    own = [c for c in encounter.combatants if c.owner_id == actor.user_id]
    if own:
        return own
    if is_gm(encounter, actor):
        turn_of = encounter.initiative.turn_of
        if turn_of is not None and encounter.is_npc_holder(turn_of):
            return encounter.members(turn_of)
        raise IllegalAction(
            "No NPC group's turn is in progress: name a combatant with `who:` to see its pool."
        )
    raise NotAllowed(
        "You have no combatant in this fight. Name one with `who:` to see its pool (pools are not "
        "secret), or bring your character in with /join."
    )


class Maneuvers(commands.Cog):
    """Moving, changing range, saving throws and looking at the Martial Pool."""

    def __init__(self, bot: Pommel) -> None:
        self.bot = bot

    async def who_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return combatant_choices(await channel_encounter(interaction), current)

    # ------------------------------------------------------------------------------ /move (R19)

    @app_commands.command(name="move", description="Move on your turn: the first move is free (R19)")
    @app_commands.describe(
        who="Who moves (default: your only combatant, or for the GM the NPC whose turn it is)",
        combat_range="Entering or leaving combat range (threatened by an opportunity attack): +1 die",
        run="Run: 4 moves for your whole pool, only if you have spent dice on nothing but moving",
    )
    @app_commands.guild_only()
    async def move(
        self,
        interaction: discord.Interaction,
        who: Wanted | None = None,
        combat_range: bool = False,
        run: bool = False,
    ) -> None:
        if run and combat_range:
            raise IllegalAction(
                "Pick one: `run` (4 moves for your whole pool) or a move with `combat_range` "
                "(entering or leaving combat range, 1 die more)."
            )
        actor = actor_of(interaction)
        by = interaction.user.display_name

        def apply(encounter: Encounter) -> Done[tuple[Combatant, MoveResult]]:
            combatant = acting_combatant(encounter, actor, who, "move")
            require_turn(encounter, combatant, "move")
            combatant.require_able("move")
            if run:
                result = movement.run(combatant.pool, combatant.moves)
            else:
                result = movement.move(combatant.pool, combatant.moves, combat_range=combat_range)
            combatant.moves = result.moves_this_round
            line = move_log_line(by, combatant, result, combat_range=combat_range)
            return Done((combatant, result), log=[line], kind="move", data=_spent(combatant, result.cost))

        saved, (combatant, result) = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, apply
        )
        await interaction.response.send_message(move_reply(combatant, result, combat_range=combat_range))
        await self.bot.trackers.publish(saved)

    move.autocomplete("who")(who_choices)

    # ------------------------------------------------------------------------------ /range (R12)

    @app_commands.command(name="range", description="Change range with one opponent: 1 die per step (R12)")
    @app_commands.rename(to="range")
    @app_commands.describe(
        target="The opponent whose range to you changes",
        to="Onset or Melee (Grapple is entered only by a grapple attack)",
        who="Who changes range (default: your only combatant, or the NPC whose turn it is)",
    )
    @app_commands.guild_only()
    async def range_change(
        self,
        interaction: discord.Interaction,
        target: Wanted,
        to: RangeChoice,
        who: Wanted | None = None,
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        wanted = Range[to.upper()]

        def apply(encounter: Encounter) -> Done[RangeOutcome]:
            mover = acting_combatant(encounter, actor, who, "change range")
            opponent = encounter.combatant(target)
            change, reaction = change_range(encounter, mover, opponent, wanted)
            controller = opponent.owner_id if opponent.owner_id is not None else encounter.gm_id
            line = range_log_line(by, mover, opponent, change, provoked=reaction is not None)
            outcome = RangeOutcome(mover, opponent, change, reaction, controller)
            return Done(outcome, log=[line], kind="range", data=_spent(mover, change.cost))

        saved, done = await self.bot.store.change(encounter_channel(interaction), actor.user_id, apply)
        announcement = range_announcement(
            done.mover,
            done.target,
            done.change,
            done.reaction,
            target_controller=done.controller,
            actor_id=actor.user_id,
        )
        owed = saved.reaction(done.target, done.mover, ReactionKind.OPPORTUNITY)
        buttons = view_of([reaction_buttons(saved, owed)]) if owed is not None else None
        await interaction.response.send_message(
            announcement.content,
            allowed_mentions=announcement.allowed_mentions,
            view=buttons or discord.utils.MISSING,
        )
        await self.bot.trackers.publish(saved)

    range_change.autocomplete("who")(who_choices)
    range_change.autocomplete("target")(who_choices)

    # ------------------------------------------------------------------------------ /save (R20)

    @app_commands.command(
        name="save", description="A saving throw: 1 free die, plus pool dice if you like (R20)"
    )
    @app_commands.describe(
        target="The number to reach (the save succeeds on a total at or above it)",
        dice="Martial Pool dice to add to the free die; the highest die counts",
        bonus="Added to the die that counts (the save's modifier)",
        who="Who saves (default: your only combatant, or the NPC whose turn it is)",
        situation="Advantage adds a die; disadvantage adds one and removes the highest (R10)",
        private="Only you see the roll (the dice spent show on the tracker, and the GM sees the log)",
    )
    @app_commands.guild_only()
    async def save(
        self,
        interaction: discord.Interaction,
        target: app_commands.Range[int, 1, SAVE_TARGET_MAX],
        dice: app_commands.Range[int, 0, MAX_POOL] = 0,
        bonus: app_commands.Range[int, -BONUS_LIMIT, BONUS_LIMIT] = 0,
        who: Wanted | None = None,
        situation: SituationChoice | None = None,
        private: bool = False,
    ) -> None:
        actor = actor_of(interaction)
        by = interaction.user.display_name
        advantage = advantage_of(situation)
        rolling = self.bot.dice

        def apply(encounter: Encounter) -> Done[tuple[Combatant, SaveResult, int]]:
            combatant = acting_combatant(encounter, actor, who, "make a saving throw")
            if dice:
                combatant.pool.spend(dice, Spend.SAVE)
            joker = joker_bonus(encounter, combatant, RollKind.SAVING_THROW)
            result = saving_throw(
                rolling, pool_dice=dice, bonus=bonus + joker, target=target, advantage=advantage
            )
            data: dict[str, object] = {
                "combatant": combatant.id,
                "faces": list(result.roll.faces),
                "counting": result.roll.counting,
                "bonus": result.bonus,
                "total": result.total,
                "target": target,
                "success": result.success,
                "spent": dice,
                "private": private,
            }
            line = save_log_line(by, combatant, result)
            return Done((combatant, result, joker), log=[line], kind="save", data=data)

        saved, (combatant, result, joker) = await self.bot.store.change(
            encounter_channel(interaction), actor.user_id, apply
        )
        await interaction.response.send_message(save_reply(combatant, result, joker=joker), ephemeral=private)
        if dice:
            await self.bot.trackers.publish(saved)

    save.autocomplete("who")(who_choices)

    # ------------------------------------------------------------------------------ /pool

    @app_commands.command(
        name="pool", description="Your Martial Pool: dice left, where they went, your moves"
    )
    @app_commands.describe(who="Whose pool (default: your combatants; for the GM, the NPCs whose turn it is)")
    @app_commands.guild_only()
    async def pool(self, interaction: discord.Interaction, who: Wanted | None = None) -> None:
        encounter = require_fight(await channel_encounter(interaction))
        subjects = pool_subjects(encounter, actor_of(interaction), who)
        await interaction.response.send_message(pool_report(encounter, subjects), ephemeral=True)

    pool.autocomplete("who")(who_choices)


@dataclass(frozen=True, slots=True)
class RangeOutcome:
    """What ``/range`` did, for its reply; ``controller`` plays the opponent (its player or the GM)."""

    mover: Combatant
    target: Combatant
    change: RangeChange
    reaction: Reaction | None
    controller: int


def _spent(combatant: Combatant, cost: int) -> dict[str, object]:
    return {"combatant": combatant.id, "spent": cost, "left": combatant.pool.remaining}


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Maneuvers(bot))
