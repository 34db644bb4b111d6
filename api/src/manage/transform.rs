//! `POST /v1/file/{id}/transform-url`: builds the public URL of a transformed image. It validates the
//! transformations exactly as delivery does (the same parser), so a URL it returns never answers 400.
//! Generating a URL queues the rendering of that variant, so the URL's first request is normally served
//! from the store. A `preset` names one of the operator's presets instead; when delivery URLs must be
//! signed, the URL carries its `sig` (api/src/access.rs has the rules).

use std::sync::Arc;

use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Path, payload::Json};
use serde::Deserialize;
use serde_json::Value;
use shutterbox_jobs::Job;
use shutterbox_metadata::FileRecord;
use shutterbox_model::{FileId, FileKind, Operation};
use shutterbox_pipeline::{Format, Transform};

use super::file_object::encode_path;
use crate::{
    auth::Caller,
    delivery::{Rendition, SIGNATURE},
    error::ApiError,
    http::{body::JsonBody, table::ApiTags},
    state::AppState,
};

/// Transformations, with the names, types and ranges of the delivery query parameters. All optional.
#[derive(Debug, Default, Object, Deserialize)]
#[oai(example, skip_serializing_if_is_none)]
#[serde(deny_unknown_fields)]
pub struct TransformRequest {
    /// Width in pixels.
    #[oai(nullable, validator(minimum(value = "1"), maximum(value = "5000")))]
    pub w: Option<u32>,
    /// Height in pixels.
    #[oai(nullable, validator(minimum(value = "1"), maximum(value = "5000")))]
    pub h: Option<u32>,
    /// `cover` (default), `contain`, `fill`, `inside` or `outside`.
    #[oai(nullable)]
    pub fit: Option<String>,
    /// Quality 1–100, or `"auto"`.
    pub q: Option<Value>,
    /// Gaussian blur radius, 0.3–1000.
    #[oai(nullable, validator(minimum(value = "0.3"), maximum(value = "1000")))]
    pub blur: Option<f64>,
    /// Sharpen.
    #[oai(nullable)]
    pub sharp: Option<bool>,
    /// Convert to grayscale.
    #[oai(nullable)]
    pub gray: Option<bool>,
    /// Rotation in degrees, −360 to 360.
    #[oai(nullable, validator(minimum(value = "-360"), maximum(value = "360")))]
    pub rot: Option<i32>,
    /// `<width>_<hexcolor>`: a width of 1–1000 pixels, then the colour as `rgb`, `rrggbb` or `rrggbbaa`
    /// (optionally after `#`), e.g. `10_ff0000`.
    #[oai(
        nullable,
        validator(pattern = r"^\+?0*([1-9][0-9]{0,2}|1000)_#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
    )]
    pub border: Option<String>,
    /// `x,y,width,height` in source pixels: whole numbers, width and height above 0.
    #[oai(
        nullable,
        validator(
            pattern = r"^\s*\+?[0-9]{1,9}\s*,\s*\+?[0-9]{1,9}\s*,\s*\+?0*[1-9][0-9]{0,8}\s*,\s*\+?0*[1-9][0-9]{0,8}\s*$"
        )
    )]
    pub crop: Option<String>,
    /// `false`: the first frame of an animated source, as a still image (animations stay animated in GIF
    /// and WebP otherwise).
    #[oai(nullable)]
    pub anim: Option<bool>,
    /// Where a `cover` crop (both `w` and `h`) takes its window: `center` (default), `north`, `northeast`,
    /// `east`, `southeast`, `south`, `southwest`, `west`, `northwest`; `attention` (the most interesting
    /// part: edges, skin tones, saturation), `entropy` (the busiest part), `focus` (the file's focal
    /// point, else `attention`); or `fp:X,Y`, a point with X and Y from 0 to 1 (0,0 the top left).
    #[oai(
        nullable,
        validator(
            pattern = r"^(center|centre|north|northeast|east|southeast|south|southwest|west|northwest|focus|attention|entropy|fp:\s*(0+(\.[0-9]*)?|0*\.[0-9]+|0*1(\.0*)?)\s*,\s*(0+(\.[0-9]*)?|0*\.[0-9]+|0*1(\.0*)?)\s*)$"
        )
    )]
    pub gravity: Option<String>,
    /// `jpeg`, `png`, `webp`, `avif`, `gif`, `tiff`, `bmp` or `auto`.
    #[oai(nullable)]
    pub format: Option<String>,
    /// The name of one of the service's presets (`SHUTTERBOX_PRESETS`), alone: instead of the parameters
    /// above.
    #[oai(nullable)]
    pub preset: Option<String>,
}

impl TransformRequest {
    /// The requested parameters as query pairs, in a fixed order, values as delivery expects them.
    fn pairs(&self) -> Result<Vec<(&'static str, String)>, ApiError> {
        let q = match &self.q {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(_) => return Err(ApiError::bad_request("q must be an integer from 1 to 100, or \"auto\"")),
        };
        let fields = [
            ("w", self.w.map(|v| v.to_string())),
            ("h", self.h.map(|v| v.to_string())),
            ("fit", self.fit.clone()),
            ("q", q),
            ("blur", self.blur.map(|v| v.to_string())),
            ("sharp", self.sharp.map(|v| v.to_string())),
            ("gray", self.gray.map(|v| v.to_string())),
            ("rot", self.rot.map(|v| v.to_string())),
            ("border", self.border.clone()),
            ("crop", self.crop.clone()),
            ("anim", self.anim.map(|v| v.to_string())),
            ("gravity", self.gravity.clone()),
            ("format", self.format.clone()),
            ("preset", self.preset.clone()),
        ];
        Ok(fields.into_iter().filter_map(|(name, value)| Some((name, value?))).collect())
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
        let pairs: Vec<(String, String)> =
            request.pairs()?.into_iter().map(|(name, value)| (name.to_owned(), value)).collect();
        let access = &state.settings.access;
        let (transform, preset) = access.transformation(&pairs)?;
        let file = state
            .metadata
            .file(&caller.account_id, &FileId::new(id.0))
            .await?
            .ok_or_else(|| ApiError::not_found("no file with this id"))?;
        if file.kind != FileKind::Image {
            return Err(ApiError::bad_request("transformations apply to images only; this file is not one"));
        }

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
        let mut url = format!("{}/file/{}", state.settings.base_url, encode_path(&path));
        if !query.is_empty() {
            url.push('?');
            url.push_str(&query);
        }
        let transformations: serde_json::Map<String, Value> = [
            ("w", request.w.map(Value::from)),
            ("h", request.h.map(Value::from)),
            ("fit", request.fit.map(Value::from)),
            ("q", request.q),
            ("blur", request.blur.map(Value::from)),
            ("sharp", request.sharp.map(Value::from)),
            ("gray", request.gray.map(Value::from)),
            ("rot", request.rot.map(Value::from)),
            ("border", request.border.map(Value::from)),
            ("crop", request.crop.map(Value::from)),
            ("anim", request.anim.map(Value::from)),
            ("gravity", request.gravity.map(Value::from)),
            ("format", request.format.map(Value::from)),
            ("preset", request.preset.map(Value::from)),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name.to_owned(), value?)))
        .collect();
        enqueue_variant(&state, &file, &transform).await;
        Ok(Json(TransformUrl {
            url,
            original_file: OriginalFile {
                id: file.id.into_string(),
                filename: file.name,
                mimetype: file.raw_type.to_string(),
            },
            transformations: Value::Object(transformations),
        }))
    }
}
