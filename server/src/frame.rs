//! Cheap reads of a text frame the session will not parse: a frame dropped for flooding or for its
//! size still names its request's `id`, so the client waiting on that request hears why. The id is
//! read without building the message: the frame's top-level keys are walked in order, every value
//! before `id` is skipped without allocating, and the walk stops at `id`.

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
}
