//! Kafka's text form of UUIDs (`Uuid.toString` / `Uuid.fromString`):
//! unpadded URL-safe base64 of the 16 bytes; `AAAAAAAAAAAAAAAAAAAAAA` is the
//! zero UUID.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine};
use uuid::Uuid;

/// Java's `Base64.getUrlDecoder()`: padding optional, and the unused low
/// bits of the last symbol ignored (Kafka's own test fixtures rely on it).
const JAVA_URL_DECODER: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

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
    let bytes = JAVA_URL_DECODER
        .decode(text)
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
        // A fixture of Kafka's ClusterImageTest: Java ignores the unused low
        // bits of the last symbol, so it names the same id as the canonical text.
        assert_eq!(
            parse("Am5Yse7GQxaw0b2alM74bP"),
            parse("Am5Yse7GQxaw0b2alM74bA")
        );
        assert!(parse("Am5Yse7GQxaw0b2alM74bP").is_ok());
    }
}
