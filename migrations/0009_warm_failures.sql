-- Why a warming item failed (the render's error, or why it could not be queued), so that a batch's reader
-- and `shutterbox warm` can name each failed item and its reason. NULL for items that did not fail, and
-- for items that failed before reasons were kept.
ALTER TABLE warm_items ADD COLUMN reason TEXT;
