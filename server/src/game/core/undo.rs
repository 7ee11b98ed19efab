//! Undo requests (悔棋): asking to take back one's last move, the opponent's answer, and taking
//! the moves back when the answer is applied.
//!
//! Rules decided here, in the players' terms:
//! - Undo (悔棋): a player may ask to take back their last move while play is on; the opponent
//!   accepts or declines. Accepted, the asker's last move is taken back, with the opponent's reply
//!   if one was made since, so the asker is to move again; time already used is not given back.
//!   Any move or pass withdraws a pending request. The log keeps the request and the answer, and
//!   the SGF root comment lists accepted undos (at most [`UNDO_NOTES_MAX`]).

use tengen_protocol::{ErrorCode, GameEvent};
use tengen_rules::{Color, Phase};

use super::decide::Decision;
use super::{GameCore, LoggedEvent, UNDO_NOTES_MAX};
use crate::game::wire;
use crate::Refusal;

impl GameCore {
    /// `color` asks to take back their last move.
    pub(super) fn decide_ask_undo(&self, d: &mut Decision, color: Color) -> Result<(), Refusal> {
        self.refuse_if_halted()?;
        if self.undo_request.is_some() {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "an undo request is already waiting for an answer",
            ));
        }
        if self.undo_plies(color).is_none() {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "you have no move in play to take back",
            ));
        }
        d.event(GameEvent::UndoRequested { color })
    }

    /// `color` answers the opponent's undo request.
    pub(super) fn decide_answer_undo(
        &self,
        d: &mut Decision,
        color: Color,
        accept: bool,
    ) -> Result<(), Refusal> {
        self.refuse_if_halted()?;
        let asker = match self.undo_request {
            Some(asker) if asker == color.opponent() => asker,
            _ => {
                return Err(Refusal::new(
                    ErrorCode::NoUndo,
                    "your opponent has not asked to take a move back",
                ))
            }
        };
        if !accept {
            return d.event(GameEvent::UndoDeclined { color: asker });
        }
        if self.undo_plies(asker).is_none() {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "there is no move in play to take back",
            ));
        }
        // Taken back on the copy first: the event shows the position it leaves.
        let mut next = d.next.clone();
        let probe = LoggedEvent::at(undo_accepted(&next, asker, color), d.now_ms);
        next.apply(next.seq + 1, &probe)?;
        d.event(undo_accepted(&next, asker, color))
    }

    /// How many plies an undo by `color` takes back now: their last move, and the opponent's reply
    /// if one followed it. `None` when `color` has no move to take back.
    pub(super) fn undo_plies(&self, color: Color) -> Option<usize> {
        if self.game.phase() != Phase::Play {
            return None;
        }
        match self.game.moves() {
            [.., (last, _)] if *last == color => Some(1),
            [.., (mine, _), _] if *mine == color => Some(2),
            _ => None,
        }
    }

    /// Take back `asker`'s last move (and the reply after it) at game time `at_ms`; the clock goes
    /// to `asker` without giving back time already used. Refused, with nothing changed, when there
    /// is no such move or the engine cannot replay its record without them.
    pub(super) fn take_back(&mut self, asker: Color, at_ms: u64) -> Result<(), Refusal> {
        let Some(plies) = self.undo_plies(asker) else {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "there is no move in play to take back",
            ));
        };
        let number = self.game.moves().len() + 1 - plies;
        // On a copy, so that a replay failing halfway leaves the game as it was.
        let mut game = self.game.clone();
        for _ in 0..plies {
            if let Err(err) = game.undo() {
                return Err(Refusal::new(
                    ErrorCode::Internal,
                    format!("the moves could not be taken back ({err}); nothing was changed"),
                ));
            }
        }
        self.game = game;
        self.undo_request = None;
        if self.undo_notes.len() < UNDO_NOTES_MAX {
            self.undo_notes
                .push(format!("{asker} took back move {number} (undo accepted)"));
        }
        if let Some(clock) = &mut self.clock {
            // A clock that is not running (or finds its side out of time) is left as it is; one
            // just paused always resumes, whoever is to move.
            if clock.pause(at_ms).is_ok() {
                let resumed = clock.resume(at_ms, self.game.to_move());
                assert!(resumed.is_ok(), "a clock just paused resumes: {resumed:?}");
            }
        }
        Ok(())
    }
}

/// The `undo_accepted` event of `asker`'s undo answered by `by`, showing `game`'s position.
fn undo_accepted(core: &GameCore, asker: Color, by: Color) -> GameEvent {
    let game = &core.game;
    GameEvent::UndoAccepted {
        color: asker,
        by,
        moves_count: game.moves().len() as u32,
        to_move: game.to_move(),
        board: wire::board_rows(game.board()),
        captures_black: Some(game.prisoners(Color::Black)),
        captures_white: Some(game.prisoners(Color::White)),
        last_move: wire::last_move(game),
    }
}
