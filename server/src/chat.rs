//! Chat lines: the length and content rule shared by every channel (room, table, kibitz), and the one
//! place a line becomes a `chat` frame. Who may say what where is decided by the hall and the games.

use tengen_protocol::{ChatChannel, ChatLineId, ErrorCode, HallServerMsg, PlayerInfo, ServerMsg};

use crate::config::CHAT_CHARS_MAX;
use crate::Refusal;

/// Trim a line and check it: not empty, at most [`CHAT_CHARS_MAX`] characters, no control characters
/// (which could garble other people's screens or logs).
pub fn validate(text: &str) -> Result<String, Refusal> {
    let text = text.trim();
    let len = text.chars().count();
    if len == 0 || len > CHAT_CHARS_MAX {
        return Err(Refusal::new(
            ErrorCode::BadChat,
            format!("chat lines are 1..={CHAT_CHARS_MAX} characters"),
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(Refusal::new(
            ErrorCode::BadChat,
            "chat lines may not contain control characters",
        ));
    }
    Ok(text.to_string())
}

/// The frame everyone on the channel receives; `line` is the id the store gave the line, by which
/// it is reported and removed.
pub fn frame(
    channel: ChatChannel,
    from: PlayerInfo,
    (text, at_ms): (String, u64),
    line: Option<ChatLineId>,
) -> String {
    ServerMsg::Hall(HallServerMsg::Chat {
        channel,
        from,
        text,
        at_ms,
        line,
    })
    .to_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_trimmed_and_bounded() {
        assert_eq!(validate("  hi ").unwrap(), "hi");
        assert!(validate("   ").is_err());
        assert!(validate(&"好".repeat(CHAT_CHARS_MAX)).is_ok());
        assert!(validate(&"好".repeat(CHAT_CHARS_MAX + 1)).is_err());
        assert!(validate("bell\u{7}").is_err());
    }
}
