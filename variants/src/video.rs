//! Videos (docs/formats.md, "Videos"): their facts, read from the container's headers through ranged reads
//! of the stored object (`read_stored_facts`), and their frames, decoded by FFmpeg's `ffmpeg` program in a
//! child process (`VideoDecoder`). FFmpeg runs as a program, not a linked library: a crash, a hang or a
//! runaway allocation in a demuxer or decoder ends the child, never the node, and the service's binary
//! links none of Debian's GPL-built codecs.
//!
//! Each child is held to an address-space and a CPU-time limit, writes no file (`RLIMIT_FSIZE` 0), reads
//! only the protocol of its input (a local path, or the object store's presigned URL over HTTP), is given
//! its demuxer by the file's row (never probed: a playlist demuxer would open what a file names), and is
//! killed by a watchdog at the render's deadline or when its caller goes away. What it writes is read up to
//! the size the frame can be; a file the decoder refuses is a refusal that says so.

use std::{
    io::Read,
    os::unix::process::CommandExt,
    path::PathBuf,
    process::{Command, Stdio},
    time::Duration,
};

use shutterbox_model::{MediaFormat, VideoContainer, VideoFacts};
use shutterbox_pipeline::{
    Cancellation, PipelineError, RenderOptions,
    video::{ByteSource, POSTER_SAMPLE_SIDE, VideoError, choose_poster, read_video_facts},
};
use shutterbox_storage::{ObjectKey, ObjectStore, read_at};

use crate::child::{Watchdog, limit};

/// Address space a child may map beyond its frames: FFmpeg's libraries, its threads' stacks.
const BASE_ADDRESS_SPACE: u64 = 1 << 30;

/// The opening a poster is chosen from, and how many frames a second of it are looked at.
const POSTER_SECONDS: u32 = 4;
const POSTER_RATE: u32 = 5;

/// How far before the time a transport stream is seeked to, to be decoded forward from there.
const TS_SEEK_MARGIN: f64 = 10.0;

/// How long a presigned URL a child reads from stays valid.
const URL_LIFETIME: Duration = Duration::from_secs(600);

/// Decodes frames with the `ffmpeg` program at `program`.
#[derive(Debug, Clone)]
pub struct VideoDecoder {
    program: PathBuf,
    /// The longest video whose frames are decoded, in seconds (`SHUTTERBOX_VIDEO_MAX_SECONDS`).
    max_seconds: u64,
    /// The longest animated preview, in milliseconds (`SHUTTERBOX_VIDEO_MAX_PREVIEW_SECONDS`).
    max_preview_ms: u32,
}

/// What a render asks of a video.
#[derive(Debug, Clone, Copy)]
pub(crate) enum VideoDecode {
    Frame(FrameAt),
    Preview(Preview),
}

/// Frames a second of an animated preview, at most (fewer where the video has fewer).
pub const PREVIEW_RATE: u32 = 10;

/// The longer side of a preview's frames when the request names no size.
pub const PREVIEW_SIDE: u32 = 480;

/// An animated preview's span and the size its frames must cover.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Preview {
    pub from_ms: u32,
    pub for_ms: u32,
    /// The largest side the request asks for (`w` or `h`); none: `PREVIEW_SIDE` on the longer side.
    pub side: Option<u32>,
    /// Whether the request crops in source pixels: then frames keep the video's own size.
    pub crops: bool,
}

/// Where a child reads a video from.
#[derive(Debug, Clone)]
pub(crate) enum VideoInput {
    Path(PathBuf),
    Url(String),
}

/// Which frame.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FrameAt {
    /// The poster: the most representative of the opening frames (`choose_poster`).
    Poster,
    /// The frame shown at this many milliseconds.
    Millis(u32),
}

impl VideoInput {
    /// How a child reads `key` of `store`: by path where the store is this machine's, else over HTTP.
    pub(crate) async fn of(store: &dyn ObjectStore, key: &ObjectKey) -> Result<Self, crate::VariantError> {
        if let Some(path) = store.local_path(key) {
            return Ok(Self::Path(path));
        }
        match store.presign_get(key, URL_LIFETIME, MediaFormat::Binary.mime(), false).await? {
            Some(url) => Ok(Self::Url(url)),
            None => Err(crate::VariantError::Render(PipelineError::Internal(
                "the object store offers no way for FFmpeg to read a video".into(),
            ))),
        }
    }

    fn protocols(&self) -> &'static str {
        match self {
            Self::Path(_) => "file",
            Self::Url(_) => "http,https,tcp,tls",
        }
    }

    fn argument(&self) -> String {
        match self {
            Self::Path(path) => format!("file:{}", path.display()),
            Self::Url(url) => url.clone(),
        }
    }
}

impl VideoDecoder {
    pub fn new(program: PathBuf, max_seconds: u64, max_preview_secs: u32) -> Self {
        Self { program, max_seconds, max_preview_ms: max_preview_secs.saturating_mul(1000) }
    }

    /// The program's version line, or why it does not run (start-up says which, once).
    pub fn check(&self) -> Result<String, String> {
        let output = Command::new(&self.program)
            .arg("-version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{} does not run: {e}", self.program.display()))?;
        let text = String::from_utf8_lossy(&output.stdout);
        match text.lines().next() {
            Some(line) if output.status.success() => Ok(line.to_owned()),
            _ => Err(format!("{} -version failed", self.program.display())),
        }
    }

    /// The frame `at` of a video whose headers said `facts`, as a BMP the pipeline reads, shown as the
    /// video is (its rotation applied). Blocking: for a render thread.
    pub(crate) fn frame(
        &self,
        input: &VideoInput,
        container: VideoContainer,
        facts: &VideoFacts,
        at: FrameAt,
        options: &RenderOptions,
        cancellation: &Cancellation,
    ) -> Result<Vec<u8>, PipelineError> {
        let (width, height) = self.check_limits(facts, options)?;
        let millis = match at {
            FrameAt::Millis(ms) => ms,
            FrameAt::Poster => self.poster_time(input, container, facts, options, cancellation)?,
        };
        // A frame begins before the end: a time at (or just before) the end asks for the last one.
        let frame_ms = facts.frame_rate.map_or(40.0, |rate| 1000.0 / rate.per_second().max(0.001));
        let last = facts.duration_ms.map_or(f64::MAX, |d| (d as f64 - 1.5 * frame_ms).max(0.0));
        let seconds = (f64::from(millis)).min(last) / 1000.0;
        // A BMP's rows are padded to four bytes.
        let row = (u64::from(width) * 3).div_ceil(4) * 4;
        let most = row * u64::from(height) + 4096;
        let mut args = self.input_args(input, container, Some(seconds), None);
        args.extend(["-map", "0:v:0", "-frames:v", "1", "-an", "-sn", "-dn"].map(String::from));
        args.extend(["-f", "image2pipe", "-c:v", "bmp", "-pix_fmt", "bgr24", "pipe:1"].map(String::from));
        let frame = self.run(&args, width, height, most, options, cancellation, input)?;
        if frame.is_empty() {
            return Err(PipelineError::Refused(format!(
                "the video has no frame at {seconds:.3} s that FFmpeg could decode"
            )));
        }
        Ok(frame)
    }

    /// An animated preview (`dur`) as an APNG the pipeline reads: `PREVIEW_RATE` frames a second from
    /// `preview.from_ms`, scaled (Lanczos) so that they still cover the size asked for, and counted
    /// against the animation budget before FFmpeg starts. Blocking: for a render thread.
    pub(crate) fn preview(
        &self,
        input: &VideoInput,
        container: VideoContainer,
        facts: &VideoFacts,
        preview: Preview,
        options: &RenderOptions,
        cancellation: &Cancellation,
    ) -> Result<Vec<u8>, PipelineError> {
        let (width, height) = self.check_limits(facts, options)?;
        if preview.for_ms > self.max_preview_ms {
            return Err(PipelineError::Refused(format!(
                "an animated preview is at most {} s long here (asked for {} s)",
                self.max_preview_ms / 1000,
                f64::from(preview.for_ms) / 1000.0
            )));
        }
        let rate =
            facts.frame_rate.map_or(f64::from(PREVIEW_RATE), |r| r.per_second().clamp(0.1, f64::from(PREVIEW_RATE)));
        let frames = (f64::from(preview.for_ms) / 1000.0 * rate).ceil().max(1.0) as u64;
        // Scaled so that the shorter side still covers the side asked for (or the longer side is
        // `PREVIEW_SIDE`), never enlarged; a crop's coordinates are the video's own pixels.
        let scale = match (preview.crops, preview.side) {
            (true, _) => 1.0,
            (false, Some(side)) => (f64::from(side) / f64::from(width.min(height))).min(1.0),
            (false, None) => (f64::from(PREVIEW_SIDE) / f64::from(width.max(height))).min(1.0),
        };
        let even = |side: u32| ((f64::from(side) * scale / 2.0).round() as u32 * 2).max(2);
        let (w, h) = if scale < 1.0 { (even(width), even(height)) } else { (width, height) };
        let pixels = frames * u64::from(w) * u64::from(h);
        if pixels > options.max_animation_pixels {
            return Err(PipelineError::AnimationTooLarge {
                width: w,
                height: h,
                frames,
                max_pixels: options.max_animation_pixels,
            });
        }
        let seconds = f64::from(preview.from_ms) / 1000.0;
        let mut args = self.input_args(input, container, Some(seconds), None);
        args.extend(["-t".into(), format!("{:.3}", f64::from(preview.for_ms) / 1000.0)]);
        args.extend(["-map", "0:v:0", "-an", "-sn", "-dn", "-vf"].map(String::from));
        args.push(format!("fps={rate:.3},scale={w}:{h}:flags=lanczos,format=rgb24"));
        args.extend(["-frames:v".into(), frames.to_string()]);
        args.extend(["-f", "apng", "-plays", "0", "-compression_level", "1", "pipe:1"].map(String::from));
        // Stored rows at worst, with their filter bytes and the chunks' overhead.
        let most = frames * (u64::from(w) * 3 + 1) * u64::from(h) + frames * 4096 + 4096;
        let mut apng = self.run(&args, width, height, most, options, cancellation, input)?;
        match shutterbox_pipeline::video::complete_apng(&mut apng) {
            Some(n) if n > 0 => Ok(apng),
            _ => Err(PipelineError::Refused(format!(
                "the video has no frames from {seconds:.3} s that FFmpeg could decode"
            ))),
        }
    }

    /// The displayed size, once the video is known to be within the limits.
    fn check_limits(&self, facts: &VideoFacts, options: &RenderOptions) -> Result<(u32, u32), PipelineError> {
        let Some((width, height)) = facts.size else {
            return Err(PipelineError::Refused(
                "the video's headers state no picture size (or it has no picture), so no frame is decoded".into(),
            ));
        };
        if u64::from(width) * u64::from(height) > options.max_pixels {
            return Err(PipelineError::TooManyPixels { width, height, max_pixels: options.max_pixels });
        }
        if let Some(ms) = facts.duration_ms
            && ms / 1000 > self.max_seconds
        {
            return Err(PipelineError::Refused(format!(
                "the video is {} s long, more than the {} s whose frames are decoded",
                ms / 1000,
                self.max_seconds
            )));
        }
        Ok((width, height))
    }

    /// When the poster is: small gray frames of the opening seconds, sampled `POSTER_RATE` a second, and
    /// the one `choose_poster` picks.
    fn poster_time(
        &self,
        input: &VideoInput,
        container: VideoContainer,
        facts: &VideoFacts,
        options: &RenderOptions,
        cancellation: &Cancellation,
    ) -> Result<u32, PipelineError> {
        let side = POSTER_SAMPLE_SIDE;
        let sample = (side * side) as usize;
        let frames = POSTER_SECONDS * POSTER_RATE;
        let filter = format!("fps={POSTER_RATE},scale={side}:{side}:flags=area,format=gray");
        let mut args = self.input_args(input, container, None, Some(POSTER_SECONDS));
        args.extend(["-map", "0:v:0", "-an", "-sn", "-dn", "-vf"].map(String::from));
        args.push(filter);
        args.extend(["-frames:v".into(), frames.to_string()]);
        args.extend(["-f", "rawvideo", "pipe:1"].map(String::from));
        let (width, height) = facts.size.unwrap_or((side, side));
        let out = self.run(&args, width, height, (sample * frames as usize) as u64, options, cancellation, input)?;
        let samples: Vec<&[u8]> = out.chunks_exact(sample).collect();
        let chosen = choose_poster(&samples).unwrap_or(0) as u32;
        // `fps` keeps the frame shown at each tick: the k-th sample is the frame at k / rate seconds.
        Ok(chosen * 1000 / POSTER_RATE)
    }

    /// The arguments that open the input: quiet, its demuxer and protocol named, seeking to `seconds`
    /// (to the keyframe before, then decoding forward: the frame shown then) and reading `limit` seconds.
    fn input_args(
        &self,
        input: &VideoInput,
        container: VideoContainer,
        seconds: Option<f64>,
        limit: Option<u32>,
    ) -> Vec<String> {
        let mut args: Vec<String> =
            ["-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "2"].map(String::from).into();
        args.extend(["-protocol_whitelist".into(), input.protocols().into()]);
        args.extend(["-f".into(), container.demuxer().into()]);
        // A transport stream has no index: FFmpeg's seek lands by its byte rate, past the keyframe it needs
        // when the keyframes are sparse, and finds no frame. It is seeked to well before the time (a
        // camcorder's keyframes are a second apart at most) and decoded forward from there.
        let (before, after) = match (seconds, container) {
            (Some(seconds), VideoContainer::MpegTs) => {
                let before = (seconds - TS_SEEK_MARGIN).max(0.0);
                (Some(before), Some(seconds - before))
            }
            (seconds, _) => (seconds, None),
        };
        if let Some(seconds) = before {
            args.extend(["-ss".into(), format!("{seconds:.3}")]);
        }
        if let Some(limit) = limit {
            args.extend(["-t".into(), limit.to_string()]);
        }
        args.extend(["-i".into(), input.argument()]);
        if let Some(seconds) = after {
            args.extend(["-ss".into(), format!("{seconds:.3}")]);
        }
        args
    }

    /// Runs a child: what it wrote to its output (at most `most` bytes), or why it failed.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        args: &[String],
        width: u32,
        height: u32,
        most: u64,
        options: &RenderOptions,
        cancellation: &Cancellation,
        input: &VideoInput,
    ) -> Result<Vec<u8>, PipelineError> {
        // FFmpeg holds a decoder's reference frames (up to 16) and its threads' copies: room for 64 bytes a
        // pixel of the video's own size, which the pixel budget has bounded.
        let address_space = BASE_ADDRESS_SPACE.saturating_add(u64::from(width) * u64::from(height) * 64);
        let cpu_secs = options.render_cpu_secs.max(1);
        let mut command = Command::new(&self.program);
        command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        // SAFETY: only setrlimit between fork and exec, which is async-signal-safe.
        unsafe {
            command.pre_exec(move || {
                limit(libc::RLIMIT_AS, address_space);
                limit(libc::RLIMIT_CPU, cpu_secs);
                limit(libc::RLIMIT_FSIZE, 0);
                limit(libc::RLIMIT_CORE, 0);
                Ok(())
            });
        }
        let mut child = command.spawn().map_err(|e| {
            PipelineError::Internal(format!("could not start FFmpeg ({}): {e}", self.program.display()))
        })?;
        let watchdog = Watchdog::start(&child, options.render_timeout_secs, cancellation.clone());
        let stderr = child.stderr.take().map(|mut stderr| {
            std::thread::spawn(move || {
                let mut text = Vec::new();
                let _ = (&mut stderr).take(16 << 10).read_to_end(&mut text);
                // Drained, so a chatty child never blocks on a full pipe.
                let _ = std::io::copy(&mut stderr, &mut std::io::sink());
                String::from_utf8_lossy(&text).into_owned()
            })
        });
        let mut out = Vec::new();
        let read = child.stdout.take().map(|stdout| stdout.take(most + 1).read_to_end(&mut out));
        let too_much = out.len() as u64 > most;
        if too_much {
            let _ = child.kill();
        }
        let stopped = watchdog.stop();
        let status = child.wait().map_err(|e| PipelineError::Internal(e.to_string()))?;
        let said = stderr.and_then(|thread| thread.join().ok()).unwrap_or_default();
        if let Some(stopped) = stopped {
            return Err(stopped);
        }
        if too_much {
            return Err(PipelineError::Refused("FFmpeg wrote more than a frame of the video can be".into()));
        }
        if let Some(Err(e)) = read {
            return Err(PipelineError::Internal(format!("could not read FFmpeg's output: {e}")));
        }
        if !status.success() {
            use std::os::unix::process::ExitStatusExt;
            if matches!(status.signal(), Some(libc::SIGXCPU)) {
                return Err(PipelineError::CpuBudgetExceeded { secs: cpu_secs });
            }
            // Its own words, without the input's address (a presigned URL is a credential).
            let reason = said.lines().find(|line| !line.trim().is_empty()).unwrap_or("it stopped").trim();
            let reason = reason.replace(&input.argument(), "the video");
            let reason: String = reason.chars().take(300).collect();
            return Err(PipelineError::Refused(format!("FFmpeg could not decode the video: {reason}")));
        }
        Ok(out)
    }
}

/// A stored object read through ranged reads, its first bytes (already read, for sniffing) from memory.
struct StoredBytes<'a> {
    store: &'a dyn ObjectStore,
    key: &'a ObjectKey,
    size: u64,
    head: &'a [u8],
    runtime: tokio::runtime::Handle,
}

impl ByteSource for StoredBytes<'_> {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, VideoError> {
        let end = offset.saturating_add(len as u64);
        if end <= self.head.len() as u64 {
            // Within the head, so both fit in a usize.
            return Ok(self.head[offset as usize..end as usize].to_vec());
        }
        if len == 0 {
            return Ok(Vec::new());
        }
        self.runtime
            .block_on(read_at(self.store, self.key, offset, len))
            .map_err(|e| VideoError::Read(e.to_string()))?
            .ok_or_else(|| VideoError::Read("the object is gone".into()))
    }
}

/// The facts of the video stored at `key` (`size` bytes, `head` its first bytes), from its headers.
/// Blocking (its reads wait on the runtime): call from a blocking thread, as `read_video_facts_stored`
/// does.
fn read_stored_facts(
    store: &dyn ObjectStore,
    key: &ObjectKey,
    size: u64,
    head: &[u8],
    container: VideoContainer,
    runtime: tokio::runtime::Handle,
) -> Result<VideoFacts, VideoError> {
    let mut source = StoredBytes { store, key, size, head, runtime };
    read_video_facts(container, &mut source)
}

/// `read_stored_facts` on a blocking thread.
pub async fn read_video_facts_stored(
    store: std::sync::Arc<dyn ObjectStore>,
    key: ObjectKey,
    size: u64,
    head: Vec<u8>,
    container: VideoContainer,
) -> Result<VideoFacts, VideoError> {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || read_stored_facts(store.as_ref(), &key, size, &head, container, runtime))
        .await
        .map_err(|e| VideoError::Read(e.to_string()))?
}
