//! The event scenario's checks, from what the players saw and the event as the server finally shows
//! it: every game ended and its result is in the event as both its players saw it, no pair met
//! twice, and the standings equal a recomputation. The recomputation builds a `tengen_pairing::Event`
//! from the rounds the entrants were paired in and the results their games' `ended` events told,
//! asks it for its standings, and compares them with the server's figure by figure. Pure: it is
//! tested without a network.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{json, Value};
use tengen_protocol::{EventOutcome, EventView, Standings, UserId};

use crate::event::Seen;

/// Differences listed in the report (the count is always exact).
const DIFFERENCES_SHOWN: usize = 10;

/// What the checks found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Checked {
    /// Whether the server's event could be read at the end.
    pub view_read: bool,
    /// The event's status at the end (`finished` after the last round).
    pub final_status: String,
    /// Rounds of the final event with every result in.
    pub rounds_finished: u32,
    /// Boards of every round paired.
    pub games: u64,
    /// Boards whose end a player heard.
    pub games_ended: u64,
    /// Boards with a result in the final event.
    pub results_in_event: u64,
    /// Boards whose result in the event differs from what a player saw, or whose two players saw
    /// different pairings or results.
    pub results_disagreeing: u64,
    pub counted_ends: u64,
    pub black_wins: u64,
    pub white_wins: u64,
    pub draws: u64,
    /// Pairs of players who met more than once.
    pub repeated_pairs: u64,
    /// Why the event could not be rebuilt from what the players saw, if it could not.
    pub rebuild_error: Option<String>,
    pub standings_match: bool,
    /// Figures that differ between the server's standings and the recomputation.
    pub standings_differences: u64,
    pub differences_shown: Vec<String>,
}

/// One board as its players saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Board {
    black: UserId,
    white: UserId,
    outcome: Option<EventOutcome>,
    counted: bool,
}

/// Everything the players saw, by round and board; `disagreeing` counts boards whose two players
/// saw different things.
#[derive(Debug, Default)]
struct Observed {
    boards: BTreeMap<(u32, u32), Board>,
    byes: BTreeMap<u32, Vec<UserId>>,
    resting: BTreeMap<u32, Vec<UserId>>,
    disagreeing: BTreeSet<(u32, u32)>,
}

fn observe(seen: &[Seen]) -> Observed {
    let mut observed = Observed::default();
    for item in seen {
        match item {
            Seen::Board {
                round,
                board,
                black,
                white,
                outcome,
                counted,
                ..
            } => {
                let this = Board {
                    black: *black,
                    white: *white,
                    outcome: *outcome,
                    counted: *counted,
                };
                let key = (*round, *board);
                match observed.boards.get(&key) {
                    Some(first) if *first != this => {
                        observed.disagreeing.insert(key);
                    }
                    Some(_) => {}
                    None => {
                        observed.boards.insert(key, this);
                    }
                }
            }
            Seen::Bye {
                round,
                player,
                resting,
            } => {
                let list = if *resting {
                    &mut observed.resting
                } else {
                    &mut observed.byes
                };
                list.entry(*round).or_default().push(*player);
            }
        }
    }
    observed
}

/// Check the run: `seen` is what the players saw, `view` the event at the end.
pub fn check(seen: &[Seen], view: Option<&EventView>) -> Checked {
    let observed = observe(seen);
    let mut checked = Checked {
        games_ended: observed
            .boards
            .values()
            .filter(|b| b.outcome.is_some())
            .count() as u64,
        counted_ends: observed.boards.values().filter(|b| b.counted).count() as u64,
        ..Checked::default()
    };
    for outcome in observed.boards.values().filter_map(|b| b.outcome) {
        match outcome {
            EventOutcome::BlackWins => checked.black_wins += 1,
            EventOutcome::WhiteWins => checked.white_wins += 1,
            EventOutcome::Draw | EventOutcome::BothLose => checked.draws += 1,
        }
    }
    let Some(view) = view else {
        checked.rebuild_error = Some("the event could not be read at the end".into());
        return checked;
    };
    checked.view_read = true;
    checked.final_status = serde_json::to_value(view.summary.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    check_boards(&mut checked, &observed, view);
    match rebuild(&observed, view) {
        Ok(recomputed) => compare(&mut checked, &view.standings, &recomputed),
        Err(err) => checked.rebuild_error = Some(err),
    }
    checked
}

/// Every board of the event: ended, its result as its players saw it, no pair twice.
fn check_boards(checked: &mut Checked, observed: &Observed, view: &EventView) {
    let mut pairs = BTreeSet::new();
    let mut disagreeing = observed.disagreeing.clone();
    for round in &view.rounds {
        let mut all_in = true;
        for board in &round.boards {
            checked.games += 1;
            all_in &= board.outcome.is_some();
            if board.outcome.is_some() {
                checked.results_in_event += 1;
            }
            let key = (round.number, board.board);
            let agrees = observed.boards.get(&key).is_some_and(|seen| {
                seen.black == board.black
                    && seen.white == board.white
                    && seen.outcome == board.outcome
            });
            if !agrees {
                disagreeing.insert(key);
            }
            let pair = (board.black.min(board.white), board.black.max(board.white));
            if !pairs.insert(pair) {
                checked.repeated_pairs += 1;
            }
        }
        if all_in {
            checked.rounds_finished += 1;
        }
    }
    checked.results_disagreeing = disagreeing.len() as u64;
}

/// The event as the players saw it, in `tengen-pairing`'s stored form: the event's format and
/// entrants (in seeding order), each round's boards with the results the players saw.
fn rebuild(observed: &Observed, view: &EventView) -> Result<Standings, String> {
    let entrants: Vec<Value> = view
        .entrants
        .iter()
        .map(|e| json!({"player": e.player.user.0, "warnings": e.warnings, "withdrawn": null}))
        .collect();
    let numbers: BTreeSet<u32> = observed
        .boards
        .keys()
        .map(|(round, _)| *round)
        .chain(observed.byes.keys().copied())
        .chain(observed.resting.keys().copied())
        .collect();
    let rounds: Vec<Value> = numbers
        .iter()
        .map(|&number| {
            let games: Vec<Value> = observed
                .boards
                .range((number, 0)..=(number, u32::MAX))
                .map(|((_, table), b)| {
                    json!({"table": table, "black": b.black.0, "white": b.white.0, "outcome": b.outcome})
                })
                .collect();
            let ids = |list: &BTreeMap<u32, Vec<UserId>>| -> Vec<u64> {
                list.get(&number).map_or(Vec::new(), |l| l.iter().map(|u| u.0).collect())
            };
            json!({"number": number, "games": games, "byes": ids(&observed.byes), "resting": ids(&observed.resting)})
        })
        .collect();
    let stored = json!({
        "settings": {"format": view.summary.format, "final_tie": view.final_tie, "seed": 0},
        "entrants": entrants,
        "rounds": rounds,
    });
    let event: tengen_pairing::Event =
        serde_json::from_value(stored).map_err(|err| format!("cannot rebuild the event: {err}"))?;
    Ok(event.standings())
}

/// The server's standings against the recomputed ones, figure by figure.
fn compare(checked: &mut Checked, server: &Standings, recomputed: &Standings) {
    let mut differences = Vec::new();
    let (server, recomputed) = (to_value(server), to_value(recomputed));
    for key in ["criteria", "final_tie", "rounds", "highest_score"] {
        if server.get(key) != recomputed.get(key) {
            differences.push(format!(
                "{key}: server {}, recomputed {}",
                show(server.get(key)),
                show(recomputed.get(key))
            ));
        }
    }
    let rows = |v: &Value| {
        v.get("rows")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (server_rows, recomputed_rows) = (rows(&server), rows(&recomputed));
    if server_rows.len() != recomputed_rows.len() {
        differences.push(format!(
            "rows: server {}, recomputed {}",
            server_rows.len(),
            recomputed_rows.len()
        ));
    }
    for (place, (a, b)) in server_rows.iter().zip(&recomputed_rows).enumerate() {
        let Some(fields) = a.as_object() else {
            continue;
        };
        for (field, value) in fields {
            if b.get(field) != Some(value) {
                differences.push(format!(
                    "row {} (player {}): {field} server {}, recomputed {}",
                    place + 1,
                    show(a.get("player")),
                    show(Some(value)),
                    show(b.get(field))
                ));
            }
        }
    }
    checked.standings_differences = differences.len() as u64;
    checked.standings_match = differences.is_empty();
    differences.truncate(DIFFERENCES_SHOWN);
    checked.differences_shown = differences;
}

fn to_value(standings: &Standings) -> Value {
    serde_json::to_value(standings).unwrap_or(Value::Null)
}

fn show(value: Option<&Value>) -> String {
    value.map_or("-".into(), Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_pairing::{Event, EventOutcome, FinalTie, Format, PlayerId, Settings, SwissRanking};
    use tengen_protocol::GameId;

    /// A 6-player Swiss of 3 rounds played out by `tengen-pairing` (the lower seed wins, except
    /// that every third game goes to White), as the server would run it.
    fn played() -> Event {
        let format = Format::Swiss {
            rounds: 3,
            out_after_losses: None,
            ranking: SwissRanking::TotalScore,
        };
        let settings = Settings {
            format,
            final_tie: FinalTie::Stands,
            seed: 11,
        };
        let players: Vec<PlayerId> = (1..=6).map(PlayerId).collect();
        let mut event = Event::new(settings, &players).unwrap();
        let mut n = 0;
        while !event.is_over() {
            let round = event.pair_next_round().unwrap().clone();
            for game in &round.games {
                n += 1;
                let outcome = if n % 3 == 0 || game.white < game.black {
                    EventOutcome::WhiteWins
                } else {
                    EventOutcome::BlackWins
                };
                event.record(round.number, game.table, outcome).unwrap();
            }
        }
        event
    }

    fn player(id: u64) -> Value {
        json!({"user": id, "username": format!("p{id}"), "rank": "?", "rating": 1500})
    }

    /// The event as the server shows it: its rounds with game ids, and its standings.
    fn view(event: &Event) -> EventView {
        let rounds: Vec<Value> = event
            .rounds()
            .iter()
            .map(|r| {
                let boards: Vec<Value> = r
                    .games
                    .iter()
                    .map(|g| json!({"board": g.table, "black": g.black.0, "white": g.white.0, "game": 100 * r.number + g.table, "outcome": g.outcome}))
                    .collect();
                json!({"number": r.number, "boards": boards, "byes": r.byes, "resting": r.resting})
            })
            .collect();
        let entrants: Vec<Value> = event
            .entrants()
            .iter()
            .map(|e| json!({"player": player(e.player.0), "warnings": 0, "withdrawn": false}))
            .collect();
        let settings = json!({"size": 9, "komi_half_points": 15, "handicap": 0, "ko_rule": "positional", "clock": {"kind": "none"}, "nigiri": false});
        serde_json::from_value(json!({
            "summary": {"event": 1, "name": "t", "director": player(99), "format": event.settings().format, "status": "finished", "entrants_count": 6, "players_max": 6, "rounds_count": 3},
            "final_tie": "stands", "settings": settings, "entrants": entrants, "rounds": rounds,
            "standings": event.standings(), "winner": null, "log": [],
        }))
        .unwrap()
    }

    /// What both players of every board saw.
    fn seen(event: &Event) -> Vec<Seen> {
        let mut seen = Vec::new();
        for round in event.rounds() {
            for game in &round.games {
                let board = Seen::Board {
                    round: round.number,
                    board: game.table,
                    black: UserId(game.black.0),
                    white: UserId(game.white.0),
                    game: Some(GameId(u64::from(100 * round.number + game.table))),
                    outcome: game.outcome,
                    counted: false,
                };
                seen.push(board.clone());
                seen.push(board);
            }
        }
        seen
    }

    #[test]
    fn the_standings_the_players_saw_match_the_servers() {
        let event = played();
        let checked = check(&seen(&event), Some(&view(&event)));
        assert!(checked.standings_match, "{checked:?}");
        assert_eq!(checked.rebuild_error, None);
        assert_eq!(checked.games, 9);
        assert_eq!(checked.games_ended, 9);
        assert_eq!(checked.results_in_event, 9);
        assert_eq!(checked.results_disagreeing, 0);
        assert_eq!(checked.repeated_pairs, 0);
        assert_eq!(checked.rounds_finished, 3);
        assert_eq!(checked.final_status, "finished");
    }

    #[test]
    fn a_result_the_server_counted_differently_is_found_in_the_standings() {
        let event = played();
        let mut seen = seen(&event);
        // Both players of round 3's first board saw the other colour win.
        for item in &mut seen {
            if let Seen::Board {
                round: 3,
                board: 1,
                outcome,
                ..
            } = item
            {
                *outcome = match outcome {
                    Some(EventOutcome::BlackWins) => Some(EventOutcome::WhiteWins),
                    _ => Some(EventOutcome::BlackWins),
                };
            }
        }
        let checked = check(&seen, Some(&view(&event)));
        assert!(!checked.standings_match);
        assert!(checked.standings_differences > 0);
        assert!(
            checked
                .differences_shown
                .iter()
                .any(|d| d.contains("score")),
            "{checked:?}"
        );
        assert_eq!(checked.results_disagreeing, 1);
    }

    #[test]
    fn players_who_saw_different_things_and_a_pair_twice_are_counted() {
        let event = played();
        let mut seen = seen(&event);
        if let Some(Seen::Board { outcome, .. }) = seen.get_mut(0) {
            *outcome = None;
        }
        let mut view = view(&event);
        let first = view.rounds[0].boards[0].clone();
        if let Some(board) = view.rounds.get_mut(2).and_then(|r| r.boards.get_mut(0)) {
            board.black = first.black;
            board.white = first.white;
        }
        let checked = check(&seen, Some(&view));
        assert_eq!(checked.repeated_pairs, 1);
        assert!(checked.results_disagreeing >= 2, "{checked:?}");
    }

    #[test]
    fn no_event_at_the_end_is_a_failed_rebuild() {
        let event = played();
        let checked = check(&seen(&event), None);
        assert!(!checked.view_read);
        assert!(checked.rebuild_error.is_some());
        assert!(!checked.standings_match);
    }
}
