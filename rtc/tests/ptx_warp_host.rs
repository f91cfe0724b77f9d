//! The support header's AMD warp helpers (`ptx_shfl`, `ptx_ballot`, `ptx_vote_*`,
//! `ptx_activemask`, `ptx_match_*`, `ptx_redux`, `ptx_laneid`, the lane masks) give CUDA's
//! 32-lane answers on a simulated wave64 (two warps per wavefront) and wave32: the header's AMD
//! branch is compiled for the host with the AMDGCN builtins it uses simulated by
//! `ptx_warp_host.cpp`, one thread per active lane, each warp meeting on its own and anything
//! from the other half of a wave64 poisoned; full wavefronts, partial warps and branches
//! (subsets of lanes) are checked against the PTX ISA. Needs `c++`; missing, it fails under
//! `CI=true` and is skipped elsewhere.

use std::process::Command;

/// What the header needs besides the builtins (`ptx_warp_host.cpp` has those).
const SHIM: &str = r#"
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
// The block-level helpers the header also defines (bar.red, %dynamic_smem_size): compiled here,
// not exercised (they are checked on the GPU).
#define __shared__ static
static void __syncthreads() {}
static unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p += v; return o; }
static unsigned sim_packet[16];
static const void* __builtin_amdgcn_dispatch_ptr() { return sim_packet; }
static unsigned __builtin_amdgcn_groupstaticsize() { return 0; }
"#;

#[test]
fn amd_warp_helpers_keep_32_lane_warps() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if Command::new("c++").arg("--version").output().is_err() {
        assert!(!ci, "c++ is missing (CI=true: install g++)");
        eprintln!("SKIP: no c++ compiler");
        return;
    }
    let dir = std::env::temp_dir().join(format!("anycuda-ptx-warp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sim = include_str!("ptx_warp_host.cpp");
    let (pre, harness) = sim.split_at(sim.find("\n// ---- the checks ----").unwrap());
    for wave in [64, 32] {
        let src = dir.join(format!("w{wave}.cpp"));
        std::fs::write(
            &src,
            format!(
                "#define __AMDGCN_WAVEFRONT_SIZE {wave}\n{pre}\n{SHIM}\n{}\n{harness}",
                anycuda_rtc::ptx::SUPPORT_HEADER
            ),
        )
        .unwrap();
        let exe = dir.join(format!("w{wave}"));
        let out = Command::new("c++")
            .args(["-std=c++17", "-O1", "-pthread", "-w", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "c++ failed (wave{wave}):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = Command::new(&exe).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        eprintln!("{text}");
        assert!(run.status.success(), "wave{wave}:\n{text}");
        assert!(text.contains("0 mismatches"), "wave{wave}:\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
