//! Authentication of management requests. A key arrives as `Authorization: ApiKey <key>` or as an `ApiKey:
//! <key>` header; both are declared as alternative security schemes in the OpenAPI document. `Caller` is
//! the extractor: it authenticates, applies the rate limit (per key, or per client address for requests
//! without a valid key) and leaves the decision for the response headers. Scope checks (403) happen in the
//! handlers through `Caller::require`.

use std::sync::Arc;

use poem::{Request, RequestBody};
use poem_openapi::{
    ApiExtractor, ApiExtractorType, ExtractParamOptions, SecurityScheme, auth::ApiKey, registry::Registry,
};
use shutterbox_metadata::KeyRecord;
use shutterbox_model::{AccountId, KeyHash, Operation, Scope, clock::now_ms};

use crate::{error::ApiError, rate_limit::RateLimitSlot, state::AppState, throttle::AddressBucket};

/// `Authorization: ApiKey <key>`.
#[derive(SecurityScheme)]
#[oai(rename = "AuthorizationHeader", ty = "api_key", key_name = "Authorization", key_in = "header")]
#[allow(dead_code)]
struct AuthorizationHeader(ApiKey);

/// `ApiKey: <key>`, an alternative header carrying the bare key.
#[derive(SecurityScheme)]
#[oai(rename = "ApiKeyHeader", ty = "api_key", key_name = "ApiKey", key_in = "header")]
#[allow(dead_code)]
struct ApiKeyHeader(ApiKey);

/// The two schemes as alternatives; used only for the OpenAPI document, `Caller` does the checking.
#[derive(SecurityScheme)]
#[allow(dead_code)]
enum KeySchemes {
    Authorization(AuthorizationHeader),
    ApiKey(ApiKeyHeader),
}

/// An authenticated caller: the account it acts for and its key's scope.
#[derive(Debug, Clone)]
pub struct Caller {
    pub account_id: AccountId,
    pub account_name: String,
    pub scope: Scope,
}

impl Caller {
    /// 403 unless the key's scope allows `operation`.
    pub fn require(&self, operation: Operation) -> Result<(), ApiError> {
        if self.scope.allows(operation) {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!("this key's scope '{}' does not allow this operation", self.scope)))
        }
    }
}

/// The key the request presents, if any; an `Authorization` header of another scheme is an error.
fn presented_key(req: &Request) -> Result<Option<&str>, ApiError> {
    let header = |name| req.headers().get(name).map(|v| v.to_str().map(str::trim));
    if let Some(value) = header("authorization") {
        let value = value.map_err(|_| ApiError::unauthorized("Authorization header is not valid text"))?;
        let key = value
            .split_once(' ')
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("apikey"))
            .map(|(_, key)| key.trim())
            .filter(|key| !key.is_empty())
            .ok_or_else(|| ApiError::unauthorized("Authorization header must be of the form 'ApiKey <key>'"))?;
        return Ok(Some(key));
    }
    if let Some(value) = header("apikey") {
        let key = value.map_err(|_| ApiError::unauthorized("ApiKey header is not valid text"))?;
        return Ok((!key.is_empty()).then_some(key));
    }
    Ok(None)
}

async fn authenticate(req: &Request, state: &AppState) -> Result<Option<KeyRecord>, ApiError> {
    match presented_key(req)? {
        Some(key) => Ok(state.metadata.find_key(&KeyHash::of(key), now_ms()).await?),
        None => Err(ApiError::unauthorized("missing API key: send 'Authorization: ApiKey <key>' or 'ApiKey: <key>'")),
    }
}

impl<'a> ApiExtractor<'a> for Caller {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::SecurityScheme];

    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        KeySchemes::register(registry);
    }

    fn security_schemes() -> Vec<&'static str> {
        KeySchemes::security_schemes()
    }

    async fn from_request(
        req: &'a Request,
        _body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let state =
            req.data::<Arc<AppState>>().ok_or_else(|| ApiError::internal("application state is not installed"))?;
        Ok(caller(req, state).await?)
    }
}

/// The caller a request's key authenticates, rate-limited (per key, or per client address for requests
/// without a valid key): what `Caller`'s extractor does, for handlers outside the OpenAPI service.
pub async fn caller(req: &Request, state: &AppState) -> Result<Caller, ApiError> {
    let outcome = authenticate(req, state).await;
    // Requests without a valid key are counted per client IP (not per connection: a new connection
    // per guess must not reset the count), so guessing keys is rate limited too.
    let bucket = match &outcome {
        Ok(Some(key)) => format!("key:{}", key.key_id),
        _ => match req.remote_addr().as_socket_addr() {
            // An IPv6 client holds a /64 at least: its addresses share one count.
            Some(addr) => format!("addr:{}", AddressBucket::of(addr.ip())),
            None => format!("addr:{}", req.remote_addr()),
        },
    };
    let decision = state.limiter.check(&bucket).await;
    if let Some(slot) = req.extensions().get::<RateLimitSlot>() {
        slot.set(decision);
    }
    if !decision.allowed {
        return Err(ApiError::too_many_requests(decision.retry_after()));
    }
    match outcome? {
        Some(key) => Ok(Caller { account_id: key.account_id, account_name: key.account_name, scope: key.scope }),
        None => Err(ApiError::unauthorized("invalid API key")),
    }
}
