-- Browsing (the console, `GET /v1/files?folderId=…`, `GET /v1/folders`): a folder's files and its child
-- folders are found, and counted, without reading the account's whole listing.
CREATE INDEX files_folder ON files (folder_id, updated_at DESC, id DESC);
CREATE INDEX folders_parent ON folders (account_id, parent_id, path);
