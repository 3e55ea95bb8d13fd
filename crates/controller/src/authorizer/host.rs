//! An ACL's host against a client's address, as Kafka 4.4 compares them.
//!
//! Kafka compares an ACL's host string with the client address's text
//! (`InetAddress.getHostAddress()`): `*` matches every client, an equal
//! string matches, and a host holding `/` is a CIDR range (KIP-1276,
//! `CidrUtils.isInRange` over commons-net's `SubnetUtils` /
//! `SubnetUtils6`). A host is parsed once, when it enters the index, into a
//! [`HostPattern`] that answers the same without any text at check time.
//!
//! What follows from Kafka's rules:
//!
//! * An exact host must be the address's Java text: IPv4 dotted decimal,
//!   IPv6 as eight hex groups without leading zeros or `::`
//!   (`0:0:0:0:0:0:0:1`, not `::1`). Any other spelling never matches.
//! * A client on an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is the
//!   IPv4 client `a.b.c.d`, as Java reports it.
//! * A pattern holding `:` is an IPv6 range; IPv4 clients never fall in it
//!   (not even in `::ffff:a.b.c.d/n`, which is refused as a range). Other
//!   ranges are IPv4 ones, `a.b.c.d/n` with decimal parts, and never hold
//!   the client `0.0.0.0`.
//! * A pattern that does not parse matches no client.

use std::net::{IpAddr, Ipv6Addr};

/// An ACL host, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostPattern {
    /// `*`.
    Any,
    /// The host is the Java text of this address.
    Exact(IpAddr),
    /// An IPv4 CIDR range.
    V4 {
        /// The network address (masked).
        network: u32,
        /// The netmask.
        mask: u32,
    },
    /// An IPv6 CIDR range.
    V6 {
        /// The network address (masked).
        network: u128,
        /// The netmask.
        mask: u128,
    },
    /// Matches no client.
    Never,
}

/// A parsed CIDR range (KIP-1276).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cidr {
    /// `a.b.c.d/n`.
    V4 { network: u32, mask: u32 },
    /// An IPv6 address and prefix length.
    V6 { network: u128, mask: u128 },
}

impl HostPattern {
    /// Parses an ACL's host.
    pub(crate) fn parse(host: &str) -> Self {
        if host == "*" {
            return HostPattern::Any;
        }
        if host.contains('/') {
            return match parse_cidr(host) {
                Ok(Cidr::V4 { network, mask }) => HostPattern::V4 { network, mask },
                Ok(Cidr::V6 { network, mask }) => HostPattern::V6 { network, mask },
                Err(_) => HostPattern::Never,
            };
        }
        match host.parse::<IpAddr>() {
            Ok(ip) if java_host_address(ip) == host => HostPattern::Exact(ip),
            _ => HostPattern::Never,
        }
    }

    /// Whether a client at `client` (already through [`client_address`])
    /// matches.
    pub(crate) fn matches(&self, client: IpAddr) -> bool {
        match (*self, client) {
            (HostPattern::Any, _) => true,
            (HostPattern::Exact(ip), _) => ip == client,
            (HostPattern::V4 { network, mask }, IpAddr::V4(v4)) => {
                let address = u32::from(v4);
                // commons-net never counts 0.0.0.0 in a range.
                address != 0 && address & mask == network
            }
            (HostPattern::V6 { network, mask }, IpAddr::V6(v6)) => u128::from(v6) & mask == network,
            _ => false,
        }
    }
}

/// The address Kafka sees for a client: an IPv4-mapped IPv6 address is the
/// IPv4 address (Java hands such connections over as `Inet4Address`).
pub(crate) fn client_address(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

/// Java's `InetAddress.getHostAddress()` text of `ip`: dotted decimal, or
/// eight lower-case hex groups without leading zeros and without `::`.
pub fn java_host_address(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let groups: Vec<String> = v6.segments().iter().map(|g| format!("{g:x}")).collect();
            groups.join(":")
        }
    }
}

/// Kafka's `CidrUtils.validate`: the range `pattern` names, or the message of
/// the `IllegalArgumentException` commons-net throws for it. A pattern
/// holding `:` is read as IPv6 (`SubnetUtils6`), any other as IPv4
/// (`SubnetUtils`).
pub(crate) fn parse_cidr(pattern: &str) -> Result<Cidr, String> {
    if pattern.contains(':') {
        parse_v6_cidr(pattern)
    } else {
        parse_v4_cidr(pattern)
    }
}

/// `SubnetUtils(cidr)`: exactly `d.d.d.d/p`, one to three ASCII digits per
/// part and one or two for the prefix; parts up to 255, prefix up to 32.
fn parse_v4_cidr(pattern: &str) -> Result<Cidr, String> {
    let could_not_parse = || format!("Could not parse [{pattern}]");
    let (address, prefix) = pattern.split_once('/').ok_or_else(could_not_parse)?;
    let digits = |s: &str, max_len: usize| {
        (1..=max_len).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    let parts: Vec<&str> = address.split('.').collect();
    if parts.len() != 4 || !parts.iter().all(|p| digits(p, 3)) || !digits(prefix, 2) {
        return Err(could_not_parse());
    }
    let in_range = |text: &str, max: u32| -> Result<u32, String> {
        let value: u32 = text.parse().map_err(|_| could_not_parse())?;
        if value <= max {
            Ok(value)
        } else {
            Err(format!("Value [{value}] not in range [0,{max}]"))
        }
    };
    let mut address = 0u32;
    for part in parts {
        address = (address << 8) | in_range(part, 255)?;
    }
    let prefix = in_range(prefix, 32)?;
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    Ok(Cidr::V4 {
        network: address & mask,
        mask,
    })
}

/// `SubnetUtils6(cidr)`: an IPv6 address, `/`, and a prefix length Java's
/// `Integer.parseInt` reads, from 0 to 128.
fn parse_v6_cidr(pattern: &str) -> Result<Cidr, String> {
    let (address, prefix) = pattern
        .split_once('/')
        .ok_or_else(|| format!("Could not parse [{pattern}] - missing prefix length"))?;
    let prefix = java_parse_int(prefix)
        .ok_or_else(|| format!("Could not parse [{pattern}] - invalid prefix length"))?;
    let prefix = u32::try_from(prefix)
        .ok()
        .filter(|p| *p <= 128)
        .ok_or_else(|| {
            format!("Could not parse [{pattern}] - prefix length must be between 0 and 128")
        })?;
    let address = parse_v6_literal(address)?;
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    Ok(Cidr::V6 {
        network: u128::from(address) & mask,
        mask,
    })
}

/// `InetAddress.getByName` of an IPv6 range's address, which must give an
/// `Inet6Address`: an IPv6 literal, optionally in brackets, optionally with
/// a numeric zone (`%3`). An IPv4-mapped address is an IPv4 address to
/// Java, so not one.
///
/// Java would also take a zone naming a network interface this host has;
/// that depends on the host, and is refused here.
fn parse_v6_literal(text: &str) -> Result<Ipv6Addr, String> {
    let could_not_parse = || format!("Could not parse [{text}]");
    let unbracketed = match text.strip_prefix('[') {
        Some(rest) => rest.strip_suffix(']').ok_or_else(could_not_parse)?,
        None => text,
    };
    let literal = match unbracketed.split_once('%') {
        Some((literal, zone)) if !zone.is_empty() && zone.bytes().all(|b| b.is_ascii_digit()) => {
            literal
        }
        Some(_) => return Err(could_not_parse()),
        None => unbracketed,
    };
    let address: Ipv6Addr = literal.parse().map_err(|_| could_not_parse())?;
    if address.to_ipv4_mapped().is_some() {
        return Err(format!("{} - not an IPv6 address", could_not_parse()));
    }
    Ok(address)
}

/// Java's `Integer.parseInt(text)` for ASCII digits: an optional sign, one
/// or more digits, within `i32`. (Java also reads other Unicode decimal
/// digits; those are refused here.)
fn java_parse_int(text: &str) -> Option<i32> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut value: i64 = 0;
    for b in digits.bytes() {
        value = value * 10 + i64::from(b - b'0');
        if value > i64::from(i32::MAX) + 1 {
            return None;
        }
    }
    let value = if negative { -value } else { value };
    i32::try_from(value).ok()
}

/// The IPv4 address `text`, for tests.
#[cfg(test)]
pub(crate) fn v4(text: &str) -> IpAddr {
    IpAddr::V4(text.parse::<std::net::Ipv4Addr>().expect("ipv4"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        client_address(text.parse().expect("ip"))
    }

    fn in_range(host: &str, pattern: &str) -> bool {
        HostPattern::parse(pattern).matches(ip(host))
    }

    /// Kafka's CidrUtilsTest.testValidateValidIpv4Cidr / Ipv6Cidr.
    #[test]
    fn kafka_valid_cidrs() {
        for p in [
            "192.168.0.0/24",
            "10.0.0.0/8",
            "172.16.0.0/16",
            "192.168.1.1/32",
            "0.0.0.0/0",
            "2001:db8::/32",
            "2001:db8:abcd::/48",
            "::1/128",
            "::/0",
        ] {
            assert!(parse_cidr(p).is_ok(), "{p}");
        }
    }

    /// Kafka's CidrUtilsTest invalid cases, with commons-net's messages.
    #[test]
    fn kafka_invalid_cidrs_with_commons_net_messages() {
        let cases = [
            ("192.168.0.0/33", "Value [33] not in range [0,32]"),
            ("192.168.0.0/-1", "Could not parse [192.168.0.0/-1]"),
            ("192.168.0.256/24", "Value [256] not in range [0,255]"),
            ("192.168.0.0/abc", "Could not parse [192.168.0.0/abc]"),
            ("192.168.0.0/", "Could not parse [192.168.0.0/]"),
            (
                "2001:db8::/129",
                "Could not parse [2001:db8::/129] - prefix length must be between 0 and 128",
            ),
            (
                "::ffff:192.168.1.0/24",
                "Could not parse [::ffff:192.168.1.0] - not an IPv6 address",
            ),
            ("example.com/test", "Could not parse [example.com/test]"),
        ];
        for (pattern, message) in cases {
            assert_eq!(parse_cidr(pattern), Err(message.to_string()), "{pattern}");
        }
    }

    /// SubnetUtils6's other refusals, and what Java's parseInt accepts.
    #[test]
    fn ipv6_prefix_and_address_forms() {
        assert_eq!(
            parse_cidr("::1/x"),
            Err("Could not parse [::1/x] - invalid prefix length".into())
        );
        assert_eq!(
            parse_cidr("::1/99999999999"),
            Err("Could not parse [::1/99999999999] - invalid prefix length".into())
        );
        assert_eq!(
            parse_cidr("::1/-1"),
            Err("Could not parse [::1/-1] - prefix length must be between 0 and 128".into())
        );
        assert_eq!(
            parse_cidr("gg::1/64"),
            Err("Could not parse [gg::1]".into())
        );
        assert_eq!(
            parse_cidr("fe80::1%eth0/64"),
            Err("Could not parse [fe80::1%eth0]".into())
        );
        assert!(parse_cidr("::1/+64").is_ok());
        assert!(parse_cidr("::1/-0").is_ok());
        assert!(parse_cidr("[2001:db8::]/32").is_ok());
        assert!(parse_cidr("fe80::1%2/64").is_ok());
        assert_eq!(java_parse_int("-2147483648"), Some(i32::MIN));
        assert_eq!(java_parse_int("2147483648"), None);
    }

    /// Kafka's CidrUtilsTest.testIsInRangeNullOrNonCidr, testIpv4MappedAddress
    /// and testIpv4MappedAddressWithSubnet.
    #[test]
    fn kafka_in_range_cases() {
        // Without a slash a host is no range, only an exact host.
        assert_eq!(
            parse_cidr("192.168.1.1"),
            Err("Could not parse [192.168.1.1]".into())
        );
        assert_eq!(
            HostPattern::parse("192.168.1.1"),
            HostPattern::Exact(v4("192.168.1.1"))
        );
        // ::ffff:192.168.1.5 is the IPv4 client 192.168.1.5.
        assert_eq!(ip("::ffff:192.168.1.5"), v4("192.168.1.5"));
        assert_eq!(java_host_address(ip("::ffff:192.168.1.5")), "192.168.1.5");
        assert!(in_range("::ffff:192.168.1.5", "192.168.1.0/24"));
        assert!(!in_range("::ffff:192.168.1.5", "10.0.0.0/8"));
        assert!(!in_range("192.168.1.5", "::ffff:192.168.1.0/24"));
        assert!(!in_range("::1", "::ffff:192.168.1.0/24"));
        assert!(!in_range("2001:db8::1", "::ffff:192.168.1.0/24"));
        assert!(!in_range("192.168.1.5", "::192.168.1.0/24"));
        assert!(in_range("::1", "::192.168.1.0/24"));
        assert!(in_range("0:0:0:0:0:0:c0a8:105", "::192.168.1.0/24"));
        assert!(!in_range("2001:db8::1", "::192.168.1.0/24"));
    }

    #[test]
    fn ipv4_ranges_are_inclusive_but_never_hold_zero() {
        assert!(in_range("10.255.255.255", "10.0.0.0/8"));
        assert!(in_range("10.0.0.0", "10.0.0.0/8"));
        assert!(!in_range("11.0.0.0", "10.0.0.0/8"));
        assert!(in_range("255.255.255.255", "0.0.0.0/0"));
        assert!(!in_range("0.0.0.0", "0.0.0.0/0"));
        assert!(in_range("1.2.3.4", "1.2.3.4/32"));
        assert!(!in_range("1.2.3.5", "1.2.3.4/32"));
        // The address part is masked; leading zeros are decimal.
        assert!(in_range("10.1.2.3", "010.1.2.200/24"));
        assert!(!in_range("::1", "0.0.0.0/0"));
    }

    /// Exact hosts compare with Java's text: full, uncompressed IPv6.
    #[test]
    fn exact_hosts_are_java_text() {
        assert_eq!(java_host_address(ip("::1")), "0:0:0:0:0:0:0:1");
        assert_eq!(
            java_host_address(ip("2001:db8::ff")),
            "2001:db8:0:0:0:0:0:ff"
        );
        assert!(in_range("::1", "0:0:0:0:0:0:0:1"));
        assert!(!in_range("::1", "::1"));
        assert!(in_range("2001:db8::ff", "2001:db8:0:0:0:0:0:ff"));
        assert!(!in_range("2001:db8::ff", "2001:db8:0:0:0:0:0:00ff"));
        assert!(in_range("127.0.0.1", "127.0.0.1"));
        assert!(!in_range("127.0.0.1", "localhost"));
        assert!(!in_range("::ffff:10.0.0.1", "0:0:0:0:0:ffff:a00:1"));
        assert!(in_range("::ffff:10.0.0.1", "10.0.0.1"));
        assert!(in_range("8.8.8.8", "*"));
        assert!(!in_range("8.8.8.8", ""));
    }
}
