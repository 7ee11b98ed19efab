//! Measures the dead-stone estimate against GNU Go 3.8 on counted 19x19 records of the corpus.
//!
//! ```text
//! cargo run --release -p tengen-rules --example dead_stones -- --corpus DIR --count 150
//! ```
//!
//! Takes `--count` records spread evenly over the counted records of `--corpus` (default: the corpus in
//! `rules/tests/data/sgf-corpus`, or `$TENGEN_SGF_CORPUS`; see `compare::counted` for which count),
//! replays each to its final position, runs `estimate_dead` and GNU Go (`gnugo --mode gtp --chinese-rules`,
//! `loadsgf` then `final_status_list dead`, at most `--timeout` seconds per position), and prints how often
//! the dead sets are identical, the stones that differ, how often the count's winner is the recorded
//! winner with each marking, and the time per estimate of each. GNU Go's answers are cached in `--cache`
//! (default `target/dead-stones-gnugo.tsv`), so reruns only run our estimate; records missing there
//! are taken from the answers committed for the CI tests before GNU Go is run. `--export FILE` writes GNU
//! Go's answers for the sample, which the CI test reads (`rules/tests/data/dead-stones/gnugo.tsv`); `--verbose` lists every record that differs;
//! `--show` also draws each differing board; `--cached-only` compares only the records already in the cache, without running GNU Go.
//! `--owl` asks GNU Go, for each chain dead only for Tengen, what its own reading says of it (see
//! `compare::OwlAnswer`; printed with `--verbose`); `--export-owl FILE` also writes those answers into
//! FILE for the records compared (the CI test reads `rules/tests/data/dead-stones/gnugo-owl.tsv`).
//! `--fresh` runs GNU Go on every record, whatever is cached, so that both times come from one run.
//! `--zero-komi` takes the counted records whose komi is written as 0 instead (see `compare::Komi`):
//! records the estimate was never tuned on, whose dead sets compare but whose winner figures mean nothing.

#[path = "../../tests/dead_stones/compare.rs"]
mod compare;
mod gnugo;

use compare::{
    answer_line, compare, counted_by_komi, gtp_list, one_stone_per_chain, owl_line, read_answers,
    read_owl, Comparison, Counted, GnuAnswer, Komi, OwlAnswer,
};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tengen_rules::{estimate_dead, Point};

struct Args {
    corpus: PathBuf,
    count: usize,
    cache: PathBuf,
    gnugo: PathBuf,
    timeout: Duration,
    export: Option<PathBuf>,
    verbose: bool,
    cached_only: bool,
    show: bool,
    owl: bool,
    export_owl: Option<PathBuf>,
    fresh: bool,
    komi: Komi,
}

fn parse_args() -> Result<Args, String> {
    let rules = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut args = Args {
        corpus: std::env::var_os("TENGEN_SGF_CORPUS")
            .map(PathBuf::from)
            .unwrap_or_else(|| rules.join("tests/data/sgf-corpus/games")),
        count: 150,
        cache: rules.join("../target/dead-stones-gnugo.tsv"),
        gnugo: PathBuf::from("/usr/games/gnugo"),
        timeout: Duration::from_secs(60),
        export: None,
        verbose: false,
        cached_only: false,
        show: false,
        owl: false,
        export_owl: None,
        fresh: false,
        komi: Komi::NonZero,
    };
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        let mut value = || words.next().ok_or(format!("{word} needs a value"));
        match word.as_str() {
            "--corpus" => args.corpus = value()?.into(),
            "--count" => args.count = value()?.parse().map_err(|e| format!("--count: {e}"))?,
            "--cache" => args.cache = value()?.into(),
            "--gnugo" => args.gnugo = value()?.into(),
            "--timeout" => {
                let seconds = value()?.parse().map_err(|e| format!("--timeout: {e}"))?;
                args.timeout = Duration::from_secs(seconds);
            }
            "--export" => args.export = Some(value()?.into()),
            "--verbose" => args.verbose = true,
            "--cached-only" => args.cached_only = true,
            "--fresh" => args.fresh = true,
            "--show" => args.show = true,
            "--owl" => args.owl = true,
            "--export-owl" => {
                args.export_owl = Some(value()?.into());
                args.owl = true;
            }
            "--zero-komi" => args.komi = Komi::Zero,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    // A corpus directory holding `games/` is accepted too.
    if args.corpus.join("games").is_dir() {
        args.corpus = args.corpus.join("games");
    }
    Ok(args)
}

/// `count` counted records spread evenly over all counted records of the corpus, in name order.
fn select(corpus: &Path, count: usize, komi: Komi) -> Result<Vec<(Counted, PathBuf)>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus)
        .map_err(|e| format!("{}: {e}", corpus.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "sgf"))
        .collect();
    paths.sort();
    let all: Vec<(Counted, PathBuf)> = paths
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).ok()?;
            Some((counted_by_komi(&name, &bytes, komi)?, path))
        })
        .collect();
    let which = match komi {
        Komi::NonZero => "with komi",
        Komi::Zero => "with komi 0 (winner figures mean nothing)",
    };
    println!(
        "{} counted 19x19 records {which} in {}",
        all.len(),
        corpus.display()
    );
    let step = (all.len() as f64 / count.max(1) as f64).max(1.0);
    let mut picked = Vec::new();
    for (index, item) in all.into_iter().enumerate() {
        if picked.len() < count && index >= (picked.len() as f64 * step) as usize {
            picked.push(item);
        }
    }
    Ok(picked)
}

/// GNU Go's answers for `picked`, from the cache, else from the answers committed for the CI tests
/// (`rules/tests/data/dead-stones/`: the sample and the records with komi 0, so a fresh checkout
/// measures those without GNU Go), else by running GNU Go (and appending to the cache). With
/// `--fresh`, GNU Go runs on every record, so both estimates are timed in the same run.
fn gnu_answers(args: &Args, picked: &[(Counted, PathBuf)]) -> BTreeMap<String, GnuAnswer> {
    let committed = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/dead-stones");
    let mut answers = BTreeMap::new();
    if !args.fresh {
        answers.extend(read_answers(&committed.join("gnugo.tsv")));
        answers.extend(read_answers(&committed.join("gnugo-zero-komi.tsv")));
        answers.extend(read_answers(&args.cache));
    }
    let missing: Vec<_> = picked
        .iter()
        .filter(|(c, _)| !answers.contains_key(&c.name))
        .collect();
    if missing.is_empty() || args.cached_only {
        return answers;
    }
    println!(
        "running GNU Go on {} records not in {}",
        missing.len(),
        args.cache.display()
    );
    if let Some(dir) = args.cache.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut cache = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.cache)
        .ok();
    for (index, (counted, path)) in missing.iter().enumerate() {
        let answer = gnugo::dead_list(&args.gnugo, path, args.timeout);
        println!(
            "  {}/{} {} {} ms",
            index + 1,
            missing.len(),
            counted.name,
            answer.millis
        );
        if let Some(file) = cache.as_mut() {
            let _ = writeln!(file, "{}", answer_line(&counted.name, &answer));
        }
        answers.insert(counted.name.clone(), answer);
    }
    answers
}

/// The median, 90th percentile and maximum of `times`, in milliseconds.
fn percentiles(times: &mut [f64]) -> String {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| {
        times
            .get(((times.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    format!(
        "median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        at(0.5),
        at(0.9),
        at(1.0)
    )
}

/// Writes GNU Go's answers for the sample where the CI test reads them (the records are in the corpus).
fn export(
    file: &Path,
    picked: &[(Counted, PathBuf)],
    answers: &BTreeMap<String, GnuAnswer>,
) -> std::io::Result<()> {
    let lines: Vec<String> = picked
        .iter()
        .filter_map(|(counted, _)| {
            let answer = answers.get(&counted.name).filter(|a| a.dead.is_some())?;
            Some(answer_line(&counted.name, answer))
        })
        .collect();
    std::fs::write(file, lines.join("\n") + "\n")
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("dead_stones: {message}");
            std::process::exit(2);
        }
    };
    let picked = match select(&args.corpus, args.count, args.komi) {
        Ok(picked) => picked,
        Err(message) => {
            eprintln!("dead_stones: {message}");
            std::process::exit(1);
        }
    };
    let answers = gnu_answers(&args, &picked);
    let owl = report(&args, &picked, &answers);
    if let Some(file) = &args.export_owl {
        if let Err(e) = export_owl(file, &owl) {
            eprintln!("dead_stones: export to {}: {e}", file.display());
            std::process::exit(1);
        }
        println!("wrote GNU Go's owl answers to {}", file.display());
    }
    if let Some(file) = &args.export {
        if let Err(e) = export(file, &picked, &answers) {
            eprintln!("dead_stones: export to {}: {e}", file.display());
            std::process::exit(1);
        }
        println!(
            "exported GNU Go's answers for the sample to {}",
            file.display()
        );
    }
}

/// Runs the estimate on every picked record with a GNU Go answer and prints the figures; returns, per
/// record compared, GNU Go's owl answers for the chains dead only for Tengen (with `--owl`).
fn report(
    args: &Args,
    picked: &[(Counted, PathBuf)],
    answers: &BTreeMap<String, GnuAnswer>,
) -> BTreeMap<String, Vec<OwlAnswer>> {
    let (mut ours_ms, mut gnu_ms, mut results) = (Vec::new(), Vec::new(), Vec::new());
    let mut owl = BTreeMap::new();
    let mut timed_out = 0;
    for (counted, path) in picked {
        let Some(answer) = answers.get(&counted.name) else {
            continue;
        };
        gnu_ms.push(answer.millis as f64);
        let Some(gnu) = &answer.dead else {
            timed_out += 1;
            continue;
        };
        let started = Instant::now();
        let ours: BTreeSet<Point> = estimate_dead(counted.game.board()).into_iter().collect();
        ours_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        let comparison = compare(counted, &ours, gnu);
        if args.verbose && !comparison.identical {
            print_difference(counted, &comparison);
            if args.show {
                print_board(counted, &comparison);
            }
        }
        if args.owl {
            owl.insert(
                counted.name.clone(),
                ask_owl(args, counted, path, &comparison),
            );
        }
        results.push(comparison);
    }
    print_figures(&results, timed_out);
    println!("time per estimate, Tengen: {}", percentiles(&mut ours_ms));
    println!("time per estimate, GNU Go: {}", percentiles(&mut gnu_ms));
    owl
}

/// GNU Go's owl answers for the chains of `comparison` dead only for Tengen, printed with `--verbose`.
fn ask_owl(args: &Args, counted: &Counted, path: &Path, comparison: &Comparison) -> Vec<OwlAnswer> {
    if comparison.only_ours.is_empty() {
        return Vec::new();
    }
    let stones = one_stone_per_chain(counted, &comparison.only_ours);
    let Some(answers) = gnugo::owl_answers(&args.gnugo, path, args.timeout, &stones) else {
        println!(
            "  {}: GNU Go did not start or load the record",
            counted.name
        );
        return Vec::new();
    };
    if args.verbose {
        for answer in &answers {
            println!("  {}", answer.describe());
        }
    }
    answers
}

/// Writes the owl answers of this run into `file`, keeping the lines of records this run did not
/// compare, so one file holds the sample's and the komi-0 records' answers.
fn export_owl(file: &Path, owl: &BTreeMap<String, Vec<OwlAnswer>>) -> std::io::Result<()> {
    let mut all = read_owl(file);
    for (name, answers) in owl {
        all.remove(name);
        if !answers.is_empty() {
            all.insert(name.clone(), answers.clone());
        }
    }
    let lines: Vec<String> = all
        .iter()
        .flat_map(|(name, answers)| answers.iter().map(|a| owl_line(name, a)))
        .collect();
    std::fs::write(file, lines.join("\n") + "\n")
}

fn print_difference(counted: &Counted, c: &Comparison) {
    println!(
        "{}: only ours [{}] only GNU Go [{}] winner right: ours {} GNU Go {}",
        counted.name,
        gtp_list(&c.only_ours),
        gtp_list(&c.only_gnu),
        c.our_winner_right,
        c.gnu_winner_right
    );
}

fn print_figures(results: &[Comparison], timed_out: usize) {
    let n = results.len();
    let pct = |k: usize| 100.0 * k as f64 / n.max(1) as f64;
    let identical = results.iter().filter(|c| c.identical).count();
    let only_ours: usize = results.iter().map(|c| c.only_ours.len()).sum();
    let only_gnu: usize = results.iter().map(|c| c.only_gnu.len()).sum();
    let ours_right = results.iter().filter(|c| c.our_winner_right).count();
    let gnu_right = results.iter().filter(|c| c.gnu_winner_right).count();
    println!("records compared: {n} (GNU Go timed out or failed on {timed_out} more)");
    println!(
        "dead sets identical: {identical}/{n} ({:.1}%)",
        pct(identical)
    );
    println!(
        "stones differing: {} ({only_ours} dead only for Tengen, {only_gnu} dead only for GNU Go)",
        only_ours + only_gnu
    );
    println!("winner of the count = recorded winner: Tengen {ours_right}/{n} ({:.1}%), GNU Go {gnu_right}/{n} ({:.1}%)", pct(ours_right), pct(gnu_right));
}

/// The final position, dead stones as lower case: `x`/`o` where only Tengen, `b`/`w` where only GNU Go,
/// `d`/`e` where both call the stone dead.
fn print_board(counted: &Counted, c: &Comparison) {
    let board = counted.game.board();
    let size = board.size();
    for row in 0..size {
        let mut line = format!("{:>2} ", size - row);
        for col in 0..size {
            let p = Point::new(col, row);
            let (ours, gnu) = (c.ours.contains(&p), c.gnu.contains(&p));
            let mark = match (board.get(p), ours, gnu) {
                (None, _, _) => '.',
                (Some(tengen_rules::Color::Black), false, false) => 'X',
                (Some(tengen_rules::Color::White), false, false) => 'O',
                (Some(tengen_rules::Color::Black), true, false) => 'x',
                (Some(tengen_rules::Color::White), true, false) => 'o',
                (Some(tengen_rules::Color::Black), false, true) => 'b',
                (Some(tengen_rules::Color::White), false, true) => 'w',
                (Some(tengen_rules::Color::Black), true, true) => 'd',
                (Some(tengen_rules::Color::White), true, true) => 'e',
            };
            line.push(mark);
            line.push(' ');
        }
        println!("{line}");
    }
    println!("   A B C D E F G H J K L M N O P Q R S T");
}
