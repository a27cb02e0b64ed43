//! Synthetic parts of a split grading or tournament, for `merge`'s scale
//! figures (benches/fleet.sh, BENCHMARKS.md): made cheaply with the
//! library's own writers, so `merge` reads them as it reads real parts.
//!
//! ```text
//! fleet_synth grade TEMPLATE_PART OUT SUBMISSIONS PARTS
//!     the one submission of TEMPLATE_PART (a `grade --partition slice:1/1`
//!     report) copied under SUBMISSIONS names, dealt into PARTS parts
//!     OUT/part-K (part.json and results.json).
//! fleet_synth event OUT BOTS PARTS
//!     a round robin of BOTS bots, both colours (BOTS × (BOTS − 1) games,
//!     each X winning on the top row), dealt into PARTS parts OUT/part-K:
//!     each game's record and seal (the key from TTT_REFEREE_RECORD_KEY),
//!     and event-part.json.
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use ttt_referee::arena::part::{PART_FILE, PartFile, Plan};
use ttt_referee::arena::seal::{self, RecordKey};
use ttt_referee::arena::{Ending, Entrant, Unbuilt};
use ttt_referee::board::Square;
use ttt_referee::game::Move;
use ttt_referee::grade::report::part::PartRecord;
use ttt_referee::grade::result::SubmissionResult;
use ttt_referee::partition::{Partition, Scheme};
use ttt_referee::player::PlayerId;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> u32 { args[i].parse().expect("a number") };
    match args.first().map(String::as_str) {
        Some("grade") if args.len() == 5 => {
            grade(Path::new(&args[1]), Path::new(&args[2]), number(3), number(4));
        }
        Some("event") if args.len() == 4 => event(Path::new(&args[1]), number(2), number(3)),
        _ => {
            eprintln!("usage: fleet_synth grade TEMPLATE_PART OUT SUBMISSIONS PARTS | event OUT BOTS PARTS");
            std::process::exit(2);
        }
    }
}

fn grade(template: &Path, out: &Path, submissions: u32, parts: u32) {
    let record: PartRecord =
        serde_json::from_slice(&fs::read(template.join("part.json")).expect("the template's part.json"))
            .expect("a part.json");
    let one = record.results.first().expect("a graded submission").clone();
    let class: Vec<String> = (0..submissions).map(|i| format!("student-{i:05}")).collect();
    for k in 1..=parts {
        let partition = Partition { scheme: Scheme::Slice, part: k, of: parts };
        let results = class
            .iter()
            .enumerate()
            .filter(|(i, name)| partition.part_of(*i, name) == k)
            .map(|(_, name)| {
                let mut result = one.clone();
                result.submission.clone_from(name);
                result
            })
            .collect();
        let part =
            PartRecord { partition, class: class.clone(), results, not_graded: Vec::new(), ..record.clone() };
        let dir = out.join(format!("part-{k}"));
        fs::create_dir_all(&dir).expect("the part's directory");
        let mut text = serde_json::to_vec(&part).expect("part.json");
        text.push(b'\n');
        fs::write(dir.join("part.json"), text).expect("part.json written");
        let results: Vec<SubmissionResult> = part.results.into_iter().map(SubmissionResult::from).collect();
        let mut json = Vec::new();
        ttt_referee::grade::report::json(&results, &part.limits, part.seed, false, &mut json)
            .expect("results.json");
        fs::write(dir.join("results.json"), json).expect("results.json written");
    }
}

fn event(out: &Path, bots: u32, parts: u32) {
    let names: Vec<String> = (0..bots).map(|i| format!("bot-{i:03}")).collect();
    let mut fixtures = Vec::new();
    for i in 0..names.len() {
        for j in 0..names.len() {
            if i != j {
                fixtures.push((fixtures.len() as u64 + 1, vec![i, j], None));
            }
        }
    }
    let plan = Plan {
        kind: "Tournament".to_owned(),
        rows: 3,
        cols: 3,
        win: 3,
        rule: "at-least".to_owned(),
        marks: "XO".to_owned(),
        seed: 0,
        move_micros: 1_000_000,
        clock: None,
        names: names.clone(),
        fixtures,
        openings: Vec::new(),
    };
    let entrants: Vec<Box<dyn Entrant>> = names
        .iter()
        .map(|n| -> Box<dyn Entrant> { Box::new(Unbuilt::new(n.clone(), "synthetic")) })
        .collect();
    let key = RecordKey::kept().expect("TTT_REFEREE_RECORD_KEY");
    let event = plan.event(&entrants, key.clone()).expect("an event");
    let settings = event.settings();
    // X on 1, 2, 3 (the top row), O on 4, 5.
    let moves: Vec<Move> = [0, 3, 1, 4, 2]
        .iter()
        .enumerate()
        .map(|(i, &square)| Move { player: PlayerId::new(i % 2), square: Square::from_index(square) })
        .collect();
    for k in 1..=parts {
        let partition = Partition { scheme: Scheme::Slice, part: k, of: parts };
        let dir = out.join(format!("part-{k}"));
        fs::create_dir_all(dir.join("games")).expect("the part's directory");
        for fixture in event.fixtures.iter().filter(|f| partition.holds_game(f.number)) {
            let text = event.heading(fixture).write(&moves, None, &Ending::Win(0));
            let path = dir.join(event.record_path(fixture.number));
            fs::write(&path, &text).expect("a record");
            fs::write(seal::seal_path(&path), key.seal(&settings, text.as_bytes())).expect("a seal");
        }
        let file = PartFile {
            version: 1,
            tool: env!("CARGO_PKG_VERSION").to_owned(),
            partition: partition.to_string(),
            fingerprint: plan.fingerprint(),
            plan: plan.clone(),
            stderr: BTreeMap::new(),
        };
        let mut out = fs::File::create(dir.join(PART_FILE)).expect(PART_FILE);
        serde_json::to_writer_pretty(&mut out, &file).expect(PART_FILE);
        out.write_all(b"\n").expect(PART_FILE);
    }
}
