-- Pommel's schema on PostgreSQL: the same tables as the SQLite store's migrations 0001-0004, in one.
-- Documents are pydantic JSON kept as text, exactly as written (a document set aside is kept as it was
-- stored); the check refuses text that is not JSON. The log's details are jsonb, for queries.

-- The fight of each channel or thread (at most one), with its compare-and-set version.
CREATE TABLE encounters (
    channel_id BIGINT PRIMARY KEY,
    guild_id BIGINT,
    version INTEGER NOT NULL CHECK (version >= 1),
    document TEXT NOT NULL CHECK (document::jsonb IS NOT NULL),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX encounters_by_guild ON encounters (guild_id);

-- The append-only log of rolls and game events; ids only grow, so readers page on with "id > last seen".
CREATE TABLE log (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at TIMESTAMPTZ NOT NULL,
    guild_id BIGINT,
    channel_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    data JSONB NOT NULL DEFAULT '{}'
);

CREATE INDEX log_by_channel ON log (channel_id, id);
CREATE INDEX log_by_guild ON log (guild_id, id);

-- Append-only is enforced here too, not only by the store having no method to change a line.
CREATE FUNCTION log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the log is append-only: lines are never %', lower(TG_OP) || 'd'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER log_lines_are_never_changed BEFORE UPDATE OR DELETE ON log
    FOR EACH ROW EXECUTE FUNCTION log_is_append_only();
CREATE TRIGGER log_is_never_truncated BEFORE TRUNCATE ON log
    FOR EACH STATEMENT EXECUTE FUNCTION log_is_append_only();

-- Player characters: several per player and guild, the name unique ignoring case (name_key is the
-- casefolded name, made by Pommel).
CREATE TABLE characters (
    guild_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    name_key TEXT NOT NULL CHECK (name_key <> ''),
    document TEXT NOT NULL CHECK (document::jsonb IS NOT NULL),
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (guild_id, user_id, name_key)
);

CREATE TABLE guild_settings (
    guild_id BIGINT PRIMARY KEY,
    document TEXT NOT NULL CHECK (document::jsonb IS NOT NULL),
    updated_at TIMESTAMPTZ NOT NULL
);

-- Fights whose document could no longer be read: moved here whole when read, kept for the developers.
CREATE TABLE set_aside_encounters (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id BIGINT NOT NULL,
    guild_id BIGINT,
    gm_id BIGINT,
    version INTEGER NOT NULL,
    document TEXT NOT NULL,
    reason TEXT NOT NULL,
    set_aside_at TIMESTAMPTZ NOT NULL,
    acknowledged_at TIMESTAMPTZ
);

CREATE INDEX set_aside_by_channel ON set_aside_encounters (channel_id, id);

-- Fights that ended, kept whole with the last log id of their channel at the end. At most ENDED_KEPT
-- per channel.
CREATE TABLE ended_encounters (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id BIGINT NOT NULL,
    guild_id BIGINT,
    gm_id BIGINT NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    ended_at TIMESTAMPTZ NOT NULL,
    rounds INTEGER NOT NULL,
    version INTEGER NOT NULL,
    last_log_id BIGINT NOT NULL,
    document TEXT NOT NULL CHECK (document::jsonb IS NOT NULL)
);

CREATE INDEX ended_by_channel ON ended_encounters (channel_id, id);

-- The running fight's history (see the SQLite migration 0004): the document before each change that
-- logs, who, when, and the ids of the log lines it added. At most HISTORY_KEPT per channel.
CREATE TABLE encounter_history (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id BIGINT NOT NULL,
    version INTEGER NOT NULL,
    document TEXT NOT NULL CHECK (document::jsonb IS NOT NULL),
    user_id BIGINT NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    first_log_id BIGINT NOT NULL,
    last_log_id BIGINT NOT NULL
);

CREATE INDEX history_by_channel ON encounter_history (channel_id, id);

-- The log stays append-only: an undone line is marked here, with the id of the undo's own line.
CREATE TABLE log_undone (
    log_id BIGINT PRIMARY KEY REFERENCES log (id),
    undo_log_id BIGINT NOT NULL REFERENCES log (id)
);
