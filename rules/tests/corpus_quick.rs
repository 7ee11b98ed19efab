use tengen_rules::{sgf, KoRule};
#[test]
fn quick() {
    let dir = "../../shared/data/sgf-corpus/games";
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut bad = 0;
    for path in &entries {
        let bytes = std::fs::read(path).unwrap();
        match sgf::parse(&bytes) {
            Err(e) => {
                bad += 1;
                println!("{}: parse {e}", path.display());
            }
            Ok(rec) => {
                if !rec.warnings.is_empty() {
                    println!("{}: warn {:?}", path.display(), rec.warnings);
                }
                if let Err(e) = rec.replay(KoRule::Positional) {
                    bad += 1;
                    let simple = rec
                        .replay(KoRule::Simple)
                        .map(|_| "ok".to_string())
                        .unwrap_or_else(|e| e.to_string());
                    println!("{}: replay {e} / simple: {simple}", path.display());
                }
            }
        }
    }
    println!("{} files, {bad} bad", entries.len());
}
