//! Cheap reads of a text frame before, or instead of, parsing it: a frame dropped for flooding or for
//! its size still names its request's `id`, so the client waiting on that request hears why; and its
//! `type` says which size limit it is held to (a study's SGF file may be larger than any other
//! message). Both are read without building the message: the frame's top-level keys are walked in
//! order, every value before the key sought is skipped without allocating, and the walk stops there.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::Deserializer;
use tengen_protocol::RequestId;

/// The request id of a frame that is a JSON object with an unsigned integer `id`, if it can be read
/// before anything malformed. (A frame cut short or broken after its `id` still gives the id.)
pub(crate) fn request_id(text: &str) -> Option<RequestId> {
    let mut found = None;
    let mut reader = serde_json::Deserializer::from_str(text);
    // The walk ends with an error whenever it stops early (at `id`, or at anything malformed); what
    // it found before that is the answer either way.
    let _ = reader.deserialize_map(IdSeeker { found: &mut found });
    found.map(RequestId)
}

/// The `type` of a frame that is a JSON object with a string `type`, if it can be read before
/// anything malformed. Types are short; a longer string is no type (and is not copied).
pub(crate) fn message_type(text: &str) -> Option<String> {
    let mut found = None;
    let mut reader = serde_json::Deserializer::from_str(text);
    let _ = reader.deserialize_map(TypeSeeker { found: &mut found });
    found
}

/// Walks an object's keys until `id`, recording its value in `found`.
struct IdSeeker<'a> {
    found: &'a mut Option<u64>,
}

impl<'de> Visitor<'de> for IdSeeker<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(is_id) = map.next_key_seed(KeyIsId)? {
            if is_id {
                *self.found = map.next_value::<u64>().ok();
                return Ok(());
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Walks an object's keys until `type`, recording its value in `found`.
struct TypeSeeker<'a> {
    found: &'a mut Option<String>,
}

impl<'de> Visitor<'de> for TypeSeeker<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<ShortKey>()? {
            if key.0.as_deref() == Some("type") {
                *self.found = map.next_value::<ShortKey>().ok().and_then(|k| k.0);
                return Ok(());
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Longest key or `type` value copied out of a frame: every one of the protocol's is shorter.
const SHORT_KEY_CHARS_MAX: usize = 32;

/// A string kept only when it is short (`None` otherwise), so a hostile key costs no copy.
struct ShortKey(Option<String>);

impl<'de> serde::Deserialize<'de> for ShortKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ShortKey, D::Error> {
        deserializer.deserialize_str(ShortKeyVisitor)
    }
}

struct ShortKeyVisitor;

impl<'de> Visitor<'de> for ShortKeyVisitor {
    type Value = ShortKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<ShortKey, E> {
        Ok(ShortKey(
            (text.len() <= SHORT_KEY_CHARS_MAX).then(|| text.to_string()),
        ))
    }
}

/// A map key, read only as far as "is it `id`?" (escaped keys are not unescaped: they are not `id`
/// as any client writes it).
struct KeyIsId;

impl<'de> DeserializeSeed<'de> for KeyIsId {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIsId {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(key == "id")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_wherever_it_stands_and_only_at_the_top() {
        assert_eq!(request_id(r#"{"type":"play","id":7}"#), Some(RequestId(7)));
        assert_eq!(
            request_id(r#"{"id":8,"type":"chat","text":"x"}"#),
            Some(RequestId(8))
        );
        // Cut short after the id (as a frame read in part would be).
        assert_eq!(
            request_id(r#"{"id":9,"type":"chat","text":"xxxx"#),
            Some(RequestId(9))
        );
        let nested = r#"{"type":"chat","channel":{"id":3},"text":"\"id\":4","id":5}"#;
        assert_eq!(request_id(nested), Some(RequestId(5)));
        assert_eq!(request_id(r#"{"type":"chat","text":"\"id\":4"}"#), None);
        assert_eq!(request_id(r#"{"id":"7"}"#), None);
        assert_eq!(request_id(r#"{"id":-1}"#), None);
        assert_eq!(request_id("[1,2]"), None);
        assert_eq!(request_id("not json"), None);
        assert_eq!(request_id(""), None);
    }

    #[test]
    fn the_type_is_read_wherever_it_stands_and_only_at_the_top() {
        let load = r#"{"id":3,"sgf_base64":"KDs=","type":"study_load_sgf"}"#;
        assert_eq!(message_type(load).as_deref(), Some("study_load_sgf"));
        let nested = r#"{"spec":{"type":"x"},"type":"create_event"}"#;
        assert_eq!(message_type(nested).as_deref(), Some("create_event"));
        assert_eq!(message_type(r#"{"type":7}"#), None);
        assert_eq!(
            message_type(&format!(r#"{{"type":"{}"}}"#, "x".repeat(40))),
            None
        );
        assert_eq!(message_type("[\"type\"]"), None);
        assert_eq!(message_type(r#"{"type":"cut"#), None);
    }
}
