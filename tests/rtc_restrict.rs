//! NVRTC 13.0's `-restrict` leaks into later programs of the same process: a kernel compiled
//! after a `-restrict` program, without the option, still gets non-coherent loads
//! (`ld.global.nc`), i.e. its pointers are treated as `__restrict__`. This is NVRTC's own
//! state, below anycuda; the test records the behaviour truthfully (README, "Bad input") and
//! fails when an NVRTC update fixes it, so the note can go. hipRTC only notes `-restrict`.
//!
//! It runs alone in its own test binary, because the leak is process-wide.

mod common;

use anycuda::core::CodeType;
use anycuda::BackendKind;

const SRC: &str =
    "extern \"C\" __global__ void k(const float *a, float *b) { b[threadIdx.x] = a[threadIdx.x] * 2.0f; }";

fn nc_loads(kind: BackendKind, b: anycuda::Backend, extra: &[&str]) -> bool {
    let arch = match kind {
        BackendKind::Cuda => "--gpu-architecture=compute_90",
        BackendKind::Hip => "--gpu-architecture=gfx90a",
    };
    let mut p = common::program(b, SRC, "k.cu", &[]);
    let mut opts = vec![arch];
    opts.extend_from_slice(extra);
    p.compile_with_args(&opts).unwrap();
    String::from_utf8_lossy(&common::code(&p, CodeType::Ptx)).contains("ld.global.nc")
}

#[test]
fn restrict_leaks_into_later_programs_on_nvrtc_only() {
    if let Some(b) = common::compiler(BackendKind::Cuda) {
        assert!(
            !nc_loads(BackendKind::Cuda, b, &[]),
            "plain: coherent loads"
        );
        assert!(
            nc_loads(BackendKind::Cuda, b, &["-restrict"]),
            "-restrict: nc loads"
        );
        let mut p = common::program(b, SRC, "k.cu", &[]);
        p.compile_with_args(&["--gpu-architecture=compute_90", "-restrict"])
            .unwrap();
        let log = p.log();
        assert!(log.contains("keeps '-restrict'"), "the user is told: {log}");
        assert!(
            nc_loads(BackendKind::Cuda, b, &[]),
            "NVRTC no longer leaks -restrict: update the README's Bad input table"
        );
    }
    if let Some(b) = common::compiler(BackendKind::Hip) {
        // The HIP backend never passes -restrict on (hipRTC has no such option): no leak.
        let mut p = common::program(b, SRC, "k.cu", &[]);
        p.compile_with_args(&["--gpu-architecture=gfx90a", "-restrict"])
            .unwrap();
        let log = p.log();
        assert!(log.contains("ignoring '-restrict'"), "{log}");
    }
}
