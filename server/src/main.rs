//! `tengen`: command-line parsing only. Each subcommand hands its flags to the library.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use tengen_protocol::Role;
use tengen_server::config::{self, Config};

#[derive(Debug, Parser)]
#[command(name = "tengen", version, about = "Tengen, an online Go server")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Clone, clap::Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "TENGEN_LISTEN", default_value = config::DEFAULT_LISTEN)]
    listen: String,
    /// Data directory (the SQLite database lives here).
    #[arg(long, env = "TENGEN_DATA", default_value = config::DEFAULT_DATA_DIR)]
    data: PathBuf,
    #[command(flatten)]
    redis: RedisArgs,
    /// Room names, comma-separated (default: the built-in rooms).
    #[arg(long, env = "TENGEN_ROOMS", value_delimiter = ',')]
    rooms: Vec<String>,
    /// Extra browser origins allowed to open WebSockets (besides same-origin and localhost).
    #[arg(long, env = "TENGEN_ALLOW_ORIGIN", value_delimiter = ',')]
    allow_origin: Vec<String>,
    /// Host names the server answers to (name or name:port, comma-separated), besides IP addresses
    /// and localhost: the names in the address bar of your players, e.g. go.example.org. Requests
    /// naming any other host are refused (DNS rebinding).
    #[arg(long, env = "TENGEN_ALLOW_HOST", value_delimiter = ',')]
    allow_host: Vec<String>,
    /// Reverse proxies (addresses, comma-separated) whose X-Forwarded-For names the client for the
    /// login and registration throttles; behind nginx, its address (e.g. 127.0.0.1).
    #[arg(long, env = "TENGEN_TRUSTED_PROXY", value_delimiter = ',')]
    trusted_proxy: Vec<std::net::IpAddr>,
    /// Simultaneous connections per client IP, HTTP and WebSocket alike (the load generator needs many).
    #[arg(long, env = "TENGEN_CONNECTIONS_PER_IP", default_value_t = config::CONNECTIONS_PER_IP_MAX)]
    connections_per_ip: usize,
    /// Simultaneous connections in all; lowered at start to what the open-file limit allows.
    #[arg(long, env = "TENGEN_CONNECTIONS_MAX", default_value_t = config::CONNECTIONS_MAX)]
    connections_max: usize,
    /// Fortune points granted to each new account.
    #[arg(long, env = "TENGEN_GRANT_POINTS", default_value_t = config::GRANT_POINTS_DEFAULT)]
    grant_points: u64,
    /// Grant new accounts their points at once instead of with their first finished game or after a
    /// day. For load tests and experiments: it lets a farm of accounts collect grants.
    #[arg(long, env = "TENGEN_GRANT_AT_ONCE", value_parser = clap::builder::FalseyValueParser::new())]
    grant_at_once: bool,
    /// Accounts one address may register before each further one waits (a minute, doubling to an
    /// hour). Load tests, whose players all come from one address, raise it.
    #[arg(long, env = "TENGEN_REGISTRATIONS_PER_IP", default_value_t = config::REGISTRATIONS_PER_ADDRESS)]
    registrations_per_ip: u32,
    /// The house tax on winnings in basis points (500 = 5%).
    #[arg(long, env = "TENGEN_TAX_BP", default_value_t = config::TAX_BP_DEFAULT,
          value_parser = clap::value_parser!(u32).range(0..=10_000))]
    tax_bp: u32,
    /// Bearer token for /api/admin/... (the routes are off without one).
    #[arg(long, env = "TENGEN_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// Sustained messages per second one connection may send (more are answered `rate_limited`).
    #[arg(long, env = "TENGEN_MESSAGES_PER_SECOND", default_value_t = config::MESSAGES_PER_SECOND)]
    messages_per_second: u32,
    /// Messages one connection may send at once before the per-second rate applies.
    #[arg(long, env = "TENGEN_MESSAGES_BURST", default_value_t = config::MESSAGES_BURST)]
    messages_burst: u32,
    /// Argon2id memory per password hash in KiB. Only load tests and local experiments should lower
    /// it (registering thousands of accounts at OWASP cost takes minutes); production keeps the default.
    #[arg(long, env = "TENGEN_ARGON2_MEMORY_KIB", default_value_t = config::ARGON2_MEMORY_KIB)]
    argon2_memory_kib: u32,
    /// Argon2id passes per password hash; see `--argon2-memory-kib`.
    #[arg(long, env = "TENGEN_ARGON2_PASSES", default_value_t = config::ARGON2_PASSES)]
    argon2_passes: u32,
}

/// Where the store lives when it is not the SQLite file in the data directory.
#[derive(Debug, Clone, clap::Args)]
struct RedisArgs {
    /// Keep all state in this Redis (redis://host:port/) instead of SQLite; it must have
    /// appendonly yes, appendfsync always and maxmemory-policy noeviction.
    #[arg(long = "redis", env = "TENGEN_REDIS", hide_env_values = true)]
    url: Option<String>,
    /// Use that Redis even if it could lose acknowledged writes (experiments only).
    #[arg(long = "redis-allow-unsafe", env = "TENGEN_REDIS_ALLOW_UNSAFE")]
    allow_unsafe: bool,
}

impl RedisArgs {
    fn apply(&self, config: &mut Config) {
        config.redis_url = self.url.clone().filter(|url| !url.is_empty());
        config.redis_allow_unsafe = self.allow_unsafe;
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server (the default with no subcommand).
    Serve(ServeArgs),
    /// Speak GTP version 2 on stdin/stdout as a referee over the Tengen rules engine.
    Gtp {
        /// Seed for `genmove`'s random choices, so a session can be replayed exactly.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Audit the fortune-point ledger and print a JSON report; exits 1 if the book does not balance.
    Audit {
        /// Data directory (the SQLite database lives here).
        #[arg(long, env = "TENGEN_DATA", default_value = config::DEFAULT_DATA_DIR)]
        data: PathBuf,
        #[command(flatten)]
        redis: RedisArgs,
    },
    /// Play a GTP engine (e.g. GNU Go) on a Tengen server as an ordinary account.
    Bot(BotArgs),
    /// Grant or take back the moderator and admin roles, in the store the flags name (while the
    /// server runs or not: every node reads a role from the store on each moderation request).
    Admin {
        #[command(subcommand)]
        change: RoleChange,
        /// Data directory (the SQLite database lives here).
        #[arg(long, env = "TENGEN_DATA", default_value = config::DEFAULT_DATA_DIR, global = true)]
        data: PathBuf,
        #[command(flatten)]
        redis: RedisArgs,
    },
}

/// A role given to (or taken from) the account named `name`.
#[derive(Debug, Subcommand)]
enum RoleChange {
    /// Make the account a moderator: it handles reports, mutes, bans, removes chat, voids games.
    GrantModerator { name: String },
    /// Make the account an admin: a moderator who may also act on moderators.
    GrantAdmin { name: String },
    /// Make the account an ordinary user again (from moderator or admin).
    RevokeModerator { name: String },
}

impl RoleChange {
    fn role(&self) -> (&str, Role) {
        match self {
            RoleChange::GrantModerator { name } => (name, Role::Moderator),
            RoleChange::GrantAdmin { name } => (name, Role::Admin),
            RoleChange::RevokeModerator { name } => (name, Role::User),
        }
    }
}

#[derive(Debug, clap::Args)]
struct BotArgs {
    /// The engine's command line, e.g. "/usr/games/gnugo --mode gtp --chinese-rules".
    #[arg(long)]
    engine: String,
    /// The server's WebSocket address.
    #[arg(long, default_value = "ws://127.0.0.1:8080/ws")]
    server: String,
    #[arg(long)]
    user: String,
    #[arg(long, env = "TENGEN_BOT_PASSWORD")]
    password: String,
    /// Create the account if it does not exist yet.
    #[arg(long)]
    register: bool,
    /// Board sizes to accept challenges for.
    #[arg(long, value_delimiter = ',', default_values_t = [9u8, 13, 19])]
    sizes: Vec<u8>,
    /// The longest the engine may think about one move before the game is given up.
    #[arg(long, default_value_t = 60_000)]
    move_timeout_ms: u64,
    /// Stop after this many games (default: play until stopped).
    #[arg(long)]
    games: Option<u32>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let command = match cli.command {
        Some(command) => command,
        // No subcommand: serve with flags from the environment and defaults.
        None => Command::Serve(ServeArgs::try_parse_from_env().unwrap_or_else(|err| err.exit())),
    };
    match command {
        Command::Serve(args) => serve(args),
        Command::Bot(args) => bot(args),
        Command::Audit { data, redis } => match audit(data, &redis) {
            Ok(report) => {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("an audit report serializes")
                );
                if report.ok {
                    std::process::ExitCode::SUCCESS
                } else {
                    std::process::ExitCode::FAILURE
                }
            }
            Err(err) => {
                eprintln!("tengen audit: {err}");
                std::process::ExitCode::from(2)
            }
        },
        Command::Admin {
            change,
            data,
            redis,
        } => admin(&change, data, &redis),
        Command::Gtp { seed } => {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            match tengen_server::gtp::run(stdin, stdout, seed) {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("tengen gtp: {err}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
    }
}

impl ServeArgs {
    /// The serve flags when `tengen` runs with no subcommand: only the environment and defaults apply.
    fn try_parse_from_env() -> Result<ServeArgs, clap::Error> {
        #[derive(Debug, Parser)]
        struct Bare {
            #[command(flatten)]
            args: ServeArgs,
        }
        Bare::try_parse_from(["tengen"]).map(|bare| bare.args)
    }

    fn config(&self) -> Config {
        let mut config = Config::new(self.data.clone());
        self.redis.apply(&mut config);
        if !self.rooms.is_empty() {
            config.rooms = self.rooms.clone();
        }
        config.allowed_origins = self.allow_origin.clone();
        config.allowed_hosts = self.allow_host.clone();
        config.trusted_proxies = self.trusted_proxy.clone();
        config.connections_per_ip_max = self.connections_per_ip;
        config.connections_max = self.connections_max;
        config.grant_points = self.grant_points;
        if self.grant_at_once {
            config.grant_delay_ms = 0;
        }
        config.throttles.register_address.free = self.registrations_per_ip;
        config.tax_bp = self.tax_bp;
        config.admin_token = self.admin_token.clone().filter(|token| !token.is_empty());
        config.messages_per_second = self.messages_per_second;
        config.messages_burst = self.messages_burst;
        config.argon2.memory_kib = self.argon2_memory_kib;
        config.argon2.passes = self.argon2_passes;
        config
    }
}

/// Audit the book in the store the flags name (the SQLite file in `data`, or a Redis).
fn audit(
    data: PathBuf,
    redis: &RedisArgs,
) -> Result<tengen_server::ledger::AuditReport, tengen_server::BoxError> {
    let mut config = Config::new(data);
    redis.apply(&mut config);
    let store = tengen_server::open_store(&config)?;
    Ok(tengen_server::ledger::audit(store.as_ref())?)
}

/// `tengen admin`: set a role in the store the flags name; exits 1 for an unknown user.
fn admin(change: &RoleChange, data: PathBuf, redis: &RedisArgs) -> std::process::ExitCode {
    let mut config = Config::new(data);
    redis.apply(&mut config);
    let (name, role) = change.role();
    let granted = tengen_server::open_store(&config).and_then(|store| {
        Ok(tengen_server::moderation::grant(
            store.as_ref(),
            name,
            role,
        )?)
    });
    match granted {
        Ok(Some(user)) => {
            println!("{} ({}) is now {}", user.username, user.id, role.as_str());
            std::process::ExitCode::SUCCESS
        }
        Ok(None) => {
            eprintln!("tengen admin: no user {name}");
            std::process::ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("tengen admin: {err}");
            std::process::ExitCode::from(2)
        }
    }
}

fn serve(args: ServeArgs) -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let addr = match config::parse_listen(&args.listen) {
        Ok(addr) => addr,
        Err(err) => {
            eprintln!("tengen serve: {err}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut config = args.config();
    config.connections_max = connections_within_descriptors(config.connections_max);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("tengen serve: cannot start the runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let (trigger, shutdown) = tengen_server::Shutdown::new();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("shutting down");
            trigger.trigger();
        });
        tengen_server::run(config, listener, shutdown).await
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tengen serve: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Raise the open-file soft limit to the hard limit (often 1,024 soft against 500,000 or more hard),
/// and return the connection cap that fits in it: `wanted`, or fewer when the limit leaves less than
/// `wanted` plus the descriptors the store and the rest need. Both are logged, so an operator sees
/// which limit is in force.
fn connections_within_descriptors(wanted: usize) -> usize {
    let before = rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(0, |(soft, _)| soft);
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) if limit > before => {
            tracing::info!(
                before,
                now = limit,
                "raised the open-file soft limit to the hard limit"
            );
            limit
        }
        Ok(limit) => {
            tracing::info!(
                limit,
                "the open-file soft limit is at the hard limit already"
            );
            limit
        }
        Err(err) => {
            tracing::warn!(%err, limit = before, "could not raise the open-file limit");
            before
        }
    };
    let room = usize::try_from(limit)
        .unwrap_or(usize::MAX)
        .saturating_sub(config::DESCRIPTORS_RESERVED);
    if room < wanted {
        tracing::warn!(
            wanted,
            allowed = room,
            open_files = limit,
            "the connection cap is lowered to fit the open-file limit; raise the hard limit \
             (ulimit -Hn, LimitNOFILE=) to hold more"
        );
        return room.max(1);
    }
    tracing::info!(connections_max = wanted, "connection cap");
    wanted
}

fn bot(args: BotArgs) -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let config = tengen_server::bot::BotConfig {
        engine: args.engine,
        server_url: args.server,
        username: args.user,
        password: args.password,
        register: args.register,
        board_sizes: args.sizes,
        move_timeout_ms: args.move_timeout_ms,
        games_max: args.games,
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("tengen bot: cannot start the runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        tokio::select! {
            result = tengen_server::bot::run(config) => result,
            () = wait_for_signal() => Ok(()),
        }
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tengen bot: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Ctrl-C, or SIGTERM on Unix (what service managers and containers send).
async fn wait_for_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
