-- What a front end needs to know about an image (docs/api.md, "Image facts"). From its headers at confirm
-- (NULL for a file that is no image, or until the description job reads a file whose headers lie beyond
-- the part confirm reads): width and height as delivered, has_alpha (0/1), frame_count. From its pixels,
-- by the description job after confirm: dominant_color (0xRRGGBB), thumbhash (base64), blurhash,
-- placeholder (a data: URL) and attention_x/attention_y (ten-thousandths of the sides, as focus_x/_y).
-- described_at is when that job ran (its columns stay NULL if the pixels could not be read), so the job
-- and `shutterbox backfill` know which images are left.
ALTER TABLE files ADD COLUMN width BIGINT;
ALTER TABLE files ADD COLUMN height BIGINT;
ALTER TABLE files ADD COLUMN has_alpha BIGINT;
ALTER TABLE files ADD COLUMN frame_count BIGINT;
ALTER TABLE files ADD COLUMN dominant_color BIGINT;
ALTER TABLE files ADD COLUMN thumbhash TEXT;
ALTER TABLE files ADD COLUMN blurhash TEXT;
ALTER TABLE files ADD COLUMN placeholder TEXT;
ALTER TABLE files ADD COLUMN attention_x BIGINT;
ALTER TABLE files ADD COLUMN attention_y BIGINT;
ALTER TABLE files ADD COLUMN described_at BIGINT;
CREATE INDEX files_undescribed ON files (kind, described_at);
