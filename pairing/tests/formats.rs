//! Hand-worked tables: each format played through with chosen results, and the pairings, the
//! standings and every tie-break figure checked against values worked out by hand.

use tengen_pairing::{
    berger_round, bracket, Criterion, Event, EventError, EventOutcome, FinalTie, Format, Fraction,
    PlayerId, Settings, Standings, SwissRanking,
};

fn players(n: u64) -> Vec<PlayerId> {
    (1..=n).map(PlayerId).collect()
}

fn event(format: Format, n: u64, final_tie: FinalTie) -> Event {
    let settings = Settings {
        format,
        final_tie,
        seed: 2026,
    };
    Event::new(settings, &players(n)).unwrap()
}

/// Plays the next round, the result of each game given by `winner(a, b)` (players by number, the
/// lower first): `Some(n)` for a win by player n, `None` for a draw.
fn play_round(event: &mut Event, winner: impl Fn(u64, u64) -> Option<u64>) {
    let round = event.pair_next_round().unwrap().clone();
    for game in &round.games {
        let (b, w) = (game.black.0, game.white.0);
        let outcome = match winner(b.min(w), b.max(w)) {
            None => EventOutcome::Draw,
            Some(x) if x == b => EventOutcome::BlackWins,
            Some(_) => EventOutcome::WhiteWins,
        };
        event.record(round.number, game.table, outcome).unwrap();
    }
}

fn pairs_of(event: &Event, round: usize) -> Vec<(u64, u64)> {
    let mut pairs: Vec<(u64, u64)> = event.rounds()[round]
        .games
        .iter()
        .map(|g| (g.black.0.min(g.white.0), g.black.0.max(g.white.0)))
        .collect();
    pairs.sort();
    pairs
}

fn row(standings: &Standings, player: u64) -> &tengen_pairing::Standing {
    standings
        .rows
        .iter()
        .find(|r| r.player == PlayerId(player))
        .unwrap()
}

fn order(standings: &Standings) -> Vec<(u32, u64)> {
    standings
        .rows
        .iter()
        .map(|r| (r.rank, r.player.0))
        .collect()
}

#[test]
fn berger_tables_match_the_published_six_player_table() {
    // Berger's table for six: round 1 1–6 2–5 3–4, round 2 6–4 5–3 1–2, round 3 2–6 3–1 4–5.
    let rounds: Vec<Vec<(usize, usize)>> = (0..3)
        .map(|r| {
            let mut pairs: Vec<(usize, usize)> = berger_round(6, r)
                .0
                .iter()
                .map(|&(b, w)| (b.min(w) + 1, b.max(w) + 1))
                .collect();
            pairs.sort();
            pairs
        })
        .collect();
    assert_eq!(rounds[0], vec![(1, 6), (2, 5), (3, 4)]);
    assert_eq!(rounds[1], vec![(1, 2), (3, 5), (4, 6)]);
    assert_eq!(rounds[2], vec![(1, 3), (2, 6), (4, 5)]);
}

#[test]
fn round_robin_ranks_by_score_then_beaten_opponents_score() {
    // Five players, results chosen so that C and E tie on 4 points and 胜者小分 separates them.
    //       A   B   C   D   E
    //  A    -   W   D   W   L    5
    //  B    L   -   W   W   W    6
    //  C    D   L   -   W   D    4
    //  D    L   L   L   -   D    1
    //  E    W   L   D   D   -    4
    // 胜者小分: A = B 6 + D 1 + ½·C 4 = 9; B = C 4 + D 1 + E 4 = 9; C = ½·A 5 + D 1 + ½·E 4 = 5½;
    // D = ½·E 4 = 2; E = A 5 + ½·C 4 + ½·D 1 = 7½.
    let table = |a: u64, b: u64| match (a, b) {
        (1, 2) | (1, 4) => Some(1),
        (1, 3) | (3, 5) | (4, 5) => None,
        (1, 5) => Some(5),
        (2, _) => Some(2),
        (3, 4) => Some(3),
        _ => unreachable!("{a} v {b}"),
    };
    let mut event = event(Format::RoundRobin { cycles: 1 }, 5, FinalTie::Stands);
    while !event.is_over() {
        play_round(&mut event, table);
    }
    assert_eq!(event.rounds().len(), 5, "five rounds, one resting each");
    let s = event.standings();
    assert_eq!(
        s.criteria,
        vec![
            Criterion::Score,
            Criterion::BeatenOpponentsScore,
            Criterion::Warnings
        ]
    );
    assert_eq!(order(&s), vec![(1, 2), (2, 1), (3, 5), (4, 3), (5, 4)]);
    let scores: Vec<u32> = (1..=5).map(|p| row(&s, p).score).collect();
    assert_eq!(scores, vec![5, 6, 4, 1, 4]);
    let beaten: Vec<Fraction> = (1..=5).map(|p| row(&s, p).beaten_opponents_score).collect();
    assert_eq!(
        beaten,
        vec![
            Fraction::whole(9),
            Fraction::whole(9),
            Fraction::new(11, 2),
            Fraction::whole(2),
            Fraction::new(15, 2)
        ]
    );
    assert!(s.rows.iter().all(|r| r.games == 4 && !r.tied));
    assert_eq!(event.winner(), Some(PlayerId(2)));
}

#[test]
fn a_beaten_opponents_score_tie_goes_to_warnings_then_stands_or_lots() {
    // A cycle: 1 beats 2, 2 beats 3, 3 beats 1, and all beat 4. Scores 4 4 4 0, and each of the
    // three beat one 4-point player and the 0-point one: 胜者小分 4 each.
    let table = |a: u64, b: u64| match (a, b) {
        (1, 2) => Some(1),
        (2, 3) => Some(2),
        (1, 3) => Some(3),
        (a, 4) => Some(a),
        _ => unreachable!(),
    };
    let mut stands = event(Format::RoundRobin { cycles: 1 }, 4, FinalTie::Stands);
    while !stands.is_over() {
        play_round(&mut stands, table);
    }
    let s = stands.standings();
    assert!((1..=3)
        .all(|p| row(&s, p).score == 4 && row(&s, p).beaten_opponents_score == Fraction::whole(4)));
    assert_eq!(order(&s), vec![(1, 1), (1, 2), (1, 3), (4, 4)]);
    assert!(s.rows[..3].iter().all(|r| r.tied));
    assert_eq!(
        stands.winner(),
        None,
        "a three-way tie that stands has no single winner"
    );

    // A warning for player 2 drops them to third; 1 and 3 still share first.
    stands.warn(PlayerId(2)).unwrap();
    let s = stands.standings();
    assert_eq!(order(&s), vec![(1, 1), (1, 3), (3, 2), (4, 4)]);
    assert_eq!(row(&s, 2).warnings, 1);

    // Under a play-off the tie is shared and marked, for the director to arrange the play-off.
    let mut play_off = event(Format::RoundRobin { cycles: 1 }, 4, FinalTie::PlayOff);
    while !play_off.is_over() {
        play_round(&mut play_off, table);
    }
    let s = play_off.standings();
    assert_eq!(s.final_tie, FinalTie::PlayOff);
    assert_eq!(order(&s), vec![(1, 1), (1, 2), (1, 3), (4, 4)]);
    let marked: Vec<bool> = s.rows.iter().map(|r| r.tied).collect();
    assert_eq!(marked, vec![true, true, true, false]);

    // The same event under lots: distinct ranks, the tied places marked as drawn, repeatably.
    let mut lots = event(Format::RoundRobin { cycles: 1 }, 4, FinalTie::Lots);
    while !lots.is_over() {
        play_round(&mut lots, table);
    }
    let s = lots.standings();
    let ranks: Vec<u32> = s.rows.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, vec![1, 2, 3, 4]);
    assert!(s.rows[..3].iter().all(|r| r.by_lots) && !s.rows[3].by_lots);
    assert_eq!(lots.standings(), s);
    assert!(lots.winner().is_some());
}

#[test]
fn swiss_total_score_formula_by_hand() {
    // Four players, two rounds. Round 1 pairs 1 v 3 and 2 v 4 (top half against bottom half); 1 and 2
    // win. Round 2 pairs the winners and the losers: 1 v 2 drawn, 3 beats 4.
    // Scores 3 3 2 0, highest 3, two rounds. 对手分: 1: 2 + 3 = 5; 2: 0 + 3 = 3; 3: 3 + 0 = 3;
    // 4: 3 + 2 = 5. 总得分 = own + 对手分 / 1.5 − 2: 1: 3 + 10/3 − 2 = 13/3; 2: 3 + 2 − 2 = 3;
    // 3: 2 + 2 − 2 = 2; 4: 0 + 10/3 − 2 = 4/3.
    let format = |ranking| Format::Swiss {
        rounds: 2,
        out_after_losses: None,
        ranking,
    };
    for ranking in [SwissRanking::TotalScore, SwissRanking::ScoreThenOpponents] {
        let mut event = event(format(ranking), 4, FinalTie::Stands);
        play_round(&mut event, |a, _| Some(a));
        assert_eq!(pairs_of(&event, 0), vec![(1, 3), (2, 4)]);
        play_round(
            &mut event,
            |a, b| if (a, b) == (1, 2) { None } else { Some(a) },
        );
        assert_eq!(pairs_of(&event, 1), vec![(1, 2), (3, 4)]);
        assert!(event.is_over());
        let s = event.standings();
        assert_eq!((s.highest_score, s.rounds), (3, 2));
        let total: Vec<Fraction> = (1..=4).map(|p| row(&s, p).total_score).collect();
        assert_eq!(
            total,
            vec![
                Fraction::new(13, 3),
                Fraction::whole(3),
                Fraction::whole(2),
                Fraction::new(4, 3)
            ]
        );
        let opponents: Vec<u32> = (1..=4).map(|p| row(&s, p).opponents_score).collect();
        assert_eq!(opponents, vec![5, 3, 3, 5]);
        // Both rankings agree here: 1 and 2 on 3 points split by 对手分 (5 against 3) or by 总得分.
        assert_eq!(order(&s), vec![(1, 1), (2, 2), (3, 3), (4, 4)]);
    }
}

#[test]
fn swiss_bye_goes_to_the_lowest_scored_and_counts_as_a_win() {
    // Five players. Round 1: the bye to the weakest seed (5), 1 v 3, 2 v 4; 1 and 4 win. Round 2: 5
    // had the bye, so it goes to the lowest-scored, weakest player without one: 3. Then 1 v 4 (top
    // of the 2-point group against its middle) and 5 v 2, floated down. 1 and 2 win.
    // Scores 1: 4, 2: 2, 3: 2 (bye), 4: 2, 5: 2. 对手分: 1: 2 + 2 = 4; 2: 2 + 2 = 4; 3: 4 (the bye adds
    // nothing); 4: 2 + 4 = 6; 5: 2. 总得分 = own + 对手分 / 2 − 2: 4, 2, 2, 3, 1.
    let format = Format::Swiss {
        rounds: 2,
        out_after_losses: None,
        ranking: SwissRanking::TotalScore,
    };
    let mut event = event(format, 5, FinalTie::Stands);
    play_round(&mut event, |a, b| {
        Some(if (a, b) == (2, 4) { 4 } else { a })
    });
    assert_eq!(event.rounds()[0].byes, vec![PlayerId(5)]);
    assert_eq!(pairs_of(&event, 0), vec![(1, 3), (2, 4)]);
    play_round(&mut event, |a, _| Some(a));
    assert_eq!(event.rounds()[1].byes, vec![PlayerId(3)]);
    assert_eq!(pairs_of(&event, 1), vec![(1, 4), (2, 5)]);
    let s = event.standings();
    let total: Vec<Fraction> = (1..=5).map(|p| row(&s, p).total_score).collect();
    assert_eq!(total, [4, 2, 2, 3, 1].map(Fraction::whole).to_vec());
    assert_eq!(row(&s, 3).byes, 1);
    assert_eq!(row(&s, 3).score, 2);
    assert_eq!(order(&s), vec![(1, 1), (2, 4), (3, 2), (3, 3), (5, 5)]);
    event.warn(PlayerId(2)).unwrap();
    assert_eq!(
        order(&event.standings()),
        vec![(1, 1), (2, 4), (3, 3), (4, 2), (5, 5)]
    );
}

#[test]
fn knockout_bracket_gives_byes_to_the_top_seeds() {
    assert_eq!(
        bracket(8),
        [0, 7, 3, 4, 1, 6, 2, 5].map(Some).to_vec(),
        "1 v 8, 4 v 5, 2 v 7, 3 v 6"
    );
    assert_eq!(
        bracket(6),
        vec![
            Some(0),
            None,
            Some(3),
            Some(4),
            Some(1),
            None,
            Some(2),
            Some(5)
        ]
    );
    // Six players, single elimination: seeds 1 and 2 have byes; 4 v 5 and 3 v 6 play. The better
    // seed wins every game, so round 2 is 1 v 4 and 2 v 3 and the final 1 v 2.
    let mut event = event(
        Format::Knockout {
            out_after_losses: 1,
        },
        6,
        FinalTie::Stands,
    );
    play_round(&mut event, |a, _| Some(a));
    assert_eq!(event.rounds()[0].byes, vec![PlayerId(1), PlayerId(2)]);
    assert_eq!(pairs_of(&event, 0), vec![(3, 6), (4, 5)]);
    play_round(&mut event, |a, _| Some(a));
    assert_eq!(pairs_of(&event, 1), vec![(1, 4), (2, 3)]);
    play_round(&mut event, |_, b| Some(b));
    assert_eq!(pairs_of(&event, 2), vec![(1, 2)]);
    assert!(event.is_over());
    assert_eq!(event.pair_next_round().unwrap_err(), EventError::Over);
    assert_eq!(event.winner(), Some(PlayerId(2)));
    let s = event.standings();
    assert_eq!(s.rows[0].player, PlayerId(2));
    assert_eq!(s.rows[1].player, PlayerId(1));
    assert_eq!(s.rows[1].eliminated_in, Some(3));
}

#[test]
fn double_elimination_gives_the_unbeaten_finalist_a_second_life() {
    // Four players, out after two losses. The favourite (1) loses once in the final and wins the
    // replay: the event ends with one winner and everyone else on two losses.
    let mut event = event(
        Format::Knockout {
            out_after_losses: 2,
        },
        4,
        FinalTie::Stands,
    );
    let mut rounds = 0;
    while !event.is_over() {
        let lost_once = |p: u64| {
            event
                .standings()
                .rows
                .iter()
                .any(|r| r.player == PlayerId(p) && r.losses == 1)
        };
        let upset = lost_once(2) && !lost_once(1);
        play_round(&mut event, |a, b| {
            Some(if upset && (a, b) == (1, 2) { 2 } else { a })
        });
        rounds += 1;
        assert!(rounds < 10);
    }
    let s = event.standings();
    assert_eq!(event.winner(), Some(PlayerId(1)));
    assert!(s.rows[1..].iter().all(|r| r.losses == 2 && r.eliminated));
}

#[test]
fn best_of_three_stops_when_decided_and_alternates_colours() {
    let mut event = event(Format::Match { games: 3 }, 2, FinalTie::Stands);
    play_round(&mut event, |_, _| Some(2));
    play_round(&mut event, |_, _| Some(2));
    assert!(event.is_over(), "2–0 in a best of three is decided");
    assert_eq!(event.winner(), Some(PlayerId(2)));
    let [g1, g2] = [&event.rounds()[0].games[0], &event.rounds()[1].games[0]];
    assert_eq!((g1.black, g1.white), (g2.white, g2.black));

    // A ten-game match of draws and alternating wins goes the distance and ends level.
    let mut ten = self::event(Format::Match { games: 10 }, 2, FinalTie::Stands);
    for game in 0..10u64 {
        assert!(!ten.is_over());
        play_round(&mut ten, |a, b| Some(if game % 2 == 0 { a } else { b }));
    }
    assert!(ten.is_over());
    assert_eq!(ten.winner(), None);
    assert!(ten
        .standings()
        .rows
        .iter()
        .all(|r| r.score == 10 && r.rank == 1));
}

#[test]
fn invalid_entries_are_refused_and_change_nothing() {
    let bad = Settings {
        format: Format::Match { games: 8 },
        final_tie: FinalTie::Stands,
        seed: 0,
    };
    assert!(matches!(
        Event::new(bad, &players(2)),
        Err(EventError::InvalidFormat(_))
    ));
    let settings = swiss_settings();
    assert_eq!(
        Event::new(settings, &[PlayerId(1), PlayerId(1)]).unwrap_err(),
        EventError::DuplicatePlayer(PlayerId(1))
    );
    // Too few players may enter; the event cannot start until there are enough.
    let mut lonely = Event::new(settings, &players(1)).unwrap();
    assert_eq!(
        lonely.pair_next_round().unwrap_err(),
        EventError::TooFewPlayers { min: 2 }
    );
    lonely.enter(PlayerId(2)).unwrap();
    assert_eq!(
        lonely.enter(PlayerId(2)).unwrap_err(),
        EventError::DuplicatePlayer(PlayerId(2))
    );
    lonely.leave(PlayerId(1)).unwrap();
    assert_eq!(
        lonely.leave(PlayerId(1)).unwrap_err(),
        EventError::NotEntered(PlayerId(1))
    );
    assert_eq!(lonely.entrants().len(), 1);
    let match_settings = Settings {
        format: Format::Match { games: 3 },
        ..settings
    };
    let mut full = Event::new(match_settings, &players(2)).unwrap();
    assert_eq!(
        full.enter(PlayerId(3)).unwrap_err(),
        EventError::TooManyPlayers { max: 2 }
    );
}

fn swiss_settings() -> Settings {
    Settings {
        format: Format::Swiss {
            rounds: 3,
            out_after_losses: None,
            ranking: SwissRanking::TotalScore,
        },
        final_tie: FinalTie::Stands,
        seed: 0,
    }
}

#[test]
fn invalid_requests_during_a_round_are_refused_and_change_nothing() {
    let mut event = Event::new(swiss_settings(), &players(4)).unwrap();
    event.pair_next_round().unwrap();
    let before = event.clone();
    assert_eq!(event.enter(PlayerId(9)).unwrap_err(), EventError::Started);
    assert_eq!(
        event.record(1, 9, EventOutcome::Draw).unwrap_err(),
        EventError::NoSuchGame { round: 1, table: 9 }
    );
    assert_eq!(
        event.record(2, 1, EventOutcome::Draw).unwrap_err(),
        EventError::NoSuchGame { round: 2, table: 1 }
    );
    assert_eq!(
        event.pair_next_round().unwrap_err(),
        EventError::RoundUnfinished {
            round: 1,
            missing: 2
        }
    );
    assert_eq!(
        event.warn(PlayerId(9)).unwrap_err(),
        EventError::NotEntered(PlayerId(9))
    );
    assert_eq!(event, before);
    event.record(1, 1, EventOutcome::Draw).unwrap();
    event.record(1, 1, EventOutcome::Draw).unwrap();
    assert_eq!(
        event.record(1, 1, EventOutcome::BlackWins).unwrap_err(),
        EventError::AlreadyRecorded {
            round: 1,
            table: 1,
            existing: EventOutcome::Draw
        }
    );
    assert_eq!(
        event.set_swiss_rounds(0).unwrap_err(),
        EventError::RoundsAlreadyPlayed { played: 1 }
    );
    event.set_swiss_rounds(5).unwrap();
}

#[test]
fn a_stored_event_reads_back_the_same_and_a_broken_one_is_refused() {
    let mut event = event(Format::RoundRobin { cycles: 2 }, 5, FinalTie::Lots);
    play_round(&mut event, |a, _| Some(a));
    event.pair_next_round().unwrap();
    let json = serde_json::to_string(&event).unwrap();
    let back: Event = serde_json::from_str(&json).unwrap();
    assert_eq!(back, event);
    assert_eq!(back.standings(), event.standings());
    let broken = json.replacen("\"black\":", "\"black\":99,\"x\":", 1);
    let err = serde_json::from_str::<Event>(&broken)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not entered"), "{err}");
}

#[test]
fn round_robin_withdrawal_voids_results_before_half_and_forfeits_after() {
    // Five players: four rounds each. Player 5 leaves after one round: fewer than half played, so
    // their results are void and their opponents rest instead.
    let mut early = event(Format::RoundRobin { cycles: 1 }, 5, FinalTie::Stands);
    play_round(&mut early, |a, _| Some(a));
    early.withdraw(PlayerId(5)).unwrap();
    assert_eq!(
        early.withdraw(PlayerId(5)).unwrap_err(),
        EventError::AlreadyWithdrawn(PlayerId(5))
    );
    while !early.is_over() {
        play_round(&mut early, |a, _| Some(a));
    }
    assert!(early.rounds().iter().skip(1).all(|r| r
        .games
        .iter()
        .all(|g| g.black != PlayerId(5) && g.white != PlayerId(5))));
    let s = early.standings();
    let last = s.rows.last().unwrap();
    assert!(last.player == PlayerId(5) && last.results_void && last.games == 0);
    assert!(s.rows.iter().all(|r| r.games <= 3));

    // Player 5 leaving after three rounds keeps their results; their last game is a forfeit.
    let mut late = event(Format::RoundRobin { cycles: 1 }, 5, FinalTie::Stands);
    for _ in 0..3 {
        play_round(&mut late, |a, _| Some(a));
    }
    late.withdraw(PlayerId(5)).unwrap();
    while !late.is_over() {
        play_round(&mut late, |a, _| Some(a));
    }
    let s = late.standings();
    assert!(!row(&s, 5).results_void);
    assert_eq!(row(&s, 5).games, 4);
    assert_eq!(row(&s, 5).losses, 4);
}

#[test]
fn a_64_player_swiss_of_nine_rounds_has_no_rematch_and_close_pairings() {
    // The load test's event: 64 players, results by a fixed pattern (the better seed wins two games
    // in three). Nine rounds leave plenty of fresh opponents, so no pair may meet twice.
    let format = Format::Swiss {
        rounds: 9,
        out_after_losses: None,
        ranking: SwissRanking::TotalScore,
    };
    let mut event = event(format, 64, FinalTie::Stands);
    let mut met = std::collections::BTreeSet::new();
    for round in 0..9u64 {
        play_round(&mut event, |a, b| {
            Some(if (a + b + round) % 3 == 0 { b } else { a })
        });
        for (a, b) in pairs_of(&event, round as usize) {
            assert!(met.insert((a, b)), "{a} v {b} met twice");
        }
    }
    assert!(event.is_over());
    let s = event.standings();
    assert_eq!(s.rows.iter().map(|r| r.score).sum::<u32>(), 64 * 9);
    assert!(s.rows.iter().all(|r| r.games == 9 && r.byes == 0));
}
