use image::{AnimationDecoder, codecs::gif::GifDecoder};

use crate::{encode::OutputFormat, params::Transform, render::plan::Target};

/// A 300×100 grey GIF whose red disc is at the right in the first frame and at the left in the second.
fn moving_disc() -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = gif::Encoder::new(&mut out, 300, 100, &[128, 128, 128, 220, 40, 30]).unwrap();
    for centre in [250.0, 50.0] {
        let pixels: Vec<u8> = (0..100u32 * 300)
            .map(|i| u8::from((f64::from(i % 300) - centre).hypot(f64::from(i / 300) - 50.0) < 30.0))
            .collect();
        let frame = gif::Frame { width: 300, height: 100, buffer: pixels.into(), delay: 10, ..gif::Frame::default() };
        encoder.write_frame(&frame).unwrap();
    }
    drop(encoder);
    out
}

/// `attention` and `entropy` choose the window from the first frame, and every frame keeps it: the
/// second frame, whose disc moved out of that window, shows none of it.
#[test]
fn an_animation_keeps_its_first_frames_window() {
    let source = moving_disc();
    for gravity in ["attention", "entropy"] {
        let transform = Transform::from_query(&format!("w=100&h=100&gravity={gravity}")).unwrap();
        let options = crate::RenderOptions::default();
        let rendered = crate::render(&source, &transform, Target::Format(OutputFormat::Gif), options).unwrap();
        let frames = GifDecoder::new(std::io::Cursor::new(rendered.bytes)).unwrap().into_frames();
        let reds: Vec<usize> = frames
            .map(|frame| frame.unwrap().into_buffer().pixels().filter(|p| p.0[0] > 180 && p.0[1] < 100).count())
            .collect();
        assert_eq!(reds.len(), 2, "{gravity}");
        assert!(reds[0] > 1000 && reds[1] == 0, "{gravity}: red pixels per frame {reds:?}");
    }
}
