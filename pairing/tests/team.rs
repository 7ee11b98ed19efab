//! Team events by hand: match points from board points, the ranking down to board 1 and board 2, a
//! tie that stands, and a relay between two teams of three.

use tengen_pairing::team::{
    board_points, check_line_ups, match_points, team_standings, BoardOutcome, Relay, RelayState,
    Side, TeamError, TeamId, TeamMatch,
};
use tengen_pairing::PlayerId;
use BoardOutcome::*;

#[test]
fn match_points_come_from_board_points() {
    assert_eq!(board_points(&[HomeWins, AwayWins, Draw]), (3, 3));
    assert_eq!(match_points(&[HomeWins, AwayWins, Draw]), (1, 1));
    assert_eq!(match_points(&[HomeWins, HomeWins, AwayWins]), (2, 0));
    assert_eq!(match_points(&[BothLose, AwayWins, Draw]), (0, 2));
    assert_eq!(board_points(&[BothLose, BothLose, BothLose]), (0, 0));
}

#[test]
fn teams_rank_by_match_points_then_board_points_then_board_by_board() {
    // Four teams of three, a round robin of matches (home first):
    //   A–B 2:1 boards (W W L): A 2 mp, 4 bp (b1 2, b2 2); B 0 mp, 2 bp (b3 2)
    //   C–D 2:1 boards (L W W): C 2 mp, 4 bp (b2 2, b3 2); D 0 mp, 2 bp (b1 2)
    //   A–C drawn (W L D): A 1 mp, 3 bp (b1 2, b3 1); C 1 mp, 3 bp (b2 2, b3 1)
    //   B–D drawn (D D D): 1 mp each, 3 bp each (1 on every board)
    //   A–D lost (L L W): A 0 mp, 2 bp (b3 2); D 2 mp, 4 bp (b1 2, b2 2)
    //   B–C lost (L W L): B 0 mp, 2 bp (b2 2); C 2 mp, 4 bp (b1 2, b3 2)
    // Match points: A 3, B 1, C 5, D 3. Board points: A 9, B 7, C 11, D 9 (A and D level).
    // By board: A 4 2 3, B 1 3 3, C 2 4 5, D 5 3 1: D's board 1 ranks it above A.
    let (a, b, c, d) = (TeamId(1), TeamId(2), TeamId(3), TeamId(4));
    let m = |home, away, boards: [BoardOutcome; 3]| TeamMatch {
        home,
        away,
        boards: boards.to_vec(),
    };
    let matches = [
        m(a, b, [HomeWins, HomeWins, AwayWins]),
        m(c, d, [AwayWins, HomeWins, HomeWins]),
        m(a, c, [HomeWins, AwayWins, Draw]),
        m(b, d, [Draw, Draw, Draw]),
        m(a, d, [AwayWins, AwayWins, HomeWins]),
        m(b, c, [AwayWins, HomeWins, AwayWins]),
    ];
    let rows = team_standings(&[a, b, c, d], 3, &matches).unwrap();
    let table: Vec<(u32, TeamId, u32, u32, Vec<u32>)> = rows
        .iter()
        .map(|r| {
            (
                r.rank,
                r.team,
                r.match_points,
                r.board_points,
                r.board_points_by_board.clone(),
            )
        })
        .collect();
    assert_eq!(
        table,
        vec![
            (1, c, 5, 11, vec![2, 4, 5]),
            (2, d, 3, 9, vec![5, 3, 1]),
            (3, a, 3, 9, vec![4, 2, 3]),
            (4, b, 1, 7, vec![1, 3, 3]),
        ]
    );
    assert!(rows.iter().all(|r| r.matches == 3 && !r.tied));

    // Two teams level on everything share the rank (a split 1–1 would not: board 1 decides).
    let level = team_standings(
        &[a, b],
        2,
        &[TeamMatch {
            home: a,
            away: b,
            boards: vec![Draw, Draw],
        }],
    )
    .unwrap();
    assert!(level.iter().all(|r| r.rank == 1 && r.tied));
    assert_eq!(
        team_standings(
            &[a, b],
            3,
            &[TeamMatch {
                home: a,
                away: b,
                boards: vec![HomeWins]
            }]
        )
        .unwrap_err(),
        TeamError::WrongBoards {
            expected: 3,
            got: 1
        }
    );
}

#[test]
fn a_relay_between_two_teams_of_three() {
    let home: Vec<PlayerId> = [1, 2, 3].map(PlayerId).to_vec();
    let away: Vec<PlayerId> = [11, 12, 13].map(PlayerId).to_vec();
    let mut relay = Relay::new(home, away).unwrap();
    // 1 beats 11 and 12, loses to 13; 2 beats 13: home wins with two players out on the away side…
    assert_eq!(relay.start_next().unwrap(), (PlayerId(1), PlayerId(11)));
    assert_eq!(relay.start_next().unwrap_err(), TeamError::GameInProgress);
    assert_eq!(
        relay.record(HomeWins).unwrap(),
        RelayState::Next {
            home: PlayerId(1),
            away: PlayerId(12)
        }
    );
    relay.start_next().unwrap();
    relay.record(HomeWins).unwrap();
    assert_eq!(relay.start_next().unwrap(), (PlayerId(1), PlayerId(13)));
    assert_eq!(
        relay.record(AwayWins).unwrap(),
        RelayState::Next {
            home: PlayerId(2),
            away: PlayerId(13)
        }
    );
    relay.start_next().unwrap();
    assert_eq!(
        relay.record(HomeWins).unwrap(),
        RelayState::Won { side: Side::Home }
    );
    assert_eq!(relay.start_next().unwrap_err(), TeamError::Decided);
    assert_eq!(
        relay.record(HomeWins).unwrap_err(),
        TeamError::NoGameInProgress
    );
    assert_eq!(relay.games.len(), 4);

    // A draw puts both out; a last draw between the last players draws the relay.
    let mut drawn = Relay::new(vec![PlayerId(1)], vec![PlayerId(2)]).unwrap();
    drawn.start_next().unwrap();
    assert_eq!(drawn.record(Draw).unwrap(), RelayState::Drawn);
}

#[test]
fn line_ups_of_the_wrong_size_are_refused() {
    let three: Vec<PlayerId> = [1, 2, 3].map(PlayerId).to_vec();
    let two: Vec<PlayerId> = [4, 5].map(PlayerId).to_vec();
    assert_eq!(
        Relay::new(three.clone(), two).unwrap_err(),
        TeamError::UnequalTeams { home: 3, away: 2 }
    );
    assert_eq!(check_line_ups(&[], &[]).unwrap_err(), TeamError::EmptyTeam);
    assert_eq!(
        check_line_ups(&three, &[PlayerId(4), PlayerId(5), PlayerId(1)]).unwrap_err(),
        TeamError::DuplicatePlayer(PlayerId(1))
    );
}
