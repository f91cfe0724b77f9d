//! What the host-compiled tests of the PTX support header share (`ptx_rounding_host.rs`,
//! `ptx_warp_host.rs`): the device-side names the header uses, defined for one host thread, and
//! the compile-and-run step.

use std::path::Path;
use std::process::Command;

/// The header's device-side names that are not the part under test, for one host thread:
/// qualifiers, thread indices, the clock, the atomics and block-level helpers (`bar.red`).
pub const DEVICE_SHIM: &str = r#"
#define __device__
#define __forceinline__ inline
#include <math.h>
#include <cmath>
#include <cstddef>
#include <climits>
struct ptx_dim3 { unsigned x, y, z; };
static ptx_dim3 threadIdx, blockDim;
static long long clock64() { return 0; }
static unsigned long long atomicCAS(unsigned long long* p, unsigned long long o, unsigned long long n) { unsigned long long v = *p; if (v == o) *p = n; return v; }
#define __shared__ static
static void __syncthreads() {}
static unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p += v; return o; }
static unsigned atomicCAS(unsigned* p, unsigned o, unsigned n) { unsigned v = *p; if (v == o) *p = n; return v; }
#include <cstdlib>
static void __trap() { abort(); }
"#;

/// The AMD builtins the header's block-level helpers use (`%dynamic_smem_size`: the dispatch
/// packet and the static LDS size), for the tests that compile its AMD branch on the host:
/// compiled there, not exercised (they are checked on the GPU).
#[allow(dead_code)] // the warp and matrix tests use it; the rounding tests do not
pub const AMD_BLOCK_SHIM: &str = r#"
static unsigned sim_packet[16];
static const void* __builtin_amdgcn_dispatch_ptr() { return sim_packet; }
static unsigned __builtin_amdgcn_groupstaticsize() { return 0; }
"#;

/// Whether the system C++ compiler is there: `false` (skip) off CI, a failure under `CI=true`.
pub fn have_cxx() -> bool {
    if Command::new("c++").arg("--version").output().is_ok() {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(!ci, "c++ is missing (CI=true: install g++)");
    eprintln!("SKIP: no c++ compiler");
    false
}

/// Compiles `source` (written to `dir/name.cpp`) with `c++ -std=c++17 -O1 -w` and `flags`,
/// runs it, and returns its output once it exits 0 and reports `0 mismatches`; `what` names the
/// case in failures.
pub fn build_and_run(dir: &Path, name: &str, source: &str, flags: &[&str], what: &str) -> String {
    let src = dir.join(format!("{name}.cpp"));
    std::fs::write(&src, source).unwrap();
    let exe = dir.join(name);
    let out = Command::new("c++")
        .args(["-std=c++17", "-O1", "-w"])
        .args(flags)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "c++ failed ({what}):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{what}:\n{text}");
    assert!(text.contains("0 mismatches"), "{what}:\n{text}");
    text
}
