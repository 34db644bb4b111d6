//! The OpenAPI document: served at `/v1/openapi.json` with Swagger UI at `/v1/docs`, identical to the
//! checked-in `openapi/openapi.json`, and shaped for SDK generators (docs/clients.md, "What the document
//! guarantees generators").

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
    let mut public = Vec::new();
    let mut tus = Vec::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path} has no operationId"));
            assert!(operation_ids.insert(id.to_owned()), "duplicate operationId {id}");
            assert_eq!(operation["tags"].as_array().map(Vec::len), Some(1), "{id} has exactly one tag");
            assert!(operation["summary"].is_string(), "{id} has a summary");
            assert!(operation["description"].as_str().is_some_and(|d| d.len() > 20), "{id} has a description");
            let params = operation["parameters"].as_array().cloned().unwrap_or_default();
            assert!(params.iter().all(|p| p["name"] != "Authorization"), "{id} has an Authorization parameter");
            assert!(params.iter().all(|p| p["description"].is_string()), "{id}: every parameter is described");
            let resumable = operation["tags"][0] == "Resumable";
            if let Some(body) = operation["requestBody"]["content"].as_object().filter(|_| !resumable) {
                for (media, body) in body {
                    let schema = &body["schema"]["$ref"].as_str().unwrap_or_default()["#/components/schemas/".len()..];
                    assert!(spec["components"]["schemas"][schema]["example"].is_object(), "{id}: {media} example");
                }
            }
            let responses = operation["responses"].as_object().unwrap();
            for (status, response) in responses {
                let request_id = &response["headers"]["X-Request-Id"]["$ref"];
                assert_eq!(request_id, "#/components/headers/X-Request-Id", "{id} {status}: X-Request-Id");
                if method == "head" {
                    // A HEAD's answers have no body, its errors included.
                    assert!(response["content"].is_null(), "{id} {status}: a HEAD has no body");
                } else if status.starts_with('4') || status.starts_with('5') {
                    let media = &response["content"]["application/json; charset=utf-8"];
                    assert_eq!(media["schema"]["$ref"], "#/components/schemas/Error", "{id} {status}");
                    assert_eq!(media["example"]["status"].as_u64(), status.parse().ok(), "{id} {status} example");
                } else if let Some(json) = response["content"]["application/json; charset=utf-8"].as_object() {
                    let schema = &json["schema"]["$ref"].as_str().unwrap()["#/components/schemas/".len()..];
                    assert!(spec["components"]["schemas"][schema]["example"].is_object(), "{id} {status} example");
                }
            }
            if operation["tags"][0] == "Resumable" {
                // tus: binary bodies of its own type, a key or an upload's token (or none, for OPTIONS).
                if let Some(body) = operation["requestBody"]["content"].as_object() {
                    assert_eq!(body.keys().collect::<Vec<_>>(), ["application/offset+octet-stream"], "{id}");
                }
                let statuses: Vec<&str> = responses.keys().map(String::as_str).collect();
                if method == "options" {
                    assert_eq!(operation["security"], serde_json::json!([]), "{id} is public");
                    assert_eq!(statuses, ["204"], "{id}");
                } else {
                    let security = &operation["security"];
                    let any_key = serde_json::json!([{ "AuthorizationHeader": [] }, { "ApiKeyHeader": [] }, {}]);
                    assert_eq!(security, &any_key, "{id}: a key or the upload's token");
                    for status in ["401", "403", "412", "429", "500", "503"] {
                        assert!(responses.contains_key(status), "{id} declares {status}");
                    }
                    let version =
                        operation["parameters"].as_array().unwrap().iter().find(|p| p["name"] == "Tus-Resumable");
                    assert_eq!(version.map(|p| &p["required"]), Some(&serde_json::json!(true)), "{id}: Tus-Resumable");
                }
                tus.push(id.to_owned());
                continue;
            }
            if operation["tags"][0] == "Delivery" {
                // Public: documented without security, never with a key.
                assert_eq!(operation["security"], serde_json::json!([]), "{id} is public");
                public.push(id.to_owned());
                continue;
            }
            // Both key forms, as alternatives, never as a header parameter.
            let security: Vec<String> = operation["security"]
                .as_array()
                .unwrap_or_else(|| panic!("{id} declares no security"))
                .iter()
                .flat_map(|alt| alt.as_object().unwrap().keys().cloned())
                .collect();
            assert_eq!(security, ["AuthorizationHeader", "ApiKeyHeader"], "{id}");
            for status in ["400", "401", "403", "404", "408", "413", "429", "500", "503"] {
                assert!(responses.contains_key(status), "{id} declares {status}");
            }
            assert!(responses["429"]["headers"]["Retry-After"].is_object(), "{id}: 429 names Retry-After");
        }
    }
    assert_eq!(operation_ids.len(), 23);
    public.sort();
    assert_eq!(public, ["deliverFile", "deliverRaw", "getThumbnail"]);
    tus.sort();
    assert_eq!(
        tus,
        [
            "appendResumableUpload",
            "createResumableUpload",
            "getResumableUploadOffset",
            "terminateResumableUpload",
            "tusCapabilities",
            "tusUploadCapabilities"
        ]
    );
    // The ranges of docs/transformations.md and of `pageSize` (docs/api.md) as schema constraints.
    let transform = &spec["components"]["schemas"]["TransformRequest"]["properties"];
    for (name, min, max) in [("w", 1.0, 5000.0), ("h", 1.0, 5000.0), ("blur", 0.3, 1000.0), ("rot", -360.0, 360.0)] {
        assert_eq!(transform[name]["minimum"].as_f64(), Some(min), "{name}");
        assert_eq!(transform[name]["maximum"].as_f64(), Some(max), "{name}");
    }
    assert_eq!(transform["q"]["anyOf"][0]["minimum"], 1);
    assert_eq!(transform["q"]["anyOf"][0]["maximum"], 100);
    assert_eq!(transform["q"]["anyOf"][1]["enum"], serde_json::json!(["auto"]));
    assert_eq!(transform["fit"]["enum"].as_array().map(Vec::len), Some(5));
    let list = &spec["paths"]["/files"]["get"]["parameters"];
    assert_eq!(list[1]["name"], "pageSize");
    assert_eq!(list[1]["schema"]["maximum"].as_f64(), Some(100.0));
    // Delivery takes the same parameters, with the same constraints.
    let delivery = spec["paths"]["/file/{path}"]["get"]["parameters"].as_array().unwrap();
    let w = delivery.iter().find(|p| p["name"] == "w").unwrap();
    assert_eq!((w["in"].as_str(), w["schema"]["maximum"].as_f64()), (Some("query"), Some(5000.0)));
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
    let page = docs.text().await.unwrap();
    assert!(page.contains("SwaggerUIBundle"), "Swagger UI page");
    // The completed document, public routes included, not poem-openapi's own.
    assert!(page.contains("deliverFile"), "Swagger UI shows the completed document");
    let slash = app.client.get(format!("{}/docs/", app.base)).send().await.unwrap();
    assert_eq!(slash.status(), StatusCode::OK);
}
