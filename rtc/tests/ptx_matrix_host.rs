//! The support header's warp-wide matrix helpers (`ldmatrix`, `stmatrix`, `mma.sync` in every
//! translated form) on a simulated wave64 (two warps per wavefront, each with inputs of its own)
//! and wave32, against a plain host matrix multiply: `ptx_matrix_host.cpp` places the lanes'
//! registers into A, B and C by the PTX ISA's fragment tables, computes D = A B + C on the host
//! (floats: the exact value rounded once, the inputs chosen so that every sum is exact; zeros,
//! infinities, NaN and subnormals in every third trial; integers: exact, wrapped or saturated)
//! and compares every lane's registers. The wavefront is `ptx_warp_host.cpp`'s simulation (one
//! thread per lane, the other half of a wave64 poisoned). Needs `c++`; missing, it fails under
//! `CI=true` and is skipped elsewhere.

mod host;

#[test]
fn matrix_helpers_match_a_host_matrix_multiply() {
    if !host::have_cxx() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("anycuda-ptx-matrix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sim = include_str!("ptx_warp_host.cpp");
    let pre = &sim[..sim.find("\n// ---- the checks ----").unwrap()];
    let checks = include_str!("ptx_matrix_host.cpp");
    for wave in [64, 32] {
        let source = format!(
            "#define __AMDGCN_WAVEFRONT_SIZE {wave}\n{pre}\n{}\n{}\n{}\n{checks}",
            host::DEVICE_SHIM,
            host::AMD_BLOCK_SHIM,
            anycuda_rtc::ptx::SUPPORT_HEADER
        );
        let what = format!("matrix-wave{wave}");
        let text = host::build_and_run(&dir, &what, &source, &["-pthread"], &what);
        eprintln!("{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
