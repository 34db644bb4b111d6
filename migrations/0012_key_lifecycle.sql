-- Keys have a lifecycle: one may expire, and any can be revoked. A key past either is refused at once by
-- every node (each request looks its key up).
ALTER TABLE api_keys ADD COLUMN expires_at BIGINT;
ALTER TABLE api_keys ADD COLUMN revoked_at BIGINT;
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);
