//! Copying the records of one database into another of the same schema (`shutterbox migrate-store`: an
//! embedded SQLite deployment into PostgreSQL). One table per row of `Table`, in an order that keeps every
//! reference satisfied; rows are read in key order a page at a time and written with `ON CONFLICT DO
//! NOTHING`, so a copy stopped half-way and run again adds what is missing and nothing twice.

use std::collections::HashSet;

use sqlx::{Row as _, any::AnyRow};

use super::{SqlMetadata, placeholders};
use crate::{MetadataError, Result};

/// A table that is copied, in `Table::ORDER`: each after those its rows refer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Accounts,
    ApiKeys,
    Folders,
    Files,
    Variants,
    PendingUploads,
    WarmBatches,
    WarmItems,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Int,
}

use Kind::{Int, Text};

/// A table's name, the columns copied (what a deployment keeps; a resumable upload's write lock is a
/// request's and is not), the columns rows are read in the order of (a unique key), and how many of them
/// are its primary key.
struct Shape {
    name: &'static str,
    columns: &'static [(&'static str, Kind)],
    order: &'static [&'static str],
    key_len: usize,
}

impl Table {
    pub const ORDER: [Table; 8] = [
        Table::Accounts,
        Table::ApiKeys,
        Table::Folders,
        Table::Files,
        Table::Variants,
        Table::PendingUploads,
        Table::WarmBatches,
        Table::WarmItems,
    ];

    fn shape(self) -> Shape {
        match self {
            Table::Accounts => Shape {
                name: "accounts",
                columns: &[("id", Text), ("name", Text), ("created_at", Int)],
                order: &["id"],
                key_len: 1,
            },
            Table::ApiKeys => Shape {
                name: "api_keys",
                columns: &[
                    ("id", Text),
                    ("account_id", Text),
                    ("key_hash", Text),
                    ("prefix", Text),
                    ("scope", Text),
                    ("created_at", Int),
                    ("expires_at", Int),
                    ("revoked_at", Int),
                ],
                order: &["id"],
                key_len: 1,
            },
            // A folder refers to its parent, which is created no later and whose path is a prefix of its
            // own: in (created_at, account_id, path) order every parent comes first.
            Table::Folders => Shape {
                name: "folders",
                columns: &[
                    ("id", Text),
                    ("account_id", Text),
                    ("parent_id", Text),
                    ("path", Text),
                    ("created_at", Int),
                ],
                order: &["created_at", "account_id", "path"],
                key_len: 0,
            },
            Table::Files => Shape {
                name: "files",
                columns: &[
                    ("id", Text),
                    ("account_id", Text),
                    ("folder_id", Text),
                    ("path", Text),
                    ("stem", Text),
                    ("name", Text),
                    ("object_key", Text),
                    ("raw_type", Text),
                    ("kind", Text),
                    ("size", Int),
                    ("created_at", Int),
                    ("updated_at", Int),
                    ("focus_x", Int),
                    ("focus_y", Int),
                    ("width", Int),
                    ("height", Int),
                    ("has_alpha", Int),
                    ("frame_count", Int),
                    ("dominant_color", Int),
                    ("thumbhash", Text),
                    ("blurhash", Text),
                    ("placeholder", Text),
                    ("attention_x", Int),
                    ("attention_y", Int),
                    ("described_at", Int),
                    ("rotation", Int),
                    ("duration_ms", Int),
                    ("frame_rate_num", Int),
                    ("frame_rate_den", Int),
                    ("video_codec", Text),
                    ("audio_codec", Text),
                    ("bitrate", Int),
                ],
                order: &["id"],
                key_len: 1,
            },
            Table::Variants => Shape {
                name: "variants",
                columns: &[
                    ("file_id", Text),
                    ("digest", Text),
                    ("object_key", Text),
                    ("content_type", Text),
                    ("size", Int),
                    ("created_at", Int),
                    ("last_access_at", Int),
                    ("pinned", Int),
                ],
                order: &["file_id", "digest"],
                key_len: 2,
            },
            Table::PendingUploads => Shape {
                name: "pending_uploads",
                columns: &[
                    ("id", Text),
                    ("account_id", Text),
                    ("object_key", Text),
                    ("name", Text),
                    ("folder_path", Text),
                    ("declared_type", Text),
                    ("size", Int),
                    ("expires_at", Int),
                    ("created_at", Int),
                    ("file_id", Text),
                    ("assembly", Text),
                    ("length_deferred", Int),
                    ("upload_metadata", Text),
                    ("token_hash", Text),
                ],
                order: &["id"],
                key_len: 1,
            },
            Table::WarmBatches => Shape {
                name: "warm_batches",
                columns: &[("id", Text), ("account_id", Text), ("total", Int), ("created_at", Int)],
                order: &["id"],
                key_len: 1,
            },
            Table::WarmItems => Shape {
                name: "warm_items",
                columns: &[
                    ("batch_id", Text),
                    ("item", Int),
                    ("file_id", Text),
                    ("query", Text),
                    ("state", Text),
                    ("finished_at", Int),
                    ("reason", Text),
                ],
                order: &["batch_id", "item"],
                key_len: 2,
            },
        }
    }

    /// The table's name in the schema.
    pub fn name(self) -> &'static str {
        self.shape().name
    }

    /// The columns that identify a row: its primary key, or for folders, the unique (account, path).
    fn identity(self) -> &'static [&'static str] {
        match self {
            Table::Folders => &["account_id", "path"],
            other => &other.shape().order[..other.shape().key_len],
        }
    }
}

/// Which rows of a table are copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    All,
    /// Variants rendered ahead of requests (jobs, presets); the others are a cache that refills itself.
    PinnedVariants,
    /// Pending uploads that have not expired by this time (Unix ms); the sweep would remove the others.
    PendingUntil(i64),
}

impl Selection {
    fn condition(self) -> Option<String> {
        match self {
            Selection::All => None,
            Selection::PinnedVariants => Some("pinned <> 0".into()),
            Selection::PendingUntil(ms) => Some(format!("expires_at > {ms}")),
        }
    }
}

/// A value of a copied column.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    Text(Option<String>),
    Int(Option<i64>),
}

/// One row of a copied table, its values in the table's column order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    table: Table,
    values: Vec<Value>,
}

impl Row {
    pub fn table(&self) -> Table {
        self.table
    }

    fn index(&self, column: &str) -> Option<usize> {
        self.table.shape().columns.iter().position(|(name, _)| *name == column)
    }

    /// A text column's value (`None` for NULL, an integer column or a column the table does not have).
    pub fn text(&self, column: &str) -> Option<&str> {
        match self.values.get(self.index(column)?)? {
            Value::Text(value) => value.as_deref(),
            Value::Int(_) => None,
        }
    }

    /// An integer column's value.
    pub fn int(&self, column: &str) -> Option<i64> {
        match self.values.get(self.index(column)?)? {
            Value::Int(value) => *value,
            Value::Text(_) => None,
        }
    }

    /// Replaces a text column's value; `false` if the table has no such text column.
    pub fn set_text(&mut self, column: &str, value: Option<String>) -> bool {
        match self.index(column).and_then(|i| self.values.get_mut(i)) {
            Some(slot @ Value::Text(_)) => {
                *slot = Value::Text(value);
                true
            }
            _ => false,
        }
    }

    fn values_of(&self, columns: &[&str]) -> Vec<Value> {
        columns.iter().filter_map(|c| self.index(c).and_then(|i| self.values.get(i)).cloned()).collect()
    }

    /// The values that identify the row in its table.
    pub fn identity(&self) -> Vec<Value> {
        self.values_of(self.table.identity())
    }

    fn read(table: Table, row: &AnyRow) -> Result<Self> {
        let values = table
            .shape()
            .columns
            .iter()
            .map(|(name, kind)| {
                Ok(match kind {
                    Text => Value::Text(row.try_get::<Option<String>, _>(*name)?),
                    Int => Value::Int(row.try_get::<Option<i64>, _>(*name)?),
                })
            })
            .collect::<Result<_>>()?;
        Ok(Self { table, values })
    }
}

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>;

fn bind<'q>(query: AnyQuery<'q>, value: &Value) -> AnyQuery<'q> {
    match value {
        Value::Text(text) => query.bind(text.clone()),
        Value::Int(int) => query.bind(*int),
    }
}

/// `(a, b) > ($n, $n+1)`: the rows after a row in `columns` order (row values: SQLite and PostgreSQL both).
fn after_condition(columns: &[&str], first: usize) -> String {
    format!("({}) > ({})", columns.join(", "), placeholders(first, columns.len()))
}

impl SqlMetadata {
    /// Opens the embedded SQLite database at `path` read-only: a copy from it changes nothing there (but for
    /// the empty log and log index SQLite makes beside a database that has none, to read it). Its
    /// schema must be this version's (a deployment is copied by the binary that served it last, or after
    /// `shutterbox migrate`).
    pub async fn open_sqlite_read_only(path: &std::path::Path) -> Result<Self> {
        if !path.is_file() {
            return Err(MetadataError::Unavailable(format!("no database at {}", path.display())));
        }
        sqlx::any::install_default_drivers();
        let pool = sqlx::any::AnyPoolOptions::new()
            .max_connections(2)
            .connect(&format!("sqlite://{}?mode=ro", path.display()))
            .await
            .map_err(|e| MetadataError::Unavailable(e.to_string()))?;
        let newest: Option<i64> = sqlx::query("SELECT MAX(version) AS v FROM _sqlx_migrations WHERE success")
            .fetch_one(&pool)
            .await
            .and_then(|row| row.try_get("v"))
            .map_err(|e| MetadataError::Migration(format!("{} holds no Shutterbox schema: {e}", path.display())))?;
        let expected = super::MIGRATIONS.last().map(|(version, ..)| *version);
        if newest != expected {
            return Err(MetadataError::Migration(format!(
                "{} has schema version {}, this binary {}: run `shutterbox migrate` on it first",
                path.display(),
                newest.unwrap_or(0),
                expected.unwrap_or(0)
            )));
        }
        Ok(Self { pool, code_point_order: "", locks_rows: false })
    }

    /// How many rows of `table` `selection` takes.
    pub async fn row_count(&self, table: Table, selection: Selection) -> Result<u64> {
        let condition = selection.condition().map(|c| format!(" WHERE {c}")).unwrap_or_default();
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) AS n FROM {}{condition}", table.name())))
            .fetch_one(&self.pool)
            .await?;
        super::count(&row, "n")
    }

    /// Up to `limit` rows of `table` that `selection` takes, in the table's order, after `after` (a row of
    /// the same table) or from the first.
    pub async fn rows(&self, table: Table, selection: Selection, after: Option<&Row>, limit: u64) -> Result<Vec<Row>> {
        let shape = table.shape();
        let columns: Vec<&str> = shape.columns.iter().map(|(name, _)| *name).collect();
        let mut conditions: Vec<String> = selection.condition().into_iter().collect();
        if after.is_some() {
            conditions.push(after_condition(shape.order, 1));
        }
        let condition =
            if conditions.is_empty() { String::new() } else { format!(" WHERE {}", conditions.join(" AND ")) };
        let sql = format!(
            "SELECT {} FROM {}{condition} ORDER BY {} LIMIT {}",
            columns.join(", "),
            shape.name,
            shape.order.join(", "),
            limit
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        if let Some(after) = after {
            for value in after.values_of(shape.order) {
                query = bind(query, &value);
            }
        }
        let rows = query.fetch_all(&self.pool).await?;
        rows.iter().map(|row| Row::read(table, row)).collect()
    }

    /// The identities (`Row::identity`) of those of `rows` that this database has already.
    pub async fn present(&self, rows: &[Row]) -> Result<HashSet<Vec<Value>>> {
        let mut found = HashSet::new();
        let Some(table) = rows.first().map(Row::table) else { return Ok(found) };
        let identity = table.identity();
        let shape = table.shape();
        for chunk in rows.chunks(super::LIST_CHUNK / identity.len().max(1)) {
            let tuples: Vec<String> = (0..chunk.len())
                .map(|i| format!("({})", placeholders(1 + i * identity.len(), identity.len())))
                .collect();
            let sql = format!(
                "SELECT {} FROM {} WHERE ({}) IN (VALUES {})",
                shape.columns.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", "),
                shape.name,
                identity.join(", "),
                tuples.join(", ")
            );
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for row in chunk {
                for value in row.identity() {
                    query = bind(query, &value);
                }
            }
            for row in query.fetch_all(&self.pool).await? {
                found.insert(Row::read(table, &row)?.identity());
            }
        }
        Ok(found)
    }

    /// Writes `rows` (all of one table) where they are missing, in one transaction; returns how many were
    /// added (a row already there, by any unique key, is left as it is).
    pub async fn insert_rows(&self, rows: &[Row]) -> Result<u64> {
        let Some(table) = rows.first().map(Row::table) else { return Ok(0) };
        let shape = table.shape();
        let columns: Vec<&str> = shape.columns.iter().map(|(name, _)| *name).collect();
        let per_statement = (super::LIST_CHUNK * 2 / columns.len()).max(1);
        let mut transaction = self.pool.begin().await?;
        let mut added = 0;
        for chunk in rows.chunks(per_statement) {
            if let Some(stray) = chunk.iter().find(|row| row.table != table) {
                return Err(MetadataError::Corrupt(format!(
                    "a {} row among {} rows",
                    stray.table.name(),
                    table.name()
                )));
            }
            let tuples: Vec<String> =
                (0..chunk.len()).map(|i| format!("({})", placeholders(1 + i * columns.len(), columns.len()))).collect();
            let sql = format!(
                "INSERT INTO {} ({}) VALUES {} ON CONFLICT DO NOTHING",
                shape.name,
                columns.join(", "),
                tuples.join(", ")
            );
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for row in chunk {
                for value in &row.values {
                    query = bind(query, value);
                }
            }
            added += query.execute(&mut *transaction).await?.rows_affected();
        }
        transaction.commit().await?;
        Ok(added)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use shutterbox_model::{AccountName, KeyHash, Scope};

    use super::*;
    use crate::AccountStore;

    /// Columns of the schema that belong to a request, not to the deployment.
    const NOT_COPIED: &[(&str, &str)] = &[("pending_uploads", "lock_holder"), ("pending_uploads", "lock_until")];
    /// Tables whose rows live for a moment: a write being settled.
    const TRANSIENT: &[&str] = &["object_intents", "_sqlx_migrations"];

    #[tokio::test]
    async fn every_column_of_every_table_is_copied() {
        let dir = tempfile::tempdir().unwrap();
        let db = SqlMetadata::open_sqlite(&dir.path().join("m.db")).await.unwrap();
        let tables: Vec<String> = sqlx::query("SELECT name FROM sqlite_master WHERE type = 'table'")
            .fetch_all(&db.pool)
            .await
            .unwrap()
            .iter()
            .map(|row| row.try_get::<String, _>("name").unwrap())
            .filter(|name| !TRANSIENT.contains(&name.as_str()))
            .collect();
        let copied: Vec<&str> = Table::ORDER.iter().map(|t| t.name()).collect();
        let mut sorted_tables: Vec<&str> = tables.iter().map(String::as_str).collect();
        sorted_tables.sort_unstable();
        let mut sorted_copied = copied.clone();
        sorted_copied.sort_unstable();
        assert_eq!(sorted_tables, sorted_copied, "a table is copied, or listed as transient");
        for table in Table::ORDER {
            let mut schema: Vec<String> =
                sqlx::query(sqlx::AssertSqlSafe(format!("SELECT name FROM pragma_table_info('{}')", table.name())))
                    .fetch_all(&db.pool)
                    .await
                    .unwrap()
                    .iter()
                    .map(|row| row.try_get::<String, _>("name").unwrap())
                    .filter(|column| !NOT_COPIED.contains(&(table.name(), column.as_str())))
                    .collect();
            schema.sort_unstable();
            let mut ours: Vec<String> = table.shape().columns.iter().map(|(name, _)| (*name).to_owned()).collect();
            ours.sort_unstable();
            assert_eq!(schema, ours, "the columns of {}", table.name());
        }
    }

    #[tokio::test]
    async fn a_copy_page_by_page_adds_what_is_missing_and_nothing_twice() {
        let dir = tempfile::tempdir().unwrap();
        let source = SqlMetadata::open_sqlite(&dir.path().join("source.db")).await.unwrap();
        let dest = SqlMetadata::open_sqlite(&dir.path().join("dest.db")).await.unwrap();
        for (i, name) in ["alpha", "beta", "gamma"].into_iter().enumerate() {
            let account = source.ensure_account(&AccountName::parse(name).unwrap(), i as i64).await.unwrap();
            let hash = KeyHash::of(name);
            let key = crate::NewKey { hash: &hash, prefix: "sbx_", scope: Scope::Read, expires_at_ms: None };
            source.create_key(&account, &key, 7).await.unwrap();
        }
        let source = SqlMetadata::open_sqlite_read_only(&dir.path().join("source.db")).await.unwrap();
        let mut added = 0;
        for pass in 0..2 {
            for table in [Table::Accounts, Table::ApiKeys] {
                let mut after = None;
                loop {
                    let page = source.rows(table, Selection::All, after.as_ref(), 1).await.unwrap();
                    let Some(last) = page.last() else { break };
                    after = Some(last.clone());
                    let there = dest.present(&page).await.unwrap();
                    assert_eq!(there.len(), pass, "a row is there from the first pass only");
                    added += dest.insert_rows(&page).await.unwrap();
                }
            }
        }
        assert_eq!(added, 6);
        let key = dest.find_key(&KeyHash::of("beta"), 8).await.unwrap().unwrap();
        assert_eq!(key.account_name, "beta");
        assert_eq!(key.scope, Scope::Read);
    }
}
