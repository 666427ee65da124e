"""``/odds``: the exact odds of an attack, from bare numbers anywhere, or filled in from the fight.

With numbers it works anywhere, DMs included, like ``/roll``. With ``target:`` in a fight's channel the
fight supplies the numbers: the attacker's bonus (R11, by the pair's range, R12, and the Joker, R3), its
own situations (R25), the target's passive defense (R13) and, when the target has dice left, an active
defense with all of them and its shield (R14). Nothing is rolled, spent or logged.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.catalog import Catalog
from bot.encounter.attacks import Declaration, plan_attack
from bot.encounter.document import Combatant, Encounter
from bot.encounter.fighters import fighter, shield_usable
from bot.encounter.log_lines import dice_count
from bot.encounter.permissions import Actor, acting_combatant
from bot.interactions import actor_of, channel_encounter
from bot.rules.combat import (
    AttackKind,
    active_defense_bonus,
    attack_bonus,
    check_attack,
    passive_defense,
)
from bot.rules.dice import Advantage, sum_of
from bot.rules.equipment import AttackType
from bot.rules.errors import IllegalAction, RulesError, shown
from bot.rules.odds import AttackOdds, attack_odds
from bot.rules.options import DEFAULT_OPTIONS, RuleOptions
from bot.rules.pool import MAX_POOL
from bot.ui.combatant_choices import combatant_choices
from bot.ui.odds_views import (
    NUMBERS_HELP,
    DefenseOdds,
    FightOdds,
    NumbersOdds,
    fight_reply,
    numbers_reply,
)
from bot.ui.rolls import SituationChoice, advantage_of

AttackTypeChoice = Literal["bash", "pierce", "chop", "slash"]
Wanted = app_commands.Range[str, 1, 100]
UNDEFENDED_CONDITIONS = ("helpless", "unaware")
"""R13: conditions that leave a target undefended (the fight also knows who is down or out cold)."""
SITUATION_GIVEN = "your `situation:`"


def numbers_odds(
    *,
    dice: int,
    bonus: int,
    defense: int | None,
    defense_dice: int | None,
    defense_bonus: int | None,
    advantage: Advantage,
    void: bool,
    missile: bool,
    options: RuleOptions,
) -> NumbersOdds:
    """``/odds`` with numbers: exactly one of a passive defense and active defense dice (R13, R14)."""
    if (defense is None) == (defense_dice is None):
        given = "both" if defense is not None else "neither"
        raise RulesError(f"You gave {given} of `defense:` and `defense_dice:`. {NUMBERS_HELP}")
    if defense is not None and defense_bonus is not None:
        raise RulesError(f"`defense_bonus:` goes with `defense_dice:` (an active defense). {NUMBERS_HELP}")
    if defense is not None and void:
        raise RulesError("`void:` is a way to defend actively (R14 step 6); give `defense_dice:` with it.")
    odds = attack_odds(
        attack_dice=dice,
        attack_bonus=bonus,
        passive_defense=defense,
        defense_dice=defense_dice or 0,
        defense_bonus=defense_bonus or 0,
        attack_advantage=advantage,
        void=void,
        missile=missile,
        options=options,
    )
    return NumbersOdds(
        dice=dice,
        bonus=bonus,
        advantage=advantage,
        missile=missile,
        odds=odds,
        passive_defense=defense,
        defense_dice=defense_dice or 0,
        defense_bonus=defense_bonus or 0,
        void=void,
    )


def undefended(target: Combatant) -> str | None:
    """Why ``target`` cannot defend (R13), if it cannot."""
    if target.out_of_the_fight:
        return target.state_label
    return next((c for c in UNDEFENDED_CONDITIONS if target.condition_named(c)), None)


def fight_odds(
    encounter: Encounter,
    catalog: Catalog,
    attacker: Combatant,
    target: Combatant,
    *,
    dice: int | None,
    attack_type: AttackType | None,
    extra: Advantage,
    void: bool,
) -> FightOdds:
    """The odds of ``attacker``'s next attack on ``target`` as the fight stands (R3, R11-R14, R25).

    The range is the one the attack would happen at (R12: a second attack in a round closes to Melee
    unless every attack of the round used 2+ dice), the attack type /attack would pick, and off its
    turn an attacker owed a counterattack or opportunity attack on the target makes that (Speed, R11).
    Reading the fight changes nothing in it.
    """
    if attacker.id == target.id:
        raise IllegalAction(f"{shown(attacker.name)} cannot attack themselves; pick another target.")
    attacking, defending = fighter(attacker, catalog), fighter(target, catalog)
    weapon = attacking.weapon
    dice = dice or 1
    missile = weapon.is_missile
    on_turn = encounter.initiative.turn_of == attacker.holder
    reaction = encounter.reaction(attacker, target)
    kind = AttackKind(reaction.kind.value) if reaction is not None and not on_turn else AttackKind.NORMAL
    # Holy Blessed: whether the weapon can harm a spirit is a note below, not a refusal.
    declared = Declaration(dice=dice, attack_type=attack_type, situation=extra, holy_blessed=True)
    attack, situations = plan_attack(encounter, attacking, attacker, target, declared, kind)
    at, chosen = attack.range, attack.attack_type
    check_attack(attacking, defending, attack)
    bonus = tuple(attack_bonus(attacking, defending, attack))
    name, attacker_name = shown(target.name), shown(attacker.name)
    notes: list[str] = []

    def against(passive: int | None = None, rolled: int = 0, defense_bonus: int = 0) -> AttackOdds:
        return attack_odds(
            attack_dice=dice,
            attack_bonus=sum_of(bonus),
            passive_defense=passive,
            defense_dice=rolled,
            defense_bonus=defense_bonus,
            attack_advantage=situations.advantage,
            void=void and rolled > 0,
            missile=missile,
            options=encounter.options,
        )

    helpless = undefended(target)
    passive = passive_defense(defending, missile=missile, undefended=helpless is not None)
    defenses = [DefenseOdds(against(passive.total), tuple(passive.bonus), undefended=helpless)]
    left = target.pool.remaining
    if helpless is None and left:
        # R12: passive only at Grapple; a void defense uses neither weapon nor shield (R14 step 6).
        shield = shield_usable(target, at) and not void
        parts = tuple(active_defense_bonus(defending, missile=missile, at=at, shield=shield, void=void))
        odds = against(rolled=left + int(shield), defense_bonus=sum_of(parts))
        defenses.append(DefenseOdds(odds, parts, dice=left, shield=shield, void=void))
        notes.append(
            f"A counterattack needs dice left after the defense (R14); with all of them in it, {name} "
            "would have none."
        )
    elif helpless is None:
        notes.append(
            f"{name} has no Martial Pool dice left this round, so it can only defend passively (R7)."
        )
    if dice > attacker.pool.remaining:
        notes.append(
            f"{attacker_name} has {dice_count(attacker.pool.remaining)} left this round (R7): these are the "
            "odds of an attack it cannot make now."
        )
    if target.spirit:
        notes.append(f"{name} is a spirit: only a Holy Blessed weapon harms it (R27).")
    elif attacker.spirit:
        notes.append(f"{attacker_name} is a spirit: it attacks the living with /spirit attack (R27).")
    labels = situations.labels + ((SITUATION_GIVEN,) if extra is not Advantage.NONE else ())
    return FightOdds(
        attacker=attacker.name,
        target=name,
        dice=dice,
        dice_left=attacker.pool.remaining,
        weapon=weapon.name,
        attack_type=chosen.value,
        kind=kind.value,
        range_label=at.label,
        bonus=bonus,
        advantage=situations.advantage,
        situations=labels,
        missile=missile,
        defenses=tuple(defenses),
        notes=tuple(notes),
    )


FIGHT_ONLY = ("who", "attack_type")
NUMBERS_ONLY = ("bonus", "defense", "defense_dice", "defense_bonus", "missile")


def odds_in_fight(
    encounter: Encounter | None,
    catalog: Catalog,
    actor: Actor,
    *,
    target: str,
    attacker: str | None,
    dice: int | None,
    attack_type: AttackType | None,
    extra: Advantage,
    void: bool,
) -> FightOdds:
    """``/odds target:``: the attacker is the one named in ``who:`` (yours, or anyone for the GM), else
    yours (:func:`~bot.encounter.permissions.acting_combatant`)."""
    if encounter is None:
        raise RulesError(f"There is no fight in this channel for `target:` to name. {NUMBERS_HELP}")
    attacking = acting_combatant(encounter, actor, attacker, "ask the odds of an attack")
    return fight_odds(
        encounter,
        catalog,
        attacking,
        encounter.combatant(target),
        dice=dice,
        attack_type=attack_type,
        extra=extra,
        void=void,
    )


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
class Odds(commands.Cog):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot

    @app_commands.command(name="odds", description="The exact odds of an attack: hit, critical, bind, fumble")
    @app_commands.describe(
        target="In a fight: whom to attack (the fight fills in every number)",
        who="In a fight: who attacks (default: your combatant; the GM names an NPC)",
        dice=f"Attack dice, 1 to {MAX_POOL} (default 1)",
        attack_type="In a fight: the attack type (default: the weapon's primary type)",
        bonus="Without a target: the attack bonus (Prowess + weapon + modifiers, R11)",
        defense="Without a target: the target's passive defense (R13)",
        defense_dice="Without a target: active defense dice, free shield/cover dice included (R14)",
        defense_bonus="Without a target: the active defense bonus (R14)",
        situation="The attacker's advantage or disadvantage (R10, R25)",
        void="The defender defends actively without weapon or shield DB: no Bind (R14 step 6)",
        missile="Without a target: a missile attack (a tie is a near miss, not a Bind)",
        public="Show the odds to the whole channel (default: only you)",
    )
    async def odds(
        self,
        interaction: discord.Interaction,
        target: Wanted | None = None,
        who: Wanted | None = None,
        dice: app_commands.Range[int, 1, MAX_POOL] | None = None,
        attack_type: AttackTypeChoice | None = None,
        bonus: app_commands.Range[int, -50, 50] | None = None,
        defense: app_commands.Range[int, -50, 80] | None = None,
        defense_dice: app_commands.Range[int, 1, MAX_POOL + 5] | None = None,
        defense_bonus: app_commands.Range[int, -50, 50] | None = None,
        situation: SituationChoice | None = None,
        void: bool = False,
        missile: bool | None = None,
        public: bool = False,
    ) -> None:
        given = {
            "who": who,
            "attack_type": attack_type,
            "bonus": bonus,
            "defense": defense,
            "defense_dice": defense_dice,
            "defense_bonus": defense_bonus,
            "missile": missile,
        }
        encounter = await channel_encounter(interaction)
        if target is not None:
            wrong = [f"`{name}:`" for name in NUMBERS_ONLY if given[name] is not None]
            if wrong:
                raise RulesError(
                    "With `target:` the fight supplies the bonus and the defense; leave out "
                    f"{', '.join(wrong)}, or leave out `target:` to work from your own numbers."
                )
            fight = odds_in_fight(
                encounter,
                self.bot.catalog,
                actor_of(interaction),
                target=target,
                attacker=who,
                dice=dice,
                attack_type=AttackType(attack_type) if attack_type else None,
                extra=advantage_of(situation),
                void=void,
            )
            reply = fight_reply(fight)
        else:
            wrong = [f"`{name}:`" for name in FIGHT_ONLY if given[name] is not None]
            if wrong:
                raise RulesError(f"{', '.join(wrong)} name someone in a fight; give `target:` too.")
            asked = numbers_odds(
                dice=dice or 1,
                bonus=bonus or 0,
                defense=defense,
                defense_dice=defense_dice,
                defense_bonus=defense_bonus,
                advantage=advantage_of(situation),
                void=void,
                missile=bool(missile),
                options=encounter.options if encounter is not None else DEFAULT_OPTIONS,
            )
            reply = numbers_reply(asked)
        await interaction.response.send_message(reply, ephemeral=not public)

    @odds.autocomplete("target")
    @odds.autocomplete("who")
    async def who_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return combatant_choices(await channel_encounter(interaction), current)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Odds(bot))
