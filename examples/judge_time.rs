//! Times the judge on a correct smalltalk game, and on the same game after
//! one long line of one-letter words (issue 36): `cargo run --example
//! judge_time -- MB WHICH` (WHICH: honest or long).
use std::time::Instant;

use ttt_referee::play::judge::judge;
use ttt_referee::play::{PlayError, Profile, session};

fn main() {
    let script = &b"computer\nhuman\n1\n2\n3\n4\n6\n7\n8\n9\n"[..];
    let profile = Profile::Smalltalk;
    let sides = profile.sides(None, None);
    let mut shown = Vec::new();
    {
        let mut console = profile.console(script, &mut shown);
        session(console.as_mut(), 0, |_, _| Ok::<(), PlayError>(())).unwrap();
    }
    let mut args = std::env::args().skip(1);
    let mb: usize = args.next().map_or(15, |a| a.parse().unwrap());
    let which = args.next().unwrap_or_else(|| "long".to_owned());
    let output = if which == "long" {
        let mut long = "a ".repeat(mb << 19).into_bytes();
        long.push(b'\n');
        long.extend_from_slice(&shown);
        long
    } else {
        shown
    };
    let start = Instant::now();
    let judged = judge(profile, sides, 0, script, &output).unwrap();
    println!(
        "{which} ({} bytes): {:.3} s, departure {:?}",
        output.len(),
        start.elapsed().as_secs_f64(),
        judged.departure
    );
}
