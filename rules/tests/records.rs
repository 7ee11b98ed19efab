//! The study's test records (`tests/data/records/`, described in its README): authored for Tengen, as
//! legal games played through the engine and written in the layout and the charset of the programs
//! they imitate, names and comments in their own scripts. Five repeat a whole-board position through
//! a triple ko, which Japanese and Korean rules allow.
//!
//! `TENGEN_WRITE_RECORDS=1 cargo test -p tengen-rules --test records` writes the files; otherwise the
//! test checks that the committed files are exactly what this writes (so they cannot drift from how
//! they were made), and that each reads back as written and replays to its last move.

use std::collections::BTreeSet;
use std::path::PathBuf;

use encoding_rs::{Encoding, BIG5, EUC_KR, GBK, SHIFT_JIS, UTF_8, WINDOWS_1252};
use tengen_rules::random::{random_move, SeededRng};
use tengen_rules::sgf::{self, CharsetSource};
use tengen_rules::{Color, Game, KoRule, Komi, Move, Point, Rules};

fn records_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/records")
}

/// One single-stone ko: Black takes at `black_takes` (capturing the stone at `white_takes`) and White
/// takes back at `white_takes`.
struct Ko {
    black: Vec<Point>,
    white: Vec<Point>,
    black_takes: Point,
    white_takes: Point,
}

/// A ko in a 4x3 box at `origin` (transposed to 3x4, mirrored), with Black to take first or not:
///
/// ```text
/// . X O .      . X O .
/// X O . O      X . X O
/// . X O .      . X O .
/// Black takes  White takes
/// ```
fn ko_shape(origin: (u8, u8), transpose: bool, mirror: bool, black_first: bool) -> Ko {
    let at = |dx: u8, dy: u8| {
        let dx = if mirror { 3 - dx } else { dx };
        let (dx, dy) = if transpose { (dy, dx) } else { (dx, dy) };
        Point::new(origin.0 + dx, origin.1 + dy)
    };
    let mut black = vec![at(1, 0), at(0, 1), at(1, 2)];
    let mut white = vec![at(2, 0), at(3, 1), at(2, 2)];
    let (black_takes, white_takes) = (at(2, 1), at(1, 1));
    if black_first {
        white.push(white_takes);
    } else {
        black.push(black_takes);
    }
    Ko {
        black,
        white,
        black_takes,
        white_takes,
    }
}

/// A game being played: the engine's game, its seeded moves, and the points left to the kos.
struct Play {
    game: Game,
    rng: SeededRng,
    reserved: BTreeSet<Point>,
}

impl Play {
    fn new(size: u8, komi_half_points: i32, ko_rule: KoRule, seed: u64) -> Play {
        let rules = Rules {
            size,
            komi: Komi::from_half_points(komi_half_points),
            ko_rule,
            ..Rules::default()
        };
        Play {
            game: Game::new(rules).unwrap(),
            rng: SeededRng::new(seed),
            reserved: BTreeSet::new(),
        }
    }

    fn play(&mut self, point: Point) {
        let color = self.game.to_move();
        self.game.play(color, Move::Play(point)).unwrap();
    }

    /// A random legal move away from the kos (never a pass, which could end the game).
    fn elsewhere(&mut self) {
        let color = self.game.to_move();
        let board = self.game.board();
        let mut candidates: Vec<Point> = board
            .points()
            .filter(|p| board.get(*p).is_none() && !self.reserved.contains(p))
            .collect();
        while !candidates.is_empty() {
            let point = candidates.swap_remove(self.rng.below(candidates.len()));
            if !board.is_eye_like(point, color) && self.game.check_play(color, point).is_ok() {
                self.play(point);
                return;
            }
        }
        panic!("no move left away from the kos");
    }

    /// Random legal moves anywhere, stopping early at a second pass in a row.
    fn random(&mut self, moves: usize) {
        for _ in 0..moves {
            let color = self.game.to_move();
            let mv = random_move(&self.game, color, &mut self.rng);
            let passed = matches!(self.game.moves().last(), Some((_, Move::Pass)));
            if mv == Move::Pass && passed {
                return;
            }
            self.game.play(color, mv).unwrap();
        }
    }
}

/// How a triple-ko game ends.
#[derive(Clone, Copy)]
enum Ending {
    /// In the cycle: no result.
    NoResult,
    /// White gives way after the cycles, Black fills the ko, and play goes on for this many moves.
    WhiteGivesWay(usize),
}

/// A game with three kos taken round and round: two Black's to take, one White's. Each round is six
/// takes, Black first, and its sixth recreates the position before its first.
fn triple_ko_game(
    size: u8,
    seed: u64,
    shapes: [((u8, u8), bool, bool); 3],
    opening: usize,
    rounds: usize,
    ending: Ending,
) -> Game {
    let mut play = Play::new(size, 13, KoRule::Simple, seed);
    let kos: Vec<Ko> = shapes
        .iter()
        .enumerate()
        .map(|(i, &(origin, transpose, mirror))| ko_shape(origin, transpose, mirror, i < 2))
        .collect();
    for ko in &kos {
        for &p in ko
            .black
            .iter()
            .chain(&ko.white)
            .chain([&ko.black_takes, &ko.white_takes])
        {
            for dc in -1i16..=1 {
                for dr in -1i16..=1 {
                    let (c, r) = (i16::from(p.col) + dc, i16::from(p.row) + dr);
                    if (0..i16::from(size)).contains(&c) && (0..i16::from(size)).contains(&r) {
                        play.reserved.insert(Point::new(c as u8, r as u8));
                    }
                }
            }
        }
    }
    for _ in 0..opening {
        play.elsewhere();
    }
    let mut black: Vec<Point> = kos.iter().flat_map(|k| k.black.clone()).collect();
    let mut white: Vec<Point> = kos.iter().flat_map(|k| k.white.clone()).collect();
    black.reverse();
    white.reverse();
    while !black.is_empty() || !white.is_empty() {
        let stones = match play.game.to_move() {
            Color::Black => &mut black,
            Color::White => &mut white,
        };
        match stones.pop() {
            Some(point) => play.play(point),
            None => play.elsewhere(),
        }
    }
    if play.game.to_move() == Color::White {
        play.elsewhere();
    }
    let [one, two, three] = [&kos[0], &kos[1], &kos[2]];
    for _ in 0..rounds {
        for point in [
            one.black_takes,
            three.white_takes,
            two.black_takes,
            one.white_takes,
            three.black_takes,
            two.white_takes,
        ] {
            play.play(point);
        }
    }
    if let Ending::WhiteGivesWay(moves) = ending {
        play.play(one.black_takes);
        play.elsewhere();
        play.play(one.white_takes);
        for _ in 0..moves {
            play.elsewhere();
        }
    }
    play.game
}

fn random_game(size: u8, komi_half_points: i32, seed: u64, moves: usize) -> Game {
    let mut play = Play::new(size, komi_half_points, KoRule::Positional, seed);
    play.random(moves);
    play.game
}

/// SGF's escapes, on characters (so a Shift_JIS character whose second byte is `\` is left alone).
fn esc(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

fn mv_text(mv: Move) -> String {
    match mv {
        Move::Play(point) => point.to_sgf(),
        Move::Pass | Move::Resign => String::new(),
    }
}

/// The moves as nodes: `node(index, color, point)` writes each; `sep` goes between them.
fn moves_text(
    game: &Game,
    sep: &str,
    mut node: impl FnMut(usize, Color, &str) -> String,
) -> String {
    game.moves()
        .iter()
        .enumerate()
        .map(|(i, &(color, mv))| node(i, color, &mv_text(mv)))
        .collect::<Vec<_>>()
        .join(sep)
}

/// A comment after move `n` (from 1) if `comments` has one.
fn comment_at(comments: &[(usize, &str)], n: usize) -> String {
    comments
        .iter()
        .filter(|(at, _)| *at == n)
        .map(|(_, text)| format!("C[{}]", esc(text)))
        .collect()
}

/// The index (from 1) of the first move of the first round of takes: where the position first repeats
/// six moves on.
fn first_take(game: &Game) -> usize {
    let mut replay = Game::new(*game.rules()).unwrap();
    for (i, &(color, mv)) in game.moves().iter().enumerate() {
        replay.play(color, mv).unwrap();
        if !replay.last_captured().is_empty() {
            return i + 1;
        }
    }
    0
}

// ---------------------------------------------------------------------------------------------
// The records, each in the layout of the program it imitates.
// ---------------------------------------------------------------------------------------------

/// CGoban 3 on KGS: UTF-8, time left on every move, chat-style comments.
fn kgs_triple_ko() -> String {
    let game = triple_ko_game(
        19,
        1,
        [
            ((2, 2), false, false),
            ((8, 1), true, false),
            ((14, 2), false, true),
        ],
        60,
        3,
        Ending::NoResult,
    );
    let take = first_take(&game);
    let comments = [
        (take, "hikaru [2d]: here we go, three kos on the board"),
        (take + 6, "tsumego_fan [1d]: same position again... triple ko!"),
        (
            game.moves().len(),
            "hikaru [2d]: neither of us can give way. No result under Japanese rules, thanks for the game",
        ),
    ];
    let mut seconds = [1800.0f64, 1800.0];
    let moves = moves_text(&game, "", |i, color, point| {
        let side = usize::from(color == Color::White);
        seconds[side] -= 3.0 + (i % 7) as f64 * 1.7;
        let (letter, time) = if side == 0 { ("B", "BL") } else { ("W", "WL") };
        let line = if i % 10 == 9 { "\n" } else { "" };
        let spent = seconds[side];
        format!(
            ";{letter}[{point}]{time}[{spent:.3}]{}{line}",
            comment_at(&comments, i + 1)
        )
    });
    format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[CGoban:3]ST[2]\nRU[Japanese]SZ[19]KM[6.50]TM[1800]OT[5x30 byo-yomi]\n\
         PW[tsumego_fan]PB[hikaru]WR[1d]BR[2d]DT[2024-05-12]PC[The KGS Go Server]RE[Void]\n{moves})\n"
    )
}

/// The Nihon Ki-in's style: Shift_JIS, Japanese names and titles, the result 無勝負 in a comment. The
/// names hold 十 and ソ, whose second byte in Shift_JIS is `\`.
fn nihon_kiin_triple_ko() -> String {
    let game = triple_ko_game(
        19,
        2,
        [
            ((1, 13), false, false),
            ((7, 14), false, true),
            ((13, 13), true, false),
        ],
        80,
        2,
        Ending::NoResult,
    );
    let take = first_take(&game);
    let comments = [
        (take, "黒がコウを取りました。盤上にコウが三つあります。"),
        (take + 6, "三劫（さんこう）。同じ局面が再び現れました。"),
        (
            game.moves().len(),
            "双方譲らず、三劫により無勝負となりました。",
        ),
    ];
    let moves = moves_text(&game, "", |i, color, point| {
        let line = if i % 10 == 9 { "\n" } else { "" };
        format!(
            ";{}[{point}]{}{line}",
            color.letter(),
            comment_at(&comments, i + 1)
        )
    });
    format!(
        "(;GM[1]FF[4]CA[SHIFT_JIS]SZ[19]\nEV[第十期 ソウル杯争奪 研究会]RO[一回戦]\nPB[十河 表太郎]BR[七段]\n\
         PW[宗像 能ソ子]WR[六段]\nDT[2023-11-03]PC[東京 日本棋院]KM[6.5]RU[Japanese]RE[Void]\n\
         C[三劫無勝負の一局。]\n{moves})\n"
    )
}

/// A Korean client's export: EUC-KR, Korean rules, Korean names and comments.
fn korean_triple_ko() -> String {
    let game = triple_ko_game(
        19,
        3,
        [
            ((1, 1), true, false),
            ((13, 8), false, false),
            ((5, 14), false, true),
        ],
        50,
        2,
        Ending::WhiteGivesWay(40),
    );
    let take = first_take(&game);
    let comments = [
        (take, "흑이 패를 땄습니다. 판 위에 패가 세 개 있습니다."),
        (take + 6, "삼패! 같은 모양이 다시 나왔습니다."),
        (take + 12, "백이 양보하고 다른 곳에 둡니다."),
    ];
    let moves = moves_text(&game, "\n", |i, color, point| {
        format!(
            ";{}[{point}]{}",
            color.letter(),
            comment_at(&comments, i + 1)
        )
    });
    format!(
        "(;GM[1]FF[4]CA[EUC-KR]AP[바둑기보]SZ[19]\nGN[삼패 대국]\nEV[제3회 동네 바둑 대회]\nPB[김철수]BR[3단]\n\
         PW[이영희]WR[3단]\nDT[2022-08-15]\nKM[6.5]\nRU[Korean]\nRE[B+R]\n{moves})\n"
    )
}

/// Sabaki: UTF-8, a 13x13 game, one node a line.
fn sabaki_triple_ko() -> String {
    let game = triple_ko_game(
        13,
        4,
        [
            ((0, 0), false, false),
            ((7, 0), false, true),
            ((4, 8), true, false),
        ],
        20,
        2,
        Ending::WhiteGivesWay(10),
    );
    let take = first_take(&game);
    let comments = [
        (
            take + 5,
            "The sixth take brings back the position before the first.",
        ),
        (take + 13, "Black fills the ko at last."),
    ];
    let moves = moves_text(&game, "\n", |i, color, point| {
        format!(
            ";{}[{point}]{}",
            color.letter(),
            comment_at(&comments, i + 1)
        )
    });
    format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[Sabaki:0.52.2]KM[6.5]SZ[13]DT[2024-03-01]\nPB[Ana Souza]PW[Björn Lindqvist]RU[Japanese]RE[B+R]\n{moves})\n"
    )
}

/// OGS: one property a line in the root, lower-case rules.
fn ogs_triple_ko() -> String {
    let game = triple_ko_game(
        19,
        5,
        [
            ((9, 9), false, false),
            ((3, 3), true, true),
            ((13, 2), false, false),
        ],
        70,
        4,
        Ending::WhiteGivesWay(30),
    );
    let take = first_take(&game);
    let comments = [(
        take + 5,
        "Position repeated: triple ko. Allowed under Japanese rules.",
    )];
    let moves = moves_text(&game, "\n", |i, color, point| {
        format!(
            ";{}[{point}]{}",
            color.letter(),
            comment_at(&comments, i + 1)
        )
    });
    format!(
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2024-02-01]\nPC[OGS]\nGN[Friendly Match]\nPB[kosumi]\nPW[tenuki_master]\nBR[4k]\nWR[3k]\n\
         TM[600]OT[5x30 byo-yomi]\nRE[B+R]\nSZ[19]\nKM[6.5]\nRU[japanese]\n{moves})\n"
    )
}

/// Fox (野狐) style: GB2312, CRLF line ends, Chinese komi in stones scaled by 100 (KM[375] is 7.5
/// points), the time settings of that server.
fn fox_gb2312() -> String {
    let game = random_game(19, 15, 6, 180);
    let comments = [
        (1, "黑棋星位开局。"),
        (60, "白棋打入，局面复杂。"),
        (game.moves().len(), "白棋认输。"),
    ];
    let moves = moves_text(&game, "", |i, color, point| {
        format!(
            ";{}[{point}]{}",
            color.letter(),
            comment_at(&comments, i + 1)
        )
    });
    let text = format!(
        "(;GM[1]FF[4]CA[gb2312]\nSZ[19]\nGN[野狐围棋 友谊赛]\nDT[2024-01-20]\nPB[清风明月]\nPW[弈林高手]\nBR[5段]\nWR[5段]\n\
         KM[375]HA[0]RU[Chinese]AP[foxwq]RE[B+R]TM[600]TC[3]TT[30]\n{moves})\n"
    );
    text.replace('\n', "\r\n")
}

/// An older Chinese client: GBK with no `CA`, names with characters GB2312 lacks (喆, 赟, 堃).
fn chinese_gbk_no_charset() -> String {
    let game = random_game(19, 15, 7, 150);
    let comments = [
        (1, "本局是王喆和李赟的第三盘对局，双方都下得很谨慎。"),
        (
            40,
            "黑棋在右下角取得实地，白棋则在中腹形成厚势，局面大致两分。",
        ),
        (
            100,
            "白棋的攻击没有成功，黑棋逐渐扩大了优势。陈堃评论说，这一手是胜负手。",
        ),
    ];
    let moves = moves_text(&game, "", |i, color, point| {
        let line = if i % 10 == 9 { "\n" } else { "" };
        format!(
            ";{}[{point}]{}{line}",
            color.letter(),
            comment_at(&comments, i + 1)
        )
    });
    format!(
        "(;GM[1]FF[4]SZ[19]\nGN[围棋名人赛 预选]\nPB[王喆]\nPW[李赟]\nBR[业余5段]\nWR[业余5段]\nDT[2019-06-08]\n\
         PC[杭州]KM[7.5]RU[Chinese]RE[B+R]\nC[评论：陈堃]\n{moves})\n"
    )
}

/// A Taiwanese record: Big5, traditional characters, Ing rules (whose ko rule Tengen does not know).
/// 許 and 功 have `\` as their second byte in Big5.
fn taiwan_big5() -> String {
    let game = random_game(19, 16, 8, 160);
    let comments = [
        (1, "黑棋先行。"),
        (50, "白棋在左邊打入，這是本局的關鍵。"),
        (game.moves().len(), "黑棋中盤勝。"),
    ];
    let moves = moves_text(&game, "", |i, color, point| {
        let line = if i % 10 == 9 { "\n" } else { "" };
        format!(
            ";{}[{point}]{}{line}",
            color.letter(),
            comment_at(&comments, i + 1)
        )
    });
    format!(
        "(;GM[1]FF[4]CA[Big5]SZ[19]\nGN[應氏杯 業餘組]\nPB[許功明]\nPW[林海峰子]\nBR[業餘六段]\nWR[業餘六段]\n\
         DT[2021-10-10]PC[台北]KM[8]RU[Ing]RE[B+R]\n{moves})\n"
    )
}

/// A European editor: Latin-1, accented names, comments in French and German, AGA rules.
fn european_latin1() -> String {
    let game = random_game(19, 15, 9, 170);
    let comments = [
        (1, "Début classique. Noir joue au hoshi."),
        (
            30,
            "Schwarz übernimmt die Initiative; Weiß muss vorsichtig sein.",
        ),
        (90, "Très bon coup ! L'invasion blanche est réfutée."),
    ];
    let moves = moves_text(&game, "\n", |i, color, point| {
        format!(
            ";{}[{point}]{}",
            color.letter(),
            comment_at(&comments, i + 1)
        )
    });
    format!(
        "(;FF[4]GM[1]CA[ISO-8859-1]AP[Drago:4.21]SZ[19]\nEV[Championnat de Bretagne]RO[3]PC[Rennes, France]\n\
         PB[François Lefèvre]BR[2d]PW[Jörg Müller]WR[2d]DT[2018-04-21]KM[7.5]RU[AGA]RE[B+R]\n\
         C[Partie commentée par Søren Ærø.]\n{moves})\n"
    )
}

/// A record pasted into a mail: the header and a note with parentheses before the game tree.
fn mail_with_prose() -> String {
    let game = random_game(9, 15, 10, 60);
    let moves = moves_text(&game, "", |_, color, point| {
        format!(";{}[{point}]", color.letter())
    });
    format!(
        "From: Wei Chen <wei@example.org>\nSubject: our game (the one from Sunday)\nDate: Mon, 4 Mar 2024 09:12:00 +0800\n\n\
         Here is the record (my notes are inside). I think move 40 was the mistake :)\n\n\
         (;GM[1]FF[4]CA[UTF-8]SZ[9]KM[7.5]RU[Chinese]PB[陈伟]PW[Mia Schmidt]C[Sunday's game (casual).]\n{moves})\n\n-- \nWei\n"
    )
}

/// A program that writes the game information in the node after the root: komi and handicap there.
fn komi_after_root() -> String {
    let mut play = Play::new(19, 1, KoRule::Positional, 11);
    let rules = Rules {
        handicap: 2,
        handicap_placement: tengen_rules::HandicapPlacement::Free,
        ..*play.game.rules()
    };
    play.game = Game::new(rules).unwrap();
    let handicap = [Point::new(3, 15), Point::new(15, 3)];
    play.game.place_free_handicap(&handicap).unwrap();
    play.random(120);
    let moves = moves_text(&play.game, "", |i, color, point| {
        let line = if i % 10 == 9 { "\n" } else { "" };
        format!(";{}[{point}]{line}", color.letter())
    });
    format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[GoWrite:2.3]SZ[19]\n;PB[Lee Min]PW[Sato Kenji]KM[0.5]HA[2]AB[dp][pd]\n{moves})\n"
    )
}

/// An OGS review: over 64 KiB, a comment on every move and variations branching from the main line.
fn ogs_review() -> String {
    let game = random_game(19, 13, 12, 220);
    let mut snapshot = Game::new(*game.rules()).unwrap();
    let mut rng = SeededRng::new(99);
    let remarks = [
        "This move keeps the balance between territory and influence; a calmer choice was possible.",
        "Here the shape is thin. Look at the cutting point and count the liberties before playing.",
        "A good tempo move: it threatens to take the corner and prepares the attack on the side.",
        "Too slow. The biggest point on the board was elsewhere, near the open upper side.",
        "Reading this fight out takes a while; the variation shows what happens after the hane.",
        "围棋的道理：先活自己，再攻对方。This proverb applies here.",
    ];
    let mut texts: Vec<String> = Vec::new();
    let mut variations: Vec<Option<String>> = Vec::new();
    for (i, &(color, mv)) in game.moves().iter().enumerate() {
        let remark = remarks[i % remarks.len()];
        texts.push(format!(
            ";{}[{}]C[Move {}: {remark} {} {}]\n",
            color.letter(),
            mv_text(mv),
            i + 1,
            remarks[(i * 7 + 3) % remarks.len()],
            remarks[(i * 5 + 1) % remarks.len()]
        ));
        // Every 15th move has a variation instead of it: a few random moves from the same position.
        let variation = (i % 15 == 7).then(|| {
            let mut line = snapshot.clone();
            let mut out = String::new();
            for step in 0..4 {
                let color = line.to_move();
                let mv = random_move(&line, color, &mut rng);
                line.play(color, mv).unwrap();
                out.push_str(&format!(
                    ";{}[{}]C[Variation at move {}, step {}: {}]\n",
                    color.letter(),
                    mv_text(mv),
                    i + 1,
                    step + 1,
                    remarks[(i + step) % remarks.len()]
                ));
            }
            out
        });
        variations.push(variation);
        snapshot.play(color, mv).unwrap();
    }
    // From the end backwards: a move with a variation opens two branches, the main line first.
    let mut rest = String::new();
    for (text, variation) in texts.iter().zip(&variations).rev() {
        rest = match variation {
            Some(variation) => format!("({text}{rest})({variation})"),
            None => format!("{text}{rest}"),
        };
    }
    format!(
        "(;FF[4]\nCA[UTF-8]\nGM[1]\nDT[2023-09-17]\nPC[OGS review]\nGN[Review: Black's opening]\nPB[Mateo Rossi]\nPW[Yuki Tanaka]\n\
         BR[6k]\nWR[5k]\nRE[W+R]\nSZ[19]\nKM[6.5]\nRU[japanese]\nC[A review of a teaching game: every move is commented, and the variations show the alternatives.]\n{rest})\n"
    )
}

/// One committed record: its file, how it is written, and what reading it must give.
struct Record {
    file: &'static str,
    encoding: &'static Encoding,
    text: fn() -> String,
    black: &'static str,
    white: &'static str,
    charset: &'static str,
    ko_rule: KoRule,
    /// It repeats a whole-board position: refused under positional superko.
    repeats: bool,
}

const RECORDS: &[Record] = &[
    Record {
        file: "kgs-triple-ko.sgf",
        encoding: UTF_8,
        text: kgs_triple_ko,
        black: "hikaru",
        white: "tsumego_fan",
        charset: "UTF-8",
        ko_rule: KoRule::Simple,
        repeats: true,
    },
    Record {
        file: "nihon-kiin-triple-ko-shift-jis.sgf",
        encoding: SHIFT_JIS,
        text: nihon_kiin_triple_ko,
        black: "十河 表太郎",
        white: "宗像 能ソ子",
        charset: "Shift_JIS",
        ko_rule: KoRule::Simple,
        repeats: true,
    },
    Record {
        file: "korean-triple-ko-euc-kr.sgf",
        encoding: EUC_KR,
        text: korean_triple_ko,
        black: "김철수",
        white: "이영희",
        charset: "EUC-KR",
        ko_rule: KoRule::Simple,
        repeats: true,
    },
    Record {
        file: "sabaki-triple-ko-13x13.sgf",
        encoding: UTF_8,
        text: sabaki_triple_ko,
        black: "Ana Souza",
        white: "Björn Lindqvist",
        charset: "UTF-8",
        ko_rule: KoRule::Simple,
        repeats: true,
    },
    Record {
        file: "ogs-triple-ko.sgf",
        encoding: UTF_8,
        text: ogs_triple_ko,
        black: "kosumi",
        white: "tenuki_master",
        charset: "UTF-8",
        ko_rule: KoRule::Simple,
        repeats: true,
    },
    Record {
        file: "fox-gb2312.sgf",
        encoding: GBK,
        text: fox_gb2312,
        black: "清风明月",
        white: "弈林高手",
        charset: "GBK",
        ko_rule: KoRule::Positional,
        repeats: false,
    },
    Record {
        file: "chinese-gbk-no-charset.sgf",
        encoding: GBK,
        text: chinese_gbk_no_charset,
        black: "王喆",
        white: "李赟",
        charset: "GBK",
        ko_rule: KoRule::Positional,
        repeats: false,
    },
    Record {
        file: "taiwan-big5.sgf",
        encoding: BIG5,
        text: taiwan_big5,
        black: "許功明",
        white: "林海峰子",
        charset: "Big5",
        ko_rule: KoRule::Positional,
        repeats: false,
    },
    Record {
        file: "european-latin1.sgf",
        encoding: WINDOWS_1252,
        text: european_latin1,
        black: "François Lefèvre",
        white: "Jörg Müller",
        charset: "windows-1252",
        ko_rule: KoRule::Situational,
        repeats: false,
    },
    Record {
        file: "mail-with-prose.sgf",
        encoding: UTF_8,
        text: mail_with_prose,
        black: "陈伟",
        white: "Mia Schmidt",
        charset: "UTF-8",
        ko_rule: KoRule::Positional,
        repeats: false,
    },
    Record {
        file: "komi-after-root.sgf",
        encoding: UTF_8,
        text: komi_after_root,
        black: "Lee Min",
        white: "Sato Kenji",
        charset: "UTF-8",
        ko_rule: KoRule::Positional,
        repeats: false,
    },
    Record {
        file: "ogs-review-large.sgf",
        encoding: UTF_8,
        text: ogs_review,
        black: "Mateo Rossi",
        white: "Yuki Tanaka",
        charset: "UTF-8",
        ko_rule: KoRule::Simple,
        repeats: false,
    },
];

fn encoded(record: &Record) -> Vec<u8> {
    let text = (record.text)();
    let (bytes, _, unmappable) = record.encoding.encode(&text);
    assert!(
        !unmappable,
        "{}: a character {} lacks",
        record.file,
        record.encoding.name()
    );
    bytes.into_owned()
}

#[test]
fn the_committed_records_are_what_the_generator_writes() {
    let write = std::env::var_os("TENGEN_WRITE_RECORDS").is_some();
    for record in RECORDS {
        let bytes = encoded(record);
        let path = records_dir().join(record.file);
        if write {
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (TENGEN_WRITE_RECORDS=1 writes it)", record.file));
        assert!(
            committed == bytes,
            "{} differs from what the generator writes",
            record.file
        );
    }
}

#[test]
fn each_record_reads_as_written_and_replays_under_its_own_rules() {
    for record in RECORDS {
        let name = record.file;
        let bytes = std::fs::read(records_dir().join(name)).unwrap();
        let parsed = sgf::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(parsed.charset.name, record.charset, "{name}");
        assert_eq!(parsed.info.black.as_deref(), Some(record.black), "{name}");
        assert_eq!(parsed.info.white.as_deref(), Some(record.white), "{name}");
        let (game, ko_rule) = parsed
            .replay_under_own_rules()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ko_rule, record.ko_rule, "{name}");
        assert_eq!(game.moves().len(), parsed.moves.len(), "{name}");
        assert!(parsed.moves.len() >= 60, "{name}: a whole game");
        let repeats = parsed.replay(KoRule::Positional).is_err();
        assert_eq!(repeats, record.repeats, "{name}");
        for text in parsed.moves.iter().filter_map(|m| m.comment.as_deref()) {
            assert!(!text.contains('\u{FFFD}'), "{name}: {text}");
        }
    }
}

#[test]
fn the_records_cover_what_the_study_must_open() {
    let read = |name: &str| {
        let bytes = std::fs::read(records_dir().join(name)).unwrap();
        (sgf::parse(&bytes).unwrap(), bytes)
    };
    let (record, bytes) = read("fox-gb2312.sgf");
    assert!(
        bytes.iter().all(|&b| !(0x80..0xA1).contains(&b)),
        "GB2312 only"
    );
    assert_eq!(
        record.info.komi,
        Komi::from_half_points(15),
        "KM[375] is 7.5"
    );
    assert_eq!(record.charset.source, CharsetSource::Declared);
    let (record, _) = read("chinese-gbk-no-charset.sgf");
    assert_eq!(record.charset.source, CharsetSource::Detected);
    assert_eq!(record.info.comment.as_deref(), Some("评论：陈堃"));
    let (record, bytes) = read("nihon-kiin-triple-ko-shift-jis.sgf");
    assert!(
        bytes.windows(2).any(|w| w == [0x8F, b'\\']),
        "十 ends in a backslash byte"
    );
    assert_eq!(
        record.info.event.as_deref(),
        Some("第十期 ソウル杯争奪 研究会")
    );
    let last = record.moves.last().and_then(|m| m.comment.as_deref());
    assert_eq!(last, Some("双方譲らず、三劫により無勝負となりました。"));
    let (record, bytes) = read("taiwan-big5.sgf");
    assert!(
        bytes.windows(2).any(|w| w == [0xB3, b'\\']),
        "許 ends in a backslash byte"
    );
    assert_eq!(
        record.info.ko_rule(),
        None,
        "Ing: the strictest, then the basic ko rule"
    );
    let (_, bytes) = read("korean-triple-ko-euc-kr.sgf");
    assert!(
        bytes.iter().all(|&b| !(0x80..0xA1).contains(&b)),
        "EUC-KR, not its extension"
    );
    let (record, _) = read("european-latin1.sgf");
    assert_eq!(
        record.info.comment.as_deref(),
        Some("Partie commentée par Søren Ærø.")
    );
    let (record, _) = read("komi-after-root.sgf");
    assert_eq!(
        (record.info.komi, record.info.handicap),
        (Komi::from_half_points(1), 2)
    );
    let (record, bytes) = read("ogs-review-large.sgf");
    assert!(bytes.len() > 64 * 1024, "{} bytes", bytes.len());
    assert!(record.tree.variation_count() >= 10);
    let (_, bytes) = read("mail-with-prose.sgf");
    assert!(bytes.starts_with(b"From: "));
}
