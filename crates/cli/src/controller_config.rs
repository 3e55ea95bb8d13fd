//! Reading a controller's `server.properties` and `meta.properties` for
//! `add-controller --command-config` (Kafka's `MetadataQuorumCommand` rules
//! and messages).

use std::collections::BTreeMap;
use std::path::Path;

use kraft_admin::{kafka_uuid, RaftVoterEndpoint, Uuid};
use kraft_protocol::text::{address, Properties};

/// The node id from `node.id`; `process.roles` must contain `controller`.
pub fn controller_id(props: &Properties) -> Result<i32, String> {
    let raw = props.get("node.id").ok_or_else(|| {
        "node.id not found in configuration file. Is this a valid controller configuration file?"
            .to_owned()
    })?;
    let id: i32 = raw.trim().parse().map_err(|_| {
        format!("node.id {raw} is not a number in configuration file. Is this a valid controller configuration file?")
    })?;
    if id < 0 {
        return Err(
            "node.id was negative in configuration file. Is this a valid controller configuration file?"
                .to_owned(),
        );
    }
    if !props
        .get("process.roles")
        .is_some_and(|r| r.contains("controller"))
    {
        return Err("process.roles did not contain 'controller' in configuration file. Is this a valid controller configuration file?".to_owned());
    }
    Ok(id)
}

/// The metadata log directory: `metadata.log.dir`, else the first of `log.dirs`.
pub fn metadata_directory(props: &Properties) -> Result<String, String> {
    if let Some(d) = props.get("metadata.log.dir") {
        return Ok(d.to_owned());
    }
    if let Some(dirs) = props.get("log.dirs") {
        if let Some(first) = dirs.trim().split(',').next() {
            return Ok(first.to_owned());
        }
    }
    Err("Neither metadata.log.dir nor log.dirs were found. Is this a valid controller configuration file?".to_owned())
}

/// The `directory.id` in `<dir>/meta.properties`.
pub fn metadata_directory_id(dir: &str) -> Result<Uuid, String> {
    let path = Path::new(dir).join("meta.properties");
    let meta = Properties::load(&path)
        .map_err(|_| format!("Unable to read meta.properties from {dir}"))?;
    let id = meta
        .get("directory.id")
        .ok_or_else(|| format!("No directory id found in {dir}"))?;
    kafka_uuid::parse(id.trim()).map_err(|e| format!("Invalid directory id in {dir}: {e}"))
}

/// Parses a `listeners`-style list (`NAME://host:port,...`) into name → (host, port);
/// an empty host is `None`.
fn listener_list(value: &str) -> Result<BTreeMap<String, (Option<String>, u16)>, String> {
    let mut out = BTreeMap::new();
    for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (name, host, port) = address::split_listener(entry)
            .ok_or_else(|| format!("Unable to parse {entry} to a broker endpoint"))?;
        let port: u16 = port
            .parse()
            .map_err(|_| format!("Unable to parse {entry} to a broker endpoint"))?;
        let host = (!host.is_empty()).then(|| host.to_owned());
        out.insert(name.trim().to_uppercase(), (host, port));
    }
    Ok(out)
}

/// The endpoints of every `controller.listener.names` entry, from
/// `advertised.listeners` over `listeners`; an empty host becomes `localhost`.
pub fn controller_endpoints(props: &Properties) -> Result<Vec<RaftVoterEndpoint>, String> {
    let mut listeners = listener_list(props.get("listeners").unwrap_or(""))?;
    listeners.extend(listener_list(
        props.get("advertised.listeners").unwrap_or(""),
    )?);
    let names = props.get("controller.listener.names").ok_or_else(|| {
        "controller.listener.names was not found. Is this a valid controller configuration file?"
            .to_owned()
    })?;
    let mut out: Vec<RaftVoterEndpoint> = Vec::new();
    for name in names.split(',').map(|n| n.trim().to_uppercase()) {
        let (host, port) = listeners.get(&name).ok_or_else(|| {
            format!("Cannot find information about controller listener name: {name}")
        })?;
        let endpoint =
            RaftVoterEndpoint::new(&name, host.as_deref().unwrap_or("localhost"), *port)?;
        if !out.contains(&endpoint) {
            out.push(endpoint);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Properties {
        Properties::parse(text).expect("valid properties")
    }

    #[test]
    fn reads_a_controller_configuration() {
        let p = parse(
            "node.id=4\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER,ctl2\nlisteners=CONTROLLER://:9093,CTL2://[::1]:9094\nadvertised.listeners=CONTROLLER://c4.example:9093\nlog.dirs=/a,/b\n",
        );
        assert_eq!(controller_id(&p), Ok(4));
        assert_eq!(metadata_directory(&p), Ok("/a".to_owned()));
        let eps: Vec<String> = controller_endpoints(&p)
            .expect("valid")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(eps, ["CONTROLLER://c4.example:9093", "CTL2://[::1]:9094"]);
    }

    #[test]
    fn kafka_error_messages() {
        assert_eq!(
            controller_id(&parse("process.roles=controller")).expect_err("fails"),
            "node.id not found in configuration file. Is this a valid controller configuration file?"
        );
        assert_eq!(
            controller_id(&parse("node.id=-1\nprocess.roles=controller")).expect_err("fails"),
            "node.id was negative in configuration file. Is this a valid controller configuration file?"
        );
        assert_eq!(
            controller_id(&parse("node.id=1\nprocess.roles=broker")).expect_err("fails"),
            "process.roles did not contain 'controller' in configuration file. Is this a valid controller configuration file?"
        );
        assert_eq!(
            metadata_directory(&parse("node.id=1")).expect_err("fails"),
            "Neither metadata.log.dir nor log.dirs were found. Is this a valid controller configuration file?"
        );
        assert_eq!(
            controller_endpoints(&parse("listeners=CONTROLLER://:1")).expect_err("fails"),
            "controller.listener.names was not found. Is this a valid controller configuration file?"
        );
        assert_eq!(
            controller_endpoints(&parse(
                "listeners=CONTROLLER://:1\ncontroller.listener.names=OTHER"
            ))
            .expect_err("fails"),
            "Cannot find information about controller listener name: OTHER"
        );
        assert_eq!(
            metadata_directory_id("/nonexistent/dir").expect_err("fails"),
            "Unable to read meta.properties from /nonexistent/dir"
        );
    }
}
