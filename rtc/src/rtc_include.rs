//! Where `#include "..."` files are found, made the same on both compilers and like nvcc.
//!
//! nvcc looks for a quoted include next to the including file, then in the folders of `-I`.
//! NVRTC compiles from memory: it has no including file for the main source and looks in the
//! working directory instead. hipRTC (comgr) writes the source into a fresh temporary folder and
//! compiles it there, so a quoted include next to the source or in the working directory is not
//! found at all. anycuda therefore:
//! - gives hipRTC the working directory as a quote-include folder (`-iquote`, searched after the
//!   including file's folder and before `-I`), which is what NVRTC does by itself;
//! - has `anycuda compile` add the source file's folder (`-I<folder>`) before the user's options;
//! - leaves "next to the including file" to the compilers, which both do it for headers read from
//!   disk.
//!
//! [`resolve`] is the same search written out, for tools that follow includes themselves (the
//! wave-size check reads included files through it).

use std::ffi::CString;
use std::path::{Component, Path, PathBuf};

/// The options that make hipRTC search the working directory for quoted includes (NVRTC does
/// so by itself); none when the working directory cannot be read or named in an option.
///
/// With the built-in headers on, it also pre-includes `cuda_runtime.h`, as nvcc does for every
/// `.cu` file: NVRTC declares the CUDA device intrinsics (`__shfl_xor_sync`, ...) by itself, and
/// on hipRTC the built-in `cuda_runtime.h` is where they come from.
pub fn hiprtc_search_options() -> Vec<CString> {
    let mut out = Vec::new();
    if crate::rtc_input::builtins_enabled(crate::rtc_headers::RtcTarget::Hiprtc) {
        out.extend([c"-include".to_owned(), c"cuda_runtime.h".to_owned()]);
    }
    let Ok(cwd) = std::env::current_dir() else {
        return out;
    };
    if let Some(Ok(opt)) = cwd.to_str().map(|s| CString::new(format!("-iquote{s}"))) {
        out.push(opt);
    }
    out
}

/// The option `anycuda compile` adds for a source file: `-I` and the file's folder (its
/// absolute form, so it does not depend on where the compiler runs). `None` when the folder
/// cannot be named in an option (not UTF-8, or holds a NUL).
pub fn source_folder_option(source: &Path) -> Option<String> {
    let dir = source.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = match dir {
        Some(d) => std::path::absolute(d).ok()?,
        None => std::env::current_dir().ok()?,
    };
    let s = dir.to_str()?;
    (!s.contains('\0')).then(|| format!("-I{s}"))
}

/// Where to look for one `#include`, in nvcc's order.
#[derive(Debug, Clone, Default)]
pub struct SearchPath {
    /// The folder of the main source file, if it has one on disk.
    pub source_dir: Option<PathBuf>,
    /// The working directory.
    pub cwd: Option<PathBuf>,
    /// The `-I` folders, in order.
    pub include_dirs: Vec<PathBuf>,
}

/// The most bytes an include name may have; longer ones are refused (no real header needs it).
pub const MAX_INCLUDE_NAME: usize = 4096;

/// Finds the file an `#include` names: for a quoted include, next to the including file
/// (`includer_dir`), then the source's folder, then the working directory; then (both forms) the
/// `-I` folders. Returns the first existing regular file.
///
/// Refused without touching the file system: an empty or absolute-looking-but-missing name, one
/// with a NUL or longer than [`MAX_INCLUDE_NAME`]. An absolute name is used as is. `..` is allowed
/// (real libraries use it), as in nvcc.
pub fn resolve(
    name: &str,
    quoted: bool,
    includer_dir: Option<&Path>,
    search: &SearchPath,
) -> Option<PathBuf> {
    if name.is_empty() || name.len() > MAX_INCLUDE_NAME || name.contains('\0') {
        return None;
    }
    let rel = Path::new(name);
    if rel.is_absolute() {
        return rel.is_file().then(|| rel.to_path_buf());
    }
    // A name made only of `.`/`..` components names a folder, never a header.
    if !rel.components().any(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let quoted_dirs = [
        includer_dir,
        search.source_dir.as_deref(),
        search.cwd.as_deref(),
    ];
    let dirs = quoted_dirs
        .into_iter()
        .filter(|_| quoted)
        .flatten()
        .chain(search.include_dirs.iter().map(PathBuf::as_path));
    for d in dirs {
        let p = d.join(rel);
        if p.is_file() {
            return Some(p);
        }
    }
    None
}

/// The `#include` directives of a source text: `(name, quoted)` in order. Lines are read as the
/// preprocessor would after joining continued lines; comments before the directive are not
/// understood (a commented-out include is still listed, which only costs a lookup).
pub fn includes(source: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for line in source.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        let (close, quoted) = match rest.chars().next() {
            Some('"') => ('"', true),
            Some('<') => ('>', false),
            _ => continue,
        };
        if let Some(end) = rest[1..].find(close) {
            out.push((rest[1..1 + end].to_owned(), quoted));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_includes_in_nvcc_order() {
        let root = std::env::temp_dir().join(format!("anycuda-inc-{}", std::process::id()));
        let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
        for d in [&a, &b, &c] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(a.join("x.h"), "a").unwrap();
        std::fs::write(b.join("x.h"), "b").unwrap();
        std::fs::write(c.join("x.h"), "c").unwrap();
        std::fs::write(c.join("only_c.h"), "c").unwrap();
        let s = SearchPath {
            source_dir: Some(b.clone()),
            cwd: None,
            include_dirs: vec![c.clone()],
        };
        assert_eq!(resolve("x.h", true, Some(&a), &s), Some(a.join("x.h")));
        assert_eq!(resolve("x.h", true, None, &s), Some(b.join("x.h")));
        // An angle include skips the quoted folders.
        assert_eq!(resolve("x.h", false, Some(&a), &s), Some(c.join("x.h")));
        assert_eq!(
            resolve("../c/only_c.h", true, Some(&a), &s),
            Some(a.join("../c/only_c.h"))
        );
        for bad in ["", "..", ".", "a\0b", "missing.h"] {
            assert_eq!(resolve(bad, true, Some(&a), &s), None, "{bad:?}");
        }
        assert_eq!(
            resolve(&"x".repeat(MAX_INCLUDE_NAME + 1), true, None, &s),
            None
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn lists_include_directives() {
        let src =
            "#include \"a.h\"\n  #  include <b/c.h>\n#include bad\n#define X\n#include \"open";
        assert_eq!(
            includes(src),
            vec![("a.h".to_owned(), true), ("b/c.h".to_owned(), false)]
        );
    }
}
