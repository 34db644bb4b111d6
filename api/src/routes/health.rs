//! Probes outside `/v1`: `/healthz` (the process answers) and `/readyz` (its backends answer too).

use poem::{handler, http::StatusCode, web::Data, web::Json};
use serde_json::{Value, json};

use crate::state::AppState;

#[handler]
pub async fn live() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

#[handler]
pub async fn ready(state: Data<&AppState>) -> (StatusCode, Json<Value>) {
    let (database, store) = tokio::join!(state.metadata.ping(), state.store.check());
    let verdict = |r: &Result<(), String>| match r {
        Ok(()) => json!("ok"),
        Err(e) => json!(e),
    };
    let database = database.map_err(|e| e.to_string());
    let store = store.map_err(|e| e.to_string());
    let ready = database.is_ok() && store.is_ok();
    let body = json!({
        "message": if ready { "ready" } else { "a backend is unavailable" },
        "ready": ready,
        "checks": { "database": verdict(&database), "store": verdict(&store) },
    });
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(body))
}
