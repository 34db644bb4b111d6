//! Files and folders: lookups, listings and their order, focus, description, deletion.

use shutterbox_metadata::{
    FileListing, FileRecord, FileSort, FileSortKey, FileStore, FolderScope, SqlMetadata, VariantRecord, VariantStore,
};
use shutterbox_model::{
    AccountId, FileId, FileKind, FocalPoint, FolderId, ImageFacts, ObjectKey, PixelSummary, Rgb, VariantDigest,
    VideoFacts,
};

use crate::backend::{T0, account, file, sample_video_facts};

pub async fn files_are_found_by_id_path_and_stem_within_their_account(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    let cat = file(store, &alpha, Some("pets"), "cat.jpg", "image/jpeg", 10, T0).await;
    let notes = file(store, &alpha, None, "notes.json", "application/json", 10, T0).await;
    let dog = file(store, &beta, None, "dog.png", "image/png", 10, T0).await;

    assert_eq!(store.file(&alpha.id, &cat.id).await.unwrap().as_ref(), Some(&cat));
    assert_eq!(store.file(&beta.id, &cat.id).await.unwrap(), None, "another account's file is not found");
    assert_eq!(store.file(&alpha.id, &FileId::new("no-such-file")).await.unwrap(), None);
    assert_eq!(store.file(&alpha.id, &FileId::new("n\0")).await.unwrap(), None);
    assert_eq!(store.file_by_id(&dog.id).await.unwrap().as_ref(), Some(&dog));
    assert_eq!(store.file_by_id(&FileId::new("n\0")).await.unwrap(), None);
    assert_eq!(store.file_by_path("alpha/pets/cat.jpg").await.unwrap().as_ref(), Some(&cat));
    assert_eq!(store.file_by_path("alpha/pets/cat.webp").await.unwrap(), None);
    assert_eq!(store.file_by_path("alpha/cat.jpg").await.unwrap(), None);
    assert_eq!(store.file_by_path("a\0").await.unwrap(), None);
    assert_eq!(store.file_by_stem("alpha/pets/cat").await.unwrap().as_ref(), Some(&cat));
    assert_eq!(store.file_by_stem("alpha/notes").await.unwrap().as_ref(), Some(&notes));
    assert_eq!(store.file_by_stem("alpha/pets/cat.jpg").await.unwrap(), None);
    assert_eq!(store.file_by_stem("a\0").await.unwrap(), None);

    let images = store.image_files(&alpha.id).await.unwrap();
    assert_eq!(images, vec![cat], "images only, of this account");
    assert_eq!(store.image_files(&AccountId::new("nobody")).await.unwrap(), Vec::new());
}

fn names(files: &[FileRecord]) -> Vec<&str> {
    files.iter().map(|f| f.name.as_str()).collect()
}

pub async fn listings_filter_and_page(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    let trip = file(store, &alpha, Some("trips"), "Summer_100%.jpg", "image/jpeg", 1, T0 + 4).await;
    file(store, &alpha, None, "summer-100.png", "image/png", 1, T0 + 3).await;
    file(store, &alpha, None, "winter.jpg", "image/jpeg", 1, T0 + 2).await;
    file(store, &alpha, None, "notes.json", "application/json", 1, T0 + 1).await;
    file(store, &beta, None, "summer.jpg", "image/jpeg", 1, T0 + 9).await;

    let alpha_id = &alpha.id;
    let list = move |listing: FileListing, offset, limit| async move {
        let (files, total) = store.list_files(alpha_id, &listing, offset, limit).await.unwrap();
        (names(&files).into_iter().map(str::to_owned).collect::<Vec<_>>(), total)
    };
    let everything = FileListing::default();
    assert_eq!(
        list(everything.clone(), 0, 10).await,
        (vec!["Summer_100%.jpg".into(), "summer-100.png".into(), "winter.jpg".into(), "notes.json".into()], 4),
        "newest first by default, this account's only"
    );
    assert_eq!(list(everything.clone(), 1, 2).await, (vec!["summer-100.png".into(), "winter.jpg".into()], 4));
    assert_eq!(list(everything, 10, 2).await, (vec![], 4), "past the end: no files, the same total");

    // Case is ignored; `_` and `%` are themselves, not wildcards.
    let named = |text: &str| FileListing { name_contains: Some(text.into()), ..Default::default() };
    assert_eq!(list(named("MER_1"), 0, 10).await, (vec!["Summer_100%.jpg".into()], 1));
    assert_eq!(list(named("100%"), 0, 10).await, (vec!["Summer_100%.jpg".into()], 1));
    assert_eq!(list(named("summer"), 0, 10).await.1, 2);
    assert_eq!(list(named("n\0"), 0, 10).await, (vec![], 0));

    let of_kind = |kind| FileListing { kind: Some(kind), ..Default::default() };
    assert_eq!(list(of_kind(FileKind::Image), 0, 10).await.1, 3);
    assert_eq!(list(of_kind(FileKind::Json), 0, 10).await, (vec!["notes.json".into()], 1));
    assert_eq!(list(of_kind(FileKind::Video), 0, 10).await, (vec![], 0));

    let in_folder = |scope| FileListing { folder: Some(scope), ..Default::default() };
    assert_eq!(list(in_folder(FolderScope::Root), 0, 10).await.1, 3);
    let trips = trip.folder_id.clone().unwrap();
    assert_eq!(list(in_folder(FolderScope::Folder(trips)), 0, 10).await, (vec!["Summer_100%.jpg".into()], 1));
    assert_eq!(list(in_folder(FolderScope::Folder(FolderId::new("n\0"))), 0, 10).await, (vec![], 0));

    let both = FileListing {
        name_contains: Some("summer".into()),
        kind: Some(FileKind::Image),
        folder: Some(FolderScope::Root),
        ..Default::default()
    };
    assert_eq!(list(both, 0, 10).await, (vec!["summer-100.png".into()], 1));
}

pub async fn listings_sort_by_each_key_both_ways(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    // (name, type, size, updated): ties in size and time between c.gif and a.webp, in lower-cased name
    // between B.jpg and b.jpg, which code-point order puts B first on both backends.
    let made = [
        ("b.jpg", "image/jpeg", 30, T0 + 1),
        ("A.png", "image/png", 10, T0 + 3),
        ("c.gif", "image/gif", 20, T0 + 2),
        ("a.webp", "image/webp", 20, T0 + 2),
        ("B.jpg", "image/jpeg", 40, T0 + 4),
    ];
    let mut files = Vec::new();
    for (name, raw_type, size, at) in made {
        files.push(file(store, &alpha, None, name, raw_type, size, at).await);
    }
    let id_of = |name: &str| files.iter().find(|f| f.name == name).unwrap().id.clone();
    // Which of two tied files comes first ascending: the smaller id.
    let by_id = |a: &'static str, b: &'static str| if id_of(a) < id_of(b) { [a, b] } else { [b, a] };
    let [c_a0, c_a1] = by_id("c.gif", "a.webp");
    let ascending: [(FileSortKey, Vec<&str>); 4] = [
        (FileSortKey::Updated, vec!["b.jpg", c_a0, c_a1, "A.png", "B.jpg"]),
        (FileSortKey::Name, vec!["A.png", "a.webp", "B.jpg", "b.jpg", "c.gif"]),
        (FileSortKey::Size, vec!["A.png", c_a0, c_a1, "b.jpg", "B.jpg"]),
        (FileSortKey::Type, {
            let [j0, j1] = by_id("B.jpg", "b.jpg");
            vec!["c.gif", j0, j1, "A.png", "a.webp"]
        }),
    ];
    for (key, expected) in ascending {
        for descending in [false, true] {
            let listing = FileListing { sort: FileSort { key, descending }, ..Default::default() };
            let (page, total) = store.list_files(&alpha.id, &listing, 0, 10).await.unwrap();
            let mut expected = expected.clone();
            if descending {
                expected.reverse();
            }
            assert_eq!((names(&page), total), (expected.clone(), 5), "{key:?}, descending: {descending}");
            // Pages of two never overlap and leave nothing out.
            let mut paged = Vec::new();
            for offset in [0, 2, 4] {
                let (page, _) = store.list_files(&alpha.id, &listing, offset, 2).await.unwrap();
                paged.extend(page.into_iter().map(|f| f.name));
            }
            assert_eq!(paged, expected, "{key:?} by pages");
        }
    }
}

pub async fn folders_list_by_path_with_their_counts_and_lineage(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    file(store, &alpha, Some("b"), "1.jpg", "image/jpeg", 1, T0).await;
    file(store, &alpha, Some("B"), "2.jpg", "image/jpeg", 1, T0).await;
    let x = file(store, &alpha, Some("a/x"), "3.jpg", "image/jpeg", 1, T0).await;
    let y = file(store, &alpha, Some("a/y"), "4.jpg", "image/jpeg", 1, T0).await;
    file(store, &alpha, Some("a/y"), "5.jpg", "image/jpeg", 1, T0).await;
    file(store, &alpha, None, "6.jpg", "image/jpeg", 1, T0).await;
    file(store, &beta, Some("a"), "7.jpg", "image/jpeg", 1, T0).await;

    let (top, total) = store.list_folders(&alpha.id, None, 0, 10).await.unwrap();
    let shown: Vec<(&str, u64, u64)> = top.iter().map(|f| (f.path.as_str(), f.file_count, f.folder_count)).collect();
    assert_eq!((shown, total), (vec![("a", 0, 2), ("B", 1, 0), ("b", 1, 0)], 3));
    assert!(top.iter().all(|f| f.parent_id.is_none()));
    let (page, total) = store.list_folders(&alpha.id, None, 1, 1).await.unwrap();
    assert_eq!((page.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), total), (vec!["B"], 3));

    let a = &top[0];
    let (inner, total) = store.list_folders(&alpha.id, Some(&a.id), 0, 10).await.unwrap();
    let shown: Vec<(&str, u64)> = inner.iter().map(|f| (f.path.as_str(), f.file_count)).collect();
    assert_eq!((shown, total), (vec![("a/x", 1), ("a/y", 2)], 2));
    assert!(inner.iter().all(|f| f.parent_id.as_ref() == Some(&a.id)));
    assert_eq!(Some(&inner[0].id), x.folder_id.as_ref());
    assert_eq!(store.list_folders(&beta.id, Some(&a.id), 0, 10).await.unwrap(), (vec![], 0));

    let y_folder = y.folder_id.clone().unwrap();
    let lineage = store.folder_lineage(&alpha.id, &y_folder).await.unwrap().unwrap();
    assert_eq!(lineage, vec![a.clone(), inner[1].clone()], "top level first, the folder itself last");
    assert_eq!(store.folder_lineage(&alpha.id, &a.id).await.unwrap(), Some(vec![a.clone()]));
    assert_eq!(store.folder_lineage(&beta.id, &y_folder).await.unwrap(), None, "another account's folder");
    assert_eq!(store.folder_lineage(&alpha.id, &FolderId::new("nope")).await.unwrap(), None);
    assert_eq!(store.folder_lineage(&alpha.id, &FolderId::new("n\0")).await.unwrap(), None);
}

fn summary() -> PixelSummary {
    PixelSummary {
        dominant_color: Rgb([200, 100, 50]),
        thumbhash: "3OcRJYB4d3h/iIeHeEh3eIhw+j3A".into(),
        blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj".into(),
        placeholder: "data:image/webp;base64,UklGRg==".into(),
        attention: FocalPoint { x: 2_500, y: 7_500 },
    }
}

pub async fn focus_and_description_are_recorded(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    let cat = file(store, &alpha, None, "cat.jpg", "image/jpeg", 10, T0).await;
    let point = FocalPoint { x: 10_000, y: 0 };

    let focused = store.set_focus(&alpha.id, &cat.id, Some(point), T0 + 50).await.unwrap().unwrap();
    assert_eq!((focused.focus, focused.updated_at_ms, focused.created_at_ms), (Some(point), T0 + 50, T0));
    assert_eq!(store.file(&alpha.id, &cat.id).await.unwrap(), Some(focused));
    assert_eq!(store.set_focus(&beta.id, &cat.id, None, T0 + 60).await.unwrap(), None, "not beta's file");
    assert_eq!(store.set_focus(&alpha.id, &FileId::new("nope"), None, T0 + 60).await.unwrap(), None);
    let cleared = store.set_focus(&alpha.id, &cat.id, None, T0 + 70).await.unwrap().unwrap();
    assert_eq!((cleared.focus, cleared.updated_at_ms), (None, T0 + 70));

    let facts = ImageFacts { width: 4_000, height: 3_000, has_alpha: true, frame_count: 12 };
    assert!(store.describe_file(&cat.id, Some(facts), Some(&summary()), T0 + 80).await.unwrap());
    let described = store.file(&alpha.id, &cat.id).await.unwrap().unwrap();
    assert_eq!((described.facts, described.summary), (Some(facts), Some(summary())));
    assert_eq!(described.updated_at_ms, T0 + 70, "a description is no update of the file");
    // Facts that could not be read keep what is recorded; a summary that could not be computed is none.
    assert!(store.describe_file(&cat.id, None, None, T0 + 90).await.unwrap());
    let again = store.file(&alpha.id, &cat.id).await.unwrap().unwrap();
    assert_eq!((again.facts, again.summary), (Some(facts), None));
    assert!(!store.describe_file(&FileId::new("nope"), Some(facts), None, T0).await.unwrap());
    assert!(!store.describe_file(&FileId::new("n\0"), Some(facts), None, T0).await.unwrap());
}

pub async fn undescribed_files_page_by_id(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    let mut images = [
        file(store, &alpha, None, "1.jpg", "image/jpeg", 1, T0).await.id,
        file(store, &beta, None, "2.png", "image/png", 1, T0).await.id,
        file(store, &alpha, None, "3.mp4", "video/mp4", 1, T0).await.id,
    ];
    file(store, &alpha, None, "notes.json", "application/json", 1, T0).await;
    images.sort();
    let ids = |files: Vec<FileRecord>| files.into_iter().map(|f| f.id).collect::<Vec<_>>();

    let (first, total) = store.undescribed_files(None, 2).await.unwrap();
    assert_eq!((ids(first), total), (images[..2].to_vec(), 3), "every account's images and videos, by id");
    let (rest, total) = store.undescribed_files(Some(&images[1]), 2).await.unwrap();
    assert_eq!((ids(rest), total), (images[2..].to_vec(), 3));

    assert!(store.describe_file(&images[0], None, None, T0).await.unwrap());
    let (all, total) = store.undescribed_files(None, 10).await.unwrap();
    assert_eq!((ids(all), total), (images[1..].to_vec(), 2), "described, even with nothing read, is done");
}

/// A video's facts as confirm records them, read back; and as the description job replaces them.
pub async fn video_facts_are_kept_whole(store: &SqlMetadata) {
    let acme = account(store, "acme").await;
    let clip = file(store, &acme, None, "clip.mov", "video/quicktime", 9, T0).await;
    assert_eq!(clip.video, Some(sample_video_facts()), "as confirm made it");
    let read = store.file_by_id(&clip.id).await.unwrap().unwrap();
    assert_eq!((read.video, read.facts), (Some(sample_video_facts()), None), "a video has no image facts");
    let photo = file(store, &acme, None, "cat.jpg", "image/jpeg", 9, T0).await;
    assert_eq!(store.file_by_id(&photo.id).await.unwrap().unwrap().video, None);

    // Sound alone, with nothing but what a sound file states.
    let sound = VideoFacts {
        size: None,
        rotation: 0,
        duration_ms: Some(1),
        frame_rate: None,
        video_codec: None,
        audio_codec: Some("opus".into()),
        bitrate: None,
        frame_count: None,
    };
    assert!(store.set_video_facts(&clip.id, &sound).await.unwrap());
    let read = store.file_by_id(&clip.id).await.unwrap().unwrap();
    assert_eq!(read.video, Some(sound.clone()));
    assert!(!store.set_video_facts(&FileId::new("nope"), &sound).await.unwrap());
    assert!(!store.set_video_facts(&FileId::new("n\0"), &sound).await.unwrap());
}

pub fn variant(file: &FileRecord, digest: &str, size: u64) -> VariantRecord {
    let digest = VariantDigest::new(digest);
    VariantRecord {
        file_id: file.id.clone(),
        object_key: ObjectKey::variant(&file.id, &digest),
        digest,
        content_type: "image/webp".into(),
        size,
        pinned: false,
        last_access_ms: T0,
    }
}

pub async fn deleting_a_file_returns_it_with_its_variants(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    let cat = file(store, &alpha, None, "cat.jpg", "image/jpeg", 10, T0).await;
    let dog = file(store, &alpha, None, "dog.jpg", "image/jpeg", 10, T0).await;
    let mut variants = vec![variant(&cat, "d1", 100), variant(&cat, "d2", 200)];
    for v in variants.iter().chain([&variant(&dog, "d1", 300)]) {
        assert!(store.put_variant(v, T0).await.unwrap());
    }

    assert_eq!(store.delete_file(&beta.id, &cat.id).await.unwrap(), None, "not beta's file");
    assert!(store.variant(&cat.id, &VariantDigest::new("d1")).await.unwrap().is_some(), "its variants stay");

    let mut deleted = store.delete_file(&alpha.id, &cat.id).await.unwrap().unwrap();
    deleted.variants.sort_by(|a, b| a.digest.cmp(&b.digest));
    variants.sort_by(|a, b| a.digest.cmp(&b.digest));
    assert_eq!((deleted.file, deleted.variants), (cat.clone(), variants));
    assert_eq!(store.file_by_id(&cat.id).await.unwrap(), None);
    assert_eq!(store.variant(&cat.id, &VariantDigest::new("d1")).await.unwrap(), None);
    assert!(store.variant(&dog.id, &VariantDigest::new("d1")).await.unwrap().is_some(), "another file's stay");
    assert_eq!(store.variant_totals().await.unwrap(), (1, 300));
    assert_eq!(store.delete_file(&alpha.id, &cat.id).await.unwrap(), None, "gone already");
    assert_eq!(store.delete_file(&alpha.id, &FileId::new("n\0")).await.unwrap(), None);
}
