#[path = "../tests/dead_stones/compare.rs"]
mod compare;
use std::path::PathBuf;
fn main() {
    let cache = PathBuf::from("target/dead-stones-gnugo.tsv");
    let answers = compare::read_answers(&cache);
    let dir = PathBuf::from("/work/shared/data/sgf-corpus/games");
    for (name, answer) in &answers {
        let Some(gnu) = &answer.dead else { continue };
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let Some(c) = compare::counted(name, &bytes) else {
            continue;
        };
        for (p, color, len, pct) in tengen_rules::chain_ownership(c.game.board()) {
            let dead = gnu.contains(&p);
            println!(
                "{name}\t{}\t{color}\t{len}\t{pct}\t{}",
                p.to_gtp(19),
                if dead { "dead" } else { "alive" }
            );
        }
    }
}
