//! The support header's AMD warp helpers (`ptx_shfl`, `ptx_ballot`, `ptx_vote_*`,
//! `ptx_activemask`, `ptx_match_*`, `ptx_redux`, `ptx_laneid`, the lane masks) give CUDA's
//! 32-lane answers on a simulated wave64 (two warps per wavefront) and wave32: the header's AMD
//! branch is compiled for the host with the AMDGCN builtins it uses simulated by
//! `ptx_warp_host.cpp`, one thread per active lane, each warp meeting on its own and anything
//! from the other half of a wave64 poisoned; full wavefronts, partial warps and branches
//! (subsets of lanes) are checked against the PTX ISA. Needs `c++`; missing, it fails under
//! `CI=true` and is skipped elsewhere.

mod host;

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
            "#define __AMDGCN_WAVEFRONT_SIZE {wave}\n{pre}\n{}\n{}\n{}\n{harness}",
            host::DEVICE_SHIM,
            host::AMD_BLOCK_SHIM,
            anycuda_rtc::ptx::SUPPORT_HEADER
        );
        let what = format!("wave{wave}");
        let text = host::build_and_run(&dir, &what, &source, &["-pthread"], &what);
        eprintln!("{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
