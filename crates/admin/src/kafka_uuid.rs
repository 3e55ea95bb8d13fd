//! Kafka's text form of UUIDs: unpadded URL-safe base64 of the 16 bytes
//! (`AAAAAAAAAAAAAAAAAAAAAA` is the zero UUID).

use uuid::Uuid;

/// Kafka's text form of `id` (22 characters).
pub fn to_string(id: &Uuid) -> String {
    kraft_protocol::json::uuid_text(id)
}

/// Parses Kafka's text form of a UUID (padding tolerated, as Java's URL
/// decoder tolerates it). The error says what is wrong.
pub fn parse(s: &str) -> Result<Uuid, String> {
    let trimmed = s.trim_end_matches('=');
    if trimmed.len() > 22 {
        return Err(format!(
            "Input string with prefix `{}` is too long to be decoded as a base64 UUID",
            &s[..s.len().min(22)]
        ));
    }
    if trimmed.len() < 22 {
        return Err(format!(
            "Input string `{s}` is too short to be decoded as a base64 UUID (22 characters expected)"
        ));
    }
    kraft_protocol::json::parse_uuid_text(trimmed)
        .ok_or_else(|| format!("Input string `{s}` is not a valid base64url encoding of a UUID"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(to_string(&Uuid::nil()), "AAAAAAAAAAAAAAAAAAAAAA");
        let id = parse("J8aAPcfLQt2bqs1JT_rMgQ").expect("valid");
        assert_eq!(to_string(&id), "J8aAPcfLQt2bqs1JT_rMgQ");
        assert_eq!(parse("J8aAPcfLQt2bqs1JT_rMgQ==").expect("padded"), id);
        assert!(parse("short").is_err());
        assert!(parse("J8aAPcfLQt2bqs1JT_rMgQJ8aAP").is_err());
        assert!(parse("J8aAPcfLQt2bqs1JT+rMg!").is_err());
    }
}
