//! The charset of a record file, and its text as Unicode. Records carry the charset of the program that
//! wrote them: GB2312 or GBK from Chinese servers, Shift_JIS from Japanese ones, EUC-KR from Korean ones,
//! Big5 from Taiwanese ones, Latin-1 from European editors, UTF-8 from most today. The whole file is
//! decoded before it is parsed, because in Shift_JIS, Big5 and GBK the second byte of a character may be
//! `\` or `]`, which a parser reading bytes would take for SGF's escape or the end of a value.
//!
//! Which charset, in order:
//! 1. A byte-order mark.
//! 2. Well-formed UTF-8, whatever `CA` says: text in the other charsets is almost never well-formed
//!    UTF-8, while files re-saved by an editor keep a `CA` that is no longer true.
//! 3. UTF-8 whose only flaws are characters cut off at the end of a value (servers that shorten names
//!    by bytes): the fragments are dropped.
//! 4. The charset the root's `CA` names, if it is one `encoding_rs` knows and the bytes are well-formed
//!    in it.
//! 5. Detection (`chardetng`): records that say nothing, or say `CA[UTF-8]` and hold GBK.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8};

/// How the charset of a record was settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    /// A byte-order mark at the start of the file.
    ByteOrderMark,
    /// The text is UTF-8 (perhaps with characters cut at the end of a value), whatever `CA` says.
    Utf8,
    /// The root's `CA` property.
    Declared,
    /// Detected from the bytes: no usable `CA`.
    Detected,
}

/// The charset a record was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charset {
    /// Its name as the Encoding Standard spells it (`UTF-8`, `GBK`, `Shift_JIS`, `EUC-KR`, `Big5`,
    /// `windows-1252` for Latin-1, of which it is a superset).
    pub name: &'static str,
    pub source: CharsetSource,
}

impl Charset {
    pub const UTF_8: Charset = Charset {
        name: "UTF-8",
        source: CharsetSource::Utf8,
    };
}

/// The file's text as Unicode, and the charset it was read in.
pub fn decode(bytes: &[u8]) -> (Cow<'_, str>, Charset) {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        let body = bytes.get(bom_len..).unwrap_or_default();
        let (text, _) = encoding.decode_without_bom_handling(body);
        let charset = Charset {
            name: encoding.name(),
            source: CharsetSource::ByteOrderMark,
        };
        return (text, charset);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (Cow::Borrowed(text), Charset::UTF_8);
    }
    if let Some(text) = utf8_with_values_cut(bytes) {
        return (Cow::Owned(text), Charset::UTF_8);
    }
    let declared = declared_label(bytes)
        .and_then(Encoding::for_label)
        .filter(|e| e.is_ascii_compatible() && *e != UTF_8);
    if let Some(encoding) = declared {
        if let Some(text) = encoding.decode_without_bom_handling_and_without_replacement(bytes) {
            let charset = Charset {
                name: encoding.name(),
                source: CharsetSource::Declared,
            };
            return (text, charset);
        }
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let detected = detector.guess(None, chardetng::Utf8Detection::Deny);
    // A declared charset the bytes break is still a better guess than a detected one they break too.
    let encoding = match declared {
        Some(declared)
            if detected
                .decode_without_bom_handling_and_without_replacement(bytes)
                .is_none() =>
        {
            declared
        }
        _ => detected,
    };
    let (text, _) = encoding.decode_without_bom_handling(bytes);
    let source = if Some(encoding) == declared {
        CharsetSource::Declared
    } else {
        CharsetSource::Detected
    };
    let charset = Charset {
        name: encoding.name(),
        source,
    };
    (text, charset)
}

/// UTF-8 text whose only flaws are characters cut short right before a value's closing `]`, with the
/// fragments dropped; `None` when any other flaw shows it is not UTF-8.
fn utf8_with_values_cut(bytes: &[u8]) -> Option<String> {
    let mut text = String::with_capacity(bytes.len());
    let mut chunks = bytes.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        text.push_str(chunk.valid());
        let invalid = chunk.invalid();
        if invalid.is_empty() {
            continue;
        }
        let next_is_close = chunks
            .peek()
            .is_some_and(|next| next.valid().starts_with(']'));
        let cut_short = invalid
            .first()
            .is_some_and(|&lead| invalid.len() < utf8_sequence_len(lead));
        if !(next_is_close && cut_short) {
            return None;
        }
    }
    Some(text)
}

/// The length of the UTF-8 sequence a lead byte starts (0 for a byte that starts none).
fn utf8_sequence_len(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

/// The value of the first `CA` property, read from the bytes before the charset is known. It is found
/// by its text (`CA[` where an identifier may start) rather than by walking the values before it: in
/// Shift_JIS, Big5 and GBK a name's second byte may be `\\` or `]`, and in Latin-1 no byte pairs, so no
/// walk of the bytes can tell where such a value ends before the charset is known.
fn declared_label(bytes: &[u8]) -> Option<&[u8]> {
    let start = game_tree_start(bytes)?;
    let mut at = start;
    loop {
        let found = at + bytes.get(at..)?.windows(3).position(|w| w == b"CA[")?;
        let before = found.checked_sub(1).and_then(|i| bytes.get(i));
        let starts_identifier =
            before.is_some_and(|&b| b == b']' || b == b';' || b.is_ascii_whitespace());
        let value = found + 3;
        if starts_identifier && found >= start {
            let len = bytes.get(value..)?.iter().position(|&b| b == b']')?;
            return bytes.get(value..value + len);
        }
        at = value;
    }
}

/// Where the root node's properties start: after the first `(;` (white space allowed between).
fn game_tree_start(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let open = at + bytes.get(at..)?.iter().position(|&b| b == b'(')?;
        let rest = bytes.get(open + 1..)?;
        let node = rest.iter().position(|b| !b.is_ascii_whitespace())?;
        if rest.get(node) == Some(&b';') {
            return Some(open + 1 + node + 1);
        }
        at = open + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
        let (bytes, _, unmappable) = encoding.encode(text);
        assert!(!unmappable, "{text} in {}", encoding.name());
        bytes.into_owned()
    }

    #[test]
    fn the_declared_charset_is_read_before_the_text_is_known() {
        assert_eq!(
            declared_label(b"(;GM[1]CA[gb2312]PB[x])"),
            Some(&b"gb2312"[..])
        );
        assert_eq!(
            declared_label(b"note (a) (\n ;FF[4]CA[Big5])"),
            Some(&b"Big5"[..])
        );
        assert_eq!(
            declared_label(b"(;AB[aa][bb]CA[EUC-KR])"),
            Some(&b"EUC-KR"[..])
        );
        assert_eq!(declared_label(b"(;C[ABCA[x]])"), None, "not an identifier");
        assert_eq!(declared_label(b"(;GM[1]"), None);
        assert_eq!(declared_label(b"CA[x] (;GM[1])"), None, "before the record");
        // Shift_JIS 十 is 0x8F 0x5C: the `\` is its second byte, not an escape.
        let mut sjis = b"(;PB[".to_vec();
        sjis.extend(encode(encoding_rs::SHIFT_JIS, "十段"));
        sjis.extend(b"]CA[SJIS])");
        assert_eq!(declared_label(&sjis), Some(&b"SJIS"[..]));
    }

    #[test]
    fn each_charset_is_settled_in_its_order() {
        let utf8 = "(;CA[gb2312]PB[柯洁])".as_bytes();
        assert_eq!(decode(utf8).1, Charset::UTF_8, "well-formed UTF-8 wins");
        let mut gbk = b"(;CA[gb2312]PB[".to_vec();
        gbk.extend(encode(encoding_rs::GBK, "柯洁"));
        gbk.extend(b"])");
        let (text, charset) = decode(&gbk);
        assert_eq!(text, "(;CA[gb2312]PB[柯洁])");
        assert_eq!(charset.name, "GBK");
        assert_eq!(charset.source, CharsetSource::Declared);
        let cut = b"(;PB[\xe5\xb0\x8f\xe5\xbf]PW[x])";
        assert_eq!(decode(cut).0, "(;PB[小]PW[x])");
        let broken_then_more = b"(;PB[\xe5\xb0\x8f\xe5\xbfx]PW[x])";
        assert_ne!(decode(broken_then_more).1.source, CharsetSource::Utf8);
        let mut bom = vec![0xEF, 0xBB, 0xBF];
        bom.extend("(;PB[李])".as_bytes());
        assert_eq!(decode(&bom).0, "(;PB[李])");
        assert_eq!(decode(&bom).1.source, CharsetSource::ByteOrderMark);
    }

    #[test]
    fn a_record_that_says_nothing_is_detected() {
        let text = "(;GM[1]FF[4]PB[山田]PW[田中]C[黒の中押し勝ち。序盤から白が苦しい展開でした。])";
        let sjis = encode(encoding_rs::SHIFT_JIS, text);
        let (decoded, charset) = decode(&sjis);
        assert_eq!(decoded, text);
        assert_eq!(charset.name, "Shift_JIS");
        assert_eq!(charset.source, CharsetSource::Detected);
        // Said to be UTF-8, but GBK.
        let text = "(;GM[1]CA[UTF-8]PB[王喆]C[这盘棋黑棋开局下得很好，中盘白棋追不上了。])";
        let gbk = encode(encoding_rs::GBK, text);
        let (decoded, charset) = decode(&gbk);
        assert_eq!(decoded, text);
        assert_eq!(charset.source, CharsetSource::Detected);
    }
}
