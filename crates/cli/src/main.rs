//! The `kraft` command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    // A server sets up its log once it has read its properties file
    // (`kraft.log.*`); the tools stay quiet unless KRAFT_LOG asks.
    if std::env::args().nth(1).as_deref() != Some("server") {
        // KRAFT_LOG wins over the apache/kafka image's log variables.
        let level = std::env::var(kraft_cli::logging::LOG_ENV)
            .ok()
            .or_else(kraft_cli::docker_env::process_log_filter);
        let format = std::env::var(kraft_cli::logging::LOG_FORMAT_ENV).ok();
        let setup = kraft_cli::logging::tool_setup(level.as_deref(), format.as_deref());
        if let Err(e) = kraft_cli::logging::install(&setup) {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    }
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
