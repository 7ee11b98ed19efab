//! A Go game record read from an SGF tree: the game information of the root, the setup stones, and the
//! moves of the main line, ready to replay through the engine; and the reverse, a record built from a
//! finished `Game` for download.
//!
//! What this does with irregular records, deliberately:
//! - A missing `SZ` means 19 (the SGF default); a size outside 2..=25 or a rectangular board is an error.
//! - `KM` in points, scaled by 100, or in stones is read as `Komi::parse_sgf` says; an unreadable `KM` or
//!   `HA` (`HA[7.5]`) is ignored with a warning, and the handicap is then taken from the setup stones.
//!   Some programs write them, and the names, in a node after the root: any node before the first move
//!   counts, the first that says it.
//! - The file is decoded from its charset first (`charset`: a BOM, UTF-8, `CA`, or detection). A value
//!   that is still not UTF-8 (a tree parsed from bytes directly) is decoded as GB18030 (what Chinese
//!   servers write), else lossily: a name never stops the moves from loading.
//! - `RU` names the ko rule the record is replayed under (`GameInfo::ko_rule`): Japanese and Korean
//!   rules allow a repeated whole-board position (a triple ko ends such a game without result, it is
//!   not an illegal move), Chinese rules forbid any, AGA and New Zealand rules forbid it with the same
//!   player to move.
//! - Setup (`AB`/`AW`/`AE`) before the first move, in the root or after it, builds the start position;
//!   setup after a move is an error, since it is no longer a game the engine can check.
//! - `B[]` and `B[tt]` (on boards up to 19x19) are passes; a point off the board is an error.
//! - Variations are kept in the tree (and written back out); only the main line is replayed.
//! - Legality is checked by `replay`, not here, so a record with an illegal move still loads and says
//!   where it goes wrong.

use super::charset::{self, Charset};
use super::parse::MAX_SGF_BYTES;
use super::tree::{SgfNode, SgfTree, Value};
use super::{parse_tree, Position, SgfError};
use crate::color::Color;
use crate::error::{IllegalMove, SetupError};
use crate::game::{Game, HandicapPlacement, KoRule, Phase, Rules};
use crate::point::{Move, Point, MAX_SIZE, MIN_SIZE};
use crate::score::{GameResult, Komi, WinBy};
use std::fmt;

/// The game information of a record's root, as text for people plus the numbers the engine needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    pub size: u8,
    pub komi: Komi,
    pub handicap: u8,
    /// `RU`, as written (many area-scored games say `Japanese`).
    pub rules: Option<String>,
    pub black: Option<String>,
    pub white: Option<String>,
    pub black_rank: Option<String>,
    pub white_rank: Option<String>,
    pub date: Option<String>,
    pub event: Option<String>,
    /// `RE`, as written; `GameRecord::result` is its meaning where it has one.
    pub result: Option<String>,
    /// `TM`: main time in seconds, as written.
    pub time_limit: Option<String>,
    /// `OT`: the overtime system, as written (`3x30 byo-yomi`).
    pub overtime: Option<String>,
    /// `GN`: the game's name.
    pub name: Option<String>,
    /// `PC`: where it was played.
    pub place: Option<String>,
    pub comment: Option<String>,
}

impl Default for GameInfo {
    fn default() -> GameInfo {
        GameInfo {
            size: 19,
            komi: Komi::from_half_points(0),
            handicap: 0,
            rules: None,
            black: None,
            white: None,
            black_rank: None,
            white_rank: None,
            date: None,
            event: None,
            result: None,
            time_limit: None,
            overtime: None,
            name: None,
            place: None,
            comment: None,
        }
    }
}

impl GameInfo {
    /// The ko rule `RU` names, when it names rules Tengen knows: Japanese and Korean rules forbid only
    /// the immediate recapture of a ko, Chinese and Tromp-Taylor rules any earlier whole-board
    /// position, AGA and New Zealand rules an earlier position with the same player to move. `None`
    /// for no `RU`, or rules it does not know (Ing's ko rules are neither).
    pub fn ko_rule(&self) -> Option<KoRule> {
        let written = self.rules.as_deref()?.trim().to_lowercase();
        let is = |names: &[&str]| names.iter().any(|name| written == *name);
        let starts = |names: &[&str]| names.iter().any(|name| written.starts_with(name));
        if starts(&["japan", "korea", "日本", "韓国", "한국", "일본"])
            || is(&["jp", "ja", "kr", "ko", "kor"])
        {
            Some(KoRule::Simple)
        } else if starts(&["chin", "tromp", "中国", "中國"]) || is(&["cn", "zh", "tt"]) {
            Some(KoRule::Positional)
        } else if starts(&["aga", "american", "new zealand", "newzealand"]) || is(&["nz"]) {
            Some(KoRule::Situational)
        } else {
            None
        }
    }
}

/// One move of the main line with what the record says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMove {
    pub color: Color,
    /// A play or a pass (records never hold resignation as a move).
    pub mv: Move,
    /// `BL`/`WL`: the mover's time left after the move.
    pub time_left_ms: Option<u64>,
    /// `OB`/`OW`: byo-yomi periods (or moves in the block) left.
    pub periods_left: Option<u32>,
    pub comment: Option<String>,
}

/// A game record: information, setup, the main line, and the whole tree it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    pub info: GameInfo,
    /// The meaning of `RE`, when it is one Tengen knows.
    pub result: Option<GameResult>,
    pub setup: Vec<(Color, Point)>,
    /// `PL`: who moves first after setup, when the record says.
    pub first_to_move: Option<Color>,
    pub moves: Vec<RecordedMove>,
    /// Properties that were unreadable and ignored.
    pub warnings: Vec<String>,
    /// The charset the file was read in (UTF-8 for a record built here or from a parsed tree).
    pub charset: Charset,
    pub tree: SgfTree,
}

/// A record that is not a Go game the engine can load.
pub type RecordError = SgfError;

/// Where and why a record's main line cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    Setup(SetupError),
    /// Move `move_number` (from 1) is illegal under the chosen ko rule.
    Illegal {
        move_number: usize,
        color: Color,
        mv: Move,
        reason: IllegalMove,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Setup(err) => write!(f, "setup: {err}"),
            ReplayError::Illegal {
                move_number,
                color,
                mv,
                reason,
            } => {
                let what = match mv {
                    Move::Play(p) => p.to_sgf(),
                    Move::Pass => "pass".into(),
                    Move::Resign => "resign".into(),
                };
                write!(f, "move {move_number} ({color} {what}): {reason}")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// Parses an SGF file into a game record, decoding it from its charset first (see `charset`).
pub fn parse(input: &[u8]) -> Result<GameRecord, RecordError> {
    // Checked before decoding too: decoded text is up to three times larger than GBK bytes.
    if input.len() > MAX_SGF_BYTES {
        return Err(SgfError {
            position: Position { line: 1, column: 1 },
            message: format!("the file is larger than {MAX_SGF_BYTES} bytes"),
        });
    }
    let (text, charset) = charset::decode(input);
    let mut record = GameRecord::from_tree(parse_tree(text.as_bytes())?)?;
    record.charset = charset;
    Ok(record)
}

impl GameRecord {
    /// Reads the record out of a parsed tree.
    pub fn from_tree(tree: SgfTree) -> Result<GameRecord, RecordError> {
        let root = tree.root();
        if let Some(gm) = root.value("GM") {
            if decode_text(&gm.bytes).trim() != "1" {
                return Err(error_at(gm, "not a Go record (GM is not 1)"));
            }
        }
        let mut warnings = Vec::new();
        let info = read_info(root, &mut warnings)?;
        let mut record = GameRecord {
            info,
            result: None,
            setup: Vec::new(),
            first_to_move: None,
            moves: Vec::new(),
            warnings,
            charset: Charset::UTF_8,
            tree: SgfTree::default(),
        };
        let said = |ident: &str| {
            root.value(ident)
                .is_some_and(|v| !decode_text(&v.bytes).trim().is_empty())
        };
        let mut start_info = StartInfo {
            komi: said("KM"),
            handicap: said("HA"),
        };
        for node in tree.main_line() {
            if record.moves.is_empty() {
                record.read_start_info(node, &mut start_info);
            }
            record.read_node(node)?;
        }
        record.result = record.info.result.as_deref().and_then(parse_result);
        if record.info.handicap >= 2 && record.setup.iter().all(|(c, _)| *c == Color::Black) {
            // Trust the stones over the number when they disagree; warn so the difference is visible.
            if record.setup.len() != record.info.handicap as usize {
                record.warnings.push(format!(
                    "HA[{}] but {} setup stones; using the stones",
                    record.info.handicap,
                    record.setup.len()
                ));
                record.info.handicap = record.setup.len().min(9) as u8;
            }
        }
        record.tree = tree;
        Ok(record)
    }

    /// `KM`, `HA` and the game's text information in a node after the root but before the first
    /// move, when none came before.
    fn read_start_info(&mut self, node: &SgfNode, read: &mut StartInfo) {
        read_game_text(node, &mut self.info);
        let text = |ident: &str| {
            node.value(ident)
                .map(|v| decode_text(&v.bytes).trim().to_string())
                .filter(|text| !text.is_empty())
        };
        if !read.komi {
            if let Some(km) = text("KM") {
                read.komi = true;
                read_komi(&km, &mut self.info, &mut self.warnings);
            }
        }
        if !read.handicap {
            if let Some(ha) = text("HA") {
                read.handicap = true;
                read_handicap(&ha, &mut self.info, &mut self.warnings);
            }
        }
    }

    fn read_node(&mut self, node: &SgfNode) -> Result<(), RecordError> {
        let size = self.info.size;
        for (ident, color) in [
            ("AB", Some(Color::Black)),
            ("AW", Some(Color::White)),
            ("AE", None),
        ] {
            let Some(property) = node.property(ident) else {
                continue;
            };
            if !self.moves.is_empty() {
                return Err(error_at(
                    &property.values[0],
                    "setup stones after the first move are not supported",
                ));
            }
            for value in &property.values {
                for point in read_point_list(value, size)? {
                    self.setup.retain(|(_, p)| *p != point);
                    if let Some(color) = color {
                        self.setup.push((color, point));
                    }
                }
            }
        }
        if let Some(pl) = node.value("PL") {
            if self.moves.is_empty() {
                self.first_to_move = Color::from_gtp(decode_text(&pl.bytes).trim());
            }
        }
        for (ident, color) in [("B", Color::Black), ("W", Color::White)] {
            let Some(value) = node.value(ident) else {
                continue;
            };
            let mv = read_move(value, size)?;
            let (time_ident, periods_ident) = if color == Color::Black {
                ("BL", "OB")
            } else {
                ("WL", "OW")
            };
            self.moves.push(RecordedMove {
                color,
                mv,
                time_left_ms: node
                    .value(time_ident)
                    .and_then(|v| parse_seconds_ms(&decode_text(&v.bytes))),
                periods_left: node
                    .value(periods_ident)
                    .and_then(|v| decode_text(&v.bytes).trim().parse().ok()),
                comment: node.value("C").map(|v| decode_text(&v.bytes)),
            });
        }
        Ok(())
    }

    /// Replays the main line through the engine under `ko_rule`, returning the game at its end.
    ///
    /// Handicap records (`HA` ≥ 2 with only Black setup stones) replay as free handicap, so counting gives
    /// White the handicap compensation. Moves out of turn (two Black moves in a row) are accepted, as
    /// records contain them; two passes followed by more moves resume play, as in a disputed scoring.
    pub fn replay(&self, ko_rule: KoRule) -> Result<Game, ReplayError> {
        let mut game = self.setup_game(ko_rule).map_err(ReplayError::Setup)?;
        for (index, recorded) in self.moves.iter().enumerate() {
            if game.phase() == Phase::Scoring {
                game.resume(recorded.color);
            }
            game.play_as(recorded.color, recorded.mv)
                .map_err(|reason| ReplayError::Illegal {
                    move_number: index + 1,
                    color: recorded.color,
                    mv: recorded.mv,
                    reason,
                })?;
        }
        Ok(game)
    }

    /// Replays the main line under the record's own rules: the ko rule its `RU` names; with no `RU`
    /// (or rules Tengen does not know), the strictest (positional superko) and, if the record repeats
    /// a position, the basic ko rule, rather than refuse a real game. The error is that of the last
    /// rule tried.
    pub fn replay_under_own_rules(&self) -> Result<(Game, KoRule), ReplayError> {
        let named = self.info.ko_rule();
        let first = named.unwrap_or(KoRule::Positional);
        match self.replay(first) {
            Ok(game) => Ok((game, first)),
            Err(err) if named.is_some() => Err(err),
            Err(_) => self
                .replay(KoRule::Simple)
                .map(|game| (game, KoRule::Simple)),
        }
    }

    fn setup_game(&self, ko_rule: KoRule) -> Result<Game, SetupError> {
        let info = &self.info;
        let black: Vec<Point> = self.points_of(Color::Black);
        let white: Vec<Point> = self.points_of(Color::White);
        let is_handicap =
            info.handicap >= 2 && white.is_empty() && black.len() == info.handicap as usize;
        let rules = Rules {
            size: info.size,
            komi: info.komi,
            handicap: if is_handicap { info.handicap } else { 0 },
            handicap_placement: HandicapPlacement::Free,
            ko_rule,
        };
        let mut game = Game::new(rules)?;
        if is_handicap {
            game.place_free_handicap(&black)?;
        } else {
            game.add_setup_stones(Color::Black, &black)?;
            game.add_setup_stones(Color::White, &white)?;
        }
        if let Some(color) = self.first_to_move {
            game.set_first_to_move(color)?;
        }
        Ok(game)
    }

    fn points_of(&self, color: Color) -> Vec<Point> {
        self.setup
            .iter()
            .filter(|(c, _)| *c == color)
            .map(|(_, p)| *p)
            .collect()
    }

    /// A record of `game` as played, with `info` for the root (size, komi and handicap are taken from the
    /// game itself) and the game's result, if over.
    pub fn from_game(game: &Game, info: &GameInfo) -> GameRecord {
        GameRecord::from_game_noted(game, info, &[])
    }

    /// [`GameRecord::from_game`] with comments on moves: each `(n, text)` is a `C` on the node of
    /// the `n`th move (the root's comment for 0, the last move's when fewer were played, as after
    /// an undo), several on one node joined by lines.
    pub fn from_game_noted(game: &Game, info: &GameInfo, notes: &[(usize, String)]) -> GameRecord {
        let moves_count = game.moves().len();
        let note_at = |n: usize| {
            let lines: Vec<&str> = notes
                .iter()
                .filter(|(at, _)| (*at).min(moves_count) == n)
                .map(|(_, text)| text.as_str())
                .collect();
            (!lines.is_empty()).then(|| lines.join("\n"))
        };
        let root_comment = match (info.comment.clone(), note_at(0)) {
            (Some(comment), Some(note)) => Some(format!("{comment}\n{note}")),
            (comment, note) => comment.or(note),
        };
        let mut root = SgfNode::default();
        let rules = game.rules();
        let text = |s: &Option<String>| s.clone().into_iter();
        root.push("FF", ["4".to_string()]);
        root.push("GM", ["1".to_string()]);
        root.push("CA", ["UTF-8".to_string()]);
        root.push("AP", ["Tengen".to_string()]);
        root.push("SZ", [rules.size.to_string()]);
        root.push("KM", [rules.komi.to_sgf()]);
        if game.handicap_stones() >= 2 {
            root.push("HA", [game.handicap_stones().to_string()]);
        }
        root.push("RU", ["Chinese".to_string()]);
        root.push("PB", text(&info.black));
        root.push("PW", text(&info.white));
        root.push("BR", text(&info.black_rank));
        root.push("WR", text(&info.white_rank));
        root.push("DT", text(&info.date));
        root.push("EV", text(&info.event));
        root.push("TM", text(&info.time_limit));
        root.push("OT", text(&info.overtime));
        root.push("GN", text(&info.name));
        root.push("PC", text(&info.place));
        let result = game
            .result()
            .map(|r| r.to_sgf())
            .or_else(|| info.result.clone());
        root.push("RE", result);
        root.push("C", text(&root_comment));
        for color in Color::BOTH {
            let ident = if color == Color::Black { "AB" } else { "AW" };
            let stones = game.start_board().stones().filter(|(_, c)| *c == color);
            root.push(ident, stones.map(|(p, _)| p.to_sgf()));
        }
        if game.start_board().stones().next().is_some() && game.handicap_stones() < 2 {
            let first = game
                .moves()
                .first()
                .map(|(c, _)| *c)
                .unwrap_or(game.to_move());
            root.push("PL", [first.letter().to_string()]);
        }
        let mut tree = SgfTree::default();
        let mut parent = tree.add_node(None, root);
        for (index, &(color, mv)) in game.moves().iter().enumerate() {
            let value = match mv {
                Move::Play(point) => point.to_sgf(),
                Move::Pass => String::new(),
                Move::Resign => continue,
            };
            let mut node = SgfNode::default();
            node.push(&color.letter().to_string(), [value]);
            node.push("C", note_at(index + 1));
            parent = tree.add_node(Some(parent), node);
        }
        GameRecord::from_tree(tree).expect("a record built from a legal game reads back")
    }

    /// The record as SGF text, variations included.
    pub fn to_sgf(&self) -> String {
        self.tree.to_sgf()
    }
}

/// Whether `KM` and `HA` were read already, so that only the first node saying each counts.
struct StartInfo {
    komi: bool,
    handicap: bool,
}

fn error_at(value: &Value, message: impl Into<String>) -> SgfError {
    SgfError {
        position: value.position,
        message: message.into(),
    }
}

/// Text as a person wrote it: UTF-8; UTF-8 cut off in the middle of a character (servers that truncate
/// names by bytes) without the broken tail; else GB18030 (Chinese servers); else UTF-8 with replacements.
pub(crate) fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => return text.to_string(),
        Err(err) if err.error_len().is_none() => {
            return String::from_utf8_lossy(&bytes[..err.valid_up_to()]).into_owned();
        }
        Err(_) => {}
    }
    match encoding_rs::GB18030.decode_without_bom_handling_and_without_replacement(bytes) {
        Some(text) => text.into_owned(),
        None => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn read_info(root: &SgfNode, warnings: &mut Vec<String>) -> Result<GameInfo, SgfError> {
    let text = |ident: &str| {
        root.value(ident)
            .map(|v| decode_text(&v.bytes).trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let mut info = GameInfo::default();
    if let Some(sz) = root.value("SZ") {
        let written = decode_text(&sz.bytes);
        let size: Option<u8> = written.trim().parse().ok();
        info.size = match size {
            Some(size) if (MIN_SIZE..=MAX_SIZE).contains(&size) => size,
            _ => {
                return Err(error_at(
                    sz,
                    format!("board size {written:?} is not a square board of 2..=25"),
                ))
            }
        };
    }
    if let Some(km) = text("KM") {
        read_komi(&km, &mut info, warnings);
    }
    if let Some(ha) = text("HA") {
        read_handicap(&ha, &mut info, warnings);
    }
    read_game_text(root, &mut info);
    info.comment = text("C");
    Ok(info)
}

/// The game information written as text (`RU`, `PB`, `PW` ...) that `info` lacks, from `node`: the
/// root, or a node after it before the first move, where some programs write it.
fn read_game_text(node: &SgfNode, info: &mut GameInfo) {
    let fields = [
        ("RU", &mut info.rules),
        ("PB", &mut info.black),
        ("PW", &mut info.white),
        ("BR", &mut info.black_rank),
        ("WR", &mut info.white_rank),
        ("DT", &mut info.date),
        ("EV", &mut info.event),
        ("RE", &mut info.result),
        ("TM", &mut info.time_limit),
        ("OT", &mut info.overtime),
        ("GN", &mut info.name),
        ("PC", &mut info.place),
    ];
    for (ident, field) in fields {
        if field.is_none() {
            *field = node
                .value(ident)
                .map(|v| decode_text(&v.bytes).trim().to_string())
                .filter(|s| !s.is_empty());
        }
    }
}

fn read_komi(km: &str, info: &mut GameInfo, warnings: &mut Vec<String>) {
    match Komi::parse_sgf(km) {
        Ok(komi) => info.komi = komi,
        Err(err) => warnings.push(format!("KM ignored: {err}")),
    }
}

fn read_handicap(ha: &str, info: &mut GameInfo, warnings: &mut Vec<String>) {
    match ha.parse::<u8>() {
        Ok(stones) if stones <= 9 => info.handicap = stones,
        _ => warnings.push(format!("HA[{ha}] ignored: not a number of stones 0..=9")),
    }
}

/// A move value: a point, or a pass (`[]`, or `[tt]` on boards up to 19x19 as FF[3] wrote it).
fn read_move(value: &Value, size: u8) -> Result<Move, SgfError> {
    let text = decode_text(&value.bytes);
    let text = text.trim();
    if text.is_empty() || (text == "tt" && size <= 19) {
        return Ok(Move::Pass);
    }
    match Point::from_sgf(text) {
        Some(point) if point.is_on_board(size) => Ok(Move::Play(point)),
        _ => Err(error_at(
            value,
            format!("move {text:?} is not a point on a {size}x{size} board"),
        )),
    }
}

/// A point or a compressed rectangle `aa:cc` of points.
fn read_point_list(value: &Value, size: u8) -> Result<Vec<Point>, SgfError> {
    let text = decode_text(&value.bytes);
    let bad = || {
        error_at(
            value,
            format!("setup point {text:?} is not on a {size}x{size} board"),
        )
    };
    let on_board = |s: &str| Point::from_sgf(s.trim()).filter(|p| p.is_on_board(size));
    match text.split_once(':') {
        None => Ok(vec![on_board(&text).ok_or_else(bad)?]),
        Some((a, b)) => {
            let (a, b) = (on_board(a).ok_or_else(bad)?, on_board(b).ok_or_else(bad)?);
            let mut points = Vec::new();
            for row in a.row.min(b.row)..=a.row.max(b.row) {
                for col in a.col.min(b.col)..=a.col.max(b.col) {
                    points.push(Point::new(col, row));
                }
            }
            Ok(points)
        }
    }
}

/// `123.4` seconds → 123400 ms; `None` for anything else.
fn parse_seconds_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let whole: u64 = whole.parse().ok()?;
    let mut ms = 0;
    for (place, b) in fraction.bytes().take(3).enumerate() {
        if !b.is_ascii_digit() {
            return None;
        }
        ms += (b - b'0') as u64 * [100, 10, 1][place];
    }
    whole.checked_mul(1000)?.checked_add(ms)
}

/// The meaning of an `RE` value Tengen knows: `B+R`/`B+Resign`, `B+T`/`B+Time`, `B+F`/`B+Forfeit`,
/// `B+3.5`, `0`/`Draw`, `Void`/`?`. Stone margins (`W+2.25`, which points never are) are converted to
/// points. Anything else (`B+AW`, `W+J`, bare `B`) has no meaning here and stays text only.
pub(crate) fn parse_result(text: &str) -> Option<GameResult> {
    let text = text.trim();
    match text.to_ascii_lowercase().as_str() {
        "0" | "draw" | "jigo" | "d" => return Some(GameResult::Draw),
        "void" => return Some(GameResult::Void),
        _ => {}
    }
    let (who, how) = text.split_once('+')?;
    let winner = Color::from_gtp(who)?;
    let win_by = match how.to_ascii_lowercase().as_str() {
        "r" | "resign" => WinBy::Resign,
        "t" | "time" => WinBy::Time,
        "f" | "forfeit" => WinBy::Forfeit,
        margin => {
            let komi = Komi::parse_sgf(margin).ok()?;
            if komi.half_points <= 0 {
                return None;
            }
            WinBy::Score {
                margin_half_points: komi.half_points as u32,
            }
        }
    };
    Some(GameResult::Win { winner, win_by })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_their_written_forms() {
        let black_by = |half| GameResult::Win {
            winner: Color::Black,
            win_by: WinBy::Score {
                margin_half_points: half,
            },
        };
        assert_eq!(parse_result("B+1.5"), Some(black_by(3)));
        assert_eq!(
            parse_result("B+0.75"),
            Some(black_by(3)),
            "stone margin 3/4 = 1.5 points"
        );
        assert_eq!(
            parse_result("W+R").and_then(|r| r.winner()),
            Some(Color::White)
        );
        assert_eq!(parse_result("draw"), Some(GameResult::Draw));
        assert_eq!(parse_result("B+0.0"), None, "a zero margin is not a win");
        assert_eq!(parse_result("B+AW"), None);
        assert_eq!(parse_result("W"), None);
    }

    #[test]
    fn notes_become_comments_on_the_moves_they_follow() {
        let mut game = Game::new(crate::Rules::default()).unwrap();
        game.play(Color::Black, Move::Play(Point::new(2, 2)))
            .unwrap();
        game.play(Color::White, Move::Pass).unwrap();
        let info = GameInfo {
            comment: Some("undo".into()),
            ..GameInfo::default()
        };
        let notes = [
            (0, "before".to_string()),
            (1, "one".to_string()),
            (1, "two".to_string()),
            (9, "late".to_string()),
        ];
        let record = GameRecord::from_game_noted(&game, &info, &notes);
        let sgf = record.to_sgf();
        assert!(sgf.contains("C[undo\nbefore]"), "{sgf}");
        assert!(sgf.contains(";B[cc]C[one\ntwo]"), "{sgf}");
        // A note past the last move (taken back by an undo) goes on the last one.
        assert!(sgf.contains(";W[]C[late]"), "{sgf}");
        let comments: Vec<_> = record.moves.iter().map(|m| m.comment.clone()).collect();
        assert_eq!(
            comments,
            [Some("one\ntwo".to_string()), Some("late".to_string())]
        );
    }

    #[test]
    fn player_names_are_escaped_and_read_back_whole() {
        let game = Game::new(crate::Rules::default()).unwrap();
        let info = GameInfo {
            black: Some("棋圣".into()),
            white: Some("a]b\\c)(;[".into()),
            ..GameInfo::default()
        };
        let sgf = GameRecord::from_game(&game, &info).to_sgf();
        assert!(
            sgf.contains("CA[UTF-8]") && sgf.contains("PB[棋圣]"),
            "{sgf}"
        );
        assert!(sgf.contains("PW[a\\]b\\\\c)(;[]"), "{sgf}");
        let read = parse(sgf.as_bytes()).unwrap().info;
        assert_eq!(read.black.as_deref(), Some("棋圣"));
        assert_eq!(read.white.as_deref(), Some("a]b\\c)(;["));
    }

    #[test]
    fn text_in_other_encodings_is_decoded() {
        assert_eq!(decode_text("骊龙".as_bytes()), "骊龙");
        let truncated = &"你若有生".as_bytes()[..11];
        assert_eq!(
            decode_text(truncated),
            "你若有",
            "a name cut inside a character loses the fragment"
        );
        let (gbk, _, _) = encoding_rs::GB18030.encode("时空奇点");
        assert_eq!(decode_text(&gbk), "时空奇点");
    }

    #[test]
    fn seconds_to_milliseconds() {
        assert_eq!(parse_seconds_ms("12.5"), Some(12_500));
        assert_eq!(parse_seconds_ms("7"), Some(7_000));
        assert_eq!(parse_seconds_ms("x"), None);
    }
}
