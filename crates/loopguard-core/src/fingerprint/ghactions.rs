//! The raw-log layer: turns one raw line (GitHub Actions download, terminal capture, file)
//! into the text a person reads in the log viewer.
//!
//! Handled: a UTF-8 BOM, the per-line timestamp GitHub Actions prefixes
//! (`2026-11-25T10:00:00.1234567Z `), CRLF, `\r` progress redraws (the last segment wins, as
//! on a terminal), ANSI escapes (CSI colours, OSC links, charset selection), `##[group]`,
//! `##[endgroup]` and the other `##[...]` markers, and invalid UTF-8 (replaced, never fatal).

/// What a `##[...]` marker said about the line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Marker {
    #[default]
    None,
    /// `##[error]`: an error annotation (a tool's or the runner's own).
    Error,
    /// `##[group]`, `##[endgroup]`, `##[warning]`, `##[command]`, ...: structure, not output.
    Other,
}

/// One line as a person sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CleanLine {
    pub text: String,
    pub marker: Marker,
    /// How many bytes of the raw line a BOM and the Actions timestamp take, up to the
    /// space after it: no trigger starts in them (`parsers` holds this).
    pub stamp: usize,
}

/// Cleans one raw line (without its `\n`).
#[cfg(test)]
pub(crate) fn clean_line(raw: &[u8]) -> CleanLine {
    let mut line = CleanLine::default();
    line.set(raw, &mut Vec::new());
    line
}

impl CleanLine {
    /// Makes this the cleaned `raw` line (without its `\n`), reusing its buffer, and
    /// `scratch` for a line with ANSI escapes: the front end cleans every line it hands
    /// on into the same two buffers, with no allocation per line.
    pub(crate) fn set(&mut self, raw: &[u8], scratch: &mut Vec<u8>) {
        let mut line = raw;
        if let Some(rest) = line.strip_suffix(b"\r") {
            line = rest;
        }
        let whole = line.len();
        line = strip_bom(line);
        line = strip_timestamp(line);
        // What went from the front; the space after the stamp stays: a trigger may start
        // with one.
        self.stamp = (whole - line.len()).saturating_sub(1);
        line = strip_bom(line);
        // A progress redraw: only what follows the last carriage return stays on screen.
        if let Some(pos) = memchr::memrchr(b'\r', line) {
            line = &line[pos + 1..];
        }
        if memchr::memchr(0x1b, line).is_some() {
            strip_ansi(line, scratch);
            line = scratch;
        }
        let (marker, body) = split_marker(line);
        self.marker = marker;
        self.text.clear();
        push_lossy(&mut self.text, body);
    }
}

/// Appends `bytes` as UTF-8, each invalid sequence replaced as [`String::from_utf8_lossy`]
/// replaces it.
fn push_lossy(text: &mut String, bytes: &[u8]) {
    if let Ok(valid) = std::str::from_utf8(bytes) {
        text.push_str(valid);
        return;
    }
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
}

fn strip_bom(line: &[u8]) -> &[u8] {
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

/// `YYYY-MM-DDTHH:MM:SS(.fraction)?Z ` at the start of the line, as GitHub Actions writes it.
pub(crate) fn strip_timestamp(line: &[u8]) -> &[u8] {
    const SHAPE: &[u8] = b"0000-00-00T00:00:00";
    if line.len() < SHAPE.len() + 2 {
        return line;
    }
    let shape_ok = SHAPE.iter().zip(line).all(|(&s, &b)| {
        if s == b'0' {
            b.is_ascii_digit()
        } else {
            s == b
        }
    });
    if !shape_ok {
        return line;
    }
    let mut i = SHAPE.len();
    if line[i] == b'.' {
        i += 1;
        while i < line.len() && line[i].is_ascii_digit() {
            i += 1;
        }
    }
    if line.get(i) != Some(&b'Z') {
        return line;
    }
    i += 1;
    match line.get(i) {
        Some(b' ') => &line[i + 1..],
        None => &line[i..],
        Some(_) => line,
    }
}

/// `line` without its ANSI escape sequences, into `out`: CSI (`ESC [ ... final`), OSC
/// (`ESC ] ... BEL|ESC \`), and two-byte escapes (`ESC ( B`, `ESC =`, ...).
fn strip_ansi(line: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b != 0x1b {
            out.push(b);
            i += 1;
            continue;
        }
        match line.get(i + 1) {
            Some(b'[') => {
                i += 2;
                while i < line.len() && !(0x40..=0x7e).contains(&line[i]) {
                    i += 1;
                }
                i += 1;
            }
            Some(b']') => {
                i += 2;
                while i < line.len() {
                    if line[i] == 0x07 {
                        i += 1;
                        break;
                    }
                    if line[i] == 0x1b && line.get(i + 1) == Some(&b'\\') {
                        i += 2;
                        break;
                    }
                    i += 1;
                }
            }
            // Charset selection takes one more byte: ESC ( B.
            Some(b'(' | b')' | b'*' | b'+') => i += 3,
            Some(_) => i += 2,
            None => i += 1,
        }
    }
}

fn split_marker(line: &[u8]) -> (Marker, &[u8]) {
    let Some(rest) = line.strip_prefix(b"##[") else {
        return (Marker::None, line);
    };
    let Some(end) = memchr::memchr(b']', rest) else {
        return (Marker::None, line);
    };
    let marker = if &rest[..end] == b"error" {
        Marker::Error
    } else {
        Marker::Other
    };
    (marker, &rest[end + 1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(raw: &[u8]) -> String {
        clean_line(raw).text
    }

    #[test]
    fn timestamps_bom_and_crlf_go() {
        assert_eq!(
            clean(b"\xEF\xBB\xBF2026-11-25T10:00:00.1234567Z test a ... FAILED\r"),
            "test a ... FAILED"
        );
        assert_eq!(clean(b"2026-11-25T10:00:00Z hello"), "hello");
        assert_eq!(clean(b"2026-11-25T10:00:00.1Z"), "");
        // Not a timestamp: kept as is.
        assert_eq!(
            clean(b"2026-11-25 10:00:00 hello"),
            "2026-11-25 10:00:00 hello"
        );
        assert_eq!(
            clean(b"2026-11-25T10:00:00.1Zhello"),
            "2026-11-25T10:00:00.1Zhello"
        );
    }

    #[test]
    fn ansi_goes() {
        assert_eq!(
            clean(b"test x ... \x1b[31mFAILED\x1b(B\x1b[m"),
            "test x ... FAILED"
        );
        assert_eq!(
            clean(b"\x1b[1m\x1b[91merror\x1b[0m: test failed"),
            "error: test failed"
        );
        assert_eq!(
            clean(b"see \x1b]8;;https://x.y\x07link\x1b]8;;\x07 here"),
            "see link here"
        );
        assert_eq!(clean(b"dangling \x1b"), "dangling ");
    }

    #[test]
    fn progress_redraws_keep_the_last_segment() {
        assert_eq!(
            clean(b"2026-11-25T10:00:00.1Z Receiving 12%\rReceiving 64%\rReceiving 100%, done."),
            "Receiving 100%, done."
        );
    }

    #[test]
    fn markers_are_recognised() {
        let l = clean_line(b"2026-11-25T10:00:00.1Z ##[error]Process completed with exit code 1.");
        assert_eq!(l.marker, Marker::Error);
        assert_eq!(l.text, "Process completed with exit code 1.");
        let g = clean_line(b"##[group]Run cargo test");
        assert_eq!(g.marker, Marker::Other);
        assert_eq!(g.text, "Run cargo test");
        assert_eq!(clean_line(b"##[endgroup]").text, "");
        assert_eq!(clean_line(b"## [x] heading").marker, Marker::None);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(clean(b"bad \xff byte"), "bad \u{FFFD} byte");
        // As String::from_utf8_lossy replaces it: one character per invalid sequence.
        for bytes in [
            &b"\xff"[..],
            b"a\xe2\x9c",
            b"\xe2\x9c\xe2\x9c\x93 ok",
            b"\xf0\x9f\x98 x \xc3",
            b"caf\xe9 \xed\xa0\x80 end",
            "\u{2713} fine".as_bytes(),
        ] {
            let mut text = String::from("left over");
            text.clear();
            push_lossy(&mut text, bytes);
            assert_eq!(text, String::from_utf8_lossy(bytes), "{bytes:?}");
        }
    }

    #[test]
    fn a_reused_line_is_each_line_alone() {
        let lines: [&[u8]; 5] = [
            b"2026-11-25T10:00:00.1Z \x1b[31mtest x ... FAILED\x1b[0m and a long tail of words",
            b"##[error]short",
            b"caf\xe9",
            b"\x1b[1mbold\x1b[0m",
            b"",
        ];
        let (mut line, mut scratch) = (CleanLine::default(), Vec::new());
        for raw in lines {
            line.set(raw, &mut scratch);
            assert_eq!(line, clean_line(raw));
        }
    }
}
