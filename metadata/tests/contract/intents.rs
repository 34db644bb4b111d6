//! Object intents: what the sweep finds of writes a crash interrupted.

use shutterbox_metadata::{FileStore, IntentStore, SqlMetadata, VariantStore};
use shutterbox_model::{FileId, ObjectKey, PendingId, VariantDigest};

use crate::backend::{T0, account, file};
use crate::files::variant;

pub async fn intents_are_stale_until_settled(store: &SqlMetadata) {
    // More keys than one statement takes.
    let mut early: Vec<ObjectKey> =
        (0..1_100).map(|i| ObjectKey::variant(&FileId::new(format!("f{i}")), &VariantDigest::new("d"))).collect();
    let late = ObjectKey::pending(&PendingId::mint());
    store.begin_objects(&early.iter().collect::<Vec<_>>(), T0).await.unwrap();
    store.begin_objects(&[&late], T0 + 10).await.unwrap();
    // Noted again later: the first note's time stands.
    store.begin_objects(&[&early[0]], T0 + 20).await.unwrap();
    store.begin_objects(&[], T0).await.unwrap();

    // Oldest first; ties by key.
    early.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    assert_eq!(store.stale_objects(T0 + 5, 2_000).await.unwrap(), early);
    assert_eq!(store.stale_objects(T0 + 5, 3).await.unwrap(), early[..3].to_vec());
    assert_eq!(store.stale_objects(T0, 10).await.unwrap(), vec![], "stale means begun before");
    let all = store.stale_objects(T0 + 11, 2_000).await.unwrap();
    assert_eq!((all.len(), all.last()), (1_101, Some(&late)));

    store.end_objects(&early.iter().collect::<Vec<_>>()).await.unwrap();
    assert_eq!(store.stale_objects(T0 + 11, 2_000).await.unwrap(), vec![late.clone()]);
    store.end_objects(&[&late, &ObjectKey::pending(&PendingId::mint())]).await.unwrap();
    store.end_objects(&[]).await.unwrap();
    assert_eq!(store.stale_objects(T0 + 11, 2_000).await.unwrap(), vec![]);
}

pub async fn an_object_is_in_use_while_a_record_names_it(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let cat = file(store, &alpha, None, "cat.jpg", "image/jpeg", 10, T0).await;
    let thumb = variant(&cat, "d1", 10);
    assert!(store.object_in_use(&cat.object_key).await.unwrap());
    assert!(!store.object_in_use(&thumb.object_key).await.unwrap(), "not recorded yet");
    assert!(store.put_variant(&thumb, T0).await.unwrap());
    assert!(store.object_in_use(&thumb.object_key).await.unwrap());
    assert!(!store.object_in_use(&ObjectKey::pending(&PendingId::mint())).await.unwrap());

    store.delete_variants(&cat.id, &[&thumb.digest]).await.unwrap();
    assert!(!store.object_in_use(&thumb.object_key).await.unwrap());
    store.delete_file(&alpha.id, &cat.id).await.unwrap().unwrap();
    assert!(!store.object_in_use(&cat.object_key).await.unwrap());
}
