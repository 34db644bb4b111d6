//! Writes the image corpus the render benchmarks (`benches/render.rs`) and `scripts/bench-sharp.mjs` read:
//!
//! | file | what |
//! |---|---|
//! | `photo-4000x3000.jpg` | photo-like (sky, textured ground, hard-edged objects, vignette, grain), baseline, q90, 4:2:0 |
//! | `photo-1200x800.jpg` | the same kind of picture, smaller |
//! | `tall-500x5000.jpg` | the same kind of picture, very tall |
//! | `photo-8640x5760.jpg` | the same kind of picture, 49.8 megapixels (just under the default 50 MP budget) |
//! | `alpha-800x600.png` | RGBA graphic with an alpha gradient and an opaque disc |
//! | `animated-320x240.gif` | 8 frames, a ball moving over a gradient, looping |
//! | `clip-480x270-{10,100,1000}.gif` | a clip as GIFs made from video are: a camera panning over a photo (every pixel changes every frame), 10, 100 and 1,000 frames of 40 ms, each frame its own palette, looping; the animation benchmarks' sources |
//!
//! ```text
//! cargo run --release -p shutterbox-pipeline --example make_corpus -- [DIR]    # DIR defaults to target/corpus
//! ```
//!
//! Deterministic: fixed seeds, a hash-based value noise and only IEEE arithmetic (no trigonometry, whose
//! last bit may differ between C libraries), and encoders pinned by Cargo.lock, so every machine writes the
//! same bytes. Use `--release`: the debug build takes about a minute for the 12-megapixel photo.

// A tool run by hand: a failure may stop it (the workspace denies unwrap and expect in the service).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    env, fs,
    io::BufWriter,
    path::{Path, PathBuf},
};

use image::{
    Delay, Frame, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage,
    codecs::gif::{GifEncoder, Repeat},
};

/// SplitMix64: a well-mixed 64-bit hash of a 64-bit input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform value in [0, 1) for an integer lattice point.
fn lattice(seed: u64, x: i64, y: i64) -> f64 {
    let h = mix(
        seed ^ mix((x as u64).wrapping_mul(0x8CB9_2BA7_2F3D_8DD7) ^ (y as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93))
    );
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Smooth value noise in [0, 1] with features about `scale` pixels wide.
fn value_noise(seed: u64, x: f64, y: f64, scale: f64) -> f64 {
    let (fx, fy) = (x / scale, y / scale);
    let (x0, y0) = (fx.floor(), fy.floor());
    let smooth = |t: f64| t * t * (3.0 - 2.0 * t);
    let (tx, ty) = (smooth(fx - x0), smooth(fy - y0));
    let (ix, iy) = (x0 as i64, y0 as i64);
    let top = lattice(seed, ix, iy) * (1.0 - tx) + lattice(seed, ix + 1, iy) * tx;
    let bottom = lattice(seed, ix, iy + 1) * (1.0 - tx) + lattice(seed, ix + 1, iy + 1) * tx;
    top * (1.0 - ty) + bottom * ty
}

/// Fractal (fBm) noise in [0, 1]: `octaves` layers, each half the size of the last and weighing
/// `persistence` times as much.
fn fbm(seed: u64, x: f64, y: f64, scale: f64, octaves: u32, persistence: f64) -> f64 {
    let (mut sum, mut weight, mut total, mut s) = (0.0, 1.0, 0.0, scale);
    for octave in 0..octaves {
        sum += weight * value_noise(seed.wrapping_add(u64::from(octave) * 7919), x, y, s);
        total += weight;
        weight *= persistence;
        s *= 0.5;
    }
    sum / total
}

fn lerp(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// A hard-edged object in the scene (a building, a rock): an axis-aligned box or an ellipse.
struct Shape {
    ellipse: bool,
    cx: f64,
    cy: f64,
    rx: f64,
    ry: f64,
    color: [f64; 3],
}

impl Shape {
    fn contains(&self, x: f64, y: f64) -> bool {
        let (dx, dy) = ((x - self.cx) / self.rx, (y - self.cy) / self.ry);
        if self.ellipse { dx * dx + dy * dy <= 1.0 } else { dx.abs() <= 1.0 && dy.abs() <= 1.0 }
    }
}

/// A landscape-like picture: a sky gradient with clouds over a textured ground with a wavy horizon, a few
/// hard-edged objects, a vignette and sensor grain, so that it compresses roughly like a camera photo.
fn photo(width: u32, height: u32, seed: u64) -> RgbImage {
    let (w, h) = (f64::from(width), f64::from(height));
    let size = w.max(h);
    let mut state = seed;
    let mut next = || {
        state = mix(state);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let shapes: Vec<Shape> = (0..7)
        .map(|i| Shape {
            ellipse: i % 2 == 1,
            cx: w * next(),
            cy: h * (0.45 + 0.5 * next()),
            rx: size * (0.03 + 0.08 * next()),
            ry: size * (0.03 + 0.10 * next()),
            color: [40.0 + 180.0 * next(), 40.0 + 160.0 * next(), 40.0 + 140.0 * next()],
        })
        .collect();
    let sky_top = [38.0, 86.0, 168.0];
    let sky_low = [178.0, 200.0, 222.0];
    let grass = [62.0, 112.0, 42.0];
    let soil = [122.0, 92.0, 54.0];
    RgbImage::from_fn(width, height, |px, py| {
        let (x, y) = (f64::from(px), f64::from(py));
        let horizon = h * (0.42 + 0.12 * (value_noise(seed ^ 1, x, 0.0, size * 0.25) - 0.5));
        let mut rgb = if y < horizon {
            let t = y / horizon;
            let sky = lerp(sky_top, sky_low, t * t);
            let cloud = fbm(seed ^ 2, x, y * 1.8, size * 0.18, 7, 0.5);
            let cover = ((cloud - 0.5) * 3.0).clamp(0.0, 1.0);
            lerp(sky, [236.0, 238.0, 242.0], cover * 0.85)
        } else {
            let mix_t = fbm(seed ^ 3, x, y, size * 0.2, 3, 0.5);
            let base = lerp(grass, soil, ((mix_t - 0.35) * 2.5).clamp(0.0, 1.0));
            // Texture like grass or foliage: fractal detail down to single pixels, stronger close to the
            // camera.
            let depth = ((y - horizon) / (h - horizon).max(1.0)).clamp(0.0, 1.0);
            let detail = fbm(seed ^ 4, x, y, 64.0, 7, 0.85) - 0.5;
            let shade = 1.0 + detail * (0.5 + 0.6 * depth);
            [base[0] * shade, base[1] * shade, base[2] * shade]
        };
        for shape in &shapes {
            if shape.contains(x, y) {
                // Lit from the left, with its own coarse texture.
                let light = 0.75 + 0.5 * ((x - shape.cx + shape.rx) / (2.0 * shape.rx)).clamp(0.0, 1.0);
                let texture = 0.85 + 0.3 * fbm(seed ^ 5, x, y, 32.0, 5, 0.7);
                rgb = shape.color.map(|c| c * light * texture);
            }
        }
        // Vignette: up to 30% darker in the corners.
        let (dx, dy) = ((x - w / 2.0) / (w / 2.0), (y - h / 2.0) / (h / 2.0));
        let vignette = 1.0 - 0.15 * (dx * dx + dy * dy);
        // Grain: luminance noise (triangular, ±9) plus a little chroma noise (±2).
        let pixel = mix(seed ^ 6 ^ (u64::from(py) << 32 | u64::from(px)));
        let unit = |shift: u32| ((pixel >> shift) & 0xff) as f64 / 255.0;
        let luma_grain = (unit(0) + unit(8) - 1.0) * 9.0;
        let mut out = [0u8; 3];
        for (channel, value) in out.iter_mut().enumerate() {
            let chroma_grain = (unit(16 + 8 * channel as u32) - 0.5) * 4.0;
            *value = (rgb[channel] * vignette + luma_grain + chroma_grain).round().clamp(0.0, 255.0) as u8;
        }
        Rgb(out)
    })
}

fn write_jpeg(path: &Path, image: &RgbImage, quality: u8) {
    let (w, h) = (u16::try_from(image.width()).unwrap(), u16::try_from(image.height()).unwrap());
    let mut encoder = jpeg_encoder::Encoder::new_file(path, quality).expect("create the JPEG file");
    // Like most cameras and phones: baseline, 4:2:0, standard Huffman tables.
    encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    encoder.encode(image.as_raw(), w, h, jpeg_encoder::ColorType::Rgb).expect("encode the JPEG");
}

/// A colourful graphic whose alpha fades from opaque on the left to clear on the right, with an opaque disc
/// in the middle and a soft noise in the colours.
fn alpha_graphic(width: u32, height: u32, seed: u64) -> RgbaImage {
    let (w, h) = (f64::from(width), f64::from(height));
    RgbaImage::from_fn(width, height, |px, py| {
        let (x, y) = (f64::from(px), f64::from(py));
        let (dx, dy) = (x - w / 2.0, y - h / 2.0);
        let in_disc = dx * dx + dy * dy <= (h * 0.25) * (h * 0.25);
        let n = fbm(seed, x, y, 120.0, 3, 0.5);
        let r = (255.0 * x / w).round() as u8;
        let g = (255.0 * y / h).round() as u8;
        let b = (255.0 * n).round() as u8;
        let alpha = if in_disc { 255 } else { (255.0 * (1.0 - x / w)).round() as u8 };
        Rgba([r, g, b, alpha])
    })
}

/// An 8-frame looping animation: a ball moving along a diagonal gradient.
fn animation(width: u32, height: u32) -> Vec<Frame> {
    (0..8u32)
        .map(|i| {
            let (bx, by) = (40 + i * (width - 80) / 7, height / 2);
            let image = RgbaImage::from_fn(width, height, |x, y| {
                let (dx, dy) = (i64::from(x) - i64::from(bx), i64::from(y) - i64::from(by));
                if dx * dx + dy * dy <= 30 * 30 {
                    Rgba([230, 60, 40, 255])
                } else {
                    Rgba([(x * 255 / width) as u8, (y * 255 / height) as u8, 160, 255])
                }
            });
            Frame::from_parts(image, 0, 0, Delay::from_numer_denom_ms(100, 1))
        })
        .collect()
}

/// Frame `i` of a clip panning across `strip` (a wide photo) at 3 px a frame, turning back at its ends.
fn clip_frame(strip: &RgbImage, width: u32, i: u32) -> Frame {
    let travel = strip.width() - width;
    let step = (i * 3) % (2 * travel);
    let left = if step < travel { step } else { 2 * travel - step };
    let image = RgbaImage::from_fn(width, strip.height(), |x, y| {
        let Rgb([r, g, b]) = *strip.get_pixel(left + x, y);
        Rgba([r, g, b, 255])
    });
    Frame::from_parts(image, 0, 0, Delay::from_numer_denom_ms(40, 1))
}

fn main() {
    let dir = PathBuf::from(env::args().nth(1).unwrap_or_else(|| "target/corpus".to_owned()));
    fs::create_dir_all(&dir).expect("create the corpus directory");
    let report = |name: &str| {
        let path = dir.join(name);
        let bytes = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!("{:>10} bytes  {}", bytes, path.display());
    };

    for (name, width, height, seed) in [
        ("photo-4000x3000.jpg", 4000, 3000, 0x5eed_0001),
        ("photo-1200x800.jpg", 1200, 800, 0x5eed_0002),
        ("tall-500x5000.jpg", 500, 5000, 0x5eed_0003),
        // 49.8 MP, just inside the default 50 MP source budget: the memory bench (shrink-on-load).
        ("photo-8640x5760.jpg", 8640, 5760, 0x5eed_0005),
    ] {
        write_jpeg(&dir.join(name), &photo(width, height, seed), 90);
        report(name);
    }

    alpha_graphic(800, 600, 0x5eed_0004).save_with_format(dir.join("alpha-800x600.png"), ImageFormat::Png).unwrap();
    report("alpha-800x600.png");

    let file = fs::File::create(dir.join("animated-320x240.gif")).expect("create the GIF file");
    let mut encoder = GifEncoder::new_with_speed(BufWriter::new(file), 10);
    encoder.set_repeat(Repeat::Infinite).unwrap();
    encoder.encode_frames(animation(320, 240)).expect("encode the GIF");
    drop(encoder);
    report("animated-320x240.gif");

    let strip = photo(1480, 270, 0x5eed_0006);
    for frames in [10, 100, 1000] {
        let name = format!("clip-480x270-{frames}.gif");
        let file = fs::File::create(dir.join(&name)).expect("create the GIF file");
        let mut encoder = GifEncoder::new_with_speed(BufWriter::new(file), 10);
        encoder.set_repeat(Repeat::Infinite).unwrap();
        // Made a frame at a time: 1,000 frames of 480×270 would be half a gigabyte at once.
        encoder.encode_frames((0..frames).map(|i| clip_frame(&strip, 480, i))).expect("encode the GIF");
        drop(encoder);
        report(&name);
    }
}
