//! What each command does. Output goes to the given writer (stdout in the
//! binary); failures come back as [`CliError`] (one line on stderr, exit 1).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use kraft_admin::{
    kafka_uuid, AddRaftVoterOptions, Admin, AdminConfig, AdminError, DescribeClusterOptions,
    DescribeFeaturesOptions, ErrorCode, FeatureUpdate, MetadataVersion, RaftVoterEndpoint,
    RemoveRaftVoterOptions, UpdateFeaturesOptions, UpgradeType, Uuid,
};
use kraft_protocol::text::Properties;

use crate::cli::{
    AddControllerArgs, ClusterArgs, ClusterCommand, Command, DescribeArgs, FeaturesArgs,
    FeaturesCommand, MetadataQuorumArgs, MetadataQuorumCommand, OutputFormat, RemoveControllerArgs,
};
use crate::controller_config;
use crate::render;

/// A failed command: the message for stderr and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// What to print (one line, unless Kafka's text has two).
    pub message: String,
    /// Process exit code.
    pub exit_code: i32,
}

impl CliError {
    /// An error with exit code 1.
    pub fn new(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            exit_code: 1,
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::new(format!("cannot write output: {e}"))
    }
}

impl From<AdminError> for CliError {
    fn from(e: AdminError) -> Self {
        CliError::new(describe_admin_error(&e))
    }
}

/// A one-line description of an admin failure for an operator.
pub fn describe_admin_error(e: &AdminError) -> String {
    match e {
        AdminError::Timeout {
            timeout,
            last_error: Some(last),
            ..
        } => match last.root_cause() {
            AdminError::Connect { addr, reason } => format!(
                "Cannot connect to {addr}: {reason} (gave up after {} ms; default.api.timeout.ms in --command-config changes how long to retry)",
                timeout.as_millis()
            ),
            _ => e.to_string(),
        },
        AdminError::Api(api) if api.code == ErrorCode::MismatchedEndpointType => format!(
            "{e} (does --bootstrap-controller name a broker, or --bootstrap-server a controller?)"
        ),
        other => other.to_string(),
    }
}

/// What a command returns.
pub(crate) type CmdResult = Result<(), CliError>;

/// Runs a parsed command line.
pub async fn run(command: Command, out: &mut dyn Write) -> CmdResult {
    match command {
        Command::MetadataQuorum(args) => metadata_quorum(args, out).await,
        Command::Cluster(args) => cluster(args, out).await,
        Command::Features(args) => features(args, out).await,
        Command::Storage(args) => crate::node_cmds::storage(args, out),
        Command::Server(args) => crate::node_cmds::server(args, out).await,
        Command::Quickstart(args) => crate::node_cmds::quickstart(args, out).await,
        // run_main runs it before starting a runtime, with its stderr.
        Command::DumpLog(args) => crate::dump_log::run(&args, out, &mut std::io::stderr()),
        Command::MetadataShell(args) => {
            let stdin = std::io::stdin();
            crate::metadata_shell::run(&args, &mut stdin.lock(), None, out, &mut std::io::stderr())
                .map(|_| ())
        }
    }
}

/// `kraft metadata-shell --bootstrap-controller`: copies the running
/// quorum's committed metadata log into a new temporary directory, which
/// the caller reads and removes.
pub async fn copy_live_metadata(
    controllers: &str,
    command_config: Option<&Path>,
) -> Result<std::path::PathBuf, CliError> {
    let props = load_properties(command_config)?;
    let admin = admin_from(props, None, Some(controllers))?;
    let dir = std::env::temp_dir().join(format!(
        "kraft-metadata-shell-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::new(format!("cannot create {}: {e}", dir.display())))?;
    let copied = admin.copy_metadata_log(&dir).await;
    admin.close().await;
    match copied {
        Ok(_) => Ok(dir),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(e.into())
        }
    }
}

fn load_properties(path: Option<&Path>) -> Result<Properties, CliError> {
    match path {
        None => Ok(Properties::new()),
        Some(p) => {
            if !p.exists() {
                return Err(CliError::new(format!(
                    "Properties file {} does not exist.",
                    p.display()
                )));
            }
            Properties::load(p).map_err(|e| CliError::new(e.to_string()))
        }
    }
}

/// Kafka's `CommandLineUtils.initializeBootstrapProperties` followed by `Admin.create`
/// (no I/O yet).
fn admin_from(
    mut props: Properties,
    bootstrap_server: Option<&str>,
    bootstrap_controller: Option<&str>,
) -> Result<Admin, CliError> {
    match (bootstrap_server, bootstrap_controller) {
        (Some(_), Some(_)) => {
            return Err(CliError::new(
                "You cannot specify both --bootstrap-controller and --bootstrap-server.",
            ))
        }
        (Some(s), None) => {
            props.set("bootstrap.servers", s);
            props.remove("bootstrap.controllers");
        }
        (None, Some(c)) => {
            props.remove("bootstrap.servers");
            props.set("bootstrap.controllers", c);
        }
        (None, None) => {
            return Err(CliError::new(
                "You must specify either --bootstrap-controller or --bootstrap-server.",
            ))
        }
    }
    let config = AdminConfig::from_properties(&props).map_err(|e| match e {
        AdminError::Config(m) => CliError::new(m),
        other => other.into(),
    })?;
    Ok(Admin::new(config))
}

fn write_json(out: &mut dyn Write, value: &serde_json::Value) -> CmdResult {
    let text = serde_json::to_string_pretty(&crate::render::sorted_keys(value.clone()))
        .map_err(|e| CliError::new(format!("cannot render JSON: {e}")))?;
    writeln!(out, "{text}")?;
    Ok(())
}

// --------------------------------------------------------------------------
// metadata-quorum
// --------------------------------------------------------------------------

async fn metadata_quorum(args: MetadataQuorumArgs, out: &mut dyn Write) -> CmdResult {
    let conn = &args.connection;
    let props = load_properties(conn.command_config.as_deref())?;
    let admin = admin_from(
        props.clone(),
        conn.bootstrap_server.as_deref(),
        conn.bootstrap_controller.as_deref(),
    )?;
    let result = match args.command {
        MetadataQuorumCommand::Describe(d) => describe(&admin, d, out).await,
        MetadataQuorumCommand::AddController(a) => {
            add_controller(
                &admin,
                a,
                conn.command_config.is_some().then_some(&props),
                out,
            )
            .await
        }
        MetadataQuorumCommand::RemoveController(r) => remove_controller(&admin, r, out).await,
        MetadataQuorumCommand::Reconcile(r) => match conn.bootstrap_controller.as_deref() {
            Some(bootstrap) => crate::reconcile::reconcile(&admin, bootstrap, r, out).await,
            None => Err(CliError::new(
                "reconcile changes the voter set: use --bootstrap-controller (as add-controller and remove-controller do).",
            )),
        },
    };
    admin.close().await;
    result
}

async fn describe(admin: &Admin, args: DescribeArgs, out: &mut dyn Write) -> CmdResult {
    if args.status && args.replication {
        return Err(CliError::new(
            "Only one of --status or --replication should be specified with describe sub-command",
        ));
    }
    if args.replication {
        if args.human_readable && args.output == OutputFormat::Json {
            return Err(CliError::new(
                "The option --human-readable is only supported with the text output",
            ));
        }
        let quorum = admin.describe_metadata_quorum().await?;
        match args.output {
            OutputFormat::Text => {
                let now = args.human_readable.then(now_ms);
                out.write_all(
                    render::replication_text(&quorum, now)
                        .map_err(CliError::new)?
                        .as_bytes(),
                )?;
            }
            OutputFormat::Json => {
                write_json(
                    out,
                    &render::replication_json(&quorum).map_err(CliError::new)?,
                )?;
            }
        }
        return Ok(());
    }
    if args.status {
        if args.human_readable {
            return Err(CliError::new(
                "The option --human-readable is only supported along with --replication",
            ));
        }
        let cluster = admin.describe_cluster().await?;
        let quorum = admin.describe_metadata_quorum().await?;
        match args.output {
            OutputFormat::Text => out.write_all(
                render::status_text(&cluster.cluster_id, &quorum)
                    .map_err(CliError::new)?
                    .as_bytes(),
            )?,
            OutputFormat::Json => write_json(
                out,
                &render::status_json(&cluster.cluster_id, &quorum).map_err(CliError::new)?,
            )?,
        }
        return Ok(());
    }
    Err(CliError::new(
        "One of --status or --replication must be specified with describe sub-command",
    ))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn endpoints_text(endpoints: &[RaftVoterEndpoint]) -> String {
    endpoints
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) async fn add_controller(
    admin: &Admin,
    args: AddControllerArgs,
    controller_props: Option<&Properties>,
    out: &mut dyn Write,
) -> CmdResult {
    let verb = if args.dry_run {
        "DRY RUN of adding"
    } else {
        "Added"
    };
    let (id, options) = match (args.controller_id, controller_props) {
        // KIP-1141: with --controller-id the config file (if any) only configures the client.
        (Some(id), _) => {
            if id < 0 {
                return Err(CliError::new(format!(
                    "Invalid negative --controller-id: {id}"
                )));
            }
            (id, AddRaftVoterOptions::default())
        }
        (None, Some(props)) => {
            let id = controller_config::controller_id(props).map_err(CliError::new)?;
            let dir = controller_config::metadata_directory(props).map_err(CliError::new)?;
            let dir_id = controller_config::metadata_directory_id(&dir).map_err(CliError::new)?;
            let endpoints =
                controller_config::controller_endpoints(props).map_err(CliError::new)?;
            (
                id,
                AddRaftVoterOptions {
                    voter_directory_id: Some(dir_id),
                    endpoints,
                    ..Default::default()
                },
            )
        }
        (None, None) => {
            return Err(CliError::new(
                "You must use --command-config or --controller-id option to add a controller.",
            ))
        }
    };
    let add_advice = |e: AdminError| {
        match e {
        AdminError::CannotDerive { .. } => CliError::new(format!(
            "{}. Alternatively run add-controller with --command-config <the new controller's server.properties> instead of --controller-id.",
            describe_admin_error(&e)
        )),
        other => other.into(),
    }
    };
    if args.dry_run {
        let given = options
            .voter_directory_id
            .zip((!options.endpoints.is_empty()).then_some(()));
        let (dir, endpoints) = match given {
            Some((d, ())) => (d, options.endpoints.clone()),
            // Nothing is sent: show what the active controller would derive.
            None => admin
                .derive_raft_voter(id, &options)
                .await
                .map_err(add_advice)?,
        };
        writeln!(
            out,
            "{verb} controller {id} with directory id {} and endpoints: {}",
            kafka_uuid::to_string(&dir),
            endpoints_text(&endpoints)
        )?;
        if given.is_none() {
            writeln!(
                out,
                "(this client derived the directory id and endpoints from DescribeQuorum and DescribeCluster as the active controller would; nothing was sent)"
            )?;
        }
        return Ok(());
    }
    let added = admin
        .add_raft_voter(id, options)
        .await
        .map_err(add_advice)?;
    let (dir, endpoints) = match (added.voter_directory_id, added.endpoints.is_empty()) {
        (Some(d), false) => (Some(d), added.endpoints),
        // The active controller derived them: read the new voter back.
        _ => match admin.describe_metadata_quorum().await {
            Ok(quorum) => voter_key_and_endpoints(&quorum, id),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the new voter back");
                (None, Vec::new())
            }
        },
    };
    match dir {
        Some(d) if !endpoints.is_empty() => writeln!(
            out,
            "{verb} controller {id} with directory id {} and endpoints: {}",
            kafka_uuid::to_string(&d),
            endpoints_text(&endpoints)
        )?,
        _ => writeln!(
            out,
            "{verb} controller {id} (its directory id and endpoints could not be read back; see `kraft metadata-quorum describe --status`)"
        )?,
    }
    Ok(())
}

/// Voter `id`'s directory id and endpoints as DescribeQuorum reports them.
fn voter_key_and_endpoints(
    quorum: &kraft_admin::QuorumInfo,
    id: i32,
) -> (Option<Uuid>, Vec<RaftVoterEndpoint>) {
    let dir = quorum
        .voters
        .iter()
        .find(|v| v.replica_id == id)
        .map(|v| v.replica_directory_id)
        .filter(|d| !d.is_nil());
    let endpoints = quorum
        .nodes
        .get(&id)
        .map(|n| n.endpoints.clone())
        .unwrap_or_default();
    (dir, endpoints)
}

/// Whether a removal was refused because the quorum is static
/// (`kraft.version` 0): the voter is still there and must not be unregistered.
fn kraft_version_0(e: &AdminError) -> bool {
    e.error_code() == Some(ErrorCode::UnsupportedVersion)
        && e.message().contains("kraft.version feature is 0")
}

fn guidance(id: i32) -> String {
    format!(
        "To unregister the controller from the cluster, run `kraft cluster unregister-controller --id {id}`."
    )
}

pub(crate) async fn remove_controller(
    admin: &Admin,
    args: RemoveControllerArgs,
    out: &mut dyn Write,
) -> CmdResult {
    let id = args.controller_id;
    if id < 0 {
        return Err(CliError::new(format!(
            "Invalid negative --controller-id: {id}"
        )));
    }
    let dir: Option<Uuid> = match &args.controller_directory_id {
        None => None,
        Some(s) => Some(kafka_uuid::parse(s).map_err(|e| {
            CliError::new(format!("Failed to parse --controller-directory-id: {e}"))
        })?),
    };
    let remove_advice = |e: AdminError| {
        match e {
        AdminError::CannotDerive { .. } => CliError::new(format!(
            "{}. Pass --controller-directory-id <its directory id> (shown by `kraft metadata-quorum describe --replication`).",
            describe_admin_error(&e)
        )),
        other => other.into(),
    }
    };
    // The directory id the active controller will take (KIP-1141), read
    // from the current voter set so the output can name it as Kafka's does.
    let current_dir = match dir {
        Some(d) => Some(d),
        None => {
            let quorum = admin
                .describe_metadata_quorum()
                .await
                .map_err(remove_advice)?;
            match quorum.voters.iter().find(|v| v.replica_id == id) {
                Some(v) => Some(v.replica_directory_id).filter(|d| !d.is_nil()),
                None if args.dry_run => {
                    return Err(CliError::new(format!(
                        "Controller {id} is not in the set of voters [{}]",
                        quorum
                            .voters
                            .iter()
                            .map(|v| v.replica_id.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )))
                }
                // Let the controller answer VOTER_NOT_FOUND itself.
                None => None,
            }
        }
    };
    let removed_dir = if args.dry_run {
        current_dir
    } else {
        let options = RemoveRaftVoterOptions {
            voter_directory_id: dir,
            ..Default::default()
        };
        match admin.remove_raft_voter(id, options).await {
            Ok(r) => r.voter_directory_id.or(current_dir),
            Err(e) => {
                if args.unregister && kraft_version_0(&e) {
                    return Err(CliError::new(format!(
                        "Failed to remove KRaft voter {id}: {}. Controller {id} is still a voter of this static quorum: upgrade it to kraft.version 1 first (`kraft features upgrade --feature kraft.version=1`), then remove the voter; do not unregister a running voter.",
                        e.message()
                    )));
                }
                if args.unregister
                    && (e.is_unsupported_version()
                        || e.error_code() == Some(ErrorCode::VoterNotFound))
                {
                    return Err(CliError::new(format!(
                        "Failed to remove KRaft voter {id}: {}. {}",
                        e.message(),
                        guidance(id)
                    )));
                }
                return Err(remove_advice(e));
            }
        }
    };
    let prefix = if args.dry_run {
        "DRY RUN of removing "
    } else {
        "Removed "
    };
    match removed_dir {
        Some(d) => writeln!(
            out,
            "{prefix}KRaft controller {id} with directory id {}",
            kafka_uuid::to_string(&d)
        )?,
        None => writeln!(out, "{prefix}KRaft controller {id}")?,
    }
    if args.unregister {
        if !args.dry_run {
            if let Err(e) = admin.unregister_controller(id).await {
                return Err(CliError::new(format!(
                    "Failed to unregister controller {id}: {}. {}",
                    e.message(),
                    guidance(id)
                )));
            }
        }
        let prefix = if args.dry_run {
            "DRY RUN of unregistering "
        } else {
            "Unregistered "
        };
        writeln!(out, "{prefix}KRaft controller {id}")?;
    }
    Ok(())
}

// --------------------------------------------------------------------------
// cluster
// --------------------------------------------------------------------------

async fn cluster(args: ClusterArgs, out: &mut dyn Write) -> CmdResult {
    let conn = &args.connection;
    if conn.config.is_some() && conn.command_config.is_some() {
        return Err(CliError::new(
            "--config and --command-config cannot be specified together.",
        ));
    }
    if conn.config.is_some() {
        writeln!(
            out,
            "Option --config has been deprecated and will be removed in a future version. Use --command-config instead."
        )?;
    }
    let props = load_properties(conn.command_config.as_deref().or(conn.config.as_deref()))?;
    let admin = admin_from(
        props,
        conn.bootstrap_server.as_deref(),
        conn.bootstrap_controller.as_deref(),
    )?;
    let result = match args.command {
        ClusterCommand::ClusterId { output } => {
            let c = admin.describe_cluster().await?;
            match output {
                OutputFormat::Text => {
                    if c.cluster_id.is_empty() {
                        writeln!(
                            out,
                            "No cluster ID found. The Kafka version is probably too old."
                        )?;
                    } else {
                        writeln!(out, "Cluster ID: {}", c.cluster_id)?;
                    }
                }
                OutputFormat::Json => write_json(
                    out,
                    &serde_json::json!({
                        "clusterId": (!c.cluster_id.is_empty()).then_some(c.cluster_id),
                        "controllerId": c.controller.map(|n| n.id),
                    }),
                )?,
            }
            Ok(())
        }
        ClusterCommand::Unregister { id } => match admin.unregister_broker(id).await {
            Ok(()) => {
                writeln!(out, "Broker {id} is no longer registered.")?;
                Ok(())
            }
            Err(e) if e.is_unsupported_version() => {
                // Kafka reports this on stdout and exits 0.
                writeln!(
                    out,
                    "The target cluster does not support the broker unregistration API."
                )?;
                tracing::info!(error = %e, "unregister unsupported");
                Ok(())
            }
            Err(e) => Err(e.into()),
        },
        ClusterCommand::UnregisterController { id } => {
            match admin.unregister_controller(id).await {
                Ok(()) => {
                    writeln!(out, "Controller {id} is no longer registered.")?;
                    Ok(())
                }
                Err(e) if e.is_unsupported_version() => {
                    // Kafka reports this on stdout and exits 0.
                    writeln!(
                        out,
                        "The target cluster does not support the controller unregistration API."
                    )?;
                    tracing::info!(error = %e, "unregister-controller unsupported");
                    Ok(())
                }
                Err(e) => Err(e.into()),
            }
        }
        ClusterCommand::ListEndpoints {
            include_fenced_brokers,
        } => {
            let controllers = conn.bootstrap_controller.is_some();
            if include_fenced_brokers && controllers {
                return Err(CliError::new(
                    "The option --include-fenced-brokers is only supported with --bootstrap-server option",
                ));
            }
            match admin
                .describe_cluster_with(DescribeClusterOptions {
                    include_fenced_brokers,
                    timeout: None,
                })
                .await
            {
                Ok(c) => out.write_all(render::endpoints_text(&c.nodes, controllers).as_bytes())?,
                Err(e) if e.is_unsupported_version() => writeln!(out, "{}", e.message())?,
                Err(e) => return Err(e.into()),
            }
            Ok(())
        }
        ClusterCommand::ApiVersions => api_versions(&admin, out).await,
    };
    admin.close().await;
    result
}

/// `kafka-cluster api-versions` (KIP-1220): for every broker (bootstrap
/// servers) or controller (bootstrap controllers), by id, what its
/// ApiVersions answer holds, as `NodeApiVersions.toString(true)`; a node
/// that does not answer gets an `ERROR:` line and the command still succeeds.
async fn api_versions(admin: &Admin, out: &mut dyn Write) -> CmdResult {
    let mut nodes = admin.describe_cluster().await?.nodes;
    nodes.sort_by_key(|n| n.id);
    nodes.dedup_by_key(|n| n.id);
    for node in &nodes {
        let answer = admin
            .describe_features_with(DescribeFeaturesOptions {
                node_id: Some(node.id),
                timeout: None,
            })
            .await;
        let text = match answer {
            Ok(f) => render::node_api_versions_text(&f.api_versions),
            Err(e) => format!("ERROR: {}", describe_admin_error(&e)),
        };
        writeln!(out, "{} -> {text}", render::node_text(node))?;
    }
    Ok(())
}

// --------------------------------------------------------------------------
// features
// --------------------------------------------------------------------------

async fn features(args: FeaturesArgs, out: &mut dyn Write) -> CmdResult {
    match &args.command {
        FeaturesCommand::VersionMapping { release_version } => {
            return crate::feature_tools::version_mapping(release_version.as_deref(), out);
        }
        FeaturesCommand::FeatureDependencies { feature } => {
            return crate::feature_tools::feature_dependencies(
                feature,
                crate::feature_tools::Dialect::Features,
                out,
            );
        }
        _ => {}
    }
    let conn = &args.connection;
    let props = load_properties(conn.command_config.as_deref())?;
    let admin = admin_from(
        props,
        conn.bootstrap_server.as_deref(),
        conn.bootstrap_controller.as_deref(),
    )?;
    let result = match args.command {
        FeaturesCommand::Describe { node_id, output } => {
            if let Some(n) = node_id {
                if n < 0 {
                    return Err(CliError::new(format!(
                        "Invalid node id {n}: must be non-negative."
                    )));
                }
            }
            let f = admin
                .describe_features_with(DescribeFeaturesOptions {
                    node_id,
                    timeout: None,
                })
                .await?;
            match output {
                OutputFormat::Text => out.write_all(render::features_text(&f).as_bytes())?,
                OutputFormat::Json => write_json(out, &render::features_json(&f))?,
            }
            Ok(())
        }
        FeaturesCommand::Upgrade(a) => {
            let updates = feature_updates(
                a.metadata.as_deref(),
                a.release_version.as_deref(),
                &a.feature,
                UpgradeType::Upgrade,
                out,
            )?;
            update(&admin, "upgrade", updates, a.dry_run, out).await
        }
        FeaturesCommand::Downgrade(a) => {
            let kind = if a.r#unsafe {
                UpgradeType::UnsafeDowngrade
            } else {
                UpgradeType::SafeDowngrade
            };
            let updates = feature_updates(
                a.metadata.as_deref(),
                a.release_version.as_deref(),
                &a.feature,
                kind,
                out,
            )?;
            update(&admin, "downgrade", updates, a.dry_run, out).await
        }
        FeaturesCommand::Disable {
            feature,
            r#unsafe,
            dry_run,
        } => {
            let kind = if r#unsafe {
                UpgradeType::UnsafeDowngrade
            } else {
                UpgradeType::SafeDowngrade
            };
            let mut updates = BTreeMap::new();
            for f in feature {
                let update = FeatureUpdate {
                    max_version_level: 0,
                    upgrade_type: kind,
                };
                if updates.insert(f.clone(), update).is_some() {
                    return Err(CliError::new(format!(
                        "Feature {f} was specified more than once."
                    )));
                }
            }
            update(&admin, "disable", updates, dry_run, out).await
        }
        FeaturesCommand::VersionMapping { .. } | FeaturesCommand::FeatureDependencies { .. } => {
            Ok(())
        }
    };
    admin.close().await;
    result
}

fn parse_name_and_level(input: &str) -> Result<(String, i16), CliError> {
    let (name, level) = input.split_once('=').ok_or_else(|| {
        CliError::new(format!(
            "Can't parse feature=level string {input}: equals sign not found."
        ))
    })?;
    let level = level.trim();
    let parsed: i16 = level.parse().map_err(|_| {
        CliError::new(format!(
            "Can't parse feature=level string {input}: unable to parse {level} as a short."
        ))
    })?;
    Ok((name.trim().to_owned(), parsed))
}

fn feature_updates(
    metadata: Option<&str>,
    release_version: Option<&str>,
    features: &[String],
    kind: UpgradeType,
    out: &mut dyn Write,
) -> Result<BTreeMap<String, FeatureUpdate>, CliError> {
    if release_version.is_some() && (metadata.is_some() || !features.is_empty()) {
        return Err(CliError::new(
            "Can not specify `release-version` with other feature flags.",
        ));
    }
    let update = |level: i16| FeatureUpdate {
        max_version_level: level,
        upgrade_type: kind,
    };
    let mut updates = BTreeMap::new();
    if let Some(rv) = release_version {
        let mv = MetadataVersion::from_version_string(rv, true).map_err(CliError::new)?;
        updates.insert(
            kraft_admin::features::METADATA_VERSION.to_owned(),
            update(mv.feature_level()),
        );
        for (name, level) in kraft_admin::features::default_feature_levels(mv) {
            // Never ask to upgrade a feature to 0.
            if kind != UpgradeType::Upgrade || level > 0 {
                updates.insert(name.to_owned(), update(level));
            }
        }
        return Ok(updates);
    }
    if let Some(m) = metadata {
        writeln!(
            out,
            " `metadata` flag is deprecated and may be removed in a future release."
        )?;
        let mv = MetadataVersion::from_version_string(m, true).map_err(CliError::new)?;
        updates.insert(
            kraft_admin::features::METADATA_VERSION.to_owned(),
            update(mv.feature_level()),
        );
    }
    for f in features {
        let (name, level) = parse_name_and_level(f)?;
        if updates.insert(name.clone(), update(level)).is_some() {
            return Err(CliError::new(format!(
                "Feature {name} was specified more than once."
            )));
        }
    }
    Ok(updates)
}

async fn update(
    admin: &Admin,
    op: &str,
    updates: BTreeMap<String, FeatureUpdate>,
    dry_run: bool,
    out: &mut dyn Write,
) -> CmdResult {
    if updates.is_empty() {
        return Err(CliError::new(format!(
            "You must specify at least one feature to {op}"
        )));
    }
    let results = admin
        .update_features(
            &updates,
            UpdateFeaturesOptions {
                validate_only: dry_run,
                timeout: None,
            },
        )
        .await?;
    let mut failures = 0;
    for (name, result) in &results {
        let level = updates.get(name).map(|u| u.max_version_level).unwrap_or(0);
        match result {
            Err(e) => {
                let helper = if dry_run { "Can not " } else { "Could not " };
                let suffix = if op == "disable" {
                    format!("disable {name}")
                } else {
                    format!("{op} {name} to {level}")
                };
                writeln!(out, "{helper}{suffix}. {}", e.message())?;
                failures += 1;
            }
            Ok(()) => {
                let verb = if dry_run { " can be " } else { " was " };
                let obj = if op == "disable" {
                    "disabled.".to_owned()
                } else {
                    format!("{op}d to {level}.")
                };
                writeln!(out, "{name}{verb}{obj}")?;
            }
        }
    }
    if failures > 0 {
        return Err(CliError::new(format!(
            "{failures} out of {} operation(s) failed.",
            updates.len()
        )));
    }
    Ok(())
}
