-- Batch warming: a batch is file × transformation items, each rendered by one job. Progress is counted
-- from the items' states, and an item moves out of 'queued' once, so a job delivered twice (the queue is
-- at-least-once) cannot count twice.
CREATE TABLE warm_batches (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    total       BIGINT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE warm_items (
    batch_id     TEXT NOT NULL REFERENCES warm_batches (id) ON DELETE CASCADE,
    item         BIGINT NOT NULL,
    file_id      TEXT NOT NULL,
    query        TEXT NOT NULL,
    -- 'queued', 'done' or 'failed'.
    state        TEXT NOT NULL,
    finished_at  BIGINT,
    PRIMARY KEY (batch_id, item)
);
