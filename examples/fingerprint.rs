//! `cargo run --release --example fingerprint -- FILE...`: the fingerprint of each file,
//! through the library's streaming reader (a stand-in for `loopguard fingerprint` until the
//! CLI has it; `scripts/bench-fingerprint.sh` uses whichever exists).

use std::fs::File;
use std::io::Write;

fn main() -> std::io::Result<()> {
    let json = std::env::args().any(|a| a == "--json");
    let mut out = std::io::stdout().lock();
    for path in std::env::args().skip(1).filter(|a| a != "--json") {
        let fp = loopguard::fingerprint::fingerprint_reader(File::open(&path)?)?;
        if json {
            writeln!(out, "{}", fp.to_json())?;
        } else {
            writeln!(out, "== {path}\n{}", fp.render_text())?;
        }
    }
    Ok(())
}
