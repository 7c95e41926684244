fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).unwrap();
    let mut r = hostio_sim::Run::new(&text, &args[2..], None).unwrap();
    while !r.step(1e9).0 {}
    print!("{}", r.debug_state());
}
