//! Stored variants: their records, a file's room for one more, eviction order and totals.

use shutterbox_metadata::{FileStore, SqlMetadata, VariantStore};
use shutterbox_model::{FileId, VariantDigest};

use crate::backend::{T0, account, file};
use crate::files::variant;

fn digest(text: &str) -> VariantDigest {
    VariantDigest::new(text)
}

pub async fn variants_are_recorded_once_and_only_for_files_that_exist(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let cat = file(store, &alpha, None, "cat.jpg", "image/jpeg", 10, T0).await;
    let record = variant(&cat, "d1", 100);
    assert!(store.put_variant(&record, T0 + 5).await.unwrap());
    let stored = store.variant(&cat.id, &digest("d1")).await.unwrap().unwrap();
    assert_eq!(stored, shutterbox_metadata::VariantRecord { last_access_ms: T0 + 5, ..record.clone() });
    assert!(!store.put_variant(&variant(&cat, "d1", 999), T0 + 6).await.unwrap(), "recorded already");
    assert_eq!(store.variant(&cat.id, &digest("d1")).await.unwrap().unwrap().size, 100, "the first one stays");

    let mut orphan = record.clone();
    orphan.file_id = FileId::new("no-such-file");
    assert!(!store.put_variant(&orphan, T0).await.unwrap(), "no file, no variant");
    assert_eq!(store.variant(&orphan.file_id, &digest("d1")).await.unwrap(), None);
    assert_eq!(store.variant(&cat.id, &digest("d2")).await.unwrap(), None);
    assert_eq!(store.variant(&FileId::new("n\0"), &digest("d1")).await.unwrap(), None);

    store.pin_variant(&cat.id, &digest("d1")).await.unwrap();
    assert!(store.variant(&cat.id, &digest("d1")).await.unwrap().unwrap().pinned);
    store.pin_variant(&cat.id, &digest("none")).await.unwrap();

    // Asked for later moves its time on; a touch from before it does not move it back.
    store.touch_variants(&[(cat.id.clone(), digest("d1"))], T0 + 100).await.unwrap();
    store.touch_variants(&[(cat.id.clone(), digest("d1"))], T0 + 50).await.unwrap();
    assert_eq!(store.variant(&cat.id, &digest("d1")).await.unwrap().unwrap().last_access_ms, T0 + 100);
    // Many at once (more than one statement's worth), most of them unknown.
    let many: Vec<(FileId, VariantDigest)> =
        (0..1_100).map(|i| (cat.id.clone(), digest(if i == 700 { "d1" } else { "other" }))).collect();
    store.touch_variants(&many, T0 + 200).await.unwrap();
    assert_eq!(store.variant(&cat.id, &digest("d1")).await.unwrap().unwrap().last_access_ms, T0 + 200);
    store.touch_variants(&[], T0 + 300).await.unwrap();
}

pub async fn the_room_of_a_file_names_its_oldest_unpinned_variants(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let cat = file(store, &alpha, None, "cat.jpg", "image/jpeg", 10, T0).await;
    for (i, name) in ["d1", "d2", "d3", "d4"].into_iter().enumerate() {
        assert!(store.put_variant(&variant(&cat, name, 10), T0 + i as i64).await.unwrap());
    }
    store.pin_variant(&cat.id, &digest("d1")).await.unwrap();
    let cat_id = &cat.id;
    let evictable = move |per_file: u64| async move {
        let room = store.variant_room(cat_id, &digest("new"), per_file).await.unwrap();
        assert_eq!((room.stored, room.this), (4, None));
        room.evictable.into_iter().map(|v| v.digest.into_string()).collect::<Vec<_>>()
    };
    assert_eq!(evictable(10).await, Vec::<String>::new(), "room enough");
    assert_eq!(evictable(5).await, Vec::<String>::new());
    assert_eq!(evictable(4).await, ["d2"], "the oldest unpinned one");
    assert_eq!(evictable(2).await, ["d2", "d3", "d4"]);
    assert_eq!(evictable(1).await, ["d2", "d3", "d4"], "never a pinned one");

    assert_eq!(store.variant_room(&cat.id, &digest("d1"), 10).await.unwrap().this, Some(true));
    assert_eq!(store.variant_room(&cat.id, &digest("d3"), 10).await.unwrap().this, Some(false));
    let none = store.variant_room(&FileId::new("nope"), &digest("d1"), 1).await.unwrap();
    assert_eq!((none.stored, none.this, none.evictable), (0, None, vec![]));
    let none = store.variant_room(&FileId::new("n\0"), &digest("d1"), 1).await.unwrap();
    assert_eq!(none.stored, 0);
}

pub async fn eviction_order_and_totals(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let cat = file(store, &alpha, None, "cat.jpg", "image/jpeg", 10, T0).await;
    let dog = file(store, &alpha, None, "dog.jpg", "image/jpeg", 10, T0).await;
    assert_eq!(store.variant_totals().await.unwrap(), (0, 0));
    assert_eq!(store.least_recent_variants(10).await.unwrap(), vec![]);
    // (file, digest, size, time, pinned)
    let made = [
        (&cat, "a", 100, T0 + 1, true),
        (&cat, "b", 200, T0 + 5, false),
        (&dog, "a", 300, T0 + 5, false),
        (&dog, "b", 400, T0 + 3, false),
        (&dog, "c", 500, T0 + 2, true),
    ];
    for (file, name, size, at, pinned) in made {
        assert!(store.put_variant(&variant(file, name, size), at).await.unwrap());
        if pinned {
            store.pin_variant(&file.id, &digest(name)).await.unwrap();
        }
    }
    assert_eq!(store.variant_totals().await.unwrap(), (5, 1_500));

    // Unpinned before pinned, least recently asked for first; ties by file, then digest.
    let (first, second) = if cat.id < dog.id { ((&cat, "b"), (&dog, "a")) } else { ((&dog, "a"), (&cat, "b")) };
    let expected = [(&dog, "b"), first, second, (&cat, "a"), (&dog, "c")];
    let order = store.least_recent_variants(10).await.unwrap();
    let shown: Vec<(FileId, String)> = order.iter().map(|v| (v.file_id.clone(), v.digest.to_string())).collect();
    let expected: Vec<(FileId, String)> = expected.iter().map(|(f, d)| (f.id.clone(), (*d).to_owned())).collect();
    assert_eq!(shown, expected);
    assert_eq!(store.least_recent_variants(2).await.unwrap(), order[..2].to_vec());

    assert_eq!(store.delete_variants(&dog.id, &[&digest("a"), &digest("b"), &digest("zz")]).await.unwrap(), 2);
    assert_eq!(store.variant_totals().await.unwrap(), (3, 800));
    // Many digests at once (more than one statement's worth).
    let others: Vec<VariantDigest> = (0..1_100).map(|i| digest(&format!("x{i}"))).collect();
    let mut many: Vec<&VariantDigest> = others.iter().collect();
    let c = digest("c");
    many.push(&c);
    assert_eq!(store.delete_variants(&dog.id, &many).await.unwrap(), 1);
    assert_eq!(store.delete_variants(&dog.id, &[]).await.unwrap(), 0);
    assert_eq!(store.variant_totals().await.unwrap(), (2, 300));
}

/// A variant recorded while its file is being deleted (a render finishing as the delete runs) is either
/// recorded first, and then among what the delete returns, so its object goes with the file's, or refused
/// (`false`: the caller removes its object). Never an error: on PostgreSQL the insert can find the file
/// still there and then fail its foreign key once the delete commits, which left the object behind.
pub async fn a_variant_racing_its_files_delete_goes_with_it_or_is_refused(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    for round in 0..40 {
        let cat = file(store, &alpha, None, &format!("cat-{round}.jpg"), "image/jpeg", 10, T0).await;
        let record = variant(&cat, "racing", 10);
        let (deleted, put) = tokio::join!(store.delete_file(&alpha.id, &cat.id), store.put_variant(&record, T0));
        let deleted = deleted.unwrap().expect("the file was there");
        let recorded = put.unwrap_or_else(|e| panic!("round {round}: recording the variant failed: {e}"));
        let returned = deleted.variants.iter().any(|v| v.digest == record.digest);
        assert_eq!(recorded, returned, "round {round}: recorded {recorded}, returned by the delete {returned}");
        assert_eq!(store.variant(&cat.id, &digest("racing")).await.unwrap(), None, "round {round}");
    }
}
