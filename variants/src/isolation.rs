//! Decoders written in C that parse an upload's bytes — libheif and its HEVC decoder libde265, for HEIC and
//! for the AVIFs libheif reads (`shutterbox_pipeline::parsed_by_libheif`) — run in a child process of the
//! service's own binary (`shutterbox decode-isolated`), under an address-space and a CPU-time limit and a
//! wall-clock watchdog. A crash, a runaway allocation or a hang in them ends the child, never the node: the
//! render is refused with a 400 that says so. Both sides of the exchange are here, so they cannot disagree.
//!
//! The exchange: the parent writes one request line (tab-separated), then the source bytes, and closes the
//! child's input; the child answers one status line, then for a render the encoded bytes.

use std::{
    io::{self, Read, Write},
    path::PathBuf,
    process::{Command, Stdio},
};

use shutterbox_model::{FocalPoint, ImageFacts, PixelSummary, Rgb};
use shutterbox_pipeline::{
    Cancellation, PipelineError, RenderOptions, Rendered, Target, Transform, read_facts, render, summarize,
};

use crate::child::{Watchdog, limit};

/// The subcommand of the service's binary that serves one request (`serve_child`).
pub const SUBCOMMAND: &str = "decode-isolated";

/// Address space a child may map beyond what its pixel budget needs: the binary, its allocator's arenas,
/// the decoder's threads' stacks.
const BASE_ADDRESS_SPACE: u64 = 2 << 30;

/// How to start a child: the service's own binary.
#[derive(Debug, Clone)]
pub struct Isolation {
    exe: PathBuf,
}

/// What a child is asked to do.
enum Request {
    Render { target: Target, query: String },
    Summarize,
    Facts,
}

impl Isolation {
    /// Children of the binary at `exe` (the running service's, `std::env::current_exe`).
    pub fn new(exe: PathBuf) -> Self {
        Self { exe }
    }

    /// `pipeline::render`, in a child.
    pub fn render(
        &self,
        source: &[u8],
        transform: &Transform,
        target: Target,
        options: &RenderOptions,
        cancellation: &Cancellation,
    ) -> Result<Rendered, PipelineError> {
        let request = Request::Render { target, query: transform.to_query() };
        let (status, body) = self.exchange(&request, source, options, cancellation)?;
        let fields: Vec<&str> = status.split('\t').collect();
        match fields.as_slice() {
            ["ok", format, width, height] => Ok(Rendered {
                bytes: body,
                format: Target::parse(format)
                    .and_then(|t| match t {
                        Target::Format(format) => Some(format),
                        _ => None,
                    })
                    .ok_or_else(|| fault(&status))?,
                width: width.parse().map_err(|_| fault(&status))?,
                height: height.parse().map_err(|_| fault(&status))?,
            }),
            _ => Err(fault(&status)),
        }
    }

    /// `pipeline::summarize`, in a child.
    pub fn summarize(
        &self,
        source: &[u8],
        options: &RenderOptions,
    ) -> Result<(ImageFacts, PixelSummary), PipelineError> {
        let (status, _) = self.exchange(&Request::Summarize, source, options, &Cancellation::new())?;
        let fields: Vec<&str> = status.split('\t').collect();
        let number = |text: &str| text.parse::<u32>().map_err(|_| fault(&status));
        match fields.as_slice() {
            ["ok", width, height, alpha, frames, r, g, b, x, y, thumbhash, blurhash, placeholder] => {
                let facts = ImageFacts {
                    width: number(width)?,
                    height: number(height)?,
                    has_alpha: *alpha == "1",
                    frame_count: number(frames)?,
                };
                let channel = |text: &str| text.parse::<u8>().map_err(|_| fault(&status));
                let unit = |text: &str| text.parse::<u16>().map_err(|_| fault(&status));
                let summary = PixelSummary {
                    dominant_color: Rgb([channel(r)?, channel(g)?, channel(b)?]),
                    thumbhash: (*thumbhash).to_owned(),
                    blurhash: (*blurhash).to_owned(),
                    placeholder: (*placeholder).to_owned(),
                    attention: FocalPoint { x: unit(x)?, y: unit(y)? },
                };
                Ok((facts, summary))
            }
            _ => Err(fault(&status)),
        }
    }

    /// `pipeline::read_facts` of a whole file, in a child.
    pub fn facts(&self, source: &[u8], options: &RenderOptions) -> Result<Option<ImageFacts>, PipelineError> {
        let (status, _) = self.exchange(&Request::Facts, source, options, &Cancellation::new())?;
        let fields: Vec<&str> = status.split('\t').collect();
        let number = |text: &str| text.parse::<u32>().map_err(|_| fault(&status));
        match fields.as_slice() {
            ["ok", width, height, alpha, frames] => Ok(Some(ImageFacts {
                width: number(width)?,
                height: number(height)?,
                has_alpha: *alpha == "1",
                frame_count: number(frames)?,
            })),
            ["none"] => Ok(None),
            _ => Err(fault(&status)),
        }
    }

    /// Runs a child on `source`: its status line (a refusal already turned into the error) and what follows.
    fn exchange(
        &self,
        request: &Request,
        source: &[u8],
        options: &RenderOptions,
        cancellation: &Cancellation,
    ) -> Result<(String, Vec<u8>), PipelineError> {
        let address_space = options.max_pixels.saturating_mul(16).saturating_add(BASE_ADDRESS_SPACE);
        let cpu_secs = options.render_cpu_secs.max(1);
        let mut child = Command::new(&self.exe)
            .arg(SUBCOMMAND)
            .arg(address_space.to_string())
            .arg(cpu_secs.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| PipelineError::Internal(format!("could not start the isolated decoder: {e}")))?;
        // Past its CPU time a child is killed by the kernel; past the render's deadline (one that waits, a
        // deadlock), or once its caller has gone, by the watchdog.
        let watchdog = Watchdog::start(&child, options.render_timeout_secs, cancellation.clone());
        let outcome = (|| {
            let mut stdin = child.stdin.take().ok_or_else(|| PipelineError::Internal("no child input".into()))?;
            let header = header_line(request, options);
            // A child that died early stops reading: what it says (or how it ended) tells why.
            let _ = stdin.write_all(header.as_bytes()).and_then(|()| stdin.write_all(source));
            drop(stdin);
            let mut out = Vec::new();
            child
                .stdout
                .take()
                .map(|mut stdout| stdout.read_to_end(&mut out))
                .transpose()
                .map_err(|e| PipelineError::Internal(e.to_string()))?;
            Ok::<_, PipelineError>(out)
        })();
        let stopped = watchdog.stop();
        let status = child.wait().map_err(|e| PipelineError::Internal(e.to_string()))?;
        if let Some(stopped) = stopped {
            return Err(stopped);
        }
        let out = outcome?;
        if !status.success() {
            use std::os::unix::process::ExitStatusExt;
            return Err(match status.signal() {
                Some(libc::SIGXCPU) | Some(libc::SIGKILL) => PipelineError::CpuBudgetExceeded { secs: cpu_secs },
                _ => PipelineError::Refused(
                    "the image's decoder (libheif) failed on it and was stopped; the file is damaged or hostile".into(),
                ),
            });
        }
        let split = out.iter().position(|&b| b == b'\n').ok_or_else(|| fault("no answer"))?;
        let status = String::from_utf8_lossy(&out[..split]).into_owned();
        if let Some(message) = status.strip_prefix("refused\t") {
            return Err(PipelineError::Refused(message.to_owned()));
        }
        if let Some(message) = status.strip_prefix("fault\t") {
            return Err(PipelineError::Internal(message.to_owned()));
        }
        Ok((status, out[split + 1..].to_vec()))
    }
}

fn fault(what: &str) -> PipelineError {
    PipelineError::Internal(format!("the isolated decoder answered {what:?}"))
}

fn header_line(request: &Request, options: &RenderOptions) -> String {
    let limits = format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        options.max_pixels,
        options.max_output_pixels,
        options.max_frames,
        options.max_animation_pixels,
        options.max_source_bytes,
        options.render_timeout_secs,
        options.render_cpu_secs
    );
    match request {
        Request::Render { target, query } => format!("render\t{limits}\t{}\t{query}\n", target.as_str()),
        Request::Summarize => format!("summarize\t{limits}\n"),
        Request::Facts => format!("facts\t{limits}\n"),
    }
}

/// The child: `shutterbox decode-isolated <address space> <cpu seconds>`. Limits itself, reads one request
/// and its source from standard input, answers on standard output; exits 0 when it answered.
pub fn serve_child(address_space: u64, cpu_secs: u64) -> io::Result<()> {
    limit(libc::RLIMIT_AS, address_space);
    limit(libc::RLIMIT_CPU, cpu_secs);
    // No core file of attacker-shaped memory.
    limit(libc::RLIMIT_CORE, 0);
    let mut input = Vec::new();
    io::stdin().lock().read_to_end(&mut input)?;
    let split = input.iter().position(|&b| b == b'\n').ok_or_else(|| io::Error::other("no request line"))?;
    let header = String::from_utf8_lossy(&input[..split]).into_owned();
    let source = &input[split + 1..];
    let fields: Vec<&str> = header.split('\t').collect();
    // Tests make the child crash here, as a decoder's fault would (tests/api/attacks.rs).
    fail::fail_point!("decode-isolated-crash", |_| std::process::abort());
    let mut out = io::stdout().lock();
    let Some(options) = fields.get(1..8).and_then(options_of) else {
        return writeln!(out, "fault\tmalformed request");
    };
    let answer = match fields.first().copied() {
        Some("render") => {
            let (Some(target), Some(query)) = (fields.get(8).and_then(|t| Target::parse(t)), fields.get(9)) else {
                return writeln!(out, "fault\tmalformed request");
            };
            match Transform::from_query(query) {
                Ok(transform) => render(source, &transform, target, options).map(|rendered| {
                    let name = Target::Format(rendered.format).as_str();
                    (format!("ok\t{name}\t{}\t{}", rendered.width, rendered.height), rendered.bytes)
                }),
                Err(e) => Err(PipelineError::Refused(e.to_string())),
            }
        }
        Some("summarize") => summarize(source, &options).map(|(facts, summary)| {
            let [r, g, b] = summary.dominant_color.0;
            let line = format!(
                "ok\t{}\t{}\t{}\t{}\t{r}\t{g}\t{b}\t{}\t{}\t{}\t{}\t{}",
                facts.width,
                facts.height,
                u8::from(facts.has_alpha),
                facts.frame_count,
                summary.attention.x,
                summary.attention.y,
                summary.thumbhash,
                summary.blurhash,
                summary.placeholder
            );
            (line, Vec::new())
        }),
        Some("facts") => read_facts(source, true).map(|facts| match facts {
            Some(f) => {
                (format!("ok\t{}\t{}\t{}\t{}", f.width, f.height, u8::from(f.has_alpha), f.frame_count), Vec::new())
            }
            None => ("none".to_owned(), Vec::new()),
        }),
        _ => return writeln!(out, "fault\tunknown request"),
    };
    match answer {
        Ok((line, bytes)) => {
            writeln!(out, "{line}")?;
            out.write_all(&bytes)?;
        }
        Err(e) if e.is_client_error() => writeln!(out, "refused\t{}", one_line(&e.to_string()))?,
        Err(e) => writeln!(out, "fault\t{}", one_line(&e.to_string()))?,
    }
    out.flush()
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\t'], " ")
}

fn options_of(fields: &[&str]) -> Option<RenderOptions> {
    let [pixels, output, frames, animation, bytes, timeout, cpu] = fields else { return None };
    Some(RenderOptions {
        max_pixels: pixels.parse().ok()?,
        max_output_pixels: output.parse().ok()?,
        max_frames: frames.parse().ok()?,
        max_animation_pixels: animation.parse().ok()?,
        max_source_bytes: bytes.parse().ok()?,
        render_timeout_secs: timeout.parse().ok()?,
        render_cpu_secs: cpu.parse().ok()?,
        // A child has one core's worth of work: no second thread of its own.
        parallel: false,
    })
}
