//! Property tests over random fields and random results, bounded by case count so the whole crate's
//! tests stay fast: Swiss events never repeat a pair while a rematch-free pairing exists (checked by a
//! brute force independent of the crate's matching), keep colours within two and give at most one
//! bye each; round robins meet every pair exactly n times with colours within one; knockouts end with
//! one winner; standings do not depend on the order results arrive in.

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use tengen_pairing::{
    Event, EventOutcome, FinalTie, Format, PlayerId, Round, Settings, SwissRanking,
};

fn new_event(format: Format, players: usize, seed: u64) -> Event {
    let ids: Vec<PlayerId> = (1..=players as u64).map(PlayerId).collect();
    Event::new(
        Settings {
            format,
            final_tie: FinalTie::Lots,
            seed,
        },
        &ids,
    )
    .unwrap()
}

/// The outcome the random `choices` give the game at `index` of the whole event.
fn outcome(choices: &[u8], index: usize, decisive: bool) -> EventOutcome {
    let c = choices
        .get(index % choices.len().max(1))
        .copied()
        .unwrap_or(0);
    match (c % 8, decisive) {
        (0..=3, _) => EventOutcome::BlackWins,
        (4..=6, _) | (_, true) => EventOutcome::WhiteWins,
        _ => EventOutcome::Draw,
    }
}

/// Pairs and plays rounds until the event is over (or `max_rounds`), recording each round's results in
/// an order the choices shuffle them into; `check` sees the event before each round and the round.
fn play(
    event: &mut Event,
    choices: &[u8],
    decisive: bool,
    max_rounds: usize,
    check: &mut impl FnMut(&Event, &Round),
) {
    let mut index = 0;
    for _ in 0..max_rounds {
        if event.is_over() {
            break;
        }
        let before = event.clone();
        let round = event.pair_next_round().unwrap().clone();
        check(&before, &round);
        let mut tables: Vec<u32> = round
            .games
            .iter()
            .filter(|g| g.outcome.is_none())
            .map(|g| g.table)
            .collect();
        // Results arrive in an order the choices decide.
        tables.sort_by_key(|t| {
            choices
                .get(*t as usize % choices.len().max(1))
                .copied()
                .unwrap_or(0)
        });
        for table in tables {
            event
                .record(
                    round.number,
                    table,
                    outcome(choices, index + table as usize, decisive),
                )
                .unwrap();
        }
        index += round.games.len();
    }
}

/// Every pair that has met in `event`, unordered.
fn met(event: &Event) -> BTreeSet<(PlayerId, PlayerId)> {
    event
        .rounds()
        .iter()
        .flat_map(|r| &r.games)
        .map(|g| (g.black.min(g.white), g.black.max(g.white)))
        .collect()
}

/// Brute force: can `players` all be paired with none of them meeting again?
fn rematch_free_exists(players: &[PlayerId], met: &BTreeSet<(PlayerId, PlayerId)>) -> bool {
    let Some((&first, rest)) = players.split_first() else {
        return true;
    };
    rest.iter().enumerate().any(|(i, &other)| {
        if met.contains(&(first.min(other), first.max(other))) {
            return false;
        }
        let left: Vec<PlayerId> = rest
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &p)| p)
            .collect();
        rematch_free_exists(&left, met)
    })
}

/// Whether the Swiss round could have avoided every rematch: some bye among those eligible (the players
/// with the fewest byes) leaves a field that pairs without one.
fn could_avoid_rematch(before: &Event, round: &Round) -> bool {
    let met = met(before);
    let paired: Vec<PlayerId> = round
        .games
        .iter()
        .flat_map(|g| [g.black, g.white])
        .chain(round.byes.iter().copied())
        .collect();
    if round.byes.is_empty() {
        return rematch_free_exists(&paired, &met);
    }
    let byes: BTreeMap<PlayerId, usize> = paired
        .iter()
        .map(|&p| {
            (
                p,
                before
                    .rounds()
                    .iter()
                    .filter(|r| r.byes.contains(&p))
                    .count(),
            )
        })
        .collect();
    let fewest = byes.values().copied().min().unwrap_or(0);
    paired
        .iter()
        .filter(|p| byes.get(p) == Some(&fewest))
        .any(|&bye| {
            let rest: Vec<PlayerId> = paired.iter().copied().filter(|&p| p != bye).collect();
            rematch_free_exists(&rest, &met)
        })
}

/// Blacks minus whites for each player over `event`'s games.
fn colour_balance(event: &Event) -> BTreeMap<PlayerId, i64> {
    let mut balance = BTreeMap::new();
    for game in event.rounds().iter().flat_map(|r| &r.games) {
        *balance.entry(game.black).or_insert(0) += 1;
        *balance.entry(game.white).or_insert(0) -= 1;
    }
    balance
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn swiss_never_repeats_a_pair_while_another_pairing_exists(
        players in 2usize..=11,
        rounds in 1u32..=10,
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let format = Format::Swiss { rounds, out_after_losses: None, ranking: SwissRanking::TotalScore };
        let mut event = new_event(format, players, seed);
        let mut failures = Vec::new();
        play(&mut event, &choices, false, rounds as usize, &mut |before, round| {
            let before_met = met(before);
            let rematch = round.games.iter().any(|g| before_met.contains(&(g.black.min(g.white), g.black.max(g.white))));
            if rematch && could_avoid_rematch(before, round) {
                failures.push(round.number);
            }
            let everyone: BTreeSet<PlayerId> =
                round.games.iter().flat_map(|g| [g.black, g.white]).chain(round.byes.iter().copied()).collect();
            assert_eq!(everyone.len(), players, "every player is paired or has the bye, once");
            assert!(round.byes.len() == players % 2);
        });
        prop_assert!(failures.is_empty(), "avoidable rematches in rounds {failures:?}");
        prop_assert_eq!(event.rounds().len(), rounds as usize);
        // Colours within two of even while fresh opponents remain: once the rounds nearly exhaust
        // the field (N − 1 rounds is a whole round robin), avoiding a rematch can force two players
        // both owed White to meet, and no rematch comes first (docs/competitions.md).
        if rounds as usize + 2 <= players {
            for (player, balance) in colour_balance(&event) {
                prop_assert!(balance.abs() <= 2, "{player}: {balance}");
            }
        }
        // At most one bye each while there are no more rounds than players.
        if rounds as usize <= players {
            for row in event.standings().rows {
                prop_assert!(row.byes <= 1, "{}: {} byes", row.player, row.byes);
            }
        }
    }

    #[test]
    fn swiss_pairs_equal_or_close_scores_in_the_first_rounds(
        half in 2usize..=16,
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        // Before rematches constrain anything (round 2 of a big field), every pair is within one
        // score group of each other: equal scores, or a floater from the group just above.
        let players = half * 2;
        let format = Format::Swiss { rounds: 2, out_after_losses: None, ranking: SwissRanking::ScoreThenOpponents };
        let mut event = new_event(format, players, seed);
        play(&mut event, &choices, false, 1, &mut |_, _| {});
        let standings = event.standings();
        let score = |p: PlayerId| standings.rows.iter().find(|r| r.player == p).map_or(0, |r| r.score);
        let round = event.pair_next_round().unwrap().clone();
        for game in &round.games {
            prop_assert!(score(game.black).abs_diff(score(game.white)) <= 2, "{game:?}");
        }
    }

    #[test]
    fn swiss_with_elimination_never_pairs_an_eliminated_player(
        players in 2usize..=16,
        out in 1u32..=3,
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let format = Format::Swiss { rounds: 12, out_after_losses: Some(out), ranking: SwissRanking::TotalScore };
        let mut event = new_event(format, players, seed);
        play(&mut event, &choices, false, 12, &mut |before, round| {
            let standings = before.standings();
            for player in round.games.iter().flat_map(|g| [g.black, g.white]).chain(round.byes.iter().copied()) {
                let row = standings.rows.iter().find(|r| r.player == player).unwrap();
                assert!(row.losses < out && !row.eliminated, "{player} paired with {} losses", row.losses);
            }
        });
        prop_assert!(event.is_over());
    }

    #[test]
    fn round_robin_meets_every_pair_n_times_with_colours_within_one(
        players in 2usize..=12,
        cycles in 1u32..=3,
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let mut event = new_event(Format::RoundRobin { cycles }, players, seed);
        play(&mut event, &choices, false, 100, &mut |_, _| {});
        prop_assert!(event.is_over());
        let mut meetings: BTreeMap<(PlayerId, PlayerId), u32> = BTreeMap::new();
        for game in event.rounds().iter().flat_map(|r| &r.games) {
            *meetings.entry((game.black.min(game.white), game.black.max(game.white))).or_insert(0) += 1;
        }
        prop_assert_eq!(meetings.len(), players * (players - 1) / 2);
        prop_assert!(meetings.values().all(|&n| n == cycles));
        for (player, balance) in colour_balance(&event) {
            prop_assert!(balance.abs() <= 1, "{player}: {balance}");
        }
        if cycles == 2 {
            // Double round robin: every pair has each colour once.
            let blacks: BTreeSet<(PlayerId, PlayerId)> =
                event.rounds().iter().flat_map(|r| &r.games).map(|g| (g.black, g.white)).collect();
            prop_assert_eq!(blacks.len(), players * (players - 1));
        }
        // Each player plays at most once a round.
        for round in event.rounds() {
            let seen: BTreeSet<PlayerId> = round.games.iter().flat_map(|g| [g.black, g.white]).collect();
            prop_assert_eq!(seen.len(), round.games.len() * 2);
        }
    }

    #[test]
    fn a_knockout_ends_with_one_winner(
        players in 2usize..=24,
        out in 1u32..=3,
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let mut event = new_event(Format::Knockout { out_after_losses: out }, players, seed);
        play(&mut event, &choices, true, 200, &mut |_, _| {});
        prop_assert!(event.is_over());
        let standings = event.standings();
        let still_in: Vec<_> = standings.rows.iter().filter(|r| !r.eliminated).collect();
        prop_assert_eq!(still_in.len(), 1);
        prop_assert_eq!(event.winner(), Some(still_in[0].player));
        prop_assert_eq!(standings.rows[0].player, still_in[0].player);
        prop_assert!(standings.rows.iter().filter(|r| r.eliminated).all(|r| r.losses == out));
        if out == 1 {
            // Single elimination: one loss for everyone but the winner, ⌈log₂ n⌉ rounds.
            let rounds = players.next_power_of_two().trailing_zeros() as usize;
            prop_assert_eq!(event.rounds().len(), rounds);
        }
    }

    #[test]
    fn standings_do_not_depend_on_the_order_results_arrive_in(
        players in 2usize..=12,
        kind in 0u8..4,
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
        shuffle in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let format = match kind {
            0 => Format::RoundRobin { cycles: 1 },
            1 => Format::Swiss { rounds: 4, out_after_losses: None, ranking: SwissRanking::TotalScore },
            2 => Format::Swiss { rounds: 5, out_after_losses: Some(2), ranking: SwissRanking::ScoreThenOpponents },
            _ => Format::Knockout { out_after_losses: 2 },
        };
        let decisive = kind == 3;
        let mut first = new_event(format, players, seed);
        play(&mut first, &choices, decisive, 30, &mut |_, _| {});
        // Replay with the same results per game, recorded in another order, then through JSON.
        let mut second = new_event(format, players, seed);
        for round in first.rounds() {
            let paired = second.pair_next_round().unwrap().clone();
            prop_assert_eq!(&paired.games.iter().map(|g| (g.table, g.black, g.white)).collect::<Vec<_>>(),
                &round.games.iter().map(|g| (g.table, g.black, g.white)).collect::<Vec<_>>());
            let mut games = round.games.clone();
            games.sort_by_key(|g| shuffle.get(g.table as usize % shuffle.len()).copied().unwrap_or(0));
            games.reverse();
            for game in games {
                second.record(round.number, game.table, game.outcome.unwrap()).unwrap();
            }
        }
        let stored: Event = serde_json::from_str(&serde_json::to_string(&second).unwrap()).unwrap();
        prop_assert_eq!(first.standings(), stored.standings());
    }
}
