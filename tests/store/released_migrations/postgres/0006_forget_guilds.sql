-- A server's data can be deleted (as SQLite's 0008): by its admins (/server forget), or 30 days after
-- Pommel was removed from it. guild_departures says when Pommel left each server it is no longer in; a
-- return deletes the row.
CREATE TABLE guild_departures (
    guild_id BIGINT PRIMARY KEY,
    left_at TIMESTAMPTZ NOT NULL
);

-- The log stays append-only but for a whole server forgotten: the store marks the guild here, deletes
-- its lines and unmarks it, in one transaction (nothing else ever deletes a line).
CREATE TABLE guilds_being_forgotten (
    guild_id BIGINT PRIMARY KEY
);

CREATE OR REPLACE FUNCTION log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND OLD.guild_id IS NOT NULL
        AND EXISTS (SELECT 1 FROM guilds_being_forgotten WHERE guild_id = OLD.guild_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'the log is append-only: lines are never %', lower(TG_OP) || 'd'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
