//! Shared by the C-ABI tests: the built library, its exports, the pinned headers.

#![allow(dead_code)] // each test file uses a part

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C-ABI library cargo built for these tests (`target/<profile>/deps/libanycuda_capi.so`).
pub fn library() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let deps = exe.parent().expect("deps folder");
    for d in [deps, deps.parent().unwrap_or(deps)] {
        let p = d.join("libanycuda_capi.so");
        if p.is_file() {
            assert_fresh(&p);
            return p;
        }
    }
    panic!(
        "libanycuda_capi.so not built next to {}: cargo build -p anycuda-capi (ci/capi-test.sh and ci/test.sh do)",
        exe.display()
    );
}

/// Cargo does not always rebuild a `cdylib` for its integration tests: refuse a library older
/// than the crate's sources rather than test a stale one.
fn assert_fresh(lib: &Path) {
    let built = std::fs::metadata(lib)
        .and_then(|m| m.modified())
        .expect("library mtime");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("capi/src").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(m) = e.metadata().and_then(|m| m.modified()) {
                assert!(
                    m <= built,
                    "{} is newer than {}: cargo build -p anycuda-capi first",
                    p.display(),
                    lib.display()
                );
            }
        }
    }
}

/// `CUDA_PATH`: the pinned CUDA 13.5 headers and libraries (ci/fetch-inputs.sh).
pub fn cuda_path() -> PathBuf {
    let p = std::env::var_os("CUDA_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cache/inputs/cuda/nvidia/cu13")
        });
    assert!(
        p.join("include/cuda.h").is_file(),
        "no CUDA headers under {} (run ci/fetch-inputs.sh, set CUDA_PATH)",
        p.display()
    );
    p
}

/// The dynamic symbols a shared object defines (`nm -D --defined-only`), symbol versions removed.
pub fn defined_symbols(lib: &Path) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib)
        .output()
        .expect("running nm");
    assert!(out.status.success(), "nm -D {}: {:?}", lib.display(), out);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap_or(s).to_string())
        .filter(|s| !s.starts_with("lib"))
        .collect()
}

/// The functions a C header declares after the C preprocessor (`cc -E`), with the given
/// defines: the symbols a C program calls (the header's `#define f f_v2` applied). `static`
/// inline functions and typedefs are no exports and are left out.
pub fn declared_functions(header: &str, defines: &[&str]) -> BTreeSet<String> {
    declared_functions_in(&cuda_path().join("include"), header, defines)
}

/// [`declared_functions`] with the headers of `include` (CUDA 12's, for `libcudart.so.12`).
pub fn declared_functions_in(include: &Path, header: &str, defines: &[&str]) -> BTreeSet<String> {
    declared_functions_with(&[include], header, defines)
}

/// [`declared_functions`] with several include folders, searched in order before codegen's
/// shim (a library's headers, then the shim folders its C preprocessing needs).
pub fn declared_functions_with(
    includes: &[&Path],
    header: &str,
    defines: &[&str],
) -> BTreeSet<String> {
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/shim");
    let mut cmd = Command::new("cc");
    cmd.args(["-E", "-P", "-x", "c", "-"]);
    for i in includes {
        cmd.arg(format!("-I{}", i.display()));
    }
    cmd.arg(format!("-I{}", shim.display()));
    for d in defines {
        cmd.arg(format!("-D{d}"));
    }
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("running cc -E");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(stdin, "#include <{header}>").expect("writing to cc");
    }
    let out = child.wait_with_output().expect("cc -E");
    assert!(out.status.success(), "cc -E {header}: {:?}", out);
    let text = String::from_utf8_lossy(&out.stdout);
    let attr = regex_lite_strip_attributes(&text);
    let mut names = BTreeSet::new();
    let mut depth = 0usize;
    let mut stmt = String::new();
    for ch in attr.chars() {
        match ch {
            '{' => {
                if depth == 0 {
                    take(&mut stmt, &mut names);
                }
                depth += 1;
            }
            '}' => depth = depth.saturating_sub(1),
            ';' if depth == 0 => take(&mut stmt, &mut names),
            _ if depth == 0 => stmt.push(ch),
            _ => {}
        }
    }
    names
}

/// Removes `__attribute__((...))` groups (balanced parentheses).
fn regex_lite_strip_attributes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("__attribute__") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "__attribute__".len()..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (j, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Records the function a top-level declaration declares, if it is an exported one.
fn take(stmt: &mut String, names: &mut BTreeSet<String>) {
    let s = std::mem::take(stmt);
    let t = s.trim();
    if t.starts_with("typedef")
        || t.starts_with("static")
        || t.starts_with("struct") && !t.contains('(')
    {
        return;
    }
    let Some(paren) = t.find('(') else { return };
    let head = t[..paren].trim_end();
    let name: String = head
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if ["cu", "nvrtc", "__cuda", "nccl", "nvJitLink", "__nvJitLink"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        names.insert(name);
    }
}

/// Which library a name belongs to.
pub fn api_of(name: &str) -> &'static str {
    if name.starts_with("cuda") {
        "runtime"
    } else if name.starts_with("nvrtc") {
        "nvrtc"
    } else {
        "driver"
    }
}
