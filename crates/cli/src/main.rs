//! The `kraft` command line.

use std::process::ExitCode;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

fn main() -> ExitCode {
    // A server logs at info by default; the tools stay quiet unless asked.
    let default = match std::env::args().nth(1).as_deref() {
        Some("server") => "info",
        _ => "off",
    };
    // KRAFT_LOG wins over the apache/kafka image's log variables.
    let wanted = std::env::var("KRAFT_LOG")
        .ok()
        .or_else(kraft_cli::docker_env::process_log_filter);
    let (directives, filter) = match wanted
        .as_deref()
        .map(|w| (w, tracing_subscriber::EnvFilter::try_new(w)))
    {
        Some((w, Ok(filter))) => (w.to_owned(), filter),
        _ => (
            default.to_owned(),
            tracing_subscriber::EnvFilter::new(default),
        ),
    };
    // The filter is reloadable: a server's BROKER_LOGGER changes
    // (IncrementalAlterConfigs) replace it while it runs.
    let (filter, reload) = tracing_subscriber::reload::Layer::new(filter);
    tracing_subscriber::registry()
        .with(filter)
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .init();
    kraft_controller::loggers::install(kraft_controller::loggers::Loggers::with_apply(
        &directives,
        Box::new(move |directives| {
            let filter =
                tracing_subscriber::EnvFilter::try_new(directives).map_err(|e| e.to_string())?;
            reload.reload(filter).map_err(|e| e.to_string())
        }),
    ));
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
