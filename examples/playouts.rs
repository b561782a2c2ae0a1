//! Plays a fixed number of random-playout moves (for instruction counting under callgrind).
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let rules = kalaha::rules::Rules::kalah64();
    let mut rng = kalaha::env::rng::stream(1, 0);
    let games = kalaha::bench::random_playouts::<4>(&rules, n, &mut rng);
    println!("{n} moves, {games} games");
}
