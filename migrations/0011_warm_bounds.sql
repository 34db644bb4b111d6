-- Warming is bounded per account (its outstanding items are counted before a batch is taken) and finished
-- batches expire (the sweep removes them): both find an account's batches, or old ones, by index.
CREATE INDEX warm_batches_by_account ON warm_batches (account_id, created_at);
CREATE INDEX warm_batches_by_age ON warm_batches (created_at);
