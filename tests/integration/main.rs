//! Integration tests: the `ttt-referee` binary run as users and graders run it.

mod api;
mod attacks;
mod autograder;
mod class;
mod consoles;
mod criteria;
mod docker;
mod engines;
mod errors;
mod faults;
mod games;
mod golden;
mod grader_faults;
mod grading;
mod hostile;
mod install;
mod layering;
mod live;
mod matches;
mod output;
mod peers;
mod properties;
mod sandbox;
mod shrinking;
mod terminal;
mod util;
