//! Usernames in any script: what a name may be, the form it is kept in, and the two keys that find
//! and separate accounts. A name is NFKC-normalized (full-width and other compatibility forms become
//! their ordinary letters) and kept in that form. It is found by its key, the compatibility caseless
//! form (Unicode D146: case folded and NFKC), so any case or width of one's own name logs in; and a
//! new name is refused when its confusable skeleton (UTS #39) matches an existing user's, so "аlice"
//! with a Cyrillic а cannot pass for "alice". The stores index accounts by these keys (and fill them
//! in for accounts made before them); how a name is escaped where it is written (HTML, SGF, URLs)
//! is the writer's business.
//!
//! What a name may hold, checked on its NFKC form: the characters UTS #39's General Security Profile
//! allows in identifiers (letters, digits and marks of the scripts in use today, `_`, `-`, `.`, `'`,
//! `:`, `·` and a few joiners particular to a script, such as the Tibetan tsheg), starting with a
//! letter; so no spaces (none inside either: a name is one word in lists, chat and links), no
//! controls, and no invisible, zero-width or direction-changing characters. It may not mix scripts
//! whose letters pass for each other (UTS #39 "highly restrictive": one script, or Latin with Han
//! and kana, Han and Bopomofo, or Han and Hangul), nor stack marks; its length is counted in
//! graphemes, as a reader counts characters.

use std::fmt;

use caseless::Caseless;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_security::{
    skeleton, GeneralSecurityProfile, RestrictionLevel, RestrictionLevelDetection,
};
use unicode_segmentation::UnicodeSegmentation;

use crate::config::{
    USERNAME_CHARS_MAX, USERNAME_GRAPHEMES_MAX, USERNAME_GRAPHEMES_MIN, USERNAME_MARKS_IN_A_ROW_MAX,
};

/// A username as it is registered and stored, with the keys the stores index it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Username {
    name: String,
    key: String,
    skeleton: String,
}

impl Username {
    /// A name a player asked for, normalized (NFKC) and checked.
    pub fn parse(text: &str) -> Result<Username, UsernameProblem> {
        let name: String = text.nfkc().collect();
        check(&name)?;
        Ok(Username::keyed(name))
    }

    /// A name already stored, keyed as names are keyed now, without checking it: accounts made under
    /// earlier rules keep their names (the stores' migrations use this).
    pub fn stored(name: &str) -> Username {
        Username::keyed(name.to_string())
    }

    fn keyed(name: String) -> Username {
        let key = lookup_key(&name);
        let skeleton = skeleton_key(&name);
        Username {
            name,
            key,
            skeleton,
        }
    }

    /// The name as shown.
    pub fn as_str(&self) -> &str {
        &self.name
    }

    /// What finds the account: unique, and the same for every case and width of the name.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// What a new name may not share with an existing one: names that look alike share it.
    pub fn skeleton(&self) -> &str {
        &self.skeleton
    }
}

impl fmt::Display for Username {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// The key of whatever someone typed as a username (at login, in a link): the compatibility caseless
/// form of Unicode's D146, NFKD(fold(NFKD(fold(NFD(text))))), composed again (NFKC) to keep it short.
pub fn lookup_key(text: &str) -> String {
    text.nfd()
        .default_case_fold()
        .nfkd()
        .default_case_fold()
        .nfkc()
        .collect()
}

/// UTS #39's skeleton of a name as it is shown (where "I" passes for "l", which its case fold "i"
/// would not), then keyed, since names are told apart without regard to case ("0" maps to "O",
/// which passes for "o" too).
fn skeleton_key(name: &str) -> String {
    let skeleton: String = skeleton(name).collect();
    lookup_key(&skeleton)
}

/// Why a name was refused; each says what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsernameProblem {
    Length,
    Space,
    /// A control, or a character that shows nothing or turns the text's direction.
    Invisible(char),
    /// Any other character outside the identifier profile (a symbol, an emoji, an archaic script).
    Character(char),
    NotLetterFirst,
    StackedMarks,
    MixedScripts,
}

impl fmt::Display for UsernameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsernameProblem::Length => write!(
                f,
                "a username is {USERNAME_GRAPHEMES_MIN} to {USERNAME_GRAPHEMES_MAX} characters long"
            ),
            UsernameProblem::Space => f.write_str("a username has no spaces"),
            UsernameProblem::Invisible(c) => write!(
                f,
                "a username cannot hold invisible or direction-changing characters (U+{:04X})",
                u32::from(*c)
            ),
            UsernameProblem::Character(c) => write!(
                f,
                "\"{c}\" (U+{:04X}) cannot be in a username: use letters and digits of any script, _ - and .",
                u32::from(*c)
            ),
            UsernameProblem::NotLetterFirst => f.write_str("a username starts with a letter"),
            UsernameProblem::StackedMarks => write!(
                f,
                "a letter in a username carries at most {USERNAME_MARKS_IN_A_ROW_MAX} accents or marks"
            ),
            UsernameProblem::MixedScripts => f.write_str(
                "a username cannot mix scripts whose letters look alike (such as Latin with Cyrillic or Greek): write it in one",
            ),
        }
    }
}

/// Check a normalized name against the rules in the module's comment.
fn check(name: &str) -> Result<(), UsernameProblem> {
    if let Some(c) = name.chars().find(|c| !c.identifier_allowed()) {
        return Err(if c.is_whitespace() {
            UsernameProblem::Space
        } else if invisible(c) {
            UsernameProblem::Invisible(c)
        } else {
            UsernameProblem::Character(c)
        });
    }
    let graphemes = name.graphemes(true).count();
    if name.chars().count() > USERNAME_CHARS_MAX
        || !(USERNAME_GRAPHEMES_MIN..=USERNAME_GRAPHEMES_MAX).contains(&graphemes)
    {
        return Err(UsernameProblem::Length);
    }
    if !name.chars().next().is_some_and(char::is_alphabetic) {
        return Err(UsernameProblem::NotLetterFirst);
    }
    let mut marks_in_a_row = 0;
    for c in name.chars() {
        marks_in_a_row = if is_combining_mark(c) {
            marks_in_a_row + 1
        } else {
            0
        };
        if marks_in_a_row > USERNAME_MARKS_IN_A_ROW_MAX {
            return Err(UsernameProblem::StackedMarks);
        }
    }
    if !name.check_restriction_level(RestrictionLevel::HighlyRestrictive) {
        return Err(UsernameProblem::MixedScripts);
    }
    Ok(())
}

/// Characters that draw nothing or change the direction of the text around them: controls, and
/// Unicode's default-ignorable code points (bidi controls and marks, zero-width spaces and joiners,
/// soft hyphens, Hangul fillers, variation selectors, tags). Only the message depends on this: none
/// of them is allowed in identifiers anyway.
fn invisible(c: char) -> bool {
    c.is_control()
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

/// A checked name for tests, which make accounts without going through registration.
#[cfg(test)]
pub(crate) fn name(text: &str) -> Username {
    Username::parse(text).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str) -> UsernameProblem {
        Username::parse(text).unwrap_err()
    }

    #[test]
    fn names_in_any_script_are_kept_normalized() {
        for ok in [
            "alice",
            "Bob_2-x",
            "棋圣",
            "李昌镐",
            "이세돌",
            "井山裕太",
            "Ævar",
            "Đặng",
            "Müller",
            "Иван",
            "Σωκράτης",
            "محمد",
            "דוד",
            "नरेन्द्र",
            "กุ้ง",
            "བསྒྲུབས",
            "J.Smith",
            "Go棋手",
            "卡尔·马克思",
        ] {
            assert_eq!(Username::parse(ok).map(|n| n.to_string()), Ok(ok.into()));
        }
        // Full-width and compatibility forms become ordinary letters; accents compose.
        assert_eq!(name("ａｌｉｃｅ").as_str(), "alice");
        assert_eq!(name("ﬁsh").as_str(), "fish");
        assert_eq!(name("e\u{301}lan").as_str(), "élan");
    }

    #[test]
    fn the_key_finds_every_case_and_width_and_the_skeleton_every_lookalike() {
        let alice = name("Alice");
        for variant in ["alice", "ALICE", "ａｌｉｃｅ", "Ａｌｉｃｅ"] {
            assert_eq!(lookup_key(variant), alice.key(), "{variant}");
        }
        assert_eq!(lookup_key("Straße"), lookup_key("STRASSE"));
        assert_eq!(lookup_key("ΣΊΣΥΦΟΣ"), lookup_key("σίσυφος"));
        assert_ne!(
            lookup_key("аlice"),
            alice.key(),
            "a Cyrillic а is another letter"
        );
        // Lookalikes share a skeleton: Cyrillic а, "rn" for "m", digits for letters.
        assert_eq!(Username::stored("аlice").skeleton(), alice.skeleton());
        assert_eq!(name("corn").skeleton(), name("com").skeleton());
        assert_eq!(name("bill").skeleton(), name("bi11").skeleton());
        assert_eq!(name("bill").skeleton(), name("biII").skeleton());
        assert_eq!(name("alice").skeleton(), name("аӏісе").skeleton());
        assert_eq!(name("BOB").skeleton(), name("b0b").skeleton());
        assert_eq!(Username::stored("Аnna").skeleton(), name("anna").skeleton());
        assert_ne!(name("alice").skeleton(), name("alicia").skeleton());
        assert_ne!(name("棋圣").skeleton(), name("棋聖").skeleton());
    }

    #[test]
    fn spaces_controls_invisible_and_bidi_characters_are_refused() {
        for space in [" alice", "alice ", "li wei", "li\u{3000}wei", "a\u{a0}b"] {
            assert_eq!(problem(space), UsernameProblem::Space, "{space:?}");
        }
        for (text, c) in [
            ("ali\u{0}ce", '\u{0}'),
            ("alice\u{7f}", '\u{7f}'),
            ("ali\u{200b}ce", '\u{200b}'),
            ("ali\u{200d}ce", '\u{200d}'),
            ("ali\u{202e}ecil", '\u{202e}'),
            ("ali\u{2067}ce", '\u{2067}'),
            ("alice\u{200f}", '\u{200f}'),
            ("ali\u{feff}ce", '\u{feff}'),
            ("\u{3164}\u{3164}\u{3164}", '\u{1160}'),
        ] {
            assert_eq!(problem(text), UsernameProblem::Invisible(c), "{text:?}");
        }
        assert_eq!(problem("go😀go"), UsernameProblem::Character('😀'));
        assert_eq!(problem("a<b>"), UsernameProblem::Character('<'));
        assert_eq!(problem("a]b"), UsernameProblem::Character(']'));
        assert_eq!(problem("a/b"), UsernameProblem::Character('/'));
    }

    #[test]
    fn keys_are_their_own_keys() {
        for text in [
            "Alice",
            "ＡＬＩＣＥ",
            "Straße",
            "ΣΊΣΥΦΟΣ",
            "Ǆemal",
            "ﬁsh",
            "e\u{301}lan",
            "棋圣",
        ] {
            let key = lookup_key(text);
            assert_eq!(lookup_key(&key), key, "{text}");
        }
    }

    #[test]
    fn length_is_counted_in_graphemes() {
        assert_eq!(problem("a"), UsernameProblem::Length);
        assert_eq!(problem(""), UsernameProblem::Length);
        assert!(Username::parse("ab").is_ok());
        assert!(Username::parse(&"a".repeat(USERNAME_GRAPHEMES_MAX)).is_ok());
        assert_eq!(
            problem(&"a".repeat(USERNAME_GRAPHEMES_MAX + 1)),
            UsernameProblem::Length
        );
        // Twenty Devanagari syllables of six code points each are twenty characters, but more
        // code points than a name holds.
        assert!(Username::parse(&"स्त्री".repeat(10)).is_ok());
        assert_eq!(problem(&"स्त्री".repeat(11)), UsernameProblem::Length);
        assert!(Username::parse(&"棋".repeat(USERNAME_GRAPHEMES_MAX)).is_ok());
    }

    #[test]
    fn names_start_with_a_letter_stack_no_marks_and_keep_to_one_script() {
        for text in ["2bob", "_bob", "-x-", ".ab", "\u{301}ab"] {
            assert_eq!(problem(text), UsernameProblem::NotLetterFirst, "{text:?}");
        }
        // NFKC composes the first mark into the letter (à); three more may follow, not four.
        assert!(Username::parse("a\u{300}\u{301}\u{302}\u{303}b").is_ok());
        assert_eq!(
            problem("a\u{300}\u{301}\u{302}\u{303}\u{304}b"),
            UsernameProblem::StackedMarks
        );
        for mixed in ["аlice", "pаypal", "αlpha", "Иван-ivan"] {
            assert_eq!(problem(mixed), UsernameProblem::MixedScripts, "{mixed:?}");
        }
    }
}
