//! Render limits: `SHUTTERBOX_MAX_OUTPUT_PIXELS` (after `rot` and `border` grow the canvas) and
//! `SHUTTERBOX_MAX_SOURCE_FRAMES` (animated sources, counted before decoding). A request beyond one is a 400
//! naming it, and nothing is stored for it; a setting of 0 stops the start.

use reqwest::StatusCode;
use serde_json::Value;
use shutterbox_pipeline::{
    Size, Transform, output_size,
    samples::{Seeded, animated_gif, random_request},
};

use crate::helpers::{PNG, TestApp, assert_error, dimensions, file_id, shutterbox};

/// The fixture's size.
const GRADIENT: Size = Size { width: 16, height: 8 };

#[tokio::test]
async fn outputs_beyond_the_pixel_limit_are_refused_and_every_other_request_renders() {
    // 200 pixels against a 128-pixel source: a rotation's canvas or a border crosses it, a resize never.
    const LIMIT: u64 = 200;
    let app = TestApp::spawn_with(|config| config.limits.max_output_pixels = LIMIT).await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let url = file["secureUrl"].as_str().unwrap();
    let mut random = Seeded(0x5eed_0011);
    let (mut refused, mut rendered) = (0, 0);
    for _ in 0..80 {
        let (query, _) = random_request(&mut random, GRADIENT, 40);
        let transform = Transform::from_query(&query).unwrap();
        let response = app.client.get(format!("{url}?{query}")).send().await.unwrap();
        match output_size(&transform, GRADIENT) {
            Ok(size) if u64::from(size.width) * u64::from(size.height) > LIMIT => {
                let message = assert_error(response, StatusCode::BAD_REQUEST).await;
                let named = format!("the output would be {}x{} pixels, more than the {LIMIT}", size.width, size.height);
                assert!(message.contains(&named), "?{query}: {message}");
                refused += 1;
            }
            Ok(size) => {
                assert_eq!(response.status(), StatusCode::OK, "?{query}");
                let avif = response.headers()["content-type"] == "image/avif";
                let body = response.bytes().await.unwrap();
                if !avif {
                    assert_eq!(dimensions(&body), (size.width, size.height), "?{query}");
                }
                rendered += 1;
            }
            Err(_) => {
                assert_error(response, StatusCode::BAD_REQUEST).await;
            }
        }
    }
    assert!(
        refused >= 5 && rendered >= 40,
        "the sweep crossed the limit both ways: {refused} refused, {rendered} rendered"
    );
    // Only the thumbnail and the rendered variants were stored, nothing for a refusal.
    assert!(app.stored_objects(&file_id(&file)).len() <= rendered + 2);
}

#[tokio::test]
async fn animated_sources_beyond_the_frame_limit_are_refused() {
    let app = TestApp::spawn_with(|config| config.limits.max_source_frames = 5).await;
    let within: Value = app.upload("five.gif", "image/gif", &animated_gif(5)).await;
    let beyond: Value = app.upload("six.gif", "image/gif", &animated_gif(6)).await;
    let (status, content_type, body) =
        app.fetch(&format!("{}?w=1&format=png", within["secureUrl"].as_str().unwrap())).await;
    assert_eq!((status, content_type.as_str(), dimensions(&body)), (StatusCode::OK, "image/png", (1, 1)));

    for query in ["w=1", "format=webp", "gray=true"] {
        let url = format!("{}?{query}", beyond["secureUrl"].as_str().unwrap());
        let response = app.client.get(&url).send().await.unwrap();
        let message = assert_error(response, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("more than 5 frames"), "{query}: {message}");
    }
    // The original itself is still served as uploaded.
    let (status, _, body) = app.fetch(beyond["secureUrl"].as_str().unwrap()).await;
    assert_eq!((status, body), (StatusCode::OK, animated_gif(6)));
}

#[tokio::test]
async fn limits_of_zero_or_nonsense_stop_the_start_naming_the_setting() {
    for (name, value) in [
        ("SHUTTERBOX_MAX_OUTPUT_PIXELS", "0"),
        ("SHUTTERBOX_MAX_SOURCE_FRAMES", "0"),
        ("SHUTTERBOX_MAX_SOURCE_FRAMES", "-1"),
        ("SHUTTERBOX_MAX_OUTPUT_PIXELS", "lots"),
    ] {
        // clap names the setting by its flag: `--max-output-pixels` for SHUTTERBOX_MAX_OUTPUT_PIXELS.
        let flag = format!("--{}", name.trim_start_matches("SHUTTERBOX_").to_lowercase().replace('_', "-"));
        for command in ["serve", "worker"] {
            let (started, _, stderr) = shutterbox(&[command], &[(name, value)]).await;
            assert!(!started, "{command} with {name}={value} started");
            assert!(stderr.contains(&flag) && !stderr.contains("panicked"), "{command} {name}={value}: {stderr}");
        }
    }
}
