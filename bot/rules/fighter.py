"""A combatant as the rules see it when it attacks or defends: Prowess, Dex, weapons, armor, shield
and feats (R11, R13, R14, R17)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .equipment import Armor, Shield, Weapon
from .feats import MartialFeat


class Fighter(BaseModel):
    """What the rules need to know of a combatant to attack or defend."""

    name: str
    prowess: int = Field(ge=0)
    dex_mod: int = 0
    weapon: Weapon
    off_hand: Weapon | None = None
    armor: Armor | None = None
    armor_hp: int | None = None
    """The armor's hit points left (R17); None means undamaged."""
    shield: Shield | None = None
    shield_hp: int | None = None
    spirit: bool = False
    feats: frozenset[MartialFeat] = frozenset()
    """The Martial Feats the GM granted (R13, R14, R17)."""

    @property
    def capped_dex(self) -> int:
        """R13: the Dex modifier, capped by the armor's Max Dex."""
        if self.armor is not None and self.armor.max_dex is not None:
            return min(self.dex_mod, self.armor.max_dex)
        return self.dex_mod

    @property
    def armor_intact(self) -> bool:
        """R17: armor at 0 HP gives no DR until repaired."""
        return self.armor is not None and (self.armor_hp is None or self.armor_hp > 0)

    @property
    def shield_intact(self) -> bool:
        return self.shield is not None and (self.shield_hp is None or self.shield_hp > 0)
