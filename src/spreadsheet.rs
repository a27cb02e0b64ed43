//! What a spreadsheet reads: CSV tables whose every field is inert text and
//! never a formula. `grade`'s `grades.csv` and `check --format csv` both
//! write through [`CsvTable`].

use std::io::{self, Write};

use crate::text::inert;

/// A CSV table for spreadsheets and gradebooks, written to any `io::Write`:
/// every field made [`inert`] (and any that would be a formula made text),
/// then quoted (RFC 4180, `\n` line ends) when it holds a comma or a quote.
pub struct CsvTable<W: Write> {
    writer: csv::Writer<W>,
}

impl<W: Write> CsvTable<W> {
    /// A table written to `out`; every row must have as many fields as the
    /// first.
    pub fn new(out: W) -> CsvTable<W> {
        CsvTable { writer: csv::Writer::from_writer(out) }
    }

    /// Writes one row.
    pub fn row<I>(&mut self, fields: I) -> io::Result<()>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        self.writer.write_record(fields.into_iter().map(|f| no_formula(inert(f.as_ref()).into_owned())))?;
        Ok(())
    }

    /// Writes out what is buffered; a table dropped unfinished loses any
    /// error in doing so.
    pub fn finish(mut self) -> io::Result<()> {
        self.writer.flush()
    }

    /// Writes out what is buffered, and gives back the output.
    ///
    /// # Errors
    /// When what is buffered cannot be written.
    pub fn into_inner(self) -> io::Result<W> {
        self.writer.into_inner().map_err(csv::IntoInnerError::into_error)
    }
}

/// A field a spreadsheet would take for a formula (`=HYPERLINK(…)` as a
/// submission's name), with a `'` before it so it stays text; a number stays
/// a number.
fn no_formula(field: String) -> String {
    let formula = field.starts_with(['=', '+', '-', '@', '\t', '\r']) && field.parse::<f64>().is_err();
    if formula { format!("'{field}") } else { field }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_a_spreadsheet_would_run_stays_text() {
        let mut out = Vec::new();
        let mut table = CsvTable::new(&mut out);
        table.row(["=HYPERLINK(\"http://x\")", "+1+1", "@SUM(A1)", "-2", "-1.5", "ann", "a=b"]).unwrap();
        table.finish().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"'=HYPERLINK(\"\"http://x\"\")\",'+1+1,'@SUM(A1),-2,-1.5,ann,a=b\n"
        );
    }
}
