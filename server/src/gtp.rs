//! `tengen gtp`: a GTP version 2 referee over `tengen-rules` on stdin/stdout, so that any Go tool
//! (GoGui, a tournament runner, a test script) can drive the engine and ask it for legality and scores.
//!
//! It speaks the standard commands plus two of its own: `tengen-ko_rule simple|positional|situational`
//! and `tengen-set_dead <vertex>...`, which marks chains dead for `final_score` (otherwise every stone
//! counts as alive). `genmove` plays a uniformly random legal move that does not fill its own eye. Every
//! failure is a GTP error line (`? illegal move`); nothing a controller sends can stop the referee.

use std::fmt::Write as _;
use std::io::{self, BufRead, Write};
use tengen_rules::random::{random_move, SeededRng};
use tengen_rules::{
    fixed_handicap_points, sgf, Color, Game, HandicapPlacement, KoRule, Komi, Move, Phase, Point,
    Rules,
};

/// A command line longer than this is refused unread: the longest real command (`set_free_handicap` with
/// nine vertices, or `tengen-set_dead` with a few hundred) fits many times over.
const MAX_LINE_BYTES: usize = 64 * 1024;

const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "undo",
    "is_legal",
    "all_legal",
    "list_stones",
    "captures",
    "fixed_handicap",
    "set_free_handicap",
    "loadsgf",
    "printsgf",
    "showboard",
    "final_score",
    "genmove",
    "tengen-ko_rule",
    "tengen-set_dead",
];

/// Runs the referee until `quit` or the end of input.
pub fn run(mut input: impl BufRead, mut output: impl Write, seed: u64) -> io::Result<()> {
    let mut referee = Referee::new(seed);
    let mut line = Vec::new();
    loop {
        let read = read_bounded_line(&mut input, &mut line)?;
        let text = match read {
            LineRead::End => return Ok(()),
            LineRead::TooLong => {
                output.write_all(b"? command line too long\n\n")?;
                output.flush()?;
                continue;
            }
            LineRead::Line => clean_line(&line),
        };
        let Some(command) = Command::parse(&text) else {
            continue;
        };
        let (ok, reply) = match referee.execute(&command.name, &command.args) {
            Ok(reply) => (true, reply),
            Err(message) => (false, message),
        };
        let id = command.id.map(|id| id.to_string()).unwrap_or_default();
        let mark = if ok { '=' } else { '?' };
        let separator = if reply.is_empty() { "" } else { " " };
        write!(output, "{mark}{id}{separator}{reply}\n\n")?;
        output.flush()?;
        if ok && command.name == "quit" {
            return Ok(());
        }
    }
}

enum LineRead {
    Line,
    TooLong,
    End,
}

/// Reads one line into `line` without ever holding more than `MAX_LINE_BYTES` of it.
fn read_bounded_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<LineRead> {
    line.clear();
    let mut too_long = false;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(if line.is_empty() && !too_long {
                LineRead::End
            } else {
                LineRead::Line
            });
        }
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], Some(end + 1)),
            None => (buffer, None),
        };
        if line.len() + chunk.len() > MAX_LINE_BYTES {
            too_long = true;
            line.clear();
        } else if !too_long {
            line.extend_from_slice(chunk);
        }
        let consumed = done.unwrap_or(buffer.len());
        input.consume(consumed);
        if done.is_some() {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

/// GTP preprocessing: drop control characters but tab and newline, turn tabs into spaces, cut comments.
fn clean_line(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let text = text.split('#').next().unwrap_or("");
    text.chars()
        .filter(|c| !c.is_control() || *c == '\t')
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect()
}

struct Command {
    id: Option<u64>,
    name: String,
    args: Vec<String>,
}

impl Command {
    fn parse(line: &str) -> Option<Command> {
        let mut words = line.split_whitespace().peekable();
        let id = words.peek().and_then(|w| w.parse::<u64>().ok());
        if id.is_some() {
            words.next();
        }
        let name = words.next()?.to_string();
        Some(Command {
            id,
            name,
            args: words.map(str::to_string).collect(),
        })
    }
}

/// The referee's state: the game being refereed, and the dead marks for `final_score`.
struct Referee {
    size: u8,
    komi: Komi,
    ko_rule: KoRule,
    game: Game,
    dead: Vec<Point>,
    rng: SeededRng,
}

type Reply = Result<String, String>;

impl Referee {
    fn new(seed: u64) -> Referee {
        let size = 19;
        let komi = Komi::default();
        let ko_rule = KoRule::Positional;
        Referee {
            size,
            komi,
            ko_rule,
            game: new_game(size, komi, ko_rule),
            dead: Vec::new(),
            rng: SeededRng::new(seed),
        }
    }

    fn execute(&mut self, name: &str, args: &[String]) -> Reply {
        match name {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("Tengen".into()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "known_command" => Ok(COMMANDS.contains(&arg(args, 0)?).to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "quit" => Ok(String::new()),
            "boardsize" => self.boardsize(args),
            "clear_board" => {
                self.reset();
                Ok(String::new())
            }
            "komi" => self.set_komi(args),
            "play" => self.play(args),
            "undo" => self.undo(),
            "is_legal" => self.is_legal(args),
            "all_legal" => self.all_legal(args),
            "list_stones" => self.list_stones(args),
            "captures" => Ok(self.game.prisoners(parse_color(arg(args, 0)?)?).to_string()),
            "fixed_handicap" => self.fixed_handicap(args),
            "set_free_handicap" => self.set_free_handicap(args),
            "loadsgf" => self.loadsgf(args),
            "printsgf" => Ok(
                sgf::GameRecord::from_game(&self.game, &sgf::GameInfo::default())
                    .to_sgf()
                    .trim_end()
                    .into(),
            ),
            "showboard" => Ok(self.showboard()),
            "final_score" => Ok(self.game.score(&self.dead).result.to_sgf()),
            "genmove" => self.genmove(args),
            "tengen-ko_rule" => self.set_ko_rule(args),
            "tengen-set_dead" => self.set_dead(args),
            _ => Err("unknown command".into()),
        }
    }

    /// A fresh game with the current size, komi and ko rule.
    fn reset(&mut self) {
        self.game = new_game(self.size, self.komi, self.ko_rule);
        self.dead.clear();
    }

    fn boardsize(&mut self, args: &[String]) -> Reply {
        let size: u8 = arg(args, 0)?
            .parse()
            .map_err(|_| "boardsize not an integer")?;
        if !(tengen_rules::MIN_SIZE..=tengen_rules::MAX_SIZE).contains(&size) {
            return Err("unacceptable size".into());
        }
        self.size = size;
        self.reset();
        Ok(String::new())
    }

    fn set_komi(&mut self, args: &[String]) -> Reply {
        self.komi = Komi::parse_points(arg(args, 0)?).map_err(|_| "komi not a float")?;
        // Komi changes the count, not the position: rebuild the game with the same moves.
        let record = sgf::GameRecord::from_game(&self.game, &sgf::GameInfo::default());
        self.game = self
            .rebuild(&record, None)
            .map_err(|_| "cannot apply komi")?;
        Ok(String::new())
    }

    fn set_ko_rule(&mut self, args: &[String]) -> Reply {
        let rule = match arg(args, 0)? {
            "simple" => KoRule::Simple,
            "positional" => KoRule::Positional,
            "situational" => KoRule::Situational,
            _ => return Err("ko rule must be simple, positional or situational".into()),
        };
        let record = sgf::GameRecord::from_game(&self.game, &sgf::GameInfo::default());
        let previous = self.ko_rule;
        self.ko_rule = rule;
        match self.rebuild(&record, None) {
            Ok(game) => {
                self.game = game;
                Ok(String::new())
            }
            Err(err) => {
                self.ko_rule = previous;
                Err(format!("the game so far is illegal under that rule: {err}"))
            }
        }
    }

    /// Replays `record` (up to `moves` moves) under the referee's komi and ko rule.
    fn rebuild(
        &self,
        record: &sgf::GameRecord,
        moves: Option<usize>,
    ) -> Result<Game, sgf::ReplayError> {
        let mut record = record.clone();
        record.info.komi = self.komi;
        if let Some(moves) = moves {
            record.moves.truncate(moves);
        }
        record.replay(self.ko_rule)
    }

    fn play(&mut self, args: &[String]) -> Reply {
        let color = parse_color(arg(args, 0)?)?;
        let mv = self.parse_move(arg(args, 1)?)?;
        if self.game.phase() == Phase::Scoring {
            self.game.resume(color);
        }
        self.game.play_as(color, mv).map_err(|_| "illegal move")?;
        Ok(String::new())
    }

    fn undo(&mut self) -> Reply {
        self.game
            .undo()
            .map(|_| String::new())
            .map_err(|_| "cannot undo".into())
    }

    fn is_legal(&self, args: &[String]) -> Reply {
        let color = parse_color(arg(args, 0)?)?;
        let legal = match self.parse_move(arg(args, 1)?)? {
            Move::Play(point) => self.legal_in_play(color, point),
            Move::Pass | Move::Resign => true,
        };
        Ok(if legal { "1" } else { "0" }.into())
    }

    /// Legality as `play` would judge it: a game in its scoring phase resumes for the move.
    fn legal_in_play(&self, color: Color, point: Point) -> bool {
        if self.game.phase() == Phase::Scoring {
            let mut resumed = self.game.clone();
            resumed.resume(color);
            return resumed.check_play(color, point).is_ok();
        }
        self.game.check_play(color, point).is_ok()
    }

    fn all_legal(&self, args: &[String]) -> Reply {
        let color = parse_color(arg(args, 0)?)?;
        let vertices: Vec<String> = self
            .game
            .board()
            .points()
            .filter(|&p| self.legal_in_play(color, p))
            .map(|p| p.to_gtp(self.size))
            .collect();
        Ok(vertices.join(" "))
    }

    fn list_stones(&self, args: &[String]) -> Reply {
        let color = parse_color(arg(args, 0)?)?;
        let board = self.game.board();
        let stones: Vec<String> = board
            .stones()
            .filter(|(_, c)| *c == color)
            .map(|(p, _)| p.to_gtp(self.size))
            .collect();
        Ok(stones.join(" "))
    }

    fn fixed_handicap(&mut self, args: &[String]) -> Reply {
        let stones: u8 = arg(args, 0)?
            .parse()
            .map_err(|_| "handicap not an integer")?;
        self.require_empty_board()?;
        fixed_handicap_points(stones, self.size).map_err(|_| "invalid number of stones")?;
        let rules = Rules {
            handicap: stones,
            handicap_placement: HandicapPlacement::Fixed,
            ..self.rules()
        };
        self.game = Game::new(rules).map_err(|e| e.to_string())?;
        let black: Vec<String> = self
            .game
            .board()
            .stones()
            .map(|(p, _)| p.to_gtp(self.size))
            .collect();
        Ok(black.join(" "))
    }

    fn set_free_handicap(&mut self, args: &[String]) -> Reply {
        self.require_empty_board()?;
        let points = args
            .iter()
            .map(|v| match self.parse_move(v)? {
                Move::Play(p) => Ok(p),
                _ => Err("bad vertex list".to_string()),
            })
            .collect::<Result<Vec<Point>, String>>()?;
        let total = self.size as usize * self.size as usize;
        if points.len() < 2 || points.len() >= total || points.len() > u8::MAX as usize {
            return Err("bad vertex list".into());
        }
        let mut distinct = points.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() != points.len() {
            return Err("bad vertex list".into());
        }
        // GTP allows more than nine free stones; the game's handicap is however many were placed.
        let mut game = new_game(self.size, self.komi, self.ko_rule);
        game.add_setup_stones(Color::Black, &points)
            .map_err(|_| "bad vertex list")?;
        game.set_first_to_move(Color::White)
            .map_err(|e| e.to_string())?;
        self.game = game;
        Ok(String::new())
    }

    fn require_empty_board(&self) -> Result<(), String> {
        if self.game.board().stones().next().is_some() || !self.game.moves().is_empty() {
            return Err("board not empty".into());
        }
        Ok(())
    }

    fn loadsgf(&mut self, args: &[String]) -> Reply {
        let path = arg(args, 0)?;
        let bytes = std::fs::read(path).map_err(|e| format!("cannot load file: {e}"))?;
        let record = sgf::parse(&bytes).map_err(|e| format!("cannot load file: {e}"))?;
        // GTP's optional move number is the move to stop before.
        let moves = match args.get(1) {
            Some(n) => Some(
                n.parse::<usize>()
                    .map_err(|_| "move number not an integer")?
                    .saturating_sub(1),
            ),
            None => None,
        };
        self.komi = record.info.komi;
        let game = self
            .rebuild(&record, moves)
            .map_err(|e| format!("cannot load file: {e}"))?;
        self.size = record.info.size;
        self.game = game;
        self.dead.clear();
        let next = self.game.to_move();
        Ok(next.to_string())
    }

    fn genmove(&mut self, args: &[String]) -> Reply {
        let color = parse_color(arg(args, 0)?)?;
        if self.game.phase() == Phase::Scoring {
            self.game.resume(color);
        }
        if matches!(
            self.game.phase(),
            Phase::Over { .. } | Phase::PlacingHandicap
        ) {
            return Err("the game is not in play".into());
        }
        let mv = random_move(&self.game, color, &mut self.rng);
        self.game.play_as(color, mv).map_err(|e| e.to_string())?;
        Ok(match mv {
            Move::Play(p) => p.to_gtp(self.size),
            _ => "pass".into(),
        })
    }

    fn set_dead(&mut self, args: &[String]) -> Reply {
        let mut dead = Vec::new();
        for vertex in args {
            match self.parse_move(vertex)? {
                Move::Play(p) if self.game.board().get(p).is_some() => dead.push(p),
                _ => return Err(format!("no stone at {vertex}")),
            }
        }
        self.dead = dead;
        Ok(String::new())
    }

    fn showboard(&self) -> String {
        let board = self.game.board();
        let letters: String = (0..self.size)
            .map(|c| {
                Point::new(c, 0)
                    .to_gtp(self.size)
                    .chars()
                    .next()
                    .unwrap_or('?')
            })
            .flat_map(|c| [' ', c])
            .collect();
        let mut out = format!("\n   {letters}\n");
        for row in 0..self.size {
            let number = self.size - row;
            let _ = write!(out, "{number:>2} ");
            for col in 0..self.size {
                let mark = match board.get(Point::new(col, row)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                };
                let _ = write!(out, " {mark}");
            }
            let _ = writeln!(out, " {number}");
        }
        let _ = write!(out, "   {letters}");
        out
    }

    fn rules(&self) -> Rules {
        Rules {
            size: self.size,
            komi: self.komi,
            ko_rule: self.ko_rule,
            ..Rules::default()
        }
    }

    fn parse_move(&self, vertex: &str) -> Result<Move, String> {
        if vertex.eq_ignore_ascii_case("pass") {
            return Ok(Move::Pass);
        }
        Point::from_gtp(vertex, self.size)
            .map(Move::Play)
            .ok_or_else(|| "invalid coordinate".to_string())
    }
}

fn new_game(size: u8, komi: Komi, ko_rule: KoRule) -> Game {
    let rules = Rules {
        size,
        komi,
        ko_rule,
        ..Rules::default()
    };
    Game::new(rules).expect("a board size already checked")
}

fn arg(args: &[String], index: usize) -> Result<&str, String> {
    args.get(index)
        .map(String::as_str)
        .ok_or_else(|| "syntax error".to_string())
}

fn parse_color(text: &str) -> Result<Color, String> {
    Color::from_gtp(text).ok_or_else(|| "invalid color".to_string())
}
