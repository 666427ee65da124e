-- A server's own catalog entries (/homebrew): weapons, armor, shields and monster templates laid over
-- bot/data/ for that server only. One row an entry, its model's JSON; a key may be a shipped entry's
-- (the server's shadows it there).
CREATE TABLE homebrew (
    guild_id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('weapon', 'armor', 'shield', 'monster')),
    key TEXT NOT NULL CHECK (key <> ''),
    document TEXT NOT NULL CHECK (json_valid(document)),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, kind, key)
) WITHOUT ROWID;
