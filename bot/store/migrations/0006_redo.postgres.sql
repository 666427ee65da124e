-- Redo (as SQLite's 0006): an undo no longer forgets the steps it took back. It marks them (undone_by,
-- the id of the undo's own log line) and keeps the fight as it was before the undo in encounter_undos,
-- so the undo can be taken back as long as no other change of the fight logged anything since (a new
-- step forgets the undone ones). Undone steps are not in the history an undo reads.
ALTER TABLE encounter_history ADD COLUMN undone_by BIGINT REFERENCES log (id);

CREATE TABLE encounter_undos (
    undo_log_id BIGINT PRIMARY KEY REFERENCES log (id),
    channel_id BIGINT NOT NULL,
    version INTEGER NOT NULL,
    document TEXT NOT NULL CHECK (document::jsonb IS NOT NULL)
);

CREATE INDEX undos_by_channel ON encounter_undos (channel_id, undo_log_id);
