//! Undo requests (悔棋): asking to take back one's last move, the opponent's answer, and taking the
//! moves back, both live and when the log is replayed.
//!
//! Rules decided here, in the players' terms:
//! - Undo (悔棋): a player may ask to take back their last move while play is on; the opponent accepts
//!   or declines. Accepted, the asker's last move is taken back, with the opponent's reply if one was
//!   made since, so the asker is to move again; time already used is not given back. Any move or pass
//!   withdraws a pending request. The log keeps the request and the answer, and the SGF root comment
//!   lists accepted undos.

use tengen_protocol::{ErrorCode, GameEvent, UserId};
use tengen_rules::{Color, Phase};

use super::{Fatal, Flow, GameActor};
use crate::game::core::UNDO_NOTES_MAX;
use crate::game::wire;
use crate::Refusal;

impl GameActor {
    /// How many plies an undo by `color` takes back now: their last move, and the opponent's reply
    /// if one followed it. `None` when `color` has no move to take back.
    pub(super) fn undo_plies(&self, color: Color) -> Option<usize> {
        if self.core.game.phase() != Phase::Play {
            return None;
        }
        let moves = self.core.game.moves();
        match moves {
            [.., (last, _)] if *last == color => Some(1),
            [.., (mine, _), _] if *mine == color => Some(2),
            _ => None,
        }
    }

    pub(super) async fn ask_undo(&mut self, user: UserId) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.color_of(user) {
            Ok(color) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if let Err(refusal) = self.refuse_if_halted() {
            return Ok(Err(refusal));
        }
        if self.core.undo_request.is_some() {
            return Ok(Err(Refusal::new(
                ErrorCode::NoUndo,
                "an undo request is already waiting for an answer",
            )));
        }
        if self.undo_plies(color).is_none() {
            return Ok(Err(Refusal::new(
                ErrorCode::NoUndo,
                "you have no move in play to take back",
            )));
        }
        self.core.undo_request = Some(color);
        self.commit(GameEvent::UndoRequested { color }).await?;
        Ok(Ok(Flow::Continue))
    }

    pub(super) async fn answer_undo(
        &mut self,
        user: UserId,
        accept: bool,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.color_of(user) {
            Ok(color) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if let Err(refusal) = self.refuse_if_halted() {
            return Ok(Err(refusal));
        }
        let asker = match self.core.undo_request {
            Some(asker) if asker == color.opponent() => asker,
            _ => {
                return Ok(Err(Refusal::new(
                    ErrorCode::NoUndo,
                    "your opponent has not asked to take a move back",
                )))
            }
        };
        if !accept {
            self.core.undo_request = None;
            self.commit(GameEvent::UndoDeclined { color: asker })
                .await?;
            return Ok(Ok(Flow::Continue));
        }
        let now_ms = self.now_ms();
        if let Err(refusal) = self.take_back(asker, now_ms) {
            return Ok(Err(refusal));
        }
        self.commit(GameEvent::UndoAccepted {
            color: asker,
            by: color,
            moves_count: self.core.game.moves().len() as u32,
            to_move: (self.core.game.to_move()),
            board: wire::board_rows(self.core.game.board()),
            captures_black: Some(self.core.game.prisoners(Color::Black)),
            captures_white: Some(self.core.game.prisoners(Color::White)),
            last_move: wire::last_move(&self.core.game),
        })
        .await?;
        Ok(Ok(Flow::Continue))
    }

    /// Take back `asker`'s last move (and the reply after it) at game time `at_ms`; the clock goes
    /// to `asker` without giving back time already used. Refused, with nothing changed, when there is
    /// no such move or the engine cannot replay its record without them.
    pub(super) fn take_back(&mut self, asker: Color, at_ms: u64) -> Result<(), Refusal> {
        let Some(plies) = self.undo_plies(asker) else {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "there is no move in play to take back",
            ));
        };
        let number = self.core.game.moves().len() + 1 - plies;
        // On a copy, so that a replay failing halfway leaves the game as it was.
        let mut game = self.core.game.clone();
        for _ in 0..plies {
            if let Err(err) = game.undo() {
                tracing::error!(game = %self.id, %err, "an accepted undo did not replay");
                return Err(Refusal::new(
                    ErrorCode::Internal,
                    format!("the moves could not be taken back ({err}); nothing was changed"),
                ));
            }
        }
        self.core.game = game;
        self.core.undo_request = None;
        if self.core.undo_notes.len() < UNDO_NOTES_MAX {
            self.core
                .undo_notes
                .push(format!("{asker} took back move {number} (undo accepted)"));
        }
        if let Some(clock) = &mut self.core.clock {
            // A clock that is not running (or finds its side out of time) is left as it is; one
            // just paused always resumes, whoever is to move.
            if clock.pause(at_ms).is_ok() {
                let resumed = clock.resume(at_ms, self.core.game.to_move());
                assert!(resumed.is_ok(), "a clock just paused resumes: {resumed:?}");
            }
        }
        Ok(())
    }
}
