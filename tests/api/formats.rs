//! The formats people upload beyond the common ones, over HTTP (issue 40): a HEIC from libheif's samples
//! (with and without alpha), JPEG XL from its conformance set, an AVIF grid, a BigTIFF and a TIFF the
//! `infer` crate took for something else, all files of the test corpora (`SHUTTERBOX_CORPORA`, by
//! default the repository's `tests/corpora`; missing fails the test). Each is typed
//! `image` with its media type at upload, served as stored without parameters, and rendered at the size
//! libvips (or, for HEIC and JPEG XL, libheif and libjxl) reads, into the format a phone's photo becomes
//! when none is named.

use std::path::PathBuf;

use image::GenericImageView;
use reqwest::StatusCode;

use crate::helpers::TestApp;

fn corpus_file(path: &str) -> Vec<u8> {
    let root = std::env::var_os("SHUTTERBOX_CORPORA")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpora"), PathBuf::from);
    assert!(root.is_dir(), "the corpora are not at {} (set SHUTTERBOX_CORPORA)", root.display());
    std::fs::read(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[tokio::test]
async fn phone_and_camera_formats_are_typed_and_rendered() {
    let app = TestApp::spawn().await;
    // (corpus file, declared type, rawType, size as read upright, what `?w=64` is delivered as)
    let cases = [
        ("libheif/rainbow-451x461.heic", "image/heic", "image/heic", (451, 461), "image/jpeg"),
        ("libheif/with-alpha-512x512.heic", "image/heif", "image/heic", (512, 512), "image/jpeg"),
        ("jxl-conformance/sunset_logo.jxl", "image/jxl", "image/jxl", (924, 1386), "image/jpeg"),
        ("av1-avif/Summer_in_Tomsk_720p_5x4_grid.avif", "image/avif", "image/avif", (6400, 2880), "image/avif"),
        ("image-tiff/bigtiff_BigTIFF.tif", "image/tiff", "image/tiff", (64, 64), "image/tiff"),
        // `R` at byte 9, which the `infer` crate's TIFF check refuses.
        (
            "libtiff-pics/depth_flower-rgb-planar-08.tif",
            "application/octet-stream",
            "image/tiff",
            (73, 43),
            "image/tiff",
        ),
    ];
    for (path, declared, raw_type, (width, height), delivered) in cases {
        let bytes = corpus_file(path);
        let name = path.rsplit('/').next().unwrap();
        let file = app.upload(name, declared, &bytes).await;
        assert_eq!((file["type"].as_str(), file["rawType"].as_str()), (Some("image"), Some(raw_type)), "{path}");
        let url = file["secureUrl"].as_str().unwrap();
        let (status, content_type, original) = app.fetch(url).await;
        assert_eq!((status, content_type.as_str()), (StatusCode::OK, raw_type), "{path}: the original");
        assert_eq!(original, bytes, "{path}: the original's bytes");

        let (status, content_type, body) = app.fetch(&format!("{url}?w=64")).await;
        assert_eq!((status, content_type.as_str()), (StatusCode::OK, delivered), "{path}: w=64");
        let (image, _) = shutterbox_pipeline::decode::decode(&body, u64::MAX).unwrap();
        let expected_height = (f64::from(height) * 64.0 / f64::from(width)).round() as u32;
        assert_eq!(image.dimensions(), (64, expected_height), "{path}: w=64");

        // Any output named; a transparent source keeps its alpha in PNG.
        let (status, content_type, body) = app.fetch(&format!("{url}?w=40&h=40&fit=cover&format=png")).await;
        assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/png"), "{path}: png");
        let image = image::load_from_memory(&body).unwrap();
        assert_eq!(image.dimensions(), (40, 40), "{path}: png");
        if path.contains("with-alpha") {
            assert!(image.color().has_alpha(), "{path}: alpha kept");
            assert!(image.to_rgba8().pixels().any(|p| p.0[3] < 255), "{path}: some pixel transparent");
        }
    }
}

#[tokio::test]
async fn formats_only_read_are_not_output_formats() {
    let app = TestApp::spawn().await;
    let file = app.upload("rainbow.heic", "image/heic", &corpus_file("libheif/rainbow-451x461.heic")).await;
    let url = file["secureUrl"].as_str().unwrap();
    for format in ["heic", "heif", "jxl"] {
        let (status, _, body) = app.fetch(&format!("{url}?format={format}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "format={format}");
        let message = String::from_utf8_lossy(&body).into_owned();
        assert!(message.contains("format"), "format={format}: {message}");
    }
}

/// An iPhone photo's colours are Display P3 (its JPEG and HEIC carry the profile): delivered as sRGB, the
/// colours that look the same, whatever path the render takes (the planar JPEG → JPEG resize included).
#[tokio::test]
async fn a_display_p3_photo_is_delivered_in_srgb() {
    let app = TestApp::spawn().await;
    let flat = image::RgbImage::from_pixel(64, 48, image::Rgb([128, 51, 51]));
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 100).encode_image(&flat).unwrap();
    let p3 = shutterbox_pipeline::samples::display_p3_profile().unwrap();
    let tagged = shutterbox_pipeline::samples::with_icc_profile(&jpeg, &p3).unwrap();
    // (128, 51, 51) in Display P3 is (138.7, 44.2, 48.0) in sRGB (both spaces' published matrices, D65).
    for (bytes, expected, what) in [(&tagged, [139, 44, 48], "P3"), (&jpeg, [128, 51, 51], "untagged")] {
        let file = app.upload("photo.jpg", "image/jpeg", bytes).await;
        let url = file["secureUrl"].as_str().unwrap();
        // (Without parameters the original is served as stored, profile and all, for the browser to use.)
        for query in ["w=32&format=png", "w=32&format=jpeg&q=95", "w=32&format=webp&q=95", "rot=180"] {
            let (status, _, body) = app.fetch(&format!("{url}?{query}")).await;
            assert_eq!(status, StatusCode::OK, "{what} {query}");
            let image = image::load_from_memory(&body).unwrap().to_rgb8();
            let centre = image.get_pixel(image.width() / 2, image.height() / 2).0;
            let off = centre.iter().zip(expected).map(|(a, b)| a.abs_diff(b)).max().unwrap();
            assert!(off <= 4, "{what} ?{query}: {centre:?}, expected {expected:?}");
        }
    }
}

/// HEIC and JPEG XL are decoded only whole, so their renders read a working copy (docs/formats.md,
/// "Working copies"): a full-size `q=95` JPEG that confirm's thumbnail job makes and keeps as one of the
/// file's variants. A delivery after it is exactly the render of that copy, at the size the original
/// gives; a transparent HEIC keeps rendering from its original (a JPEG has no alpha); deleting the file
/// removes the copy with the rest.
#[tokio::test]
async fn heic_and_jpeg_xl_are_rendered_from_a_working_copy() {
    use shutterbox_pipeline::{RenderOptions, Target, Transform, render};
    use shutterbox_variants::VariantSpec;

    use crate::helpers::{eventually, file_id};

    let app = TestApp::spawn().await;
    let copy = VariantSpec::working_copy();
    // (corpus file, declared type, whether it gets a working copy)
    let cases = [
        ("libheif/example.heic", "image/heic", true),
        ("jxl-conformance/grayscale.jxl", "image/jxl", true),
        ("libheif/with-alpha-512x512.heic", "image/heif", false),
    ];
    for (path, mime, copied) in cases {
        let original = corpus_file(path);
        let file = app.upload(path.rsplit('/').next().unwrap(), mime, &original).await;
        let object = app.objects_dir.join(copy.key(&file_id(&file)).object_key().as_str());
        let url = file["secureUrl"].as_str().unwrap();
        let thumbnail = file["secureThumbnailUrl"].as_str().unwrap();
        if copied {
            eventually(30, &format!("{path}: the working copy is kept"), || {
                let object = object.clone();
                async move { object.exists() }
            })
            .await;
        } else {
            // The thumbnail job has run once the thumbnail is stored; no copy was made beside it.
            let (status, _, _) = app.fetch(thumbnail).await;
            assert_eq!(status, StatusCode::OK, "{path}: thumbnail");
            assert!(!object.exists(), "{path}: a JPEG copy would lose the alpha");
        }
        let source = if copied { std::fs::read(&object).unwrap() } else { original.clone() };
        for (query, target) in [
            ("w=200", Target::Source),
            ("w=64&h=64&fit=cover&format=png", Target::parse("png").unwrap()),
            ("crop=10,20,150,100&rot=90&format=webp&q=80", Target::parse("webp").unwrap()),
        ] {
            let (status, _, body) = app.fetch(&format!("{url}?{query}")).await;
            assert_eq!(status, StatusCode::OK, "{path}?{query}: {}", String::from_utf8_lossy(&body));
            let transform = Transform::from_query(query).unwrap();
            let expected = render(&source, &transform, target, RenderOptions::default()).unwrap();
            let from_original = render(&original, &transform, target, RenderOptions::default()).unwrap();
            assert_eq!(
                image::load_from_memory(&body).unwrap().dimensions(),
                (from_original.width, from_original.height)
            );
            assert!(
                body == expected.bytes,
                "{path}?{query}: not the render of {}",
                if copied { "the copy" } else { "the original" }
            );
        }
        if copied {
            let response = app
                .authed(reqwest::Method::DELETE, &format!("/files/{}", file_id(&file)), &app.key)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            eventually(10, &format!("{path}: the working copy goes with the file"), || {
                let object = object.clone();
                async move { !object.exists() }
            })
            .await;
        }
    }
}
