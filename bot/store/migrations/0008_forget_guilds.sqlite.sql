-- A server's data can be deleted: by its admins (/server forget), or 30 days after Pommel was removed
-- from it (kept meanwhile in case it comes back). guild_departures says when Pommel left each server it
-- is no longer in; a return deletes the row.
CREATE TABLE guild_departures (
    guild_id INTEGER PRIMARY KEY,
    left_at TEXT NOT NULL
);

-- The log stays append-only but for a whole server forgotten: the store marks the guild here, deletes
-- its lines and unmarks it, in one transaction (nothing else ever deletes a line).
CREATE TABLE guilds_being_forgotten (
    guild_id INTEGER PRIMARY KEY
);

DROP TRIGGER log_lines_are_never_deleted;

CREATE TRIGGER log_lines_are_never_deleted BEFORE DELETE ON log
WHEN OLD.guild_id IS NULL OR OLD.guild_id NOT IN (SELECT guild_id FROM guilds_being_forgotten)
BEGIN
    SELECT RAISE(ABORT, 'the log is append-only: lines are never deleted');
END;
