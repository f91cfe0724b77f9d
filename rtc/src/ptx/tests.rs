//! The translator's unit tests: the parser, each emitted form, refusals, and bad input.

use super::*;

/// Real PTX written by NVRTC 13.5 (`tests/kernels/ptx/instructions.cu`,
/// for compute_80 and compute_90).
const REAL: &[(&str, &str)] = &[
    (
        "instructions_sm80",
        include_str!("testdata/instructions_sm80.ptx"),
    ),
    (
        "instructions_sm90",
        include_str!("testdata/instructions_sm90.ptx"),
    ),
];

#[test]
fn real_ptx_translates() {
    for (name, ptx) in REAL {
        let t = translate(ptx).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!t.entries.is_empty(), "{name}");
        if let Ok(dir) = std::env::var("ANYCUDA_PTX_DUMP") {
            std::fs::write(format!("{dir}/{name}.cpp"), &t.source).unwrap();
        }
    }
}
