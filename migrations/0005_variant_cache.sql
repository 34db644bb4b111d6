-- Stored variants are a bounded cache: at most SHUTTERBOX_VARIANTS_PER_FILE per file and
-- SHUTTERBOX_VARIANT_STORE_BYTES in all, least recently used evicted first. `last_access_at` is when the
-- variant was last asked for (coalesced: written at most about once a minute per variant); `pinned` marks
-- the variants rendered ahead of requests (jobs: transform-url, warming) and presets, which are evicted only
-- after every other one.
ALTER TABLE variants ADD COLUMN last_access_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE variants ADD COLUMN pinned BIGINT NOT NULL DEFAULT 0;
UPDATE variants SET last_access_at = created_at;
CREATE INDEX variants_eviction ON variants (pinned, last_access_at);
