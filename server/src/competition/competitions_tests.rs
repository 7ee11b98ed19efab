//! Competitions run against a stage standing in for the hall: the narrow `Venue` is all they
//! need, so an event is created, entered, paired, played and finished here with no hall at all,
//! and the stage records every game asked for and every frame pushed.

use std::sync::Mutex;

use futures_util::future::BoxFuture;
use tengen_pairing::Format;
use tengen_protocol::{
    ClockSettings, Color, EndReason, ErrorCode, EventId, EventSpec, EventStatus, FinalTie, GameId,
    GameOutcome, GameSettings, GameSummary, KoRule, PlayerInfo, ServerMsg, UserId,
};

use super::{Competitions, EventReply, EventRequest, Venue};
use crate::game::Games;
use crate::store::sqlite::SqliteStore;
use crate::store::StoreHandle;
use crate::{Frame, Refusal, Shutdown};

/// The hall as the competitions see it, writing down what they ask of it.
#[derive(Debug, Default)]
struct Stage {
    /// Each game asked for: its players, settings and who may not bet on it.
    started: Vec<(PlayerInfo, PlayerInfo, GameSettings, Vec<UserId>)>,
    /// The `type` of each frame pushed to the lobby.
    lobby: Mutex<Vec<String>>,
    /// Each frame pushed to one user.
    to_users: Mutex<Vec<(UserId, Frame)>>,
}

impl Venue for Stage {
    fn start_event_game(
        &mut self,
        black: PlayerInfo,
        white: PlayerInfo,
        settings: GameSettings,
        bettors_barred: Vec<UserId>,
    ) -> BoxFuture<'_, Result<GameSummary, Refusal>> {
        let game = GameId(100 + self.started.len() as u64);
        let summary = GameSummary {
            game,
            table: None,
            black: black.clone(),
            white: white.clone(),
            size: settings.size,
            moves_count: 0,
            watchers_count: 0,
        };
        self.started.push((black, white, settings, bettors_barred));
        Box::pin(async move { Ok(summary) })
    }

    fn push_to_hall(&self, msg: &ServerMsg) {
        let json: serde_json::Value = serde_json::from_str(&msg.to_json()).unwrap();
        let kind = json["type"].as_str().unwrap_or_default().to_owned();
        self.lobby.lock().unwrap().push(kind);
    }

    fn push_to_user(&self, user: UserId, frame: Frame) {
        self.to_users.lock().unwrap().push((user, frame));
    }

    fn round_due(&self, _event: EventId, _round: u32) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

fn player(user: u64, name: &str, rating: i32) -> PlayerInfo {
    PlayerInfo {
        user: UserId(user),
        username: name.to_owned(),
        rank: "1d".to_owned(),
        rating,
        computer: false,
    }
}

fn round_robin(name: &str) -> EventSpec {
    EventSpec {
        name: name.to_owned(),
        format: Format::RoundRobin { cycles: 1 },
        final_tie: FinalTie::default(),
        settings: GameSettings {
            size: 9,
            komi_half_points: 15,
            handicap: 0,
            ko_rule: KoRule::Positional,
            clock: ClockSettings::Absolute {
                main_time_ms: 600_000,
            },
            nigiri: true,
            lateness_limit_ms: None,
            unrated: false,
            event: None,
        },
        players_max: 2,
        ranks: None,
        lateness_limit_ms: None,
        teams: None,
        rated: true,
        round_starts_ms: Vec::new(),
    }
}

async fn ask(
    competitions: &mut Competitions,
    stage: &mut Stage,
    request: EventRequest,
) -> Result<EventReply, Refusal> {
    competitions.request(request, stage).await
}

fn view(reply: Result<EventReply, Refusal>) -> tengen_protocol::EventView {
    match reply {
        Ok(EventReply::Event(view)) => *view,
        other => panic!("expected an event's view, got {other:?}"),
    }
}

#[tokio::test]
async fn an_event_is_played_to_its_end_through_the_venue_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = StoreHandle::new(std::sync::Arc::new(SqliteStore::open(dir.path()).unwrap()));
    let (_trigger, shutdown) = Shutdown::new();
    let mut competitions = Competitions::new(store, Games::new(), shutdown);
    let mut stage = Stage::default();
    let (carol, alice, bob) = (
        player(1, "carol", 1800),
        player(2, "alice", 2100),
        player(3, "bob", 1900),
    );

    let create = EventRequest::CreateEvent {
        director: carol.clone(),
        spec: round_robin("spring"),
    };
    let id = view(ask(&mut competitions, &mut stage, create).await)
        .summary
        .event;
    for entrant in [&alice, &bob] {
        let join = EventRequest::JoinEvent {
            event: id,
            player: entrant.clone(),
        };
        view(ask(&mut competitions, &mut stage, join).await);
    }
    let by_bob = EventRequest::StartRound {
        event: id,
        user: bob.user,
    };
    let refused = ask(&mut competitions, &mut stage, by_bob)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::NotDirector);
    assert!(stage.started.is_empty(), "nothing starts for a refusal");

    let start = EventRequest::StartRound {
        event: id,
        user: carol.user,
    };
    let paired = view(ask(&mut competitions, &mut stage, start).await);
    assert_eq!(paired.summary.status, EventStatus::Playing);
    assert_eq!(stage.started.len(), 1, "one board, one game");
    let (black, white, settings, barred) = stage.started[0].clone();
    assert_eq!(settings.event, Some(id));
    assert!(!settings.nigiri, "the pairing gives the colours");
    assert_eq!(barred, [alice.user, bob.user], "entrants may not bet");
    let board = &paired.rounds[0].boards[0];
    assert_eq!((board.black, board.white), (black.user, white.user));
    assert_eq!(board.game, Some(GameId(100)));

    // A game that is no event's changes nothing; the event's game's end decides the event.
    let black_wins = GameOutcome {
        winner: Some(Color::Black),
        reason: EndReason::Resignation,
        sgf: "B+R".into(),
        chinese: "黑中盘胜".into(),
        black_count_half_points: None,
        white_count_half_points: None,
    };
    competitions
        .game_ended(GameId(7), Some(black_wins.clone()), &mut stage)
        .await;
    competitions
        .game_ended(GameId(100), Some(black_wins), &mut stage)
        .await;
    let get = EventRequest::GetEvent { event: id };
    let finished = view(ask(&mut competitions, &mut stage, get).await);
    assert_eq!(finished.summary.status, EventStatus::Finished);
    assert_eq!(finished.winner, Some(black.user));
    let placing = &competitions.placings(black.user)[0];
    assert_eq!((placing.event, placing.place), (id, Some(1)));
    assert!(
        competitions.placings(carol.user).is_empty(),
        "a director is no entrant"
    );

    // Every change was pushed: its line to the lobby, its view to the director and entrants.
    let lobby = stage.lobby.lock().unwrap();
    assert!(lobby.iter().all(|kind| kind == "event_listed"));
    assert_eq!(
        lobby.len(),
        6,
        "created, 2 joined, paired, games listed, result"
    );
    let to_users = stage.to_users.lock().unwrap();
    assert!(to_users
        .iter()
        .all(|(_, frame)| frame.as_str().starts_with("{\"type\":\"event\"")));
    assert_eq!(to_users.iter().filter(|(u, _)| *u == carol.user).count(), 6);
}
