//! `select()` racing another thread's first use: the choice is process-global, so every round
//! runs in a child process (this test binary, re-run on the child test with an environment
//! variable). Before the fix, `select` returned `Ok(())` while the other thread was still
//! choosing and the choice was silently ignored (140 runs of 150).

mod common;

use anycuda::{select, BackendChoice, BackendKind, SelectError};
use std::process::Command;
use std::sync::{Arc, Barrier};

const CHILD: &str = "ANYCUDA_TEST_SELECT_RACE_CHILD";

/// One race, in a child process: thread A makes the first API call, thread B selects HIP while
/// `ANYCUDA_BACKEND=cuda` asks for the other one. Whatever the interleaving, `select`'s answer
/// must be true of the backend that ends up in use.
#[test]
fn race_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let go = Arc::new(Barrier::new(2));
    let g = go.clone();
    let first_use = std::thread::spawn(move || {
        g.wait();
        anycuda::backend().map(|s| s.kind()).map_err(Clone::clone)
    });
    go.wait();
    let chosen = select(BackendChoice::Only(BackendKind::Hip));
    let used = first_use.join().unwrap();
    let now = anycuda::backend().map(|s| s.kind()).map_err(Clone::clone);
    assert_eq!(used, now, "the backend in use changed");
    match &chosen {
        Ok(()) => assert_eq!(
            now,
            Ok(BackendKind::Hip),
            "select() returned Ok but was ignored"
        ),
        Err(SelectError::AlreadyChosen { active }) => {
            assert_eq!(now.as_ref(), Ok(active));
            assert_ne!(*active, BackendKind::Hip);
        }
        Err(SelectError::FirstUseFailed(e)) => assert_eq!(now.as_ref(), Err(&**e)),
        Err(e) => panic!("unexpected error {e}"),
    }
    println!(
        "RACE-OUTCOME {}",
        if chosen.is_ok() {
            "selected"
        } else {
            "refused"
        }
    );
}

#[test]
fn select_racing_first_use_takes_effect_or_says_so() {
    if std::env::var_os(CHILD).is_some() || common::compiler(BackendKind::Hip).is_none() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let (mut selected, mut refused) = (0, 0);
    for round in 0..60 {
        let o = Command::new(&exe)
            .args(["--exact", "race_child", "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .env("ANYCUDA_BACKEND", "cuda")
            .env_remove("RUST_LOG")
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "round {round}: {out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        if out.contains("RACE-OUTCOME selected") {
            selected += 1;
        } else if out.contains("RACE-OUTCOME refused") {
            refused += 1;
        } else {
            panic!("round {round}: the child test did not run: {out}");
        }
    }
    eprintln!("select() took effect {selected} times, was refused {refused} times");
}
