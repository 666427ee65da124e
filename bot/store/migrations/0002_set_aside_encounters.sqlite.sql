-- Fights whose document could no longer be read (hand-edited, damaged, or written by an older Pommel with
-- a value out of range): moved here whole when read, so the channel can start a new fight and nothing
-- else stops; kept for the developers. No json_valid check: whatever was stored is kept as it was.
CREATE TABLE set_aside_encounters (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id INTEGER NOT NULL,
    guild_id INTEGER,
    gm_id INTEGER,
    version INTEGER NOT NULL,
    document TEXT NOT NULL,
    reason TEXT NOT NULL,
    set_aside_at TEXT NOT NULL,
    acknowledged_at TEXT
);

CREATE INDEX set_aside_by_channel ON set_aside_encounters (channel_id, id);
