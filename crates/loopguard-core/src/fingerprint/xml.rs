//! A push tokenizer for the XML that JUnit reports use: start and end tags with
//! attributes, text and CDATA, comments, processing instructions and doctypes skipped.
//! Fed in chunks of any size; keeps at most one tag ([`MAX_TAG_BYTES`]) and one entity.
//! Not a validating parser: a report that is not well-formed still yields what it can.

/// Attributes beyond this are cut (a tag is short; a huge `message` attribute is not
/// needed whole).
pub(crate) const MAX_TAG_BYTES: usize = 64 * 1024;

pub(crate) trait XmlSink {
    fn start(&mut self, name: &str, attrs: &[(String, String)], self_closing: bool);
    fn end(&mut self, name: &str);
    /// Decoded character data, in pieces of any size (a UTF-8 sequence may be split).
    fn text(&mut self, bytes: &[u8]);
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    Text,
    /// Inside `&...;` in text.
    Entity,
    /// After `<`, collecting the tag.
    Tag,
    /// `<!-- ... -->`
    Comment,
    /// `<![CDATA[ ... ]]>`
    CData,
    /// `<? ... ?>` and `<!DOCTYPE ...>`
    Skip,
}

#[derive(Debug, Default)]
pub(crate) struct XmlTokenizer {
    state: State,
    buf: Vec<u8>,
    quote: Option<u8>,
    /// How many of the closing bytes (`-->`, `]]>`) have been seen.
    closing: usize,
}

impl XmlTokenizer {
    pub(crate) fn feed(&mut self, mut data: &[u8], sink: &mut impl XmlSink) {
        while !data.is_empty() {
            data = match self.state {
                State::Text => self.text(data, sink),
                State::Entity => self.entity(data, sink),
                State::Tag => {
                    self.tag_byte(data[0], sink);
                    &data[1..]
                }
                State::Comment => self.comment(data),
                State::CData => self.cdata(data, sink),
                State::Skip => {
                    if data[0] == b'>' {
                        self.state = State::Text;
                    }
                    &data[1..]
                }
            };
        }
    }

    /// Text up to the next `<` or `&`; returns what follows it.
    fn text<'a>(&mut self, data: &'a [u8], sink: &mut impl XmlSink) -> &'a [u8] {
        let Some(i) = memchr::memchr2(b'<', b'&', data) else {
            sink.text(data);
            return &[];
        };
        if i > 0 {
            sink.text(&data[..i]);
        }
        self.buf.clear();
        self.state = if data[i] == b'<' {
            State::Tag
        } else {
            State::Entity
        };
        &data[i + 1..]
    }

    /// One byte of `&...;`: the entity decoded at `;`, a stray ampersand as text.
    fn entity<'a>(&mut self, data: &'a [u8], sink: &mut impl XmlSink) -> &'a [u8] {
        let b = data[0];
        if b == b';' {
            let decoded = decode_entity(&self.buf);
            sink.text(decoded.as_bytes());
            self.state = State::Text;
        } else if self.buf.len() > 12 || b == b'<' || b.is_ascii_whitespace() {
            // Not an entity: a stray ampersand.
            let mut raw = vec![b'&'];
            raw.extend_from_slice(&self.buf);
            sink.text(&raw);
            self.buf.clear();
            if b == b'<' {
                self.state = State::Tag;
            } else {
                sink.text(&[b]);
                self.state = State::Text;
            }
        } else {
            self.buf.push(b);
        }
        &data[1..]
    }

    /// A comment's bytes up to and with `-->`; `self.closing` counts the dashes just seen
    /// (at most 2).
    fn comment<'a>(&mut self, data: &'a [u8]) -> &'a [u8] {
        for (i, &b) in data.iter().enumerate() {
            if b == b'-' {
                self.closing = (self.closing + 1).min(2);
            } else if b == b'>' && self.closing == 2 {
                self.state = State::Text;
                self.closing = 0;
                return &data[i + 1..];
            } else {
                self.closing = 0;
            }
        }
        &[]
    }

    /// CDATA content is text; up to two `]` are held back until it is clear whether they
    /// start the closing `]]>`.
    fn cdata<'a>(&mut self, data: &'a [u8], sink: &mut impl XmlSink) -> &'a [u8] {
        let mut out = Vec::with_capacity(data.len());
        let mut consumed = data.len();
        for (i, &b) in data.iter().enumerate() {
            if b == b']' {
                if self.closing < 2 {
                    self.closing += 1;
                } else {
                    out.push(b']');
                }
            } else if b == b'>' && self.closing == 2 {
                consumed = i + 1;
                self.state = State::Text;
                self.closing = 0;
                break;
            } else {
                out.extend(std::iter::repeat_n(b']', self.closing));
                self.closing = 0;
                out.push(b);
            }
        }
        if !out.is_empty() {
            sink.text(&out);
        }
        &data[consumed..]
    }

    fn tag_byte(&mut self, b: u8, sink: &mut impl XmlSink) {
        if self.buf.is_empty() && self.quote.is_none() {
            match b {
                b'?' => {
                    self.state = State::Skip;
                    return;
                }
                b'!' => {
                    self.buf.push(b);
                    return;
                }
                _ => {}
            }
        }
        if self.buf.first() == Some(&b'!') {
            self.buf.push(b);
            if self.buf == b"!--" {
                self.state = State::Comment;
                self.closing = 0;
            } else if self.buf == b"![CDATA[" {
                self.state = State::CData;
                self.closing = 0;
            } else if !b"![CDATA[".starts_with(&self.buf) && !b"!--".starts_with(&self.buf) {
                self.state = State::Skip;
                if b == b'>' {
                    self.state = State::Text;
                }
            }
            return;
        }
        match self.quote {
            Some(q) if b == q => self.quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => self.quote = Some(b),
            None if b == b'>' => {
                let tag = std::mem::take(&mut self.buf);
                self.state = State::Text;
                emit_tag(&tag, sink);
                return;
            }
            None => {}
        }
        if self.buf.len() < MAX_TAG_BYTES {
            self.buf.push(b);
        }
    }
}

fn emit_tag(tag: &[u8], sink: &mut impl XmlSink) {
    let tag = String::from_utf8_lossy(tag);
    let tag = tag.trim();
    if let Some(name) = tag.strip_prefix('/') {
        sink.end(name.trim());
        return;
    }
    let (body, self_closing) = match tag.strip_suffix('/') {
        Some(body) => (body, true),
        None => (tag, false),
    };
    let name_end = body.find(|c: char| c.is_whitespace()).unwrap_or(body.len());
    let name = &body[..name_end];
    let attrs = parse_attrs(&body[name_end..]);
    sink.start(name, &attrs, self_closing);
}

fn parse_attrs(mut s: &str) -> Vec<(String, String)> {
    let mut attrs = Vec::new();
    loop {
        s = s.trim_start();
        let Some(eq) = s.find('=') else { break };
        let name = s[..eq].trim().to_string();
        let rest = s[eq + 1..].trim_start();
        let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let rest = &rest[1..];
        let (value, after) = match rest.find(q) {
            Some(end) => (&rest[..end], &rest[end + 1..]),
            None => (rest, ""),
        };
        attrs.push((name, decode_entities(value)));
        s = after;
    }
    attrs
}

fn decode_entity(name: &[u8]) -> String {
    let name = String::from_utf8_lossy(name);
    match name.as_ref() {
        "lt" => "<".into(),
        "gt" => ">".into(),
        "amp" => "&".into(),
        "quot" => "\"".into(),
        "apos" => "'".into(),
        n => {
            let code = if let Some(hex) = n.strip_prefix("#x").or_else(|| n.strip_prefix("#X")) {
                u32::from_str_radix(hex, 16).ok()
            } else {
                n.strip_prefix('#').and_then(|d| d.parse().ok())
            };
            match code.and_then(char::from_u32) {
                Some(c) => c.to_string(),
                None => format!("&{n};"),
            }
        }
    }
}

pub(crate) fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find(';').filter(|&e| e <= 12) {
            Some(e) => {
                out.push_str(&decode_entity(&after.as_bytes()[..e]));
                rest = &after[e + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Events(Vec<String>, Vec<u8>);

    impl Events {
        fn flush(&mut self) {
            if !self.1.is_empty() {
                let t = String::from_utf8_lossy(&self.1).into_owned();
                self.0.push(format!("text {t:?}"));
                self.1.clear();
            }
        }
    }

    impl XmlSink for Events {
        fn start(&mut self, name: &str, attrs: &[(String, String)], self_closing: bool) {
            self.flush();
            self.0
                .push(format!("start {name} {attrs:?} {self_closing}"));
        }
        fn end(&mut self, name: &str) {
            self.flush();
            self.0.push(format!("end {name}"));
        }
        fn text(&mut self, bytes: &[u8]) {
            self.1.extend_from_slice(bytes);
        }
    }

    fn events(doc: &[u8], chunk: usize) -> Vec<String> {
        let mut t = XmlTokenizer::default();
        let mut e = Events::default();
        for c in doc.chunks(chunk) {
            t.feed(c, &mut e);
        }
        e.flush();
        e.0
    }

    const DOC: &[u8] = b"<?xml version=\"1.0\"?>\n<!-- a -- comment --><!DOCTYPE x><a k=\"v &amp; &lt;w&gt; &#x41;\" j='q>r'>one &apos;two&apos; &bogus three\xc3\xa9<b/><![CDATA[raw <x> ]] ]]]></a>";

    #[test]
    fn tokens() {
        let got = events(DOC, 1000);
        assert_eq!(
            got,
            [
                "text \"\\n\"",
                "start a [(\"k\", \"v & <w> A\"), (\"j\", \"q>r\")] false",
                "text \"one 'two' &bogus three\u{e9}\"",
                "start b [] true",
                "text \"raw <x> ]] ]\"",
                "end a",
            ]
        );
    }

    #[test]
    fn any_chunking_gives_the_same_tokens() {
        let whole = events(DOC, 1000);
        for size in 1..16 {
            assert_eq!(events(DOC, size), whole, "chunk size {size}");
        }
    }
}
