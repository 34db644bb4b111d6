-- What a video's container headers say (docs/api.md, "Video facts"), read at confirm or by the description
-- job and `shutterbox backfill` for videos uploaded before: width, height and frame_count (already columns)
-- hold its displayed size and stated frames; rotation (degrees clockwise, 0/90/180/270) is set whenever the
-- facts were read, and so marks them read; the rest are NULL where the container does not state them.
-- frame_rate is a fraction (frame_rate_num / frame_rate_den) as the container writes it.
ALTER TABLE files ADD COLUMN rotation BIGINT;
ALTER TABLE files ADD COLUMN duration_ms BIGINT;
ALTER TABLE files ADD COLUMN frame_rate_num BIGINT;
ALTER TABLE files ADD COLUMN frame_rate_den BIGINT;
ALTER TABLE files ADD COLUMN video_codec TEXT;
ALTER TABLE files ADD COLUMN audio_codec TEXT;
ALTER TABLE files ADD COLUMN bitrate BIGINT;
