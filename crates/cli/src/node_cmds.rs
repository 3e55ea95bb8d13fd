//! `kraft storage`, `kraft server` and `kraft quickstart`: the commands that
//! run or prepare a controller node.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use kraft_controller::config::ControllerConfig;
use kraft_controller::format::{self, FormatOptions, InitialQuorum};
use kraft_controller::node::ControllerNode;

use crate::commands::CliError;

/// `kraft storage` (kafka-storage).
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  kraft storage random-uuid
  kraft storage format --config controller.properties --cluster-id MkU3OEVBNTcwNTJENDM2Qk --standalone
  kraft storage info --config controller.properties
  kraft storage version-mapping --release-version 3.9-IV0
  kraft storage feature-dependencies --feature eligible.leader.replicas.version=1")]
pub struct StorageArgs {
    /// The operation.
    #[command(subcommand)]
    pub command: StorageCommand,
}

/// `kraft storage` operations.
#[derive(Debug, Subcommand)]
pub enum StorageCommand {
    /// Format the log directories of a controller.
    #[command(after_help = "Examples:
  kraft storage format --config controller.properties --cluster-id $(kraft storage random-uuid) --standalone
  kraft storage format -c controller.properties -t MkU3OEVBNTcwNTJENDM2Qk \\
      --initial-controllers 1@ctl-1:9093:J8aAPcfLQt2bqs1JT_rMgQ,2@ctl-2:9093:pYbzmJ3ETiKhj2N2kVeeWw
  kraft storage format -c controller4.properties -t MkU3OEVBNTcwNTJENDM2Qk --no-initial-controllers
  kraft storage format -c controller.properties -t MkU3OEVBNTcwNTJENDM2Qk --standalone \\
      --add-scram 'SCRAM-SHA-256=[name=alice,password=alice-secret]'")]
    Format(FormatArgs),
    /// Describe the log directories of a controller.
    #[command(after_help = "Example:\n  kraft storage info --config controller.properties")]
    Info(InfoArgs),
    /// Print a random UUID in Kafka's text form (for --cluster-id and directory ids).
    #[command(
        name = "random-uuid",
        after_help = "Example:\n  kraft storage random-uuid"
    )]
    RandomUuid,
    /// Look up the corresponding features for a given metadata version. Using the command with no --release-version argument will return the mapping for the latest stable metadata version.
    #[command(
        name = "version-mapping",
        after_help = "Example:\n  kraft storage version-mapping --release-version 3.9-IV0"
    )]
    VersionMapping {
        /// The release version to use for the corresponding feature mapping. The minimum is 3.3-IV3; the default is 4.4-IV2.
        #[arg(short = 'r', long)]
        release_version: Option<String>,
    },
    /// Look up dependencies for a given feature version. If the feature is not known or the version not yet defined, an error is thrown. Multiple features can be specified.
    #[command(
        name = "feature-dependencies",
        after_help = "Example:\n  kraft storage feature-dependencies --feature eligible.leader.replicas.version=1 -f metadata.version=33"
    )]
    FeatureDependencies {
        /// The features and their versions to look up dependencies for, in feature=version format. For example: `metadata.version=5`.
        #[arg(short = 'f', long, required = true, value_name = "FEATURE=VERSION")]
        feature: Vec<String>,
    },
}

/// `kraft storage format` flags (kafka-storage format). Its `Debug` output
/// hides the `--add-scram` arguments (they hold passwords).
#[derive(Args)]
pub struct FormatArgs {
    /// The controller's properties file.
    #[arg(short = 'c', long = "config")]
    pub config: PathBuf,
    /// The cluster id.
    #[arg(short = 't', long = "cluster-id")]
    pub cluster_id: String,
    /// The release version to bootstrap, e.g. 4.4-IV2.
    #[arg(short = 'r', long = "release-version")]
    pub release_version: Option<String>,
    /// A feature level, name=level (repeatable).
    #[arg(short = 'f', long = "feature")]
    pub feature: Vec<String>,
    /// Skip directories that are already formatted instead of failing.
    #[arg(short = 'g', long = "ignore-formatted")]
    pub ignore_formatted: bool,
    /// Bootstrap a dynamic quorum with this controller as its only voter.
    #[arg(short = 's', long = "standalone", conflicts_with_all = ["initial_controllers", "no_initial_controllers"])]
    pub standalone: bool,
    /// The initial voters: id@host:port:directory-id,...
    #[arg(
        short = 'I',
        long = "initial-controllers",
        conflicts_with = "no_initial_controllers"
    )]
    pub initial_controllers: Option<String>,
    /// Format without initial voters (to join an existing dynamic quorum).
    #[arg(short = 'N', long = "no-initial-controllers")]
    pub no_initial_controllers: bool,
    /// A SCRAM credential to add to the bootstrap metadata (repeatable), e.g.
    /// 'SCRAM-SHA-256=[name=alice,password=alice-secret]' or
    /// 'SCRAM-SHA-512=[name=alice,iterations=8192,salt="N3E=",saltedpassword="YCE="]'
    #[arg(short = 'S', long = "add-scram", value_name = "SCRAM_CREDENTIAL")]
    pub add_scram: Vec<String>,
}

impl std::fmt::Debug for FormatArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FormatArgs")
            .field("config", &self.config)
            .field("cluster_id", &self.cluster_id)
            .field("release_version", &self.release_version)
            .field("feature", &self.feature)
            .field("ignore_formatted", &self.ignore_formatted)
            .field("standalone", &self.standalone)
            .field("initial_controllers", &self.initial_controllers)
            .field("no_initial_controllers", &self.no_initial_controllers)
            .field(
                "add_scram",
                &format_args!("[{} hidden]", self.add_scram.len()),
            )
            .finish()
    }
}

/// `kraft storage info` flags.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The controller's properties file.
    #[arg(short = 'c', long = "config")]
    pub config: PathBuf,
}

/// `kraft server` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  kraft server --config controller.properties
  KRAFT_LOG=debug kraft server --config controller.properties
  KRAFT_LOG_FORMAT=json kraft server --config controller.properties
  KAFKA_NODE_ID=1 KAFKA_PROCESS_ROLES=controller CLUSTER_ID=MkU3OEVBNTcwNTJENDM2Qk ... kraft server --from-env

--from-env is the container entry point: the apache/kafka image's rules turn KAFKA_*
variables into properties (KAFKA_NODE_ID -> node.id; _ -> ., __ -> _, ___ -> -) that
override <mounted-configs-dir>/server.properties (<default-configs-dir>/server.properties
when neither is given), the result is written to <final-configs-dir>/server.properties, and
empty log directories are formatted with CLUSTER_ID (already formatted ones are kept).
KRAFT_STANDALONE=true, KRAFT_INITIAL_CONTROLLERS=... or KRAFT_NO_INITIAL_CONTROLLERS=true
format a dynamic quorum (controller.quorum.bootstrap.servers) as the storage format flags do.

The log's level, format (text, json) and file rotated by size come from the kraft.log.*
keys of the properties file; KRAFT_LOG and KRAFT_LOG_FORMAT win over them.

SIGTERM or Ctrl-C resigns leadership, flushes the log and exits 0.")]
pub struct ServerArgs {
    /// The controller's properties file.
    #[arg(
        short = 'c',
        long = "config",
        required_unless_present = "from_env",
        conflicts_with = "from_env"
    )]
    pub config: Option<PathBuf>,
    /// Configure from KAFKA_* environment variables and CLUSTER_ID as the apache/kafka
    /// image does, formatting empty storage on first start.
    #[arg(long = "from-env")]
    pub from_env: bool,
    /// With --from-env: the image's default server.properties.
    #[arg(long, value_name = "DIR", default_value = "/etc/kraft/docker")]
    pub default_configs_dir: PathBuf,
    /// With --from-env: where an operator may mount a server.properties.
    #[arg(long, value_name = "DIR", default_value = "/mnt/shared/config")]
    pub mounted_configs_dir: PathBuf,
    /// With --from-env: where the resulting server.properties is written.
    #[arg(long, value_name = "DIR", default_value = "/var/lib/kraft/config")]
    pub final_configs_dir: PathBuf,
    /// With --from-env: where KAFKA_SSL_*_FILENAME and *_CREDENTIALS files are.
    #[arg(long, value_name = "DIR", default_value = "/etc/kafka/secrets")]
    pub secrets_dir: PathBuf,
    /// With --from-env: variables that override the environment, as the image's `run`
    /// script exports its arguments (e.g. KAFKA_NODE_ID=2).
    #[arg(value_name = "NAME=VALUE")]
    pub env_overrides: Vec<String>,
}

/// `kraft quickstart` flags.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  kraft quickstart\n  kraft quickstart --with-brokers\n\nStarts controllers 1-3 on loopback, adds controller 4 by id, removes one with --unregister,\nthen keeps serving until Ctrl-C.\n\nWith --with-brokers it then starts three Apache Kafka 4.4.0 Java brokers (ids 11-13) on the\ncontrollers, waits until they are unfenced, creates the topic `quickstart` and produces and\nconsumes a few lines with Kafka's own tools. It needs Java 17+ and Maven (KRAFT_JAVA,\nJAVA_HOME and KRAFT_MVN choose other executables); the first run downloads the Kafka jars\n(about 60 MB) from Maven Central into ~/.m2. Without them it says how to get them and exits\nwith status 2 before starting anything. Ctrl-C (or --exit) stops the brokers, then the controllers."
)]
pub struct QuickstartArgs {
    /// Where to keep the data (default: a new directory under the system temp dir).
    #[arg(long = "dir")]
    pub dir: Option<PathBuf>,
    /// Run the demonstration and exit instead of serving until Ctrl-C.
    #[arg(long = "exit")]
    pub exit: bool,
    /// Also start three Apache Kafka 4.4.0 Java brokers and show a topic's produce/consume
    /// round trip (needs Java 17+ and Maven; exits 2 without them).
    #[arg(long = "with-brokers")]
    pub with_brokers: bool,
}

fn load_config(path: &Path, err: &mut dyn Write) -> Result<ControllerConfig, CliError> {
    let (config, warnings) = ControllerConfig::load(path)
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    for w in warnings {
        let _ = writeln!(err, "WARN {w}");
    }
    Ok(config)
}

/// `kraft storage ...`.
pub fn storage(args: StorageArgs, out: &mut dyn Write) -> Result<(), CliError> {
    match args.command {
        StorageCommand::RandomUuid => {
            let _ = writeln!(out, "{}", format::random_uuid_text());
            Ok(())
        }
        StorageCommand::VersionMapping { release_version } => {
            crate::feature_tools::version_mapping(release_version.as_deref(), out)
        }
        StorageCommand::FeatureDependencies { feature } => {
            crate::feature_tools::feature_dependencies(
                &feature,
                crate::feature_tools::Dialect::Storage,
                out,
            )
        }
        StorageCommand::Info(a) => {
            let config = load_config(&a.config, &mut std::io::stderr())?;
            let report = format::info(&config);
            for line in &report.output {
                let _ = writeln!(out, "{line}");
            }
            if report.exit_code == 0 {
                Ok(())
            } else {
                Err(CliError::new("found problems in the log directories"))
            }
        }
        StorageCommand::Format(a) => {
            let config = load_config(&a.config, &mut std::io::stderr())?;
            let initial_quorum = if a.standalone {
                InitialQuorum::Standalone
            } else if let Some(list) = a.initial_controllers {
                InitialQuorum::InitialControllers(list)
            } else if a.no_initial_controllers {
                InitialQuorum::NoInitialControllers
            } else {
                InitialQuorum::Unspecified
            };
            let report = format::format(&FormatOptions {
                config,
                cluster_id: a.cluster_id,
                release_version: a.release_version,
                features: a.feature,
                ignore_formatted: a.ignore_formatted,
                initial_quorum,
                add_scram: a.add_scram,
                now_ms: None,
            })
            .map_err(|e| CliError::new(e.to_string()))?;
            for line in &report.output {
                let _ = writeln!(out, "{line}");
            }
            Ok(())
        }
    }
}

/// `kraft server --config FILE`: runs until SIGTERM or Ctrl-C.
pub async fn server(args: ServerArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let (config, warnings, source) = match &args.config {
        Some(_) if !args.env_overrides.is_empty() => {
            return Err(CliError::new(
                "NAME=VALUE arguments are only taken with --from-env (see --help)",
            ))
        }
        Some(path) => {
            let (config, warnings) = ControllerConfig::load(path)
                .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
            (config, warnings, path.display().to_string())
        }
        None => {
            let dirs = crate::docker_env::ConfigDirs {
                default_dir: args.default_configs_dir,
                mounted_dir: args.mounted_configs_dir,
                final_dir: args.final_configs_dir,
                secrets_dir: args.secrets_dir,
            };
            let mut env = crate::docker_env::process_env();
            crate::docker_env::apply_overrides(&mut env, &args.env_overrides);
            // Its warnings are printed as the image's scripts print theirs.
            let (path, config) = crate::docker_env::setup(&dirs, env, &mut std::io::stderr())?;
            (config, Vec::new(), path.display().to_string())
        }
    };
    // KRAFT_LOG wins; in a container, the image's log variables come next.
    let level = std::env::var(crate::logging::LOG_ENV)
        .ok()
        .or_else(crate::docker_env::process_log_filter);
    let format = std::env::var(crate::logging::LOG_FORMAT_ENV).ok();
    crate::logging::server_setup(&config.logging, level.as_deref(), format.as_deref())
        .and_then(|setup| crate::logging::install(&setup))
        .map_err(|e| CliError::new(format!("{source}: {e}")))?;
    // Logged where the log goes now that it is set up.
    for w in &warnings {
        tracing::warn!(key = %w.key, "{}", w.message);
    }
    let node_id = config.node_id;
    let node = ControllerNode::start(config)
        .await
        .map_err(|e| CliError::new(format!("cannot start controller {node_id}: {e}")))?;
    tracing::info!(node_id, "controller started");
    let _ = writeln!(out, "kraft controller {node_id} started");
    let _ = out.flush();
    let fatal = tokio::select! {
        _ = wait_for_shutdown_signal() => None,
        error = node.fatal_error() => Some(error),
    };
    let Some(error) = fatal else {
        tracing::info!(node_id, "shutting down");
        node.shutdown().await;
        return Ok(());
    };
    // The node logged what failed; it applies nothing more. Stop serving
    // without waiting for long.
    tracing::error!(node_id, "stopping: the controller cannot go on safely");
    if tokio::time::timeout(FATAL_SHUTDOWN_GRACE, node.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(node_id, "shutdown after the failure timed out");
    }
    Err(CliError::new(format!(
        "controller {node_id} stopped: {error}"
    )))
}

/// How long `kraft server` waits for a clean shutdown after a fatal
/// failure before it exits anyway.
const FATAL_SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

async fn wait_for_shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

pub(crate) fn free_port() -> Result<u16, CliError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| CliError::new(format!("cannot bind: {e}")))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| CliError::new(format!("cannot bind: {e}")))
}

fn write_properties(dir: &Path, id: i32, port: u16, bootstrap: &str) -> Result<PathBuf, CliError> {
    let data = dir.join(format!("controller-{id}"));
    std::fs::create_dir_all(&data)
        .map_err(|e| CliError::new(format!("{}: {e}", data.display())))?;
    let path = dir.join(format!("controller-{id}.properties"));
    let text = format!(
        "node.id={id}\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
         listeners=CONTROLLER://127.0.0.1:{port}\nlistener.security.protocol.map=CONTROLLER:PLAINTEXT\n\
         log.dirs={}\nmetadata.log.dir={}\ncontroller.quorum.bootstrap.servers={bootstrap}\n",
        data.display(),
        data.display()
    );
    std::fs::write(&path, text).map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    Ok(path)
}

/// Runs a `kraft` command line as the quickstart shows it.
pub(crate) async fn show(out: &mut dyn Write, line: &str) -> Result<(), CliError> {
    let _ = writeln!(out, "\n$ kraft {line}");
    let args = std::iter::once("kraft").chain(line.split_whitespace());
    let cli = crate::cli::Cli::try_parse_from(args).map_err(|e| CliError::new(e.to_string()))?;
    Box::pin(crate::commands::run(cli.command, out)).await
}

async fn wait_until<F: Fn() -> bool>(
    what: &str,
    timeout: Duration,
    check: F,
) -> Result<(), CliError> {
    let start = tokio::time::Instant::now();
    while !check() {
        if start.elapsed() > timeout {
            return Err(CliError::new(format!(
                "quickstart: timed out waiting until {what}"
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

/// `kraft quickstart`: a 3-controller quorum on loopback, then a 4th added by
/// id and one removed with `--unregister`, showing the quorum after each step.
pub async fn quickstart(args: QuickstartArgs, out: &mut dyn Write) -> Result<(), CliError> {
    // --with-brokers: check for Java and Maven before anything starts.
    let java = if args.with_brokers {
        Some(crate::quickstart_brokers::JavaTools::detect()?)
    } else {
        None
    };
    let dir = args.dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("kraft-quickstart-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).map_err(|e| CliError::new(format!("{}: {e}", dir.display())))?;
    let ports: Vec<u16> = (0..4).map(|_| free_port()).collect::<Result<_, _>>()?;
    let bootstrap = (0..3)
        .map(|i| format!("127.0.0.1:{}", ports[i]))
        .collect::<Vec<_>>()
        .join(",");
    let cluster_id = format::random_uuid_text();
    let dir_ids: Vec<String> = (0..3).map(|_| format::random_uuid_text()).collect();
    let initial = (0..3)
        .map(|i| format!("{}@127.0.0.1:{}:{}", i + 1, ports[i], dir_ids[i]))
        .collect::<Vec<_>>()
        .join(",");
    let _ = writeln!(out, "kraft quickstart: data in {}", dir.display());
    let _ = writeln!(out, "cluster id {cluster_id}");
    let classpath = match &java {
        Some(tools) => Some(crate::quickstart_brokers::resolve_classpath(tools, &dir, out).await?),
        None => None,
    };
    let mut nodes = Vec::new();
    for (i, port) in ports.iter().take(3).enumerate() {
        let id = i as i32 + 1;
        let props = write_properties(&dir, id, *port, &bootstrap)?;
        let line = format!(
            "storage format --config {} --cluster-id {cluster_id} --initial-controllers {initial}",
            props.display()
        );
        show(out, &line).await?;
        let config = load_config(&props, &mut std::io::stderr())?;
        nodes.push(Some(
            ControllerNode::start(config)
                .await
                .map_err(|e| CliError::new(format!("controller {id}: {e}")))?,
        ));
    }
    let _ = writeln!(out, "\nstarted controllers 1, 2, 3 on {bootstrap}");
    let leader_known = || {
        nodes
            .iter()
            .flatten()
            .any(|n| n.raft().status().is_leader && n.raft().status().high_watermark.is_some())
    };
    wait_until("a leader is elected", Duration::from_secs(30), leader_known).await?;
    // Give the controllers a moment to register with the active controller.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let bc = format!("127.0.0.1:{}", ports[0]);
    show(
        out,
        &format!("metadata-quorum --bootstrap-controller {bc} describe --status"),
    )
    .await?;
    show(
        out,
        &format!("metadata-quorum --bootstrap-controller {bc} describe --replication"),
    )
    .await?;

    // A fourth controller joins as an observer and is added by id alone (KIP-1141).
    let props4 = write_properties(&dir, 4, ports[3], &bootstrap)?;
    show(
        out,
        &format!(
            "storage format --config {} --cluster-id {cluster_id} --no-initial-controllers",
            props4.display()
        ),
    )
    .await?;
    let config4 = load_config(&props4, &mut std::io::stderr())?;
    let node4 = ControllerNode::start(config4)
        .await
        .map_err(|e| CliError::new(format!("controller 4: {e}")))?;
    let _ = writeln!(
        out,
        "\nstarted controller 4 on 127.0.0.1:{} (an observer)",
        ports[3]
    );
    tokio::time::sleep(Duration::from_millis(2000)).await;
    show(
        out,
        &format!("metadata-quorum --bootstrap-controller {bc} add-controller --controller-id 4"),
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    show(
        out,
        &format!("metadata-quorum --bootstrap-controller {bc} describe --replication"),
    )
    .await?;
    nodes.push(Some(node4));

    // Stop a controller that is not the leader, then remove and unregister it (KIP-1312).
    let victim = (1..=3)
        .rev()
        .find(|id| {
            nodes[(*id - 1) as usize]
                .as_ref()
                .is_some_and(|n| !n.raft().status().is_leader)
        })
        .unwrap_or(3);
    if let Some(node) = nodes[(victim - 1) as usize].take() {
        node.shutdown().await;
    }
    let _ = writeln!(out, "\nstopped controller {victim}");
    let alive = nodes
        .iter()
        .enumerate()
        .find_map(|(i, n)| n.as_ref().map(|_| i))
        .unwrap_or(0);
    let bc = format!("127.0.0.1:{}", ports[alive]);
    show(
        out,
        &format!("metadata-quorum --bootstrap-controller {bc} remove-controller --controller-id {victim} --unregister"),
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    show(
        out,
        &format!("metadata-quorum --bootstrap-controller {bc} describe --status"),
    )
    .await?;
    show(
        out,
        &format!("cluster list-endpoints --bootstrap-controller {bc}"),
    )
    .await?;

    let brokers = match (&java, &classpath) {
        (Some(tools), Some(cp)) => {
            let controllers = nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.is_some())
                .map(|(i, _)| format!("127.0.0.1:{}", ports[i]))
                .collect::<Vec<_>>()
                .join(",");
            Some(
                crate::quickstart_brokers::start(
                    tools,
                    cp,
                    &dir,
                    &cluster_id,
                    &controllers,
                    &bc,
                    out,
                )
                .await?,
            )
        }
        _ => None,
    };

    let _ = writeln!(out, "\nThe quorum is serving. Bootstrap controller: {bc}");
    let _ = writeln!(
        out,
        "Try:  cargo run --release --bin kraft -- metadata-quorum --bootstrap-controller {bc} describe --status"
    );
    if let Some(b) = &brokers {
        let logs = b
            .logs()
            .iter()
            .map(|l| l.display().to_string())
            .collect::<Vec<_>>();
        let _ = writeln!(
            out,
            "Brokers: {} (logs: {})",
            b.bootstrap_servers(),
            logs.join(", ")
        );
    }
    if args.exit {
        let _ = writeln!(out, "stopping (--exit)");
    } else {
        let _ = writeln!(out, "Press Ctrl-C to stop.");
        let _ = out.flush();
        wait_for_shutdown_signal().await;
    }
    // A broker's controlled shutdown needs the controllers: stop the brokers first.
    if let Some(b) = brokers {
        b.stop(out).await;
    }
    for node in nodes.into_iter().flatten() {
        node.shutdown().await;
    }
    let _ = writeln!(out, "stopped; data kept in {}", dir.display());
    Ok(())
}
