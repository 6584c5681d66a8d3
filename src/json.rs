//! Strict JSON reading for files from disk: duplicate object keys are an error (serde_json
//! would silently keep the last), nesting is bounded, and non-UTF-8 is reported, never guessed.

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Maximum nesting depth accepted (serde_json's own recursion limit is 128).
pub const MAX_DEPTH: usize = 64;

/// Why a JSON document was refused.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// Not UTF-8.
    #[error("not valid UTF-8 at byte {0}")]
    NotUtf8(usize),
    /// Syntax, duplicate key, depth, trailing data.
    #[error("{0}")]
    Syntax(#[from] serde_json::Error),
}

/// Parses `bytes` as one JSON value, refusing duplicate keys, nesting deeper than
/// [`MAX_DEPTH`], invalid UTF-8 and trailing data. Object key order is kept.
///
/// # Errors
/// [`JsonError`] with the position serde_json reports.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, JsonError> {
    let text = std::str::from_utf8(bytes).map_err(|e| JsonError::NotUtf8(e.valid_up_to()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictSeed { depth: 0 }.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

struct StrictSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for StrictSeed {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor { depth: self.depth })
    }
}

struct StrictVisitor {
    depth: usize,
}

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if self.depth >= MAX_DEPTH {
            return Err(A::Error::custom(format!("nesting deeper than {MAX_DEPTH}")));
        }
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictSeed { depth: self.depth + 1 })? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        if self.depth >= MAX_DEPTH {
            return Err(A::Error::custom(format!("nesting deeper than {MAX_DEPTH}")));
        }
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(A::Error::custom(format!("duplicate key {key:?}")));
            }
            let v = map.next_value_seed(StrictSeed { depth: self.depth + 1 })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_bad_documents() {
        assert!(parse_strict(br#"{"a":1,"a":2}"#).is_err());
        assert!(parse_strict(b"{\"a\":\xff}").is_err());
        assert!(parse_strict(&[b'['; 200]).is_err());
        assert!(parse_strict(br#"{"a":1} x"#).is_err());
        assert!(parse_strict(br#"{"a":1"#).is_err());
        let v = parse_strict(br#"{"b":1,"a":[1e400]}"#);
        assert!(v.is_err(), "1e400 overflows f64");
        let v = parse_strict(br#"{"b":1,"a":{"c":null}}"#).expect("valid");
        assert_eq!(v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()), Some(vec!["b".into(), "a".into()]));
    }
}
