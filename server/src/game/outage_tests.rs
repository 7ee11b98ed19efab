//! A game whose store fails under it, with the store's test fault switch (SQLite answering as a
//! Redis store does when it is out of reach or loses a reply): a refused append leaves the game as
//! it was and alive; a write whose reply was lost is settled from the log, so its keyed retry is
//! acknowledged once and never applied twice; the same for a bet in the ledger.

use std::sync::{Arc, Mutex};

use tengen_protocol::{
    ClockSettings, ErrorCode, GameId, GameSettings, KoRule, PlayerInfo, Point, Points, RequestKey,
    UserId,
};
use tokio::sync::{broadcast, mpsc};

use super::*;
use crate::config::{Config, GameTiming};
use crate::store::sqlite::{Fault, SqliteStore};
use crate::store::Accounts;
use crate::{Shutdown, ShutdownTrigger};
use tengen_rules::Color;

/// Long enough that no deadline falls inside a test.
const LONG_MS: u64 = 3_600_000;

struct Harness {
    store: StoreHandle,
    fault: Arc<Mutex<Fault>>,
    games: Games,
    ledger: crate::ledger::Ledger,
    black: UserId,
    white: UserId,
    carol: UserId,
    game: GameId,
    frames: broadcast::Receiver<GameFrame>,
    _trigger: ShutdownTrigger,
    _alive: mpsc::Receiver<()>,
    _dir: tempfile::TempDir,
}

fn info(user: UserId, name: &str) -> PlayerInfo {
    PlayerInfo {
        user,
        username: name.into(),
        rank: "?".into(),
        rating: 1500,
        computer: false,
    }
}

async fn harness() -> Harness {
    harness_with(LONG_MS).await
}

/// A game that is void unless its first move comes within `first_move_within_ms`.
async fn harness_with(first_move_within_ms: u64) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(dir.path()).unwrap();
    let fault = Arc::clone(&sqlite.fault);
    let black = sqlite
        .create_user(&crate::username::name("alice"), "h", 1)
        .unwrap();
    let white = sqlite
        .create_user(&crate::username::name("bob"), "h", 1)
        .unwrap();
    let carol = sqlite
        .create_user(&crate::username::name("carol"), "h", 1)
        .unwrap();
    let store = StoreHandle::for_paused_time(Arc::new(sqlite));
    let games = Games::new();
    let (trigger, shutdown) = Shutdown::new();
    let (alive, alive_rx) = mpsc::channel(1);
    let tasks = TaskGuard::new(alive);
    let config = Config::new(std::path::PathBuf::from("unused"));
    let ledger = crate::ledger::Ledger::new(store.clone(), config.grant_points, config.tax_bp);
    // No grant delay: the grant lands at once.
    ledger.open_account(carol, 0, 1).await.unwrap();
    let hall = crate::hall::spawn(
        &config,
        store.clone(),
        ledger.clone(),
        games.clone(),
        shutdown.clone(),
        tasks.clone(),
    );
    let ctx = GameContext {
        store: store.clone(),
        ledger: ledger.clone(),
        fault_stop_before_settlement: false,
        hall: std::sync::Arc::new(hall),
        shutdown,
        tasks,
        timing: GameTiming {
            disconnect_grace_ms: LONG_MS,
            first_move_within_ms,
            scoring_phase_ms: LONG_MS,
        },
    };
    let start = StartGame {
        bettors_barred: Vec::new(),
        table: None,
        black: info(black, "alice"),
        white: info(white, "bob"),
        settings: GameSettings {
            size: 9,
            komi_half_points: 15,
            handicap: 0,
            ko_rule: KoRule::Positional,
            clock: ClockSettings::None,
            nigiri: false,
            lateness_limit_ms: None,
            unrated: false,
            event: None,
        },
        nigiri_seed: None,
    };
    let summary = games.start(start, &ctx).await.unwrap();
    let handle = games.get(summary.game).await.unwrap();
    let frames = subscribe(&handle, None).await.unwrap().frames;
    Harness {
        store,
        fault,
        games,
        ledger,
        black,
        white,
        carol,
        game: summary.game,
        frames,
        _trigger: trigger,
        _alive: alive_rx,
        _dir: dir,
    }
}

fn key(text: &str) -> Option<RequestKey> {
    Some(RequestKey::new(text).unwrap())
}

impl Harness {
    fn set(&self, fault: Fault) {
        *self.fault.lock().unwrap() = fault;
    }

    async fn play(
        &self,
        user: UserId,
        col: u8,
        row: u8,
        key: Option<RequestKey>,
    ) -> Result<(), Refusal> {
        let handle = self.games.get(self.game).await?;
        let mv = PlayerMove::Play(Point { col, row });
        handle
            .ask(GameRequest::Move { user, mv, key })
            .await
            .and_then(GameReply::done)
    }

    async fn bet(&self, amount: u64, key: Option<RequestKey>) -> Result<BetReceipt, Refusal> {
        let handle = self.games.get(self.game).await?;
        let user = self.carol;
        handle
            .ask(GameRequest::Bet {
                user,
                side: Color::Black,
                amount: Points::new(amount).unwrap(),
                key,
            })
            .await
            .and_then(GameReply::bet)
    }

    /// The stored log's `seq`s.
    async fn logged(&self) -> Vec<u64> {
        let game = self.game;
        let events = self.store.call(move |s| s.game_events(game)).await;
        events.unwrap().into_iter().map(|(seq, _)| seq).collect()
    }

    /// The `seq`s of the events broadcast so far.
    fn announced(&mut self) -> Vec<u64> {
        let mut seqs = Vec::new();
        while let Ok(frame) = self.frames.try_recv() {
            seqs.extend(frame.seq);
        }
        seqs
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_the_store_cannot_take_is_refused_unavailable_and_the_game_goes_on() {
    let mut h = harness().await;
    h.set(Fault::Down);
    let refused = h.play(h.black, 2, 2, key("m-1")).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::Unavailable, "{refused}");
    // Again while the store is down: the game cannot even read its log back; nothing changes.
    let refused = h.play(h.black, 2, 2, key("m-1")).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::Unavailable, "{refused}");
    // The game is alive and as it was: its record is served, without the move.
    let handle = h.games.get(h.game).await.unwrap();
    let sgf = handle
        .ask(GameRequest::Record)
        .await
        .and_then(GameReply::record)
        .unwrap();
    assert!(!sgf.contains(";B["), "{sgf}");

    h.set(Fault::None);
    h.play(h.black, 2, 2, key("m-1")).await.unwrap();
    h.play(h.white, 6, 6, None).await.unwrap();
    assert_eq!(h.logged().await, vec![1, 2]);
    assert_eq!(h.announced(), vec![1, 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_whose_reply_was_lost_is_acknowledged_once_when_sent_again() {
    let mut h = harness().await;
    h.set(Fault::LoseReply);
    let unknown = h.play(h.black, 2, 2, key("m-1")).await.unwrap_err();
    assert_eq!(unknown.code, ErrorCode::OutcomeUnknown, "{unknown}");
    // The move is in the log; the game did not count on it.
    assert_eq!(h.logged().await, vec![1]);

    h.set(Fault::None);
    // The retry settles it from the log: acknowledged, not played again, announced once.
    h.play(h.black, 2, 2, key("m-1")).await.unwrap();
    assert_eq!(h.logged().await, vec![1]);
    let reused = h.play(h.black, 3, 3, key("m-1")).await.unwrap_err();
    assert_eq!(reused.code, ErrorCode::KeyReused);
    // White is to move: the game has Black's stone.
    h.play(h.white, 2, 2, None).await.unwrap_err();
    h.play(h.white, 6, 6, None).await.unwrap();
    assert_eq!(h.logged().await, vec![1, 2]);
    assert_eq!(h.announced(), vec![1, 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bet_whose_reply_was_lost_is_placed_once_when_sent_again() {
    let h = harness().await;
    let grant = h.ledger.balance(h.carol).await.unwrap();
    h.set(Fault::LoseReply);
    let unknown = h.bet(100, key("b-1")).await.unwrap_err();
    assert_eq!(unknown.code, ErrorCode::OutcomeUnknown, "{unknown}");

    h.set(Fault::None);
    let receipt = h.bet(100, key("b-1")).await.unwrap();
    assert_eq!((receipt.total, receipt.balance), (100, grant - 100));
    // An unkeyed bet after it is numbered after the one the game did not count at first.
    let receipt = h.bet(10, None).await.unwrap();
    assert_eq!((receipt.total, receipt.balance), (110, grant - 110));
    let handle = h.games.get(h.game).await.unwrap();
    let pool = handle
        .ask(GameRequest::Pool)
        .await
        .and_then(GameReply::pool)
        .unwrap();
    assert_eq!(pool.total, 110);
    assert_eq!(h.ledger.balance(h.carol).await.unwrap(), grant - 110);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_that_cannot_be_recorded_waits_for_the_store() {
    // Nobody moves: the game is void after 100 ms, but the store is down when that falls due.
    let mut h = harness_with(100).await;
    h.set(Fault::Down);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // Still live and served: the end could not be recorded, so it has not happened.
    let handle = h.games.get(h.game).await.unwrap();
    let state = subscribe(&handle, None).await.unwrap();
    let snapshot: serde_json::Value = serde_json::from_str(state.snapshot.as_str()).unwrap();
    assert_eq!(snapshot["state"]["phase"], "playing", "{snapshot}");
    assert!(h.announced().is_empty());
    // A move while the store is down changes nothing either.
    let refused = h.play(h.black, 2, 2, None).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::Unavailable);

    // The store is back: the actor reads its log back by itself and records the end.
    h.set(Fault::None);
    let ended = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            let frame = h.frames.recv().await.unwrap();
            if frame.text.as_str().contains("\"ended\"") {
                return frame;
            }
        }
    })
    .await
    .expect("the game ends once the store is back");
    assert!(
        ended.text.as_str().contains("\"void\""),
        "{}",
        ended.text.as_str()
    );
    assert_eq!(h.logged().await, vec![1]);
}

/// An adjourned game resumes, but only the resumption reaches the log (the reply of its write is
/// lost): once the store answers again, the log is read back and the sealed move is played next,
/// before anything else, as the resumption would have played it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_move_whose_resumption_was_cut_short_is_played_next() {
    let h = harness().await;
    h.play(h.black, 2, 2, None).await.unwrap();
    let handle = h.games.get(h.game).await.unwrap();
    let ask = |request| {
        let handle = handle.clone();
        async move { handle.ask(request).await.and_then(GameReply::done) }
    };
    let resume_at_ms = crate::unix_now_ms() + LONG_MS;
    ask(GameRequest::Adjourn { resume_at_ms }).await.unwrap();
    let point = Some(Point { col: 6, row: 6 });
    ask(GameRequest::Seal {
        user: h.white,
        point,
    })
    .await
    .unwrap();
    h.set(Fault::LoseReply);
    let unknown = ask(GameRequest::Resume).await.unwrap_err();
    assert_eq!(unknown.code, ErrorCode::OutcomeUnknown, "{unknown}");
    assert_eq!(h.logged().await, vec![1, 2, 3, 4]);

    h.set(Fault::None);
    // Black's next move finds White's sealed move played first.
    h.play(h.black, 4, 4, None).await.unwrap();
    let game = h.game;
    let events = h.store.call(move |s| s.game_events(game)).await.unwrap();
    let kinds: Vec<String> = events
        .iter()
        .map(|(_, text)| {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            format!("{} {}", value["event"], value["point"])
        })
        .collect();
    assert_eq!(
        kinds[3..],
        [
            "\"resumed\" null",
            "\"played\" {\"col\":6,\"row\":6}",
            "\"played\" {\"col\":4,\"row\":4}"
        ]
    );
    // The sealed move was in the log entry of the seal alone, never in its event.
    let sealed: serde_json::Value = serde_json::from_str(&events[2].1).unwrap();
    assert_eq!(sealed["event"], "sealed");
    assert_eq!(
        sealed["sealed"]["point"],
        serde_json::json!({"col": 6, "row": 6})
    );
}
