//! What a variant is: a transformation and an output target (`VariantSpec`), and its name among a file's
//! variants (`VariantKey`: file id + digest). The digest is computed once, when the spec is made; every key
//! that names a variant (memory cache, stored object `files/<id>/v/<digest>`, render lease, job dedupe)
//! derives from `VariantKey`, so there is one format.

use std::{fmt, sync::LazyLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use shutterbox_model::{FileId, ObjectKey, VariantDigest};
use shutterbox_pipeline::{Target, Transform};

/// What to render: the transformation and the output target, with the digest naming that pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "SpecText", into = "SpecText")]
pub struct VariantSpec {
    transform: Transform,
    target: Target,
    digest: VariantDigest,
}

impl VariantSpec {
    pub fn new(transform: Transform, target: Target) -> Self {
        // Order-free, defaults filled in: the canonical text, so parameter order never splits a variant.
        let digest = Sha256::digest(format!("{}|{}", transform.canonical(), target.as_str()));
        Self { transform, target, digest: VariantDigest::new(hex::encode(&digest[..8])) }
    }

    /// The working copy renders of a HEIC or JPEG XL original read in its place
    /// (`shutterbox_pipeline::reads_working_copy`): a variant of the file like any other, the render of
    /// `q=95` into JPEG, stored, recorded and deleted with the file as variants are.
    pub fn working_copy() -> Self {
        WORKING_COPY.clone()
    }

    /// Whether this is the working copy: the same variant, however it was asked for.
    pub fn is_working_copy(&self) -> bool {
        self.digest == WORKING_COPY.digest
    }

    pub fn transform(&self) -> &Transform {
        &self.transform
    }

    pub fn target(&self) -> Target {
        self.target
    }

    /// Names the variant among its file's variants.
    pub fn digest(&self) -> &VariantDigest {
        &self.digest
    }

    /// The key of this variant of file `file_id`.
    pub fn key(&self, file_id: &FileId) -> VariantKey {
        VariantKey { file_id: file_id.clone(), digest: self.digest.clone() }
    }
}

static WORKING_COPY: LazyLock<VariantSpec> = LazyLock::new(|| {
    VariantSpec::new(shutterbox_pipeline::working_copy_transform(), shutterbox_pipeline::WORKING_COPY_TARGET)
});

/// The wire form of a spec in a job: the transformation as a delivery query, the target by name.
#[derive(Serialize, Deserialize)]
struct SpecText {
    query: String,
    target: String,
}

impl From<VariantSpec> for SpecText {
    fn from(spec: VariantSpec) -> Self {
        Self { query: spec.transform.to_query(), target: spec.target.as_str().to_owned() }
    }
}

impl TryFrom<SpecText> for VariantSpec {
    type Error = String;

    fn try_from(text: SpecText) -> Result<Self, String> {
        let transform = Transform::from_query(&text.query).map_err(|e| e.to_string())?;
        let target = Target::parse(&text.target).ok_or_else(|| format!("unknown target '{}'", text.target))?;
        Ok(Self::new(transform, target))
    }
}

/// A variant's name: whose it is and which one. Displayed as `<file id>/<digest>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VariantKey {
    pub file_id: FileId,
    pub digest: VariantDigest,
}

impl VariantKey {
    /// A strong ETag: the file is immutable and the pipeline deterministic, so the key names the bytes.
    pub fn etag(&self) -> String {
        format!("\"{}-{}\"", self.file_id, self.digest)
    }

    /// Where the stored variant lives.
    pub fn object_key(&self) -> ObjectKey {
        ObjectKey::variant(&self.file_id, &self.digest)
    }
}

impl fmt::Display for VariantKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.file_id, self.digest)
    }
}

#[cfg(test)]
mod tests {
    use shutterbox_pipeline::OutputFormat;

    use super::*;

    fn spec(query: &str, target: Target) -> VariantSpec {
        VariantSpec::new(Transform::from_query(query).unwrap(), target)
    }

    #[test]
    fn the_digest_ignores_order_and_spelling_but_not_the_target() {
        let webp = Target::Format(OutputFormat::Webp);
        assert_eq!(spec("w=300&fit=cover", webp).digest(), spec("fit=cover&w=300&q=80", webp).digest());
        assert_ne!(spec("w=300", webp).digest(), spec("w=300", Target::Auto).digest());
        assert_eq!(spec("w=300", webp).digest().as_str().len(), 16);
    }

    #[test]
    fn a_spec_survives_its_wire_form() {
        let original =
            spec("w=300&h=200&fit=contain&q=auto&blur=1.5&rot=-90&border=3_f00&crop=1,2,30,40", Target::Auto);
        let text = serde_json::to_string(&original).unwrap();
        assert_eq!(serde_json::from_str::<VariantSpec>(&text).unwrap(), original);
        let bad = r#"{"query":"w=0","target":"webp"}"#;
        assert!(serde_json::from_str::<VariantSpec>(bad).unwrap_err().to_string().contains('w'));
        let bad_target = r#"{"query":"w=10","target":"bmp"}"#;
        assert!(serde_json::from_str::<VariantSpec>(bad_target).is_err());
    }

    #[test]
    fn one_key_format() {
        let key = spec("w=10", Target::Source).key(&FileId::new("f1"));
        assert_eq!(key.to_string(), format!("f1/{}", key.digest));
        assert_eq!(key.object_key().as_str(), format!("files/f1/v/{}", key.digest));
        assert_eq!(key.etag(), format!("\"f1-{}\"", key.digest));
    }
}
