-- Resumable (TUS) uploads (docs/api.md, "Resumable uploads"), kept on the pending upload they fill.
-- assembly: the bytes received so far as the object store keeps them (JSON: the offset and, for S3, the
-- multipart upload's parts and tail object); NULL for an upload by presigned PUT. length_deferred (0/1):
-- the length was not known at creation (size is 0 until it is declared). upload_metadata: Upload-Metadata
-- as sent, which HEAD echoes. token_hash: SHA-256 (hex) of the token a resumable URL from presign carries.
-- lock_holder/lock_until: the request writing to the upload now, so that two cannot interleave; the lock
-- of a request whose process died expires at lock_until.
ALTER TABLE pending_uploads ADD COLUMN assembly TEXT;
ALTER TABLE pending_uploads ADD COLUMN length_deferred BIGINT NOT NULL DEFAULT 0;
ALTER TABLE pending_uploads ADD COLUMN upload_metadata TEXT;
ALTER TABLE pending_uploads ADD COLUMN token_hash TEXT;
ALTER TABLE pending_uploads ADD COLUMN lock_holder TEXT;
ALTER TABLE pending_uploads ADD COLUMN lock_until BIGINT;
