//! `tengen gtp` driven as a Go tool drives it: the real binary, commands on stdin, replies on stdout.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the referee on `script` and returns each reply (`= ...` or `? ...`) in order.
fn gtp(script: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["gtp", "--seed", "7"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start tengen gtp");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .split("\n\n")
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn identifies_itself_and_lists_its_commands() {
    let replies =
        gtp("protocol_version\n1 name\nknown_command play\nknown_command fly\nlist_commands\n");
    assert_eq!(replies[0], "= 2");
    assert_eq!(replies[1], "=1 Tengen");
    assert_eq!(replies[2], "= true");
    assert_eq!(replies[3], "= false");
    for command in [
        "final_score",
        "genmove",
        "tengen-ko_rule",
        "tengen-set_dead",
        "loadsgf",
        "printsgf",
    ] {
        assert!(
            replies[4]
                .lines()
                .any(|l| l.trim_start_matches("=") == command),
            "{command}"
        );
    }
}

#[test]
fn plays_captures_and_refuses_illegal_moves_with_gtp_errors() {
    let replies = gtp(
        "boardsize 9\nclear_board\nplay b D5\nplay w E5\nplay b E6\nplay w D6\nplay b F5\nplay w D4\n\
         play b E4\ncaptures black\nlist_stones white\nplay w E5\nis_legal w E5\nplay w E5\nplay b I9\n\
         play black J9\nplay b zz\nplay purple A1\nplay b\nfly\nundo\nlist_stones black\n",
    );
    let expected = [
        "=",
        "=",
        "=",
        "=",
        "=",
        "=",
        "=",
        "=", // setup and the first six moves
        "=",
        "= 1", // Black's E4 took E5
        "= D6 D4",
        "? illegal move", // White retaking the ko at once
        "= 0",
        "? illegal move",
        "? invalid coordinate", // there is no I column
        "=",
        "? invalid coordinate",
        "? invalid color",
        "? syntax error",
        "? unknown command",
        "=",
        "= E6 D5 F5 E4",
    ];
    let replies: Vec<&str> = replies.iter().map(String::as_str).collect();
    assert_eq!(replies, expected);
}

#[test]
fn scores_with_dead_stones_and_komi() {
    // A 5x5 board split down the middle, with one White stone left inside Black's side.
    let replies = gtp(
        "boardsize 5\nkomi 0\nplay b C1\nplay w D1\nplay b C2\nplay w D2\nplay b C3\nplay w D3\n\
         play b C4\nplay w D4\nplay b C5\nplay w D5\nplay b pass\nplay w A4\nfinal_score\n\
         tengen-set_dead A4\nfinal_score\ntengen-set_dead B2\nkomi 5.5\nfinal_score\n",
    );
    let last: Vec<&str> = replies
        .iter()
        .rev()
        .take(6)
        .rev()
        .map(String::as_str)
        .collect();
    // All alive: Black 5 stones; White 6 stones and the E column; the A and B columns touch both: 10 to 16.
    // A4 dead: Black 5 stones and 10 points of territory against White's 10. A refused mark keeps A4 dead.
    assert_eq!(
        last,
        ["= W+6", "=", "= B+5", "? no stone at B2", "=", "= W+0.5"]
    );
}

#[test]
fn handicap_genmove_and_sgf() {
    let dir = std::env::temp_dir().join(format!("tengen-gtp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.sgf");
    std::fs::write(&path, "(;GM[1]SZ[9]KM[6.5];B[ee];W[cc];B[gg])").unwrap();
    let script = format!(
        "boardsize 19\nfixed_handicap 4\nfixed_handicap 2\nclear_board\nset_free_handicap A1 T19 K10\n\
         genmove w\ngenmove b\nloadsgf {}\nlist_stones black\nloadsgf {} 3\nlist_stones black\nprintsgf\n\
         loadsgf /nonexistent.sgf\nboardsize 26\nboardsize 2\ngenmove b\ngenmove w\n",
        path.display(),
        path.display()
    );
    let replies = gtp(&script);
    assert_eq!(replies[0], "=");
    assert_eq!(replies[1], "= D16 Q16 D4 Q4", "the four corner star points");
    assert_eq!(replies[2], "? board not empty");
    assert_eq!(replies[4], "=");
    assert!(
        replies[5].starts_with("=") && replies[5].len() > 2,
        "{}",
        replies[5]
    );
    assert!(replies[6].starts_with("="), "{}", replies[6]);
    assert_eq!(replies[7], "= white");
    assert_eq!(replies[8], "= E5 G3");
    assert_eq!(replies[9], "= black");
    assert_eq!(replies[10], "= E5");
    assert!(
        replies[11].starts_with("= (;FF[4]GM[1]CA[UTF-8]AP[Tengen]SZ[9]KM[6.5]"),
        "{}",
        replies[11]
    );
    assert!(replies[12].starts_with("? cannot load file"));
    assert_eq!(replies[13], "? unacceptable size");
    assert_eq!(replies[14], "=");
    // On 2x2 random play soon has nothing but passes or a few stones; it never fails.
    assert!(replies[15].starts_with("=") && replies[16].starts_with("="));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_ko_rule_can_be_switched_to_any_of_three() {
    // The rules crate tests what each rule allows; here the command and its error.
    let replies = gtp(
        "boardsize 5\ntengen-ko_rule simple\ntengen-ko_rule eternal\ntengen-ko_rule situational\n",
    );
    assert_eq!(replies[1], "=");
    assert_eq!(
        replies[2],
        "? ko rule must be simple, positional or situational"
    );
    assert_eq!(replies[3], "=");
}

#[test]
fn garbage_input_never_stops_the_referee() {
    let mut script = String::new();
    script.push_str("\u{1}\u{2}play b A1 # a comment\n");
    script.push_str(&"x".repeat(200_000));
    script.push('\n');
    script.push_str("\t\tname\n");
    script.push_str("\u{FFFD}\u{FFFD}\n");
    script.push_str("quit\nname\n");
    let replies = gtp(&script);
    assert_eq!(
        replies,
        [
            "=",
            "? command line too long",
            "= Tengen",
            "? unknown command",
            "="
        ]
    );
}
