"""Martial Feats the Codex Martialis names by what they do (R13, R14, R17): granted by the GM, applied
by the bot.

The Codex lists its Martial Feats elsewhere; its Martial Pool chapter names only what some of them do
to a defense or a Bind, and that is what Pommel applies. The two feats it leaves unnamed are named here
by their effect.
"""

from __future__ import annotations

from enum import StrEnum


class MartialFeat(StrEnum):
    """A Martial Feat, by the effect the Codex gives it (R13, R14, R17)."""

    MISSILE_PARRYING = "missile parrying"
    """The weapon's Defense Bonus counts in active defense against missiles."""
    FUHLEN = "fuhlen"
    """The weapon takes no damage in a Bind (Damage to Weapons During Binds)."""
    BIND_AND_STRIKE = "bind & strike"
    """A Bind gives an attack on the opponent."""
    MUTIEREN = "mutieren"
    """A Bind gives an attack on the opponent."""
    SHIELD_AND_WEAPON = "shield and weapon"
    """The shield's and the weapon's Defense Bonus add up, instead of the better of the two counting."""
    PASSIVE_WEAPON = "weapon in passive defense"
    """The weapon's Defense Bonus counts in passive defense too."""

    @property
    def effect(self) -> str:
        return FEAT_EFFECTS[self]


FEAT_EFFECTS = {
    MartialFeat.MISSILE_PARRYING: "its weapon's DB counts in active defense against missiles (R14)",
    MartialFeat.FUHLEN: "its weapon takes no damage in a Bind (R17)",
    MartialFeat.BIND_AND_STRIKE: "a Bind gives it an attack on the opponent (R14)",
    MartialFeat.MUTIEREN: "a Bind gives it an attack on the opponent (R14)",
    MartialFeat.SHIELD_AND_WEAPON: "its shield's and its weapon's Defense Bonus add up (R14)",
    MartialFeat.PASSIVE_WEAPON: "its weapon's Defense Bonus counts in passive defense (R13)",
}

BIND_FEATS = frozenset({MartialFeat.BIND_AND_STRIKE, MartialFeat.MUTIEREN})
"""R14: the feats a Bind triggers (an attack on the opponent)."""


def bind_feat(feats: frozenset[MartialFeat] | set[MartialFeat] | list[MartialFeat]) -> MartialFeat | None:
    """The feat a Bind triggers for a holder of ``feats``, if it holds one."""
    return next((feat for feat in MartialFeat if feat in BIND_FEATS and feat in feats), None)


__all__ = ["BIND_FEATS", "FEAT_EFFECTS", "MartialFeat", "bind_feat"]
