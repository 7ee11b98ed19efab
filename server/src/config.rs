//! Every limit, default and timeout of the server in one place, each with the reason for its value.
//! Fixed protocol limits are constants; what an operator or a test may tune lives in [`Config`], whose
//! defaults come from these constants. Nothing here does I/O.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Where `tengen serve` listens unless told otherwise: loopback, so a fresh install is not exposed.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// The data directory unless told otherwise, relative to where the server starts.
pub const DEFAULT_DATA_DIR: &str = "./data";

/// Largest text frame a session reads. The biggest legitimate client message (a chat line, settings) is
/// well under 1 KiB; 64 KiB leaves room for future messages while bounding what one frame can cost.
/// Larger frames are answered `frame_too_large` and dropped; the socket stays open.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

/// Largest SGF file a study board opens (`study_load_sgf`). Real records are a few KiB; a commented
/// review with its variations is tens of KiB (an OGS review of 76 KB was the first that did not fit
/// in a frame), a lecture or a problem collection a few hundred. 1 MiB opens all of them with room
/// to spare, while what one study costs stays small: parsing and replaying a file this size takes
/// milliseconds, and the study holds at most [`STUDY_NODES_MAX`] moves whatever the
/// file says. (The SGF reader's own bound, `tengen_rules::sgf::MAX_SGF_BYTES`, is larger: it reads
/// files from disk too.) Larger files are refused `bad_sgf` with their size.
pub const STUDY_SGF_BYTES_MAX: usize = 1024 * 1024;

/// Moves a study may hold across all its variations. A long game with many variations is a few
/// thousand; the bound keeps one connection's memory small. Beyond it new moves are refused.
pub const STUDY_NODES_MAX: usize = 10_000;

/// Largest `study_load_sgf` frame, the one message allowed past [`MAX_FRAME_BYTES`]: a file of
/// [`STUDY_SGF_BYTES_MAX`] in base64 (4 bytes for every 3) and 1 KiB for the JSON around it. Such a
/// frame is counted by the rate limit as the [`MAX_FRAME_BYTES`] frames it could have been split
/// into, so large records cost a connection its messages as any other input does.
pub const STUDY_SGF_FRAME_BYTES_MAX: usize = STUDY_SGF_BYTES_MAX.div_ceil(3) * 4 + 1024;

/// Frames above this are not even buffered: the WebSocket layer closes the socket (close code 1009).
/// It is the hard cap behind the soft [`MAX_FRAME_BYTES`], so one client cannot make us hold megabytes:
/// the largest frame any message may be, a study's SGF file ([`STUDY_SGF_FRAME_BYTES_MAX`], 1.33 MiB).
pub const MAX_WS_MESSAGE_BYTES: usize = STUDY_SGF_FRAME_BYTES_MAX;

/// Sustained messages per second a connection may send. A person clicking and chatting sends a few per
/// second; a bot playing blitz fewer than ten. Above it messages are answered `rate_limited` and dropped.
pub const MESSAGES_PER_SECOND: u32 = 20;

/// Burst a connection may send at once before the rate applies (a client reconnecting sends `hello`,
/// `resume`, `enter_hall`, `join_room`, `watch` ... together).
pub const MESSAGES_BURST: u32 = 40;

/// Messages dropped for flooding before the connection is closed, counted until the client calms down
/// (its bucket refills to half): a client that ignores `rate_limited` this long is not a person.
pub const RATE_LIMIT_STRIKES_MAX: u32 = 200;

/// Simultaneous connections from one IP address, every one counted from `accept` (plain HTTP and
/// WebSocket alike), so one address cannot take the descriptors everyone shares. A browser tab holds a
/// WebSocket and a few HTTP connections at most; a household or a small club behind one NAT fits, a
/// single machine opening thousands does not. Past it the connection is answered 429 and closed at once.
/// The load generator raises it.
pub const CONNECTIONS_PER_IP_MAX: usize = 64;

/// Simultaneous connections in all, counted from `accept`. Each costs a descriptor and some tens of KiB;
/// 20,000 holds the load test's 18,000 idle players with room to spare. Past it a new connection is
/// answered 503 and closed at once, so the server never runs out of descriptors (which would also stop
/// `accept` for the health check and the store's files). It is lowered at start to what the open-file
/// limit allows, less [`DESCRIPTORS_RESERVED`].
pub const CONNECTIONS_MAX: usize = 20_000;

/// How long the accept loop pauses after `accept` fails for want of descriptors or memory: it would
/// fail again at once, and spinning on it would take a core from everything else.
pub const ACCEPT_ERROR_BACKOFF_MS: u64 = 100;

/// Descriptors kept out of the connection cap for everything else the process opens: the SQLite
/// database, its WAL and readers, Redis connections, the listener, the engine's pipes.
pub const DESCRIPTORS_RESERVED: usize = 256;

/// How long a client may take to send a request's headers, and how long an idle keep-alive connection
/// stays open waiting for the next request. A browser sends its few hundred bytes of headers at once;
/// ten seconds covers a poor mobile link, while a client trickling bytes to hold the socket (slowloris)
/// is closed: without it such sockets stayed open for good.
pub const HEADER_READ_TIMEOUT_MS: u64 = 10_000;

/// How long an upgraded WebSocket may stay silent before saying `hello`. The browser client sends it
/// the moment the socket opens; a socket that says nothing for ten seconds is holding a descriptor
/// for nothing, and is closed (code 1008).
pub const HELLO_DEADLINE_MS: u64 = 10_000;

/// Failed admin-token tries from one address within [`ADMIN_FAILURE_WINDOW_MS`] before that address's
/// admin requests are refused (429) for the rest of the window, the right token included. An operator
/// mistyping a token needs a few tries; a guesser needs millions.
pub const ADMIN_FAILURES_PER_IP_MAX: u32 = 5;

/// Failed admin-token tries from all addresses together within the window before every admin request
/// is refused for the rest of it: many addresses guessing at once get 20 tries a minute in all (28,800
/// a day, nothing against a random token), where one address alone got 3,143 a second. An operator
/// locked out meanwhile can run `tengen audit` on the machine.
pub const ADMIN_FAILURES_MAX: u32 = 20;

/// The window over which failed admin-token tries are counted.
pub const ADMIN_FAILURE_WINDOW_MS: u64 = 60_000;

/// Addresses the admin throttle remembers. When full, windows that ended are dropped first, then the
/// oldest, so guessing from many addresses cannot grow memory (the overall count still applies).
pub const ADMIN_THROTTLE_ENTRIES_MAX: usize = 10_000;

/// Sessions following one game on this node. Each costs a broadcast receiver and a forwarding task
/// (a few KiB), and each event of the game is one shared frame however many follow it; a title match
/// draws tens of thousands (PERFORMANCE.md measures 20,000 on one node), and one node holds at most
/// [`CONNECTIONS_MAX`] connections anyway, so this only stops a game from taking every one of them
/// twice over. Beyond it `watch` answers `too_many_watchers`.
pub const WATCHERS_PER_GAME_MAX: usize = 25_000;

/// Players one user may follow, and as many again to block and to mute (each list has its own
/// bound). Every list is loaded at each login and held by each of the user's connections (to hide
/// chat and presence) and, while they are online, by the hall (to refuse and to push friends'
/// presence); a friends list is read on one screen, and a few hundred friends is more than anyone
/// keeps up with. Past it `follow`, `block` or `mute` is refused `relations_full`.
pub const RELATIONS_PER_LIST_MAX: usize = 300;

/// Longest chat line in characters: a few sentences. Longer lines are refused with `bad_chat`.
pub const CHAT_CHARS_MAX: usize = 500;

/// Commands waiting in one game actor's inbox. Most games get a handful of commands per second, but
/// a title match takes thousands of bets a second in its last minute (2,000 a second),
/// and at 64 a stall of 30 ms on a busy machine filled the inbox and refused bets `busy`; 1,024
/// holds half a second of such a burst. A full inbox means the actor is stuck behind the store, and
/// the sender is told `busy` instead of waiting. (The queue's memory grows only as it fills.)
pub const GAME_INBOX_LEN: usize = 1_024;

/// Restarts of one game's actor after a panic, within [`GAME_RESTART_WINDOW_MS`], before its
/// supervisor gives up. A bug hit once (a rare command) is worth a restart from the log, so the
/// players keep their game; one that comes back at once on every restart is in the game's own state,
/// and restarting it for ever would only burn the CPU. Past the bound the game ends void, its stakes
/// and bets refunded, through the normal ending.
pub const GAME_RESTARTS_MAX: usize = 3;

/// The window [`GAME_RESTARTS_MAX`] counts in: a minute holds any crash loop (a restart takes a store
/// read), while panics days apart in a long correspondence game each get their restart.
pub const GAME_RESTART_WINDOW_MS: u64 = 60_000;

/// How long a subscription waits for room in a game's inbox. Subscriptions come in bursts (a game
/// starts and all its table's watchers subscribe at once), so they queue briefly instead of being
/// told `busy`; moves never wait.
pub const SUBSCRIBE_WAIT_MS: u64 = 5_000;

/// Events a watcher may fall behind a game's broadcast before it is resynced with a full `game_state`.
/// A whole 9x9 game fits, so only a truly stalled connection is resynced. It is also all a slow
/// reader makes the server hold of a game: a session reads the broadcast itself, with no queue of its
/// own between the game and the socket.
pub const GAME_EVENT_QUEUE_LEN: usize = 256;

/// Followers of one game woken at once by a frame; a crowd beyond them is woken in further slices
/// of this size, the next once half of the last has its frames (`game/fan_out.rs`). Half
/// a tokio worker's own run queue (256 tasks), so a slice never spills into the shared queue where
/// the store's answers to other requests wait; an everyday game, far smaller, is one slice.
pub const FOLLOWERS_PER_SLICE: usize = 128;

/// Longest a crowd's relay waits for half a slice to take a frame before it wakes the next slice:
/// a slice that stalled (its followers' sockets full) must not hold the rest of the crowd for long.
/// A slice takes about a millisecond here.
pub const SLICE_WAIT_MS: u64 = 5;

/// Longest a game's end waits for its crowd's relay to pass the end on before it settles. The relay
/// takes about a fifth of a second for 15,000 followers, and at most [`SLICE_WAIT_MS`] a slice if
/// every slice stalled (a second at [`WATCHERS_PER_GAME_MAX`]); settling must not wait on an
/// audience longer than that.
pub const RELAYED_WAIT_MAX_MS: u64 = 2_000;

/// Commands waiting in the hall actor's inbox. Every connection has at most one request in flight, so
/// a full inbox means thousands arrived at once (a mass reconnect); they wait up to [`HALL_WAIT_MS`].
pub const HALL_INBOX_LEN: usize = 1024;

/// How long a request waits for room in the hall's inbox before it is answered `busy`.
pub const HALL_WAIT_MS: u64 = 2_000;

/// Hall pushes the hall's node relays to the other nodes in one pipeline: a burst (a thousand logins)
/// goes out in a few round trips instead of a thousand.
pub const HALL_RELAY_BATCH_MAX: usize = 256;

/// Hall pushes (table, room, player updates and chat) a session may fall behind before it is resynced
/// with fresh `hall`/`room` snapshots.
pub const HALL_EVENT_QUEUE_LEN: usize = 1024;

/// Users whose last connection ended, with when, kept by the hall until the store has the time (a
/// profile asked at once must not show "offline" without it). Past this many the hall forgets them
/// all and the store answers alone: the store's write takes milliseconds, so only a burst of this
/// many departures within them could leave a profile without its time for that moment.
pub const RECENTLY_GONE_MAX: usize = 10_000;

/// Pushes addressed to one user alone (challenges, games started, balances) waiting for their
/// sessions; a session that falls this far behind resyncs, as on the hall's broadcasts. Such pushes
/// are rare, and the channel's slots are allocated up front for every logged-in user (at 256, a
/// load test's RSS grew by 8 KiB per connection).
pub const USER_EVENT_QUEUE_LEN: usize = 32;

/// Bytes the WebSocket layer reads from a socket at a time (tungstenite's default is 128 KiB). Client
/// frames are small (a move is under 100 bytes), and this buffer exists for every open connection, so
/// 4 KiB keeps an idle connection cheap; a larger frame is still read, in several reads.
pub const WS_READ_BUFFER_BYTES: usize = 4 * 1024;

/// Bytes the WebSocket layer gathers before it writes to the socket. Outgoing frames are coalesced up
/// to this before a write (a flush writes whatever is gathered), so a burst of events costs one
/// syscall, while an idle connection holds no large buffer (tungstenite's default is 128 KiB).
pub const WS_WRITE_BUFFER_BYTES: usize = 8 * 1024;

/// Hard cap on one socket's unsent bytes. Frames the session writes wait here only while the kernel's
/// send buffer is full; past this cap the write fails and the connection is dropped, so a client that
/// stopped reading cannot grow the server's memory. 1 MiB holds a full resync plus a burst of events.
pub const WS_WRITE_BUFFER_MAX_BYTES: usize = 1024 * 1024;

/// How often a node renews its heartbeat, sweeps unanswered requests and looks for games and a hall
/// without a living owner. A second keeps takeovers within a few seconds at one small Redis call
/// per node per second.
pub const CLUSTER_TICK_MS: u64 = 1_000;

/// How long a node's heartbeat lives without renewal: three ticks, so one slow tick (a Redis hiccup,
/// a GC-like pause) never hands a healthy node's games away, and a dead node's games move within
/// about three seconds.
pub const LEASE_TTL_MS: u64 = 3 * CLUSTER_TICK_MS;

/// How long a node waits for another node's answer before telling the user `outcome_unknown` (the
/// other node may have acted). Longer than a takeover, so a request caught by one is answered rather
/// than dropped.
pub const CLUSTER_REQUEST_TIMEOUT_MS: u64 = 5_000;

/// Messages of one mirrored game waiting for its stand-in actor. A stand-in this far behind has
/// lost the thread: it is resynced from a snapshot rather than queued further.
pub const MIRROR_QUEUE_LEN: usize = 1_024;

/// How long a follower of a game whose actor stopped on its node (a lost lease) keeps looking for the
/// node that took it over, and how often it asks: a takeover takes up to a lease time and a tick.
pub const FOLLOW_ELSEWHERE_MS: u64 = LEASE_TTL_MS + 2 * CLUSTER_TICK_MS;
pub const FOLLOW_ELSEWHERE_RETRY_MS: u64 = 250;

/// How long a game's owner keeps the presence of players connected to another node without hearing
/// from that node again. Stand-ins refresh it every tick, so this only expires for a dead node.
pub const PRESENCE_HOLD_MS: u64 = LEASE_TTL_MS + CLUSTER_TICK_MS;

/// Watcher counts of tables (and user counts of rooms), and each game's `watchers` list, are pushed at
/// most this often. Pushing every join would cost O(n²) frames when n people open a popular table or
/// game at once; once a second, each table, room or game costs one update. (A game pushes the first
/// change after a quiet second at once, and the changes after it at the end of that second.)
pub const WATCHER_COUNT_PUSH_MS: u64 = 1_000;

/// `watchers` frames one game sends per second at most, over all who follow it: past this many
/// followers its list is pushed less often than [`WATCHER_COUNT_PUSH_MS`], in proportion. The list
/// (up to [`WATCHERS_LISTED_MAX`] names, several KiB) goes to every follower, so once a second a
/// crowd of 15,000 arriving cost 15,000 such frames a second, over 100 MB/s of JSON: a title
/// match's watchers took two minutes to get in. Bounded, 20,000 followers hear the list
/// every ten seconds while the count changes, and a game with fewer than 2,000 every second as
/// before. Every snapshot (a new follower's, a resync) still has the list as it is.
pub const WATCHER_LIST_FRAMES_PER_S_MAX: usize = 2_000;

/// A game's `pool` push after a bet goes out at most this often. Every accepted bet changes the
/// pool, and a push reaches every subscriber, so pushing each bet costs a game with n watchers betting
/// O(n²) frames: with ten watchers betting every five seconds, pool pushes were half of all frames a
/// node sent. Coalesced, a busy pool costs each follower one frame a second, as the watcher list does
/// (a quarter second coalesced nothing at that rate: a game's bets were half a second apart). Once a
/// second is still live to a person watching the totals move, and nothing is lost by it: the bettor's
/// own reply carries their total at once, a `pool` request is answered with the exact pool, and the
/// pool when play ends (and when the game is settled) is pushed at once. (The first bet after a quiet
/// second is pushed at once; those after it at the end of that second.)
pub const POOL_PUSH_MS: u64 = 1_000;

/// `pool` frames one game sends per second at most, over all who follow it: past this many
/// followers its pool is pushed less often than [`POOL_PUSH_MS`], in proportion (every 3 s at
/// 15,000). A push wakes every follower, and in a title match's betting burst a push a second was a
/// second fan-out between the moves', each holding up the bets and moves that arrived during it
///. A pool change waiting for its push also goes out with the game's next event, so at
/// a move every 2 s the crowd sees the pool move with each move.
pub const POOL_FRAMES_PER_S_MAX: usize = 5_000;

/// Writes (game events and ledger batch groups) queued for the store's group-commit writer. Each is
/// a caller blocked until its write is durable: at most one append per live game (an actor awaits its
/// append) plus the ledger writer's one group, so this is room for every live game at once; a full
/// queue makes the next caller wait for room.
pub const STORE_WRITE_QUEUE_LEN: usize = LIVE_GAMES_MAX + 64;

/// How long a game whose event could not be stored (the store out of reach, or a write whose outcome
/// is unknown) waits before reading its log back to settle what happened, and between attempts while
/// the store stays away. Its deadlines wait as long: a timeout cannot be recorded without the store.
/// Short enough that play goes on within a moment of the store's return, long enough that a game
/// does not hammer a store that is down (two reads a second per game).
pub const STORE_RETRY_MS: u64 = 500;

/// Read-only SQLite connections beside the writer's. In WAL mode each reads the last commit while the
/// writer makes the next, so a read never waits out a group's fsync; a few are enough because a read
/// takes microseconds (they only queue when many games end at once and each reads its book).
pub const STORE_READERS: usize = 4;

/// Writes committed together at most: one transaction, one fsync. A group of this many moves and bets
/// is a few milliseconds of SQLite work, short enough that the writes queued behind it wait little.
pub const STORE_GROUP_COMMIT_WRITES_MAX: usize = 1_024;

/// How often the store's background thread checkpoints SQLite's WAL into the database file. Often
/// enough that the WAL stays a few MiB at thousands of writes a second (so reads stay quick and the
/// writer's own backstop checkpoint never fires), rarely enough to cost nothing when idle.
pub const STORE_CHECKPOINT_INTERVAL_MS: u64 = 1_000;

/// Watchers a game's `watchers` list names (the strongest first); the counts stay exact beyond it. A
/// side panel shows a few dozen names at most, and the list is pushed to every subscriber on each
/// change: 100 names is about 10 KB a push, which bounds what a popular game costs its followers.
pub const WATCHERS_LISTED_MAX: usize = 100;

/// Names times followers a game's `watchers` list may cost: past 1,000 followers the list names
/// fewer than [`WATCHERS_LISTED_MAX`], `100,000 / followers` of them but at least
/// [`WATCHERS_LISTED_MIN`]. A list of 100 names to 15,000 followers was 100 MB a push, and the move
/// it went out with reached its last watcher after 1.2 s instead of 0.2; 10 names to the
/// same crowd cost about twice a move's bytes. The counts stay exact.
pub const WATCHER_NAMES_FANNED_OUT_MAX: usize = 100_000;

/// The fewest names a game's `watchers` list shows however many follow it.
pub const WATCHERS_LISTED_MIN: usize = 10;

/// Live games re-listed in the hall per push (once a second) because their move or watcher counts
/// changed: a session in the hall receives at most this many `game_listed` frames a second for
/// them (a few KB/s), and with 1,000 games in play each game's line is at most 50 s stale; the
/// games take turns.
pub const GAME_RELISTS_PER_PUSH_MAX: usize = 20;

/// Tables per room. Classic halls number their tables; a fixed count keeps the room list bounded.
pub const TABLES_PER_ROOM: u32 = 20;

/// Rooms created when none are configured.
pub const DEFAULT_ROOMS: &[&str] = &["Beginners", "Intermediate", "Dan players"];

/// Open challenges one user may have sent at once; more are refused so nobody can spam the hall.
pub const CHALLENGES_PER_USER_MAX: usize = 5;

/// Live games at once on this node; beyond it new games are refused `busy`, bounding actors and memory.
pub const LIVE_GAMES_MAX: usize = 10_000;

/// A session token lives this long after it was issued (30 days): a player stays logged in on their
/// own browser, and a stolen token stops working eventually.
pub const SESSION_TTL_MS: u64 = 30 * 24 * 60 * 60 * 1000;

/// How often expired session rows are deleted, so the sessions table holds only live sessions.
pub const SESSION_PURGE_INTERVAL_MS: u64 = 60 * 60 * 1000;

/// Failed logins of one account from one address (IPv6: one /64) that pass at once; after them each
/// further attempt must wait [`LOGIN_DELAY_BASE_MS`], doubling up to [`LOGIN_PAIR_DELAY_MAX_MS`]. Five
/// covers a person's typos; a guesser then gets about four tries an hour.
pub const LOGIN_FAILURES_MAX: u32 = 5;

/// The first wait after the free failures, doubling with each further failure: a person retyping
/// barely notices a second; a guesser's rate halves with every miss.
pub const LOGIN_DELAY_BASE_MS: u64 = 1_000;

/// The longest wait between guesses at one account from one address (15 minutes, what the old lock
/// was, but now only for the guesser's own address).
pub const LOGIN_PAIR_DELAY_MAX_MS: u64 = 15 * 60 * 1000;

/// A counter of one account and one address is forgotten after a day without a failure (a success
/// clears it at once).
pub const LOGIN_PAIR_FORGET_MS: u64 = 24 * 60 * 60 * 1000;

/// Failed logins of one account from all addresses together that pass at once: looser than the pair's,
/// so one guesser's failures never slow the owner; beyond it a distributed guesser is slowed.
pub const LOGIN_ACCOUNT_FAILURES_MAX: u32 = 20;

/// The longest wait across addresses for one account: at most a minute, so the owner coming from a new
/// address is slowed but never locked out by other people's guesses (a distributed guesser then gets
/// at most one guess a minute at that account).
pub const LOGIN_ACCOUNT_DELAY_MAX_MS: u64 = 60 * 1000;

/// Failed logins from one address across all accounts that pass at once: enough for a household or a
/// school behind one NAT mistyping now and then; a guesser spraying one password over many accounts is
/// slowed after it.
pub const LOGIN_ADDRESS_FAILURES_MAX: u32 = 30;

/// The longest wait for one address across accounts (5 minutes): shorter than the pair's, since many
/// people may share the address.
pub const LOGIN_ADDRESS_DELAY_MAX_MS: u64 = 5 * 60 * 1000;

/// The account-wide and address-wide login counters are forgotten after an hour without a failure.
pub const LOGIN_WIDE_FORGET_MS: u64 = 60 * 60 * 1000;

/// Accounts one address (IPv6: one /64) may register at once; then each further one waits
/// [`REGISTRATION_DELAY_BASE_MS`], doubling up to [`REGISTRATION_DELAY_MAX_MS`]. Five covers a family;
/// a farm of accounts gets about one an hour (it made 443 in 10 s before).
pub const REGISTRATIONS_PER_ADDRESS: u32 = 5;

/// The first wait after the free registrations of an address.
pub const REGISTRATION_DELAY_BASE_MS: u64 = 60 * 1000;

/// The longest wait between registrations from one address.
pub const REGISTRATION_DELAY_MAX_MS: u64 = 60 * 60 * 1000;

/// An address's registration counter is forgotten after a day without a registration.
pub const REGISTRATION_FORGET_MS: u64 = 24 * 60 * 60 * 1000;

/// How long a new account waits for its starting grant unless it finishes a game first: a day, so an
/// account made only to collect the grant pays nothing for a day, and a real player who finishes a
/// game gets it at once.
pub const GRANT_DELAY_MS: u64 = 24 * 60 * 60 * 1000;

/// The newest games of a user the Redis store looks through for a finished one (whether a pending
/// grant is due). Only accounts still waiting for their grant are asked, and they have played few
/// games; the bound keeps one login's lookup small whatever a user's history.
pub const FINISHED_GAME_LOOKBACK: usize = 100;

/// How one throttle counter slows repeated attempts (failed logins, registrations): the first `free`
/// counted attempts pass at once, then each further one must come `base_ms`, 2×, 4×, ... (at most
/// `max_ms`) after the last counted one. A counter left alone for `forget_ms` is forgotten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub free: u32,
    pub base_ms: u64,
    pub max_ms: u64,
    pub forget_ms: u64,
}

impl Backoff {
    /// How long after the last counted attempt the next may come, with `count` attempts counted.
    pub fn delay_ms(&self, count: u32) -> u64 {
        if count < self.free {
            return 0;
        }
        // 2^40 times any base is past every cap; the bound only keeps the shift defined.
        let doublings = (count - self.free).min(40);
        self.base_ms
            .saturating_mul(1u64 << doublings)
            .min(self.max_ms)
    }

    /// How long an attempt at `now_ms` must still wait, given a counter's `count` and `last_ms`. A
    /// free attempt never waits, even when another node's or task's clock put `last_ms` a little
    /// after this `now_ms` (concurrent attempts take their times before they reach the store).
    pub fn wait_ms(&self, count: u32, last_ms: u64, now_ms: u64) -> u64 {
        match self.delay_ms(count) {
            0 => 0,
            delay => last_ms.saturating_add(delay).saturating_sub(now_ms),
        }
    }
}

/// The login and registration throttles (see the constants above); tests change them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttles {
    /// One account from one address.
    pub login_pair: Backoff,
    /// One account from every address.
    pub login_account: Backoff,
    /// One address across every account.
    pub login_address: Backoff,
    /// Registrations from one address.
    pub register_address: Backoff,
}

impl Default for Throttles {
    fn default() -> Throttles {
        let login = |free, max_ms, forget_ms| Backoff {
            free,
            base_ms: LOGIN_DELAY_BASE_MS,
            max_ms,
            forget_ms,
        };
        Throttles {
            login_pair: login(
                LOGIN_FAILURES_MAX,
                LOGIN_PAIR_DELAY_MAX_MS,
                LOGIN_PAIR_FORGET_MS,
            ),
            login_account: login(
                LOGIN_ACCOUNT_FAILURES_MAX,
                LOGIN_ACCOUNT_DELAY_MAX_MS,
                LOGIN_WIDE_FORGET_MS,
            ),
            login_address: login(
                LOGIN_ADDRESS_FAILURES_MAX,
                LOGIN_ADDRESS_DELAY_MAX_MS,
                LOGIN_WIDE_FORGET_MS,
            ),
            register_address: Backoff {
                free: REGISTRATIONS_PER_ADDRESS,
                base_ms: REGISTRATION_DELAY_BASE_MS,
                max_ms: REGISTRATION_DELAY_MAX_MS,
                forget_ms: REGISTRATION_FORGET_MS,
            },
        }
    }
}

/// Password length bounds in characters: 8 is the NIST minimum; 128 bounds hashing work per attempt.
pub const PASSWORD_CHARS_MIN: usize = 8;
pub const PASSWORD_CHARS_MAX: usize = 128;

/// Username length bounds in graphemes (what a reader counts as one character, a letter with its
/// accents or a Devanagari syllable alike): 2 because a Chinese or Korean name is often two
/// characters (棋圣); 20 because a name must fit a table list and a clock's caption.
pub const USERNAME_GRAPHEMES_MIN: usize = 2;
pub const USERNAME_GRAPHEMES_MAX: usize = 20;

/// Code points in a username: 20 graphemes of real text in any script fit (a Devanagari syllable
/// such as स्त्री takes 6, most take 1 to 3), while one grapheme cannot carry a long tail of marks
/// that every hall list then stores, sends and draws.
pub const USERNAME_CHARS_MAX: usize = 60;

/// Combining marks in a row on one letter: real text needs at most 2 once NFKC has composed what it
/// can (Vietnamese, Thai vowel and tone marks); more are stacked for show ("zalgo") and draw over the
/// lines above and below a name in every list.
pub const USERNAME_MARKS_IN_A_ROW_MAX: usize = 3;

/// OWASP's recommended argon2id parameters: 19 MiB of memory, 2 passes, 1 lane.
pub const ARGON2_MEMORY_KIB: u32 = 19 * 1024;
pub const ARGON2_PASSES: u32 = 2;
pub const ARGON2_LANES: u32 = 1;

/// Password hashes computed at once: the threads of the hashing pool, each with its argon2 memory
/// (19 MiB) allocated once and reused for every hash, so hashing holds at most 4 x 19 MiB however many
/// logins arrive. (Hashing on tokio's blocking pool left each thread's 19 MiB buffer in its own malloc
/// arena: 60 sockets sending wrong passwords took the process from 32 MiB to 4.8 GiB.) Fewer threads are
/// started on a machine with fewer cores, where more would only add memory, not throughput.
pub const HASHING_CONCURRENCY_MAX: usize = 4;

/// Hashes waiting for a hashing thread. A hash takes tens of milliseconds, so a full queue is one to
/// two seconds' wait on two cores (60 waiting took 1.4-2.2 s on a busy machine); past it a login or
/// registration is answered `busy` at once rather than queued behind a flood. Each connection has at
/// most one request in flight, so honest clients rarely see it, and the load generator's setup (32
/// registrations at once) stays well under it. The queue holds passwords, not argon2 memory, so its
/// length bounds waiting, not RSS.
pub const HASHING_QUEUE_MAX: usize = 64;

/// How often the server pings an idle socket, so dead connections (a laptop closed mid-game) are
/// noticed in about a minute instead of the operating system's hours.
pub const PING_INTERVAL_MS: u64 = 30_000;

/// A socket silent (no frame, not even a pong) for this long is closed as dead: two missed pings.
pub const IDLE_TIMEOUT_MS: u64 = 75_000;

/// How long a write to one socket may take. A client whose connection stopped taking data (a dead
/// peer, or one that never reads) is dropped after this rather than holding its session forever.
pub const WRITE_TIMEOUT_MS: u64 = 10_000;

/// How long shutdown waits for sessions to say goodbye before the process exits anyway.
pub const SHUTDOWN_GRACE_MS: u64 = 5_000;

/// Fortune points every new account receives (docs/wagering.md): enough for a few dozen modest bets.
pub const GRANT_POINTS_DEFAULT: u64 = 1_000;

/// The house's tax on winnings, in basis points: 500 is the default 5% of the wagering rules
/// (docs/wagering.md).
pub const TAX_BP_DEFAULT: u32 = 500;

/// Bets and stakes one `my_bets` reply lists at most (the newest): a screenful of history that
/// bounds the query; older records stay in the book and the audit.
pub const WAGER_RECORDS_MAX: usize = 200;

/// Argon2id cost parameters. Tests lower them so registering is fast; production keeps OWASP's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Argon2Params {
    pub memory_kib: u32,
    pub passes: u32,
    pub lanes: u32,
}

impl Default for Argon2Params {
    fn default() -> Self {
        Argon2Params {
            memory_kib: ARGON2_MEMORY_KIB,
            passes: ARGON2_PASSES,
            lanes: ARGON2_LANES,
        }
    }
}

/// What the server is told at start; everything else is a constant above.
#[derive(Debug, Clone)]
pub struct Config {
    /// The data directory: the SQLite database lives here (unused when `redis_url` is set).
    pub data_dir: PathBuf,
    /// Keep all durable state in the Redis at this URL (`redis://[user:password@]host:port/[db]`)
    /// instead of the SQLite file in `data_dir`: what lets several nodes share one hall. That Redis
    /// must fsync every write and never evict keys, or the store refuses to open.
    pub redis_url: Option<String>,
    /// Open the Redis store even when that Redis could lose acknowledged writes (`appendfsync` not
    /// `always`, eviction allowed, or CONFIG disabled so it cannot be checked); a warning is logged
    /// instead. For experiments only: a crash could then lose moves and fortune points.
    pub redis_allow_unsafe: bool,
    /// Names of the hall's rooms, in order; room ids are 1, 2, ...
    pub rooms: Vec<String>,
    pub argon2: Argon2Params,
    /// Simultaneous connections per client address ([`CONNECTIONS_PER_IP_MAX`] by default).
    pub connections_per_ip_max: usize,
    /// Simultaneous connections in all ([`CONNECTIONS_MAX`] by default).
    pub connections_max: usize,
    /// See [`HEADER_READ_TIMEOUT_MS`]; tests shorten it.
    pub header_read_timeout_ms: u64,
    /// See [`HELLO_DEADLINE_MS`]; tests shorten it.
    pub hello_deadline_ms: u64,
    /// Host names (`name` or `name:port`) the server answers to besides IP literals and `localhost`:
    /// a request naming any other host (a DNS-rebinding page, whose Origin and Host are both its own
    /// name) is refused, on the WebSocket and the API alike.
    pub allowed_hosts: Vec<String>,
    /// Sustained messages per second per connection ([`MESSAGES_PER_SECOND`] unless an operator or a
    /// load test changes it).
    pub messages_per_second: u32,
    /// Burst per connection before the rate applies ([`MESSAGES_BURST`] by default).
    pub messages_burst: u32,
    /// Extra allowed browser origins (exact `scheme://host[:port]`), besides same-origin and localhost.
    pub allowed_origins: Vec<String>,
    /// Reverse proxies whose `X-Forwarded-For` names the client, for the login and registration
    /// throttles (behind `deploy/nginx.conf`, its address). Empty: the socket's address is the client's.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    pub session_ttl_ms: u64,
    /// Fortune points granted to each new account.
    pub grant_points: u64,
    /// How long a new account's grant waits for its first finished game ([`GRANT_DELAY_MS`]); zero
    /// grants at once (tests and load tests).
    pub grant_delay_ms: u64,
    pub throttles: Throttles,
    /// The house tax rate in basis points (at most 10,000).
    pub tax_bp: u32,
    /// The bearer token that opens `/api/admin/...`; without one those routes answer 404.
    pub admin_token: Option<String>,
    /// Fault injection for tests: a game's end is recorded but the actor stops before settling it,
    /// as if the process died right there. Never set in production.
    pub fault_stop_before_settlement: bool,
    /// Fault injection for tests: a text frame equal to this makes its connection's task panic, as
    /// a bug would, so tests can check the session is still cleaned up. Never set in production.
    pub fault_panic_on_frame: Option<String>,
    /// Grace periods and limits of live games.
    pub game_timing: GameTiming,
}

/// How long a player away from a live game keeps it before losing by forfeit (escape, 逃跑). A minute
/// covers a dropped Wi-Fi or a browser restart; it never extends a clock that runs out sooner.
pub const DISCONNECT_GRACE_MS: u64 = 60_000;

/// How long the first move may take before the game is void (nobody came to play it). Long enough
/// to sit down and think about an opening; a no-show frees the table.
pub const FIRST_MOVE_WITHIN_MS: u64 = 120_000;

/// How long the scoring phase may last before the marking on the board is accepted for both. Five
/// minutes is enough to mark and check a 19x19 board; it stops a loser from stalling forever.
pub const SCORING_PHASE_MS: u64 = 300_000;

/// The time limits a game actor enforces besides the players' clocks; tests shorten them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameTiming {
    pub disconnect_grace_ms: u64,
    pub first_move_within_ms: u64,
    pub scoring_phase_ms: u64,
}

impl Default for GameTiming {
    fn default() -> GameTiming {
        GameTiming {
            disconnect_grace_ms: DISCONNECT_GRACE_MS,
            first_move_within_ms: FIRST_MOVE_WITHIN_MS,
            scoring_phase_ms: SCORING_PHASE_MS,
        }
    }
}

impl Config {
    /// The production defaults, with data in `data_dir`.
    pub fn new(data_dir: PathBuf) -> Config {
        Config {
            data_dir,
            redis_url: None,
            redis_allow_unsafe: false,
            rooms: DEFAULT_ROOMS.iter().map(|name| name.to_string()).collect(),
            argon2: Argon2Params::default(),
            connections_per_ip_max: CONNECTIONS_PER_IP_MAX,
            connections_max: CONNECTIONS_MAX,
            header_read_timeout_ms: HEADER_READ_TIMEOUT_MS,
            hello_deadline_ms: HELLO_DEADLINE_MS,
            allowed_hosts: Vec::new(),
            messages_per_second: MESSAGES_PER_SECOND,
            messages_burst: MESSAGES_BURST,
            allowed_origins: Vec::new(),
            trusted_proxies: Vec::new(),
            session_ttl_ms: SESSION_TTL_MS,
            game_timing: GameTiming::default(),
            grant_points: GRANT_POINTS_DEFAULT,
            grant_delay_ms: GRANT_DELAY_MS,
            throttles: Throttles::default(),
            tax_bp: TAX_BP_DEFAULT,
            admin_token: None,
            fault_stop_before_settlement: false,
            fault_panic_on_frame: None,
        }
    }
}

/// Parse a listen address such as `127.0.0.1:8080`.
pub fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    text.parse()
        .map_err(|err| format!("bad listen address {text:?}: {err}"))
}

/// Events the hall holds (open, running and finished): each is a record in memory and in the store,
/// and the hall's list shows them all; a hall that somehow reached this refuses new ones `busy`.
pub const EVENTS_MAX: usize = 10_000;

/// Lines of an event's log kept (entries, rounds, results, the director's actions): a 512-player event
/// of 64 rounds logs about 17,000 results, so this bounds a record's size, not a real event.
pub const EVENT_LOG_MAX: usize = 20_000;

/// An event's name, in characters: a title fits on one line of the hall's list.
pub const EVENT_NAME_CHARS_MAX: usize = 60;

/// Players in a team of a team event: the rules' team events field 3 to 6 boards; 8 leaves room for
/// larger leagues while a match's games stay few enough to follow on one page.
pub const TEAM_PLAYERS_MAX: u32 = 8;

/// Events in one `event_list` answer: a page of the hall's list (the client asks for the next with
/// `before`), so the answer stays a few tens of KiB however many events the hall holds.
pub const EVENT_LIST_PAGE: usize = 100;

/// Set start times an event may have, one per round: as many as an event has rounds at most.
pub const EVENT_ROUND_TIMES_MAX: usize = 64;

/// A room's chat lines kept for whoever enters it (OGS and KGS show a room's recent talk): enough to
/// see the conversation, a few KiB per room.
pub const ROOM_CHAT_KEPT: usize = 30;

/// An event's lateness limit when its director sets none: the competition rules' default (15
/// minutes after a game's start, a missing player loses it).
pub const EVENT_LATENESS_DEFAULT_MS: u64 = 15 * 60_000;

/// The longest lateness limit an event may set: the rules allow an event to wait up to an hour.
pub const EVENT_LATENESS_MAX_MS: u64 = 60 * 60_000;

/// The shortest lateness limit: under a second nobody could arrive at all (the players' own
/// connections subscribe a moment after the start).
pub const EVENT_LATENESS_MIN_MS: u64 = 1_000;

/// How far ahead a director may set a paused or adjourned game to resume: an adjournment to the
/// next day of a weekend event fits; a game held longer is better adjudicated. The game also keeps
/// its actor (and a slot of `LIVE_GAMES_MAX`) meanwhile.
pub const GAME_HALT_MS_MAX: u64 = 3 * 24 * 60 * 60_000;

/// Warnings a player may get in one game: the second loses it (the hall then ends the game), so a
/// few more only cover warnings that race that end. Bounds the record's notes.
pub const GAME_WARNINGS_MAX: u32 = 4;

/// How long chat lines are kept in the store for moderation: a report of a line shows the lines
/// around it, and moderators (volunteers on OGS and KGS) get to a report within days. Past it a
/// line is forgotten; a report already filed keeps the lines it showed.
pub const CHAT_KEPT_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// The most lines kept per chat channel (a room, a table, a game's two chats): far more than a
/// report shows, and a busy room's week stays a few hundred KiB. The oldest go first.
pub const CHAT_KEPT_PER_CHANNEL_MAX: usize = 200;

/// Lines shown on each side of a reported chat line: enough to see the exchange it was part of.
pub const REPORT_CONTEXT_LINES: usize = 5;

/// Longest reason, in characters, a report or a moderator's act gives: a few sentences, as a chat
/// line. An empty reason is refused: a moderator reading a report, or a user reading why they were
/// muted, needs one.
pub const MODERATION_REASON_CHARS_MAX: usize = 500;

/// The shortest mute: a minute lets a moderator cool a heated exchange down.
pub const MUTE_MINUTES_MIN: u32 = 1;

/// The longest mute: 30 days. Longer than that, a user who cannot talk should be banned, which says
/// so at login, rather than left in a silence they may not notice.
pub const MUTE_MINUTES_MAX: u32 = 30 * 24 * 60;

/// The longest ban that ends: a year. A ban longer than that is a permanent one, which a moderator
/// says so (no length) rather than hiding behind ten years.
pub const BAN_DAYS_MAX: u32 = 365;

/// Reports a user may file at once before each further one waits (1 minute, doubling to at most an
/// hour; forgotten after a quiet day): reporting a whole room's abuse takes a few, and a flood of
/// reports drowns the moderators' queue.
pub const REPORTS_FREE: u32 = 5;
pub const REPORT_DELAY_BASE_MS: u64 = 60_000;
pub const REPORT_DELAY_MAX_MS: u64 = 60 * 60 * 1000;
pub const REPORT_FORGET_MS: u64 = 24 * 60 * 60 * 1000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn production_defaults_are_owasps_argon2id_parameters() {
        let config = Config::new(PathBuf::from("data"));
        assert_eq!(
            config.argon2,
            Argon2Params {
                memory_kib: 19_456,
                passes: 2,
                lanes: 1
            }
        );
        assert_eq!(parse_listen(DEFAULT_LISTEN).unwrap().port(), 8080);
        assert!(parse_listen("localhost").is_err());
    }
}
