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

-- pommel_change_fight (0011), committed by itself and then letting the fight's lock go: a procedure, so
-- called (CALL) outside any transaction. Its last four arguments are what it answers.
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
BEGIN
    SELECT c.written, c.stored_version, c.log_ids INTO written, stored_version, log_ids
    FROM pommel_change_fight(p_channel, p_guild, p_version, p_document, p_at, p_due, p_timer, p_log_at,
        p_log_guild, p_log_channel, p_log_user, p_log_kind, p_log_text, p_log_data, p_keep_user,
        p_history_kept) c;
    IF written THEN
        SELECT e.xmin::text::bigint INTO writer FROM encounters e WHERE e.channel_id = p_channel;
    END IF;
    COMMIT;
    PERFORM pg_advisory_unlock(pommel_fight_lock(p_channel));
END;
$$;

-- The running fight and the steps of its history are no longer checked as JSON by the server (0011 made
-- it json, from jsonb): Pommel writes only documents it has checked against the fight's model
-- (bot.store.documents.checked), and the check cost the server a parse of each document twice per change.
-- SQLite keeps its json_valid checks (its own work, cheaper than a parse into a tree).
ALTER TABLE encounters DROP CONSTRAINT IF EXISTS encounters_document_check;
ALTER TABLE encounter_history DROP CONSTRAINT IF EXISTS encounter_history_document_check;
