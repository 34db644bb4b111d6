//! Animated uploads stay animated over HTTP: into GIF and WebP (by extension, `format` or `format=auto`),
//! every frame resized, with the source's frame count, delays and loop count; other formats, `anim=false`
//! and the thumbnail are the first frame; the budget on an animated render's work is a 400 naming it.

use std::io::Cursor;

use image::{AnimationDecoder, codecs::gif::GifDecoder, codecs::webp::WebPDecoder};
use reqwest::StatusCode;
use shutterbox_pipeline::samples::moving_gif;

use crate::helpers::{TestApp, assert_error};

/// Frame sizes and delays (milliseconds) of an animated GIF or WebP; one entry for a still image.
fn frames_of(bytes: &[u8]) -> Vec<((u32, u32), u32)> {
    let frames = if bytes.starts_with(b"GIF") {
        GifDecoder::new(Cursor::new(bytes)).unwrap().into_frames()
    } else if bytes.starts_with(b"RIFF") {
        let decoder = WebPDecoder::new(Cursor::new(bytes)).unwrap();
        if !decoder.has_animation() {
            let image = image::load_from_memory(bytes).unwrap();
            return vec![((image.width(), image.height()), 0)];
        }
        decoder.into_frames()
    } else {
        let image = image::load_from_memory(bytes).unwrap();
        return vec![((image.width(), image.height()), 0)];
    };
    frames
        .map(|frame| {
            let frame = frame.unwrap();
            let (n, d) = frame.delay().numer_denom_ms();
            (frame.buffer().dimensions(), n / d.max(1))
        })
        .collect()
}

#[tokio::test]
async fn animations_stay_animated_into_gif_and_webp_and_are_stills_elsewhere() {
    let app = TestApp::spawn().await;
    // 24 frames of 240×160, delays 40, 80 and 120 ms in turn, looping three times.
    let delays_cs = [4, 8, 12];
    let gif = moving_gif(240, 160, 24, &delays_cs, 3);
    let file = app.upload("spin.gif", "image/gif", &gif).await;
    let url = file["secureUrl"].as_str().unwrap();
    let stem = url.strip_suffix(".gif").unwrap();
    let expected = |size: (u32, u32)| -> Vec<((u32, u32), u32)> {
        (0..24).map(|i| (size, u32::from(delays_cs[i % 3]) * 10)).collect()
    };

    for (request, content_type) in [
        (format!("{url}?w=120"), "image/gif"),
        (format!("{url}?w=120&format=webp"), "image/webp"),
        (format!("{url}?w=120&format=auto"), "image/webp"),
        (format!("{stem}.webp?w=120"), "image/webp"),
        (format!("{url}?w=120&h=120&fit=cover&gray=true"), "image/gif"),
    ] {
        let (status, got_type, body) = app.fetch(&request).await;
        assert_eq!((status, got_type.as_str()), (StatusCode::OK, content_type), "{request}");
        let size = if request.contains("h=120") { (120, 120) } else { (120, 80) };
        assert_eq!(frames_of(&body), expected(size), "{request}");
        if content_type == "image/webp" {
            // ANIM's loop count, little-endian after the background colour.
            let anim = body.windows(4).position(|w| w == b"ANIM").unwrap();
            assert_eq!(u16::from_le_bytes([body[anim + 12], body[anim + 13]]), 3, "{request}");
        }
    }
    for (request, content_type) in [
        (format!("{url}?w=120&anim=false"), "image/gif"),
        (format!("{url}?w=120&format=png"), "image/png"),
        (format!("{stem}.jpg?w=120"), "image/jpeg"),
        (format!("{url}?w=120&format=webp&anim=false"), "image/webp"),
    ] {
        let (status, got_type, body) = app.fetch(&request).await;
        assert_eq!((status, got_type.as_str()), (StatusCode::OK, content_type), "{request}");
        assert_eq!(frames_of(&body).len(), 1, "{request} is a still");
    }
    let (status, got_type, body) = app.fetch(file["secureThumbnailUrl"].as_str().unwrap()).await;
    assert_eq!((status, got_type.as_str()), (StatusCode::OK, "image/webp"));
    assert_eq!(frames_of(&body), vec![((240, 160), 0)], "the thumbnail is a still");
    // The original is served as uploaded.
    assert_eq!(app.fetch(url).await.2, gif);
}

#[tokio::test]
async fn an_animation_beyond_the_work_budget_is_a_400_naming_it() {
    let app = TestApp::spawn_with(|config| config.limits.max_animation_pixels = 100_000).await;
    // 10 frames of 100×100: 100,000 pixels in all, within; 11 are not.
    let within = app.upload("ten.gif", "image/gif", &moving_gif(100, 100, 10, &[5], 0)).await;
    let beyond = app.upload("eleven.gif", "image/gif", &moving_gif(100, 100, 11, &[5], 0)).await;
    let (status, _, body) = app.fetch(&format!("{}?w=50", within["secureUrl"].as_str().unwrap())).await;
    assert_eq!((status, frames_of(&body).len()), (StatusCode::OK, 10));
    let url = beyond["secureUrl"].as_str().unwrap();
    let message =
        assert_error(app.client.get(format!("{url}?w=50")).send().await.unwrap(), StatusCode::BAD_REQUEST).await;
    assert!(message.contains("100000 pixels over all frames") && message.contains("anim=false"), "{message}");
    let (status, _, body) = app.fetch(&format!("{url}?w=50&anim=false")).await;
    assert_eq!((status, frames_of(&body).len()), (StatusCode::OK, 1));
}
