//! Writes the seed corpus of the fuzz targets into `corpus/<target>/` (run from `fuzz/`):
//!
//! ```text
//! cargo run --release --example seeds
//! ```
//!
//! - `decode`: tiny images of every input format and of the variants the decoders branch on (JPEG
//!   baseline/progressive/arithmetic/lossless, 4:2:0/4:2:2/4:4:4/gray/CMYK, EXIF orientation; 16-bit and
//!   palette PNG; lossy, alpha and lossless WebP; animated GIF; gray, CMYK, 1-bit, float, BigTIFF and
//!   subsampled YCbCr, CCITT Group 3 fax and LogLuv (24- and 32-bit) TIFF; BMP; RGB, RGBA and gray AVIF; HEIC with and without alpha; lossy and lossless
//!   JPEG XL), plus truncated and damaged copies. Each file starts with the byte that picks the target's case. HEIC and JPEG XL have
//!   no encoder in the build: their seeds come from libheif's `heif-enc` and libjxl's `cjxl` (Debian's
//!   `libheif-examples` and `libjxl-tools`) run on a PNG written here, and are left out, saying so, when
//!   those tools are missing.
//! - `params`: queries covering every parameter, its edges and its spellings.
//! - `stored_path`: hostile names and folders (traversal, separators, NUL, bidi overrides, long names,
//!   reserved device names, look-alikes), fields separated by 0xFF.
//! - `render`: one structured input per upload kind (`samples::SampleKind`).
//!
//! Deterministic (no randomness, encoders pinned by Cargo.lock), so rerunning it rewrites the same bytes
//! and `git status` shows only what changed on purpose. libFuzzer's own finds are kept apart from these
//! only by name: seeds are `seed-*`, and `cargo fuzz cmin` may drop any file.

use std::{fs, io::Cursor, path::Path};

use image::{
    Delay, DynamicImage, Frame, GrayImage, ImageBuffer, ImageFormat, Luma, Rgb, RgbImage, Rgba, RgbaImage,
    codecs::{
        gif::GifEncoder,
        png::{CompressionType, FilterType, PngEncoder},
        webp::WebPEncoder,
    },
};
use shutterbox_pipeline::{OutputFormat, encode::encode};
use tiff::encoder::colortype;
use turbojpeg::{Colorspace, Compressor, PixelFormat, Subsamp};

fn picture(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let edge = if (x / 7 + y / 5) % 2 == 0 { 40 } else { 200 };
        Rgb([(x * 255 / w.max(1)) as u8, (y * 255 / h.max(1)) as u8, edge])
    })
}

fn translucent(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| Rgba([(x * 9) as u8, (y * 11) as u8, 128, (x * 255 / w.max(1)) as u8]))
}

fn gray(w: u32, h: u32) -> GrayImage {
    GrayImage::from_fn(w, h, |x, y| Luma([((x + y) * 6) as u8]))
}

fn write_with(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Vec::new();
    image.write_to(&mut Cursor::new(&mut out), format).expect("encodes");
    out
}

/// libjpeg-turbo directly, for the JPEG variants the pipeline's own encoder never writes.
fn turbo(image: &RgbImage, setup: impl FnOnce(&mut Compressor)) -> Vec<u8> {
    let mut compressor = Compressor::new().expect("compressor");
    compressor.set_quality(60).expect("quality");
    setup(&mut compressor);
    let (w, h) = (image.width() as usize, image.height() as usize);
    let pixels = turbojpeg::Image {
        pixels: image.as_raw().as_slice(),
        width: w,
        pitch: w * 3,
        height: h,
        format: PixelFormat::RGB,
    };
    compressor.compress_to_vec(pixels).expect("encodes")
}

fn cmyk_jpeg(w: u32, h: u32) -> Vec<u8> {
    let pixels: Vec<u8> = picture(w, h).pixels().flat_map(|p| [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], 0]).collect();
    let mut compressor = Compressor::new().expect("compressor");
    compressor.set_quality(60).expect("quality");
    compressor.set_colorspace(Colorspace::YCCK).expect("colorspace");
    let (w, h) = (w as usize, h as usize);
    let image =
        turbojpeg::Image { pixels: pixels.as_slice(), width: w, pitch: w * 4, height: h, format: PixelFormat::CMYK };
    compressor.compress_to_vec(image).expect("encodes")
}

/// `jpeg` with an EXIF APP1 segment carrying `orientation`, right after SOI.
fn with_orientation(jpeg: &[u8], orientation: u16) -> Vec<u8> {
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&1u16.to_be_bytes());
    tiff.extend_from_slice(&0x0112u16.to_be_bytes());
    tiff.extend_from_slice(&3u16.to_be_bytes());
    tiff.extend_from_slice(&1u32.to_be_bytes());
    tiff.extend_from_slice(&orientation.to_be_bytes());
    tiff.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&app1);
    out.extend_from_slice(&jpeg[2..]);
    out
}

fn png16(w: u32, h: u32) -> Vec<u8> {
    let image: ImageBuffer<Rgb<u16>, Vec<u16>> =
        ImageBuffer::from_fn(w, h, |x, y| Rgb([(x * 2000) as u16, (y * 3000) as u16, 40_000]));
    write_with(&DynamicImage::ImageRgb16(image), ImageFormat::Png)
}

fn png_fast(image: &DynamicImage) -> Vec<u8> {
    let mut out = Vec::new();
    image
        .write_with_encoder(PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Sub))
        .expect("png");
    out
}

fn webp_lossless(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    DynamicImage::ImageRgba8(translucent(w, h)).write_with_encoder(WebPEncoder::new_lossless(&mut out)).expect("webp");
    out
}

fn animated_gif(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = GifEncoder::new(&mut out);
        let frames = (0..2).map(|i| {
            let image = RgbaImage::from_fn(w, h, |x, _| Rgba([if x % 2 == i { 255 } else { 0 }, 0, 0, 255]));
            Frame::from_parts(image, 0, 0, Delay::from_numer_denom_ms(100, 1))
        });
        encoder.encode_frames(frames).expect("gif");
    }
    out
}

fn pipeline(image: &DynamicImage, format: OutputFormat) -> Vec<u8> {
    encode(image, format, 50).expect("the pipeline encodes its own formats")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::write(dir.join(name), bytes).expect("write a seed");
}

/// Seeds of `decode`: `selector` picks the case (see fuzz_targets/decode.rs), then the file.
fn decode_seeds(dir: &Path) {
    let rgb = DynamicImage::ImageRgb8(picture(40, 30));
    let rgba = DynamicImage::ImageRgba8(translucent(40, 30));
    let luma = DynamicImage::ImageLuma8(gray(24, 16));
    let small = picture(40, 30);
    let jpeg_420 = pipeline(&rgb, OutputFormat::Jpeg);
    // Wide enough for the planar path's 1/8 and 1/4 shrink-on-load (split_jpeg), yet a few kilobytes.
    let jpeg_wide = turbo(&picture(640, 48), |c| {
        c.set_quality(30).expect("quality");
        c.set_subsamp(Subsamp::Sub2x2).expect("subsamp");
        c.set_optimize(true).expect("optimize");
    });
    let png = pipeline(&rgba, OutputFormat::Png);
    let webp = pipeline(&rgb, OutputFormat::Webp);
    let avif = pipeline(&DynamicImage::ImageRgb8(picture(16, 12)), OutputFormat::Avif);
    let tiff = pipeline(&rgba, OutputFormat::Tiff);
    let gif = pipeline(&rgb, OutputFormat::Gif);
    let bmp = write_with(&rgb, ImageFormat::Bmp);

    let seeds: Vec<(&str, u8, Vec<u8>)> = vec![
        ("jpeg-420", 4, jpeg_420.clone()),
        ("jpeg-420-wide-planar-8", 0, jpeg_wide.clone()),
        ("jpeg-420-wide-planar-4", 1, jpeg_wide.clone()),
        ("jpeg-444", 2, turbo(&small, |c| c.set_subsamp(Subsamp::None).expect("subsamp"))),
        ("jpeg-422", 3, turbo(&small, |c| c.set_subsamp(Subsamp::Sub2x1).expect("subsamp"))),
        ("jpeg-gray", 6, pipeline(&luma, OutputFormat::Jpeg)),
        ("jpeg-progressive", 0, turbo(&small, |c| c.set_progressive(true).expect("progressive"))),
        ("jpeg-arithmetic", 0, turbo(&small, |c| c.set_arithmetic(true).expect("arithmetic"))),
        ("jpeg-lossless", 2, turbo(&picture(16, 12), |c| c.set_lossless(true).expect("lossless"))),
        ("jpeg-cmyk", 4, cmyk_jpeg(24, 16)),
        ("jpeg-exif-rotate90", 5, with_orientation(&jpeg_420, 6)),
        ("jpeg-exif-mirror", 7, with_orientation(&jpeg_420, 2)),
        ("png-rgba", 2, png.clone()),
        ("png-rgb16", 3, png16(12, 8)),
        ("png-gray", 5, png_fast(&luma)),
        ("png-tall-1x300", 3, png_fast(&DynamicImage::ImageRgb8(picture(1, 300)))),
        ("webp-lossy", 6, webp.clone()),
        ("webp-alpha", 3, pipeline(&rgba, OutputFormat::Webp)),
        ("webp-lossless", 7, webp_lossless(20, 14)),
        ("gif", 6, gif.clone()),
        ("gif-animated", 7, animated_gif(12, 8)),
        ("tiff-rgba", 7, tiff.clone()),
        ("tiff-gray", 2, write_with(&luma, ImageFormat::Tiff)),
        ("bmp", 7, bmp.clone()),
        ("bmp-rgba", 4, write_with(&rgba, ImageFormat::Bmp)),
        ("avif-rgb", 2, avif.clone()),
        ("avif-rgba", 3, pipeline(&DynamicImage::ImageRgba8(translucent(12, 10)), OutputFormat::Avif)),
        ("avif-gray", 7, pipeline(&DynamicImage::ImageLuma8(gray(10, 8)), OutputFormat::Avif)),
        // Damaged: cut short, and a header that promises far more pixels than the budget.
        ("jpeg-truncated", 0, jpeg_wide[..jpeg_wide.len() / 2].to_vec()),
        ("png-truncated", 2, png[..png.len() / 2].to_vec()),
        ("webp-truncated", 3, webp[..webp.len() / 2].to_vec()),
        ("avif-truncated", 2, avif[..avif.len() * 2 / 3].to_vec()),
        ("tiff-truncated", 7, tiff[..tiff.len() / 2].to_vec()),
        ("gif-truncated", 6, gif[..gif.len() / 2].to_vec()),
        ("bmp-truncated", 4, bmp[..bmp.len() / 2].to_vec()),
        ("png-bomb-header", 2, {
            let mut bomb = png.clone();
            bomb[16..24].copy_from_slice(&[0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0]);
            bomb
        }),
        ("jpeg-flipped-bits", 0, {
            let mut bad = jpeg_wide.clone();
            let middle = bad.len() / 2;
            bad[middle..middle + 16].iter_mut().for_each(|b| *b ^= 0x5A);
            bad
        }),
        ("not-an-image", 0, b"GIF87a is a lie".to_vec()),
        ("tiff-bigtiff", 3, tiff_bigtiff(20, 14)),
        ("tiff-cmyk", 5, tiff_cmyk(20, 14)),
        ("tiff-gray-float", 1, tiff_gray_float(20, 14)),
        ("tiff-ycbcr-subsampled", 4, tiff_ycbcr_subsampled(20, 14)),
        ("tiff-fax3", 2, shutterbox_pipeline::samples::group3_fax_tiff()),
        ("tiff-logluv32", 6, shutterbox_pipeline::samples::logluv32_tiff()),
        ("tiff-logluv24", 6, shutterbox_pipeline::samples::logluv24_tiff()),
    ];
    let mut seeds = seeds;
    seeds.extend(external_seeds(&png_fast(&rgb), &png_fast(&rgba)));
    for (name, selector, bytes) in seeds {
        let mut data = vec![selector];
        data.extend_from_slice(&bytes);
        write(dir, &format!("seed-{name}"), &data);
    }
}

/// `w`×`h` TIFFs of the test picture the pipeline's encoder never writes: RGB as BigTIFF, CMYK, and grey
/// in 32-bit floats.
fn tiff_bigtiff(w: u32, h: u32) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let mut encoder = tiff::encoder::TiffEncoder::new_big(&mut out).expect("tiff");
    encoder.write_image::<colortype::RGB8>(w, h, picture(w, h).as_raw()).expect("tiff page");
    out.into_inner()
}

fn tiff_cmyk(w: u32, h: u32) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let mut encoder = tiff::encoder::TiffEncoder::new(&mut out).expect("tiff");
    encoder.write_image::<colortype::CMYK8>(w, h, &cmyk_of(picture(w, h).as_raw())).expect("tiff page");
    out.into_inner()
}

fn tiff_gray_float(w: u32, h: u32) -> Vec<u8> {
    let floats: Vec<f32> = picture(w, h).as_raw().chunks(3).map(|px| f32::from(px[0]) / 255.0).collect();
    let mut out = Cursor::new(Vec::new());
    let mut encoder = tiff::encoder::TiffEncoder::new(&mut out).expect("tiff");
    encoder.write_image::<colortype::Gray32Float>(w, h, &floats).expect("tiff page");
    out.into_inner()
}

/// A `w`×`h` (even sides) YCbCr TIFF with 2×2-subsampled chroma (Rec. 601, full range), uncompressed in
/// one strip, as cameras write it: the layout the tiff crate refuses and the pipeline reads itself
/// (`samples::ycbcr_subsampled_tiff` writes the file around the data units made here).
fn tiff_ycbcr_subsampled(w: u32, h: u32) -> Vec<u8> {
    let rgb = picture(w, h);
    let mut units = Vec::new();
    for top in (0..h).step_by(2) {
        for left in (0..w).step_by(2) {
            let (mut cb, mut cr) = (0.0, 0.0);
            for (x, y) in [(left, top), (left + 1, top), (left, top + 1), (left + 1, top + 1)] {
                let [r, g, b] = rgb.get_pixel(x, y).0.map(f32::from);
                let luma = 0.299 * r + 0.587 * g + 0.114 * b;
                units.push(luma.round() as u8);
                cb += 128.0 + (b - luma) / 1.772;
                cr += 128.0 + (r - luma) / 1.402;
            }
            units.extend([(cb / 4.0).round() as u8, (cr / 4.0).round() as u8]);
        }
    }
    shutterbox_pipeline::samples::ycbcr_subsampled_tiff(w, h, &units)
}

fn cmyk_of(rgb: &[u8]) -> Vec<u8> {
    rgb.chunks(3).flat_map(|px| [255 - px[0], 255 - px[1], 255 - px[2], 0]).collect()
}

/// HEIC and JPEG XL seeds from libheif's and libjxl's command-line encoders, when they are installed.
fn external_seeds(rgb_png: &[u8], rgba_png: &[u8]) -> Vec<(&'static str, u8, Vec<u8>)> {
    let work = std::env::temp_dir().join(format!("shutterbox-seeds-{}", std::process::id()));
    fs::create_dir_all(&work).expect("temporary directory");
    let (rgb, rgba) = (work.join("rgb.png"), work.join("rgba.png"));
    fs::write(&rgb, rgb_png).expect("png");
    fs::write(&rgba, rgba_png).expect("png");
    let run = |tool: &str, args: &[&std::ffi::OsStr], out: &Path| -> Option<Vec<u8>> {
        let status = std::process::Command::new(tool).args(args).status();
        match status {
            Ok(status) if status.success() => fs::read(out).ok(),
            _ => {
                println!("{tool} is missing or failed: its seed is left out");
                None
            }
        }
    };
    let mut seeds = Vec::new();
    for (name, selector, input, tool, extra) in [
        ("heic", 2u8, &rgb, "heif-enc", &["-q", "40"][..]),
        ("heic-alpha", 5, &rgba, "heif-enc", &["-q", "40"][..]),
        ("jxl-lossy", 3, &rgb, "cjxl", &["-d", "2", "--quiet"][..]),
        ("jxl-lossless", 6, &rgba, "cjxl", &["-d", "0", "--quiet"][..]),
    ] {
        let out = work.join(name);
        let mut args: Vec<&std::ffi::OsStr> = extra.iter().map(std::ffi::OsStr::new).collect();
        if tool == "heif-enc" {
            args.extend([input.as_os_str(), std::ffi::OsStr::new("-o"), out.as_os_str()]);
        } else {
            args.splice(0..0, [input.as_os_str(), out.as_os_str()]);
        }
        if let Some(bytes) = run(tool, &args, &out) {
            seeds.push((name, selector, bytes.clone()));
            let cut: &'static str = if tool == "cjxl" { "jxl-truncated" } else { "heic-truncated" };
            if !seeds.iter().any(|(n, _, _)| *n == cut) {
                seeds.push((cut, selector, bytes[..bytes.len() * 2 / 3].to_vec()));
            }
        }
    }
    fs::remove_dir_all(&work).ok();
    seeds
}

fn params_seeds(dir: &Path) {
    let queries = [
        "",
        "w=300",
        "h=200",
        "w=1&h=5000",
        "w=5000&h=1&fit=fill",
        "w=0",
        "w=5001",
        "w=auto",
        "h=AUTO",
        "w=%2B12",
        "w=+12&h=012",
        "w=1.5",
        "w=1e3",
        "fit=cover&w=10&h=10",
        "fit=contain",
        "fit=fill",
        "fit=inside",
        "fit=outside",
        "fit=stretch",
        "q=1",
        "q=100",
        "q=auto",
        "q=Auto",
        "q=0",
        "q=101",
        "blur=0.3",
        "blur=1000",
        "blur=0.2999",
        "blur=999.9996",
        "blur=2.0001",
        "blur=1e2",
        "blur=nan",
        "blur=inf",
        "blur=-0",
        "sharp=true",
        "sharp=1",
        "sharp=false",
        "sharp=0",
        "gray=true",
        "gray=yes",
        "rot=90",
        "rot=-90",
        "rot=360",
        "rot=-360",
        "rot=45",
        "rot=361",
        "border=10_ff0000",
        "border=1_fff",
        "border=1000_%2300ff0080",
        "border=5_#ABC",
        "border=0_fff",
        "border=5_ggg",
        "border=5__fff",
        "crop=0,0,1,1",
        "crop=10, 20, 300, 400",
        "crop=4294967295,4294967295,4294967295,4294967295",
        "crop=1,2,3",
        "crop=-1,0,1,1",
        "format=jpeg",
        "format=jpg",
        "format=JPG",
        "format=png",
        "format=webp",
        "format=avif",
        "format=gif",
        "format=tiff",
        "format=tif",
        "format=bmp",
        "format=auto",
        "format=heic",
        "w=1&w=2",
        "utm_source=x&v=3&",
        "w+=3&%77=4",
        "w=%20300%20",
        "format=%FF&w=%C3%A9",
        "w=300&h=200&fit=contain&q=75&blur=2.5&sharp=true&gray=true&rot=270&border=4_00ff00cc&crop=0,0,800,600&format=webp",
        "crop=0,0,100,100&border=3_000&gray=1&sharp=0&blur=0.5&rot=-45&q=auto&fit=outside&h=50&w=50&format=auto",
    ];
    for (i, query) in queries.iter().enumerate() {
        write(dir, &format!("seed-{i:02}"), query.as_bytes());
    }
}

fn stored_path_seeds(dir: &Path) {
    let long = "x".repeat(1000);
    let max = "y".repeat(255);
    let over = "z".repeat(256);
    let deep = vec!["d"; 33].join("/");
    let deepest = vec!["d"; 32].join("/");
    let fields: Vec<Vec<&str>> = vec![
        vec!["cat.jpg"],
        vec!["cat.jpg", "holiday", "photos/2026", "acme"],
        vec!["cat.jpg", "holiday.png", "/photos/2026/", "team-42_a"],
        vec!["README", "notes", "", "default"],
        vec![".."],
        vec!["."],
        vec!["cat.jpg", "..", ".."],
        vec!["cat.jpg", "../x", "a/../b"],
        vec!["%2e%2e", "%2E%2E%2F", "%2e%2e/%2e%2e"],
        vec!["a\\b.jpg", "..\\..\\win.ini", "a\\b"],
        vec!["a\0b.jpg", "\0", "a/\0/b"],
        vec!["a\nb.jpg", "\r\n", "tab\there"],
        vec!["x\u{202E}gpj.exe", "\u{2066}a\u{2069}", "\u{200F}"],
        vec!["x\u{061C}gpj.exe", "\u{200E}", "\u{202A}"],
        vec![&long, &long, &long],
        vec![&max, "", "a"],
        vec!["a.jpg", &max],
        vec![&over],
        vec!["CON", "NUL.txt", "COM1/LPT1/aux"],
        vec!["prn.jpg", "con", "AUX"],
        vec!["\u{FF0E}\u{FF0E}", "\u{2024}\u{2024}", "\u{FF0F}etc\u{FF0F}passwd"],
        vec!["caf\u{E9}.jpg", "cafe\u{301}.jpg", "\u{0430}pple"],
        vec!["\u{FEFF}bom.jpg", "\u{200B}", "\u{2028}"],
        vec![".bashrc", ".env", ".git/config"],
        vec!["cat.", "dog", "a//b"],
        vec!["a.tar.gz", "b", "//"],
        vec!["cat.jpg", "", &deep],
        vec!["cat.jpg", "", &deepest],
        vec!["\u{7F}del", "\u{85}nel", "\u{9F}"],
        vec!["x.jpg", "y", "z", "Acme"],
        vec!["x.jpg", "y", "z", "-acme"],
        vec!["x.jpg", "y", "z", "\u{E9}"],
    ];
    for (i, fields) in fields.iter().enumerate() {
        let bytes: Vec<u8> = fields.iter().map(|f| f.as_bytes()).collect::<Vec<_>>().join(&0xFF);
        write(dir, &format!("seed-{i:02}"), &bytes);
    }
    // Invalid UTF-8 inside a field, and the separator byte itself.
    write(dir, "seed-invalid-utf8", b"a\xC3.jpg\xFFb\xED\xA0\x80\xFFc\xC0\xAF");
}

/// Seeds of `render`: one per upload kind (the first byte picks it, see fuzz_targets/render.rs), 40×30 px,
/// followed by choices for the request drawn from a fixed sequence, so every kind starts with a request
/// that uses several parameters.
fn render_seeds(dir: &Path) {
    let mut state = 0x2545_f491_u32;
    for (i, kind) in shutterbox_pipeline::samples::SampleKind::ALL.iter().enumerate() {
        let mut bytes = vec![i as u8, 39, 29, 0, 0, 0, i as u8];
        bytes.extend((0..64).map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        }));
        // The render target skips HEIC sources (fuzz_targets/render.rs): no seed for them.
        use shutterbox_pipeline::samples::SampleKind::{Heic, HeicAlpha};
        if !matches!(kind, Heic | HeicAlpha) {
            write(dir, &format!("seed-{kind:?}"), &bytes);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (target, seeds) in [
        ("decode", decode_seeds as fn(&Path)),
        ("params", params_seeds as fn(&Path)),
        ("stored_path", stored_path_seeds as fn(&Path)),
        ("render", render_seeds as fn(&Path)),
    ] {
        let dir = root.join(target);
        fs::create_dir_all(&dir).expect("corpus directory");
        seeds(&dir);
    }
    println!("seed corpus written under {}", root.display());
}
