-- A change of a running fight in two round trips instead of four (issue 29): no BEGIN and no COMMIT sent
-- apart. bot.store.fights_sql.update takes the fight's lock and reads it in one call
-- (pommel_take_fight), works the change out in Pommel, and writes it, its log lines and the step of its
-- history kept in one more (pommel_put_fight), which commits and then lets the lock go. The lock is a
-- session advisory lock on the channel (it outlives the statement that took it, as a row lock would not),
-- taken within lock_timeout like a row's (else the change is refused as busy); the driver
-- (bot.store.sql.run_postgres_held) releases it on every other path, or ends the connection.
-- Every change of this Pommel takes it, so two processes' changes of one fight still run one after the
-- other, each once. The other writes of a fight (an end, an undo, a restore) keep their transactions and
-- row locks; their compare-and-set on the version keeps any change from being lost either way.

-- The key of a fight's lock: one per channel and schema (the one-key form: the shard leases use the
-- two-key form, which never meets it).
CREATE FUNCTION pommel_fight_lock(p_channel BIGINT) RETURNS BIGINT LANGUAGE sql STABLE AS $$
    SELECT hashtextextended(current_schema() || ':pommel fight ' || p_channel::text, 0)
$$;

-- Take the fight's lock (waiting at most lock_timeout) and read the fight: its version, its document,
-- and the transaction that wrote the row (xmin). The document is left out (NULL) when the caller already
-- holds it parsed, read ahead (bot.store.sql_store.FIGHTS_READ_AHEAD): the version and the writer are the
-- ones it wrote, so no write of anyone else came between. No fight: three NULLs, the lock taken all the
-- same (a change may start one). Its statement's snapshot is taken after the lock, and the lock is let go
-- only after a commit, so it reads what the last holder wrote.
CREATE FUNCTION pommel_take_fight(
    p_channel BIGINT,
    p_known_version INTEGER,
    p_known_writer BIGINT,
    OUT version INTEGER,
    OUT document TEXT,
    OUT writer BIGINT
) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_lock(pommel_fight_lock(p_channel));
    SELECT e.version, e.xmin::text::bigint,
        CASE WHEN e.version = p_known_version AND e.xmin::text::bigint = p_known_writer THEN NULL
             ELSE e.document END
    INTO version, writer, document
    FROM encounters e WHERE e.channel_id = p_channel;
END;
$$;

-- The write of the change: pommel_change_fight (0011, which an older Pommel beside this one still calls),
-- answering the transaction that wrote the row as well, then committed by itself and letting the fight's
-- lock go, after the commit, so the next holder reads what it wrote. A procedure, so called (CALL)
-- outside any transaction; its last four arguments are what it answers.
CREATE PROCEDURE pommel_put_fight(
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
    INOUT written BOOLEAN DEFAULT NULL,
    INOUT stored_version INTEGER DEFAULT NULL,
    INOUT log_ids BIGINT[] DEFAULT NULL,
    INOUT writer BIGINT DEFAULT NULL
) LANGUAGE plpgsql AS $$
DECLARE
    before TEXT;
BEGIN
    SELECT e.document INTO before FROM encounters e WHERE e.channel_id = p_channel AND e.version = p_version;
    IF NOT FOUND THEN  -- stale: the caller says which version is stored
        written := FALSE;
        SELECT e.version INTO stored_version FROM encounters e WHERE e.channel_id = p_channel;
    ELSE
        UPDATE encounters e SET guild_id = p_guild, version = p_version + 1, document = p_document,
            updated_at = p_at, due_at = p_due, timer_at = p_timer
        WHERE e.channel_id = p_channel AND e.version = p_version
        RETURNING e.xmin::text::bigint INTO writer;
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
        IF p_keep_user IS NOT NULL AND cardinality(log_ids) > 0 THEN
            INSERT INTO encounter_history (channel_id, version, document, user_id, at, first_log_id, last_log_id)
            VALUES (p_channel, p_version, before, p_keep_user, p_at, log_ids[1], log_ids[cardinality(log_ids)]);
            DELETE FROM encounter_history h WHERE h.channel_id = p_channel AND h.undone_by IS NOT NULL;
            DELETE FROM encounter_undos u WHERE u.channel_id = p_channel;
            DELETE FROM encounter_history h WHERE h.channel_id = p_channel AND h.id <=
                (SELECT k.id FROM encounter_history k WHERE k.channel_id = p_channel
                 ORDER BY k.id DESC LIMIT 1 OFFSET p_history_kept);
        END IF;
    END IF;
    COMMIT;
    PERFORM pg_advisory_unlock(pommel_fight_lock(p_channel));
END;
$$;

-- Room beside each running fight's row for its next version: a change then writes it in the same page
-- and leaves the indexes alone (a HOT update) where it can; about half its changes could not, the pages
-- full. Rows written from now on leave half a page free.
ALTER TABLE encounters SET (fillfactor = 50);

-- The d20 faces are counted for a roll or a save alone: the trigger now says so itself, so the other log
-- lines (most of them, one or more per change) no longer call its function only to be let through.
DROP TRIGGER log_d20_faces_are_counted ON log;
CREATE TRIGGER log_d20_faces_are_counted AFTER INSERT ON log
FOR EACH ROW WHEN (NEW.kind IN ('roll', 'save') AND NEW.guild_id IS NOT NULL) EXECUTE FUNCTION log_d20_count();

-- The running fight and the steps of its history are no longer checked as JSON by the server (0011 made
-- it json, from jsonb): Pommel writes only documents it has checked against the fight's model
-- (bot.store.documents.checked), and the check cost the server a parse of each document twice per change.
-- SQLite keeps its json_valid checks (its own work, cheaper than a parse into a tree).
ALTER TABLE encounters DROP CONSTRAINT IF EXISTS encounters_document_check;
ALTER TABLE encounter_history DROP CONSTRAINT IF EXISTS encounter_history_document_check;
