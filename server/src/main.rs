//! `tengen`: command-line parsing only. Each subcommand hands its flags to the library.

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "tengen", version, about = "Tengen, an online Go server")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server (the default with no subcommand).
    Serve,
    /// Speak GTP version 2 on stdin/stdout as a referee over the Tengen rules engine.
    Gtp {
        /// Seed for `genmove`'s random choices, so a session can be replayed exactly.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            eprintln!("tengen serve: the server arrives with the server issue");
            std::process::ExitCode::from(2)
        }
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
