//! Student text written into Markdown feedback (GitHub Classroom's step
//! summary, Gradescope's `results.json` with `output_format` `md`): a table
//! cell or a line of prose, and a fenced block that nothing inside can
//! close. Both make the text inert first ([`crate::text`]), and both are cut
//! to a bound, so a 1 MB line costs a few hundred bytes.

use std::fmt::Write as _;

use crate::text::{inert_lines, markdown, said};

/// The most bytes of one table cell's text.
pub const CELL_BYTES: usize = 200;

/// The most bytes of one line in a fenced block.
pub const BLOCK_LINE_BYTES: usize = 300;

/// Text for a table cell or a line of prose: cut at [`CELL_BYTES`], then
/// [`markdown`] (control characters shown escaped, a newline too; nothing
/// in it Markdown, HTML or a link, no `|` that ends a cell).
#[must_use]
pub fn cell(text: &str) -> String {
    markdown(&said(text, CELL_BYTES))
}

/// `text` as a fenced block, ending with a newline: at most `max_lines`
/// lines (then a line saying how many there were), each made inert
/// ([`inert_lines`]: tabs kept) and cut at [`BLOCK_LINE_BYTES`], inside a
/// fence of more backticks than any run of them in it (and at least
/// three), which nothing inside can close. Markdown reads nothing inside a
/// fenced block as Markdown or HTML.
#[must_use]
pub fn block(text: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut body = String::new();
    for line in lines.iter().take(max_lines) {
        body.push_str(&inert_lines(&said(line, BLOCK_LINE_BYTES)));
        body.push('\n');
    }
    if lines.len() > max_lines {
        let _ = writeln!(body, "… ({} lines in all)", lines.len());
    }
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{body}{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_holds_no_markdown_or_html() {
        assert_eq!(cell("a|b `c` <b>x</b>\n*y*"), "a\\|b \\`c\\` \\<b\\>x\\<\\/b\\>\\\\u\\{a\\}\\*y\\*");
        let long = "é".repeat(1000);
        assert!(cell(&long).len() < 260, "{}", cell(&long).len());
    }

    #[test]
    fn a_fence_is_longer_than_any_backtick_run_inside() {
        assert_eq!(block("a ```` b\n`\n", 40), "`````text\na ```` b\n`\n`````\n");
        assert_eq!(block("plain", 40), "```text\nplain\n```\n");
        assert_eq!(block("1\n2\n3\n", 2), "```text\n1\n2\n… (3 lines in all)\n```\n");
    }
}
