-- The index of due times (as SQLite's 0011): beside each running fight, the next moment something is due
-- in it (a defense's deadline, a reminder), or NULL when nothing is, written by the transaction that
-- writes the fight; start-up and the reminders' sweep read only the fights it names. timer_at is the
-- earliest deadline of a defense alone: what a start must schedule timers for again.
ALTER TABLE encounters ADD COLUMN due_at TIMESTAMPTZ;
ALTER TABLE encounters ADD COLUMN timer_at TIMESTAMPTZ;

CREATE INDEX encounters_due ON encounters (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX encounters_timers ON encounters (timer_at) WHERE timer_at IS NOT NULL;

-- The fights stored before are due at once ("to check"): the first sweep works their due time out.
UPDATE encounters SET due_at = 'epoch', timer_at = 'epoch';

-- The fights' documents (a running one, its steps kept, its undone ones) compressed with lz4 where the
-- server has it (PostgreSQL 14 and later, built with it, as the images are): every change writes a
-- document and keeps the one before, and pglz, the default, is the slower of the two to compress.
-- Documents written before stay as they are, and read as before; a server without lz4 keeps pglz.
DO $$
BEGIN
    EXECUTE 'ALTER TABLE encounters ALTER COLUMN document SET COMPRESSION lz4';
    EXECUTE 'ALTER TABLE encounter_history ALTER COLUMN document SET COMPRESSION lz4';
    EXECUTE 'ALTER TABLE encounter_undos ALTER COLUMN document SET COMPRESSION lz4';
EXCEPTION WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN
    RAISE NOTICE 'lz4 compression unavailable: the documents keep the default compression';
END;
$$;

-- A document is checked as JSON text (json: validated, as SQLite's json_valid does), no longer built into
-- jsonb and thrown away (a few hundred microseconds of the server's CPU for a fight of eight fighters, twice
-- per change: the fight and the step of its history kept). Pommel checks every document it writes anyway
-- (bot.store.documents.checked); the rows stored were checked by the stricter jsonb already (NOT VALID:
-- no scan of them). The ended and set-aside fights, written once each, keep theirs.
ALTER TABLE encounters DROP CONSTRAINT IF EXISTS encounters_document_check,
    ADD CONSTRAINT encounters_document_check CHECK (document::json IS NOT NULL) NOT VALID;
ALTER TABLE encounter_history DROP CONSTRAINT IF EXISTS encounter_history_document_check,
    ADD CONSTRAINT encounter_history_document_check CHECK (document::json IS NOT NULL) NOT VALID;
ALTER TABLE encounter_undos DROP CONSTRAINT IF EXISTS encounter_undos_document_check,
    ADD CONSTRAINT encounter_undos_document_check CHECK (document::json IS NOT NULL) NOT VALID;

-- A change of a running fight in one round trip (issue 29): the compare-and-set of the fight (with its
-- due time), its log lines and the step of its history kept, as bot.store.fights_sql's steps write them
-- for every dialect (change_fight: write_fight, insert_log, _keep_step), run by the server in one call
-- instead of one statement at a time. The fight's row is locked already (read FOR UPDATE by the same
-- transaction), so the document it replaces is the one that change read.
CREATE FUNCTION pommel_change_fight(
    p_channel BIGINT,
    p_guild BIGINT,
    p_version INTEGER,
    p_document TEXT,
    p_at TIMESTAMPTZ,
    p_due TIMESTAMPTZ,
    p_timer TIMESTAMPTZ,
    p_log_at TIMESTAMPTZ[],
    p_log_guild BIGINT[],
    p_log_channel BIGINT[],
    p_log_user BIGINT[],
    p_log_kind TEXT[],
    p_log_text TEXT[],
    p_log_data TEXT[],
    p_keep_user BIGINT,
    p_history_kept INTEGER,
    OUT written BOOLEAN,
    OUT stored_version INTEGER,
    OUT log_ids BIGINT[]
) LANGUAGE plpgsql AS $$
DECLARE
    before TEXT;
BEGIN
    SELECT e.document INTO before FROM encounters e WHERE e.channel_id = p_channel AND e.version = p_version;
    IF NOT FOUND THEN  -- stale: the caller says which version is stored
        written := FALSE;
        SELECT e.version INTO stored_version FROM encounters e WHERE e.channel_id = p_channel;
        RETURN;
    END IF;
    UPDATE encounters e SET guild_id = p_guild, version = p_version + 1, document = p_document,
        updated_at = p_at, due_at = p_due, timer_at = p_timer
    WHERE e.channel_id = p_channel AND e.version = p_version;
    written := TRUE;
    stored_version := p_version + 1;
    WITH inserted AS (
        INSERT INTO log (at, guild_id, channel_id, user_id, kind, text, data)
        SELECT l.at, l.guild_id, l.channel_id, l.user_id, l.kind, l.text, l.data::jsonb
        FROM unnest(p_log_at, p_log_guild, p_log_channel, p_log_user, p_log_kind, p_log_text, p_log_data)
            WITH ORDINALITY AS l (at, guild_id, channel_id, user_id, kind, text, data, n)
        ORDER BY l.n
        RETURNING id
    )
    SELECT coalesce(array_agg(inserted.id ORDER BY inserted.id), '{}') INTO log_ids FROM inserted;
    -- A change that logs nothing is bookkeeping, not a step of the fight (see fights_sql.update).
    IF p_keep_user IS NULL OR cardinality(log_ids) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO encounter_history (channel_id, version, document, user_id, at, first_log_id, last_log_id)
    VALUES (p_channel, p_version, before, p_keep_user, p_at, log_ids[1], log_ids[cardinality(log_ids)]);
    DELETE FROM encounter_history h WHERE h.channel_id = p_channel AND h.undone_by IS NOT NULL;
    DELETE FROM encounter_undos u WHERE u.channel_id = p_channel;
    DELETE FROM encounter_history h WHERE h.channel_id = p_channel AND h.id <=
        (SELECT k.id FROM encounter_history k WHERE k.channel_id = p_channel
         ORDER BY k.id DESC LIMIT 1 OFFSET p_history_kept);
END;
$$;
