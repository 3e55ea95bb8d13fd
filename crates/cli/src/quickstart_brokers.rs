//! `kraft quickstart --with-brokers`: unmodified Apache Kafka 4.4.0 Java
//! brokers on the quickstart's kraft-rs controllers.
//!
//! The Kafka jars come from Maven Central through Maven (a small pom written
//! into the quickstart's data directory, resolved with
//! `mvn dependency:build-classpath` into `~/.m2`); the brokers (`kafka.Kafka`
//! with `process.roles=broker`) and Kafka's tools (`StorageTool`,
//! `TopicCommand`, the console producer and consumer) run as their classes
//! on that classpath, shown as the `kafka-*.sh` script an operator would
//! type. Without Java 17+ or Maven nothing starts: [`JavaTools::detect`]
//! fails with a how-to message and exit status [`EXIT_NO_JAVA`].
//!
//! `KRAFT_JAVA` and `KRAFT_MVN` name the `java` and `mvn` executables
//! (default: `$JAVA_HOME/bin/java` when `JAVA_HOME` is set, else `java`; and
//! `mvn`, both looked up on `PATH`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use kraft_admin::{Admin, AdminConfig, DescribeClusterOptions};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};

use crate::commands::CliError;

/// The Kafka release the brokers and tools come from.
pub const KAFKA_VERSION: &str = "4.4.0";

/// Exit status of `kraft quickstart --with-brokers` when Java 17+ or Maven
/// is missing (nothing was started).
pub const EXIT_NO_JAVA: i32 = 2;

/// Node ids of the Java brokers.
pub const BROKER_IDS: [i32; 3] = [11, 12, 13];

/// The topic the quickstart creates.
pub const TOPIC: &str = "quickstart";

/// The lines the quickstart produces and expects to consume back.
pub const DEMO_LINES: [&str; 6] = ["one", "two", "three", "four", "five", "six"];

/// The oldest Java release Kafka 4.4 brokers run on.
const MIN_JAVA: u32 = 17;

/// How long the brokers may take to be registered and unfenced.
const UNFENCE_TIMEOUT: Duration = Duration::from_secs(120);

/// How long one Kafka tool may run.
const TOOL_TIMEOUT: Duration = Duration::from_secs(90);

/// How long Maven may take (the first run downloads the jars).
const MAVEN_TIMEOUT: Duration = Duration::from_secs(900);

/// How long the brokers get for a controlled shutdown after SIGTERM.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// The Maven project whose runtime classpath is the Kafka server and tools
/// (as tests/interop/kafka-quorum/pom.xml, without the interop classes).
const POM: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by `kraft quickstart` (with brokers): the runtime classpath of
     Apache Kafka 4.4.0's broker (kafka_2.13) and tools (kafka-tools), from
     Maven Central. `mvn dependency:build-classpath` lists it. -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.kraftrs</groupId>
  <artifactId>kraft-quickstart-kafka</artifactId>
  <version>0.1.0</version>
  <packaging>pom</packaging>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <kafka.version>4.4.0</kafka.version>
  </properties>
  <dependencies>
    <!-- kafka.Kafka (the broker) and kafka.tools.StorageTool -->
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>${kafka.version}</version>
    </dependency>
    <!-- TopicCommand, ConsoleProducer, ConsoleConsumer -->
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-tools</artifactId>
      <version>${kafka.version}</version>
    </dependency>
    <!-- Kafka logs through SLF4J; route it to log4j2 -->
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>2.25.5</version>
      <scope>runtime</scope>
    </dependency>
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-dependency-plugin</artifactId>
          <version>3.8.1</version>
          <configuration>
            <includeScope>runtime</includeScope>
          </configuration>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
"#;

/// Broker logs: info, to the broker's stdout (its log file).
const BROKER_LOG4J2: &str = "status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.stdout.ref = STDOUT
";

/// Tool logs: warnings, to a file (the tools' own output stays on the terminal).
fn tools_log4j2(file: &Path) -> String {
    format!(
        "status = error
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = {}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.file.ref = FILE
",
        file.display()
    )
}

/// JVM flags of the brokers: a small heap and a fast start (kafka-quorum.sh's).
const BROKER_JVM: &[&str] = &[
    "-Xms64m",
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Djava.awt.headless=true",
];

/// JVM flags of the tools.
const TOOL_JVM: &[&str] = &[
    "-Xms32m",
    "-Xmx192m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Djava.awt.headless=true",
];

/// The Kafka scripts the quickstart shows, and the classes it runs for them.
const SCRIPTS: &[(&str, &str)] = &[
    ("kafka-storage.sh", "kafka.tools.StorageTool"),
    ("kafka-server-start.sh", "kafka.Kafka"),
    ("kafka-topics.sh", "org.apache.kafka.tools.TopicCommand"),
    (
        "kafka-console-producer.sh",
        "org.apache.kafka.tools.ConsoleProducer",
    ),
    (
        "kafka-console-consumer.sh",
        "org.apache.kafka.tools.consumer.ConsoleConsumer",
    ),
];

fn class_of(script: &str) -> &'static str {
    SCRIPTS
        .iter()
        .find(|(s, _)| *s == script)
        .map(|(_, c)| *c)
        .unwrap_or("kafka.Kafka")
}

/// The `java` and `mvn` the quickstart runs, checked by [`JavaTools::detect`].
#[derive(Debug, Clone)]
pub struct JavaTools {
    /// The `java` executable.
    pub java: PathBuf,
    /// The `mvn` executable.
    pub mvn: PathBuf,
    /// What `java -version` said (its version line).
    pub java_version: String,
    /// What `mvn -v` said (its first line).
    pub mvn_version: String,
}

/// The `java` to run: `KRAFT_JAVA`, else `$JAVA_HOME/bin/java`, else `java`.
fn java_command() -> PathBuf {
    if let Some(j) = std::env::var_os("KRAFT_JAVA").filter(|v| !v.is_empty()) {
        return PathBuf::from(j);
    }
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|v| !v.is_empty()) {
        let java = Path::new(&home).join("bin").join("java");
        if java.is_file() {
            return java;
        }
    }
    PathBuf::from("java")
}

/// The `mvn` to run: `KRAFT_MVN`, else `mvn`.
fn mvn_command() -> PathBuf {
    std::env::var_os("KRAFT_MVN")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("mvn"))
}

/// The major release in `java -version` output: `17` from
/// `openjdk version "17.0.15" 2025-04-15`, `8` from `java version "1.8.0_301"`.
pub fn java_major(version_output: &str) -> Option<u32> {
    let line = version_output.lines().find(|l| l.contains(" version \""))?;
    let quoted = line.split('"').nth(1)?;
    let mut parts = quoted.split(|c: char| !c.is_ascii_digit());
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

fn probe(program: &Path, arg: &str) -> Result<String, String> {
    match std::process::Command::new(program)
        .arg(arg)
        .stdin(Stdio::null())
        .output()
    {
        Err(e) => Err(format!("not found (`{} {arg}`: {e})", program.display())),
        Ok(o) => {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stderr),
                String::from_utf8_lossy(&o.stdout)
            );
            if o.status.success() {
                Ok(text)
            } else {
                let first = text.lines().next().unwrap_or("").trim().to_owned();
                Err(format!(
                    "`{} {arg}` failed ({}): {first}",
                    program.display(),
                    o.status
                ))
            }
        }
    }
}

impl JavaTools {
    /// Checks that `java -version` runs and reports Java 17+ and that
    /// `mvn -v` runs; otherwise an error (exit status [`EXIT_NO_JAVA`]) that
    /// says what is missing and how to get it.
    pub fn detect() -> Result<JavaTools, CliError> {
        let java = java_command();
        let mvn = mvn_command();
        let java_check = probe(&java, "-version").and_then(|text| {
            let line = text
                .lines()
                .find(|l| l.contains(" version \""))
                .unwrap_or_else(|| text.lines().next().unwrap_or(""))
                .trim()
                .to_owned();
            match java_major(&text) {
                Some(major) if major >= MIN_JAVA => Ok(line),
                Some(major) => Err(format!(
                    "{} is Java {major} ({line}); Kafka {KAFKA_VERSION} needs Java {MIN_JAVA} or newer",
                    java.display()
                )),
                None => Err(format!(
                    "cannot tell the Java release from `{} -version`: {line}",
                    java.display()
                )),
            }
        });
        let mvn_check = probe(&mvn, "-v").map(|text| {
            let text = strip_ansi(&text);
            text.lines()
                .find(|l| l.contains("Maven"))
                .unwrap_or_else(|| text.lines().next().unwrap_or(""))
                .trim()
                .to_owned()
        });
        match (java_check, mvn_check) {
            (Ok(java_version), Ok(mvn_version)) => Ok(JavaTools {
                java,
                mvn,
                java_version,
                mvn_version,
            }),
            (java_check, mvn_check) => Err(CliError {
                message: how_to_message(&java_check, &mvn_check),
                exit_code: EXIT_NO_JAVA,
            }),
        }
    }
}

/// `text` without ANSI escape sequences (Maven colours its version line).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ parameters... final letter
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn how_to_message(java: &Result<String, String>, mvn: &Result<String, String>) -> String {
    let state = |r: &Result<String, String>| match r {
        Ok(v) => format!("ok, {v}"),
        Err(e) => e.clone(),
    };
    format!(
        "kraft quickstart --with-brokers runs Apache Kafka {KAFKA_VERSION}'s Java brokers and needs Java {MIN_JAVA}+ and Maven:
  java: {}
  mvn:  {}
Install them and run it again, for example:
  Debian/Ubuntu:  sudo apt-get install openjdk-17-jdk-headless maven
  macOS:          brew install openjdk@17 maven
  elsewhere:      any JDK 17 or newer (e.g. https://adoptium.net) and Maven (https://maven.apache.org) with java and mvn on PATH
KRAFT_JAVA and KRAFT_MVN name other java and mvn executables (JAVA_HOME is honoured too).
Nothing was started. `kraft quickstart` without --with-brokers runs the controller quorum alone.",
        state(java),
        state(mvn)
    )
}

fn io_error(path: &Path, e: std::io::Error) -> CliError {
    CliError::new(format!("{}: {e}", path.display()))
}

fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| io_error(path, e))
}

/// The last `n` lines of a file, for an error message.
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Where the Java side keeps its files: `DIR/kafka`.
fn kafka_dir(dir: &Path) -> PathBuf {
    dir.join("kafka")
}

/// Writes the pom into `DIR/kafka` and resolves the Kafka jars with Maven
/// (offline first, from `~/.m2`; then from Maven Central), showing the
/// command. Returns the classpath.
pub async fn resolve_classpath(
    tools: &JavaTools,
    dir: &Path,
    out: &mut dyn Write,
) -> Result<String, CliError> {
    let kdir = kafka_dir(dir);
    std::fs::create_dir_all(&kdir).map_err(|e| io_error(&kdir, e))?;
    let pom = kdir.join("pom.xml");
    let cp_file = kdir.join("classpath.txt");
    let log = kdir.join("mvn.log");
    write_file(&pom, POM)?;
    let _ = writeln!(
        out,
        "\nJava brokers: {} and {}",
        tools.java_version, tools.mvn_version
    );
    let _ = writeln!(
        out,
        "Resolving the Kafka {KAFKA_VERSION} jars with Maven (the first run downloads about 60 MB \
         from Maven Central into ~/.m2; later runs work offline)."
    );
    let goal = [
        "-f".to_owned(),
        pom.display().to_string(),
        "dependency:build-classpath".to_owned(),
        format!("-Dmdep.outputFile={}", cp_file.display()),
    ];
    let mut resolved = false;
    for offline in [true, false] {
        let mut args: Vec<String> = vec!["-q".into(), "-B".into()];
        if offline {
            args.push("-o".into());
        }
        args.extend(goal.iter().cloned());
        let _ = writeln!(out, "\n$ mvn {}", args.join(" "));
        let _ = out.flush();
        let log_file = std::fs::File::create(&log).map_err(|e| io_error(&log, e))?;
        let log_err = log_file.try_clone().map_err(|e| io_error(&log, e))?;
        let mut child = Command::new(&tools.mvn)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(log_err)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| CliError::new(format!("cannot run {}: {e}", tools.mvn.display())))?;
        let status = tokio::time::timeout(MAVEN_TIMEOUT, child.wait())
            .await
            .map_err(|_| {
                CliError::new(format!(
                    "mvn did not finish within {} s (log: {})",
                    MAVEN_TIMEOUT.as_secs(),
                    log.display()
                ))
            })?
            .map_err(|e| CliError::new(format!("mvn: {e}")))?;
        if status.success() && cp_file.is_file() {
            resolved = true;
            break;
        }
        if offline {
            let _ = writeln!(
                out,
                "(offline resolution from ~/.m2 failed: trying again with Maven Central)"
            );
        }
    }
    if !resolved {
        return Err(CliError::new(format!(
            "maven could not resolve Kafka {KAFKA_VERSION} (log: {}):\n{}",
            log.display(),
            strip_ansi(&tail(&log, 30))
        )));
    }
    let cp = std::fs::read_to_string(&cp_file)
        .map_err(|e| io_error(&cp_file, e))?
        .trim()
        .to_owned();
    if cp.is_empty() {
        return Err(CliError::new(format!(
            "{}: empty classpath",
            cp_file.display()
        )));
    }
    let jars = std::env::split_paths(&cp).count();
    let _ = writeln!(out, "{jars} jars listed in {}", cp_file.display());
    Ok(cp)
}

/// One running Java broker.
struct Broker {
    id: i32,
    port: u16,
    child: Child,
    log: PathBuf,
}

/// The Java brokers of the quickstart, stopped by [`Brokers::stop`] (or
/// killed when dropped).
pub struct Brokers {
    brokers: Vec<Broker>,
}

/// What a Kafka tool printed.
struct ToolRun {
    ok: bool,
    status: String,
    stdout: String,
    stderr: String,
}

/// Runs the Kafka tools on the classpath.
struct Kafka<'a> {
    tools: &'a JavaTools,
    classpath: &'a str,
    kdir: PathBuf,
}

impl Kafka<'_> {
    fn java(&self, jvm: &[&str], log4j: &Path) -> Command {
        let mut cmd = Command::new(&self.tools.java);
        cmd.args(jvm)
            .arg(format!("-Dlog4j2.configurationFile={}", log4j.display()))
            .arg("-cp")
            .arg(self.classpath)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        cmd
    }

    /// Runs `script`'s class with `args` (and `input` on stdin), bounded by
    /// [`TOOL_TIMEOUT`].
    async fn run(
        &self,
        script: &str,
        args: &[String],
        input: Option<&str>,
    ) -> Result<ToolRun, CliError> {
        let mut cmd = self.java(TOOL_JVM, &self.kdir.join("log4j2-tools.properties"));
        cmd.arg(class_of(script))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if input.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| CliError::new(format!("cannot run {}: {e}", self.tools.java.display())))?;
        if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
            stdin
                .write_all(text.as_bytes())
                .await
                .map_err(|e| CliError::new(format!("{script}: cannot write its input: {e}")))?;
            drop(stdin);
        }
        let output = tokio::time::timeout(TOOL_TIMEOUT, child.wait_with_output())
            .await
            .map_err(|_| {
                CliError::new(format!(
                    "{script} did not finish within {} s",
                    TOOL_TIMEOUT.as_secs()
                ))
            })?
            .map_err(|e| CliError::new(format!("{script}: {e}")))?;
        Ok(ToolRun {
            ok: output.status.success(),
            status: output.status.to_string(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }

    /// Shows `$ script args`, runs it, prints what it printed and fails
    /// when it fails.
    async fn show(
        &self,
        out: &mut dyn Write,
        script: &str,
        args: &[String],
    ) -> Result<ToolRun, CliError> {
        let _ = writeln!(out, "\n$ {script} {}", args.join(" "));
        let _ = out.flush();
        let run = self.run(script, args, None).await?;
        let _ = write!(out, "{}{}", run.stdout, run.stderr);
        if !run.ok {
            return Err(CliError::new(format!(
                "{script} failed ({}); tool warnings are in {}",
                run.status,
                self.kdir.join("tools.log").display()
            )));
        }
        Ok(run)
    }
}

fn broker_properties(dir: &Path, id: i32, port: u16, controllers: &str) -> String {
    let data = dir.join(format!("broker-{id}"));
    format!(
        "# Apache Kafka {KAFKA_VERSION} broker {id}, written by `kraft quickstart --with-brokers`.
process.roles=broker
node.id={id}
listeners=PLAINTEXT://127.0.0.1:{port}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.quorum.bootstrap.servers={controllers}
log.dirs={}
# Small for a quick start on one machine (Kafka's default is 50).
offsets.topic.num.partitions=3
# The console consumer's group starts at once (as in Kafka's config/server.properties).
group.initial.rebalance.delay.ms=0
",
        data.display()
    )
}

/// Starts three Java brokers on the controllers `controllers`
/// (host:port,...; `bootstrap_controller` is one of them), waits until they
/// are registered and unfenced, creates a topic and shows a produce/consume
/// round trip. On failure the brokers are killed and the error carries the
/// tail of their logs.
pub async fn start(
    tools: &JavaTools,
    classpath: &str,
    dir: &Path,
    cluster_id: &str,
    controllers: &str,
    bootstrap_controller: &str,
    out: &mut dyn Write,
) -> Result<Brokers, CliError> {
    let kdir = kafka_dir(dir);
    write_file(&kdir.join("log4j2-broker.properties"), BROKER_LOG4J2)?;
    write_file(
        &kdir.join("log4j2-tools.properties"),
        &tools_log4j2(&kdir.join("tools.log")),
    )?;
    let kafka = Kafka {
        tools,
        classpath,
        kdir: kdir.clone(),
    };
    let _ = writeln!(
        out,
        "\nNow three Apache Kafka {KAFKA_VERSION} brokers ({}) on these controllers. Each kafka-*.sh \
         command below runs its class from the Maven jars:\n  java -cp \"$(cat {})\" CLASS ARGS",
        BROKER_IDS.map(|i| i.to_string()).join(", "),
        kdir.join("classpath.txt").display()
    );
    for (script, class) in SCRIPTS {
        let _ = writeln!(out, "  {script:<26} {class}");
    }

    // Format the three log directories (the three StorageTool runs at once;
    // each command is shown with its output once all are done).
    let mut ports = Vec::new();
    let mut configs = Vec::new();
    for id in BROKER_IDS {
        let port = crate::node_cmds::free_port()?;
        let props = dir.join(format!("broker-{id}.properties"));
        write_file(&props, &broker_properties(dir, id, port, controllers))?;
        ports.push(port);
        configs.push(props);
    }
    let format_args: Vec<Vec<String>> = configs
        .iter()
        .map(|props| {
            vec![
                "format".to_owned(),
                "--config".to_owned(),
                props.display().to_string(),
                "--cluster-id".to_owned(),
                cluster_id.to_owned(),
            ]
        })
        .collect();
    let (a, b, c) = tokio::join!(
        kafka.run("kafka-storage.sh", &format_args[0], None),
        kafka.run("kafka-storage.sh", &format_args[1], None),
        kafka.run("kafka-storage.sh", &format_args[2], None),
    );
    let runs = [a, b, c];
    for ((id, run), args) in BROKER_IDS.iter().zip(runs).zip(&format_args) {
        let run = run?;
        let _ = writeln!(out, "\n$ kafka-storage.sh {}", args.join(" "));
        let _ = write!(out, "{}", run.stdout);
        if !run.ok {
            return Err(CliError::new(format!(
                "kafka-storage.sh format of broker {id} failed ({}):\n{}{}",
                run.status, run.stdout, run.stderr
            )));
        }
    }

    // Start them.
    let mut brokers = Brokers {
        brokers: Vec::new(),
    };
    for ((id, port), props) in BROKER_IDS.iter().zip(&ports).zip(&configs) {
        let log = dir.join(format!("broker-{id}.log"));
        let _ = writeln!(
            out,
            "\n$ kafka-server-start.sh {} > {} 2>&1 &",
            props.display(),
            log.display()
        );
        let file = std::fs::File::create(&log).map_err(|e| io_error(&log, e))?;
        let file_err = file.try_clone().map_err(|e| io_error(&log, e))?;
        let child = kafka
            .java(BROKER_JVM, &kdir.join("log4j2-broker.properties"))
            .arg(class_of("kafka-server-start.sh"))
            .arg(props)
            .stdout(file)
            .stderr(file_err)
            .spawn()
            .map_err(|e| CliError::new(format!("cannot start broker {id}: {e}")))?;
        if let Some(pid) = child.id() {
            write_file(&dir.join(format!("broker-{id}.pid")), &format!("{pid}\n"))?;
        }
        brokers.brokers.push(Broker {
            id: *id,
            port: *port,
            child,
            log,
        });
    }
    match brokers.demo(&kafka, bootstrap_controller, out).await {
        Ok(()) => Ok(brokers),
        Err(mut e) => {
            for b in &brokers.brokers {
                e.message.push_str(&format!(
                    "\n--- last lines of {} ---\n{}",
                    b.log.display(),
                    tail(&b.log, 15)
                ));
            }
            brokers.kill().await;
            Err(e)
        }
    }
}

impl Brokers {
    /// `host:port,...` of the brokers.
    pub fn bootstrap_servers(&self) -> String {
        self.brokers
            .iter()
            .map(|b| format!("127.0.0.1:{}", b.port))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The broker log files.
    pub fn logs(&self) -> Vec<PathBuf> {
        self.brokers.iter().map(|b| b.log.clone()).collect()
    }

    async fn demo(
        &mut self,
        kafka: &Kafka<'_>,
        bootstrap_controller: &str,
        out: &mut dyn Write,
    ) -> Result<(), CliError> {
        let servers = self.bootstrap_servers();
        self.wait_unfenced(&servers).await?;
        let _ = writeln!(
            out,
            "\nbrokers {} are registered and unfenced",
            BROKER_IDS.map(|i| i.to_string()).join(", ")
        );
        crate::node_cmds::show(
            out,
            &format!(
                "cluster list-endpoints --bootstrap-server {servers} --include-fenced-brokers"
            ),
        )
        .await?;
        crate::node_cmds::show(
            out,
            &format!(
                "metadata-quorum --bootstrap-controller {bootstrap_controller} describe --replication"
            ),
        )
        .await?;

        let first = format!("127.0.0.1:{}", self.brokers[0].port);
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        kafka
            .show(
                out,
                "kafka-topics.sh",
                &s(&[
                    "--bootstrap-server",
                    &first,
                    "--create",
                    "--topic",
                    TOPIC,
                    "--partitions",
                    "3",
                    "--replication-factor",
                    "3",
                ]),
            )
            .await?;
        kafka
            .show(
                out,
                "kafka-topics.sh",
                &s(&["--bootstrap-server", &first, "--describe", "--topic", TOPIC]),
            )
            .await?;

        // Produce through one broker, consume through another.
        let input: String = DEMO_LINES.iter().map(|l| format!("{l}\n")).collect();
        let producer_args = s(&["--bootstrap-server", &first, "--topic", TOPIC]);
        let _ = writeln!(
            out,
            "\n$ printf '{}' | kafka-console-producer.sh {}",
            input.replace('\n', "\\n"),
            producer_args.join(" ")
        );
        let _ = out.flush();
        let run = kafka
            .run("kafka-console-producer.sh", &producer_args, Some(&input))
            .await?;
        let _ = write!(out, "{}{}", run.stdout, run.stderr);
        if !run.ok {
            return Err(CliError::new(format!(
                "kafka-console-producer.sh failed ({})",
                run.status
            )));
        }
        let second = format!("127.0.0.1:{}", self.brokers[1].port);
        let max = DEMO_LINES.len().to_string();
        let run = kafka
            .show(
                out,
                "kafka-console-consumer.sh",
                &s(&[
                    "--bootstrap-server",
                    &second,
                    "--topic",
                    TOPIC,
                    "--from-beginning",
                    "--max-messages",
                    &max,
                    "--timeout-ms",
                    "30000",
                ]),
            )
            .await?;
        let mut consumed: Vec<&str> = run.stdout.lines().collect();
        let mut produced: Vec<&str> = DEMO_LINES.to_vec();
        consumed.sort_unstable();
        produced.sort_unstable();
        if consumed != produced {
            return Err(CliError::new(format!(
                "round trip failed: produced {DEMO_LINES:?}, consumed {:?}",
                run.stdout.lines().collect::<Vec<_>>()
            )));
        }
        let _ = writeln!(
            out,
            "\nround trip: the {} lines produced through broker {} were consumed through broker {}",
            DEMO_LINES.len(),
            self.brokers[0].id,
            self.brokers[1].id
        );
        Ok(())
    }

    /// Waits until every broker is registered and unfenced, as a broker's
    /// DescribeCluster (with fenced brokers) reports it.
    async fn wait_unfenced(&mut self, servers: &str) -> Result<(), CliError> {
        let admin = Admin::new(AdminConfig::bootstrap_servers(servers)?);
        let start = tokio::time::Instant::now();
        let result = 'poll: loop {
            for b in &mut self.brokers {
                if let Ok(Some(status)) = b.child.try_wait() {
                    break 'poll Err(CliError::new(format!(
                        "broker {} exited ({status}); its log: {}",
                        b.id,
                        b.log.display()
                    )));
                }
            }
            let described = admin
                .describe_cluster_with(DescribeClusterOptions {
                    include_fenced_brokers: true,
                    timeout: Some(Duration::from_secs(2)),
                })
                .await;
            if let Ok(c) = described {
                let unfenced = BROKER_IDS
                    .iter()
                    .all(|id| c.nodes.iter().any(|n| n.id == *id && !n.is_fenced));
                if unfenced {
                    break Ok(());
                }
            }
            if start.elapsed() > UNFENCE_TIMEOUT {
                break Err(CliError::new(format!(
                    "quickstart: the brokers were not all registered and unfenced within {} s",
                    UNFENCE_TIMEOUT.as_secs()
                )));
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        };
        admin.close().await;
        result
    }

    /// Stops the brokers: SIGTERM (a controlled shutdown through the
    /// controllers, which must still run), a bounded wait, then SIGKILL.
    pub async fn stop(mut self, out: &mut dyn Write) {
        let ids = self
            .brokers
            .iter()
            .map(|b| b.id.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(out, "stopping brokers {ids} (SIGTERM: controlled shutdown)");
        let _ = out.flush();
        for b in &mut self.brokers {
            terminate(&mut b.child).await;
        }
        let deadline = tokio::time::Instant::now() + STOP_TIMEOUT;
        let mut statuses = Vec::new();
        for b in &mut self.brokers {
            let status = match tokio::time::timeout_at(deadline, b.child.wait()).await {
                Ok(Ok(status)) => status.to_string(),
                Ok(Err(e)) => format!("wait failed: {e}"),
                Err(_) => {
                    let _ = b.child.start_kill();
                    let _ = b.child.wait().await;
                    format!("killed after {} s", STOP_TIMEOUT.as_secs())
                }
            };
            statuses.push(format!("{}: {status}", b.id));
        }
        let _ = writeln!(out, "stopped brokers ({})", statuses.join("; "));
    }

    async fn kill(&mut self) {
        for b in &mut self.brokers {
            let _ = b.child.start_kill();
            let _ = b.child.wait().await;
        }
    }
}

/// Sends SIGTERM (Unix; elsewhere the process is killed).
async fn terminate(child: &mut Child) {
    #[cfg(unix)]
    if let Some(pid) = child.id() {
        let sent = Command::new("kill")
            .arg("-TERM")
            .arg(pid.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
        if sent.is_ok_and(|s| s.success()) {
            return;
        }
    }
    let _ = child.start_kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_major_reads_both_version_schemes() {
        assert_eq!(
            java_major("openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime"),
            Some(17)
        );
        assert_eq!(java_major("java version \"1.8.0_301\""), Some(8));
        assert_eq!(java_major("openjdk version \"21\" 2023-09-19"), Some(21));
        assert_eq!(
            java_major("Picked up JAVA_TOOL_OPTIONS: -Dx=\"y\"\nopenjdk version \"22-ea\""),
            Some(22)
        );
        assert_eq!(java_major("no version here"), None);
    }

    #[test]
    fn the_how_to_names_what_is_missing() {
        let m = how_to_message(
            &Err("not found (`java -version`: No such file)".into()),
            &Ok("Apache Maven 3.8.7".into()),
        );
        assert!(m.contains("java: not found"), "{m}");
        assert!(m.contains("mvn:  ok, Apache Maven 3.8.7"), "{m}");
        assert!(
            m.contains("apt-get install openjdk-17-jdk-headless maven"),
            "{m}"
        );
    }

    #[test]
    fn strip_ansi_drops_colours() {
        assert_eq!(
            strip_ansi("\u{1b}[0m\u{1b}[1mApache Maven 3.8.7\u{1b}[m"),
            "Apache Maven 3.8.7"
        );
    }

    #[test]
    fn every_shown_script_has_a_class() {
        for (script, class) in SCRIPTS {
            assert_eq!(class_of(script), *class);
        }
    }
}
