"""The fight in one channel or thread, saved whole as one typed document with a version number."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .rules.initiative import InitiativeState
from .rules.options import DEFAULT_OPTIONS, RuleOptions


class Encounter(BaseModel):
    """Everything a fight needs to carry on after a restart.

    ``version`` is the store's compare-and-set counter: 0 for a document never saved, then one more
    at every save. A save that starts from a version the store no longer holds is refused, so a
    stale or concurrent write can never silently overwrite another.
    """

    model_config = ConfigDict(extra="forbid")

    channel_id: int
    """The channel or thread the fight runs in; at most one fight per channel."""
    guild_id: int | None
    gm_id: int
    """The user running the fight."""
    version: int = 0
    options: RuleOptions = DEFAULT_OPTIONS
    initiative: InitiativeState = Field(default_factory=InitiativeState)
