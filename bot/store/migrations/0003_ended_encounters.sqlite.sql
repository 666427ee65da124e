-- Fights that ended, kept whole with the last log id of their channel at the end (their log is the
-- channel's entries from started_at up to that id), so /encounter history gives their logs again and
-- /encounter reopen brings the last one back. version is the one it ended at: a reopened fight goes on
-- from the next, so a button drawn before the end stays stale. At most ENDED_KEPT per channel.
CREATE TABLE ended_encounters (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id INTEGER NOT NULL,
    guild_id INTEGER,
    gm_id INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL,
    rounds INTEGER NOT NULL,
    version INTEGER NOT NULL,
    last_log_id INTEGER NOT NULL,
    document TEXT NOT NULL CHECK (json_valid(document))
);

CREATE INDEX ended_by_channel ON ended_encounters (channel_id, id);
