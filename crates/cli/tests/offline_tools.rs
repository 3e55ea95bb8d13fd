//! `kraft storage version-mapping`, `kraft storage feature-dependencies`,
//! `kraft features version-mapping` and `kraft features feature-dependencies`
//! against the output of Kafka 4.4.0's own tools: every case in
//! `tests/golden/offline-tools` (NAME.args, one argument a line) holds the
//! stdout, stderr and exit code that `kafka-storage` / `kafka-features`
//! printed for it (`tests/interop/offline-tools.sh record` writes them).

use std::fs;
use std::path::Path;

#[test]
fn offline_tools_print_what_kafka_prints() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/offline-tools");
    let mut cases = 0;
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .expect("golden directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "args"))
        .collect();
    entries.sort();
    for args_path in entries {
        let read = |ext: &str| {
            fs::read_to_string(args_path.with_extension(ext))
                .unwrap_or_else(|e| panic!("{}: {e}", args_path.display()))
        };
        let name = args_path.display().to_string();
        let args_text = read("args");
        let mut args = vec!["kraft".to_owned()];
        args.extend(args_text.lines().map(str::to_owned));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = kraft_cli::run_main(args, &mut out, &mut err);
        assert_eq!(
            String::from_utf8_lossy(&out),
            read("stdout"),
            "{name}: stdout"
        );
        assert_eq!(
            String::from_utf8_lossy(&err),
            read("stderr"),
            "{name}: stderr"
        );
        assert_eq!(code.to_string(), read("code").trim(), "{name}: exit code");
        cases += 1;
    }
    assert!(cases >= 20, "only {cases} cases");
}
