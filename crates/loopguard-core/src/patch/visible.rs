//! What text shows: the characters left once everything that shows nothing is taken out.
//! Progress is a change of what shows, so a change that only adds a no-break space, a
//! zero-width space, a byte-order mark or a tab is no progress, and no new patch.

/// Whether `c` shows nothing: Unicode white space (`White_Space`: the ASCII blanks, the
/// no-break spaces, the en/em/thin/hair spaces, the line and paragraph separators, the
/// ideographic space, …), the default-ignorable code points (soft hyphen, combining
/// grapheme joiner, zero-width space, joiners and non-joiner, word joiner and invisible
/// operators, bidi marks and controls, variation selectors, the byte-order mark, Hangul
/// fillers, tag characters, …), control characters, and the braille blank.
pub fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'..='\u{1160}'
                | '\u{17B4}'..='\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFF8}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// One unit of text: a character, or a byte that is not part of valid UTF-8 (text in
/// another encoding stands for itself, byte by byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Char(char),
    Byte(u8),
}

/// The units of `bytes` that show something, in order.
pub fn visible(bytes: &[u8]) -> impl Iterator<Item = Unit> + '_ {
    bytes.utf8_chunks().flat_map(|chunk| {
        chunk
            .valid()
            .chars()
            .filter(|c| !is_invisible(*c))
            .map(Unit::Char)
            .chain(chunk.invalid().iter().copied().map(Unit::Byte))
    })
}

/// Whether `a` and `b` show the same once everything invisible is taken out.
pub fn same_visible(a: &[u8], b: &[u8]) -> bool {
    // Plain ASCII compares byte by byte (the common case, and the fast one).
    if a.is_ascii() && b.is_ascii() {
        let keep = |c: &&u8| !(c.is_ascii_whitespace() || c.is_ascii_control());
        return a.iter().filter(keep).eq(b.iter().filter(keep));
    }
    visible(a).eq(visible(b))
}

/// What of `line` shows, as bytes (appended to `out`): the patch id hashes this.
pub fn push_visible(line: &[u8], out: &mut Vec<u8>) {
    if line.is_ascii() {
        out.extend(
            line.iter()
                .copied()
                .filter(|c| !(c.is_ascii_whitespace() || c.is_ascii_control())),
        );
        return;
    }
    let mut buf = [0; 4];
    for unit in visible(line) {
        match unit {
            Unit::Char(c) => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
            Unit::Byte(b) => out.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_of_every_kind_show_nothing() {
        let same = [
            ("a b", "ab"),
            ("x", "x\u{00A0}"),
            ("x", "x\u{200B}"),
            ("fn f() {}", "fn\u{2003}f()\u{3000}{}\u{FEFF}"),
            ("let a = 1;", "let a =\u{2060} 1;\u{E0020}"),
            ("ok", "o\u{00AD}k\u{FE0F}"),
            ("x", "x\u{0B}\u{1F}\u{85}\u{2028}\u{2800}\u{3164}"),
        ];
        for (a, b) in same {
            assert!(same_visible(a.as_bytes(), b.as_bytes()), "{a:?} vs {b:?}");
            let (mut x, mut y) = (Vec::new(), Vec::new());
            push_visible(a.as_bytes(), &mut x);
            push_visible(b.as_bytes(), &mut y);
            assert_eq!(x, y, "{a:?} vs {b:?}");
        }
        for (a, b) in [("ab", "a.b"), ("x", "xé"), ("a", "\u{0430}")] {
            assert!(!same_visible(a.as_bytes(), b.as_bytes()), "{a:?} vs {b:?}");
        }
        // Bytes that are not UTF-8 stand for themselves.
        assert!(!same_visible(b"a\xff", b"a\xfe"));
        assert!(same_visible(b"a\xff \xc3", b"a\xff\xc3"));
    }
}
