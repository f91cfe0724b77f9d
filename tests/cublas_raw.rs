//! The raw cuBLAS layer without a GPU, on both backends' real libraries: cuBLAS from PyPI's
//! `nvidia-cublas` wheel; hipBLAS 5.5.1 (Debian trixie) and 6.4.4 (Debian sid), each with its
//! rocBLAS, through `ci/rocm.sh 5.7` and `ci/rocm.sh 6.4` (bookworm, ROCm 5.2, has no hipBLAS).
//! Each library loads and its entry points resolve, the ABI read from hipBLAS's exports is the
//! one each release has, the cuBLAS<->hipBLAS tables agree with the pinned headers (read here
//! as text, independently of codegen), and calls that need a GPU, null handles and bad values
//! answer in cuBLAS's numbering, never a crash.
//!
//! Under `CI=true` a missing library fails the tests instead of skipping them (hipBLAS only
//! where the ROCm release has one: 5.7 and 6.4).
//!
//! The tests compare cuBLAS with hipBLAS through both backends, so they need both compiled in
//! (the default features, as CI's test step builds them); with one backend the file is empty.

#![cfg(all(feature = "backend-cuda", feature = "backend-hip"))]

mod common;

use anycuda::cublas::*;
use anycuda::CudaEnum;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Once;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Points `ANYCUDA_CUBLAS_LIBRARY` at the wheel's cuBLAS unless the caller chose one. hipBLAS
/// is left to `ci/rocm.sh` (`ANYCUDA_HIPBLAS_LIBRARY`): it needs that release's glibc.
fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let wheel = root().join(".cache/inputs/cuda/nvidia/cu13/lib/libcublas.so.13");
        anycuda_test::env::default_library("ANYCUDA_CUBLAS_LIBRARY", &wheel);
    });
}

/// The ROCm release `ci/rocm.sh` runs us under (`5.2` when run directly: bookworm's set).
fn rocm_release() -> String {
    std::env::var("ANYCUDA_ROCM_VERSION").unwrap_or_else(|_| "5.2".into())
}

fn header(rel: &str) -> String {
    let p = root().join(".cache/inputs").join(rel);
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (run bash ci/fetch-inputs.sh)", p.display()))
}

fn cublas_h() -> String {
    header("cuda/nvidia/cu13/include/cublas_api.h")
}

fn hipblas_h() -> String {
    header("hipblas/usr/include/hipblas/hipblas.h")
}

/// Removes `/* ... */` and `// ...` comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        match rest[i..].find("*/") {
            Some(j) => rest = &rest[i + j + 2..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The enums of a header, under their tag and their typedef name (`typedef enum [tag] { ... }
/// name;`): name -> (enumerator -> value). Implicit values count up from the previous one;
/// an enumerator set to another's name takes its value; others are left out.
fn header_enums(text: &str) -> BTreeMap<String, BTreeMap<String, i64>> {
    let text = strip_comments(text);
    let mut out = BTreeMap::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("enum") {
        let before_ok = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric();
        rest = &rest[i + "enum".len()..];
        if !before_ok || !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let after = rest.trim_start();
        let tag: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let body_start = after[tag.len()..].trim_start();
        if !body_start.starts_with('{') {
            continue;
        }
        let Some(close) = body_start.find('}') else {
            break;
        };
        let mut m = BTreeMap::new();
        let mut next: Option<i64> = Some(0);
        for part in body_start[1..close].split(',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (k, v) = match part.split_once('=') {
                Some((k, v)) => {
                    let v = v.trim();
                    let parsed = if let Some(h) = v.strip_prefix("0x") {
                        i64::from_str_radix(h, 16).ok()
                    } else {
                        v.parse::<i64>().ok().or_else(|| m.get(v).copied())
                    };
                    (k.trim(), parsed)
                }
                None => (part, next),
            };
            if let Some(v) = v {
                m.insert(k.to_string(), v);
            }
            next = v.map(|v| v + 1);
        }
        let tail = &body_start[close + 1..];
        let name: String = tail
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !tag.is_empty() {
            out.insert(tag.clone(), m.clone());
        }
        if !name.is_empty() {
            out.insert(name, m);
        }
        rest = tail;
    }
    out
}

/// The function names a header declares (`prefixX(` after its return type).
fn header_functions(text: &str, prefix: &str) -> BTreeSet<String> {
    let text = strip_comments(text);
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices(prefix) {
        if i > 0 {
            let b = text.as_bytes()[i - 1];
            if b.is_ascii_alphanumeric() || b == b'_' {
                continue;
            }
        }
        let name: String = text[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if text[i + name.len()..].trim_start().starts_with('(')
            && name.len() > prefix.len()
            && name[prefix.len()..].starts_with(|c: char| c.is_ascii_uppercase())
        {
            out.insert(name);
        }
    }
    out
}

/// `cublasX_v2` / `cublasX` -> `hipblasX`, `cublasX_v2_64` -> `hipblasX_64`.
fn hip_name(c: &str) -> String {
    format!(
        "hipblas{}",
        c.strip_prefix("cublas").unwrap().replacen("_v2", "", 1)
    )
}

/// cuBLAS's table and the file it came from.
fn cuda_library() -> Option<(&'static CublasTable, String, i32)> {
    setup();
    match anycuda::native::cuda::cublas::library() {
        Ok(l) => Some((&l.table, l.path.clone(), l.version)),
        Err(e) if ci() => {
            panic!("CI=true and cuBLAS does not load (run bash ci/fetch-inputs.sh): {e}")
        }
        Err(e) => {
            eprintln!("SKIP: cuBLAS does not load: {e}");
            None
        }
    }
}

fn hip_library() -> Option<&'static anycuda::native::hip::cublas::BlasLibrary> {
    setup();
    let release = rocm_release();
    match anycuda::native::hip::cublas::library(anycuda::native::hip::Platform::Amd) {
        Ok(l) => Some(l),
        Err(e) if release == "5.2" => {
            // Bookworm (ROCm 5.2.3) has no hipBLAS; ci/rocm.sh leaves the override unset.
            eprintln!("SKIP: ROCm 5.2 has no hipBLAS: {e}");
            None
        }
        Err(e) if ci() => panic!(
            "CI=true and hipBLAS does not load on ROCm {release} (run through ci/rocm.sh): {e}"
        ),
        Err(e) => {
            eprintln!("SKIP: hipBLAS does not load: {e}");
            None
        }
    }
}

/// Whether the already loaded library `path` exports `name`, asked of the dynamic loader.
fn exports(path: &str, name: &str) -> bool {
    use std::ffi::{c_char, c_int, c_void, CString};
    extern "C" {
        fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
        fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
        fn dlclose(handle: *mut c_void) -> c_int;
    }
    const RTLD_LAZY: c_int = 1;
    const RTLD_NOLOAD: c_int = 4;
    let (p, n) = (CString::new(path).unwrap(), CString::new(name).unwrap());
    // SAFETY: NOLOAD: only a handle to a library already mapped (the backend's), or null.
    let h = unsafe { dlopen(p.as_ptr(), RTLD_LAZY | RTLD_NOLOAD) };
    assert!(!h.is_null(), "{path} is loaded");
    // SAFETY: a valid handle and NUL-terminated name; only the address is read.
    let found = !unsafe { dlsym(h, n.as_ptr()) }.is_null();
    // SAFETY: balances the dlopen above; the backend's own handle keeps the library mapped.
    unsafe { dlclose(h) };
    found
}

/// A non-null handle that is never dereferenced: for calls anycuda answers before any library
/// sees the handle.
fn fake_handle() -> cublasHandle_t {
    core::ptr::NonNull::<cublasContext>::dangling().as_ptr()
}

#[test]
fn hipblas_declared_is_every_same_abi_twin_of_hipblas_h() {
    let cuda = header_functions(&cublas_h(), "cublas");
    let ours: BTreeSet<String> = CUBLAS_FUNCTIONS
        .iter()
        .map(|f| f.name.to_string())
        .collect();
    assert!(ours.is_subset(&cuda), "{:?}", ours.difference(&cuda));
    let hip = header_functions(&hipblas_h(), "hipblas");
    assert!(hip.contains("hipblasGemmEx"), "the header reader works");
    let twins: BTreeSet<(String, String)> = ours
        .iter()
        .filter(|c| hip.contains(&hip_name(c)))
        .map(|c| (c.clone(), hip_name(c)))
        .collect();
    let declared: BTreeSet<(String, String)> = HIPBLAS_DECLARED
        .iter()
        .map(|(c, h)| (c.to_string(), h.to_string()))
        .collect();
    assert!(
        declared.is_subset(&twins),
        "{:?}",
        declared.difference(&twins)
    );
    // The twins left out are exactly those whose ABI differs: cuBLAS's TRMM is out-of-place
    // (14 arguments), hipBLAS 5.5.1's in-place (12).
    let left: BTreeSet<&str> = twins
        .difference(&declared)
        .map(|(c, _)| c.as_str())
        .collect();
    let trmm: BTreeSet<&str> = [
        "cublasStrmm_v2",
        "cublasDtrmm_v2",
        "cublasCtrmm_v2",
        "cublasZtrmm_v2",
    ]
    .into_iter()
    .collect();
    assert_eq!(left, trmm);
    for f in [
        "cublasCreate_v2",
        "cublasSgemm_v2",
        "cublasGemmStridedBatchedEx",
        "cublasDgemmStridedBatched",
    ] {
        assert!(declared.iter().any(|(c, _)| c == f), "{f} is served");
    }
    // The data-type functions are all served, and each has a `_v2` twin in hipBLAS 2.x.
    let hip2 = header_functions(&header("hipblas2/usr/include/hipblas/hipblas.h"), "hipblas");
    for f in HIPBLAS_NEW_TYPES {
        assert!(declared.iter().any(|(c, _)| c == f), "{f}");
        assert!(hip2.contains(&format!("{}_v2", hip_name(f))), "{f}");
    }
    assert!(HIPBLAS_NEW_TYPES.contains(&"cublasGemmStridedBatchedEx"));
    // Answered by anycuda itself: no hipBLAS twin, and not in HIPBLAS_DECLARED.
    for f in HIPBLAS_ANSWERED {
        assert!(!hip.contains(&hip_name(f)), "{f}");
    }
}

#[test]
fn the_hipblas_tables_agree_with_the_headers() {
    use anycuda::native::hip::cublas as t;
    let cu = header_enums(&cublas_h());
    let lt = header_enums(&header("cuda/nvidia/cu13/include/library_types.h"));
    let hi = header_enums(&hipblas_h());
    let common = header_enums(&header(
        "hipblas2/usr/include/hipblas-common/hipblas-common.h",
    ));
    let check = |what: &str,
                 pairs: &[(&str, i64, &str, i64)],
                 c: &BTreeMap<String, i64>,
                 h: &BTreeMap<String, i64>| {
        assert!(!pairs.is_empty(), "{what}");
        for (cn, cv, hn, hv) in pairs {
            assert_eq!(c.get(*cn), Some(cv), "{what}: {cn}");
            assert_eq!(h.get(*hn), Some(hv), "{what}: {hn}");
        }
    };
    check(
        "status",
        t::STATUS_PAIRS,
        &cu["cublasStatus_t"],
        &hi["hipblasStatus_t"],
    );
    check(
        "operation",
        t::OPERATION_PAIRS,
        &cu["cublasOperation_t"],
        &hi["hipblasOperation_t"],
    );
    check(
        "fill",
        t::FILLMODE_PAIRS,
        &cu["cublasFillMode_t"],
        &hi["hipblasFillMode_t"],
    );
    check(
        "diag",
        t::DIAGTYPE_PAIRS,
        &cu["cublasDiagType_t"],
        &hi["hipblasDiagType_t"],
    );
    check(
        "side",
        t::SIDEMODE_PAIRS,
        &cu["cublasSideMode_t"],
        &hi["hipblasSideMode_t"],
    );
    check(
        "pointer",
        t::POINTERMODE_PAIRS,
        &cu["cublasPointerMode_t"],
        &hi["hipblasPointerMode_t"],
    );
    check(
        "atomics",
        t::ATOMICSMODE_PAIRS,
        &cu["cublasAtomicsMode_t"],
        &hi["hipblasAtomicsMode_t"],
    );
    check(
        "datatype",
        t::DATATYPE_PAIRS,
        &lt["cudaDataType_t"],
        &hi["hipblasDatatype_t"],
    );
    check(
        "compute (2.x)",
        t::COMPUTETYPE_PAIRS,
        &cu["cublasComputeType_t"],
        &common["hipblasComputeType_t"],
    );
    check(
        "compute (0.x)",
        t::COMPUTETYPE_AS_DATATYPE,
        &cu["cublasComputeType_t"],
        &hi["hipblasDatatype_t"],
    );
    check(
        "algo",
        t::GEMMALGO_PAIRS,
        &cu["cublasGemmAlgo_t"],
        &hi["hipblasGemmAlgo_t"],
    );

    // Spot checks by name, with the values written out: these are the ones that matter.
    let st = |c: cublasStatus_t| t::status_from_hipblas(c);
    // Only 0, 1 and 8 agree.
    let same: Vec<i64> = t::STATUS_PAIRS
        .iter()
        .filter(|p| p.1 == p.3)
        .map(|p| p.1)
        .collect();
    assert_eq!(same, [0, 1, 8]);
    assert_eq!(
        st(cublasStatus_t(3)),
        cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
    ); // HIPBLAS_STATUS_INVALID_VALUE
    assert_eq!(
        st(cublasStatus_t(7)),
        cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED
    ); // HIPBLAS_STATUS_NOT_SUPPORTED
    assert_eq!(
        st(cublasStatus_t(2)),
        cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED
    );
    // hipBLAS-only statuses are hallucinated: NAMED_BASE + value, with a name.
    for (hn, hv) in t::STATUS_HIPBLAS_ONLY {
        let s = st(cublasStatus_t(*hv as u32));
        assert_eq!(s.to_i64(), anycuda::hallucinated::NAMED_BASE + hv, "{hn}");
        assert!(s.info().is_some(), "{hn} has a constant");
    }
    assert_eq!(
        st(cublasStatus_t(10)),
        cublasStatus_t::CUBLAS_STATUS_HIPBLAS_INVALID_ENUM
    );
    use cublasOperation_t as Op;
    assert_eq!(t::operation_to_hipblas(Op::CUBLAS_OP_N), Some(111));
    assert_eq!(t::operation_to_hipblas(Op::CUBLAS_OP_T), Some(112));
    assert_eq!(t::operation_to_hipblas(Op::CUBLAS_OP_C), Some(113));
    assert_eq!(t::operation_to_hipblas(Op(77)), None);
    assert_eq!(
        t::fillmode_to_hipblas(cublasFillMode_t::CUBLAS_FILL_MODE_LOWER),
        Some(122)
    );
    assert_eq!(
        t::sidemode_to_hipblas(cublasSideMode_t::CUBLAS_SIDE_RIGHT),
        Some(142)
    );
    assert_eq!(
        t::diagtype_to_hipblas(cublasDiagType_t::CUBLAS_DIAG_UNIT),
        Some(132)
    );
    use cudaDataType as Dt;
    assert_eq!(t::datatype_to_hipblas(Dt::CUDA_R_32F), Some(151));
    assert_eq!(t::datatype_to_hipblas(Dt::CUDA_R_16F), Some(150));
    assert_eq!(t::datatype_to_hipblas(Dt::CUDA_R_16BF), Some(168));
    assert_eq!(t::datatype_to_hipblas(Dt::CUDA_R_64F), Some(152));
    use cublasComputeType_t as Ct;
    for (c, old, new) in [
        (Ct::CUBLAS_COMPUTE_32F, 151, 2),
        (Ct::CUBLAS_COMPUTE_32F_FAST_TF32, 151, 6),
        (Ct::CUBLAS_COMPUTE_32F_FAST_16BF, 151, 5),
        (Ct::CUBLAS_COMPUTE_16F, 150, 0),
        (Ct::CUBLAS_COMPUTE_64F, 152, 7),
        (Ct::CUBLAS_COMPUTE_32I, 162, 9),
    ] {
        assert_eq!(t::computetype_to_hipblas_datatype(c), Some(old), "{c:?}");
        assert_eq!(t::computetype_to_hipblas(c), Some(new), "{c:?}");
    }
    assert_eq!(
        t::computetype_to_hipblas(Ct::CUBLAS_COMPUTE_32F_EMULATED_16BFX9),
        None
    );
    use cublasGemmAlgo_t as Al;
    for a in [
        Al::CUBLAS_GEMM_DEFAULT,
        Al::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        Al::CUBLAS_GEMM_ALGO0,
        Al::CUBLAS_GEMM_ALGO15_TENSOR_OP,
    ] {
        assert_eq!(t::gemmalgo_to_hipblas(a), Some(160), "{a:?}");
    }
    assert_eq!(t::gemmalgo_to_hipblas(Al(12345)), None);
    // Modes come back in cuBLAS's numbering.
    assert_eq!(
        t::pointermode_from_hipblas(1),
        Some(cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)
    );
    // cuBLAS's names of statuses, NUL-terminated.
    // SAFETY: status_name returns a static NUL-terminated string.
    let name = unsafe {
        std::ffi::CStr::from_ptr(t::status_name(cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED))
    };
    assert_eq!(name.to_str().unwrap(), "CUBLAS_STATUS_NOT_SUPPORTED");
}

#[test]
fn cublas_loads_and_resolves_everything() {
    let Some((t, path, version)) = cuda_library() else {
        return;
    };
    let missing: Vec<&str> = CUBLAS_FUNCTIONS
        .iter()
        .map(|f| f.name)
        .filter(|n| !exports(&path, n))
        .collect();
    assert_eq!(missing, Vec::<&str>::new());
    assert_eq!(t.loaded_count(), CUBLAS_FUNCTIONS.len());
    assert_eq!(version / 10_000, 13, "{}", version_string(version));
    // A null handle: cuBLAS's answer, before libcublas (which dereferences it) sees it.
    let mut s: cudaStream_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; the null handle is answered by anycuda's guard.
    let r = unsafe { t.cublasGetStream_v2(core::ptr::null_mut(), &mut s) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    // The version needs no handle in NVIDIA's library, so none is asked for; a null out-pointer
    // is refused before libcublas writes through it.
    let mut v = 0;
    // SAFETY: valid out-pointer; a null handle, which cublasGetVersion_v2 accepts.
    let r = unsafe { t.cublasGetVersion_v2(core::ptr::null_mut(), &mut v) };
    assert_eq!((r, v), (cublasStatus_t::CUBLAS_STATUS_SUCCESS, version));
    // SAFETY: the null out-pointer is answered by anycuda's guard.
    let r = unsafe { t.cublasGetVersion_v2(core::ptr::null_mut(), core::ptr::null_mut()) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
    // Without a GPU, creating a handle fails with cuBLAS's own status.
    let mut h: cublasHandle_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { t.cublasCreate_v2(&mut h) };
    eprintln!("cuBLAS: cublasCreate_v2 without a GPU: {r:?}");
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
}

#[test]
fn hipblas_loads_with_the_abi_of_its_release() {
    let Some(l) = hip_library() else { return };
    let release = rocm_release();
    let want = match release.as_str() {
        // hipBLAS 5.5.1 (0.x): hipblasDatatype_t everywhere, no _v2, no _64.
        "5.7" => Abi::HipblasDatatype,
        // hipBLAS 6.4.4 (2.x): hipblasGemmEx_v2 and friends.
        "6.4" => Abi::HipblasV2,
        other => panic!("no expectation for ROCm {other}"),
    };
    assert_eq!(l.abi(), want, "{}", l.path());
    assert_eq!(
        exports(l.path(), "hipblasGemmEx_v2"),
        want == Abi::HipblasV2
    );
    let info = anycuda::cublas::Library::Hip(l).info();
    assert_eq!(info.name, "hipBLAS");
    assert_eq!(info.version, 0, "hipBLAS has no version query");
    assert!(info.version_string.contains("unknown"), "{info:?}");
    // Every pair of HIPBLAS_DECLARED resolves (the `_v2` symbol for the data-type functions on
    // 2.x), asked of the dynamic loader as well as of the table.
    let missing: Vec<String> = HIPBLAS_DECLARED
        .iter()
        .map(|(c, h)| {
            if want == Abi::HipblasV2 && HIPBLAS_NEW_TYPES.contains(c) {
                format!("{h}_v2")
            } else {
                h.to_string()
            }
        })
        .filter(|s| !exports(l.path(), s))
        .collect();
    eprintln!(
        "hipBLAS {release} ({}): not exported: {missing:?}",
        l.path()
    );
    assert_eq!(missing, Vec::<String>::new());
    assert_eq!(
        info.entry_points,
        (HIPBLAS_DECLARED.len(), CUBLAS_FUNCTIONS.len())
    );
    let lib = Library::Hip(l);
    no_gpu_answers(&lib, l);
    // hipBLAS's own answer without a device, through the raw table (why the HIP backend answers
    // first: the releases disagree, and cuBLAS says NOT_INITIALIZED).
    let mut h: cublasHandle_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; measured: neither release aborts without a device.
    let raw = unsafe { l.table().cublasCreate_v2(&mut h) };
    let mapped = anycuda::native::hip::cublas::status_from_hipblas(raw);
    eprintln!("hipBLAS {release} raw: hipblasCreate without a GPU: {raw:?} -> {mapped:?}");
    assert!(h.is_null());
    // Measured: hipBLAS 5.5.1 answers NOT_INITIALIZED when it is the first to touch the HIP
    // runtime and INTERNAL_ERROR once the runtime was asked for devices (as the backend's
    // device probe has by now); 6.4.4 answers INTERNAL_ERROR. Either is an error, never a crash.
    assert!(
        [
            cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED,
            cublasStatus_t::CUBLAS_STATUS_INTERNAL_ERROR
        ]
        .contains(&mapped),
        "{mapped:?}"
    );
}

/// What the HIP backend answers without a GPU, in cuBLAS's numbering.
fn no_gpu_answers(l: &Library, raw: &anycuda::native::hip::cublas::BlasLibrary) {
    // No device: cuBLAS's answer, before hipBLAS/rocBLAS see the call.
    assert!(!raw.has_device(), "this test runs without a GPU");
    let mut h: cublasHandle_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { l.cublasCreate_v2(&mut h) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    assert!(h.is_null());
    // A null handle.
    // SAFETY: the null handle is answered by anycuda.
    let r = unsafe { l.cublasDestroy_v2(core::ptr::null_mut()) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    let mut m = cublasPointerMode_t(7);
    // SAFETY: as above.
    let r = unsafe { l.cublasGetPointerMode_v2(core::ptr::null_mut(), &mut m) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    // Functions hipBLAS lacks, or has with another ABI: NOT_SUPPORTED with a reason.
    let mut v = 0;
    // SAFETY: valid out-pointer; refused before any library sees the handle.
    let r = unsafe { l.cublasGetVersion_v2(fake_handle(), &mut v) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    let why = not_supported_reason(r).unwrap();
    assert!(
        why.contains("cublasGetVersion_v2") && why.contains("version query"),
        "{why}"
    );
    let (a, b) = ([0f32; 4], [0f32; 4]);
    let mut c = [0f32; 4];
    // SAFETY: refused before any library sees the handle or the pointers.
    let r = unsafe {
        l.cublasStrmm_v2(
            fake_handle(),
            cublasSideMode_t::CUBLAS_SIDE_LEFT,
            cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
            cublasOperation_t::CUBLAS_OP_N,
            cublasDiagType_t::CUBLAS_DIAG_UNIT,
            2,
            2,
            &1.0,
            a.as_ptr(),
            2,
            b.as_ptr(),
            2,
            c.as_mut_ptr(),
            2,
        )
    };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    let why = not_supported_reason(r).unwrap();
    assert!(
        why.contains("hipblasStrmm") && why.contains("another ABI"),
        "{why}"
    );
    // SAFETY: as above.
    let r = unsafe {
        l.cublasSgemm_v2_64(
            fake_handle(),
            cublasOperation_t::CUBLAS_OP_N,
            cublasOperation_t::CUBLAS_OP_N,
            2,
            2,
            2,
            &1.0,
            a.as_ptr(),
            2,
            b.as_ptr(),
            2,
            &0.0,
            c.as_mut_ptr(),
            2,
        )
    };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    assert!(not_supported_reason(r).unwrap().contains("hipblasSgemm_64"));
    // A value cuBLAS does not declare: INVALID_VALUE, as cuBLAS answers, before hipBLAS.
    // SAFETY: as above.
    let r = unsafe {
        l.cublasSgemm_v2(
            fake_handle(),
            cublasOperation_t(77),
            cublasOperation_t::CUBLAS_OP_N,
            2,
            2,
            2,
            &1.0,
            a.as_ptr(),
            2,
            b.as_ptr(),
            2,
            &0.0,
            c.as_mut_ptr(),
            2,
        )
    };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
    // A compute type cuBLAS declares and hipBLAS lacks: NOT_SUPPORTED, with a reason.
    // SAFETY: as above.
    let r = unsafe {
        l.cublasGemmEx(
            fake_handle(),
            cublasOperation_t::CUBLAS_OP_N,
            cublasOperation_t::CUBLAS_OP_N,
            2,
            2,
            2,
            (&1.0f32 as *const f32).cast(),
            a.as_ptr().cast(),
            cudaDataType::CUDA_R_32F,
            2,
            b.as_ptr().cast(),
            cudaDataType::CUDA_R_32F,
            2,
            (&0.0f32 as *const f32).cast(),
            c.as_mut_ptr().cast(),
            cudaDataType::CUDA_R_32F,
            2,
            cublasComputeType_t::CUBLAS_COMPUTE_32F_EMULATED_16BFX9,
            cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
    };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    assert!(not_supported_reason(r)
        .unwrap()
        .contains("cublasComputeType_t"));
    // Math modes: kept per handle by anycuda (hipBLAS 5.5.1 has none), never sent to hipBLAS.
    let h = fake_handle();
    let mut m = cublasMath_t(99);
    // SAFETY: answered by anycuda without touching the handle.
    unsafe { l.cublasGetMathMode(h, &mut m) }.result().unwrap();
    assert_eq!(m, cublasMath_t::CUBLAS_DEFAULT_MATH);
    // SAFETY: as above.
    unsafe { l.cublasSetMathMode(h, cublasMath_t::CUBLAS_TF32_TENSOR_OP_MATH) }
        .result()
        .unwrap();
    // SAFETY: as above.
    unsafe { l.cublasGetMathMode(h, &mut m) }.result().unwrap();
    assert_eq!(m, cublasMath_t::CUBLAS_TF32_TENSOR_OP_MATH);
    // SAFETY: as above.
    let r = unsafe { l.cublasSetMathMode(h, cublasMath_t(12345)) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
    // SAFETY: as above.
    unsafe { l.cublasSetMathMode(h, cublasMath_t::CUBLAS_DEFAULT_MATH) }
        .result()
        .unwrap();
    // SAFETY: a null out-pointer is refused.
    let r = unsafe { l.cublasGetMathMode(h, core::ptr::null_mut()) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
    // Status names are cuBLAS's.
    // SAFETY: a static NUL-terminated string.
    let n = unsafe {
        std::ffi::CStr::from_ptr(l.cublasGetStatusName(cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED))
    };
    assert_eq!(n.to_str().unwrap(), "CUBLAS_STATUS_ALLOC_FAILED");
}

fn cli_json(args: &[&str]) -> serde_json::Value {
    setup();
    let o = std::process::Command::new(common::anycuda_bin())
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_cli_reports_cublas() {
    let v = &cli_json(&["coverage", "--json", "--verbose"])["cublas"];
    assert_eq!(v["cuda_total"], CUBLAS_FUNCTIONS.len());
    assert_eq!(v["exposed"], CUBLAS_FUNCTIONS.len());
    let served: BTreeSet<&str> = HIPBLAS_DECLARED
        .iter()
        .map(|(c, _)| *c)
        .chain(HIPBLAS_ANSWERED.iter().copied())
        .collect();
    assert_eq!(v["hip_backend"], served.len());
    assert_eq!(
        v["hip_backend"].as_u64().unwrap() + v["hip_unsupported"].as_u64().unwrap(),
        CUBLAS_FUNCTIONS.len() as u64
    );
    let unsupported = v["names"]["hip_unsupported"].as_array().unwrap();
    assert!(unsupported.iter().any(|n| n == "cublasStrmm_v2"));
    assert!(!unsupported
        .iter()
        .any(|n| n == "cublasGemmStridedBatchedEx"));
    let info = cli_json(&["info", "--json"]);
    let backends = info["backends"].as_array().unwrap();
    let cuda = backends.iter().find(|b| b["backend"] == "cuda").unwrap();
    if cuda_library().is_some() {
        assert_eq!(cuda["math"]["cublas"]["library"], "cuBLAS", "{cuda}");
        assert_eq!(
            cuda["math"]["cublas"]["entry_points"],
            CUBLAS_FUNCTIONS.len(),
            "{cuda}"
        );
    }
}
