//! The OpenAPI document: served at `/v1/openapi.json` with Swagger UI at `/v1/docs`, identical to the
//! checked-in `openapi/openapi.json`, and shaped for SDK generators (DESIGN.md §7).

use std::collections::HashSet;

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::TestApp;

const CHECKED_IN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");

fn generated() -> Value {
    serde_json::from_str(&shutterbox_api::openapi::spec_json()).unwrap()
}

#[test]
fn checked_in_spec_is_current() {
    let fresh = shutterbox_api::openapi::spec_json();
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(CHECKED_IN, format!("{fresh}\n")).unwrap();
    }
    let checked_in = std::fs::read_to_string(CHECKED_IN).unwrap_or_default();
    assert!(
        checked_in.trim_end() == fresh,
        "openapi/openapi.json is stale: regenerate it with `cargo run -- openapi > openapi/openapi.json` \
         (or UPDATE_OPENAPI=1 cargo test --test api openapi)"
    );
}

#[test]
fn every_operation_is_ready_for_generators() {
    let spec = generated();
    assert_eq!(spec["openapi"], "3.0.0");
    assert_eq!(spec["servers"][0]["url"], "/v1");
    let schemes = &spec["components"]["securitySchemes"];
    assert_eq!(schemes["AuthorizationHeader"]["name"], "Authorization");
    assert_eq!(schemes["AuthorizationHeader"]["in"], "header");
    assert_eq!(schemes["ApiKeyHeader"]["name"], "ApiKey");

    let mut operation_ids = HashSet::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path} has no operationId"));
            assert!(operation_ids.insert(id.to_owned()), "duplicate operationId {id}");
            assert_eq!(operation["tags"].as_array().map(Vec::len), Some(1), "{id} has exactly one tag");
            assert!(operation["summary"].is_string(), "{id} has a summary");
            // Both key forms, as alternatives, never as a header parameter.
            let security: Vec<String> = operation["security"]
                .as_array()
                .unwrap_or_else(|| panic!("{id} declares no security"))
                .iter()
                .flat_map(|alt| alt.as_object().unwrap().keys().cloned())
                .collect();
            assert_eq!(security, ["AuthorizationHeader", "ApiKeyHeader"], "{id}");
            let params = operation["parameters"].as_array().cloned().unwrap_or_default();
            assert!(params.iter().all(|p| p["name"] != "Authorization"), "{id} has an Authorization parameter");
            for status in ["400", "401", "403", "404", "429", "500"] {
                let schema = &operation["responses"][status]["content"]["application/json; charset=utf-8"]["schema"];
                assert_eq!(schema["$ref"], "#/components/schemas/Error", "{id} declares {status}");
            }
        }
    }
    assert_eq!(operation_ids.len(), 8);
    let file = &spec["components"]["schemas"]["File"];
    assert_eq!(file["properties"]["folderId"]["nullable"], true);
    assert_eq!(
        spec["components"]["schemas"]["Error"]["properties"]["headers"]["additionalProperties"]["type"],
        "string"
    );
}

#[tokio::test]
async fn the_spec_and_swagger_ui_are_served() {
    let app = TestApp::spawn().await;
    let response = app.client.get(format!("{}/openapi.json", app.base)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let served: Value = response.json().await.unwrap();
    assert_eq!(served, generated());
    let docs = app.client.get(format!("{}/docs", app.base)).send().await.unwrap();
    assert_eq!(docs.status(), StatusCode::OK);
    assert!(docs.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(docs.text().await.unwrap().contains("swagger"), "Swagger UI page");
}
