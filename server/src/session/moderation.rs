//! The session's moderation handler: anyone logged in reports; moderators list the open reports,
//! act, and read the log. Who counts as a moderator is read from the store on each request, so a
//! role granted or taken away holds at once on every node.

use tengen_protocol::{ModerationMsg, ModerationServerMsg, RequestId};

use super::{Answer, Session};

mod acts;
use crate::moderation::{self, Act};
use crate::Refusal;

impl Session {
    /// Answer a moderation message.
    pub(super) async fn moderation_message(
        &self,
        id: Option<RequestId>,
        msg: ModerationMsg,
    ) -> Result<Answer, Refusal> {
        let player = self.player()?;
        let state = &self.state;
        let reply = match msg {
            ModerationMsg::Report { target, reason } => {
                let counters = &state.moderation;
                let report =
                    moderation::file_report(&state.store, counters, &player, target, &reason)
                        .await?;
                ModerationServerMsg::ReportFiled { id, report }
            }
            ModerationMsg::ListReports => {
                acts::role_of(state, &player).await?;
                let reports = moderation::open_reports(&state.store).await?;
                ModerationServerMsg::Reports { id, reports }
            }
            ModerationMsg::Moderate {
                action,
                reason,
                report,
            } => {
                let act = Act {
                    action,
                    reason,
                    report,
                };
                acts::moderate(state, &player, act).await?;
                return Ok(Answer::Ack);
            }
            ModerationMsg::ModerationLog { before } => {
                acts::role_of(state, &player).await?;
                let entries = moderation::log_page(&state.store, before).await?;
                ModerationServerMsg::ModerationLog { id, entries }
            }
        };
        Ok(Answer::msg(reply))
    }
}
