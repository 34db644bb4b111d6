-- A file's focal point (PATCH /v1/files/{id}), where `gravity=focus` centres a crop: each coordinate in
-- ten-thousandths of the picture's side (0-10000, 0 = left / top); NULL when none is set.
ALTER TABLE files ADD COLUMN focus_x BIGINT;
ALTER TABLE files ADD COLUMN focus_y BIGINT;
