-- Which process serves which shard. The lease itself is a session advisory lock held by that process's
-- lease connection, which the server lets go the moment the process or its connection dies (a SIGKILL
-- included); the row says who holds it, so a second process claiming the shard can say whom to stop.
CREATE TABLE shard_leases (
    shard_id INTEGER PRIMARY KEY CHECK (shard_id >= 0),
    shard_count INTEGER NOT NULL CHECK (shard_count > shard_id),
    holder TEXT NOT NULL,
    since TIMESTAMPTZ NOT NULL
);
