//! Stored paths: `<account>/<folder…>/<name>`, the public address of a file. Every segment a user supplies
//! is checked here; a bad one is refused (400), never silently rewritten, so what the user sent is what the
//! URL shows. Object keys in the store never derive from these names.

use std::fmt;

/// Longest segment accepted, in bytes (a common file-system limit).
pub const MAX_SEGMENT_BYTES: usize = 255;
/// Deepest folder nesting accepted.
pub const MAX_FOLDER_DEPTH: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("{field} must not be empty")]
    Empty { field: &'static str },
    #[error("{field} is longer than {MAX_SEGMENT_BYTES} bytes")]
    TooLong { field: &'static str },
    #[error("{field} must not be '.' or '..'")]
    DotSegment { field: &'static str },
    #[error("{field} must not contain '/' or '\\'")]
    Separator { field: &'static str },
    #[error("{field} must not contain control or bidirectional-override characters")]
    ForbiddenCharacter { field: &'static str },
    #[error("folderName must not contain empty segments ('//')")]
    EmptyFolderSegment,
    #[error("folderName is nested deeper than {MAX_FOLDER_DEPTH} levels")]
    TooDeep,
    #[error(
        "account name must be 1-63 characters of lowercase letters, digits, '-' or '_', starting with a letter or digit"
    )]
    BadAccountName,
}

/// Checks one path segment as supplied by a user under the name `field`.
fn check_segment(field: &'static str, segment: &str) -> Result<(), PathError> {
    if segment.is_empty() {
        return Err(PathError::Empty { field });
    }
    if segment.len() > MAX_SEGMENT_BYTES {
        return Err(PathError::TooLong { field });
    }
    if segment == "." || segment == ".." {
        return Err(PathError::DotSegment { field });
    }
    if segment.contains(['/', '\\']) {
        return Err(PathError::Separator { field });
    }
    // Bidi overrides let `gpj.exe` display as `exe.jpg`; control characters break headers and logs. The
    // characters refused are Unicode's whole Bidi_Control set: embeddings, overrides, isolates and the marks.
    let forbidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
    };
    if segment.chars().any(forbidden) {
        return Err(PathError::ForbiddenCharacter { field });
    }
    Ok(())
}

/// The extension of a name (`jpg` of `cat.jpg`); none for `.bashrc`, `cat` or `cat.`.
pub fn extension(name: &str) -> Option<&str> {
    match name.rfind('.') {
        Some(0) | None => None,
        Some(i) if i + 1 == name.len() => None,
        Some(i) => Some(&name[i + 1..]),
    }
}

/// A name without its extension.
pub fn stem(name: &str) -> &str {
    match extension(name) {
        Some(ext) => &name[..name.len() - ext.len() - 1],
        None => name,
    }
}

/// An account's name, which is the first segment of every stored path of the account.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AccountName(String);

impl AccountName {
    pub fn parse(name: &str) -> Result<Self, PathError> {
        let valid = (1..=63).contains(&name.len())
            && name
                .bytes()
                .enumerate()
                .all(|(i, b)| b.is_ascii_lowercase() || b.is_ascii_digit() || (i > 0 && (b == b'-' || b == b'_')));
        if valid { Ok(Self(name.to_owned())) } else { Err(PathError::BadAccountName) }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AccountName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The name a file is stored under: `customFilename` when given (taking the original extension when it has
/// none), else `filename`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileName(String);

impl FileName {
    pub fn from_upload(filename: &str, custom: Option<&str>) -> Result<Self, PathError> {
        check_segment("filename", filename)?;
        let Some(custom) = custom else {
            return Ok(Self(filename.to_owned()));
        };
        check_segment("customFilename", custom)?;
        let name = match (extension(custom), extension(filename)) {
            (None, Some(ext)) => format!("{custom}.{ext}"),
            _ => custom.to_owned(),
        };
        check_segment("customFilename", &name)?;
        Ok(Self(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `cat.jpg` → `cat_<suffix>.jpg`, used when the stem is already taken in the account. The suffix always
    /// lands in the stem, never in the extension.
    pub fn with_suffix(&self, suffix: &str) -> Self {
        match extension(&self.0) {
            Some(ext) => Self(format!("{}_{suffix}.{ext}", stem(&self.0))),
            None => {
                // `a.` has no extension, but `a._x` would have one (`_x`), and a stem without the suffix:
                // the suffix goes before trailing dots.
                let base = self.0.trim_end_matches('.');
                Self(format!("{base}_{suffix}{}", &self.0[base.len()..]))
            }
        }
    }
}

/// A folder path inside an account, `a/b/c`. Leading and trailing slashes are tolerated and dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderPath(Vec<String>);

impl FolderPath {
    /// `None` for an empty folder name (the account's root).
    pub fn parse(folder: &str) -> Result<Option<Self>, PathError> {
        let trimmed = folder.trim_matches('/');
        if trimmed.is_empty() {
            return Ok(None);
        }
        let mut segments = Vec::new();
        for segment in trimmed.split('/') {
            if segment.is_empty() {
                return Err(PathError::EmptyFolderSegment);
            }
            check_segment("folderName", segment)?;
            segments.push(segment.to_owned());
        }
        if segments.len() > MAX_FOLDER_DEPTH {
            return Err(PathError::TooDeep);
        }
        Ok(Some(Self(segments)))
    }

    /// Every ancestor path and this one, shortest first: `a`, `a/b`, `a/b/c`.
    pub fn lineage(&self) -> impl Iterator<Item = String> + '_ {
        (1..=self.0.len()).map(|n| self.0[..n].join("/"))
    }

    pub fn segments(&self) -> &[String] {
        &self.0
    }
}

impl fmt::Display for FolderPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("/"))
    }
}

/// The full public path of a file: `<account>/<folder…>/<name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPath {
    account: AccountName,
    folder: Option<FolderPath>,
    name: FileName,
}

impl StoredPath {
    pub fn new(account: AccountName, folder: Option<FolderPath>, name: FileName) -> Self {
        Self { account, folder, name }
    }

    /// A path as stored by the service (built by `new` and written as `Display` shows it), read back from
    /// the database; `None` unless it has an account segment, a name and no empty segment.
    pub fn from_stored(text: &str) -> Option<Self> {
        let mut segments: Vec<&str> = text.split('/').collect();
        let name = segments.pop().filter(|s| !s.is_empty())?;
        let (account, folder) = segments.split_first()?;
        if account.is_empty() || folder.iter().any(|s| s.is_empty()) {
            return None;
        }
        let folder = (!folder.is_empty()).then(|| FolderPath(folder.iter().map(|s| (*s).to_owned()).collect()));
        Some(Self { account: AccountName((*account).to_owned()), folder, name: FileName(name.to_owned()) })
    }

    pub fn name(&self) -> &FileName {
        &self.name
    }

    pub fn folder(&self) -> Option<&FolderPath> {
        self.folder.as_ref()
    }

    /// The path without the name's extension: unique within an account.
    pub fn stem(&self) -> String {
        let full = self.to_string();
        match extension(self.name.as_str()) {
            Some(ext) => full[..full.len() - ext.len() - 1].to_owned(),
            None => full,
        }
    }

    pub fn with_suffix(&self, suffix: &str) -> Self {
        Self { name: self.name.with_suffix(suffix), ..self.clone() }
    }

    /// Every segment, account first, for building URLs.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.account.as_str())
            .chain(self.folder.iter().flat_map(|f| f.segments().iter().map(String::as_str)))
            .chain(std::iter::once(self.name.as_str()))
    }
}

impl fmt::Display for StoredPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.folder {
            Some(folder) => write!(f, "{}/{folder}/{}", self.account, self.name.as_str()),
            None => write!(f, "{}/{}", self.account, self.name.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_paths_read_back_as_written() {
        let folder = FolderPath::parse("a/b").unwrap();
        for folder in [None, folder] {
            let path = StoredPath::new(account(), folder, FileName::from_upload("cat.v2.jpg", None).unwrap());
            assert_eq!(StoredPath::from_stored(&path.to_string()), Some(path));
        }
        for bad in ["", "acme", "acme/", "/cat.jpg", "acme//cat.jpg"] {
            assert_eq!(StoredPath::from_stored(bad), None, "{bad:?}");
        }
    }

    fn account() -> AccountName {
        AccountName::parse("acme").unwrap()
    }

    #[test]
    fn custom_filename_keeps_the_original_extension() {
        assert_eq!(FileName::from_upload("cat.jpg", Some("holiday")).unwrap().as_str(), "holiday.jpg");
        assert_eq!(FileName::from_upload("cat.jpg", Some("holiday.png")).unwrap().as_str(), "holiday.png");
        assert_eq!(FileName::from_upload("README", Some("notes")).unwrap().as_str(), "notes");
        assert_eq!(FileName::from_upload("cat.jpg", None).unwrap().as_str(), "cat.jpg");
    }

    #[test]
    fn bad_segments_are_refused_with_the_field_named() {
        for bad in ["", ".", "..", "a/b", "a\\b", "a\u{0}b", "a\nb", "x\u{202E}gpj.exe", &"x".repeat(256)] {
            let err = FileName::from_upload(bad, None).unwrap_err();
            assert!(err.to_string().starts_with("filename"), "{bad:?}: {err}");
        }
        assert!(FileName::from_upload(&"x".repeat(255), None).is_ok());
        let err = FileName::from_upload("a.jpg", Some("../x")).unwrap_err();
        assert!(err.to_string().starts_with("customFilename"));
    }

    /// Found by the `stored_path` fuzz target: U+061C ARABIC LETTER MARK, the one Bidi_Control character
    /// missing from the list (LRM and RLM, its siblings, were refused), got through.
    #[test]
    fn every_bidi_control_character_is_refused() {
        let bidi = ['\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}'];
        for c in bidi {
            let name = format!("x{c}gpj.exe");
            assert_eq!(FileName::from_upload(&name, None), Err(PathError::ForbiddenCharacter { field: "filename" }));
            assert!(matches!(FolderPath::parse(&format!("a/{c}")), Err(PathError::ForbiddenCharacter { .. })));
        }
        let fuzzed = b"x\xd8\x9cgpj.epj.e\xef\xbf\xbd\xe3\x80\xaa";
        let fuzzed = String::from_utf8_lossy(fuzzed);
        assert!(matches!(FileName::from_upload(&fuzzed, None), Err(PathError::ForbiddenCharacter { .. })));
    }

    #[test]
    fn folders_nest_and_refuse_traversal() {
        let folder = FolderPath::parse("/photos/2026/").unwrap().unwrap();
        assert_eq!(folder.to_string(), "photos/2026");
        assert_eq!(folder.lineage().collect::<Vec<_>>(), ["photos", "photos/2026"]);
        assert_eq!(FolderPath::parse("").unwrap(), None);
        assert_eq!(FolderPath::parse("/").unwrap(), None);
        assert_eq!(FolderPath::parse("a//b"), Err(PathError::EmptyFolderSegment));
        assert!(matches!(FolderPath::parse("a/../b"), Err(PathError::DotSegment { .. })));
        assert!(matches!(FolderPath::parse("a\\b"), Err(PathError::Separator { .. })));
        assert_eq!(FolderPath::parse(&vec!["a"; 33].join("/")), Err(PathError::TooDeep));
    }

    #[test]
    fn stored_paths_have_an_account_segment_and_a_unique_stem() {
        let name = FileName::from_upload("cat.jpg", None).unwrap();
        let folder = FolderPath::parse("pets/cats").unwrap();
        let path = StoredPath::new(account(), folder, name);
        assert_eq!(path.to_string(), "acme/pets/cats/cat.jpg");
        assert_eq!(path.stem(), "acme/pets/cats/cat");
        assert_eq!(path.with_suffix("k3x9qa").to_string(), "acme/pets/cats/cat_k3x9qa.jpg");
        assert_eq!(path.segments().collect::<Vec<_>>(), ["acme", "pets", "cats", "cat.jpg"]);
        let bare = StoredPath::new(account(), None, FileName::from_upload(".env", None).unwrap());
        assert_eq!(bare.stem(), "acme/.env");
        assert_eq!(bare.with_suffix("ab").to_string(), "acme/.env_ab");
    }

    /// Found by the `stored_path` fuzz target: `@..` (no extension) became `@.._k3x9qa`, whose extension is
    /// `_k3x9qa` and whose stem `@.` has no suffix in it, so every retry clashed on the same stem again.
    #[test]
    fn the_clash_suffix_never_becomes_an_extension() {
        for (name, suffixed) in
            [("@..", "@_k3x9qa.."), ("a.", "a_k3x9qa."), ("...", "_k3x9qa..."), ("a.b.", "a.b_k3x9qa.")]
        {
            let name = FileName::from_upload(name, None).unwrap();
            let with = name.with_suffix("k3x9qa");
            assert_eq!(with.as_str(), suffixed);
            assert_eq!(extension(with.as_str()), None);
            assert!(stem(with.as_str()).contains("_k3x9qa"), "{with:?}");
            assert!(FileName::from_upload(with.as_str(), None).is_ok());
        }
        let path = StoredPath::new(account(), None, FileName::from_upload("a.", None).unwrap());
        assert_eq!(path.with_suffix("k3x9qa").stem(), "acme/a_k3x9qa.");
    }

    #[test]
    fn account_names_are_plain() {
        assert!(AccountName::parse("default").is_ok());
        assert!(AccountName::parse("team-42_a").is_ok());
        for bad in ["", "Default", "-a", "a b", "a/b", "é", &"a".repeat(64)] {
            assert_eq!(AccountName::parse(bad), Err(PathError::BadAccountName), "{bad:?}");
        }
    }

    #[test]
    fn extensions() {
        assert_eq!(extension("cat.jpg"), Some("jpg"));
        assert_eq!(extension("a.tar.gz"), Some("gz"));
        assert_eq!(extension(".bashrc"), None);
        assert_eq!(extension("cat."), None);
        assert_eq!(stem("a.tar.gz"), "a.tar");
    }
}
