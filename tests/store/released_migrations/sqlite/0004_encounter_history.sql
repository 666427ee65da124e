-- The running fight's history: every committed change of a running fight that logs keeps the document
-- as it was before (with the version it had), who changed it, when, and the ids of the log lines the
-- change added (first_log_id..last_log_id of its channel), so /encounter undo can put it back. (A change
-- that logs nothing is bookkeeping, a message id or a reminder: an undo of the step before it takes it
-- back too.) At most HISTORY_KEPT steps per channel; dropped when the fight ends or a new one starts.
CREATE TABLE encounter_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id INTEGER NOT NULL,
    version INTEGER NOT NULL,
    document TEXT NOT NULL CHECK (json_valid(document)),
    user_id INTEGER NOT NULL,
    at TEXT NOT NULL,
    first_log_id INTEGER NOT NULL,
    last_log_id INTEGER NOT NULL
);

CREATE INDEX history_by_channel ON encounter_history (channel_id, id);

-- The log stays append-only: an undone line is marked here, with the id of the undo's own line.
CREATE TABLE log_undone (
    log_id INTEGER PRIMARY KEY REFERENCES log (id),
    undo_log_id INTEGER NOT NULL REFERENCES log (id)
);
