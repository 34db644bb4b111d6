//! Which frame of a video's opening seconds is its poster: as FFmpeg's `thumbnail` filter chooses, the
//! frame whose histogram is nearest the average of all of them, but among the frames that are not of
//! near-uniform colour (a black or white opening, a fade, a title card of one colour), so a poster is never
//! blank where the video is not. Frames come small and gray (`POSTER_SAMPLE_SIDE` square, one byte a pixel).

/// The side of the gray frames a poster is chosen from.
pub const POSTER_SAMPLE_SIDE: u32 = 32;

/// Below this standard deviation of its luma (0–255), a frame is taken for one colour.
const UNIFORM_DEVIATION: f64 = 6.0;

const BINS: usize = 16;

/// The index of the poster among `frames` (each `POSTER_SAMPLE_SIDE`² gray bytes); the first frame when
/// every one is uniform, `None` for no frames.
pub fn choose_poster(frames: &[&[u8]]) -> Option<usize> {
    if frames.is_empty() {
        return None;
    }
    let histograms: Vec<Option<[f64; BINS]>> = frames.iter().map(|f| (!uniform(f)).then(|| histogram(f))).collect();
    let varied: Vec<&[f64; BINS]> = histograms.iter().flatten().collect();
    if varied.is_empty() {
        return Some(0);
    }
    let mut average = [0.0; BINS];
    for histogram in &varied {
        for (sum, bin) in average.iter_mut().zip(histogram.iter()) {
            *sum += bin / varied.len() as f64;
        }
    }
    let distance = |h: &[f64; BINS]| h.iter().zip(average.iter()).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
    histograms
        .iter()
        .enumerate()
        .filter_map(|(i, h)| h.as_ref().map(|h| (i, distance(h))))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

fn uniform(frame: &[u8]) -> bool {
    if frame.is_empty() {
        return true;
    }
    let n = frame.len() as f64;
    let mean = frame.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let variance = frame.iter().map(|&v| (f64::from(v) - mean).powi(2)).sum::<f64>() / n;
    variance.sqrt() < UNIFORM_DEVIATION
}

/// The share of the frame's pixels in each of `BINS` bands of luma.
fn histogram(frame: &[u8]) -> [f64; BINS] {
    let mut bins = [0.0; BINS];
    for &v in frame {
        bins[usize::from(v) * BINS / 256] += 1.0 / frame.len() as f64;
    }
    bins
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(f: impl Fn(usize) -> u8) -> Vec<u8> {
        (0..(POSTER_SAMPLE_SIDE * POSTER_SAMPLE_SIDE) as usize).map(f).collect()
    }

    #[test]
    fn a_black_opening_is_passed_over() {
        let black = frame(|_| 0);
        let white = frame(|_| 255);
        let scene = frame(|i| (i % 200) as u8);
        let frames = [&black[..], &black, &white, &scene, &scene];
        assert_eq!(choose_poster(&frames), Some(3));
    }

    #[test]
    fn the_frame_nearest_the_average_is_chosen() {
        let dark = frame(|i| (i % 64) as u8);
        let middle = frame(|i| (i % 64) as u8 + 96);
        let bright = frame(|i| (i % 64) as u8 + 190);
        // Two dark frames, one middle, one bright: the average histogram is half dark, nearest a dark one.
        let frames = [&bright[..], &middle, &dark, &dark];
        assert_eq!(choose_poster(&frames), Some(2));
    }

    #[test]
    fn an_all_black_video_takes_its_first_frame() {
        let black = frame(|_| 0);
        assert_eq!(choose_poster(&[&black[..], &black]), Some(0));
        assert_eq!(choose_poster(&[]), None);
    }
}
