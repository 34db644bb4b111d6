-- Rendered variants kept in the object store, so a render survives restarts and is shared by every API
-- node. Tracked here so deleting a file removes every variant object by key.
CREATE TABLE variants (
    file_id      TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    digest       TEXT NOT NULL,
    object_key   TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size         BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (file_id, digest)
);
