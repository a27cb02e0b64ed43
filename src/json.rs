//! The JSON output: one document per game, with every move line's ruling, for
//! programs that grade or analyse games. The schema is in FORMAT.md.
//!
//! The document is streamed: each move is written as it is ruled, so memory
//! stays flat however long the move file is.

use std::io::{self, Write};

use serde::Serialize;

use crate::game::{Game, Move, Outcome, Violation};
use crate::movefile::MoveRecord;
use crate::recorder::Recorder;

/// Writes a game as one JSON document on one line.
pub struct JsonWriter<W> {
    out: W,
    first_move: bool,
}

impl<W: Write> JsonWriter<W> {
    /// A JSON writer to `out`; writes nothing yet.
    pub fn new(out: W) -> JsonWriter<W> {
        JsonWriter { out, first_move: true }
    }

    /// The underlying writer, unflushed.
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[derive(Serialize)]
struct PlayerJson<'a> {
    mark: String,
    name: &'a str,
}

#[derive(Serialize)]
struct BoardJson {
    rows: u32,
    cols: u32,
    win: u32,
}

#[derive(Serialize)]
struct MoveJson<'a> {
    line: u64,
    label: &'a str,
    square: &'a str,
    verdict: &'static str,
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    number: Option<u64>,
}

impl<W: Write> Recorder for JsonWriter<W> {
    fn start(&mut self, game: &Game) -> io::Result<()> {
        let players: Vec<PlayerJson<'_>> = game
            .players()
            .iter()
            .map(|(_, p)| PlayerJson { mark: p.mark.to_string(), name: &p.name })
            .collect();
        let g = game.board().geometry();
        self.out.write_all(b"{\"players\":")?;
        serde_json::to_writer(&mut self.out, &players)?;
        self.out.write_all(b",\"board\":")?;
        serde_json::to_writer(&mut self.out, &BoardJson { rows: g.rows(), cols: g.cols(), win: g.win() })?;
        self.out.write_all(b",\"moves\":[")
    }

    fn ruling(
        &mut self,
        record: &MoveRecord<'_>,
        ruling: Result<Move, Violation>,
        game: &Game,
    ) -> io::Result<()> {
        if !std::mem::take(&mut self.first_move) {
            self.out.write_all(b",")?;
        }
        let (verdict, number) = match ruling {
            Ok(_) => ("ok", Some(game.moves_made())),
            Err(violation) => (violation.message(), None),
        };
        let json =
            MoveJson { line: record.line, label: record.label, square: record.square, verdict, number };
        serde_json::to_writer(&mut self.out, &json).map_err(io::Error::from)
    }

    fn finish(&mut self, game: &Game) -> io::Result<()> {
        let winner = match game.outcome() {
            Some(Outcome::Win(player)) => Some(game.players().get(player).mark.to_string()),
            Some(Outcome::Cat) => Some("Cat".to_owned()),
            None => None,
        };
        self.out.write_all(b"],\"winner\":")?;
        serde_json::to_writer(&mut self.out, &winner)?;
        self.out.write_all(b"}\n")
    }
}

#[cfg(test)]
mod tests {
    use crate::referee::{Format, Options, referee};

    #[test]
    fn writes_one_document_with_every_ruling() {
        let options = Options { format: Format::Json, ..Options::default() };
        let mut out = Vec::new();
        referee(&b"t\nX: Ann Lee O: Bo\n\nX 05\nX 6\nY 1\n"[..], &mut out, &options).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            concat!(
                r#"{"players":[{"mark":"X","name":"Ann Lee"},{"mark":"O","name":"Bo"}],"#,
                r#""board":{"rows":3,"cols":3,"win":3},"moves":["#,
                r#"{"line":4,"label":"X","square":"05","verdict":"ok","move":1},"#,
                r#"{"line":5,"label":"X","square":"6","verdict":"double move"},"#,
                r#"{"line":6,"label":"Y","square":"1","verdict":"illegal player"}],"winner":null}"#,
                "\n"
            )
        );
    }
}
