-- The index of due times (as SQLite's 0011): beside each running fight, the next moment something is due
-- in it (a defense's deadline, a reminder), or NULL when nothing is, written by the transaction that
-- writes the fight; start-up and the reminders' sweep read only the fights it names.
ALTER TABLE encounters ADD COLUMN due_at TIMESTAMPTZ;

CREATE INDEX encounters_due ON encounters (due_at) WHERE due_at IS NOT NULL;

-- The fights stored before are due at once ("to check"): the first sweep works their due time out.
UPDATE encounters SET due_at = 'epoch';
