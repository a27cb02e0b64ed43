//! Computer players: the perfect player never loses, the solver knows the
//! published values, and `rules` and `minimax` play as their seeds say.

use std::collections::HashSet;
use std::time::Duration;

use ttt_referee::board::{Geometry, Square, Storage};
use ttt_referee::engine::{Engine, EngineError, EngineKind, Value, solve};
use ttt_referee::game::{Game, Move, Outcome};
use ttt_referee::play::{Side, Thinking, play};
use ttt_referee::player::{Mark, Player, PlayerId, Players};

fn new_game(geometry: Geometry) -> Game {
    Game::new(Players::classic("a", "b"), geometry, Storage::Auto)
}

/// Plays a whole game, X's engine first; returns its outcome.
fn play_out(x: &mut Engine, o: &mut Engine, geometry: Geometry) -> Outcome {
    let mut game = new_game(geometry);
    loop {
        if let Some(outcome) = game.outcome() {
            return outcome;
        }
        let player = game.next_player();
        let engine = if player == PlayerId::new(0) { &mut *x } else { &mut *o };
        let choice = engine.choose(&game).expect("a move");
        game.play_unchecked(Move { player, square: choice.square });
    }
}

/// A game after the moves `squares` (1-based), X first.
fn after(geometry: Geometry, squares: &[u64]) -> Game {
    let mut game = new_game(geometry);
    for &n in squares {
        let mv = Move { player: game.next_player(), square: Square::from_index(n - 1) };
        game.play_unchecked(mv);
    }
    game
}

#[test]
fn perfect_against_perfect_is_always_cat() {
    let mut x = Engine::new(EngineKind::Perfect, 1);
    let mut o = Engine::new(EngineKind::Perfect, 2);
    assert_eq!(play_out(&mut x, &mut o, Geometry::CLASSIC), Outcome::Cat);
}

#[test]
fn perfect_never_loses_to_rules_or_minimax() {
    let o_wins = Outcome::Win(PlayerId::new(1));
    let x_wins = Outcome::Win(PlayerId::new(0));
    for seed in 0..40 {
        for other in [EngineKind::Rules, EngineKind::Minimax] {
            let mut perfect = Engine::new(EngineKind::Perfect, seed);
            let mut opponent = Engine::new(other, seed);
            let as_x = play_out(&mut perfect, &mut opponent, Geometry::CLASSIC);
            assert_ne!(as_x, o_wins, "perfect lost as X to {other:?}, seed {seed}");
            let as_o = play_out(&mut opponent, &mut perfect, Geometry::CLASSIC);
            assert_ne!(as_o, x_wins, "perfect lost as O to {other:?}, seed {seed}");
        }
    }
}

#[test]
fn the_solver_knows_the_published_values() {
    let value = |rows, cols, win| solve(&new_game(Geometry::new(rows, cols, win).unwrap()));
    assert_eq!(value(3, 3, 3), Value::Draw);
    assert_eq!(value(4, 4, 3), Value::Win);
    assert_eq!(value(4, 3, 3), Value::Win);
    assert_eq!(value(4, 4, 4), Value::Draw);
}

#[test]
fn perfect_wins_fastest_and_loses_slowest() {
    // X: 1, 2 and 5; O: 4, 7. X can win at once with 3 or 9: it does not
    // play for a slower win.
    let game = after(Geometry::CLASSIC, &[1, 4, 2, 7, 5]);
    let mut o = Engine::new(EngineKind::Perfect, 0);
    // O to move cannot stop both 3 and 9: a loss, delayed by blocking one.
    let choice = o.choose(&game).unwrap();
    assert_eq!(choice.value, Some(Value::Loss));
    assert!([3, 9].contains(&choice.square.number()), "{choice:?}");
    let game = after(Geometry::CLASSIC, &[1, 4, 2, 7]);
    let mut x = Engine::new(EngineKind::Perfect, 0);
    let choice = x.choose(&game).unwrap();
    assert_eq!((choice.square.number(), choice.value), (3, Some(Value::Win)));
}

#[test]
fn rules_wins_then_blocks_then_takes_the_centre_then_a_corner() {
    let mut rules = Engine::new(EngineKind::Rules, 7);
    // X to move with 1 and 2: wins at 3 rather than blocking O's 4-5-6.
    assert_eq!(rules.choose(&after(Geometry::CLASSIC, &[1, 4, 2, 5])).unwrap().square.number(), 3);
    // O to move must block X's 1-2.
    assert_eq!(rules.choose(&after(Geometry::CLASSIC, &[1, 9, 2])).unwrap().square.number(), 3);
    // Nothing to win or block: the centre.
    assert_eq!(rules.choose(&after(Geometry::CLASSIC, &[1])).unwrap().square.number(), 5);
    // Centre taken: a free corner.
    let corner = rules.choose(&after(Geometry::CLASSIC, &[5])).unwrap().square.number();
    assert!([1, 3, 7, 9].contains(&corner), "{corner}");
}

#[test]
fn rules_is_seeded() {
    let game = after(Geometry::CLASSIC, &[5]);
    let pick = |seed| Engine::new(EngineKind::Rules, seed).choose(&game).unwrap().square;
    assert_eq!(pick(3), pick(3));
    let corners: std::collections::BTreeSet<u64> = (0..40).map(|s| pick(s).number()).collect();
    assert_eq!(corners.into_iter().collect::<Vec<_>>(), [1, 3, 7, 9]);
}

#[test]
fn rules_blocks_any_opponent_with_three_players() {
    let players =
        "XOZ".chars().map(|c| Player { mark: Mark::new(c).unwrap(), name: c.to_string() }).collect();
    let mut game = Game::new(Players::new(players).unwrap(), Geometry::new(4, 4, 3).unwrap(), Storage::Auto);
    // X 16, O 1, Z 6, X 13, O 2, Z 7: X (to move) has no win; Z threatens 5 and
    // 8, O threatens 3. The lowest threatened square is blocked.
    for n in [16, 1, 6, 13, 2, 7] {
        let player = game.next_player();
        game.play_unchecked(Move { player, square: Square::from_index(n - 1) });
    }
    let choice = Engine::new(EngineKind::Rules, 0).choose(&game).unwrap();
    assert_eq!(choice.square.number(), 3);
}

#[test]
fn minimax_breaks_ties_by_the_lowest_square() {
    let mut minimax = Engine::new(EngineKind::Minimax, 0);
    // On the empty board no depth-5 line forces anything: all equal, so 1.
    assert_eq!(minimax.choose(&new_game(Geometry::CLASSIC)).unwrap().square.number(), 1);
    // O (MIN) blocks X's 1-2.
    assert_eq!(minimax.choose(&after(Geometry::CLASSIC, &[1, 9, 2])).unwrap().square.number(), 3);
    // O takes its own win.
    assert_eq!(minimax.choose(&after(Geometry::CLASSIC, &[1, 4, 2, 5, 9])).unwrap().square.number(), 6);
}

#[test]
fn engines_say_what_they_cannot_do() {
    let done = after(Geometry::CLASSIC, &[1, 4, 2, 5, 3]);
    assert_eq!(Engine::new(EngineKind::Perfect, 0).choose(&done), Err(EngineError::GameOver));
    let big = new_game(Geometry::new(9, 9, 5).unwrap());
    assert_eq!(
        Engine::new(EngineKind::Perfect, 0).choose(&big).unwrap_err().to_string(),
        "the perfect engine plays boards of up to 64 squares; this one has 81"
    );
    assert!(Engine::new(EngineKind::Rules, 0).choose(&big).is_ok());
    let players =
        "XOZ".chars().map(|c| Player { mark: Mark::new(c).unwrap(), name: c.to_string() }).collect();
    let three = Game::new(Players::new(players).unwrap(), Geometry::CLASSIC, Storage::Auto);
    assert_eq!(
        Engine::new(EngineKind::Minimax, 0).choose(&three),
        Err(EngineError::TwoPlayersOnly("minimax"))
    );
}

fn hint(args: &[&str]) -> (i32, String) {
    let out = crate::util::referee().arg("hint").args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn hint_names_the_square_and_its_value() {
    // X holds 5 and 9, O holds 1; O to move: 3 keeps the draw.
    assert_eq!(hint(&["fixtures/classic/moves-run-out.txt"]), (0, "3 draw\n".to_owned()));
    assert_eq!(hint(&["fixtures/classic/no-moves.txt"]), (0, "1 draw\n".to_owned()));
    // 3 × 4, three in a row: the first player's forced win.
    assert_eq!(hint(&["fixtures/variants/boards-final-unfinished.txt"]), (0, "2 win\n".to_owned()));
    assert_eq!(hint(&["fixtures/classic/moves-run-out.txt", "--engine", "minimax"]), (0, "2\n".to_owned()));
    let (code, first) = hint(&["fixtures/classic/moves-run-out.txt", "--engine", "rules", "--seed", "3"]);
    assert_eq!(
        (code, hint(&["fixtures/classic/moves-run-out.txt", "--engine", "rules", "--seed", "3"]).1),
        (0, first)
    );
}

#[test]
fn hint_refuses_what_it_cannot_answer() {
    assert_eq!(
        hint(&["fixtures/TTTmoves.txt"]),
        (
            2,
            "ttt-referee: fixtures/TTTmoves.txt: the game is over (Winner: Cat); there is no move to hint\n"
                .to_owned()
        )
    );
    let three = "Game\nX: a O: b Z: c\nBoard: 4x4, 3 in a row\n\nX 1\n";
    let out = crate::util::referee().args(["hint", "-"]).write_stdin(three).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ttt-referee: <stdin>: the perfect engine plays two-player games only\n"
    );
    let (code, text) = hint(&["fixtures/malformed/empty.txt"]);
    assert_eq!(code, 2);
    assert!(text.starts_with("ttt-referee: fixtures/malformed/empty.txt:1: the file is empty"), "{text}");
}

#[test]
fn play_records_a_game_that_referees_to_its_transcript() {
    let dir = tempfile::tempdir().unwrap();
    for (x, o, board, seed) in [
        ("rules", "perfect", "3x3", "1"),
        ("minimax", "rules", "4x4", "7"),
        ("perfect", "perfect", "3x3", "0"),
    ] {
        let (record, transcript) = (dir.path().join("game.txt"), dir.path().join("game.out"));
        let out = crate::util::referee()
            .args([
                "play", "--x", x, "--o", o, "--board", board, "--seed", seed, "--style", "grid", "--record",
            ])
            .arg(&record)
            .arg("-o")
            .arg(&transcript)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let again = crate::util::referee().arg(&record).args(["--style", "grid"]).output().unwrap();
        assert_eq!(again.stdout, std::fs::read(&transcript).unwrap(), "{x} vs {o}");
        let console = String::from_utf8(out.stdout).unwrap();
        assert!(console.ends_with(" wins.\n") || console.ends_with("Cat's game: a draw.\n"), "{console}");
    }
}

#[test]
fn a_person_plays_again_into_numbered_files() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("game.txt");
    // A person who types every square in order finishes a game before the
    // ninth line: play it through the library to see how much one game
    // reads, then script two such games with "y" between them and "n" after.
    let squares = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    let mut rest = squares.as_bytes();
    let sides = [Side::Human, Side::Engine(EngineKind::Perfect)];
    let played =
        play(sides, Thinking::default(), Geometry::CLASSIC, 0, &mut rest, &mut std::io::sink()).unwrap();
    assert!(played.game.outcome().is_some());
    let one_game = &squares[..squares.len() - rest.len()];
    let script = format!("{one_game}y\n{one_game}n\n");
    let out = crate::util::referee()
        .args(["play", "--x", "human", "--o", "perfect", "--record"])
        .arg(&record)
        .write_stdin(script)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let console = String::from_utf8(out.stdout).unwrap();
    assert_eq!(console.matches("Play again? [y/N] ").count(), 2, "{console}");
    for name in ["game.txt", "game-2.txt"] {
        let moves = dir.path().join(name);
        let refereed = crate::util::referee().arg(&moves).output().unwrap();
        assert!(refereed.status.success());
        let text = String::from_utf8(refereed.stdout).unwrap();
        assert!(!text.contains(" illegal ") && !text.contains("marked square"), "{text}");
        assert!(
            text.ends_with("Winner: O\n") || text.ends_with("Winner: Cat\n"),
            "perfect never loses: {text}"
        );
    }
    assert!(!dir.path().join("game-3.txt").exists());
}

#[test]
fn play_refuses_an_engine_that_cannot_play_the_board() {
    let out = crate::util::referee()
        .args(["play", "--x", "perfect", "--o", "rules", "--board", "9x9", "--win", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ttt-referee: the perfect engine plays boards of up to 64 squares; this one has 81\n"
    );
}

#[test]
fn hint_out_of_time_names_its_best_square_and_says_unknown() {
    // 8 × 8, five in a row, after X 28: far too big to prove in a moment
    // (6 × 6 is proven drawn in a hundredth of a second now, and 7 × 7 after
    // X 25 in about 2 s since pairing strategies).
    let moves = "Game\nX: a O: b\nBoard: 8x8, 5 in a row\n\nX 28\n";
    let out =
        crate::util::referee().args(["hint", "--time", "0.2", "-"]).write_stdin(moves).output().unwrap();
    let (stdout, stderr) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let square: u64 = stdout.strip_suffix(" unknown\n").and_then(|s| s.parse().ok()).expect(&stdout);
    assert!((1..=64).contains(&square) && square != 28, "{stdout}");
    assert!(
        stderr.starts_with("<stdin>: the value is not proven: in 0.2 s the search looked ")
            && stderr.ends_with("give it more --time\n"),
        "{stderr}"
    );
}

#[test]
fn hint_refuses_a_time_that_is_not_one() {
    for time in ["0", "-1", "soon", "NaN"] {
        let (code, text) = hint(&["fixtures/classic/no-moves.txt", &format!("--time={time}")]);
        assert_eq!(code, 2, "{text}");
        assert!(
            text.contains(&format!("`{time}` is not a time; expected a number of seconds above 0")),
            "{text}"
        );
    }
}

#[test]
fn a_search_stopped_early_claims_only_what_it_proved() {
    // Positions on 5 × 5, four in a row (4 × 4 is settled at its root by
    // the potential bound, and 4 × 5 in fewer positions than the clock is
    // looked at after): each solves in a fraction of a second, so a budget
    // of a microsecond stops some searches early and not others. Either
    // way, a value given is the true one and the square is free.
    let geometry = Geometry::new(5, 5, 4).unwrap();
    let mut stopped = 0;
    for opening in [&[][..], &[12], &[6, 12], &[7, 12, 13], &[1, 2, 3, 6, 7]] {
        let game = after(geometry, opening);
        let truth = solve(&game);
        let mut engine = Engine::new(EngineKind::Perfect, 0).time_limit(Some(Duration::from_micros(1)));
        let choice = engine.choose(&game).unwrap();
        assert!(game.board().get(choice.square).is_none(), "{choice:?}");
        match choice.value {
            Some(value) => assert_eq!(value, truth, "{opening:?}"),
            None => stopped += 1,
        }
        let unlimited = Engine::new(EngineKind::Perfect, 0).choose(&game).unwrap();
        assert_eq!(unlimited.value, Some(truth));
    }
    assert!(stopped > 0, "no search was stopped early, so this test tested nothing");
}

#[test]
fn out_of_time_the_engine_still_takes_a_win_and_blocks_a_loss() {
    // 6 × 6, five in a row: X holds 1-4 in the top row; O to move must block 5.
    let geometry = Geometry::new(6, 6, 5).unwrap();
    let game = after(geometry, &[1, 36, 2, 35, 3, 34, 4]);
    let mut engine = Engine::new(EngineKind::Perfect, 0).time_limit(Some(Duration::from_millis(50)));
    assert_eq!(engine.choose(&game).unwrap().square.number(), 5);
    // And X, to move with 1-4, wins at 5 at once.
    let game = after(geometry, &[1, 36, 2, 35, 3, 34, 4, 33]);
    let choice = engine.choose(&game).unwrap();
    assert_eq!((choice.square.number(), choice.value), (5, Some(Value::Win)));
}

#[test]
fn a_long_search_piped_prints_no_spinner() {
    // Longer than the second after which a terminal would see a spinner
    // (8 × 8 with five in a row: 7 × 7 after X 25 is proven in about 2 s).
    let moves = "Game\nX: a O: b\nBoard: 8x8, 5 in a row\n\nX 28\n";
    let out =
        crate::util::referee().args(["hint", "--time", "1.3", "-"]).write_stdin(moves).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("<stdin>: the value is not proven") && stderr.lines().count() == 1,
        "{stderr:?}"
    );
    assert!(String::from_utf8(out.stdout).unwrap().ends_with(" unknown\n"));
}

/// Every position reachable after `game`, with play going on, once each.
fn positions(game: &Game, seen: &mut HashSet<Vec<Option<PlayerId>>>, out: &mut Vec<Game>) {
    let cells = game.board().geometry().cells();
    let board = (0..cells).map(|s| game.board().get(Square::from_index(s))).collect();
    if game.outcome().is_some() || !seen.insert(board) {
        return;
    }
    out.push(game.clone());
    for s in 0..game.board().geometry().cells() {
        let square = Square::from_index(s);
        if game.board().get(square).is_none() {
            let mut next = game.clone();
            next.play_unchecked(Move { player: game.next_player(), square });
            positions(&next, seen, out);
        }
    }
}

#[test]
fn a_one_megabyte_table_proves_what_a_large_one_does() {
    // 3 × 3: every position reachable in play.
    let mut all = Vec::new();
    positions(&new_game(Geometry::CLASSIC), &mut HashSet::new(), &mut all);
    assert_eq!(all.len(), 4520);
    for game in &all {
        let small = Engine::new(EngineKind::Perfect, 0).hash_mb(1).choose(game).unwrap();
        let large = Engine::new(EngineKind::Perfect, 0).hash_mb(64).choose(game).unwrap();
        assert_eq!(small, large);
        assert!(small.value.is_some());
    }
    // 4 × 4, four in a row: positions whose searches far outgrow 1 MB
    // (about 44,000 entries), so entries are replaced all the time.
    let geometry = Geometry::new(4, 4, 4).unwrap();
    for opening in [&[][..], &[6], &[1, 16], &[6, 7, 11], &[1, 2, 3, 5, 6], &[6, 11, 7]] {
        let game = after(geometry, opening);
        let small = Engine::new(EngineKind::Perfect, 0).hash_mb(1).choose(&game).unwrap();
        let large = Engine::new(EngineKind::Perfect, 0).hash_mb(256).choose(&game).unwrap();
        assert_eq!(small.value, large.value, "{opening:?}");
        assert_eq!(small.value, Some(solve(&game)), "{opening:?}");
    }
}

#[test]
fn hint_and_play_take_a_table_size_within_limits() {
    assert_eq!(hint(&["fixtures/classic/no-moves.txt", "--hash", "1"]), (0, "1 draw\n".to_owned()));
    for hash in ["0", "65537", "-1", "big", "1.5"] {
        let (code, text) = hint(&["fixtures/classic/no-moves.txt", &format!("--hash={hash}")]);
        assert_eq!(code, 2, "{text}");
        assert!(
            text.contains(&format!(
                "invalid value '{hash}' for '--hash <MB>': `{hash}` is not a table size; expected a whole \
                 number of megabytes from 1 to 65536, such as 256"
            )),
            "{text}"
        );
        let out = crate::util::referee()
            .args(["play", "--x", "perfect", "--o", "perfect", &format!("--hash={hash}")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8(out.stderr).unwrap().contains("is not a table size"));
    }
}

#[test]
fn random_plays_any_board_and_player_count_and_replays_by_seed() {
    let players: Vec<Player> =
        "XOZ".chars().map(|c| Player { mark: Mark::new(c).unwrap(), name: c.to_string() }).collect();
    let game =
        || Game::new(Players::new(players.clone()).unwrap(), Geometry::new(4, 5, 3).unwrap(), Storage::Auto);
    let play_out = |seed: u64| {
        let mut engines: Vec<Engine> = (0..3).map(|i| Engine::new(EngineKind::Random, seed + i)).collect();
        let mut game = game();
        let mut squares = Vec::new();
        while game.outcome().is_none() {
            let player = game.next_player();
            let square = engines[player.index()].choose(&game).unwrap().square;
            game.try_play(Move { player, square }).expect("a legal move");
            squares.push(square);
        }
        squares
    };
    assert_eq!(play_out(3), play_out(3));
    assert_ne!(play_out(3), play_out(4));
    assert_eq!(Side::parse("random"), Ok(Side::Engine(EngineKind::Random)));
    assert_eq!(
        Side::parse("chance").unwrap_err(),
        "`chance` is not a player; expected human, rules, minimax, perfect, strong or random"
    );
}
