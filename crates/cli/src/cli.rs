//! The command line grammar (clap derive). Flags follow Kafka's tools:
//! `kafka-metadata-quorum`, `kafka-cluster`, `kafka-features`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Operate a KRaft metadata quorum (wire-compatible with Apache Kafka 4.4).
#[derive(Debug, Parser)]
#[command(
    name = "kraft",
    version,
    propagate_version = true,
    after_help = "Examples:\n  kraft metadata-quorum --bootstrap-controller localhost:9093 describe --status\n  kraft metadata-quorum --bootstrap-controller localhost:9093 add-controller --controller-id 4\n  kraft cluster unregister-controller --bootstrap-controller localhost:9093 --id 4\n  kraft features --bootstrap-controller localhost:9093 describe\n\nSet KRAFT_LOG=debug to see what the admin client does."
)]
pub struct Cli {
    /// The tool to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The `kraft` tools.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Describe and change the KRaft metadata quorum (kafka-metadata-quorum).
    #[command(name = "metadata-quorum")]
    MetadataQuorum(MetadataQuorumArgs),
    /// Cluster id, controller registrations and endpoints (kafka-cluster).
    Cluster(ClusterArgs),
    /// Describe and change feature flags (kafka-features).
    Features(FeaturesArgs),
    /// Format and inspect storage directories (kafka-storage).
    Storage(crate::node_cmds::StorageArgs),
    /// Run a kraft controller node.
    Server(crate::node_cmds::ServerArgs),
    /// Start a local 3-controller quorum on loopback and walk through KIP-1141 and KIP-1312.
    Quickstart(crate::node_cmds::QuickstartArgs),
    /// Print a metadata log segment or snapshot as Kafka's kafka-dump-log does (DumpLogSegments).
    #[command(name = "dump-log")]
    DumpLog(crate::dump_log::DumpLogArgs),
    /// Browse a metadata snapshot or log segment as Kafka's kafka-metadata-shell does (MetadataShell).
    #[command(name = "metadata-shell")]
    MetadataShell(crate::metadata_shell::MetadataShellArgs),
}

/// Output format of describe commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormat {
    /// The same text as Kafka's tools.
    #[default]
    Text,
    /// JSON, for scripts.
    Json,
}

/// How to reach the cluster (`kafka-metadata-quorum` and `kafka-features` spelling).
#[derive(Debug, Args, Clone, Default)]
pub struct Connection {
    /// A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster.
    #[arg(long, value_name = "HOST:PORT[,...]", global = true)]
    pub bootstrap_server: Option<String>,
    /// A comma-separated list of host:port pairs to use for establishing the connection to the Kafka controllers.
    #[arg(long, value_name = "HOST:PORT[,...]", global = true)]
    pub bootstrap_controller: Option<String>,
    /// Property file containing configs to be passed to Admin Client. For add-controller, the file is used to specify the controller properties as well unless --controller-id is provided.
    #[arg(long, value_name = "FILE", global = true)]
    pub command_config: Option<PathBuf>,
}

const METADATA_QUORUM_EXAMPLES: &str = "Examples:
  kraft metadata-quorum --bootstrap-controller localhost:9093 describe --status
  kraft metadata-quorum --bootstrap-server localhost:9092 describe --replication --human-readable
  kraft metadata-quorum --bootstrap-controller localhost:9093 describe --status --output json
  kraft metadata-quorum --bootstrap-controller localhost:9093 add-controller --controller-id 4
  kraft metadata-quorum --bootstrap-controller localhost:9093 --command-config controller4.properties add-controller
  kraft metadata-quorum --bootstrap-controller localhost:9093 remove-controller --controller-id 4 --unregister
  kraft metadata-quorum --bootstrap-controller localhost:9093 reconcile --voters 1,2,3 --dry-run";

/// `kraft metadata-quorum`: describes kraft metadata quorum status and changes the voter set.
#[derive(Debug, Args)]
#[command(after_help = METADATA_QUORUM_EXAMPLES)]
pub struct MetadataQuorumArgs {
    /// Where the cluster is.
    #[command(flatten)]
    pub connection: Connection,
    /// The operation.
    #[command(subcommand)]
    pub command: MetadataQuorumCommand,
}

/// `kraft metadata-quorum` operations.
#[derive(Debug, Subcommand)]
pub enum MetadataQuorumCommand {
    /// Describe the metadata quorum info.
    #[command(after_help = "Examples:
  kraft metadata-quorum --bootstrap-controller localhost:9093 describe --status
  kraft metadata-quorum --bootstrap-controller localhost:9093 describe --replication --human-readable
  kraft metadata-quorum --bootstrap-server localhost:9092 describe --replication --output json")]
    Describe(DescribeArgs),
    /// Add a controller to the KRaft controller cluster.
    #[command(after_help = "Examples:
  # KIP-1141: the active controller (or, against Kafka 4.4, this tool) finds the
  # directory id and endpoints of observer 4:
  kraft metadata-quorum --bootstrap-controller localhost:9093 add-controller --controller-id 4
  # Read them from the new controller's own configuration and meta.properties:
  kraft metadata-quorum --bootstrap-controller localhost:9093 --command-config controller4.properties add-controller")]
    AddController(AddControllerArgs),
    /// Remove a controller from the KRaft controller cluster.
    #[command(after_help = "Examples:
  kraft metadata-quorum --bootstrap-controller localhost:9093 remove-controller --controller-id 3
  kraft metadata-quorum --bootstrap-controller localhost:9093 remove-controller -i 3 -d J8aAPcfLQt2bqs1JT_rMgQ
  # Stop controller 3 first, then remove it from the voters and drop its registration (KIP-1312):
  kraft metadata-quorum --bootstrap-controller localhost:9093 remove-controller --controller-id 3 --unregister")]
    RemoveController(RemoveControllerArgs),
    /// Change the voter set to the given controllers, one safe add-controller or remove-controller step at a time.
    #[command(after_help = "Examples:
  # Show the steps only:
  kraft metadata-quorum --bootstrap-controller localhost:9093 reconcile --voters 1,2,3,4,5 --dry-run
  # Grow to five voters (4 and 5 run as observers, formatted with --no-initial-controllers):
  kraft metadata-quorum --bootstrap-controller localhost:9093 reconcile --voters 1,2,3,4,5
  # Shrink back; with controller.quorum.auto.join.enable=true the removed controllers stay
  # observers until they are restarted:
  kraft metadata-quorum --bootstrap-controller localhost:9093 reconcile --voters 1,2,3")]
    Reconcile(ReconcileArgs),
}

/// `reconcile` flags.
#[derive(Debug, Args)]
pub struct ReconcileArgs {
    /// The target voter set: node ids separated by commas.
    #[arg(long, value_name = "ID[,ID...]")]
    pub voters: String,
    /// Print the plan (as add-controller/remove-controller commands), change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// How long each step may take to commit (and a new voter to catch up), and how long to wait for a controller that is down or lagging mid-plan.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    pub timeout_ms: u64,
    /// A replica more than this many offsets behind the high watermark is not counted as running.
    #[arg(long, value_name = "OFFSETS", default_value_t = 1000)]
    pub max_lag: i64,
    /// A replica whose last fetch is older than this (by the leader's clock) is not counted as running.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub max_fetch_age_ms: i64,
    /// Wait this long after each committed step before planning the next (time to look at the quorum or let it settle).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub step_delay_ms: u64,
}

/// `describe` flags.
#[derive(Debug, Args)]
pub struct DescribeArgs {
    /// A short summary of the quorum status and the other provides detailed information about the status of replication.
    #[arg(long, help_heading = "Status")]
    pub status: bool,
    /// Detailed information about the status of replication.
    #[arg(long, help_heading = "Replication")]
    pub replication: bool,
    /// Human-readable output.
    #[arg(long, help_heading = "Replication")]
    pub human_readable: bool,
    /// Output format: text (as kafka-metadata-quorum prints it) or json.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,
}

/// `add-controller` flags.
#[derive(Debug, Args)]
pub struct AddControllerArgs {
    /// The id of the controller to add. This option should be used with bootstrap controller.
    #[arg(short = 'i', long, allow_negative_numbers = true, value_name = "ID")]
    pub controller_id: Option<i32>,
    /// True if we should print what would be done, but not do it.
    #[arg(long)]
    pub dry_run: bool,
}

/// `remove-controller` flags.
#[derive(Debug, Args)]
pub struct RemoveControllerArgs {
    /// The id of the controller to remove.
    #[arg(short = 'i', long, allow_negative_numbers = true, value_name = "ID")]
    pub controller_id: i32,
    /// The directory ID of the controller to remove (default: the one in the current voter set).
    #[arg(short = 'd', long, value_name = "UUID")]
    pub controller_directory_id: Option<String>,
    /// True if we should print what would be done, but not do it.
    #[arg(long)]
    pub dry_run: bool,
    /// If set, also unregister the controller after successfully removing it from the voter set.
    #[arg(long)]
    pub unregister: bool,
}

/// How to reach the cluster (`kafka-cluster` spelling, with short flags).
#[derive(Debug, Args, Clone, Default)]
pub struct ClusterConnection {
    /// A list of host/port pairs to use for establishing the connection to the Kafka cluster.
    #[arg(short = 'b', long, value_name = "HOST:PORT[,...]", global = true)]
    pub bootstrap_server: Option<String>,
    /// A list of host/port pairs to use for establishing the connection to the KRaft controllers.
    #[arg(short = 'C', long, value_name = "HOST:PORT[,...]", global = true)]
    pub bootstrap_controller: Option<String>,
    /// Config properties file for the Admin client.
    #[arg(short = 'c', long, value_name = "FILE", global = true)]
    pub command_config: Option<PathBuf>,
    /// (DEPRECATED) A property file containing configurations for the Admin client. This option will be removed in a future version. Use --command-config instead.
    #[arg(long, value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
}

/// `kraft cluster`: the Kafka cluster tool.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  kraft cluster cluster-id --bootstrap-controller localhost:9093
  kraft cluster list-endpoints --bootstrap-controller localhost:9093
  kraft cluster unregister --bootstrap-controller localhost:9093 --id 5
  kraft cluster unregister-controller --bootstrap-controller localhost:9093 --id 4
  kraft cluster api-versions --bootstrap-controller localhost:9093")]
pub struct ClusterArgs {
    /// Where the cluster is.
    #[command(flatten)]
    pub connection: ClusterConnection,
    /// The operation.
    #[command(subcommand)]
    pub command: ClusterCommand,
}

/// `kraft cluster` operations.
#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Get information about the ID of a cluster.
    #[command(
        after_help = "Example:\n  kraft cluster cluster-id --bootstrap-controller localhost:9093"
    )]
    ClusterId {
        /// Output format: text or json.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        output: OutputFormat,
    },
    /// Unregister a broker.
    #[command(
        after_help = "Stop the broker first: a running broker that loses its registration does not register again until it restarts.

Examples:
  kraft cluster unregister --bootstrap-controller localhost:9093 --id 5
  kraft cluster unregister --bootstrap-server localhost:9092 -i 5"
    )]
    Unregister {
        /// The ID of the broker to unregister.
        #[arg(
            short = 'i',
            long = "id",
            allow_negative_numbers = true,
            value_name = "ID"
        )]
        id: i32,
    },
    /// Unregister a controller.
    #[command(
        after_help = "Stop the controller first: a running controller registers itself again.

Example:
  kraft cluster unregister-controller --bootstrap-controller localhost:9093 --id 4"
    )]
    UnregisterController {
        /// The ID of the controller to unregister.
        #[arg(
            short = 'i',
            long = "id",
            visible_alias = "controller-id",
            allow_negative_numbers = true,
            value_name = "ID"
        )]
        id: i32,
    },
    /// List endpoints.
    #[command(after_help = "Examples:
  kraft cluster list-endpoints --bootstrap-controller localhost:9093
  kraft cluster list-endpoints --bootstrap-server localhost:9092 --include-fenced-brokers")]
    ListEndpoints {
        /// Whether to include fenced brokers when listing broker endpoints.
        #[arg(long)]
        include_fenced_brokers: bool,
    },
    /// Get information about the api versions of the brokers or controllers.
    #[command(after_help = "Examples:
  kraft cluster api-versions --bootstrap-controller localhost:9093
  kraft cluster api-versions --bootstrap-server localhost:9092")]
    ApiVersions,
}

/// `kraft features`: manages feature flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  kraft features --bootstrap-controller localhost:9093 describe
  kraft features --bootstrap-controller localhost:9093 upgrade --release-version 4.4-IV2 --dry-run
  kraft features --bootstrap-controller localhost:9093 upgrade --feature kraft.version=1
  kraft features version-mapping --release-version 3.9
  kraft features feature-dependencies --feature eligible.leader.replicas.version=1")]
pub struct FeaturesArgs {
    /// Where the cluster is.
    #[command(flatten)]
    pub connection: Connection,
    /// The operation.
    #[command(subcommand)]
    pub command: FeaturesCommand,
}

/// `kraft features` operations.
#[derive(Debug, Subcommand)]
pub enum FeaturesCommand {
    /// Describes the current active feature flags.
    #[command(
        after_help = "Example:\n  kraft features --bootstrap-controller localhost:9093 describe"
    )]
    Describe {
        /// The node id to which the requests should be sent. If not specified, the requests will be sent to an arbitrary controller/broker.
        #[arg(long, allow_negative_numbers = true, value_name = "ID")]
        node_id: Option<i32>,
        /// Output format: text or json.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        output: OutputFormat,
    },
    /// Upgrade one or more feature flags.
    #[command(after_help = "Examples:
  kraft features --bootstrap-controller localhost:9093 upgrade --release-version 4.4-IV2
  kraft features --bootstrap-controller localhost:9093 upgrade --feature kraft.version=1 --dry-run")]
    Upgrade(UpgradeArgs),
    /// Downgrade one or more feature flags.
    #[command(
        after_help = "Example:\n  kraft features --bootstrap-controller localhost:9093 downgrade --feature share.version=1 --dry-run"
    )]
    Downgrade(DowngradeArgs),
    /// Disable one or more feature flags. This is the same as downgrading the version to zero.
    #[command(
        after_help = "Example:\n  kraft features --bootstrap-controller localhost:9093 disable --feature streams.version --dry-run"
    )]
    Disable {
        /// A feature flag to disable.
        #[arg(long)]
        feature: Vec<String>,
        /// Disable this feature flag even if it may irreversibly destroy metadata.
        #[arg(long)]
        r#unsafe: bool,
        /// Perform a dry-run of this disable operation.
        #[arg(long)]
        dry_run: bool,
    },
    /// Look up the corresponding features for a given metadata version. Using the command with no --release-version argument will return the mapping for the latest stable metadata version.
    #[command(after_help = "Example:\n  kraft features version-mapping --release-version 3.9-IV0")]
    VersionMapping {
        /// The release version to use for the corresponding feature mapping. The minimum is 3.3-IV3; the default is 4.4-IV2.
        #[arg(long)]
        release_version: Option<String>,
    },
    /// Look up dependencies for a given feature version. If the feature is not known or the version not yet defined, an error is thrown. Multiple features can be specified.
    #[command(
        after_help = "Example:\n  kraft features feature-dependencies --feature eligible.leader.replicas.version=1 --feature metadata.version=33"
    )]
    FeatureDependencies {
        /// The feature and version to look up dependencies for, in feature=version format. For example: `metadata.version=5`.
        #[arg(long, required = true, value_name = "FEATURE=VERSION")]
        feature: Vec<String>,
    },
}

/// `features upgrade` flags.
#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// DEPRECATED -- The level to which we should upgrade the metadata. For example, 3.3-IV3.
    #[arg(long)]
    pub metadata: Option<String>,
    /// The release version to update all features to. For example, 3.9-IV0 will set metadata.version=21 and kraft.version=1.
    #[arg(long)]
    pub release_version: Option<String>,
    /// A feature upgrade we should perform, in feature=level format. For example: `metadata.version=5`.
    #[arg(long)]
    pub feature: Vec<String>,
    /// Validate this upgrade, but do not perform it.
    #[arg(long)]
    pub dry_run: bool,
}

/// `features downgrade` flags.
#[derive(Debug, Args)]
pub struct DowngradeArgs {
    /// DEPRECATED -- The level to which we should downgrade the metadata. For example, 3.3-IV0.
    #[arg(long)]
    pub metadata: Option<String>,
    /// The release version to downgrade all features to. For example, 3.9-IV0 will set metadata.version=21 and kraft.version=1.
    #[arg(long)]
    pub release_version: Option<String>,
    /// A feature downgrade we should perform, in feature=level format. For example: `metadata.version=5`.
    #[arg(long)]
    pub feature: Vec<String>,
    /// Perform this downgrade even if it may irreversibly destroy metadata.
    #[arg(long)]
    pub r#unsafe: bool,
    /// Validate this downgrade, but do not perform it.
    #[arg(long)]
    pub dry_run: bool,
}
