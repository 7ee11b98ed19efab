//! A connection's study board: a private board to replay and explore, opened empty or from an SGF,
//! and counted as the scoring phase would. It lives in the session and reaches no actor.

use tengen_protocol::{ErrorCode, Point, RequestId, StudyMsg, StudyServerMsg};

use super::{Answer, Session};
use crate::study::{self, Study};
use crate::Refusal;

impl Session {
    /// The study messages (`Session::handle` passes only these here).
    pub(super) fn study_message(
        &mut self,
        id: Option<RequestId>,
        msg: StudyMsg,
    ) -> Result<Answer, Refusal> {
        use StudyMsg as M;
        match msg {
            M::StudyOpen {
                size,
                komi_half_points,
                handicap,
            } => self.study_open(id, size, komi_half_points, handicap),
            M::StudyLoadSgf { sgf, sgf_base64 } => self.study_load_sgf(id, sgf, sgf_base64),
            M::StudyPlay { point } => self.study_play(id, point),
            M::StudyPass => self.study_pass(id),
            M::StudyBack => self.study_back(id),
            M::StudyForward { variation } => self.study_forward(id, variation),
            M::StudyGoto { move_number } => self.study_goto(id, move_number),
            M::StudyCount => self.study_count(id),
        }
    }

    pub(super) fn study_open(
        &mut self,
        id: Option<RequestId>,
        size: u8,
        komi_half_points: i32,
        handicap: u8,
    ) -> Result<Answer, Refusal> {
        let study = Study::open(size, komi_half_points, handicap)?;
        Ok(self.study_reply(id, Some(study)))
    }

    pub(super) fn study_load_sgf(
        &mut self,
        id: Option<RequestId>,
        sgf: Option<String>,
        sgf_base64: Option<String>,
    ) -> Result<Answer, Refusal> {
        let bytes = match (sgf, sgf_base64) {
            (Some(text), None) => text.into_bytes(),
            (None, Some(encoded)) => study::decode_base64(&encoded)?,
            _ => {
                return Err(Refusal::new(
                    ErrorCode::BadMessage,
                    "send the file as sgf_base64 (its bytes) or sgf (its text), one of the two",
                ))
            }
        };
        let study = Study::load_sgf(&bytes)?;
        Ok(self.study_reply(id, Some(study)))
    }

    pub(super) fn study_play(
        &mut self,
        id: Option<RequestId>,
        point: Point,
    ) -> Result<Answer, Refusal> {
        self.study()?.play(tengen_rules::Move::Play(point))?;
        Ok(self.study_reply(id, None))
    }

    pub(super) fn study_pass(&mut self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        self.study()?.play(tengen_rules::Move::Pass)?;
        Ok(self.study_reply(id, None))
    }

    pub(super) fn study_back(&mut self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        self.study()?.back()?;
        Ok(self.study_reply(id, None))
    }

    pub(super) fn study_forward(
        &mut self,
        id: Option<RequestId>,
        variation: u32,
    ) -> Result<Answer, Refusal> {
        self.study()?.forward(variation)?;
        Ok(self.study_reply(id, None))
    }

    pub(super) fn study_goto(
        &mut self,
        id: Option<RequestId>,
        move_number: u32,
    ) -> Result<Answer, Refusal> {
        self.study()?.goto(move_number)?;
        Ok(self.study_reply(id, None))
    }

    pub(super) fn study_count(&mut self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        let count = self.study()?.count();
        Ok(Answer::msg(StudyServerMsg::StudyCount {
            id,
            dead: count.dead,
            black_count_half_points: count.black_count_half_points,
            white_count_half_points: count.white_count_half_points,
            result: count.result,
        }))
    }

    fn study(&mut self) -> Result<&mut Study, Refusal> {
        self.study.as_mut().ok_or_else(|| {
            Refusal::new(
                ErrorCode::NoStudy,
                "open a study board first (study_open or study_load_sgf)",
            )
        })
    }

    /// Replace the study with `fresh`, if given, and answer with the board as it stands.
    fn study_reply(&mut self, id: Option<RequestId>, fresh: Option<Study>) -> Answer {
        if let Some(fresh) = fresh {
            self.study = Some(fresh);
        }
        let study = self.study.as_ref().map(Study::view);
        match study {
            Some(study) => Answer::msg(StudyServerMsg::Study {
                id,
                study: Box::new(study),
            }),
            None => Answer::Ack,
        }
    }
}
