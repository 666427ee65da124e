-- Every new step of a fight forgets the channel's undone steps (the redo they would allow): an index of
-- just those few rows finds them without reading the channel's whole history on every change.
CREATE INDEX history_undone ON encounter_history (channel_id) WHERE undone_by IS NOT NULL;
