//! The built `xtask` binary: what a caller sees (exit status, output), no step actually run.

use std::process::Command;

fn xtask(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("run xtask")
}

#[test]
fn unknown_step_exits_2_naming_it_and_the_steps() {
    let out = xtask(&["ci", "no-such-step"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown step `no-such-step`"), "{err}");
    assert!(err.contains("import-picture"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["gpu"],
        &["gpu", "run"],
        &["bench", "nope"],
        &["fetch", "x"],
    ] {
        assert_eq!(xtask(args).status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn ci_list_prints_every_step_in_order() {
    let out = xtask(&["ci", "--list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names.first(), Some(&"rustfmt"));
    assert!(
        names.contains(&"test") && names.contains(&"import-picture"),
        "{names:?}"
    );
    assert!(text.contains("bash ci/test.sh"), "{text}");
}

#[test]
fn help_exits_0() {
    let out = xtask(&["help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("cargo xtask"));
}
