//! The support header's AMD warp helpers (`ptx_shfl`, `ptx_ballot`, `ptx_vote_*`,
//! `ptx_activemask`, `ptx_match_*`, `ptx_redux`, `ptx_laneid`, the lane masks) give CUDA's
//! 32-lane answers on a simulated wave64 (two warps per wavefront) and wave32: the header's AMD
//! branch is compiled for the host with the AMDGCN builtins it uses simulated by
//! `ptx_warp_host.cpp`, one thread per active lane, each warp meeting on its own and anything
//! from the other half of a wave64 poisoned; full wavefronts, partial warps and branches
//! (subsets of lanes) are checked against the PTX ISA. Needs `c++`; missing, it fails under
//! `CI=true` and is skipped elsewhere.

mod host;

/// The AMD builtins the block-level helpers use (`%dynamic_smem_size`), compiled here, not
/// exercised (they are checked on the GPU); `ptx_warp_host.cpp` simulates the warp builtins.
const SHIM: &str = r#"
static unsigned sim_packet[16];
static const void* __builtin_amdgcn_dispatch_ptr() { return sim_packet; }
static unsigned __builtin_amdgcn_groupstaticsize() { return 0; }
"#;

#[test]
fn amd_warp_helpers_keep_32_lane_warps() {
    if !host::have_cxx() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("anycuda-ptx-warp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sim = include_str!("ptx_warp_host.cpp");
    let (pre, harness) = sim.split_at(sim.find("\n// ---- the checks ----").unwrap());
    for wave in [64, 32] {
        let source = format!(
            "#define __AMDGCN_WAVEFRONT_SIZE {wave}\n{pre}\n{}\n{SHIM}\n{}\n{harness}",
            host::DEVICE_SHIM,
            anycuda_rtc::ptx::SUPPORT_HEADER
        );
        let what = format!("wave{wave}");
        let text = host::build_and_run(&dir, &what, &source, &["-pthread"], &what);
        eprintln!("{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
