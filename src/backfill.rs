//! `shutterbox backfill`: describes the images uploaded before image facts existed (or whose description
//! job was lost), with a progress bar. It opens the backends `serve` is configured with and runs the
//! description job's own code (`shutterbox_worker::describe`) on this machine's cores; `serve` may keep
//! running meanwhile. Resumable: each image is recorded as it is described, and a run takes only the images
//! not described yet, so a stopped run, run again, goes on where it stopped.

use std::sync::Arc;

use futures_util::{StreamExt, stream};
use indicatif::{ProgressBar, ProgressStyle};
use shutterbox::{
    BackendConfig,
    backends::{open_metadata, open_store},
    config::{RenderLimits, VideoSettings},
};
use shutterbox_metadata::MetadataStore;
use shutterbox_variants::{RenderPool, Variants};

/// Describing the images that have no facts or summary yet.
#[derive(Debug, clap::Args)]
pub struct BackfillArgs {
    #[command(flatten)]
    backend: BackendConfig,
    /// Source and output limits of a render (as for `serve`).
    #[command(flatten)]
    limits: RenderLimits,
    #[command(flatten)]
    video: VideoSettings,
    /// Images described at once (default: one per core).
    #[arg(long)]
    concurrency: Option<usize>,
}

/// Images read from the metadata per query.
const PAGE: u64 = 256;

/// Describes every image not described yet. `Ok` when none failed for a reason worth trying again (a
/// picture that cannot be read is described as such, and counted apart).
pub async fn run(args: BackfillArgs) -> Result<(), String> {
    let metadata: Arc<dyn MetadataStore> = open_metadata(&args.backend).await.map_err(|e| e.to_string())?;
    // Nothing is uploaded through it, so the local store needs no upload address.
    let store = open_store(&args.backend, String::new()).await.map_err(|e| e.to_string())?;
    let pool = RenderPool::per_core().map_err(|e| format!("cannot start the render threads: {e}"))?;
    let concurrency = args.concurrency.unwrap_or(pool.threads()).max(1);
    let mut variants = Variants::new(metadata.clone(), store, args.limits.render_options(), pool);
    if let Some(isolation) = shutterbox::app::decoder_isolation() {
        variants = variants.with_isolation(isolation);
    }
    if let Some(decoder) = args.video.video_decoder() {
        variants = variants.with_video(decoder);
    }

    let (_, total) = metadata.undescribed_files(None, 0).await.map_err(|e| e.to_string())?;
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} images {msg}")
            .map_err(|e| e.to_string())?,
    );
    let (mut described, mut unreadable, mut failed) = (0u64, 0u64, 0u64);
    let mut after = None;
    loop {
        let (page, _) = metadata.undescribed_files(after.as_ref(), PAGE).await.map_err(|e| e.to_string())?;
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        let outcomes: Vec<_> = stream::iter(&page)
            .map(|file| {
                let (variants, metadata) = (&variants, metadata.as_ref());
                async move { (file, shutterbox_worker::describe(variants, metadata, file).await) }
            })
            .buffer_unordered(concurrency)
            .collect()
            .await;
        for (file, outcome) in outcomes {
            match outcome {
                Ok(None) => described += 1,
                Ok(Some(reason)) => {
                    unreadable += 1;
                    bar.println(format!("{} ({}): not readable: {reason}", file.id, file.path));
                }
                Err(e) => {
                    failed += 1;
                    bar.println(format!("{} ({}): failed, try again: {e}", file.id, file.path));
                }
            }
            bar.inc(1);
        }
        bar.set_message(if failed > 0 { format!("{failed} failed") } else { String::new() });
    }
    bar.finish();
    let summary = format!(
        "backfill: {described} images described, {unreadable} not readable, {failed} failed in {:.1} s",
        bar.elapsed().as_secs_f64()
    );
    if failed > 0 {
        return Err(format!("{summary}; run `shutterbox backfill` again to retry the failed ones"));
    }
    println!("{summary}");
    Ok(())
}
