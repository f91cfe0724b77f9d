//! Running bindgen on the CUDA and HIP 5.2.3 headers.
//!
//! Options mirror cubecl-hip-sys' shipped bindings (constified enums, doc comments kept), so one
//! reader handles both. Layout tests are generated only to learn each struct's size; the reader
//! takes the sizes and drops the tests.

use anyhow::{anyhow, Result};
use std::path::Path;

/// One bindgen invocation: the headers to include and which files' items to keep.
pub struct Job<'a> {
    /// `#include` lines of the wrapper, e.g. `cuda.h`.
    pub includes: &'a [&'a str],
    /// File-name regexes passed to `allowlist_file`.
    pub allow_files: &'a [&'a str],
    /// Extra clang arguments (include dirs, defines, language).
    pub clang_args: Vec<String>,
}

/// Runs bindgen and returns the generated Rust source.
pub fn run(job: &Job<'_>, include_dir: &Path) -> Result<String> {
    let wrapper: String = job
        .includes
        .iter()
        .map(|h| format!("#include <{h}>\n"))
        .collect();
    let mut b = bindgen::Builder::default()
        .header_contents("anycuda_codegen_wrapper.h", &wrapper)
        .clang_arg(format!("-I{}", include_dir.display()))
        .clang_args(job.clang_args.iter().cloned())
        .default_enum_style(bindgen::EnumVariation::Consts)
        .generate_comments(true)
        .layout_tests(true)
        .derive_default(false)
        .size_t_is_usize(true)
        .formatter(bindgen::Formatter::None);
    for f in job.allow_files {
        b = b.allowlist_file(*f);
    }
    // bindgen panics (rather than erroring) when libclang cannot be loaded; turn that into an
    // error that says how to fix it.
    let generated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.generate()))
        .map_err(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            anyhow!(
                "bindgen could not run on {:?} ({msg}); is libclang installed? `bash ci/fetch-inputs.sh` installs libclang-dev",
                job.includes
            )
        })?;
    let out = generated.map_err(|e| anyhow!("bindgen failed on {:?}: {e}", job.includes))?;
    Ok(out.to_string())
}
