"""How a table runs its fights (not rulings): the habits a GM sets per fight and a server's admins set
for new fights, below both the fight's document and the server's settings."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from .rules.turns import ClaimPause


class DefensePolicy(StrEnum):
    """Who decides a defense when the defender's player is not there to click (an NPC, or a player
    who let the timeout run out)."""

    ASK_GM = "ask the GM"
    """NPCs: the GM gets the buttons. A player who does not answer in time: the GM is pinged."""
    PASSIVE = "passive"
    """Defend passively (R13): nothing is spent, nothing is rolled."""
    ACTIVE_ALL = "active with all dice"
    """Defend actively with every die left (R14), with the shield if there is one."""


class TableOptions(BaseModel):
    """How the table runs (not rulings): the tracker's habits and the pauses for claims."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repost_tracker: bool = False
    """Post the tracker anew at the bottom of the channel at each turn (for play-by-post)."""
    hide_npc_cards: bool = False
    """Show NPC groups' cards only when their turn comes (players see only where they stand)."""
    claim_pause: ClaimPause = ClaimPause.JOKERS
    """When Next stops between turns to offer the turn to Joker or held-card holders (R3, R4)."""
    defense_policy: DefensePolicy = DefensePolicy.ASK_GM
    """Who decides an NPC's defense, and what happens when a player lets the timeout run out."""
    defense_timeout_minutes: int = Field(default=10, ge=0, le=10080)
    """How long a player has to pick a defense before the policy decides; 0 waits for ever."""
    remind_after_hours: int = Field(default=0, ge=0, le=168)
    """Play-by-post: ping whoever must act once when a turn, a defense or an offered turn has waited
    this many hours (:mod:`bot.encounter.reminders`); 0 never reminds."""
    players_undo: bool = False
    """Players may undo (and redo) the fight's last changes when they made every one of them
    (``/encounter undo``); the GM always may."""


class TablePreset(StrEnum):
    """Named sets of table habits for how a table plays; :data:`PRESETS` says what each sets."""

    PLAY_BY_POST = "play-by-post"
    VOICE = "voice"


PRESETS: dict[TablePreset, dict[str, object]] = {
    TablePreset.PLAY_BY_POST: {
        "repost_tracker": True,
        "claim_pause": ClaimPause.HELD,
        "defense_timeout_minutes": 24 * 60,
        "remind_after_hours": 12,
    },
    TablePreset.VOICE: {
        "repost_tracker": False,
        "claim_pause": ClaimPause.JOKERS,
        "defense_timeout_minutes": 10,
        "remind_after_hours": 0,
    },
}
"""What each preset sets (the other habits stay as they are). Play-by-post: players answer hours apart,
so the tracker comes to the bottom at each turn, every held card is offered the turn (nobody has to be
quick), a defense waits a day before the policy decides and whoever must act is reminded after 12
hours. Voice (the defaults): everyone is there, so the tracker is edited in place, only Jokers are
offered the turn, a defense waits 10 minutes, and nobody is reminded."""


def with_preset(preset: TablePreset | None, habits: Mapping[str, object]) -> dict[str, object]:
    """The table habits to set: the preset's, then ``habits`` (the options given one by one win)."""
    return {**(PRESETS[preset] if preset is not None else {}), **habits}
