-- Portable across SQLite and PostgreSQL (read through sqlx's Any driver): ids are UUID text, times are
-- BIGINT Unix milliseconds, no booleans.

CREATE TABLE accounts (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    key_hash    TEXT NOT NULL UNIQUE,
    prefix      TEXT NOT NULL,
    scope       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE folders (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    parent_id   TEXT REFERENCES folders (id),
    path        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (account_id, path)
);

CREATE TABLE pending_uploads (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id),
    object_key     TEXT NOT NULL,
    name           TEXT NOT NULL,
    folder_path    TEXT,
    declared_type  TEXT NOT NULL,
    size           BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    created_at     BIGINT NOT NULL,
    -- Set once, by the confirm that created the file; a repeated confirm returns that file.
    file_id        TEXT
);

CREATE INDEX pending_uploads_expiry ON pending_uploads (expires_at);

CREATE TABLE files (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    folder_id   TEXT REFERENCES folders (id),
    -- Full public path, account segment first: unique because account names are.
    path        TEXT NOT NULL UNIQUE,
    -- The path without its extension: unique, so `cat.webp` can only ever mean one file.
    stem        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    object_key  TEXT NOT NULL,
    raw_type    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    size        BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);

CREATE INDEX files_listing ON files (account_id, updated_at DESC, id DESC);
