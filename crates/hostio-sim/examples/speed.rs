//! Profiling harness: `cargo run --release -p hostio-sim --example speed -- SCENARIO.toml [KEY=VALUE...]`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("scenario file");
    let r = hostio_sim::run_text(&text, &args[2..], None).expect("valid scenario");
    println!("events {} wall {:.3}s simulated {} us", r.events, r.wall_seconds, r.simulated_us);
}
