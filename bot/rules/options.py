"""Every ruling that is a matter of taste, with the defaults of docs/RULES.md (per encounter)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class BashCritical(StrEnum):
    """R16: what a Bash critical does."""

    NONLETHAL = "nonlethal"  # crit dice are rolled normally and dealt as nonlethal damage
    KNOCKOUT = "knockout"  # basic + crit damage becomes the TN of a Will save


class CriticalDamage(StrEnum):
    """R16: how critical damage is rolled."""

    BY_ATTACK_TYPE = "by attack type"  # Bash d6, Pierce d6, Chop d8, Slash d10 (dynamic if on)
    SIMPLE_D10 = "simple d10"  # every critical adds one d10
    DOUBLE = "double damage"  # every critical doubles the weapon's damage roll


class MissileTie(StrEnum):
    """R14 step 6 against a missile: the text calls a tie 'a very near miss'."""

    NEAR_MISS = "near miss"  # a plain miss: nobody binds an arrow
    BIND = "bind"  # treat it as any other Bind


class PassiveTie(StrEnum):
    """R13: an attack total equal to a passive defense. The Codex: a miss that "counts as a Bind", and
    "either attacker or defender can declare a Bind if they have any MP remaining"."""

    BIND = "bind"  # every passive tie is a Bind
    DECLARED = "declared"  # a miss, which either side with dice left may declare a Bind


class BindFeats(StrEnum):
    """R14: when both sides of a Bind hold a feat it triggers (Bind & Strike, Mutieren)."""

    SIMULTANEOUS = "simultaneous"  # the two attacks land together: either may be made first
    INITIATIVE_FIRST = "initiative first"  # the side with the initiative strikes first


class RuleOptions(BaseModel):
    """The per-encounter choices a GM can change; the defaults are those docs/RULES.md gives."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attack_types_vs_armor: bool = False
    """R17: use the armor's column for the attack type (Bash uses Pierce) instead of Pierce."""
    dynamic_criticals: bool = True
    """R16: a primary-type attack with n >= 2 dice rolls n crit dice."""
    critical_damage: CriticalDamage = CriticalDamage.BY_ATTACK_TYPE
    bash_critical: BashCritical = BashCritical.NONLETHAL
    missile_tie: MissileTie = MissileTie.NEAR_MISS
    joker_bonus: int = 2
    """R3: the bonus to rolls made on a Joker's turn."""
    desperation_min_pool: int = 1
    """R6/R15: the pool a desperation penalty can never push below."""
    routed_attack_disadvantage: bool = True
    """R25: Routed attackers are at disadvantage like Frightened ones (the text names only Frightened)."""
    ac_natural_results: bool = True
    """R24: against AC a natural 20 always hits and a natural 1 always misses."""
    passive_tie: PassiveTie = PassiveTie.BIND
    """R13: whether a tie against a passive defense is a Bind, or a miss either side may declare one."""
    weapon_damage_in_binds: bool = False
    """R17: the Codex's optional Damage to Weapons During Binds (Fuhlen is immune)."""
    bind_feats: BindFeats = BindFeats.SIMULTANEOUS
    """R14: both sides' Bind-triggered feats land together, or the initiative's first."""


DEFAULT_OPTIONS = RuleOptions()
"""The defaults docs/RULES.md gives, built once (rules take ``options=None`` to mean these)."""
