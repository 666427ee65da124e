-- Redo: an undo no longer forgets the steps it took back. It marks them (undone_by, the id of the
-- undo's own log line) and keeps the fight as it was before the undo in encounter_undos, so the undo can
-- be taken back as long as no other change of the fight logged anything since (a new step forgets the
-- undone ones, as in any editor). Undone steps are not in the history an undo reads.
ALTER TABLE encounter_history ADD COLUMN undone_by INTEGER REFERENCES log (id);

CREATE TABLE encounter_undos (
    undo_log_id INTEGER PRIMARY KEY REFERENCES log (id),
    channel_id INTEGER NOT NULL,
    version INTEGER NOT NULL,
    document TEXT NOT NULL CHECK (json_valid(document))
);

CREATE INDEX undos_by_channel ON encounter_undos (channel_id, undo_log_id);
