//! What a match or tournament writes to `--report DIR` once its games are
//! over: `results.json` (every game and participant; FORMAT.md has the
//! schema), `standings.txt` (the table as the command prints it) and
//! `report.html` (the same, one self-contained page). Each file appears
//! whole, renamed into place; the games' records are written as they end
//! ([`super::event`]).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use maud::{DOCTYPE, PreEscaped, html};
use serde::Serialize;

use crate::output::{self, Durability};
use crate::text;

use super::contest::{Ending, Score};
use super::elo::Elo;
use super::entrant::ForfeitKind;
use super::event::{Event, EventError};
use super::result::GameResult;
use super::sprt::{self, Decision, Tally};
use super::standings::{self, Standings};

/// The first line of the table: what was played, such as `Match: 4 games
/// on 3x3, 3 in a row, seed 1`.
#[must_use]
pub fn summary(event: &Event<'_>, games: usize) -> String {
    format!(
        "{}: {games} game{} on {}, seed {}",
        event.kind,
        if games == 1 { "" } else { "s" },
        event.geometry,
        event.seed
    )
}

/// The table as the command prints it and `standings.txt` holds it.
#[must_use]
pub fn standings_text(event: &Event<'_>, results: &[GameResult], standings: &Standings) -> String {
    let mut text = format!("{}\n\n{}", summary(event, results.len()), standings.text());
    if let Some(sprt) = &event.sprt {
        text.push('\n');
        text.push_str(&sprt::summary(sprt, &Tally::of(results), event.paired()));
        text.push('\n');
    }
    text
}

/// Writes `results.json`, `standings.txt` and `report.html` into `dir`.
///
/// # Errors
/// [`EventError::Write`] naming the file that could not be written.
pub fn write(
    dir: &Path,
    event: &Event<'_>,
    results: &[GameResult],
    standings: &Standings,
) -> Result<(), EventError> {
    write_partial(dir, event, results, standings, &[])
}

/// `games 2, 5, 8` (the first [`LISTED`] of them, then how many more).
#[must_use]
pub fn games_list(numbers: &[u64]) -> String {
    let shown: Vec<String> = numbers.iter().take(LISTED).map(u64::to_string).collect();
    let more = numbers.len().saturating_sub(LISTED);
    format!(
        "game{} {}{}",
        if numbers.len() == 1 { "" } else { "s" },
        shown.join(", "),
        if more == 0 { String::new() } else { format!(" and {more} more") }
    )
}

/// How many missing games a message or a report lists by number
/// (`results.json` lists them all).
const LISTED: usize = 50;

/// The line a partial event's standings end with (`merge
/// --allow-partial`): how many games it holds, and which are missing.
#[must_use]
pub fn partial_text(event: &Event<'_>, played: usize, missing: &[u64]) -> String {
    format!(
        "partial: {played} of {} games; missing {} (their parts not merged or not finished)\n",
        event.fixtures.len(),
        games_list(missing)
    )
}

/// [`write`], for an event missing the games `missing` (`merge
/// --allow-partial`): each report says it is partial and which games it
/// lacks. With none missing, exactly what [`write`] writes.
///
/// # Errors
/// [`EventError::Write`] naming the file that could not be written.
pub fn write_partial(
    dir: &Path,
    event: &Event<'_>,
    results: &[GameResult],
    standings: &Standings,
    missing: &[u64],
) -> Result<(), EventError> {
    let file = |name: &str, write: &dyn Fn(&mut dyn Write) -> io::Result<()>| {
        let path = dir.join(name);
        output::replace_whole(&path, Durability::Renamed, |out| write(out))
            .map_err(|source| EventError::Write { path, source })
    };
    file("results.json", &|out| json(event, results, standings, missing, out))?;
    file("standings.txt", &|out| {
        out.write_all(standings_text(event, results, standings).as_bytes())?;
        if missing.is_empty() {
            return Ok(());
        }
        out.write_all(format!("\n{}", partial_text(event, results.len(), missing)).as_bytes())
    })?;
    file("report.html", &|out| html_page(event, results, standings, missing, out))
}

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    partial: bool,
    #[serde(skip_serializing_if = "<[u64]>::is_empty")]
    missing_games: &'a [u64],
    event: String,
    board: Board,
    seed: u64,
    move_time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    clock: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sprt: Option<SprtShown>,
    games: Vec<GameShown<'a>>,
    participants: Vec<ParticipantShown<'a>>,
}

#[derive(Serialize)]
struct SprtShown {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: &'static str,
    counts: &'static str,
    llr: f64,
    lower: f64,
    upper: f64,
    decision: &'static str,
    summary: String,
}

#[derive(Serialize)]
struct Board {
    rows: u32,
    cols: u32,
    win: u32,
}

#[derive(Serialize)]
struct GameShown<'a> {
    number: u64,
    players: Vec<PlayerShown<'a>>,
    winner: Option<&'a str>,
    reason: Reason<'a>,
    moves: usize,
    record: Option<String>,
    resumed: bool,
}

#[derive(Serialize)]
struct PlayerShown<'a> {
    name: &'a str,
    mark: String,
    stderr: Option<&'a str>,
}

#[derive(Serialize)]
struct Reason<'a> {
    kind: &'static str,
    forfeit: Option<ForfeitKind>,
    player: Option<&'a str>,
    detail: Option<&'a str>,
}

#[derive(Serialize)]
struct ParticipantShown<'a> {
    name: &'a str,
    rank: usize,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    points: f64,
    forfeits: BTreeMap<&'static str, u64>,
    elo: Option<Elo>,
}

/// `results.json`.
fn json(
    event: &Event<'_>,
    results: &[GameResult],
    standings: &Standings,
    missing: &[u64],
    out: &mut dyn Write,
) -> io::Result<()> {
    let names = event.names();
    let name = |i: usize| names[i].as_str();
    let games = results
        .iter()
        .map(|r| {
            let players = r
                .seats
                .iter()
                .enumerate()
                .map(|(seat, &who)| PlayerShown {
                    name: name(who),
                    mark: r.marks[seat].to_string(),
                    stderr: r.stderr.as_ref().map(|all| all[seat].as_str()),
                })
                .collect();
            let reason = match &r.ending {
                Ending::Win(_) => Reason { kind: "win", forfeit: None, player: None, detail: None },
                Ending::Draw => Reason { kind: "draw", forfeit: None, player: None, detail: None },
                Ending::Forfeit { seat, forfeit } => Reason {
                    kind: "forfeit",
                    forfeit: Some(forfeit.kind),
                    player: Some(name(r.seats[*seat])),
                    detail: Some(&forfeit.detail),
                },
            };
            GameShown {
                number: r.number,
                players,
                winner: r.ending.winner(r.seats.len()).map(|seat| name(r.seats[seat])),
                reason,
                moves: r.moves,
                record: r.record.as_ref().map(|p| p.to_string_lossy().replace('\\', "/")),
                resumed: r.resumed,
            }
        })
        .collect();
    let ranks: BTreeMap<usize, usize> =
        standings.ranked().into_iter().enumerate().map(|(rank, i)| (i, rank + 1)).collect();
    let participants = standings
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| ParticipantShown {
            name: &row.name,
            rank: ranks[&i],
            games: row.games,
            wins: row.wins,
            draws: row.draws,
            losses: row.losses,
            #[allow(clippy::cast_precision_loss)] // far below 2^52
            points: row.half_points as f64 / 2.0,
            forfeits: ForfeitKind::ALL
                .into_iter()
                .map(|kind| (kind.name(), row.forfeits.get(&kind).copied().unwrap_or(0)))
                .collect(),
            elo: row.elo,
        })
        .collect();
    let document = Document {
        version: 1,
        partial: !missing.is_empty(),
        missing_games: missing,
        event: event.kind.to_lowercase(),
        board: Board { rows: event.geometry.rows(), cols: event.geometry.cols(), win: event.geometry.win() },
        seed: event.seed,
        move_time: event.move_time.as_secs_f64(),
        clock: event.clock.map(|clock| clock.to_string()),
        sprt: event.sprt.map(|sprt| {
            let (tally, paired) = (Tally::of(results), event.paired());
            let llr = tally.llr(&sprt, paired);
            let (lower, upper) = sprt.bounds();
            SprtShown {
                elo0: sprt.elo0,
                elo1: sprt.elo1,
                alpha: sprt.alpha,
                beta: sprt.beta,
                model: "logistic",
                counts: if paired { "pentanomial" } else { "trinomial" },
                llr,
                lower,
                upper,
                decision: match sprt.decide(llr) {
                    Decision::H0 => "H0",
                    Decision::H1 => "H1",
                    Decision::Continue => "continue",
                },
                summary: sprt::summary(&sprt, &tally, paired),
            }
        }),
        games,
        participants,
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

const STYLE: &str = "
body { font: 15px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { padding: .3em .7em; border: 1px solid #ddd; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.forfeit { color: #c62828; }
details > summary { cursor: pointer; }
pre { margin: .3em 0; padding: .5em; background: #fafafa; border: 1px solid #ddd; overflow-x: auto; font-size: .85em; }
";

/// `report.html`: the standings, the cross table, a section per
/// participant (its games), then every game. Every
/// name and text is made inert ([`text::inert`], [`text::inert_lines`]),
/// then escaped (maud escapes what it is given).
fn html_page(
    event: &Event<'_>,
    results: &[GameResult],
    standings: &Standings,
    missing: &[u64],
    out: &mut dyn Write,
) -> io::Result<()> {
    let names: Vec<String> = event.names().iter().map(|n| text::inert(n).into_owned()).collect();
    let order = standings.ranked();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (event.kind) " — ttt-referee" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { (event.kind) }
                @if !missing.is_empty() {
                    p.partial role="alert" style="background: #fff3cd; border: 2px solid #ef6c00; padding: .5em 1em;" {
                        strong { "Partial: " } (results.len()) " of " (event.fixtures.len()) " games; missing "
                        (games_list(missing)) " (their parts not merged or not finished)."
                    }
                }
                p { (summary(event, results.len())) ", " (format!("{} s", event.move_time.as_secs_f64())) " a move." }
                h2 { "Standings" }
                table {
                    thead { tr {
                        th { "#" } th { "participant" } th { "games" } th { "wins" } th { "draws" } th { "losses" }
                        th { "points" } th { "Elo (95% interval)" } th { "forfeits" }
                    } }
                    tbody {
                        @for (rank, &i) in order.iter().enumerate() {
                            @let r = &standings.rows[i];
                            tr {
                                td.num { (rank + 1) } td { a href={ "#p-" (i) } { (text::inert(&r.name)) } } td.num { (r.games) } td.num { (r.wins) }
                                td.num { (r.draws) } td.num { (r.losses) } td.num { (r.points()) }
                                td.num { (r.elo.map_or_else(|| "-".to_owned(), |e| standings::elo_text(&e))) }
                                td { (r.forfeits.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", ")) }
                            }
                        }
                    }
                }
                h2 { "Cross table" }
                p { "Points the row scored against the column, of the games they played together." }
                table {
                    thead { tr { th {} @for &b in &order { th { (names[b]) } } } }
                    tbody {
                        @for &a in &order {
                            tr {
                                th { (names[a]) }
                                @for &b in &order {
                                    @let c = standings.cross[a][b];
                                    td.num {
                                        @if a == b { "-" } @else if c.games == 0 { "." }
                                        @else { (standings::half_points(c.half_points)) "/" (c.games) }
                                    }
                                }
                            }
                        }
                    }
                }
                h2 { "Participants" }
                @for &i in &order { (participant_section(i, &names, results, standings)) }
                h2 { "Games" }
                table {
                    thead { tr { th { "game" } th { "players" } th { "result" } th { "moves" } th { "record" } } }
                    tbody {
                        @for r in results {
                            tr {
                                td.num { (r.number) }
                                td { @for (seat, &who) in r.seats.iter().enumerate() {
                                    @if seat > 0 { " vs " } (names[who]) " (" (r.marks[seat]) ")"
                                } }
                                td.forfeit[matches!(r.ending, Ending::Forfeit { .. })] {
                                    (text::inert(&super::record::result(&r.ending, &r.marks)))
                                    @if let Some(stderr) = &r.stderr {
                                        @for (seat, said) in stderr.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
                                            details { summary { "standard error of " (names[r.seats[seat]]) } pre { (text::inert_lines(said)) } }
                                        }
                                    }
                                }
                                td.num { (r.moves) }
                                td { @if let Some(path) = &r.record {
                                    @let path = path.to_string_lossy().replace('\\', "/");
                                    a href=(path) { (path) }
                                } }
                            }
                        }
                    }
                }
            }
        }
    };
    out.write_all(page.into_string().as_bytes())
}

/// Participant `who`'s section of the page: its standing, then each of
/// its games, its side, its opponents, what it scored and how the game
/// ended, a forfeit's detail and its standard error in that game.
fn participant_section(
    who: usize,
    names: &[String],
    results: &[GameResult],
    standings: &Standings,
) -> maud::Markup {
    let row = &standings.rows[who];
    html! {
        section.participant #{ "p-" (who) } {
            h3 { (names[who]) " — " (row.points()) " of " (row.games) }
            p { (row.wins) " won, " (row.draws) " drawn, " (row.losses) " lost"
                @if !row.forfeits.is_empty() {
                    " (forfeited: " (row.forfeits.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", ")) ")"
                }
                "." }
            table {
                thead { tr { th { "game" } th { "as" } th { "against" } th { "for it" } th { "how it ended" } th { "record" } } }
                tbody {
                    @for r in results {
                        @if let Some(seat) = r.seats.iter().position(|&p| p == who) {
                            tr {
                                td.num { (r.number) }
                                td { (r.marks[seat]) }
                                td { (r.seats.iter().filter(|&&p| p != who).map(|&p| names[p].as_str()).collect::<Vec<_>>().join(", ")) }
                                td { (match r.score(seat) { Score::Win => "win", Score::Draw => "draw", Score::Loss => "loss" }) }
                                td.forfeit[matches!(&r.ending, Ending::Forfeit { seat: s, .. } if *s == seat)] {
                                    (text::inert(&super::record::result(&r.ending, &r.marks)))
                                    @if let Some(said) = r.stderr.as_ref().and_then(|all| all.get(seat)).filter(|t| !t.is_empty()) {
                                        details { summary { "its standard error" } pre { (text::inert_lines(said)) } }
                                    }
                                }
                                td { @if let Some(path) = &r.record {
                                    @let path = path.to_string_lossy().replace('\\', "/");
                                    a href=(path) { (path) }
                                } }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::arena::contest::tests::Scripted;
    use crate::arena::entrant::Entrant;
    use crate::arena::schedule;
    use crate::board::Geometry;
    use crate::player::Mark;

    #[test]
    fn every_name_and_text_is_escaped_in_the_page_and_kept_in_the_json() {
        let sly = "<script>alert(1)</script>";
        let entrants: Vec<Box<dyn Entrant>> = vec![
            Box::new(Scripted::new(sly, &["1", "2", "<b>3</b>"])),
            Box::new(Scripted::new("o&o", &["4", "5", "6"])),
        ];
        let event = Event {
            kind: "Match",
            geometry: Geometry::CLASSIC,
            marks: vec![Mark::X, Mark::O],
            seed: 0,
            move_time: Duration::from_secs(1),
            clock: None,
            sprt: None,
            entrants: &entrants,
            fixtures: schedule::match_games(2, 2, 0),
            openings: Vec::new(),
            key: crate::arena::seal::RecordKey::ephemeral("a test"),
            part: None,
            stop: None,
        };
        let dir = tempfile::tempdir().unwrap();
        let results = event.run(Some(dir.path()), 1, &mut |_| ()).unwrap();
        let standings = Standings::new(&event.names(), &results);
        write(dir.path(), &event, &results, &standings).unwrap();
        let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
        assert!(!html.contains("<script>alert") && !html.contains("<b>3"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && html.contains("o&amp;o"), "{html}");
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
        assert_eq!(json["participants"][0]["name"], sly);
        let first = &json["games"][0];
        assert_eq!(first["reason"]["kind"], "forfeit");
        assert_eq!(first["reason"]["forfeit"], "not-a-number");
        assert_eq!(first["reason"]["player"], sly);
        assert_eq!(first["reason"]["detail"], "answered `<b>3</b>`; expected a square from 1 to 9");
        assert_eq!(first["winner"], "o&o");
        assert_eq!(first["players"][0]["stderr"], "0 answers left");
        assert_eq!(json["games"][1]["reason"]["kind"], "win");
        assert_eq!(json["participants"][1]["points"], 2.0);
        // A section per participant, its games and its forfeit.
        assert_eq!(html.matches(r#"<section class="participant""#).count(), 2, "{html}");
        assert!(html.contains(r##"<a href="#p-0">&lt;script&gt;"##), "{html}");
        assert!(
            html.contains(r#"<td class="forfeit">X wins by forfeit of O"#)
                || html.contains(r#"<td class="forfeit">O wins by forfeit of X"#),
            "{html}"
        );
        let text = std::fs::read_to_string(dir.path().join("standings.txt")).unwrap();
        assert!(text.starts_with("Match: 2 games on 3x3, 3 in a row, seed 0\n\n"), "{text}");
    }
}
