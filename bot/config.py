"""Settings from the environment or ``.env``: only the token is required."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
    )

    discord_token: SecretStr = Field(min_length=1)
    database_path: Path = Path("pommel.sqlite3")
    database_url: str | None = Field(default=None, pattern=r"^postgres(ql)?://")
    """A PostgreSQL database (``postgresql://user:password@host:5432/db``); SQLite at ``database_path``
    when not set. Several processes may share one (see the README's runbook)."""
    shard_count: int | None = Field(default=None, ge=1)
    """How many shards the bot runs on, in all processes together; one (no sharding) when not set."""
    shard_ids: Annotated[list[int] | None, NoDecode] = None
    """This process's shards (``0,1``), each below ``shard_count``; all of them when not set."""
    dev_guild_id: int | None = None
    """Sync slash commands to this guild only, which is instant (for development)."""
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    heartbeat_path: Path | None = None
    """A file the bot rewrites every 30 s while connected (``pommel check --alive`` reads it); none when
    not set."""

    @field_validator("log_level", mode="before")
    @classmethod
    def _any_case(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.replace(" ", ",").split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _shards_within_the_count(self) -> Settings:
        if self.shard_ids is None:
            return self
        if self.shard_count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT, the number of shards of all processes together")
        if not self.shard_ids:
            raise ValueError("SHARD_IDS names no shard")
        wrong = [shard for shard in self.shard_ids if not 0 <= shard < self.shard_count]
        if wrong:
            raise ValueError(f"shard ids go from 0 to {self.shard_count - 1} (SHARD_COUNT), not {wrong}")
        if len(set(self.shard_ids)) != len(self.shard_ids):
            raise ValueError("SHARD_IDS names a shard twice")
        return self

    @property
    def database(self) -> Path | str:
        """Where the store is: the PostgreSQL URL when given, else the SQLite file."""
        return self.database_url if self.database_url is not None else self.database_path

    @property
    def shards(self) -> tuple[int, tuple[int, ...]]:
        """The shard count and this process's shards (``(1, (0,))`` without sharding)."""
        count = self.shard_count or 1
        return count, tuple(sorted(self.shard_ids)) if self.shard_ids is not None else tuple(range(count))
