//! A streaming line splitter that accepts every line end real files come with.
//!
//! `BufRead::read_line` only knows `\n`; move files arrive with `\n`, `\r\n`
//! and lone `\r` (old Mac editors), sometimes mixed. This reader treats each of
//! the three as one line end, keeps one reusable buffer, and caps the length of
//! a line so that memory stays flat whatever the input is.

use std::io::{self, BufRead};

/// Why a line could not be read.
#[derive(Debug)]
pub(crate) enum LineError {
    /// The underlying reader failed.
    Io(io::Error),
    /// The line is longer than the reader's limit.
    TooLong,
}

/// Splits a byte stream into lines, numbering them from 1.
pub(crate) struct Lines<R> {
    inner: R,
    buf: Vec<u8>,
    number: u64,
    /// The previous line ended in `\r`: a `\n` right after it belongs to it.
    after_cr: bool,
    max_len: usize,
}

impl<R> Lines<R> {
    /// The number of the line last returned by [`Lines::next_line`] (1-based).
    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    /// The line last returned by [`Lines::next_line`], without its line end.
    pub(crate) fn current(&self) -> &[u8] {
        &self.buf
    }
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(inner: R, max_len: usize) -> Self {
        Lines { inner, buf: Vec::new(), number: 0, after_cr: false, max_len }
    }

    /// Reads the next line, without its line end; `None` at the end of input.
    ///
    /// A final line without a line end is still a line; an empty input has no
    /// lines at all.
    pub(crate) fn next_line(&mut self) -> Result<Option<&[u8]>, LineError> {
        self.buf.clear();
        let mut started = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(LineError::Io(e)),
            };
            if available.is_empty() {
                if !started {
                    return Ok(None);
                }
                break;
            }
            if self.after_cr {
                self.after_cr = false;
                if available[0] == b'\n' {
                    self.inner.consume(1);
                    continue;
                }
            }
            started = true;
            let (taken, consumed, end) = match line_end(available) {
                Some(i) => (i, i + 1, Some(available[i])),
                None => (available.len(), available.len(), None),
            };
            if self.buf.len() + taken > self.max_len {
                self.number += 1;
                return Err(LineError::TooLong);
            }
            self.buf.extend_from_slice(&available[..taken]);
            self.inner.consume(consumed);
            if let Some(end) = end {
                self.after_cr = end == b'\r';
                break;
            }
        }
        self.number += 1;
        Ok(Some(&self.buf))
    }
}

/// The first `\n` or `\r` in `bytes`.
///
/// memchr's top-level functions ask the CPU at run time whether it has AVX2,
/// and on a virtual machine that first `cpuid` took a third of the time of a
/// whole classic run. SSE2 is part of every x86-64 CPU, so its searcher is
/// chosen when compiling, with nothing asked at run time; lines are short, so
/// the wider vectors would gain little.
fn line_end(bytes: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(finder) = memchr::arch::x86_64::sse2::memchr::Two::new(b'\n', b'\r') {
        return finder.find(bytes);
    }
    memchr::arch::all::memchr::Two::new(b'\n', b'\r').find(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(input: &[u8]) -> Vec<String> {
        // A tiny capacity forces line ends to straddle buffer refills.
        let reader = io::BufReader::with_capacity(2, input);
        let mut lines = Lines::new(reader, 1024);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            out.push(String::from_utf8(line.to_vec()).unwrap());
        }
        out
    }

    #[test]
    fn every_line_end_is_one_line_end() {
        assert_eq!(split(b"a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(split(b"a\r\n\r\nb\r\r"), ["a", "", "b", ""]);
        assert_eq!(split(b"a\n\rb"), ["a", "", "b"]);
    }

    #[test]
    fn empty_input_has_no_lines_and_a_final_newline_adds_none() {
        assert!(split(b"").is_empty());
        assert_eq!(split(b"\n"), [""]);
        assert_eq!(split(b"x\n"), ["x"]);
    }

    #[test]
    fn numbers_lines_from_one() {
        let mut lines = Lines::new(&b"a\nb\n"[..], 10);
        lines.next_line().unwrap();
        assert_eq!(lines.number(), 1);
        lines.next_line().unwrap();
        assert_eq!(lines.number(), 2);
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_with_its_number() {
        let mut lines = Lines::new(&b"ok\n0123456789\n"[..], 5);
        assert!(lines.next_line().unwrap().is_some());
        assert!(matches!(lines.next_line(), Err(LineError::TooLong)));
        assert_eq!(lines.number(), 2);
    }
}
