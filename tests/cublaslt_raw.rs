//! The raw cuBLASLt layer without a GPU, on both backends' real libraries: cuBLASLt from PyPI's
//! `nvidia-cublas` wheel, hipBLASLt 7.1.1 from Debian sid through `ci/rocm.sh 6.4` (its glibc is
//! newer than this machine's, so the hipBLASLt half runs only there: `ci/rocm/test-all.sh`).
//! Each library loads, every entry point resolves, the version query answers the version its
//! header declares, the cuBLASLt<->hipBLASLt tables agree with both pinned headers (read here as
//! text, independently of codegen), attribute ids and values are translated (checked through
//! hipBLASLt's raw entry points), and null handles, descriptors and out-pointers return cuBLASLt's
//! errors on both libraries, never a crash.
//!
//! Under `CI=true` a missing cuBLASLt fails the tests instead of skipping them, and so does a
//! missing hipBLASLt under `ci/rocm.sh 6.4` (`ANYCUDA_ROCM_VERSION=6.4`); elsewhere (ROCm 5.2
//! and 5.7, whose Debian releases have no hipBLASLt) the hipBLASLt half says why it does not run.
//!
//! The tests compare cuBLASLt with hipBLASLt through both backends, so they need both compiled in
//! (the default features, as CI's test step builds them); with one backend the file is empty.

#![cfg(all(feature = "backend-cuda", feature = "backend-hip"))]

mod common;

use anycuda::cublaslt::*;
use anycuda::CudaEnum;
use core::ffi::c_void;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Once;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Points `ANYCUDA_CUBLASLT_LIBRARY` at the wheel's cuBLASLt unless the caller chose one. Runs
/// once, before any test reads the environment.
fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let wheel = root().join(".cache/inputs/cuda/nvidia/cu13/lib/libcublasLt.so.13");
        anycuda_test::env::default_library("ANYCUDA_CUBLASLT_LIBRARY", &wheel);
    });
}

fn header(rel: &str) -> String {
    let p = root().join(".cache/inputs").join(rel);
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (run bash ci/fetch-inputs.sh)", p.display()))
}

fn cublaslt_h() -> String {
    header("cuda/nvidia/cu13/include/cublasLt.h")
}

fn hipblaslt_h() -> String {
    header("hipblaslt/usr/include/hipblaslt/hipblaslt.h")
}

/// Removes `/* ... */` and `// ...` comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        rest = match rest[i + 2..].find("*/") {
            Some(j) => &rest[i + 2 + j + 2..],
            None => "",
        };
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// An enumerator's value: `|`-joined terms, each a literal (decimal or hex), an earlier
/// enumerator, or `a << b` of those; parentheses ignored. `None` for anything else.
fn eval(expr: &str, known: &BTreeMap<String, i64>) -> Option<i64> {
    let e: String = expr.chars().filter(|c| *c != '(' && *c != ')').collect();
    let atom = |t: &str| -> Option<i64> {
        let t = t.trim();
        if let Some(v) = known.get(t) {
            return Some(*v);
        }
        let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
        match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(h) => i64::from_str_radix(h, 16).ok(),
            None => t.parse::<i64>().ok(),
        }
    };
    let mut v = 0;
    for term in e.split('|') {
        v |= match term.split_once("<<") {
            Some((a, b)) => atom(a)? << atom(b)?,
            None => atom(term)?,
        };
    }
    Some(v)
}

/// The C enums of a header: every name an enum goes by (its tag and its typedef name) ->
/// (enumerator -> value). Values are [`eval`]'s or the previous value plus one; an enumerator
/// with any other expression ends the implicit count until the next known value.
fn header_enums(text: &str) -> BTreeMap<String, BTreeMap<String, i64>> {
    header_enums_with(text, &BTreeMap::new())
}

/// [`header_enums`], with the enumerators of `other` headers known to the expressions
/// (`CUBLASLT_POINTER_MODE_HOST = CUBLAS_POINTER_MODE_HOST`).
fn header_enums_with(
    text: &str,
    other: &BTreeMap<String, BTreeMap<String, i64>>,
) -> BTreeMap<String, BTreeMap<String, i64>> {
    let mut all: BTreeMap<String, i64> = other
        .values()
        .flatten()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let text = strip_comments(text);
    let mut out = BTreeMap::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("enum") {
        let before_ok = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric();
        rest = &rest[i + 4..];
        let after = rest.trim_start();
        if !before_ok || !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let tag: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let body = after[tag.len()..].trim_start();
        if !body.starts_with('{') {
            continue;
        }
        let Some(close) = body.find('}') else { break };
        let mut m = BTreeMap::new();
        let mut last: Option<i64> = Some(-1);
        for part in body[1..close].split(',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (k, v) = match part.split_once('=') {
                Some((k, v)) => (k.trim(), eval(v, &all)),
                None => (part, last.map(|l| l + 1)),
            };
            last = v;
            if let Some(v) = v {
                m.insert(k.to_string(), v);
                all.insert(k.to_string(), v);
            }
        }
        let tail = &body[close + 1..];
        let name: String = tail
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        for n in [tag, name] {
            if !n.is_empty() {
                out.insert(n, m.clone());
            }
        }
        rest = tail;
    }
    out
}

/// The functions a header exports: `MARKER name(` (cuBLASLt: `CUBLASWINAPI`; hipBLASLt: the
/// declaration after `HIPBLASLT_EXPORT`, `hipblasStatus_t name(`), with their argument counts.
fn header_functions(text: &str, marker: &str) -> BTreeMap<String, usize> {
    let text = strip_comments(text);
    let mut out = BTreeMap::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find(marker) {
        rest = &rest[i + marker.len()..];
        let after = rest.trim_start();
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(args) = after[name.len()..].trim_start().strip_prefix('(') else {
            continue;
        };
        let Some(close) = args.find(')') else { break };
        let a = args[..close].trim();
        let n = if a.is_empty() || a == "void" {
            0
        } else {
            a.split(',').count()
        };
        out.insert(name, n);
    }
    out
}

fn cuda_library() -> Option<(&'static CublasLtTable, String, i32)> {
    setup();
    match anycuda::native::cuda::cublaslt::library() {
        Ok(l) => Some((&l.table, l.path.clone(), l.version)),
        Err(e) if ci() => {
            panic!("CI=true and cuBLASLt does not load (run bash ci/fetch-inputs.sh): {e}")
        }
        Err(e) => {
            eprintln!("SKIP: cuBLASLt does not load: {e}");
            None
        }
    }
}

/// hipBLASLt: required under `ci/rocm.sh 6.4`, else not expected (no hipBLASLt for ROCm 5.2 or
/// 5.7 in Debian, and sid's needs sid's glibc).
fn hip_library() -> Option<&'static anycuda::native::hip::cublaslt::LtLibrary> {
    let required = std::env::var("ANYCUDA_ROCM_VERSION").as_deref() == Ok("6.4");
    match anycuda::native::hip::cublaslt::library(anycuda::native::hip::Platform::Amd) {
        Ok(l) => Some(l),
        Err(e) if required => {
            panic!("ci/rocm.sh 6.4 and hipBLASLt does not load (ANYCUDA_HIPBLASLT_LIBRARY): {e}")
        }
        Err(e) => {
            eprintln!(
                "SKIP: hipBLASLt runs under `bash ci/rocm.sh 6.4` (ci/rocm/test-all.sh), not here: {e}"
            );
            None
        }
    }
}

#[test]
fn the_catalogue_is_every_function_of_cublaslt_h() {
    let declared = header_functions(&cublaslt_h(), "CUBLASWINAPI");
    let ours: BTreeSet<&str> = CUBLASLT_FUNCTIONS.iter().map(|f| f.name).collect();
    assert_eq!(
        ours,
        declared.keys().map(String::as_str).collect::<BTreeSet<_>>()
    );
    // HIPBLASLT_DECLARED: the pairs whose hipBLASLt twin the pinned hipblaslt.h declares with
    // the same number of arguments.
    let hip = header_functions(&hipblaslt_h(), "hipblasStatus_t");
    let expect: BTreeSet<(String, String)> = declared
        .iter()
        .filter_map(|(c, n)| {
            let h = format!("hipblasLt{}", c.strip_prefix("cublasLt")?);
            (hip.get(&h) == Some(n)).then_some((c.clone(), h))
        })
        .collect();
    let pairs: BTreeSet<(String, String)> = HIPBLASLT_DECLARED
        .iter()
        .map(|(c, h)| (c.to_string(), h.to_string()))
        .collect();
    assert_eq!(pairs, expect);
    for must in [
        "cublasLtMatmul",
        "cublasLtMatmulAlgoGetHeuristic",
        "cublasLtCreate",
    ] {
        assert!(pairs.iter().any(|(c, _)| c == must), "{must}: {pairs:?}");
    }
    // hipblasLtGetVersion takes a handle: no twin of cublasLtGetVersion(void).
    assert_eq!(hip.get("hipblasLtGetVersion"), Some(&2));
    assert!(!pairs.iter().any(|(c, _)| c == "cublasLtGetVersion"));
}

#[test]
fn the_types_carry_cublaslt_h_values() {
    let api = header_enums(&header("cuda/nvidia/cu13/include/cublas_api.h"));
    let e = header_enums_with(&cublaslt_h(), &api);
    let mut checked = 0;
    for (ty, consts) in ENUM_CONSTANTS {
        let Some(h) = e.get(*ty) else {
            panic!("{ty}: not found in cublasLt.h");
        };
        for (name, v) in h {
            let c = consts
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{ty}: {name} missing"));
            assert_eq!(c.value, *v, "{ty}::{name}");
            checked += 1;
        }
    }
    assert!(checked > 300, "{checked} enumerators checked");
    // Spot checks by name.
    assert_eq!(
        cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_EPILOGUE.0,
        7
    );
    assert_eq!(cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS.0, 4);
    assert_eq!(
        core::mem::size_of::<cublasLtMatmulAlgo_t>(),
        64,
        "cuBLASLt's algorithm struct"
    );
    assert_eq!(core::mem::size_of::<cublasLtMatmulHeuristicResult_t>(), 96);
}

#[test]
fn the_hipblaslt_tables_agree_with_both_headers() {
    use anycuda::native::hip::cublaslt as t;
    let cuda_inc = "cuda/nvidia/cu13/include";
    let mut cu = header_enums(&header(&format!("{cuda_inc}/cublas_api.h")));
    cu.extend(header_enums_with(&cublaslt_h(), &cu.clone()));
    cu.extend(header_enums(&header(&format!(
        "{cuda_inc}/library_types.h"
    ))));
    let mut hi = header_enums(&hipblaslt_h());
    hi.extend(header_enums(&header(
        "hipblaslt/usr/include/hipblas-common/hipblas-common.h",
    )));
    hi.extend(header_enums(&header(
        "hipblaslt/usr/include/hip/library_types.h",
    )));
    type Table = (
        &'static str,
        &'static str,
        &'static [(&'static str, i64, &'static str, i64)],
        &'static [(&'static str, i64)],
        &'static [(&'static str, i64)],
    );
    let tables: &[Table] = &[
        (
            "cublasStatus_t",
            "hipblasStatus_t",
            t::STATUS_PAIRS,
            t::STATUS_CUBLASLT_ONLY,
            t::STATUS_HIPBLASLT_ONLY,
        ),
        (
            "cublasComputeType_t",
            "hipblasComputeType_t",
            t::COMPUTE_PAIRS,
            t::COMPUTE_CUBLASLT_ONLY,
            t::COMPUTE_HIPBLASLT_ONLY,
        ),
        (
            "cudaDataType",
            "hipDataType",
            t::DATATYPE_PAIRS,
            t::DATATYPE_CUBLASLT_ONLY,
            t::DATATYPE_HIPBLASLT_ONLY,
        ),
        (
            "cublasOperation_t",
            "hipblasOperation_t",
            t::OPERATION_PAIRS,
            t::OPERATION_CUBLASLT_ONLY,
            t::OPERATION_HIPBLASLT_ONLY,
        ),
        (
            "cublasLtMatmulDescAttributes_t",
            "hipblasLtMatmulDescAttributes_t",
            t::MATMUL_DESC_PAIRS,
            t::MATMUL_DESC_CUBLASLT_ONLY,
            t::MATMUL_DESC_HIPBLASLT_ONLY,
        ),
        (
            "cublasLtMatrixLayoutAttribute_t",
            "hipblasLtMatrixLayoutAttribute_t",
            t::LAYOUT_PAIRS,
            t::LAYOUT_CUBLASLT_ONLY,
            t::LAYOUT_HIPBLASLT_ONLY,
        ),
        (
            "cublasLtMatmulPreferenceAttributes_t",
            "hipblasLtMatmulPreferenceAttributes_t",
            t::PREFERENCE_PAIRS,
            t::PREFERENCE_CUBLASLT_ONLY,
            t::PREFERENCE_HIPBLASLT_ONLY,
        ),
        (
            "cublasLtEpilogue_t",
            "hipblasLtEpilogue_t",
            t::EPILOGUE_PAIRS,
            t::EPILOGUE_CUBLASLT_ONLY,
            t::EPILOGUE_HIPBLASLT_ONLY,
        ),
        (
            "cublasLtPointerMode_t",
            "hipblasLtPointerMode_t",
            t::POINTER_MODE_PAIRS,
            t::POINTER_MODE_CUBLASLT_ONLY,
            t::POINTER_MODE_HIPBLASLT_ONLY,
        ),
        (
            "cublasLtOrder_t",
            "hipblasLtOrder_t",
            t::ORDER_PAIRS,
            t::ORDER_CUBLASLT_ONLY,
            t::ORDER_HIPBLASLT_ONLY,
        ),
    ];
    let sentinel = |n: &str| n.ends_with("_MAX") || n.ends_with("_END");
    for (ct, ht, pairs, cuda_only, hip_only) in tables {
        let (c, h) = (&cu[*ct], &hi[*ht]);
        assert!(!pairs.is_empty(), "{ct}");
        for (cn, cv, hn, hv) in *pairs {
            assert_eq!(c.get(*cn), Some(cv), "{cn}");
            assert_eq!(h.get(*hn), Some(hv), "{hn}");
        }
        for (cn, cv) in c {
            assert!(
                sentinel(cn)
                    || pairs.iter().any(|p| p.1 == *cv)
                    || cuda_only.iter().any(|p| p.1 == *cv),
                "{ct}: {cn}"
            );
        }
        for (hn, hv) in h {
            assert!(
                sentinel(hn)
                    || pairs.iter().any(|p| p.3 == *hv)
                    || hip_only.iter().any(|p| p.1 == *hv),
                "{ht}: {hn}"
            );
        }
    }
    // The values really differ where it matters.
    let hd = &hi["hipblasLtMatmulDescAttributes_t"];
    assert_eq!(
        t::matmul_desc_to_hipblaslt(cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_EPILOGUE)
            .map(i64::from),
        hd.get("HIPBLASLT_MATMUL_DESC_EPILOGUE").copied()
    );
    assert_ne!(hd["HIPBLASLT_MATMUL_DESC_EPILOGUE"], 7);
    let he = &hi["hipblasLtEpilogue_t"];
    for (c, h) in [
        (
            cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS,
            "HIPBLASLT_EPILOGUE_BIAS",
        ),
        (
            cublasLtEpilogue_t::CUBLASLT_EPILOGUE_RELU_BIAS,
            "HIPBLASLT_EPILOGUE_RELU_BIAS",
        ),
        (
            cublasLtEpilogue_t::CUBLASLT_EPILOGUE_GELU_BIAS,
            "HIPBLASLT_EPILOGUE_GELU_BIAS",
        ),
    ] {
        assert_eq!(
            t::epilogue_to_hipblaslt(c).map(i64::from),
            Some(he[h]),
            "{h}"
        );
    }
    let op = &hi["hipblasOperation_t"];
    assert_eq!(
        t::operation_to_hipblaslt(cublasOperation_t::CUBLAS_OP_T).map(i64::from),
        Some(op["HIPBLAS_OP_T"])
    );
    assert_eq!(op["HIPBLAS_OP_T"], 112);
    assert_eq!(
        t::operation_to_hipblaslt(cublasOperation_t::CUBLAS_OP_CONJG),
        None
    );
    // A hipBLASLt-only status is hallucinated (NAMED_BASE + its value); unknown ones stay
    // recoverable.
    for (hn, hv) in t::STATUS_HIPBLASLT_ONLY {
        let s = t::status_from_hipblaslt(cublasStatus_t(*hv as u32));
        assert_eq!(s.to_i64(), anycuda::hallucinated::NAMED_BASE + hv, "{hn}");
    }
    let u = t::status_from_hipblaslt(cublasStatus_t(4242));
    assert!(anycuda::hallucinated::classify(u.to_i64()).is_some());
    // The structs hipBLASLt's header declares, as the hand rules lay them out.
    assert_eq!(t::HIPBLASLT_ALGO_SIZE, 24);
    assert_eq!(t::HIPBLASLT_HEURISTIC_RESULT_SIZE, 56);
}

#[test]
fn cublaslt_loads_and_answers_without_a_gpu() {
    let Some((t, path, version)) = cuda_library() else {
        return;
    };
    // Every entry point the file exports resolves (asked of the dynamic loader here).
    let missing: Vec<&str> = CUBLASLT_FUNCTIONS
        .iter()
        .map(|f| f.name)
        .filter(|n| !exports(&path, n))
        .collect();
    // The header declares one function libcublasLt 13.10 does not export
    // (cublasLtDisableCpuInstructionsSetMask): it answers the fallback, the previous mask 0.
    eprintln!("cuBLASLt {path}: not exported: {missing:?}");
    assert!(
        missing
            .iter()
            .all(|m| *m == "cublasLtDisableCpuInstructionsSetMask"),
        "{missing:?}"
    );
    assert_eq!(
        t.loaded_count(),
        CUBLASLT_FUNCTIONS.len() - missing.len(),
        "{t:?}"
    );
    if !missing.is_empty() {
        // SAFETY: no library function is called: the entry point is absent.
        assert_eq!(unsafe { t.cublasLtDisableCpuInstructionsSetMask(1) }, 0);
    }
    let h = cublaslt_h();
    let api = header("cuda/nvidia/cu13/include/cublas_api.h");
    let want = define(&api, "CUBLAS_VER_MAJOR") * 10_000
        + define(&api, "CUBLAS_VER_MINOR") * 100
        + define(&api, "CUBLAS_VER_PATCH");
    assert!(h.contains("cublasLtGetVersion"));
    assert_eq!(i64::from(version), want);
    // SAFETY: no arguments.
    assert_eq!(unsafe { t.cublasLtGetVersion() } as i64, want);
    let l = Library::Cuda(t);
    null_answers(&l, "cuBLASLt");
    // Without a GPU a handle cannot be made: cuBLASLt's own answer.
    let mut hd: cublasLtHandle_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let r = unsafe { l.cublasLtCreate(&mut hd) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    descriptors_round_trip(&l, "cuBLASLt");
    // What libcublasLt itself would crash on (a SIGSEGV in 13.10): answered by anycuda.
    // SAFETY: the null descriptor is what is being tested; the guard answers first.
    let r = unsafe {
        l.cublasLtMatmulDescInit_internal(
            core::ptr::null_mut(),
            256,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType::CUDA_R_32F,
        )
    };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
}

#[test]
fn hipblaslt_loads_and_translates_without_a_gpu() {
    let Some(hl) = hip_library() else { return };
    let t = hl.table().expect("hipBLASLt on AMD");
    assert_eq!(t.loaded_count(), HIPBLASLT_DECLARED.len(), "{t:?}");
    let path = hl.path().unwrap().to_string();
    let missing: Vec<&str> = HIPBLASLT_DECLARED
        .iter()
        .map(|(_, h)| *h)
        .filter(|n| !exports(&path, n))
        .collect();
    assert!(missing.is_empty(), "{path} lacks {missing:?}");
    let l = Library::Hip(hl);
    let info = l.info();
    assert_eq!(info.name, "hipBLASLt");
    assert_eq!(
        info.entry_points,
        (HIPBLASLT_DECLARED.len(), CUBLASLT_FUNCTIONS.len())
    );
    null_answers(&l, "hipBLASLt");
    // Without a device (CI's case: ci/rocm.sh has none): cuBLASLt's answer, and the process
    // lives on (hipBLASLt 7.1.1 itself calls exit(1) here).
    if !hl.has_device() {
        let mut hd: cublasLtHandle_t = core::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        let r = unsafe { l.cublasLtCreate(&mut hd) };
        assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
        assert!(hd.is_null());
        // SAFETY: no arguments.
        assert_eq!(unsafe { l.cublasLtGetVersion() }, 0, "no device to ask");
    }
    descriptors_round_trip(&l, "hipBLASLt");

    // The values hipBLASLt holds are its own: read back through its raw entry points.
    let hi = header_enums(&hipblaslt_h());
    let hd_attr = &hi["hipblasLtMatmulDescAttributes_t"];
    let mut desc: cublasLtMatmulDesc_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    unsafe {
        l.cublasLtMatmulDescCreate(
            &mut desc,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType::CUDA_R_32F,
        )
    }
    .result()
    .unwrap();
    set_u32(
        &l,
        desc,
        cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_EPILOGUE,
        cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS.0,
    )
    .result()
    .unwrap();
    set_u32(
        &l,
        desc,
        cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
        cublasOperation_t::CUBLAS_OP_T.0,
    )
    .result()
    .unwrap();
    let raw = |attr: &str| -> u32 {
        let mut v = 0u32;
        let mut w = 0usize;
        // SAFETY: a live descriptor, 4 writable bytes; the id in hipBLASLt's numbering.
        let r = unsafe {
            t.cublasLtMatmulDescGetAttribute(
                desc,
                cublasLtMatmulDescAttributes_t(hd_attr[attr] as u32),
                (&mut v as *mut u32).cast(),
                4,
                &mut w,
            )
        };
        assert_eq!(r.0, 0, "{attr}");
        v
    };
    assert_eq!(
        i64::from(raw("HIPBLASLT_MATMUL_DESC_EPILOGUE")),
        hi["hipblasLtEpilogue_t"]["HIPBLASLT_EPILOGUE_BIAS"]
    );
    let ops = header_enums(&header(
        "hipblaslt/usr/include/hipblas-common/hipblas-common.h",
    ));
    assert_eq!(
        i64::from(raw("HIPBLASLT_MATMUL_DESC_TRANSA")),
        ops["hipblasOperation_t"]["HIPBLAS_OP_T"]
    );
    // What hipBLASLt cannot express: not supported, with a reason; what cuBLASLt does not know:
    // invalid.
    let r = set_u32(
        &l,
        desc,
        cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_FAST_ACCUM,
        1,
    );
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    assert!(not_supported_reason(r)
        .unwrap()
        .contains("no hipBLASLt counterpart"));
    let r = set_u32(
        &l,
        desc,
        cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB,
        cublasOperation_t::CUBLAS_OP_CONJG.0,
    );
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    let r = set_u32(
        &l,
        desc,
        cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB,
        77,
    );
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
    // SAFETY: destroyed once.
    unsafe { l.cublasLtMatmulDescDestroy(desc) }
        .result()
        .unwrap();
    // A compute or data type cuBLAS names but hipBLASLt lacks: not supported, with a reason; one
    // cuBLAS does not name: invalid.
    let mut d2: cublasLtMatmulDesc_t = core::ptr::null_mut();
    for (c, ty, want) in [
        (
            cublasComputeType_t::CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT,
            cudaDataType::CUDA_R_64F,
            cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
        ),
        (
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType::CUDA_R_4F_E2M1,
            cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
        ),
        (
            cublasComputeType_t(9999),
            cudaDataType::CUDA_R_32F,
            cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE,
        ),
    ] {
        // SAFETY: a valid out-pointer; nothing is created.
        let r = unsafe { l.cublasLtMatmulDescCreate(&mut d2, c, ty) };
        assert_eq!(r, want, "{c:?} {ty:?}");
        assert!(d2.is_null());
    }
    // A function hipBLASLt lacks: anycuda's refusal, and why.
    let algo = cublasLtMatmulAlgo_t { data: [0; 8] };
    let mut v = 0u32;
    // SAFETY: a readable algorithm, 4 writable bytes; nothing reaches a library.
    let r = unsafe {
        l.cublasLtMatmulAlgoCapGetAttribute(
            &algo,
            cublasLtMatmulAlgoCapAttributes_t::CUBLASLT_ALGO_CAP_SPLITK_SUPPORT,
            (&mut v as *mut u32).cast(),
            4,
            core::ptr::null_mut(),
        )
    };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    let why = not_supported_reason(r).unwrap();
    assert!(
        why.contains("cublasLtMatmulAlgoCapGetAttribute") && why.contains("hipBLASLt"),
        "{why}"
    );
    // Status names come from cuBLAS's header (hipBLASLt has none).
    // SAFETY: returns a static string.
    let s = unsafe {
        core::ffi::CStr::from_ptr(
            l.cublasLtGetStatusName(cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE),
        )
    };
    assert_eq!(s.to_str().unwrap(), "CUBLAS_STATUS_INVALID_VALUE");
}

#[test]
fn hip_nvidia_platform_refuses_every_call_with_a_reason() {
    let l = anycuda::native::hip::cublaslt::library(anycuda::native::hip::Platform::Nvidia)
        .expect("the stand-in");
    assert!(l.table().is_none());
    let l = Library::Hip(l);
    assert_eq!(l.info().name, "none");
    let mut hd: cublasLtHandle_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; nothing is called.
    let r = unsafe { l.cublasLtCreate(&mut hd) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    assert!(not_supported_reason(r)
        .unwrap()
        .contains("no build for HIP's NVIDIA platform"));
    let mut p: cublasLtMatmulPreference_t = core::ptr::null_mut();
    // SAFETY: as above.
    let r = unsafe { l.cublasLtMatmulPreferenceCreate(&mut p) };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
}

/// Null handles, descriptors and out-pointers: cuBLASLt's answers (measured on libcublasLt
/// 13.10), on either library; printed so CI logs show them.
fn null_answers(l: &dyn CublasLt, name: &str) {
    let null = core::ptr::null_mut::<c_void>();
    // SAFETY: null out-pointers and handles are what is being tested: each library (or anycuda's
    // guards on the HIP side) rejects them.
    unsafe {
        let r = l.cublasLtCreate(core::ptr::null_mut());
        eprintln!("{name}: cublasLtCreate(NULL): {r:?}");
        assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(
            l.cublasLtDestroy(core::ptr::null_mut()),
            cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            l.cublasLtMatmulDescCreate(
                core::ptr::null_mut(),
                cublasComputeType_t::CUBLAS_COMPUTE_32F,
                cudaDataType::CUDA_R_32F
            ),
            cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
        );
        // Destroying nothing succeeds, as free(NULL) does.
        assert_eq!(
            l.cublasLtMatmulDescDestroy(core::ptr::null_mut()),
            cublasStatus_t::CUBLAS_STATUS_SUCCESS
        );
        assert_eq!(
            l.cublasLtMatrixLayoutDestroy(core::ptr::null_mut()),
            cublasStatus_t::CUBLAS_STATUS_SUCCESS
        );
        assert_eq!(
            l.cublasLtMatmulPreferenceDestroy(core::ptr::null_mut()),
            cublasStatus_t::CUBLAS_STATUS_SUCCESS
        );
        let v = 4u32;
        let r = l.cublasLtMatmulDescSetAttribute(
            core::ptr::null_mut(),
            cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_EPILOGUE,
            (&v as *const u32).cast(),
            4,
        );
        eprintln!("{name}: cublasLtMatmulDescSetAttribute(NULL): {r:?}");
        assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
        assert_eq!(
            l.cublasLtMatrixLayoutGetAttribute(
                core::ptr::null_mut(),
                cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_ROWS,
                null,
                0,
                core::ptr::null_mut()
            ),
            cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
        );
        let r = l.cublasLtMatmul(
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            null,
            null,
            core::ptr::null_mut(),
            null,
            core::ptr::null_mut(),
            null,
            null,
            core::ptr::null_mut(),
            null,
            core::ptr::null_mut(),
            core::ptr::null(),
            null,
            0,
            core::ptr::null_mut(),
        );
        eprintln!("{name}: cublasLtMatmul(NULL handle): {r:?}");
        assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    }
}

fn set_u32(
    l: &dyn CublasLt,
    desc: cublasLtMatmulDesc_t,
    attr: cublasLtMatmulDescAttributes_t,
    v: u32,
) -> cublasStatus_t {
    // SAFETY: a live descriptor (the callers'), 4 readable bytes.
    unsafe { l.cublasLtMatmulDescSetAttribute(desc, attr, (&v as *const u32).cast(), 4) }
}

fn get_u32(
    l: &dyn CublasLt,
    desc: cublasLtMatmulDesc_t,
    attr: cublasLtMatmulDescAttributes_t,
) -> u32 {
    let mut v = 0u32;
    let mut w = 0usize;
    // SAFETY: a live descriptor (the callers'), 4 writable bytes.
    unsafe { l.cublasLtMatmulDescGetAttribute(desc, attr, (&mut v as *mut u32).cast(), 4, &mut w) }
        .result()
        .unwrap();
    assert_eq!(w, 4);
    v
}

/// Descriptors need no GPU in either library: cuBLASLt's values go in and come back out.
fn descriptors_round_trip(l: &dyn CublasLt, name: &str) {
    type A = cublasLtMatmulDescAttributes_t;
    let mut desc: cublasLtMatmulDesc_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    unsafe {
        l.cublasLtMatmulDescCreate(
            &mut desc,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType::CUDA_R_32F,
        )
    }
    .result()
    .unwrap_or_else(|e| panic!("{name}: cublasLtMatmulDescCreate: {e}"));
    for (attr, v) in [
        (
            A::CUBLASLT_MATMUL_DESC_EPILOGUE,
            cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS.0,
        ),
        (
            A::CUBLASLT_MATMUL_DESC_EPILOGUE,
            cublasLtEpilogue_t::CUBLASLT_EPILOGUE_RELU_BIAS.0,
        ),
        (
            A::CUBLASLT_MATMUL_DESC_TRANSA,
            cublasOperation_t::CUBLAS_OP_T.0,
        ),
        (
            A::CUBLASLT_MATMUL_DESC_TRANSB,
            cublasOperation_t::CUBLAS_OP_N.0,
        ),
        (
            A::CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
            cudaDataType::CUDA_R_16BF.0,
        ),
        (
            A::CUBLASLT_MATMUL_DESC_POINTER_MODE,
            cublasLtPointerMode_t::CUBLASLT_POINTER_MODE_DEVICE.0,
        ),
    ] {
        set_u32(l, desc, attr, v)
            .result()
            .unwrap_or_else(|e| panic!("{name}: set {attr:?} = {v}: {e}"));
        assert_eq!(get_u32(l, desc, attr), v, "{name}: {attr:?}");
    }
    // The size query (null buffer, size 0) answers the attribute's size.
    let mut w = 0usize;
    // SAFETY: a live descriptor; the size query writes only `w`.
    unsafe {
        l.cublasLtMatmulDescGetAttribute(
            desc,
            A::CUBLASLT_MATMUL_DESC_EPILOGUE,
            core::ptr::null_mut(),
            0,
            &mut w,
        )
    }
    .result()
    .unwrap();
    assert_eq!(w, 4, "{name}");
    // SAFETY: destroyed once.
    unsafe { l.cublasLtMatmulDescDestroy(desc) }
        .result()
        .unwrap();

    let mut lay: cublasLtMatrixLayout_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    unsafe { l.cublasLtMatrixLayoutCreate(&mut lay, cudaDataType::CUDA_R_16F, 64, 32, 64) }
        .result()
        .unwrap();
    // Batch count and stride: settable and readable in both libraries.
    let (count, stride) = (3i32, 4096i64);
    let mut w = 0usize;
    let (mut c, mut st) = (0i32, 0i64);
    // SAFETY: a live layout; 4 and 8 readable or writable bytes.
    unsafe {
        l.cublasLtMatrixLayoutSetAttribute(
            lay,
            cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
            (&count as *const i32).cast(),
            4,
        )
        .result()
        .unwrap();
        l.cublasLtMatrixLayoutSetAttribute(
            lay,
            cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
            (&stride as *const i64).cast(),
            8,
        )
        .result()
        .unwrap();
        l.cublasLtMatrixLayoutGetAttribute(
            lay,
            cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
            (&mut c as *mut i32).cast(),
            4,
            &mut w,
        )
        .result()
        .unwrap();
        l.cublasLtMatrixLayoutGetAttribute(
            lay,
            cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
            (&mut st as *mut i64).cast(),
            8,
            &mut w,
        )
        .result()
        .unwrap();
    }
    assert_eq!((c, st), (count, stride), "{name}");
    // The type and the shape read back: cuBLASLt answers them; hipBLASLt 7.1.1 reads back only
    // the batch count and stride (its getter answers HIPBLAS_STATUS_INVALID_VALUE for TYPE,
    // ORDER, ROWS, COLS and LD), so there the translated type is checked through the layout's
    // use in a matmul, on a GPU.
    let mut ty = 0u32;
    // SAFETY: a live layout; 4 writable bytes.
    let r = unsafe {
        l.cublasLtMatrixLayoutGetAttribute(
            lay,
            cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_TYPE,
            (&mut ty as *mut u32).cast(),
            4,
            &mut w,
        )
    };
    eprintln!("{name}: cublasLtMatrixLayoutGetAttribute(TYPE): {r:?} {ty}");
    if name == "cuBLASLt" {
        r.result().unwrap();
        assert_eq!(ty, cudaDataType::CUDA_R_16F.0);
    } else {
        assert_ne!(r, cublasStatus_t::CUBLAS_STATUS_SUCCESS);
    }
    // SAFETY: destroyed once.
    unsafe { l.cublasLtMatrixLayoutDestroy(lay) }
        .result()
        .unwrap();

    let mut pref: cublasLtMatmulPreference_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    unsafe { l.cublasLtMatmulPreferenceCreate(&mut pref) }
        .result()
        .unwrap();
    let ws: u64 = 1 << 22;
    // SAFETY: a live preference; 8 readable bytes.
    unsafe {
        l.cublasLtMatmulPreferenceSetAttribute(
            pref,
            cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            (&ws as *const u64).cast(),
            8,
        )
    }
    .result()
    .unwrap();
    // SAFETY: destroyed once.
    unsafe { l.cublasLtMatmulPreferenceDestroy(pref) }
        .result()
        .unwrap();
}

/// `#define NAME <integer>` of a header.
fn define(text: &str, name: &str) -> i64 {
    text.lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("#define ")?.trim_start();
            let v = rest.strip_prefix(name)?;
            v.starts_with(char::is_whitespace)
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or_else(|| panic!("no #define {name}"))
}

/// Whether the already loaded library `path` exports `name`, asked of the dynamic loader.
fn exports(path: &str, name: &str) -> bool {
    use std::ffi::{c_char, c_int, CString};
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
fn the_cli_reports_cublaslt() {
    let v = &cli_json(&["coverage", "--json", "--verbose"])["cublaslt"];
    assert_eq!(v["cuda_total"], CUBLASLT_FUNCTIONS.len());
    assert_eq!(v["exposed"], CUBLASLT_FUNCTIONS.len());
    assert_eq!(v["hip_backend"], HIPBLASLT_DECLARED.len());
    assert_eq!(
        v["hip_backend"].as_u64().unwrap() + v["hip_unsupported"].as_u64().unwrap(),
        CUBLASLT_FUNCTIONS.len() as u64
    );
    assert!(v["names"]["hip_unsupported"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == "cublasLtMatmulAlgoInit"));
    // `info` names the library the CUDA backend loaded (the child inherits setup's variables).
    let info = cli_json(&["info", "--json"]);
    let backends = info["backends"].as_array().unwrap();
    let b = backends.iter().find(|b| b["backend"] == "cuda").unwrap();
    if cuda_library().is_some() {
        assert_eq!(b["math"]["cublaslt"]["library"], "cuBLASLt", "{b}");
        let (t, _, _) = cuda_library().unwrap();
        assert_eq!(
            b["math"]["cublaslt"]["entry_points"].as_u64().unwrap(),
            t.loaded_count() as u64,
            "{b}"
        );
    } else {
        assert!(b["math"]["cublaslt"]["error"].is_string(), "{b}");
    }
    let h = backends.iter().find(|b| b["backend"] == "hip").unwrap();
    assert!(
        h["math"]["cublaslt"]["library"].is_string() || h["math"]["cublaslt"]["error"].is_string(),
        "{h}"
    );
}
