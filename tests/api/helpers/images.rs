//! Images the tests upload, and reading an encoded image's size.

pub const PNG: &[u8] = include_bytes!("../../fixtures/gradient.png");

/// Asserts the API's error body: `{message, status, headers}` with `status` equal to the HTTP status.
/// Returns the message.
/// The pixel size of an encoded image.
pub fn dimensions(bytes: &[u8]) -> (u32, u32) {
    let image = image::load_from_memory(bytes).expect("a decodable image");
    (image.width(), image.height())
}

/// A `side`×`side` noise JPEG (q 90): slow to encode as AVIF, so a render of it is still running while a
/// test kills or stops the process doing it.
pub fn noise_jpeg(side: u32) -> Vec<u8> {
    let mut state = 0x2545_f491_u32;
    let image = image::RgbImage::from_fn(side, side, |_, _| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let [r, g, b, _] = state.to_le_bytes();
        image::Rgb([r, g, b])
    });
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 90).encode_image(&image).expect("encode");
    bytes
}

/// A 400×300 PNG: grey noise, and a red disc near the bottom right (where `gravity=attention` and
/// `entropy` put a crop).
pub fn subject_png() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(400, 300, |x, y| {
        if (f64::from(x) - 330.0).hypot(f64::from(y) - 220.0) < 40.0 {
            image::Rgba([220, 40, 30, 255])
        } else {
            let noise = ((x * 7 + y * 13) % 11) as u8;
            image::Rgba([120 + noise, 120 + noise, 120 + noise, 255])
        }
    });
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).unwrap();
    out
}
