//! A JSON document as a person wrote it: objects keep their keys in the file's order, and
//! the file's indentation, line endings and final newline are written back the same way.
//! For the files loopguard edits but does not own (the coding agents' settings, see
//! [`crate::agents_config`]): `serde_json::Value` sorts keys, and its `preserve_order`
//! feature would change the key order of every JSON document loopguard prints.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Number;

/// A JSON value whose objects keep their keys in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Json>),
    Object(Object),
}

/// An object's members, in order. A key given twice keeps its first place and its last
/// value, as `serde_json` reads it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object(Vec<(String, Json)>);

impl Object {
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of `key`, inserted last (as `make` gives it) when there is none.
    pub fn entry(&mut self, key: &str, make: impl FnOnce() -> Json) -> &mut Json {
        let at = match self.0.iter().position(|(k, _)| k == key) {
            Some(at) => at,
            None => {
                self.0.push((key.to_owned(), make()));
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }

    /// Sets `key` to `value`: in its place when it is there, last otherwise.
    pub fn insert(&mut self, key: &str, value: Json) {
        *self.entry(key, || Json::Null) = value;
    }

    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(at).1)
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&str, &Json) -> bool) {
        self.0.retain(|(k, v)| keep(k, v));
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Json> {
        self.0.iter_mut().map(|(_, v)| v)
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl<const N: usize> From<[(&str, Json); N]> for Object {
    fn from(members: [(&str, Json); N]) -> Object {
        Object::from_iter(members)
    }
}

impl<'k> FromIterator<(&'k str, Json)> for Object {
    fn from_iter<I: IntoIterator<Item = (&'k str, Json)>>(members: I) -> Object {
        Object(
            members
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    }
}

impl Json {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Json>> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Json>> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object()?.get(key)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.as_object_mut()?.get_mut(key)
    }

    pub fn string(s: impl Into<String>) -> Json {
        Json::String(s.into())
    }

    pub fn number(n: u64) -> Json {
        Json::Number(n.into())
    }
}

/// How a file was written, to write it back the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// One level of indentation (`None`: everything on one line).
    pub indent: Option<String>,
    /// On one line: a space after each `:` and `,` (`{"a": 1, "b": 2}`).
    pub spaced: bool,
    pub crlf: bool,
    pub final_newline: bool,
}

impl Default for Layout {
    /// A new file: two spaces, `\n`, a final newline.
    fn default() -> Self {
        Layout {
            indent: Some("  ".to_owned()),
            spaced: false,
            crlf: false,
            final_newline: true,
        }
    }
}

impl Layout {
    /// The layout of `text`: the indentation of its first indented line (a tab, or so
    /// many spaces), its line endings, whether it ends with a newline.
    pub fn of(text: &str) -> Layout {
        let body = text.trim_end();
        let indent = if body.contains('\n') {
            let first = body
                .lines()
                .skip(1)
                .map(|l| {
                    let w = l.len() - l.trim_start_matches([' ', '\t']).len();
                    &l[..w]
                })
                .find(|w| !w.is_empty());
            Some(match first {
                Some(w) if w.starts_with('\t') => "\t".to_owned(),
                Some(w) => w.to_owned(),
                None => "  ".to_owned(),
            })
        } else {
            None
        };
        Layout {
            spaced: indent.is_none() && (body.contains("\": ") || body.contains(", ")),
            indent,
            crlf: text.contains("\r\n"),
            final_newline: text.ends_with('\n'),
        }
    }

    /// `doc` written in this layout.
    pub fn write(&self, doc: &Json) -> String {
        let mut out = Vec::new();
        let written = match &self.indent {
            Some(indent) => {
                let f = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                doc.serialize(&mut serde_json::Serializer::with_formatter(&mut out, f))
            }
            None if self.spaced => doc.serialize(&mut serde_json::Serializer::with_formatter(
                &mut out, Spaced,
            )),
            None => doc.serialize(&mut serde_json::Serializer::new(&mut out)),
        };
        written.expect("a JSON document serialises");
        let mut text = String::from_utf8(out).expect("serde_json writes UTF-8");
        if self.final_newline {
            text.push('\n');
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        text
    }
}

/// One line with a space after each `:` and `,`.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(t) => s.serialize_str(t),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(o) => {
                let mut map = s.serialize_map(Some(o.0.len()))?;
                for (k, v) in &o.0 {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct Any;
        impl<'de> Visitor<'de> for Any {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
                Ok(Json::Number(n.into()))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
                Ok(Json::Number(n.into()))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
                Number::from_f64(n)
                    .map(Json::Number)
                    .ok_or_else(|| E::custom("a number JSON cannot hold"))
            }
            fn visit_str<E>(self, s: &str) -> Result<Json, E> {
                Ok(Json::String(s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<Json, E> {
                Ok(Json::String(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut o = Object::default();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    o.insert(&k, v);
                }
                Ok(Json::Object(o))
            }
        }
        d.deserialize_any(Any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_back_is_the_file() {
        for text in [
            "{\n  \"zeta\": 1,\n  \"alpha\": [\n    true,\n    null\n  ],\n  \"mid\": {\n    \"b\": \"x\",\n    \"a\": 1.5\n  }\n}\n",
            "{\n    \"model\": \"opus\",\n    \"hooks\": {}\n}",
            "{\r\n\t\"b\": 1,\r\n\t\"a\": 2\r\n}\r\n",
            "{\"b\":1,\"a\":{\"z\":[],\"y\":{}}}\n",
            "{\"b\": 1, \"a\": [true, null], \"c\": {\"y\": \"x\"}}\n",
        ] {
            let doc: Json = serde_json::from_str(text).unwrap();
            assert_eq!(Layout::of(text).write(&doc), text);
        }
    }

    #[test]
    fn members_keep_their_place() {
        let mut doc: Json = serde_json::from_str(r#"{"b": 1, "a": 2, "b": 3}"#).unwrap();
        let o = doc.as_object_mut().unwrap();
        assert_eq!(o.keys().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(o.get("b"), Some(&Json::number(3)));
        o.entry("c", || Json::Null);
        o.insert("a", Json::Bool(true));
        assert_eq!(
            serde_json::to_string(&doc).unwrap(),
            r#"{"b":3,"a":true,"c":null}"#
        );
    }
}
