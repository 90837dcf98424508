//! `fingerprint`: the failure fingerprint of test output or JUnit XML, printed.

use anyhow::Result;

use crate::cli::FingerprintArgs;
use crate::error::exit;

use super::evidence::fingerprint_files_with;
use super::progress::Progress;
use super::{Ctx, print, print_json};

pub(super) fn fingerprint(ctx: &Ctx, args: FingerprintArgs) -> Result<u8> {
    let mut progress = Progress::new(&ctx.settings, args.json);
    let mut fp = fingerprint_files_with(&args.files, &mut progress)?;
    if let Some(code) = args.exit_code {
        fp = fp.with_exit_code(code);
    }
    progress.finish();
    if args.json {
        print_json(&fp.to_json())?;
    } else {
        print(&fp.render_text())?;
    }
    Ok(exit::OK)
}
