//! `POST /v1/file/{id}/transform-url`: builds the public URL of a transformed image. It validates the
//! transformations exactly as delivery does (the same parser), so a URL it returns never answers 400.
//! Generating a URL queues the rendering of that variant, so the URL's first request is normally served
//! from the store. A `preset` names one of the operator's presets instead; when delivery URLs must be
//! signed, the URL carries its `sig` (api/src/access.rs has the rules).

use std::{borrow::Cow, sync::Arc};

use poem::web::Data;
use poem_openapi::{
    Object, OpenApi,
    param::Path,
    payload::Json,
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::Type,
};
use serde::{Deserialize, Deserializer, de::Error as _};
use serde_json::{Map, Value};
use shutterbox_jobs::Job;
use shutterbox_metadata::FileRecord;
use shutterbox_model::{FileId, FileKind, Operation};
use shutterbox_pipeline::{Format, PARAMS, ParamKind, Transform};

use super::file_object::encode_path;
use crate::{
    auth::Caller,
    delivery::{DELIVER_FILE, PRESET, Rendition, SIGNATURE},
    error::ApiError,
    http::{body::JsonBody, route::ApiTags},
    state::AppState,
};

/// The transform-url body: any of the delivery parameters under their names, each a JSON value of its
/// kind's type (`PARAMS`), or `preset` alone. Its schema is made from the same rows (api/src/openapi.rs).
#[derive(Debug)]
pub struct TransformRequest {
    /// The values given, in the table's order, `preset` last; `null` is no value.
    given: Vec<(&'static str, Value)>,
}

/// What JSON value a parameter of `kind` takes (`None`: `preset`); the parser judges its text after.
fn takes(kind: Option<ParamKind>, value: &Value) -> bool {
    let integer = value.is_i64() || value.is_u64();
    match kind {
        Some(ParamKind::Integer { .. }) => integer,
        Some(ParamKind::Number { .. }) => value.is_number(),
        Some(ParamKind::Boolean) => value.is_boolean(),
        Some(ParamKind::Quality) => integer || value.is_string(),
        Some(ParamKind::OneOf { .. } | ParamKind::Border | ParamKind::Crop | ParamKind::Gravity) | None => {
            value.is_string()
        }
    }
}

fn json_type(kind: Option<ParamKind>) -> &'static str {
    match kind {
        Some(ParamKind::Integer { .. }) => "an integer",
        Some(ParamKind::Number { .. }) => "a number",
        Some(ParamKind::Boolean) => "true or false",
        Some(ParamKind::Quality) => "an integer or \"auto\"",
        Some(ParamKind::OneOf { .. } | ParamKind::Border | ParamKind::Crop | ParamKind::Gravity) | None => "a string",
    }
}

impl<'de> Deserialize<'de> for TransformRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut body = Map::<String, Value>::deserialize(deserializer)?;
        let fields = || PARAMS.iter().map(|spec| (spec.name, Some(spec.kind))).chain([(PRESET, None)]);
        if let Some(unknown) = body.keys().find(|name| !fields().any(|(field, _)| field == name.as_str())) {
            let known: Vec<&str> = fields().map(|(field, _)| field).collect();
            let unknown: String = unknown.chars().take(64).collect();
            return Err(D::Error::custom(format!("unknown field `{unknown}`, expected one of {}", known.join(", "))));
        }
        let mut given = Vec::new();
        for (name, kind) in fields() {
            let Some(value) = body.remove(name).filter(|value| !value.is_null()) else { continue };
            if !takes(kind, &value) {
                // Capped: the value is the caller's.
                let got: String = value.to_string().chars().take(64).collect();
                return Err(D::Error::custom(format!("{name}: expected {}, got {got}", json_type(kind))));
            }
            given.push((name, value));
        }
        Ok(Self { given })
    }
}

impl Type for TransformRequest {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "TransformRequest".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Reference(Self::name().into_owned())
    }

    /// An object; its properties are written from the parameter table where the document is completed.
    fn register(registry: &mut Registry) {
        registry.create_schema::<Self, _>(Self::name().into_owned(), |_| MetaSchema::new("object"));
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
        Box::new(std::iter::once(self))
    }
}

impl TransformRequest {
    /// The requested parameters as query pairs, in the table's order, values as delivery reads them.
    fn pairs(&self) -> Vec<(String, String)> {
        let text = |value: &Value| match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.given.iter().map(|(name, value)| ((*name).to_owned(), text(value))).collect()
    }

    /// The request's values under their names, as given.
    fn echo(self) -> Value {
        Value::Object(self.given.into_iter().map(|(name, value)| (name.to_owned(), value)).collect())
    }
}

#[derive(Debug, Object)]
#[oai(example)]
pub struct OriginalFile {
    pub id: String,
    pub filename: String,
    pub mimetype: String,
}

#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct TransformUrl {
    /// Public URL of the transformed image; loading it needs no credentials.
    pub url: String,
    pub original_file: OriginalFile,
    /// The requested transformations, echoed under their request names.
    pub transformations: Value,
}

/// Queues the rendering of the variant the URL names, so its first request is already a hit. Originals
/// served as they are (no transformation, `format=bmp`, SVG and BMP sources) need nothing. A queue that
/// refuses costs only time: the first request renders the variant instead.
async fn enqueue_variant(state: &AppState, file: &FileRecord, transform: &Transform) {
    let Ok(Rendition::Variant(spec)) = Rendition::of(file, transform, None) else { return };
    let job = Job::render_variant(&file.id, spec, None);
    if let Err(e) = job.enqueue(state.queue.as_ref()).await {
        tracing::warn!(error = %e, file = %file.id, "could not queue a variant; it will be rendered on request");
    }
}

pub struct TransformApi;

#[OpenApi(tag = "ApiTags::Files")]
impl TransformApi {
    /// Generate a transformed-image URL
    ///
    /// Validates the transformations like delivery does and returns the URL that serves them: the file's
    /// stored path with the extension of the requested format (the original extension for `auto` and
    /// `bmp`), and the transformations as its query string. Needs a secret key.
    #[oai(path = "/file/:id/transform-url", method = "post", operation_id = "createTransformUrl")]
    async fn transform_url(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        /// The image file's id.
        id: Path<String>,
        body: JsonBody<TransformRequest>,
    ) -> Result<Json<TransformUrl>, ApiError> {
        caller.require(Operation::TransformUrl)?;
        let request = body.read().await?;
        let pairs = request.pairs();
        let access = &state.settings.access;
        let (transform, preset) = access.transformation(&pairs)?;
        let file = state
            .metadata
            .file(&caller.account_id, &FileId::new(id.0))
            .await?
            .ok_or_else(|| ApiError::not_found("no file with this id"))?;
        if !matches!(file.kind, FileKind::Image | FileKind::Video) {
            return Err(ApiError::bad_request("transformations apply to images only; this file is not one"));
        }
        // What delivery would refuse of this file (a `t` past a video's end), refused here too.
        Rendition::of(&file, &transform, None).map_err(|e| ApiError::bad_request(e.to_string()))?;

        // The extension names the output format, except for auto and bmp, which keep the original's
        // (delivery finds `cat.webp` by the stem of `cat.jpg`).
        let path = match transform.format.and_then(Format::output_format) {
            Some(format) => format!("{}.{}", file.path.stem(), format.extension()),
            None => file.path.to_string(),
        };
        let query = {
            let mut query = form_urlencoded::Serializer::new(String::new());
            query.extend_pairs(pairs.iter());
            // Presets render unsigned; anything else carries a signature when delivery requires one.
            if let Some(keys) = access.signing.as_ref().filter(|_| preset.is_none() && !pairs.is_empty()) {
                let pairs = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str()));
                query.append_pair(SIGNATURE, &keys.sign(&path, pairs));
            }
            query.finish()
        };
        let mut url = DELIVER_FILE.url(&state.settings.base_url, &[&encode_path(&path)]);
        if !query.is_empty() {
            url.push('?');
            url.push_str(&query);
        }
        enqueue_variant(&state, &file, &transform).await;
        Ok(Json(TransformUrl {
            url,
            original_file: OriginalFile {
                id: file.id.into_string(),
                filename: file.name,
                mimetype: file.raw_type.to_string(),
            },
            transformations: request.echo(),
        }))
    }
}
