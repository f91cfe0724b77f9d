//! The C ABI's export list against the pinned headers and NVIDIA's real libraries: reads
//! `nm -D` of the built library and the headers through the C preprocessor.

mod common;
use common::*;
use std::collections::BTreeSet;

/// Exports that are no header declaration, each with its reason.
const HAND_EXTRA: &[(&str, &str)] = &[
    (
        "cuGetProcAddress",
        "the v1 ABI (no symbolStatus) NVIDIA's libcuda exports under the plain name; the header maps the name to cuGetProcAddress_v2",
    ),
    ("anycuda_capi_abi_version", "the marker anycuda's loader refuses (never load itself)"),
    ("anycuda_capi_call_as_vendor", "runs a callback as a vendor library's re-entrant call (guard tests, diagnostics)"),
    ("anycuda_passthrough_resolve", "resolves a pass-through export's slot on its first call (capi/src/passthrough.rs)"),
    ("anycuda_cudart12_table", "the function table libcudart.so.12 (crate anycuda-cudart12) calls through"),
];

fn ours() -> BTreeSet<String> {
    defined_symbols(&library())
        .into_iter()
        // cuSPARSE's exports are checked in libraries.rs too.
        .filter(|s| !s.starts_with("cusparse"))
        .filter(|s| {
            // The CUDA libraries' exports (cuBLAS, cuRAND, cuFFT, ...) are checked in libraries.rs.
            (s.starts_with("cu")
                && !s.starts_with("cublas")
                && !s.starts_with("curand")
                && !s.starts_with("cufft"))
                || s.starts_with("nvrtc")
                || s.starts_with("anycuda_")
                || s.starts_with("__cuda")
        })
        .collect()
}

#[test]
fn the_exports_are_exactly_the_headers_functions() {
    let mut want = BTreeSet::new();
    for h in ["cuda.h", "cuda_runtime_api.h", "nvrtc.h"] {
        want.extend(declared_functions(h, &[]));
        // The per-thread-default-stream names (`_ptds`, `_ptsz`).
        want.extend(declared_functions(
            h,
            &["CUDA_API_PER_THREAD_DEFAULT_STREAM"],
        ));
    }
    // nvcc's hidden runtime entry points, in the Runtime catalogue through the declarations the
    // codegen reads (codegen/shim/crt/nvcc_entry_points.h restates NVIDIA's crt headers).
    want.extend(declared_functions("crt/nvcc_entry_points.h", &[]));
    want.extend(HAND_EXTRA.iter().map(|(n, _)| n.to_string()));
    want.extend(extra_exports());
    // The pass-through exports (capi/src/passthrough.rs): each is a name NVIDIA's libcuda.so.1
    // or libcudart.so.13 exports, or one the interop headers declare.
    let nvidia: BTreeSet<String> = nvidia_libcuda()
        .into_iter()
        .chain(defined_symbols(&cuda_path().join("lib/libcudart.so.13")))
        .chain(interop_declarations())
        .collect();
    let pass = passthrough_names();
    assert!(pass.len() > 150, "{} pass-through names", pass.len());
    for n in &pass {
        assert!(
            nvidia.contains(n) || declared_in_cuda_h(n) || has_pfn_typedef(n),
            "{n} is passed on but no NVIDIA library exports it and no NVIDIA header declares it"
        );
    }
    want.extend(pass);
    let have = ours();
    let missing: Vec<_> = want.difference(&have).collect();
    let extra: Vec<_> = have.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}\nextra {extra:?}"
    );
    // The categories, for the record (and so an empty list cannot pass).
    let pt = have
        .iter()
        .filter(|n| n.ends_with("_ptds") || n.ends_with("_ptsz"))
        .count();
    let versioned = have
        .iter()
        .filter(|n| {
            n.rsplit_once("_v")
                .is_some_and(|(_, v)| v.parse::<u32>().is_ok())
        })
        .count();
    for api in ["driver", "runtime", "nvrtc"] {
        let n = have
            .iter()
            .filter(|s| !s.starts_with("anycuda_") && api_of(s) == api)
            .count();
        eprintln!("{api}: {n} exports");
    }
    eprintln!("versioned (_vN): {versioned}, per-thread (_ptds/_ptsz): {pt}");
    assert!(
        have.len() > 1000 && pt > 100 && versioned > 80,
        "{} exports",
        have.len()
    );
}

/// The names of `codegen/capi-extra-exports.txt`: exports that are no header function (nvcc's
/// hidden runtime entry points), each documented there with its reason.
fn extra_exports() -> Vec<String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/capi-extra-exports.txt");
    std::fs::read_to_string(&path)
        .expect("codegen/capi-extra-exports.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| l.split(" | ").next().unwrap_or("").trim().to_string())
        .collect()
}

/// The pass-through names, from the generated entries (`name: c"..."`).
fn passthrough_names() -> Vec<String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/generated/passthrough.rs");
    let text = std::fs::read_to_string(&path).expect("capi/src/generated/passthrough.rs");
    text.split("name: c\"")
        .skip(1)
        .filter_map(|t| t.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The functions the runtime's OpenGL, EGL and VDPAU interop headers declare (read as text:
/// they include the windowing systems' headers, which CI does not have).
fn interop_declarations() -> Vec<String> {
    let mut out = Vec::new();
    for h in [
        "cuda_gl_interop.h",
        "cuda_egl_interop.h",
        "cuda_vdpau_interop.h",
    ] {
        let text = std::fs::read_to_string(cuda_path().join("include").join(h)).expect(h);
        for part in text.split("CUDARTAPI").skip(1) {
            let name: String = part
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.starts_with("cuda") {
                out.push(name);
            }
        }
    }
    assert!(out.len() > 20, "{} interop declarations", out.len());
    out
}

/// NVIDIA's libcuda.so.1 exports, as read on the GPU machine (no libcuda exists on CI).
fn nvidia_libcuda() -> BTreeSet<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/nvidia-libcuda-580.159.04.txt");
    std::fs::read_to_string(&path)
        .expect("the libcuda export list")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Whether NVIDIA's `PFN_` typedef headers declare an ABI of `name`'s function (`cuGLInit` →
/// `PFN_cuGLInit_v2000`; `cuCtxCreate_v3` → `PFN_cuCtxCreate_v11040`).
fn has_pfn_typedef(name: &str) -> bool {
    let n = name.trim_end_matches("_ptds").trim_end_matches("_ptsz");
    let base = match n.rsplit_once("_v") {
        Some((b, v)) if !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => n,
    };
    let pfn = format!("PFN_{base}_v");
    [
        "cudaTypedefs.h",
        "cudaGLTypedefs.h",
        "cudaEGLTypedefs.h",
        "cudaVDPAUTypedefs.h",
        "cudaProfilerTypedefs.h",
    ]
    .iter()
    .any(|h| {
        std::fs::read_to_string(cuda_path().join("include").join(h))
            .expect(h)
            .contains(&pfn)
    })
}

/// Whether `cuda.h` declares `name` (a driver function newer than driver 580's list).
fn declared_in_cuda_h(name: &str) -> bool {
    declared_functions("cuda.h", &[]).contains(name)
        || declared_functions("cuda.h", &["CUDA_API_PER_THREAD_DEFAULT_STREAM"]).contains(name)
}

#[test]
fn the_driver_exports_are_nvidias_libcuda_minus_a_reasoned_list() {
    let have = ours();
    let skip = read_left_out("tests/libcuda-left-out.txt");
    let real = nvidia_libcuda();
    assert!(real.len() > 600, "{} libcuda names", real.len());
    let missing: Vec<&String> = real
        .iter()
        .filter(|n| !have.contains(*n) && !skip.iter().any(|(s, _)| s == *n))
        .collect();
    assert!(
        missing.is_empty(),
        "NVIDIA's libcuda.so.1 exports {missing:?}, which the C ABI lacks and the list does not explain"
    );
    for (n, _) in &skip {
        assert!(
            real.contains(n),
            "{n} is listed but NVIDIA's libcuda does not export it"
        );
        assert!(
            !have.contains(n),
            "{n} is listed as left out but the C ABI exports it"
        );
    }
}

/// Reads `capi/tests/real-exports-left-out.txt`: `name | reason`.
fn left_out() -> Vec<(String, String)> {
    read_left_out("tests/real-exports-left-out.txt")
}

/// Reads a `name | reason` list.
fn read_left_out(file: &str) -> Vec<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    std::fs::read_to_string(&path)
        .expect("the exclusion list")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (n, why) = l.split_once(" | ").expect("`name | reason`");
            assert!(!why.trim().is_empty(), "{n}: no reason");
            (n.trim().to_string(), why.trim().to_string())
        })
        .collect()
}

#[test]
fn the_exports_are_nvidias_libraries_minus_a_reasoned_list() {
    let lib = cuda_path().join("lib");
    let have = ours();
    let skip = left_out();
    let skip_names: BTreeSet<&str> = skip.iter().map(|(n, _)| n.as_str()).collect();
    let mut listed_and_real = BTreeSet::new();
    for (file, prefixes) in [
        ("libcudart.so.13", &["cuda", "__cuda"][..]),
        ("libnvrtc.so.13", &["nvrtc"][..]),
    ] {
        let real = defined_symbols(&lib.join(file));
        assert!(real.len() > 20, "{file}: {} symbols", real.len());
        let ours_here: BTreeSet<&String> = have
            .iter()
            .filter(|s| prefixes.iter().any(|p| s.starts_with(p)))
            .collect();
        let missing: Vec<&String> = real
            .iter()
            .filter(|s| !have.contains(*s) && !skip_names.contains(s.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "{file} exports {missing:?}, which the C ABI lacks and the list does not explain"
        );
        let extra: Vec<&&String> = ours_here.iter().filter(|s| !real.contains(**s)).collect();
        assert!(
            extra.is_empty(),
            "the C ABI exports {extra:?}, which {file} does not"
        );
        listed_and_real.extend(
            real.iter()
                .filter(|s| skip_names.contains(s.as_str()))
                .cloned(),
        );
    }
    // No stale entry: everything listed is exported by NVIDIA's library and not by anycuda.
    for (n, _) in &skip {
        assert!(
            listed_and_real.contains(n),
            "{n} is listed but NVIDIA's libraries do not export it"
        );
        assert!(
            !have.contains(n),
            "{n} is listed as left out but the C ABI exports it"
        );
    }
}
