//! A light JSON tree for reading records: objects keep their keys in order
//! in a slice, and strings without escapes borrow from the line they were
//! read from. Its nodes live in an arena the reader empties before each
//! line, so a line's tree costs no allocation per object or array and
//! nothing to drop. Reading a native log into it costs less than a
//! `serde_json::Value` (no allocation per key, no ordered map per object).
//!
//! Field readers work on both trees through [`Node`], so the inputs that
//! build `serde_json::Value`s (MCP traces, boards, prompts) share them.

mod scan;

use std::fmt;

use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// How many bytes the tree of a line of `len` bytes may take in its arena:
/// the line's size and 8 MiB more. A record is a few kilobytes, its tree
/// about as large, and a long one is long for its texts, which the tree
/// borrows; a line of millions of tiny values would take ten times its
/// size, which a reader of logs of any size cannot afford.
pub fn tree_limit(len: usize) -> usize {
    (8 << 20) + len
}

/// The message of the error a line whose tree would pass [`tree_limit`]
/// is read with.
pub const TOO_MANY_VALUES: &str = "more values than the tree of one record may hold";

/// A JSON value read from a line. Its arrays, objects and escaped strings
/// live in the arena it was read into ([`J::parse`]), so dropping it costs
/// nothing; strings without escapes borrow from the line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum J<'a> {
    Null,
    Bool(bool),
    /// A number; `int` when it is a whole number that fits an `i64`.
    Num {
        int: Option<i64>,
    },
    Str(&'a str),
    Arr(&'a [J<'a>]),
    /// Keys in the order written; a repeated key's last value wins.
    Obj(&'a [(&'a str, J<'a>)]),
}

/// What a JSON node holds, for the field readers.
pub enum View<'v, N> {
    Null,
    Bool(bool),
    Num { int: Option<i64> },
    Str(&'v str),
    Arr(&'v [N]),
    Obj,
}

/// A JSON tree the field readers can walk.
pub trait Node: Sized {
    /// The value of `key` if this is an object that has it.
    fn field(&self, key: &str) -> Option<&Self>;
    fn view(&self) -> View<'_, Self>;

    fn is_null(&self) -> bool {
        matches!(self.view(), View::Null)
    }

    /// "a string", "an object", ...: for messages about wrong types.
    fn kind_name(&self) -> &'static str {
        match self.view() {
            View::Null => "null",
            View::Bool(_) => "a boolean",
            View::Num { .. } => "a number",
            View::Str(_) => "a string",
            View::Arr(_) => "an array",
            View::Obj => "an object",
        }
    }
}

impl Node for J<'_> {
    fn field(&self, key: &str) -> Option<&Self> {
        match self {
            J::Obj(pairs) => pairs.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn view(&self) -> View<'_, Self> {
        match self {
            J::Null => View::Null,
            J::Bool(b) => View::Bool(*b),
            J::Num { int } => View::Num { int: *int },
            J::Str(s) => View::Str(s),
            J::Arr(items) => View::Arr(items),
            J::Obj(_) => View::Obj,
        }
    }
}

impl Node for Value {
    fn field(&self, key: &str) -> Option<&Self> {
        self.as_object().and_then(|o| o.get(key))
    }

    fn view(&self) -> View<'_, Self> {
        match self {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Number(n) => View::Num { int: n.as_i64() },
            Value::String(s) => View::Str(s),
            Value::Array(items) => View::Arr(items),
            Value::Object(_) => View::Obj,
        }
    }
}

impl<'a> J<'a> {
    /// The JSON value `text` holds (and nothing after it but whitespace),
    /// as `serde_json::from_str` reads it: the same errors at the same
    /// places, nesting limit included. Its nodes are allocated in `arena`.
    /// Most lines are read directly ([`J::read_direct`]); what that reader
    /// gives up on is read again by `serde_json`, which says what is wrong.
    pub fn parse(text: &'a str, arena: &'a Bump) -> serde_json::Result<J<'a>> {
        match J::read_direct(text, arena) {
            Some(value) => Ok(value),
            None => J::parse_with_serde(text, arena),
        }
    }

    /// `text` read in one direct pass when it is well-formed and plain
    /// enough ([`scan`]), else `None`; what it is then is for
    /// [`J::parse_with_serde`] to say.
    pub fn read_direct(text: &'a str, arena: &'a Bump) -> Option<J<'a>> {
        scan::parse(text, arena)
    }

    /// [`J::parse`] through `serde_json` alone.
    pub fn parse_with_serde(text: &'a str, arena: &'a Bump) -> serde_json::Result<J<'a>> {
        let mut de = serde_json::Deserializer::from_str(text);
        let value = In {
            arena,
            limit: tree_limit(text.len()),
        }
        .deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    }

    /// The same value as a `serde_json::Value` (numbers that are not whole
    /// become null: nothing reads them).
    pub fn to_value(&self) -> Value {
        match self {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Num { int: Some(i) } => Value::from(*i),
            J::Num { int: None } => Value::Null,
            J::Str(s) => Value::String(s.to_string()),
            J::Arr(items) => Value::Array(items.iter().map(J::to_value).collect()),
            J::Obj(pairs) => Value::Object(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

/// Reads a value into an arena, as long as the arena holds at most
/// `limit` bytes.
#[derive(Clone, Copy)]
struct In<'a> {
    arena: &'a Bump,
    limit: usize,
}

impl In<'_> {
    fn over<E: serde::de::Error>(&self) -> Result<(), E> {
        match self.arena.allocated_bytes() > self.limit {
            true => Err(E::custom(TOO_MANY_VALUES)),
            false => Ok(()),
        }
    }
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for In<'a> {
    type Value = J<'a>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<J<'a>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for In<'a> {
    type Value = J<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<J<'a>, E> {
        Ok(J::Null)
    }
    fn visit_none<E>(self) -> Result<J<'a>, E> {
        Ok(J::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<J<'a>, E> {
        Ok(J::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<J<'a>, E> {
        Ok(J::Num { int: Some(i) })
    }
    fn visit_u64<E>(self, u: u64) -> Result<J<'a>, E> {
        Ok(J::Num {
            int: i64::try_from(u).ok(),
        })
    }
    fn visit_f64<E>(self, _: f64) -> Result<J<'a>, E> {
        Ok(J::Num { int: None })
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<J<'a>, E> {
        Ok(J::Str(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<J<'a>, E> {
        Ok(J::Str(self.arena.alloc_str(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J<'a>, A::Error> {
        let mut items = BumpVec::with_capacity_in(seq.size_hint().unwrap_or(0).min(64), self.arena);
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
            self.over()?;
        }
        Ok(J::Arr(items.into_bump_slice()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J<'a>, A::Error> {
        let cap = map.size_hint().unwrap_or(0).clamp(4, 64);
        let mut pairs = BumpVec::with_capacity_in(cap, self.arena);
        while let Some(k) = map.next_key_seed(Key(self.arena))? {
            pairs.push((k, map.next_value_seed(self)?));
            self.over()?;
        }
        Ok(J::Obj(pairs.into_bump_slice()))
    }
}

/// Reads an object key: borrowed when it has no escapes, else in the arena.
#[derive(Clone, Copy)]
struct Key<'a>(&'a Bump);

impl<'de: 'a, 'a> DeserializeSeed<'de> for Key<'a> {
    type Value = &'a str;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<&'a str, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for Key<'a> {
    type Value = &'a str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<&'a str, E> {
        Ok(s)
    }
    fn visit_str<E>(self, s: &str) -> Result<&'a str, E> {
        Ok(self.0.alloc_str(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrows_plain_strings_and_keys() {
        let text = r#"{"fn":"say","args":{"text":"Hi \"there\"","n":[1,-2,3.5,18446744073709551615]},"k":null,"fn":"x"}"#;
        let arena = Bump::new();
        let j = J::parse(text, &arena).unwrap();
        let J::Obj(pairs) = &j else { panic!() };
        // Borrowed from the line, not copied.
        assert_eq!(pairs[0].0.as_ptr(), text[2..].as_ptr());
        // The last of a repeated key wins, as in serde_json.
        assert_eq!(j.field("fn"), Some(&J::Str("x")));
        let args = j.field("args").unwrap();
        assert_eq!(args.field("text"), Some(&J::Str("Hi \"there\"")));
        let View::Arr(n) = args.field("n").unwrap().view() else {
            panic!()
        };
        let ints: Vec<Option<i64>> = n
            .iter()
            .map(|v| match v.view() {
                View::Num { int } => int,
                _ => panic!(),
            })
            .collect();
        assert_eq!(ints, [Some(1), Some(-2), None, None]);
        assert!(j.field("k").unwrap().is_null());
        assert_eq!(j.to_value(), {
            let mut v: Value = serde_json::from_str(text).unwrap();
            v["args"]["n"][2] = Value::Null;
            v["args"]["n"][3] = Value::Null;
            v
        });
    }

    #[test]
    fn a_tree_stops_at_its_limit_on_either_reader() {
        let arena = Bump::new();
        // 2 bytes a value: the tree would be a dozen times the line.
        let dense = format!("[{}0]", "0,".repeat(1 << 20));
        let e = J::parse(&dense, &arena).unwrap_err();
        assert!(e.to_string().starts_with(TOO_MANY_VALUES), "{e}");
        assert!(J::read_direct(&dense, &Bump::new()).is_none());
        // Objects too, and what the direct reader leaves to serde_json
        // (a number it does not read) stops as well.
        let objects = format!("[{}1e999]", "{},".repeat(1 << 20));
        let e = J::parse(&objects, &Bump::new()).unwrap_err();
        assert!(e.to_string().starts_with(TOO_MANY_VALUES), "{e}");
        // Below the limit, the same line is read, and not left to serde_json.
        let fewer = format!("[{}0]", "0,".repeat(1 << 16));
        assert!(J::read_direct(&fewer, &Bump::new()).is_some());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let arena = Bump::new();
        let deep = "[".repeat(100_000);
        assert!(J::parse(&deep, &arena).is_err());
        let closed = format!("{}{}", deep, "]".repeat(100_000));
        let e = J::parse(&closed, &arena).unwrap_err();
        assert!(e.to_string().contains("recursion limit"));
    }
}
