//! The `kraft` command line.
fn main() {
    eprintln!("kraft: not built yet");
    std::process::exit(1);
}
