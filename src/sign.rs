//! `shutterbox sign`: signs delivery URLs with the service's first key (`SHUTTERBOX_URL_SIGNING_KEYS`), for
//! templates and scripts that build URLs themselves; prints one signed URL per line.

use shutterbox::app::signing_keys;
use shutterbox_model::clock::now_ms;

#[derive(clap::Args)]
pub struct SignArgs {
    /// Delivery URLs, `…/v1/file/<stored path>?<query>` (a `sig`, and with --expires-in an `exp`, already
    /// there is replaced).
    #[arg(required = true)]
    urls: Vec<String>,
    /// The URL stops working this many seconds from now (adds `exp`); default: it does not expire.
    #[arg(long)]
    expires_in: Option<u64>,
    /// The service's signing keys; the first signs.
    #[arg(long, env = "SHUTTERBOX_URL_SIGNING_KEYS", hide_env_values = true)]
    keys: Option<String>,
}

pub fn run(args: SignArgs) -> Result<(), String> {
    let keys = signing_keys(args.keys.as_deref())
        .map_err(|e| e.to_string())?
        .ok_or("no signing keys: set SHUTTERBOX_URL_SIGNING_KEYS (or --keys), as the service has it")?;
    let now = u64::try_from(now_ms() / 1000).unwrap_or(0);
    let expires = args.expires_in.map(|seconds| now.saturating_add(seconds));
    for url in &args.urls {
        println!("{}", keys.sign_url(url, expires).map_err(|e| e.to_string())?);
    }
    Ok(())
}
