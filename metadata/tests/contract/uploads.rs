//! Pending uploads: presign, confirm, expiry, and a resumable upload's lock and pieces.

use shutterbox_metadata::{ConfirmOutcome, DeadWriters, FileStore, PieceRecord, Resumable, SqlMetadata, UploadStore};
use shutterbox_model::{Assembly, FileKind, ImageFacts, Multipart, Part, PendingId};

use crate::backend::{T0, account, new_file, pending};

pub async fn pending_uploads_read_back_as_written(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let plain = pending(&alpha, Some("pets/cats"), "cat.jpg", T0 + 60_000);
    store.create_pending(&plain).await.unwrap();
    assert_eq!(store.pending(&plain.id).await.unwrap(), Some(plain));

    let mut resumable = pending(&alpha, None, "movie.mp4", T0 + 60_000);
    let assembly = Assembly {
        offset: 10 << 20,
        multipart: Some(Multipart {
            upload_id: "upload-1".into(),
            part_size: 5 << 20,
            parts: vec![
                Part { number: 1, etag: "\"e1\"".into(), size: 5 << 20 },
                Part { number: 2, etag: "\"e2\"".into(), size: 5 << 20 },
            ],
            tail: None,
        }),
    };
    resumable.resumable =
        Some(Resumable::new(assembly, true, Some("filename bW92aWUubXA0".into()), Some("ab12".repeat(16))));
    store.create_pending(&resumable).await.unwrap();
    assert_eq!(store.pending(&resumable.id).await.unwrap(), Some(resumable));

    assert_eq!(store.pending(&PendingId::new("no-such-upload")).await.unwrap(), None);
    assert_eq!(store.pending(&PendingId::new("nul\0")).await.unwrap(), None);
}

pub async fn confirm_creates_the_file_and_its_folders_once(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let upload = pending(&alpha, Some("pets/cats"), "cat.jpg", T0 + 60_000);
    store.create_pending(&upload).await.unwrap();
    let new = new_file(&alpha, &upload, "image/jpeg", 4321, T0 + 5);
    let ConfirmOutcome::Created(file) = store.confirm_pending(&upload.id, new.clone()).await.unwrap() else {
        panic!("the first confirm creates the file");
    };
    assert_eq!(file.id, new.id);
    assert_eq!(file.path.to_string(), "alpha/pets/cats/cat.jpg");
    assert_eq!(file.name, "cat.jpg");
    assert_eq!((file.kind, file.size, file.created_at_ms, file.updated_at_ms), (FileKind::Image, 4321, T0 + 5, T0 + 5));
    assert_eq!(file.facts, Some(ImageFacts { width: 40, height: 30, has_alpha: false, frame_count: 1 }));
    assert_eq!((file.focus, &file.summary), (None, &None));
    assert_eq!(store.file(&alpha.id, &file.id).await.unwrap().as_ref(), Some(&*file), "what confirm returns is stored");
    assert_eq!(store.pending(&upload.id).await.unwrap().unwrap().file_id, Some(file.id.clone()));

    // The folders on the way exist: `cats` in `pets`, `pets` at the top.
    let lineage = store.folder_lineage(&alpha.id, file.folder_id.as_ref().unwrap()).await.unwrap().unwrap();
    assert_eq!(lineage.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["pets", "pets/cats"]);
    assert_eq!(lineage[0].parent_id, None);
    assert_eq!(lineage[1].parent_id.as_ref(), Some(&lineage[0].id));

    // Again: nothing new, the first file named.
    let again = store.confirm_pending(&upload.id, new_file(&alpha, &upload, "image/jpeg", 4321, T0 + 9)).await.unwrap();
    assert_eq!(again, ConfirmOutcome::AlreadyConfirmed { file_id: file.id.clone() });
    let (files, total) = store.list_files(&alpha.id, &Default::default(), 0, 10).await.unwrap();
    assert_eq!((files.len(), total), (1, 1));

    // A second file in the same folder reuses it.
    let second = pending(&alpha, Some("pets/cats"), "kitten.png", T0 + 60_000);
    store.create_pending(&second).await.unwrap();
    let ConfirmOutcome::Created(kitten) =
        store.confirm_pending(&second.id, new_file(&alpha, &second, "image/png", 10, T0 + 6)).await.unwrap()
    else {
        panic!("created");
    };
    assert_eq!(kitten.folder_id, file.folder_id);
}

pub async fn a_clashing_name_is_suffixed(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let mut paths = Vec::new();
    // `cat.jpg` and `cat.png` share a stem (`alpha/cat`), which is what must be unique.
    for name in ["cat.jpg", "cat.jpg", "cat.png"] {
        let upload = pending(&alpha, None, name, T0 + 60_000);
        store.create_pending(&upload).await.unwrap();
        let ConfirmOutcome::Created(file) =
            store.confirm_pending(&upload.id, new_file(&alpha, &upload, "image/jpeg", 1, T0)).await.unwrap()
        else {
            panic!("created");
        };
        assert_eq!(file.name, file.path.name().as_str());
        paths.push(file.path.to_string());
    }
    assert_eq!(paths[0], "alpha/cat.jpg");
    for (path, extension) in [(&paths[1], ".jpg"), (&paths[2], ".png")] {
        let suffix = path.strip_prefix("alpha/cat_").and_then(|rest| rest.strip_suffix(extension));
        assert!(suffix.is_some_and(|s| s.len() == 6), "{path} is the name with a suffix in its stem");
    }
    // Another account's `cat.jpg` does not clash.
    let beta = account(store, "beta").await;
    let upload = pending(&beta, None, "cat.jpg", T0 + 60_000);
    store.create_pending(&upload).await.unwrap();
    let outcome = store.confirm_pending(&upload.id, new_file(&beta, &upload, "image/jpeg", 1, T0)).await.unwrap();
    let ConfirmOutcome::Created(file) = outcome else { panic!("created") };
    assert_eq!(file.path.to_string(), "beta/cat.jpg");
}

pub async fn expired_uploads_come_oldest_first_and_go_when_deleted(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let mut uploads = Vec::new();
    for expires in [T0 + 30, T0 + 10, T0 + 20, T0 + 10, T0 + 99] {
        let upload = pending(&alpha, None, "a.jpg", expires);
        store.create_pending(&upload).await.unwrap();
        uploads.push(upload);
    }
    // Ties go by id.
    let mut tied = [uploads[1].id.clone(), uploads[3].id.clone()];
    tied.sort();
    let expired: Vec<PendingId> = store.expired_pending(T0 + 99, 10).await.unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(expired, [tied[0].clone(), tied[1].clone(), uploads[2].id.clone(), uploads[0].id.clone()]);
    assert_eq!(store.expired_pending(T0 + 99, 2).await.unwrap().len(), 2);
    assert_eq!(store.expired_pending(T0 + 10, 10).await.unwrap(), Vec::new(), "expired means before");

    // A confirmed upload expires too (its record is only kept to answer a repeated confirm).
    let confirmed = &uploads[0];
    store.confirm_pending(&confirmed.id, new_file(&alpha, confirmed, "image/jpeg", 1, T0)).await.unwrap();
    assert!(store.expired_pending(T0 + 31, 10).await.unwrap().iter().any(|p| p.id == confirmed.id));

    store.delete_pending(&uploads[1].id).await.unwrap();
    assert_eq!(store.pending(&uploads[1].id).await.unwrap(), None);
    store.delete_pending(&uploads[1].id).await.unwrap();
    assert_eq!(store.expired_pending(T0 + 99, 10).await.unwrap().len(), 3);
}

/// A resumable upload of `alpha`, before its first byte.
async fn resumable(store: &SqlMetadata, deferred: bool) -> shutterbox_metadata::PendingUpload {
    let alpha = account(store, "alpha").await;
    let mut upload = pending(&alpha, None, "big.bin", T0 + 60_000);
    upload.resumable = Some(Resumable::new(Assembly::default(), deferred, None, None));
    if deferred {
        upload.size = 0;
    }
    store.create_pending(&upload).await.unwrap();
    upload
}

pub async fn a_resumable_upload_has_one_writer_at_a_time(store: &SqlMetadata) {
    let upload = resumable(store, false).await;
    let none = DeadWriters::default();
    assert!(store.lock_upload(&upload.id, "node-a/1/r1", T0, T0 + 100, &none).await.unwrap());
    assert!(!store.lock_upload(&upload.id, "node-b/1/r1", T0 + 50, T0 + 150, &none).await.unwrap(), "held");
    assert!(store.lock_upload(&upload.id, "node-a/1/r1", T0 + 60, T0 + 200, &none).await.unwrap(), "extended");
    assert!(!store.lock_upload(&upload.id, "node-b/1/r1", T0 + 150, T0 + 250, &none).await.unwrap(), "still held");
    assert!(store.lock_upload(&upload.id, "node-b/1/r1", T0 + 201, T0 + 300, &none).await.unwrap(), "ran out");

    // A holder of this node from before its restart is gone, whatever its lock says; this life's is not.
    let restarted = DeadWriters { node: "node-b/".into(), alive: "node-b/2/".into() };
    assert!(store.lock_upload(&upload.id, "node-b/2/r9", T0 + 210, T0 + 900, &restarted).await.unwrap());
    let other = DeadWriters { node: "node-b/".into(), alive: "node-b/2/".into() };
    assert!(!store.lock_upload(&upload.id, "node-b/2/r10", T0 + 220, T0 + 900, &other).await.unwrap());

    store.unlock_upload(&upload.id, "node-a/1/r1").await.unwrap();
    assert!(!store.lock_upload(&upload.id, "node-c/1/r1", T0 + 230, T0 + 900, &none).await.unwrap(), "not its lock");
    store.unlock_upload(&upload.id, "node-b/2/r9").await.unwrap();
    assert!(store.lock_upload(&upload.id, "node-c/1/r1", T0 + 230, T0 + 900, &none).await.unwrap(), "let go");

    // Only a resumable upload that exists has a lock.
    let alpha = account(store, "alpha").await;
    let plain = pending(&alpha, None, "a.jpg", T0 + 60_000);
    store.create_pending(&plain).await.unwrap();
    assert!(!store.lock_upload(&plain.id, "node-a/1/r1", T0, T0 + 100, &none).await.unwrap());
    assert!(!store.lock_upload(&PendingId::new("nope"), "node-a/1/r1", T0, T0 + 100, &none).await.unwrap());
    assert!(!store.lock_upload(&PendingId::new("n\0pe"), "node-a/1/r1", T0, T0 + 100, &none).await.unwrap());
}

pub async fn pieces_are_recorded_only_by_the_lock_holder(store: &SqlMetadata) {
    let upload = resumable(store, true).await;
    let none = DeadWriters::default();
    let after = Assembly { offset: 777, multipart: None };
    let piece = PieceRecord { assembly: &after, declared_length: Some(5_000), expires_at_ms: T0 + 90_000 };
    assert!(!store.record_piece(&upload.id, "node-a/1/r1", &piece).await.unwrap(), "nobody holds it yet");
    assert!(store.lock_upload(&upload.id, "node-a/1/r1", T0, T0 + 100, &none).await.unwrap());
    assert!(!store.record_piece(&upload.id, "node-b/1/r1", &piece).await.unwrap(), "another holds it");
    assert_eq!(store.pending(&upload.id).await.unwrap().unwrap(), upload, "nothing was recorded");

    assert!(store.record_piece(&upload.id, "node-a/1/r1", &piece).await.unwrap());
    let now = store.pending(&upload.id).await.unwrap().unwrap();
    assert_eq!((now.size, now.expires_at_ms), (5_000, T0 + 90_000));
    let state = now.resumable.unwrap();
    assert_eq!(state.assembly, after);
    assert!(!state.length_deferred, "the length is declared now");

    // A piece that declares nothing keeps the length.
    let later = Assembly { offset: 5_000, multipart: None };
    let piece = PieceRecord { assembly: &later, declared_length: None, expires_at_ms: T0 + 95_000 };
    assert!(store.record_piece(&upload.id, "node-a/1/r1", &piece).await.unwrap());
    let now = store.pending(&upload.id).await.unwrap().unwrap();
    assert_eq!((now.size, now.resumable.unwrap().assembly), (5_000, later));
}
