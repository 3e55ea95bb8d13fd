//! OAUTHBEARER with unsecured tokens: the cases of Kafka's
//! `OAuthBearerClientInitialResponseTest`, token checks as Kafka's unsecured
//! validator makes them, and whole exchanges.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use kraft_security::jaas::parse_single;
use kraft_security::sasl::oauthbearer::{
    parse_scope, unsecured_token, ClientInitialResponse, OAuthBearerClient, OAuthBearerServer,
    UnsecuredJws, UnsecuredValidatorOptions,
};
use kraft_security::sasl::{
    new_client, Mechanism, SaslClient, SaslFailureKind, SaslServer, ServerStep,
};
use kraft_security::Secret;

fn parse(text: &str) -> ClientInitialResponse {
    ClientInitialResponse::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

#[test]
fn client_response_to_bytes() {
    let response = ClientInitialResponse {
        token: "123.345.567".into(),
        authorization_id: String::new(),
        extensions: BTreeMap::from([("nineteen".to_owned(), "42".to_owned())]),
    };
    let expected = "n,,\u{1}auth=Bearer 123.345.567\u{1}nineteen=42\u{1}\u{1}";
    assert_eq!(String::from_utf8(response.to_bytes()).unwrap(), expected);
    assert_eq!(
        String::from_utf8(parse(expected).to_bytes()).unwrap(),
        expected
    );
}

#[test]
fn client_response_parsing() {
    let r = parse("n,,\u{1}auth=Bearer 123.345.567\u{1}\u{1}");
    assert_eq!(r.token, "123.345.567");
    assert_eq!(r.authorization_id, "");
    let r = parse("n,a=myuser,\u{1}auth=Bearer 345\u{1}\u{1}");
    assert_eq!(
        (r.token.as_str(), r.authorization_id.as_str()),
        ("345", "myuser")
    );
    let r = parse("n,,\u{1}propA=valueA1, valueA2\u{1}auth=Bearer 567\u{1}propB=valueB\u{1}\u{1}");
    assert_eq!(r.token, "567");
    assert_eq!(r.extensions["propA"], "valueA1, valueA2");
    assert_eq!(r.extensions["propB"], "valueB");
    let r = parse(
        "n,a=user@example.com,\u{1}host=server.example.com\u{1}port=143\u{1}auth=Bearer vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg\u{1}\u{1}",
    );
    assert_eq!(r.token, "vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg");
    assert_eq!(r.authorization_id, "user@example.com");
    assert_eq!(r.extensions["host"], "server.example.com");
    assert_eq!(r.extensions["port"], "143");
    let r = parse(
        "n,a=user@example.com,\u{1}host=server.example.com\u{1}port=143\u{1}auth=Bearer vF-9.df_t4qm~Tc2Nvb3RlckBhbHR+hdmlzdGEuY29/tCg==\u{1}\u{1}",
    );
    assert_eq!(r.token, "vF-9.df_t4qm~Tc2Nvb3RlckBhbHR+hdmlzdGEuY29/tCg==");
    let r = parse(
        "n,a=user@example.com,\u{1}auth=Bearer vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg\u{1}\u{1}",
    );
    assert!(r.extensions.is_empty());
    let r = parse("n,,\u{1}auth=bEaReR   tok\u{1}\u{1}");
    assert_eq!(r.token, "tok");
}

#[test]
fn invalid_client_responses() {
    for (text, reason) in [
        (
            "n,,\u{1}auth=Bearer 123\u{1}",
            "Invalid OAUTHBEARER client first message",
        ),
        (
            "n,,\u{1}\u{1}",
            "Invalid OAUTHBEARER client first message: 'auth' not specified",
        ),
        (
            "n,,\u{1}x=1\u{1}\u{1}",
            "Invalid OAUTHBEARER client first message: 'auth' not specified",
        ),
        (
            "n,,\u{1}auth=Bearer\u{1}\u{1}",
            "Invalid OAUTHBEARER client first message: invalid 'auth' format",
        ),
        (
            "n,,\u{1}auth=Bearer a=b\u{1}\u{1}",
            "Invalid OAUTHBEARER client first message: invalid 'auth' format",
        ),
        (
            "n,,\u{1}auth=Basic abc\u{1}\u{1}",
            "Invalid scheme in OAUTHBEARER client first message",
        ),
        (
            "n,,\u{1}19=42\u{1}auth=Bearer 1\u{1}\u{1}",
            "Invalid OAUTHBEARER client first message",
        ),
        (
            "y,,\u{1}auth=Bearer 1\u{1}\u{1}",
            "Invalid OAUTHBEARER client first message",
        ),
        (
            "n,a=x=y,\u{1}auth=Bearer 1\u{1}\u{1}",
            "Invalid OAUTHBEARER client first message",
        ),
        (
            "n,,auth=Bearer 1\u{1}\u{1}",
            "Invalid OAUTHBEARER client first message",
        ),
    ] {
        assert_eq!(
            ClientInitialResponse::parse(text.as_bytes()).unwrap_err(),
            reason,
            "{text:?}"
        );
    }
}

fn jws(claims: &str) -> String {
    format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
        URL_SAFE_NO_PAD.encode(claims)
    )
}

#[test]
fn unsecured_jws_parsing() {
    let t = UnsecuredJws::parse(
        &jws(r#"{"sub":"alice","exp":1700000100,"iat":1700000000.5,"scope":["a"," b ",""]}"#),
        "sub",
        "scope",
    )
    .unwrap();
    assert_eq!(t.principal_name, "alice");
    assert_eq!(t.lifetime_ms, 1_700_000_100_000);
    assert_eq!(t.start_time_ms, Some(1_700_000_000_500));
    assert_eq!(
        t.scope.iter().map(String::as_str).collect::<Vec<_>>(),
        ["a", "b"]
    );
    let t = UnsecuredJws::parse(
        &jws(r#"{"who":"bob","exp":1,"perm":" x y "}"#),
        "who",
        "perm",
    )
    .unwrap();
    assert_eq!(t.principal_name, "bob");
    assert_eq!(
        t.scope.iter().map(String::as_str).collect::<Vec<_>>(),
        ["x y"]
    );

    let header = |h: &str| {
        format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(h),
            URL_SAFE_NO_PAD.encode(r#"{"sub":"a","exp":1}"#)
        )
    };
    for (token, reason) in [
        (jws(r#"{"sub":"a"}"#), "No expiration time in JWT"),
        (jws(r#"{"exp":1}"#), "No principal name in JWT claim: sub"),
        (jws(r#"{"sub":" ","exp":1}"#), "No principal name in JWT claim: sub"),
        (jws(r#"{"sub":5,"exp":1}"#), "The 'sub' claim was not of type String: Integer"),
        (jws(r#"{"sub":"a","exp":"1"}"#), "The 'exp' claim was not of type Number: String"),
        (jws(r#"{"sub":"a","exp":1,"scope":7.5}"#), "The 'scope' claim was not of type List: Double"),
        (jws("{not json"), "malformed JSON"),
        (format!("{}.***.", URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#)), "malformed Base64 URL encoded value"),
        (header(r#"{"alg":"HS256"}"#), "Unsecured JWS must have 'none' for an algorithm"),
        (header(r#"{"typ":"JWT"}"#), "JWS header must have an Algorithm value"),
        (format!("{}sig", jws(r#"{"sub":"a","exp":1}"#)), "Unsecured JWS must not contain a digital signature"),
        ("a..b".to_owned(), "Malformed compact serialization contains '..'"),
        ("a.b".to_owned(), "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values"),
    ] {
        assert_eq!(UnsecuredJws::parse(&token, "sub", "scope").unwrap_err(), reason, "{token}");
    }
}

fn now() -> i64 {
    1_700_000_000_000
}

fn server(options: UnsecuredValidatorOptions) -> OAuthBearerServer {
    OAuthBearerServer::unsecured(options, now)
}

fn initial(token: &str) -> Vec<u8> {
    ClientInitialResponse {
        token: token.into(),
        authorization_id: String::new(),
        extensions: BTreeMap::new(),
    }
    .to_bytes()
}

/// A refused token: the JSON error challenge, the client's %x01, then the
/// JSON as the failure message.
fn refused(server: &mut OAuthBearerServer, token: &str) -> String {
    let json = match server.evaluate(&initial(token)).unwrap() {
        ServerStep::Challenge(c) => String::from_utf8(c).unwrap(),
        other => panic!("{other:?}"),
    };
    let failure = server.evaluate(&[0x01]).unwrap_err();
    assert_eq!(failure.kind, SaslFailureKind::Authentication);
    assert_eq!(failure.message, json);
    json
}

#[test]
fn server_validates_times_and_scope() {
    let valid = jws(r#"{"sub":"alice","exp":1700000060,"iat":1699999990,"scope":"admin"}"#);
    match server(UnsecuredValidatorOptions::default())
        .evaluate(&initial(&valid))
        .unwrap()
    {
        ServerStep::Complete {
            final_message,
            authorization_id,
            token_authenticated,
        } => {
            assert!(final_message.is_empty());
            assert_eq!(authorization_id, "alice");
            assert!(!token_authenticated);
        }
        other => panic!("{other:?}"),
    }
    let invalid = r#"{"status":"invalid_token"}"#;
    // Expired (now is 1700000000000 ms), issued in the future, exp before iat.
    for claims in [
        r#"{"sub":"alice","exp":1700000000}"#,
        r#"{"sub":"alice","exp":1800000000,"iat":1700000001}"#,
        r#"{"sub":"alice","exp":1699999999}"#,
    ] {
        assert_eq!(
            refused(
                &mut server(UnsecuredValidatorOptions::default()),
                &jws(claims)
            ),
            invalid,
            "{claims}"
        );
    }
    assert_eq!(
        refused(
            &mut server(UnsecuredValidatorOptions::default()),
            "not-a-jws"
        ),
        invalid
    );
    // Clock skew lets a just-expired token through.
    let skewed = UnsecuredValidatorOptions {
        allowable_clock_skew_ms: 1000,
        ..Default::default()
    };
    assert!(matches!(
        server(skewed)
            .evaluate(&initial(&jws(r#"{"sub":"alice","exp":1700000000}"#)))
            .unwrap(),
        ServerStep::Complete { .. }
    ));
    // Required scope.
    let scoped = UnsecuredValidatorOptions {
        required_scope: vec!["admin".into(), "write".into()],
        ..Default::default()
    };
    assert_eq!(
        refused(&mut server(scoped.clone()), &valid),
        r#"{"status":"insufficient_scope", "scope":"[admin, write]"}"#
    );
    let both = jws(r#"{"sub":"alice","exp":1700000060,"scope":["write","admin"]}"#);
    assert!(matches!(
        server(scoped).evaluate(&initial(&both)).unwrap(),
        ServerStep::Complete { .. }
    ));
}

#[test]
fn server_authorization_id_and_bad_messages() {
    let token = jws(r#"{"sub":"alice","exp":1700000060}"#);
    let mut message = ClientInitialResponse {
        token: token.clone(),
        authorization_id: "bob".into(),
        extensions: BTreeMap::new(),
    };
    let failure = server(UnsecuredValidatorOptions::default())
        .evaluate(&message.to_bytes())
        .unwrap_err();
    assert_eq!(
        failure.message,
        "Authentication failed: Client requested an authorization id (bob) that is different from the token's principal name (alice)"
    );
    message.authorization_id = "alice".into();
    let mut s = server(UnsecuredValidatorOptions::default());
    assert!(matches!(
        s.evaluate(&message.to_bytes()).unwrap(),
        ServerStep::Complete { .. }
    ));
    assert_eq!(s.credential_expiry_ms(), Some(1_700_000_060_000));
    assert_eq!(
        s.evaluate(&message.to_bytes()).unwrap_err().kind,
        SaslFailureKind::IllegalState
    );

    let failure = server(UnsecuredValidatorOptions::default())
        .evaluate(b"garbage")
        .unwrap_err();
    assert_eq!(
        failure.message,
        "Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER"
    );
    // %x01 without an earlier error is just a bad message.
    assert!(server(UnsecuredValidatorOptions::default())
        .evaluate(&[0x01])
        .is_err());
}

#[test]
fn validator_options_from_jaas() {
    let entry = parse_single(
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
         unsecuredValidatorPrincipalClaimName=\" who \" unsecuredValidatorScopeClaimName=\"perm\" \
         unsecuredValidatorRequiredScope=\"a  b\" unsecuredValidatorAllowableClockSkewMs=\"250\";",
    )
    .unwrap();
    let o = UnsecuredValidatorOptions::from_jaas(&entry).unwrap();
    assert_eq!(o.principal_claim_name, "who");
    assert_eq!(o.scope_claim_name, "perm");
    assert_eq!(o.required_scope, ["a", "b"]);
    assert_eq!(o.allowable_clock_skew_ms, 250);
    let bad = |opts: &str| {
        let e = parse_single(&format!("m required {opts};")).unwrap();
        UnsecuredValidatorOptions::from_jaas(&e)
            .unwrap_err()
            .to_string()
    };
    assert!(bad("unsecuredValidatorAllowableClockSkewMs=\"-1\"").contains("must not be negative"));
    assert!(bad("unsecuredValidatorAllowableClockSkewMs=\"x\"").contains("For input string: \"x\""));
    assert!(bad("unsecuredValidatorRequiredScope=\"a\\\"b\"").contains("Invalid scope value: a\"b"));
    assert_eq!(parse_scope(" x  y ").unwrap(), ["x", "y"]);
}

fn login(options: &str) -> kraft_security::jaas::JaasEntry {
    parse_single(&format!(
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required {options};"
    ))
    .unwrap()
}

#[test]
fn unsecured_login_tokens() {
    let entry = login(
        "unsecuredLoginStringClaim_sub=\"alice\" unsecuredLoginNumberClaim_level=\"3\" \
         unsecuredLoginListClaim_scope=\",read,,write,\" unsecuredLoginLifetimeSeconds=\"60\"",
    );
    let token = unsecured_token(&entry, now()).unwrap();
    let t = UnsecuredJws::parse(&token, "sub", "scope").unwrap();
    assert_eq!(t.principal_name, "alice");
    assert_eq!(t.lifetime_ms, now() + 60_000);
    assert_eq!(t.start_time_ms, Some(now()));
    assert_eq!(
        t.scope.iter().map(String::as_str).collect::<Vec<_>>(),
        ["read", "write"]
    );

    for (options, reason) in [
        (
            "unsecuredLoginExtension_x=\"1\"",
            "Extensions provided in login context without a token",
        ),
        (
            "unsecuredLoginNumberClaim_exp=\"1\"",
            "Cannot explicitly set the 'exp' claim",
        ),
        (
            "unsecuredLoginStringClaim_who=\"a\"",
            "No principal name in JWT claim: sub",
        ),
        (
            "unsecuredLoginStringClaim_sub=\"a\" unsecuredLoginLifetimeSeconds=\"x\"",
            "For input string: \"x\"",
        ),
    ] {
        let e = unsecured_token(&login(options), now())
            .unwrap_err()
            .to_string();
        assert!(e.contains(reason), "{options}: {e}");
    }
}

#[test]
fn full_exchanges() {
    // Through new_client, as Kafka's default OAUTHBEARER login does (system clock).
    let entry =
        login("unsecuredLoginStringClaim_sub=\"alice\" unsecuredLoginExtension_traceId=\"abc\"");
    let mut client = new_client(Mechanism::OAuthBearer, &entry).unwrap();
    let first = client.initial_response().unwrap();
    let parsed = ClientInitialResponse::parse(&first).unwrap();
    assert_eq!(parsed.extensions["traceId"], "abc");
    let mut server = OAuthBearerServer::unsecured(UnsecuredValidatorOptions::default(), || {
        kraft_security::sasl::SaslServerConfig::system_now_ms()
    });
    match server.evaluate(&first).unwrap() {
        ServerStep::Complete {
            final_message,
            authorization_id,
            ..
        } => {
            assert_eq!(authorization_id, "alice");
            assert_eq!(client.evaluate_challenge(&final_message).unwrap(), None);
            assert!(client.is_complete());
        }
        other => panic!("{other:?}"),
    }

    // A refused token: challenge, %x01, failure with the JSON.
    let expired = jws(r#"{"sub":"alice","exp":1}"#);
    let mut client = OAuthBearerClient::new(Secret::new(expired.clone()), BTreeMap::new());
    let mut server = server_at_now();
    let first = client.initial_response().unwrap();
    let challenge = match server.evaluate(&first).unwrap() {
        ServerStep::Challenge(c) => c,
        other => panic!("{other:?}"),
    };
    let ack = client.evaluate_challenge(&challenge).unwrap().unwrap();
    assert_eq!(ack, [0x01]);
    let failure = server.evaluate(&ack).unwrap_err();
    assert_eq!(failure.message, r#"{"status":"invalid_token"}"#);
    assert!(!failure.log_detail.contains(&expired));
    assert!(!client.is_complete());
    assert_eq!(
        client.evaluate_challenge(b"").unwrap_err().kind,
        SaslFailureKind::IllegalState
    );
}

fn server_at_now() -> OAuthBearerServer {
    OAuthBearerServer::unsecured(UnsecuredValidatorOptions::default(), now)
}

#[test]
fn tokens_stay_out_of_debug() {
    let r = parse("n,,\u{1}auth=Bearer s3cr3tT0ken\u{1}\u{1}");
    assert!(!format!("{r:?}").contains("s3cr3tT0ken"));
}
