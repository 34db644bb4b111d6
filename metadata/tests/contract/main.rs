//! The metadata's contract, the same for both backends: every method of every aggregate, what it returns,
//! in which order, and what it refuses, run once against SQLite (a file in a temporary directory) and once
//! against PostgreSQL (a database of its own per test, on the server `SHUTTERBOX_TEST_DATABASE_URL` names,
//! prefixed by `SHUTTERBOX_TEST_DB_PREFIX`). Without that variable the PostgreSQL half fails: parity between
//! the two is what this suite is for, so it is never skipped.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod accounts;
mod backend;
mod files;
mod intents;
mod uploads;
mod variants;
mod warming;

/// Each contract function, as one test per backend: `sqlite::<name>` and `postgres::<name>`.
macro_rules! on_both_backends {
    ($($aggregate:ident::$name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let backend = crate::backend::Backend::sqlite().await;
                    crate::$aggregate::$name(backend.store()).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    let backend = crate::backend::Backend::postgres(stringify!($name)).await;
                    crate::$aggregate::$name(backend.store()).await;
                }
            )*
        }
    };
}

on_both_backends!(
    accounts::accounts_are_made_once_per_name,
    accounts::keys_are_found_by_hash_until_revoked_or_expired,
    accounts::keys_are_listed_newest_first_and_revoked_within_their_account,
    uploads::pending_uploads_read_back_as_written,
    uploads::confirm_creates_the_file_and_its_folders_once,
    uploads::a_clashing_name_is_suffixed,
    uploads::expired_uploads_come_oldest_first_and_go_when_deleted,
    uploads::a_resumable_upload_has_one_writer_at_a_time,
    uploads::pieces_are_recorded_only_by_the_lock_holder,
    files::files_are_found_by_id_path_and_stem_within_their_account,
    files::listings_filter_and_page,
    files::listings_sort_by_each_key_both_ways,
    files::folders_list_by_path_with_their_counts_and_lineage,
    files::focus_and_description_are_recorded,
    files::undescribed_files_page_by_id,
    files::video_facts_are_kept_whole,
    files::deleting_a_file_returns_it_with_its_variants,
    variants::variants_are_recorded_once_and_only_for_files_that_exist,
    variants::the_room_of_a_file_names_its_oldest_unpinned_variants,
    variants::eviction_order_and_totals,
    variants::a_variant_racing_its_files_delete_goes_with_it_or_is_refused,
    warming::batches_count_their_items_as_they_finish,
    warming::failures_page_in_item_order_within_their_account,
    warming::batches_expire_with_their_items,
    intents::intents_are_stale_until_settled,
    intents::an_object_is_in_use_while_a_record_names_it,
);

/// Errors the backends share: a database that is not there is `Unavailable`, on both.
#[tokio::test]
async fn an_unreachable_database_is_unavailable() {
    let sqlite = shutterbox_metadata::SqlMetadata::connect("sqlite:///nonexistent-dir/for/sure/m.db").await;
    assert!(matches!(sqlite, Err(shutterbox_metadata::MetadataError::Unavailable(_))), "{:?}", sqlite.err());
    let postgres = shutterbox_metadata::SqlMetadata::connect("postgres://postgres@127.0.0.1:1/none").await;
    assert!(matches!(postgres, Err(shutterbox_metadata::MetadataError::Unavailable(_))), "{:?}", postgres.err());
}
