-- Pommel's first schema. Documents are pydantic JSON; the columns beside them are what queries need.

-- The fight of each channel or thread (at most one), with its compare-and-set version.
CREATE TABLE encounters (
    channel_id INTEGER PRIMARY KEY,
    guild_id INTEGER,
    version INTEGER NOT NULL CHECK (version >= 1),
    document TEXT NOT NULL CHECK (json_valid(document)),
    updated_at TEXT NOT NULL
);

-- The append-only log of rolls and game events. AUTOINCREMENT: an id is never reused, so readers can
-- page on with "id > last seen".
CREATE TABLE log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    guild_id INTEGER,
    channel_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    data TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(data))
);

CREATE INDEX log_by_channel ON log (channel_id, id);
CREATE INDEX log_by_guild ON log (guild_id, id);

-- Append-only is enforced here too, not only by the store having no method to change a line.
CREATE TRIGGER log_lines_are_never_updated BEFORE UPDATE ON log
BEGIN
    SELECT RAISE(ABORT, 'the log is append-only: lines are never updated');
END;

CREATE TRIGGER log_lines_are_never_deleted BEFORE DELETE ON log
BEGIN
    SELECT RAISE(ABORT, 'the log is append-only: lines are never deleted');
END;

-- Player characters: several per player and guild, the name unique ignoring case (name_key is the
-- casefolded name; SQLite's own lower() knows ASCII only).
CREATE TABLE characters (
    guild_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    name_key TEXT NOT NULL CHECK (name_key <> ''),
    document TEXT NOT NULL CHECK (json_valid(document)),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, user_id, name_key)
) WITHOUT ROWID;

CREATE TABLE guild_settings (
    guild_id INTEGER PRIMARY KEY,
    document TEXT NOT NULL CHECK (json_valid(document)),
    updated_at TEXT NOT NULL
);
