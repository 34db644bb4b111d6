//! Fuzz target `stored_path`: the stored-path sanitizers of model/src/path.rs — `FileName::from_upload`,
//! `FolderPath::parse`, `AccountName::parse` — and the `StoredPath` built from what they accept.
//!
//! Input: up to four fields separated by 0xFF, a byte that never occurs in UTF-8, so any text can be
//! written in a seed as it is: `filename`, `customFilename` (absent without a second field), `folderName`,
//! account name. Fields that are not UTF-8 are converted lossily.
//!
//! Beyond "never panics", what path.rs promises for every segment a user supplies: non-empty, at most
//! `MAX_SEGMENT_BYTES` bytes, not `.` or `..`, no `/` or `\`, no control character (Unicode Cc) and no
//! bidirectional control (the Unicode Bidi_Control set); folders at most `MAX_FOLDER_DEPTH` deep, without
//! empty segments; and nothing silently rewritten: the name is the filename, or the custom name with the
//! filename's extension added when it has none, and the folder is what was sent, its outer slashes
//! dropped. A stored name also passes the check again, as confirm re-validates it (metadata/src/records.rs).

#![no_main]

use libfuzzer_sys::fuzz_target;
use shutterbox_model::{
    AccountName, FileName, FolderPath, StoredPath,
    path::{MAX_FOLDER_DEPTH, MAX_SEGMENT_BYTES, extension, stem},
};

fuzz_target!(|data: &[u8]| {
    let mut fields = data.split(|&b| b == 0xFF).map(String::from_utf8_lossy);
    let filename = fields.next().unwrap_or_default();
    let custom = fields.next();
    let folder = fields.next().unwrap_or_default();
    let account = fields.next();

    let name = FileName::from_upload(&filename, custom.as_deref());
    if let Ok(name) = &name {
        check_name(&filename, custom.as_deref(), name);
    }
    let folder_path = FolderPath::parse(&folder);
    if let Ok(folder_path) = &folder_path {
        check_folder(&folder, folder_path.as_ref());
    }
    let account = match account {
        Some(text) => AccountName::parse(&text).ok().inspect(|a| check_account(&text, a)),
        None => AccountName::parse("acme").ok(),
    };
    if let (Ok(name), Ok(folder), Some(account)) = (name, folder_path, account) {
        check_stored(StoredPath::new(account, folder, name));
    }
});

/// The Unicode Bidi_Control characters (LRM, RLM, ALM, the embeddings, overrides and isolates).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn assert_segment(segment: &str) {
    assert!(!segment.is_empty(), "empty segment");
    assert!(segment.len() <= MAX_SEGMENT_BYTES, "{} bytes: {segment:?}", segment.len());
    assert!(segment != "." && segment != "..", "dot segment {segment:?}");
    assert!(!segment.contains(['/', '\\']), "separator in {segment:?}");
    assert!(!segment.chars().any(|c| c.is_control() || is_bidi_control(c)), "forbidden character in {segment:?}");
}

fn check_name(filename: &str, custom: Option<&str>, name: &FileName) {
    let stored = name.as_str();
    assert_segment(stored);
    let expected = match custom {
        None => filename.to_owned(),
        Some(custom) => match (extension(custom), extension(filename)) {
            (None, Some(ext)) => format!("{custom}.{ext}"),
            _ => custom.to_owned(),
        },
    };
    assert_eq!(stored, expected, "the name was rewritten");
    // Confirm validates the pending upload's stored name again, with no custom name.
    assert_eq!(FileName::from_upload(stored, None).as_ref(), Ok(name), "a stored name is refused on confirm");
    if let Some(ext) = extension(stored) {
        assert_eq!(format!("{}.{ext}", stem(stored)), stored);
    }
    // The clash suffix (six of [a-z0-9], metadata/src/sql.rs) adds only itself and an underscore, to the
    // stem: the extension stays, and the stem, which must be unique in the account, changes.
    let suffixed = name.with_suffix("k3x9qa");
    let suffixed = suffixed.as_str();
    assert_eq!(suffixed.len(), stored.len() + 7);
    assert!(!suffixed.contains(['/', '\\']) && suffixed != "..", "{suffixed:?}");
    assert_eq!(extension(suffixed), extension(stored), "{stored:?} → {suffixed:?}");
    assert!(stem(suffixed).contains("_k3x9qa"), "{stored:?} → {suffixed:?}");
}

fn check_folder(sent: &str, folder: Option<&FolderPath>) {
    let trimmed = sent.trim_matches('/');
    let Some(folder) = folder else {
        assert!(trimmed.is_empty(), "{sent:?} was taken for the root");
        return;
    };
    assert!(!folder.segments().is_empty() && folder.segments().len() <= MAX_FOLDER_DEPTH);
    folder.segments().iter().for_each(|s| assert_segment(s));
    assert_eq!(folder.to_string(), trimmed, "the folder was rewritten");
    let lineage: Vec<String> = folder.lineage().collect();
    assert_eq!(lineage.len(), folder.segments().len());
    assert_eq!(lineage.last().map(String::as_str), Some(trimmed));
}

fn check_account(text: &str, account: &AccountName) {
    assert_eq!(account.as_str(), text);
    assert!((1..=63).contains(&text.len()), "{text:?}");
    assert!(text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_'));
    assert!(text.as_bytes()[0].is_ascii_alphanumeric());
}

fn check_stored(path: StoredPath) {
    let full = path.to_string();
    let segments: Vec<&str> = path.segments().collect();
    // No segment holds a '/', so the text splits back into exactly the segments.
    assert_eq!(full.split('/').collect::<Vec<_>>(), segments, "{full:?}");
    assert_eq!(segments.len(), 2 + path.folder().map_or(0, |f| f.segments().len()));
    segments.iter().for_each(|s| assert_segment(s));
    let stem = path.stem();
    assert!(full.starts_with(&stem), "{stem:?} is not a prefix of {full:?}");
    let suffixed = path.with_suffix("k3x9qa");
    assert_eq!(suffixed.to_string().len(), full.len() + 7);
    assert_eq!(suffixed.segments().count(), segments.len());
    assert!(suffixed.stem().len() == stem.len() + 7 && suffixed.stem() != stem, "{stem:?} → {:?}", suffixed.stem());
}
