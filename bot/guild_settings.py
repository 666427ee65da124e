"""What a server's admins set once: who may run fights, and the rulings and habits new fights start with."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from .rules.options import DEFAULT_OPTIONS, RuleOptions
from .table_options import TableOptions


class GuildSettings(BaseModel):
    """One guild's settings; a guild that never saved any has these defaults."""

    model_config = ConfigDict(extra="forbid")

    guild_id: int
    gm_role_id: int | None = None
    """Members with this role may run fights; None leaves it to the server's own permissions."""
    options: RuleOptions = DEFAULT_OPTIONS
    """The rulings a new fight starts with; the GM can still change them per fight."""
    table: TableOptions = TableOptions()
    """The table habits a new fight starts with; the GM can still change them per fight."""
