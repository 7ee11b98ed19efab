//! The dead-stone estimate against GNU Go 3.8 on fixed samples of the corpus in `tests/data/sgf-corpus`:
//! 150 counted 19x19 records with a komi (the issue's sample, whose recorded winner also judges a
//! marking) and the 239 counted records whose komi is written as 0 (never used to tune the estimate;
//! their dead sets compare, their winners mean nothing). GNU Go's `final_status_list dead` for each is
//! kept in `tests/data/dead-stones/` (written by `cargo run --release -p tengen-rules --example
//! dead_stones -- --export FILE`, with `--zero-komi` for the second), so CI does not run GNU Go. The
//! tests fail when agreement drops below what the estimate reached, and when a chain dead only for the
//! estimate is one GNU Go's own life-and-death reading (its owl, kept in `gnugo-owl.tsv` and written by
//! the example's `--export-owl`) saves with its owner moving first; docs/dead-stones.md has the figures
//! and the method.

#[path = "dead_stones/compare.rs"]
mod compare;

use compare::{
    compare, counted, counted_by_komi, gtp_list, one_stone_per_chain, read_answers, read_owl,
    Comparison, Counted, Komi,
};
use std::collections::BTreeSet;
use std::path::PathBuf;
use tengen_rules::{estimate_dead, Point};

/// Records in the issue's sample, each with GNU Go's answer.
const RECORDS: usize = 150;
/// Records whose dead set is identical to GNU Go's, as reached (149 of 150).
const IDENTICAL_MIN: usize = 149;
/// Records where counting with the estimate gives the recorded winner, as reached (GNU Go's marking: 145).
const WINNER_RIGHT_MIN: usize = 145;
/// Stones the estimate calls dead where GNU Go calls them alive, as reached (one group of six stones).
const ONLY_OURS_MAX: usize = 6;
/// The counted records with komi 0, each with GNU Go's answer.
const ZERO_KOMI_RECORDS: usize = 239;
/// Of those, records whose dead set is identical to GNU Go's, as reached (227 of 239).
const ZERO_KOMI_IDENTICAL_MIN: usize = 227;
/// Of those, stones dead only for the estimate, as reached (16, in three records).
const ZERO_KOMI_ONLY_OURS_MAX: usize = 16;
/// Of their chains, those GNU Go's reading saves with their owner moving first, as reached: one
/// (`05811.sgf` D2, critical: whoever plays C2 first).
const ZERO_KOMI_SAVED_BY_GNU_MAX: usize = 1;

fn answers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/dead-stones")
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sgf-corpus/games")
}

/// Each record with an answer in `answers` (a file of `answers_dir`), compared with GNU Go's answer.
fn sample(answers: &str, komi: Komi) -> Vec<(Counted, Comparison)> {
    let answers = read_answers(&answers_dir().join(answers));
    answers
        .iter()
        .map(|(name, answer)| {
            let bytes = std::fs::read(corpus_dir().join(name)).unwrap();
            let record = counted_by_komi(name, &bytes, komi)
                .unwrap_or_else(|| panic!("{name} is not counted"));
            let ours: BTreeSet<Point> = estimate_dead(record.game.board()).into_iter().collect();
            let gnu = answer.dead.as_ref().unwrap();
            let comparison = compare(&record, &ours, gnu);
            (record, comparison)
        })
        .collect()
}

/// Prints the records that differ; returns the identical sets and the stones dead only for us.
fn agreement(results: &[(Counted, Comparison)]) -> (usize, usize) {
    for (record, c) in results.iter().filter(|(_, c)| !c.identical) {
        println!(
            "{}: only ours [{}] only GNU Go [{}]",
            record.name,
            gtp_list(&c.only_ours),
            gtp_list(&c.only_gnu)
        );
    }
    let identical = results.iter().filter(|(_, c)| c.identical).count();
    let only_ours = results.iter().map(|(_, c)| c.only_ours.len()).sum();
    println!(
        "identical {identical}/{}, stones dead only for us {only_ours}",
        results.len()
    );
    (identical, only_ours)
}

/// The chains dead only for the estimate that GNU Go's own reading (`gnugo-owl.tsv`) saves with their
/// owner moving first, described. GNU Go's `final_status` calls every one of these chains alive, but it
/// comes from its aftermath, which plays the position out and can leave standing a chain its owl reads
/// as dead. Fails when such a chain has no owl answer in the file, so a new difference gets looked at.
fn saved_by_gnu_go(results: &[(Counted, Comparison)]) -> Vec<String> {
    let owl = read_owl(&answers_dir().join("gnugo-owl.tsv"));
    let mut saved = Vec::new();
    for (record, c) in results {
        let board = record.game.board();
        for stone in one_stone_per_chain(record, &c.only_ours) {
            let chain = board.chain(stone);
            let answer = owl
                .get(&record.name)
                .and_then(|answers| answers.iter().find(|a| chain.contains(&a.stone)))
                .unwrap_or_else(|| {
                    panic!(
                        "{} {}: dead only for the estimate, and no GNU Go owl answer in \
                         gnugo-owl.tsv (write it with the example's --export-owl)",
                        record.name,
                        stone.to_gtp(19)
                    )
                });
            let described = format!("{}: {}", record.name, answer.describe());
            println!("{described}");
            if answer.lives_moving_first() {
                saved.push(described);
            }
        }
    }
    saved
}

#[test]
fn the_estimate_agrees_with_gnu_go_on_the_sample() {
    let results = sample("gnugo.tsv", Komi::NonZero);
    assert_eq!(results.len(), RECORDS, "answers in gnugo.tsv");
    let (identical, only_ours) = agreement(&results);
    let winner_right = results.iter().filter(|(_, c)| c.our_winner_right).count();
    let gnu_winner_right = results.iter().filter(|(_, c)| c.gnu_winner_right).count();
    println!("winner right {winner_right} (GNU Go {gnu_winner_right})");
    assert!(
        identical >= IDENTICAL_MIN,
        "identical dead sets: {identical}"
    );
    assert!(
        winner_right >= WINNER_RIGHT_MIN,
        "winner right: {winner_right}"
    );
    assert!(
        winner_right + 1 >= gnu_winner_right,
        "more than one game behind GNU Go"
    );
    assert!(
        only_ours <= ONLY_OURS_MAX,
        "stones dead only for us: {only_ours}"
    );
    // None of the chains dead only for us on the sample is one GNU Go's reading saves, as reached: the
    // six stones are one chain in `02857.sgf` that GNU Go's owl calls dead even with White moving first;
    // only its aftermath leaves them standing.
    let saved = saved_by_gnu_go(&results);
    assert!(
        saved.is_empty(),
        "dead only for us, and GNU Go's reading saves them: {saved:?}"
    );
}

/// The records the estimate was never tuned on: a change fitted to the sample above shows here.
#[test]
fn the_estimate_agrees_with_gnu_go_on_the_records_with_komi_0() {
    let results = sample("gnugo-zero-komi.tsv", Komi::Zero);
    assert_eq!(
        results.len(),
        ZERO_KOMI_RECORDS,
        "answers in gnugo-zero-komi.tsv"
    );
    let (identical, only_ours) = agreement(&results);
    assert!(
        identical >= ZERO_KOMI_IDENTICAL_MIN,
        "identical dead sets: {identical}"
    );
    assert!(
        only_ours <= ZERO_KOMI_ONLY_OURS_MAX,
        "stones dead only for us: {only_ours}"
    );
    let saved = saved_by_gnu_go(&results);
    assert!(
        saved.len() <= ZERO_KOMI_SAVED_BY_GNU_MAX,
        "dead only for us, and GNU Go's reading saves them: {saved:?}"
    );
}

/// The chains the issue named as left standing: two chains inside the opponent's corner sharing one
/// liberty, an enclosed chain with two liberties that are not eyes, and a chain along the edge in the
/// opponent's corner.
#[test]
fn the_chains_named_in_the_issue_are_dead() {
    let cases: &[(&str, &[&str])] = &[
        (
            "04019.sgf",
            &["Q18", "R18", "Q17", "S19", "T19", "T18", "T17", "S17"],
        ),
        (
            "01030.sgf",
            &["O2", "P2", "P3", "P4", "Q3", "R3", "R2", "S2"],
        ),
        (
            "01572.sgf",
            &["B19", "C19", "C18", "C17", "C16", "C15", "D15"],
        ),
    ];
    for (name, stones) in cases {
        let bytes = std::fs::read(corpus_dir().join(name)).unwrap();
        let record = counted(name, &bytes).unwrap();
        let dead = estimate_dead(record.game.board());
        for text in *stones {
            let point = Point::from_gtp(text, 19).unwrap();
            assert!(dead.contains(&point), "{name}: {text} should be dead");
        }
    }
}

/// Stones in atari inside a seki stay alive: GNU Go's `final_status` answers `seki` for each. In `02669.sgf`
/// Black's chain S19..P15 (liberties T19 and O15) and White's N14 O14 P14 (O15 and Q14) share O15, and
/// White's T18 in atari at T19 and Black's T14 in atari at S14 sit beside them; in `04181.sgf` White's A3
/// group (A1 and C2), Black's C1 D1 (C2 and E1) and Black's F1 group (E1 and G1) hold Black's A2 and
/// White's H1 in atari. The playouts always take these stones, which made the estimate call them dead.
#[test]
fn stones_in_atari_inside_a_seki_stay_alive() {
    let cases: &[(&str, &[&str])] = &[("02669.sgf", &["T18", "T14"]), ("04181.sgf", &["A2", "H1"])];
    for (name, stones) in cases {
        let bytes = std::fs::read(corpus_dir().join(name)).unwrap();
        let record = counted(name, &bytes).unwrap();
        let dead = estimate_dead(record.game.board());
        for text in *stones {
            let point = Point::from_gtp(text, 19).unwrap();
            assert!(!dead.contains(&point), "{name}: {text} should stay alive");
        }
    }
}
