//! Integration tests: the `ttt-referee` binary run as users and graders run it.

mod errors;
mod golden;
mod grading;
mod output;
mod peers;
mod properties;
mod util;
