//! Warming batches and their items.

use shutterbox_metadata::{SqlMetadata, WarmBatch, WarmItemState, WarmStore};
use shutterbox_model::{BatchId, FileId};

use crate::backend::{T0, account};

fn batch(account: &shutterbox_metadata::Account, items: usize, created_at_ms: i64) -> WarmBatch {
    WarmBatch {
        id: BatchId::mint(),
        account_id: account.id.clone(),
        items: (0..items).map(|i| (FileId::new(format!("file-{i}")), format!("w={}", 100 + i))).collect(),
        created_at_ms,
    }
}

fn failed(reason: &str) -> WarmItemState {
    WarmItemState::Failed { reason: reason.into() }
}

pub async fn batches_count_their_items_as_they_finish(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    // More items than one statement inserts.
    let big = batch(&alpha, 1_200, T0);
    store.create_warm_batch(&big).await.unwrap();
    let progress = store.warm_progress(&alpha.id, &big.id).await.unwrap().unwrap();
    assert_eq!((progress.id.clone(), progress.total, progress.done, progress.failed), (big.id.clone(), 1_200, 0, 0));
    assert_eq!(progress.created_at_ms, T0);
    assert_eq!(store.outstanding_warm_items(&alpha.id).await.unwrap(), 1_200);

    assert!(store.finish_warm_item(&big.id, 0, &WarmItemState::Done, T0 + 1).await.unwrap());
    assert!(!store.finish_warm_item(&big.id, 0, &failed("late"), T0 + 2).await.unwrap(), "finished already");
    assert!(store.finish_warm_item(&big.id, 1_199, &failed("gone"), T0 + 2).await.unwrap());
    assert!(!store.finish_warm_item(&big.id, 1_200, &WarmItemState::Done, T0 + 2).await.unwrap(), "no such item");
    assert!(!store.finish_warm_item(&BatchId::new("nope"), 0, &WarmItemState::Done, T0).await.unwrap());

    let progress = store.warm_progress(&alpha.id, &big.id).await.unwrap().unwrap();
    assert_eq!((progress.total, progress.done, progress.failed), (1_200, 1, 1));
    assert_eq!(store.outstanding_warm_items(&alpha.id).await.unwrap(), 1_198);
    assert_eq!(store.outstanding_warm_items(&beta.id).await.unwrap(), 0);
    assert_eq!(store.warm_progress(&beta.id, &big.id).await.unwrap(), None, "another account's batch");
    assert_eq!(store.warm_progress(&alpha.id, &BatchId::new("nope")).await.unwrap(), None);
    assert_eq!(store.warm_progress(&alpha.id, &BatchId::new("n\0")).await.unwrap(), None);

    let small = batch(&beta, 2, T0);
    store.create_warm_batch(&small).await.unwrap();
    assert_eq!(store.outstanding_warm_items(&beta.id).await.unwrap(), 2);
    assert_eq!(store.outstanding_warm_items(&alpha.id).await.unwrap(), 1_198);
}

pub async fn failures_page_in_item_order_within_their_account(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    let warm = batch(&alpha, 10, T0);
    store.create_warm_batch(&warm).await.unwrap();
    for (item, reason) in [(7, "seven"), (3, "three"), (5, "five\0with a NUL")] {
        assert!(store.finish_warm_item(&warm.id, item, &failed(reason), T0 + 1).await.unwrap());
    }
    store.finish_warm_item(&warm.id, 4, &WarmItemState::Done, T0 + 1).await.unwrap();

    let (page, total) = store.warm_failures(&alpha.id, &warm.id, 0, 2).await.unwrap();
    let shown: Vec<(u32, &str, &str, &str)> =
        page.iter().map(|f| (f.item, f.file_id.as_str(), f.query.as_str(), f.reason.as_str())).collect();
    assert_eq!((shown, total), (vec![(3, "file-3", "w=103", "three"), (5, "file-5", "w=105", "fivewith a NUL")], 3));
    let (rest, total) = store.warm_failures(&alpha.id, &warm.id, 2, 2).await.unwrap();
    assert_eq!((rest.iter().map(|f| f.item).collect::<Vec<_>>(), total), (vec![7], 3));
    assert_eq!(store.warm_failures(&beta.id, &warm.id, 0, 10).await.unwrap(), (vec![], 0), "not beta's batch");
    assert_eq!(store.warm_failures(&alpha.id, &BatchId::new("n\0"), 0, 10).await.unwrap(), (vec![], 0));
}

pub async fn batches_expire_with_their_items(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let (old, new) = (batch(&alpha, 3, T0), batch(&alpha, 4, T0 + 100));
    store.create_warm_batch(&old).await.unwrap();
    store.create_warm_batch(&new).await.unwrap();
    assert_eq!(store.expire_warm_batches(T0).await.unwrap(), 0, "created before, not at");
    assert_eq!(store.expire_warm_batches(T0 + 50).await.unwrap(), 1);
    assert_eq!(store.warm_progress(&alpha.id, &old.id).await.unwrap(), None);
    assert!(!store.finish_warm_item(&old.id, 0, &WarmItemState::Done, T0 + 60).await.unwrap(), "its items went too");
    assert_eq!(store.outstanding_warm_items(&alpha.id).await.unwrap(), 4);
    assert_eq!(store.expire_warm_batches(T0 + 101).await.unwrap(), 1);
    assert_eq!(store.outstanding_warm_items(&alpha.id).await.unwrap(), 0);
}
