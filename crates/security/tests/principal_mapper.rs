//! `ssl.principal.mapping.rules`: every case of Kafka's
//! `SslPrincipalMapperTest`, plus Kafka's replacement and error details.

#![allow(clippy::unwrap_used)] // a test fails by panicking

use kraft_security::principal::SslPrincipalMapper;
use kraft_security::SecurityError;

fn mapper(rules: &str) -> SslPrincipalMapper {
    match SslPrincipalMapper::from_rules(rules) {
        Ok(m) => m,
        Err(e) => panic!("rules {rules:?} refused: {e}"),
    }
}

fn invalid(rules: &str) -> String {
    match SslPrincipalMapper::from_rules(rules) {
        Ok(m) => panic!("rules {rules:?} accepted: {m}"),
        Err(e) => {
            assert!(
                matches!(&e, SecurityError::Config { key, .. } if key == "ssl.principal.mapping.rules"),
                "{e:?}"
            );
            e.to_string()
        }
    }
}

#[test]
fn valid_rules() {
    for rules in [
        "DEFAULT",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT",
        "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/",
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L",
        "RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U",
        "RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/",
        "RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/",
    ] {
        mapper(rules);
    }
}

#[test]
fn invalid_rules() {
    for rules in [
        "default",
        "DEFAUL",
        "DEFAULT/L",
        "DEFAULT/U",
        "RULE:CN=(.*?),OU=ServiceUsers.*/$1",
        "rule:^CN=(.*?),OU=ServiceUsers.*$/$1/",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/L",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/U",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/LU",
    ] {
        invalid(rules);
    }
}

#[test]
fn invalid_rule_messages_are_kafkas() {
    assert!(
        invalid("DEFAULT/L").contains("Invalid rule: `DEFAULT/L`, unmatched substring: `/L`"),
        "{}",
        invalid("DEFAULT/L")
    );
    assert!(invalid("default").contains("Invalid rule: `default`, unmatched substring: `default`"));
    assert!(
        invalid("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U").contains("unmatched substring: `/U`")
    );
}

#[test]
fn a_pattern_that_does_not_compile_is_refused() {
    assert!(invalid("RULE:^CN=(.*$/$1/").contains("Invalid rule"));
}

#[test]
fn ssl_principal_mapper() {
    let rules = [
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L",
        "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L",
        "RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U",
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U",
        "DEFAULT",
    ]
    .join(", ");
    let m = mapper(&rules);
    let name = |dn: &str| m.get_name(dn).unwrap_or_else(|e| panic!("{dn}: {e}"));
    assert_eq!(name("CN=Duke,OU=ServiceUsers,O=Org,C=US"), "duke");
    assert_eq!(
        name("CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"),
        "duke@sme"
    );
    assert_eq!(name("cn=duke,ou=sme,dc=mycp,dc=com"), "DUKE@SME");
    assert_eq!(name("cN=duke,OU=JavaSoft,O=Sun Microsystems"), "DUKE");
    assert_eq!(
        name("OU=JavaSoft,O=Sun Microsystems,C=US"),
        "OU=JavaSoft,O=Sun Microsystems,C=US"
    );
}

fn splits_to(expected: &str, rules: &str) {
    assert_eq!(
        mapper(rules).to_string(),
        format!("SslPrincipalMapper(rules = {expected})"),
        "rules {rules:?}"
    );
}

#[test]
fn rules_splitting() {
    // seeing is believing
    splits_to("[]", "");
    splits_to("[DEFAULT]", "DEFAULT");
    splits_to("[RULE:/]", "RULE://");
    splits_to("[RULE:/.*]", "RULE:/.*/");
    splits_to("[RULE:/.*/L]", "RULE:/.*/L");
    splits_to("[RULE:/, DEFAULT]", "RULE://,DEFAULT");
    splits_to("[RULE:/, DEFAULT]", "  RULE:// ,  DEFAULT  ");
    splits_to(
        "[RULE:   /     , DEFAULT]",
        "  RULE:   /     / ,  DEFAULT  ",
    );
    splits_to(
        "[RULE:  /     /U, DEFAULT]",
        "  RULE:  /     /U   ,DEFAULT  ",
    );
    splits_to(
        "[RULE:([A-Z]*)/$1/U, RULE:([a-z]+)/$1, DEFAULT]",
        "  RULE:([A-Z]*)/$1/U   ,RULE:([a-z]+)/$1/,   DEFAULT  ",
    );

    // empty rules are ignored
    splits_to("[]", ",   , , ,      , , ,   ");
    splits_to("[RULE:/, DEFAULT]", ",,RULE://,,,DEFAULT,,");
    splits_to(
        "[RULE: /   , DEFAULT]",
        ",  , RULE: /   /    ,,,   DEFAULT, ,   ",
    );
    splits_to(
        "[RULE:   /  /U, DEFAULT]",
        "     ,  , RULE:   /  /U    ,,  ,DEFAULT, ,",
    );

    // escape sequences
    splits_to(r"[RULE:\/\\\(\)\n\t/\/\/]", r"RULE:\/\\\(\)\n\t/\/\//");
    splits_to(
        r"[RULE:\**\/+/*/L, RULE:\/*\**/**]",
        r"RULE:\**\/+/*/L,RULE:\/*\**/**/",
    );

    // rules rule
    splits_to(
        r"[RULE:,RULE:,/,RULE:,\//U, RULE:,/RULE:,, RULE:,RULE:,/L,RULE:,/L, RULE:, DEFAULT, /DEFAULT, DEFAULT]",
        r"RULE:,RULE:,/,RULE:,\//U,RULE:,/RULE:,/,RULE:,RULE:,/L,RULE:,/L,RULE:, DEFAULT, /DEFAULT/,DEFAULT",
    );
}

#[test]
fn comma_with_whitespace() {
    let m = mapper(r"RULE:^CN=((\\, *|\w)+)(,.*|$)/$1/,DEFAULT");
    assert_eq!(
        m.get_name(r"CN=Tkac\, Adam,OU=ITZ,DC=geodis,DC=cz")
            .unwrap(),
        r"Tkac\, Adam"
    );
}

#[test]
fn no_matching_rule_is_an_error_naming_the_dn_and_rules() {
    let m = mapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L");
    let e = m.get_name("CN=x,OU=Other").unwrap_err().to_string();
    assert!(
        e.contains(
            "No rules apply to CN=x,OU=Other, rules [RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L]"
        ),
        "{e}"
    );
}

#[test]
fn empty_rules_match_nothing() {
    assert!(mapper("").get_name("CN=x").is_err());
}

#[test]
fn default_mapper_is_identity() {
    assert_eq!(
        SslPrincipalMapper::default().get_name("CN=a,O=b").unwrap(),
        "CN=a,O=b"
    );
    assert_eq!(
        SslPrincipalMapper::default().to_string(),
        "SslPrincipalMapper(rules = [DEFAULT])"
    );
}

#[test]
fn back_references_to_missing_groups_are_literal() {
    // Kafka (from NiFi): "$1@$4" with three groups keeps "$4" as text.
    let m = mapper("RULE:^CN=(.*?),OU=(.*?),O=(.*?)$/$1@$4/");
    assert_eq!(m.get_name("CN=a,OU=b,O=c").unwrap(), "a@$4");
    // "$12" with two groups is group 1 followed by "2".
    let m = mapper("RULE:^CN=(.*?),OU=(.*?)$/$12/");
    assert_eq!(m.get_name("CN=a,OU=b").unwrap(), "a2");
}

#[test]
fn replacement_escapes_and_named_groups() {
    let m = mapper(r"RULE:^CN=(?<name>[^,]*).*$/user-${name}-\$/");
    assert_eq!(m.get_name("CN=bob,O=x").unwrap(), "user-bob-$");
}

#[test]
fn replace_all_replaces_every_match_as_java_does() {
    // Java's replaceAll also replaces the empty match at the end of the
    // input after a pattern without anchors matched it all.
    let m = mapper("RULE:.*/x/");
    assert_eq!(m.get_name("CN=a").unwrap(), "xx");
    // An unanchored pattern replaces each occurrence.
    let m = mapper("RULE:(CN=[a-z]+),?(.*)/$1/U");
    assert_eq!(m.get_name("CN=abc,O=d").unwrap(), "CN=ABC");
}
