//! `shutterbox upload`: uploads files through the HTTP API (presign → PUT → confirm) with `ApiClient`, and
//! prints each confirmed file object as one line of JSON (its `secureUrl` is the delivery URL).

use std::path::PathBuf;

use bytes::Bytes;
use shutterbox::client::{ApiClient, Upload};

/// Uploading from the command line.
#[derive(Debug, clap::Args)]
pub struct UploadArgs {
    /// The service's public URL, e.g. `http://127.0.0.1:8080` (a trailing `/v1` is accepted).
    #[arg(long, env = "SHUTTERBOX_URL")]
    url: String,
    /// A secret or upload API key.
    #[arg(long, env = "SHUTTERBOX_API_KEY", hide_env_values = true)]
    key: String,
    /// Folder to upload into, `/`-separated for nesting; created on demand.
    #[arg(long)]
    folder: Option<String>,
    /// Name to store the file under instead of its own (with one file only).
    #[arg(long)]
    name: Option<String>,
    /// Declared MIME type (default: from the extension; the service sniffs the bytes either way).
    #[arg(long = "type")]
    mimetype: Option<String>,
    /// The files to upload.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// Uploads every file in turn; stops at the first that fails.
pub async fn run(args: UploadArgs) -> Result<(), String> {
    if args.name.is_some() && args.files.len() > 1 {
        return Err("--name names one file; give a single file with it".into());
    }
    let client = ApiClient::new(&args.url, &args.key).map_err(|e| e.to_string())?;
    for path in &args.files {
        let shown = path.display();
        let bytes = tokio::fs::read(path).await.map_err(|e| format!("cannot read {shown}: {e}"))?;
        let filename = path
            .file_name()
            .and_then(|name| name.to_str())
            .ok_or_else(|| format!("{shown}: the file name is not UTF-8"))?;
        let mut upload = Upload::of(filename, &bytes);
        upload.folder_name.clone_from(&args.folder);
        upload.custom_filename.clone_from(&args.name);
        if let Some(mimetype) = &args.mimetype {
            upload.mimetype.clone_from(mimetype);
        }
        let file = client.upload(&upload, Bytes::from(bytes)).await.map_err(|e| format!("{shown}: {e}"))?;
        println!("{file}");
    }
    Ok(())
}
