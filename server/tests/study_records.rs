//! Records from other servers and editors opened on the study board over a real socket, as the
//! browser sends them: the file's bytes in base64. The records are the committed test records
//! (`rules/tests/data/records`, described in its README): triple-ko games under Japanese and Korean
//! rules, files in GB2312, GBK, Big5, Shift_JIS, EUC-KR and Latin-1, a review over 64 KiB, a mail
//! with prose before the record. Each opens, replays to its last move, and shows its names and
//! comments as the file holds them; what cannot be opened is refused with its reason.

mod common;

use std::path::PathBuf;

use base64::Engine;
use common::{Client, TestServer};
use serde_json::{json, Value};
use tengen_server::config::STUDY_SGF_BYTES_MAX;

fn record_bytes(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rules/tests/data/records")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn load(client: &mut Client, bytes: &[u8]) -> Value {
    client
        .request(json!({"type": "study_load_sgf", "sgf_base64": base64(bytes)}))
        .await
}

/// Each record: its file, the names as written, the charset it is read in, the ko rule and why.
const RECORDS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "kgs-triple-ko.sgf",
        "hikaru",
        "tsumego_fan",
        "UTF-8",
        "simple",
        "rules",
    ),
    (
        "nihon-kiin-triple-ko-shift-jis.sgf",
        "十河 表太郎",
        "宗像 能ソ子",
        "Shift_JIS",
        "simple",
        "rules",
    ),
    (
        "korean-triple-ko-euc-kr.sgf",
        "김철수",
        "이영희",
        "EUC-KR",
        "simple",
        "rules",
    ),
    (
        "sabaki-triple-ko-13x13.sgf",
        "Ana Souza",
        "Björn Lindqvist",
        "UTF-8",
        "simple",
        "rules",
    ),
    (
        "ogs-triple-ko.sgf",
        "kosumi",
        "tenuki_master",
        "UTF-8",
        "simple",
        "rules",
    ),
    (
        "fox-gb2312.sgf",
        "清风明月",
        "弈林高手",
        "GBK",
        "positional",
        "rules",
    ),
    (
        "chinese-gbk-no-charset.sgf",
        "王喆",
        "李赟",
        "GBK",
        "positional",
        "rules",
    ),
    (
        "taiwan-big5.sgf",
        "許功明",
        "林海峰子",
        "Big5",
        "positional",
        "strictest",
    ),
    (
        "european-latin1.sgf",
        "François Lefèvre",
        "Jörg Müller",
        "windows-1252",
        "situational",
        "rules",
    ),
    (
        "mail-with-prose.sgf",
        "陈伟",
        "Mia Schmidt",
        "UTF-8",
        "positional",
        "rules",
    ),
    (
        "komi-after-root.sgf",
        "Lee Min",
        "Sato Kenji",
        "UTF-8",
        "positional",
        "strictest",
    ),
    (
        "ogs-review-large.sgf",
        "Mateo Rossi",
        "Yuki Tanaka",
        "UTF-8",
        "simple",
        "rules",
    ),
];

#[tokio::test]
async fn every_record_opens_in_its_own_rules_and_charset_and_replays_to_its_end() {
    let server = TestServer::start().await;
    let mut guest = server.client().await;
    guest.hello().await;
    for &(file, black, white, charset, ko_rule, ko_rule_from) in RECORDS {
        let bytes = record_bytes(file);
        let loaded = load(&mut guest, &bytes).await;
        assert_eq!(loaded["type"], "study", "{file}: {loaded}");
        let study = &loaded["study"];
        let record = &study["record"];
        assert_eq!(record["black"], black, "{file}");
        assert_eq!(record["white"], white, "{file}");
        assert_eq!(record["charset"], charset, "{file}");
        assert_eq!(study["ko_rule"], ko_rule, "{file}");
        assert_eq!(record["ko_rule_from"], ko_rule_from, "{file}");
        assert_eq!(study["move_number"], 0, "{file}");
        // To the last move in one request: the whole main line replays, repeated positions too.
        let end = guest
            .ok(json!({"type": "study_goto", "move": 100_000}))
            .await;
        assert_eq!(end["study"]["move_number"], record["moves_count"], "{file}");
        assert!(record["moves_count"].as_u64() >= Some(60), "{file}");
    }
    server.stop().await;
}

#[tokio::test]
async fn names_and_comments_are_those_the_file_holds() {
    let server = TestServer::start().await;
    let mut guest = server.client().await;
    guest.hello().await;
    // Shift_JIS: the event and the comments hold 十 and ソ, whose second byte is a backslash.
    let loaded = load(
        &mut guest,
        &record_bytes("nihon-kiin-triple-ko-shift-jis.sgf"),
    )
    .await;
    assert_eq!(
        loaded["study"]["record"]["event"],
        "第十期 ソウル杯争奪 研究会"
    );
    assert_eq!(loaded["study"]["record"]["result"], "Void");
    assert_eq!(loaded["study"]["comment"], "三劫無勝負の一局。");
    let end = guest
        .ok(json!({"type": "study_goto", "move": 100_000}))
        .await;
    assert_eq!(
        end["study"]["comment"],
        "双方譲らず、三劫により無勝負となりました。"
    );
    // GB2312 from Fox, with Chinese komi in stones (KM[375] is 7.5 points) and CRLF line ends.
    let loaded = load(&mut guest, &record_bytes("fox-gb2312.sgf")).await;
    assert_eq!(loaded["study"]["record"]["komi_half_points"], 15);
    assert_eq!(loaded["study"]["record"]["name"], "野狐围棋 友谊赛");
    let first = guest.ok(json!({"type": "study_forward"})).await;
    assert_eq!(first["study"]["comment"], "黑棋星位开局。");
    // GBK with no CA: detected.
    let loaded = load(&mut guest, &record_bytes("chinese-gbk-no-charset.sgf")).await;
    assert_eq!(loaded["study"]["record"]["charset_from"], "detected");
    assert_eq!(loaded["study"]["comment"], "评论：陈堃");
    // EUC-KR, Big5 and Latin-1 comments.
    let korean = record_bytes("korean-triple-ko-euc-kr.sgf");
    load(&mut guest, &korean).await;
    let mut seen = Vec::new();
    for n in commented_moves(&korean) {
        let at = guest.ok(json!({"type": "study_goto", "move": n})).await;
        seen.push(
            at["study"]["comment"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    assert_eq!(
        seen,
        [
            "흑이 패를 땄습니다. 판 위에 패가 세 개 있습니다.",
            "삼패! 같은 모양이 다시 나왔습니다.",
            "백이 양보하고 다른 곳에 둡니다."
        ]
    );
    let loaded = load(&mut guest, &record_bytes("taiwan-big5.sgf")).await;
    assert_eq!(loaded["study"]["record"]["name"], "應氏杯 業餘組");
    let loaded = load(&mut guest, &record_bytes("european-latin1.sgf")).await;
    assert_eq!(
        loaded["study"]["comment"],
        "Partie commentée par Søren Ærø."
    );
    assert_eq!(loaded["study"]["record"]["place"], "Rennes, France");
    // Komi, handicap and names written in the node after the root.
    let loaded = load(&mut guest, &record_bytes("komi-after-root.sgf")).await;
    let record = &loaded["study"]["record"];
    assert_eq!(
        (
            record["komi_half_points"].as_i64(),
            record["handicap"].as_u64()
        ),
        (Some(1), Some(2))
    );
    server.stop().await;
}

/// The numbers of the moves that have a comment, as the SGF reader finds them.
fn commented_moves(bytes: &[u8]) -> Vec<usize> {
    let record = tengen_rules::sgf::parse(bytes).unwrap();
    (1..=record.moves.len())
        .filter(|n| record.moves[n - 1].comment.is_some())
        .collect()
}

#[tokio::test]
async fn what_cannot_be_opened_is_refused_with_its_reason_and_nothing_panics() {
    let server = TestServer::start().await;
    let mut guest = server.client().await;
    guest.hello().await;
    let refused = |reply: &Value, code: &str| {
        assert_eq!(reply["type"], "error", "{reply}");
        assert_eq!(reply["code"], code, "{reply}");
        reply["message"].as_str().unwrap_or_default().to_string()
    };
    // The same triple ko under Chinese rules: positional superko refuses the sixth take.
    let text = String::from_utf8(record_bytes("kgs-triple-ko.sgf")).unwrap();
    let chinese = text.replace("RU[Japanese]", "RU[Chinese]");
    let message = refused(&load(&mut guest, chinese.as_bytes()).await, "bad_sgf");
    assert!(message.contains("repeats a position"), "{message}");
    assert!(
        message.contains("positional superko, as RU[Chinese] says"),
        "{message}"
    );
    assert!(message.starts_with("move "), "{message}");
    // Malformed text: where it breaks, by line and column.
    let message = refused(
        &load(&mut guest, b"(;GM[1]SZ[19]\n;B[pd]C[unclosed").await,
        "bad_sgf",
    );
    assert!(message.contains("line 2, column"), "{message}");
    // Boards the engine does not play: refused with their size.
    for board in ["SZ[19:13]", "SZ[30]"] {
        let text = format!("(;GM[1]{board};B[aa])");
        let message = refused(&load(&mut guest, text.as_bytes()).await, "bad_sgf");
        assert!(message.contains("board size"), "{message}");
    }
    // Broken base64, both fields, neither, and bytes that are no record at all.
    let broken = guest
        .request(json!({"type": "study_load_sgf", "sgf_base64": "KDtHTVsxXSk*"}))
        .await;
    assert!(refused(&broken, "bad_sgf").contains("base64"));
    let both = guest
        .request(json!({"type": "study_load_sgf", "sgf_base64": "KDsp", "sgf": "(;)"}))
        .await;
    refused(&both, "bad_message");
    let neither = guest.request(json!({"type": "study_load_sgf"})).await;
    refused(&neither, "bad_message");
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    refused(&load(&mut guest, &garbage).await, "bad_sgf");
    // The study that was open before a refusal is still there.
    guest
        .ok(json!({"type": "study_open", "size": 9, "komi_half_points": 15, "handicap": 0}))
        .await;
    refused(&load(&mut guest, b"(;SZ[9];B[ee];W[ee])").await, "bad_sgf");
    guest
        .ok(json!({"type": "study_play", "point": {"col": 2, "row": 2}}))
        .await;
    server.stop().await;
}

#[tokio::test]
async fn a_large_record_has_its_own_limit_and_costs_its_size_in_messages() {
    // One message a second refills the bucket: what the frames cost is not refilled meanwhile.
    let dir = tempfile::tempdir().unwrap();
    let mut config = common::test_config(dir.path());
    config.messages_per_second = 1;
    let server = TestServer::start_with(config).await;
    let mut guest = server.client().await;
    guest.hello().await;
    // Over the 64 KiB every other message is held to: it opens.
    let review = record_bytes("ogs-review-large.sgf");
    assert!(base64(&review).len() > 64 * 1024);
    let loaded = load(&mut guest, &review).await;
    assert_eq!(loaded["study"]["record"]["moves_count"], 220);
    // A chat line that size is still too large.
    let chat =
        json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "x".repeat(70_000)});
    guest.err(chat, "frame_too_large").await;
    // A file over the study's limit is refused with its size; the frame it came in was counted as
    // the 64 KiB frames it could have been, so one more at once is over the rate limit.
    let mut big = b"(;GM[1]SZ[19]C[".to_vec();
    big.resize(STUDY_SGF_BYTES_MAX + 1, b'x');
    let message = load(&mut guest, &big).await;
    assert_eq!(message["code"], "bad_sgf", "{message}");
    assert!(
        message["message"]
            .as_str()
            .unwrap()
            .contains("1048577 bytes"),
        "{message}"
    );
    let again = load(&mut guest, &big).await;
    assert_eq!(again["code"], "rate_limited", "{again}");
    server.stop().await;
}
