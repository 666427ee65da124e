-- The d20 faces of the server's rolls, counted once as each roll is logged (as SQLite's 0005), so
-- /stats dice adds up a year of rolls without reading the JSON of each line again: one row per log line
-- of kind 'roll' or 'save' in a server that lists a d20 face from 1 to 20 (data.faces for a pool,
-- /roll pool and /save; data.d20 for the d20s of /roll dice), with fN how many of its dice showed N.
-- The log is append-only: so is this.
CREATE TABLE log_d20 (
    guild_id BIGINT NOT NULL,
    log_id BIGINT NOT NULL REFERENCES log (id),
    channel_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    private BOOLEAN NOT NULL,
    f1 INTEGER NOT NULL, f2 INTEGER NOT NULL, f3 INTEGER NOT NULL, f4 INTEGER NOT NULL,
    f5 INTEGER NOT NULL, f6 INTEGER NOT NULL, f7 INTEGER NOT NULL, f8 INTEGER NOT NULL,
    f9 INTEGER NOT NULL, f10 INTEGER NOT NULL, f11 INTEGER NOT NULL, f12 INTEGER NOT NULL,
    f13 INTEGER NOT NULL, f14 INTEGER NOT NULL, f15 INTEGER NOT NULL, f16 INTEGER NOT NULL,
    f17 INTEGER NOT NULL, f18 INTEGER NOT NULL, f19 INTEGER NOT NULL, f20 INTEGER NOT NULL,
    PRIMARY KEY (guild_id, log_id)
);

CREATE FUNCTION log_d20_faces(data JSONB) RETURNS TABLE (face NUMERIC) LANGUAGE sql IMMUTABLE AS $$
    SELECT found.face FROM (
        SELECT CASE WHEN jsonb_typeof(item) = 'number' THEN (item)::numeric END AS face
        FROM unnest(ARRAY['faces', 'd20']) AS key,
            jsonb_array_elements(CASE WHEN jsonb_typeof(data->key) = 'array' THEN data->key ELSE '[]'::jsonb END)
            AS item
    ) AS found
    WHERE found.face BETWEEN 1 AND 20 AND found.face = trunc(found.face)
$$;

CREATE FUNCTION log_d20_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind IN ('roll', 'save') AND NEW.guild_id IS NOT NULL THEN
        INSERT INTO log_d20 (
            guild_id, log_id, channel_id, user_id, at, private,
            f1, f2, f3, f4, f5, f6, f7, f8, f9, f10,
    f11, f12, f13, f14, f15, f16, f17, f18, f19, f20
        )
        SELECT
            NEW.guild_id, NEW.id, NEW.channel_id, NEW.user_id, NEW.at, COALESCE(NEW.data->'private' = 'true'::jsonb, false),
            COUNT(*) FILTER (WHERE face = 1), COUNT(*) FILTER (WHERE face = 2), COUNT(*) FILTER (WHERE face = 3), COUNT(*) FILTER (WHERE face = 4), COUNT(*) FILTER (WHERE face = 5),
        COUNT(*) FILTER (WHERE face = 6), COUNT(*) FILTER (WHERE face = 7), COUNT(*) FILTER (WHERE face = 8), COUNT(*) FILTER (WHERE face = 9), COUNT(*) FILTER (WHERE face = 10),
        COUNT(*) FILTER (WHERE face = 11), COUNT(*) FILTER (WHERE face = 12), COUNT(*) FILTER (WHERE face = 13), COUNT(*) FILTER (WHERE face = 14), COUNT(*) FILTER (WHERE face = 15),
        COUNT(*) FILTER (WHERE face = 16), COUNT(*) FILTER (WHERE face = 17), COUNT(*) FILTER (WHERE face = 18), COUNT(*) FILTER (WHERE face = 19), COUNT(*) FILTER (WHERE face = 20)
        FROM log_d20_faces(NEW.data)
        HAVING COUNT(*) > 0;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER log_d20_faces_are_counted AFTER INSERT ON log
FOR EACH ROW EXECUTE FUNCTION log_d20_count();

-- The rolls logged before this table was made.
INSERT INTO log_d20 (
    guild_id, log_id, channel_id, user_id, at, private,
    f1, f2, f3, f4, f5, f6, f7, f8, f9, f10,
    f11, f12, f13, f14, f15, f16, f17, f18, f19, f20
)
SELECT
    log.guild_id, log.id, log.channel_id, log.user_id, log.at, COALESCE(log.data->'private' = 'true'::jsonb, false),
    COUNT(*) FILTER (WHERE face = 1), COUNT(*) FILTER (WHERE face = 2), COUNT(*) FILTER (WHERE face = 3), COUNT(*) FILTER (WHERE face = 4), COUNT(*) FILTER (WHERE face = 5),
        COUNT(*) FILTER (WHERE face = 6), COUNT(*) FILTER (WHERE face = 7), COUNT(*) FILTER (WHERE face = 8), COUNT(*) FILTER (WHERE face = 9), COUNT(*) FILTER (WHERE face = 10),
        COUNT(*) FILTER (WHERE face = 11), COUNT(*) FILTER (WHERE face = 12), COUNT(*) FILTER (WHERE face = 13), COUNT(*) FILTER (WHERE face = 14), COUNT(*) FILTER (WHERE face = 15),
        COUNT(*) FILTER (WHERE face = 16), COUNT(*) FILTER (WHERE face = 17), COUNT(*) FILTER (WHERE face = 18), COUNT(*) FILTER (WHERE face = 19), COUNT(*) FILTER (WHERE face = 20)
FROM log, log_d20_faces(log.data)
WHERE log.kind IN ('roll', 'save') AND log.guild_id IS NOT NULL
GROUP BY log.id;
