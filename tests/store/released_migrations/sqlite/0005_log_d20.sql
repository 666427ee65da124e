-- The d20 faces of the server's rolls, counted once as each roll is logged, so /stats dice adds up a
-- year of rolls without reading the JSON of each line again: one row per log line of kind 'roll' or
-- 'save' in a server that lists a d20 face from 1 to 20 (data.faces for a pool, /roll pool and /save;
-- data.d20 for the d20s of /roll dice), with fN how many of its dice showed N. Rows are kept by guild
-- (WITHOUT ROWID), so a server's rolls are read together. The log is append-only: so is this.
CREATE TABLE log_d20 (
    guild_id INTEGER NOT NULL,
    log_id INTEGER NOT NULL REFERENCES log (id),
    channel_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    at TEXT NOT NULL,
    private INTEGER NOT NULL,
    f1 INTEGER NOT NULL, f2 INTEGER NOT NULL, f3 INTEGER NOT NULL, f4 INTEGER NOT NULL,
    f5 INTEGER NOT NULL, f6 INTEGER NOT NULL, f7 INTEGER NOT NULL, f8 INTEGER NOT NULL,
    f9 INTEGER NOT NULL, f10 INTEGER NOT NULL, f11 INTEGER NOT NULL, f12 INTEGER NOT NULL,
    f13 INTEGER NOT NULL, f14 INTEGER NOT NULL, f15 INTEGER NOT NULL, f16 INTEGER NOT NULL,
    f17 INTEGER NOT NULL, f18 INTEGER NOT NULL, f19 INTEGER NOT NULL, f20 INTEGER NOT NULL,
    PRIMARY KEY (guild_id, log_id)
) WITHOUT ROWID;

CREATE TRIGGER log_d20_faces_are_counted AFTER INSERT ON log
WHEN NEW.kind IN ('roll', 'save') AND NEW.guild_id IS NOT NULL
BEGIN
    INSERT INTO log_d20 (
        guild_id, log_id, channel_id, user_id, at, private,
        f1, f2, f3, f4, f5, f6, f7, f8, f9, f10,
        f11, f12, f13, f14, f15, f16, f17, f18, f19, f20
    )
    SELECT
        NEW.guild_id, NEW.id, NEW.channel_id, NEW.user_id, NEW.at, json_extract(NEW.data, '$.private') IS 1,
        SUM(face = 1), SUM(face = 2), SUM(face = 3), SUM(face = 4), SUM(face = 5),
        SUM(face = 6), SUM(face = 7), SUM(face = 8), SUM(face = 9), SUM(face = 10),
        SUM(face = 11), SUM(face = 12), SUM(face = 13), SUM(face = 14), SUM(face = 15),
        SUM(face = 16), SUM(face = 17), SUM(face = 18), SUM(face = 19), SUM(face = 20)
    FROM (
        SELECT value AS face FROM json_each(NEW.data, '$.faces') WHERE type = 'integer'
        UNION ALL
        SELECT value FROM json_each(NEW.data, '$.d20') WHERE type = 'integer'
    )
    HAVING SUM(face BETWEEN 1 AND 20) > 0;
END;

-- The rolls logged before this table was made.
INSERT INTO log_d20 (
    guild_id, log_id, channel_id, user_id, at, private,
    f1, f2, f3, f4, f5, f6, f7, f8, f9, f10,
    f11, f12, f13, f14, f15, f16, f17, f18, f19, f20
)
SELECT
    guild_id, id, channel_id, user_id, at, private,
    SUM(face = 1), SUM(face = 2), SUM(face = 3), SUM(face = 4), SUM(face = 5),
    SUM(face = 6), SUM(face = 7), SUM(face = 8), SUM(face = 9), SUM(face = 10),
    SUM(face = 11), SUM(face = 12), SUM(face = 13), SUM(face = 14), SUM(face = 15),
    SUM(face = 16), SUM(face = 17), SUM(face = 18), SUM(face = 19), SUM(face = 20)
FROM (
    SELECT log.id, log.guild_id, log.channel_id, log.user_id, log.at,
        json_extract(log.data, '$.private') IS 1 AS private, item.value AS face
    FROM log, json_each(log.data, '$.faces') AS item
    WHERE log.kind IN ('roll', 'save') AND log.guild_id IS NOT NULL AND item.type = 'integer'
    UNION ALL
    SELECT log.id, log.guild_id, log.channel_id, log.user_id, log.at,
        json_extract(log.data, '$.private') IS 1 AS private, item.value AS face
    FROM log, json_each(log.data, '$.d20') AS item
    WHERE log.kind IN ('roll', 'save') AND log.guild_id IS NOT NULL AND item.type = 'integer'
)
GROUP BY id
HAVING SUM(face BETWEEN 1 AND 20) > 0;
