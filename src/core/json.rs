//! JSON as callint writes it: no character that could steer a terminal
//! appears raw in it.

use serde_json::ser::{Formatter, PrettyFormatter};

use crate::core::escape;

/// `value` as pretty-printed JSON in which no character that
/// [`escape::is_unsafe`] flags appears raw: serde_json escapes C0 controls
/// itself; DEL, C1 controls and bidirectional overrides are written as
/// `\uXXXX` escapes too. The decoded strings are unchanged.
pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    safe_json(value, PrettyFormatter::new())
}

/// As [`to_json`], on one line (JSON Lines).
pub fn to_json_line<T: serde::Serialize>(value: &T) -> String {
    safe_json(value, serde_json::ser::CompactFormatter)
}

fn safe_json<T: serde::Serialize, F: Formatter>(value: &T, formatter: F) -> String {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, SafeFormatter(formatter));
    if value.serialize(&mut ser).is_err() {
        return "{}\n".into();
    }
    buf.push(b'\n');
    // The serializer writes UTF-8 only.
    String::from_utf8(buf).unwrap_or_default()
}

struct SafeFormatter<F>(F);

macro_rules! delegate {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $name<W: ?Sized + std::io::Write>(&mut self, w: &mut W $(, $arg: $ty)*) -> std::io::Result<()> {
            self.0.$name(w $(, $arg)*)
        }
    )*};
}

impl<F: Formatter> Formatter for SafeFormatter<F> {
    delegate! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        end_object_key();
        begin_object_value();
        end_object_value();
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if escape::is_unsafe(c) {
                w.write_all(&fragment.as_bytes()[start..i])?;
                // Every unsafe character is in the Basic Multilingual Plane.
                write!(w, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
}
