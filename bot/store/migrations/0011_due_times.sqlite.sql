-- The index of due times (issue 29): beside each running fight, the next moment something is due in it
-- (a defense's deadline, a reminder; bot.encounter.due.next_due), or NULL when nothing is, written by the
-- transaction that writes the fight. Start-up and the reminders' sweep read only the fights it names, so
-- an idle fight costs them nothing. A moment is ISO text in UTC, as every moment in SQLite, whose order as
-- text is its order in time. timer_at is the earliest deadline of a defense alone (bot.encounter.due.
-- next_timer): what a start must schedule timers for again, where a reminder is the sweep's.
ALTER TABLE encounters ADD COLUMN due_at TEXT;
ALTER TABLE encounters ADD COLUMN timer_at TEXT;

CREATE INDEX encounters_due ON encounters (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX encounters_timers ON encounters (timer_at) WHERE timer_at IS NOT NULL;

-- What is due in the fights stored before is worked out in Python (the rules of reminders are not SQL's):
-- each is due at once ("to check"), so the first start reschedules its timers as before and the first
-- sweep writes its due time, once.
UPDATE encounters SET due_at = '1970-01-01T00:00:00+00:00', timer_at = '1970-01-01T00:00:00+00:00';
