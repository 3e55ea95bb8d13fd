//! Kafka's text form of UUIDs (`Uuid.toString` / `Uuid.fromString`):
//! unpadded URL-safe base64 of the 16 bytes; `AAAAAAAAAAAAAAAAAAAAAA` is the
//! zero UUID.

use base64::Engine;
use uuid::Uuid;

/// Kafka's text form of a UUID: unpadded URL-safe base64 of its 16 bytes.
pub fn to_string(uuid: &Uuid) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(uuid.as_bytes())
}

/// Parses Kafka's UUID text (`Uuid.fromString`): URL-safe base64, padding
/// optional, exactly 16 bytes, at most 24 characters. The error text is
/// Kafka's.
pub fn parse(text: &str) -> Result<Uuid, String> {
    if text.chars().count() > 24 {
        let prefix: String = text.chars().take(24).collect();
        return Err(format!(
            "Input string with prefix `{prefix}` is too long to be decoded as a base64 UUID"
        ));
    }
    let trimmed = text.trim_end_matches('=');
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(trimmed)
        .map_err(|e| format!("Illegal base64 character in `{text}`: {e}"))?;
    let arr: [u8; 16] = bytes.as_slice().try_into().map_err(|_| {
        format!(
            "Input string `{text}` decoded as {} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID",
            bytes.len()
        )
    })?;
    Ok(Uuid::from_bytes(arr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let u = parse("J8aAPcfLQt2bqs1JT_rMgQ").expect("valid");
        assert_eq!(
            u.as_bytes(),
            &[
                0x27, 0xc6, 0x80, 0x3d, 0xc7, 0xcb, 0x42, 0xdd, 0x9b, 0xaa, 0xcd, 0x49, 0x4f, 0xfa,
                0xcc, 0x81
            ]
        );
        assert_eq!(to_string(&u), "J8aAPcfLQt2bqs1JT_rMgQ");
        assert_eq!(to_string(&Uuid::nil()), "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(parse("J8aAPcfLQt2bqs1JT_rMgQ==").expect("padded"), u);
        assert!(parse("abc").is_err());
        assert!(parse("J8aAPcfLQt2bqs1JT+rMgQ").is_err());
        assert!(parse("AAAAAAAAAAAAAAAAAAAAAAAAAAAA").is_err());
    }
}
