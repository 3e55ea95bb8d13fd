//! The `kraft` command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    // A server logs at info by default; the tools stay quiet unless asked.
    let default = match std::env::args().nth(1).as_deref() {
        Some("server") => "info",
        _ => "off",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("KRAFT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    // Unlocked handles: a lock held for the whole run would block every
    // log line written from another thread (a blocking task, the raft I/O
    // thread) until the process ends.
    let code = kraft_cli::run_main(
        std::env::args_os(),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
