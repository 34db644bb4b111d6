-- Objects being written whose record does not exist yet: a confirm's copy of an upload, a variant being
-- stored. The writer removes its row once the record exists (or once it has removed the object itself). A
-- row older than the sweep's grace period means the writer died between the two steps; the sweeper then
-- deletes the object unless a record refers to it, and the row.
CREATE TABLE object_intents (
    object_key  TEXT PRIMARY KEY,
    created_at  BIGINT NOT NULL
);

CREATE INDEX object_intents_age ON object_intents (created_at);
-- "Does any record refer to this object?", asked by the sweeper for each stale intent.
CREATE INDEX files_object_key ON files (object_key);
CREATE INDEX variants_object_key ON variants (object_key);
