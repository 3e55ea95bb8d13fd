//! The offline feature tools: `version-mapping` and `feature-dependencies`
//! of `kafka-features` and `kafka-storage`. They read the feature tables of
//! [`kraft_protocol::features`] and print what Kafka 4.4's tools print; the
//! two tools word their input errors differently, so each has its own
//! [`Dialect`].

use std::io::Write;

use kraft_protocol::features::{FeatureSpec, MetadataVersion, METADATA_VERSION};

use crate::commands::CliError;

/// Which Kafka tool's error texts to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `kafka-features` (`FeatureCommand.handleFeatureDependencies`).
    Features,
    /// `kafka-storage` (`StorageTool.runFeatureDependenciesCommand`).
    Storage,
}

/// `version-mapping [--release-version V]`: the metadata.version level of
/// `V` (default: the latest production one) and the default level of every
/// production feature at it, as both tools print them.
pub fn version_mapping(release: Option<&str>, out: &mut dyn Write) -> Result<(), CliError> {
    let text = release
        .map(str::to_owned)
        .unwrap_or_else(|| MetadataVersion::LATEST_PRODUCTION.to_string());
    let mv = MetadataVersion::from_version_string(&text, true).map_err(CliError::new)?;
    writeln!(out, "metadata.version={} ({text})", mv.feature_level())?;
    for (name, level) in kraft_protocol::features::default_feature_levels(mv) {
        writeln!(out, "{name}={level}")?;
    }
    Ok(())
}

/// Splits `feature=level` (both sides trimmed) and parses the level as a
/// Java short, with the tool's error text.
fn parse_feature_arg(input: &str, dialect: Dialect) -> Result<(String, i16), CliError> {
    let Some((name, level)) = input.split_once('=') else {
        return Err(CliError::new(match dialect {
            Dialect::Features => {
                format!("Can't parse feature=level string {input}: equals sign not found.")
            }
            Dialect::Storage => format!(
                "Invalid feature format: {input}. Expected format: 'feature=version' (e.g. 'group.version=1')"
            ),
        }));
    };
    let (name, level) = (name.trim(), level.trim());
    let parsed = parse_java_short(level).ok_or_else(|| {
        CliError::new(match dialect {
            Dialect::Features => format!(
                "Can't parse feature=level string {input}: unable to parse {level} as a short."
            ),
            Dialect::Storage => format!("Invalid version format: {level} for feature {name}"),
        })
    })?;
    Ok((name.to_owned(), parsed))
}

/// `Short.parseShort`: an optional sign and decimal digits, in range.
fn parse_java_short(s: &str) -> Option<i16> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `feature-dependencies --feature NAME=LEVEL ...`: for each feature in
/// turn, its dependencies (or that it has none); the first bad argument
/// stops the run with the tool's error, after the lines already printed.
pub fn feature_dependencies(
    features: &[String],
    dialect: Dialect,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    for arg in features {
        let (name, level) = parse_feature_arg(arg, dialect)?;
        if name == METADATA_VERSION {
            let mv = MetadataVersion::from_feature_level(level)
                .ok_or_else(|| CliError::new(format!("Unknown metadata.version {level}")))?;
            writeln!(out, "{name}={level} ({mv}) has no dependencies.")?;
            continue;
        }
        let spec = FeatureSpec::find(&name)
            .ok_or_else(|| CliError::new(format!("Unknown feature: {name}")))?;
        let version = spec.level(level, true).map_err(|kafka_message| {
            CliError::new(match dialect {
                Dialect::Features => kafka_message,
                Dialect::Storage => {
                    format!("Feature level {level} is not supported for feature {name}")
                }
            })
        })?;
        if version.dependencies.is_empty() {
            writeln!(out, "{name}={level} has no dependencies.")?;
            continue;
        }
        writeln!(out, "{name}={level} requires:")?;
        for (dep, dep_level) in version.dependencies {
            if *dep == METADATA_VERSION {
                writeln!(
                    out,
                    "    {dep}={dep_level} ({})",
                    MetadataVersion::level_to_string(dep, *dep_level)
                )?;
            } else {
                writeln!(out, "    {dep}={dep_level}")?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_shorts() {
        assert_eq!(parse_java_short("+7"), Some(7));
        assert_eq!(parse_java_short("-007"), Some(-7));
        assert_eq!(parse_java_short("32767"), Some(i16::MAX));
        assert_eq!(parse_java_short("32768"), None);
        assert_eq!(parse_java_short(""), None);
        assert_eq!(parse_java_short("+"), None);
        assert_eq!(parse_java_short("1_0"), None);
    }
}
