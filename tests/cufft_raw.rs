//! The raw cuFFT layer without a GPU, on both backends' real libraries: cuFFT from PyPI's
//! `nvidia-cufft` wheel, hipFFT from Debian (trixie's 6.1.2 and sid's 6.4.3, with their rocFFT,
//! through `ci/rocm.sh 5.7` and `ci/rocm.sh 6.4`; bookworm, ROCm 5.2, has no hipFFT). Each
//! library loads, every entry point resolves, the version query answers, the cuFFT<->hipFFT
//! tables agree with both pinned headers (read here as text, independently of codegen), the
//! HIP backend's plan table maps `int` handles to hipFFT's plans, and calls that need a GPU,
//! null pointers, unknown handles and bad enums return cuFFT's codes, never a crash.
//!
//! Under `CI=true` a missing library fails the tests instead of skipping them.
//!
//! The tests compare cuFFT with hipFFT through both backends, so they need both compiled in
//! (the default features, as CI's test step builds them); with one backend the file is empty.

#![cfg(all(feature = "backend-cuda", feature = "backend-hip"))]

use anycuda::cufft::*;
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

/// Points `ANYCUDA_CUFFT_LIBRARY` at the wheel's cuFFT unless the caller chose one. hipFFT is
/// `ci/rocm.sh`'s (`ANYCUDA_HIPFFT_LIBRARY`): trixie's and sid's need their glibc. Runs once,
/// before any test reads the environment.
fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let wheel = root().join(".cache/inputs/cuda/nvidia/cu13/lib/libcufft.so.12");
        anycuda_test::env::default_library("ANYCUDA_CUFFT_LIBRARY", &wheel);
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

fn cufft_h() -> String {
    header("cuda/nvidia/cu13/include/cufft.h")
}

fn hipfft_h() -> String {
    header("hipfft/usr/include/hipfft/hipfft.h")
}

/// A C integer literal: decimal or `0x` hex.
fn int(v: &str) -> Option<i64> {
    let v = v.trim();
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// `enum TAG { a = 1, b = 0x2 }` blocks of a header (with or without `typedef`): TAG ->
/// (enumerator -> value), literal values only.
fn header_enums(text: &str) -> BTreeMap<String, BTreeMap<String, i64>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(i) = rest.find("enum ") {
        rest = &rest[i + "enum ".len()..];
        let tag: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = rest[tag.len()..].trim_start();
        if tag.is_empty() || !after.starts_with('{') {
            continue;
        }
        let Some(close) = after.find('}') else { break };
        let mut m = BTreeMap::new();
        for line in after[1..close].lines() {
            let line = line.split("//").next().unwrap_or("");
            let line = line.split("/*").next().unwrap_or("");
            for part in line.split(',') {
                let Some((k, v)) = part.split_once('=') else {
                    continue;
                };
                if let Some(v) = int(v) {
                    m.insert(k.trim().to_string(), v);
                }
            }
        }
        out.insert(tag, m);
        rest = &after[close..];
    }
    out
}

/// `#define NAME <integer>` of a header.
fn define(text: &str, name: &str) -> i64 {
    text.lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("#define ")?.trim_start();
            let v = rest.strip_prefix(name)?;
            let v = v.split("//").next().unwrap_or("");
            v.starts_with(char::is_whitespace).then(|| int(v))?
        })
        .unwrap_or_else(|| panic!("no #define {name}"))
}

/// The function names a header declares: `prefixX(` after the export macro and return type,
/// outside comments (hipFFT comments some declarations out).
fn header_functions(text: &str, macro_: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_comment = false;
    let mut pending = false;
    for l in text.lines() {
        let t = l.trim();
        if in_comment {
            in_comment = !t.contains("*/");
            continue;
        }
        if t.starts_with("/*") && !t.contains("*/") {
            in_comment = true;
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        // The name on the macro's line, or on the next one (`HIPFFT_EXPORT hipfftResult\n X(`).
        let scan = if let Some(i) = t.find(macro_) {
            pending = true;
            &t[i + macro_.len()..]
        } else if pending {
            t
        } else {
            continue;
        };
        // The first `prefixX` followed by `(` (hipFFT's return type, `hipfftResult`, has the
        // prefix too).
        for (i, _) in scan.match_indices(prefix) {
            let name: String = scan[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if scan[i + name.len()..].trim_start().starts_with('(') {
                out.insert(name);
                pending = false;
                break;
            }
        }
    }
    out
}

fn cuda_library() -> Option<(&'static CufftTable, String)> {
    setup();
    match anycuda::native::cuda::cufft::library() {
        Ok(l) => Some((&l.table, l.path.clone())),
        Err(e) if ci() => {
            panic!("CI=true and cuFFT does not load (run bash ci/fetch-inputs.sh): {e}")
        }
        Err(e) => {
            eprintln!("SKIP: cuFFT does not load: {e}");
            None
        }
    }
}

fn hip_library() -> Option<&'static anycuda::native::hip::cufft::FftLibrary> {
    setup();
    let release = rocm_release();
    match anycuda::native::hip::cufft::library(anycuda::native::hip::Platform::Amd) {
        Ok(l) => Some(l),
        Err(e) if release == "5.2" => {
            // Bookworm (ROCm 5.2.3) has no hipFFT; ci/rocm.sh leaves the override unset.
            eprintln!("SKIP: ROCm 5.2 has no hipFFT: {e}");
            None
        }
        Err(e) if ci() => panic!(
            "CI=true and hipFFT does not load under ROCm {release} (run through bash ci/rocm.sh 5.7|6.4): {e}"
        ),
        Err(e) => {
            eprintln!("SKIP: hipFFT does not load: {e}");
            None
        }
    }
}

#[test]
fn the_catalogue_is_every_function_of_cufft_h() {
    let declared = header_functions(&cufft_h(), "CUFFTAPI", "cufft");
    let ours: BTreeSet<String> = CUFFT_FUNCTIONS.iter().map(|f| f.name.to_string()).collect();
    assert_eq!(ours, declared);
    assert!(ours.contains("cufftExecC2C") && ours.contains("cufftMakePlanMany64"));
    // HIPFFT_DECLARED is exactly the pairs whose hipFFT twin the pinned hipfft.h declares.
    let hip = header_functions(&hipfft_h(), "HIPFFT_EXPORT", "hipfft");
    assert!(hip.contains("hipfftExecC2C"), "{hip:?}");
    let pairs: BTreeSet<(String, String)> = HIPFFT_DECLARED
        .iter()
        .map(|(c, h)| (c.to_string(), h.to_string()))
        .collect();
    let expect: BTreeSet<(String, String)> = declared
        .iter()
        .filter_map(|c| {
            let h = format!("hipfft{}", c.strip_prefix("cufft")?);
            hip.contains(&h).then(|| (c.clone(), h))
        })
        .collect();
    assert_eq!(pairs, expect);
    // The C ABI's list of libcufft.so.12 names is the whole catalogue.
    assert_eq!(CUFFT_FUNCTIONS.len(), declared.len());
}

#[test]
fn the_types_carry_cufft_h_values() {
    let e = header_enums(&cufft_h());
    let check = |tag: &str, consts: &[anycuda::ConstInfo]| {
        let h = &e[tag];
        for (name, v) in h {
            let c = consts
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{tag}: {name} missing"));
            assert_eq!(c.value, *v, "{tag}::{name}");
        }
        assert!(!h.is_empty());
    };
    check("cufftResult_t", cufftResult::CONSTANTS);
    check("cufftType_t", cufftType::CONSTANTS);
    let h = cufft_h();
    assert_eq!(CUFFT_VERSION as i64, define(&h, "CUFFT_VERSION"));
    assert_eq!(CUFFT_FORWARD as i64, define(&h, "CUFFT_FORWARD"));
    // cufftHandle is an int, as in cufft.h.
    assert_eq!(
        core::mem::size_of::<cufftHandle>(),
        core::mem::size_of::<core::ffi::c_int>()
    );
}

#[test]
fn the_hipfft_tables_agree_with_both_headers() {
    use anycuda::native::hip::cufft as t;
    let cu = header_enums(&cufft_h());
    let hi = header_enums(&hipfft_h());
    for (tag, htag, pairs, cuda_only, hip_only) in [
        (
            "cufftResult_t",
            "hipfftResult_t",
            t::RESULT_PAIRS,
            t::RESULT_CUFFT_ONLY,
            t::RESULT_HIPFFT_ONLY,
        ),
        (
            "cufftType_t",
            "hipfftType_t",
            t::TYPE_PAIRS,
            t::TYPE_CUFFT_ONLY,
            t::TYPE_HIPFFT_ONLY,
        ),
    ] {
        let (c, h) = (&cu[tag], &hi[htag]);
        for (cn, cv, hn, hv) in pairs {
            assert_eq!(c.get(*cn), Some(cv), "{cn}");
            assert_eq!(h.get(*hn), Some(hv), "{hn}");
            assert_eq!(hn.strip_prefix("HIPFFT"), cn.strip_prefix("CUFFT"));
        }
        for cn in c.keys() {
            assert!(
                pairs.iter().any(|p| p.0 == cn) || cuda_only.iter().any(|p| p.0 == cn),
                "{cn}"
            );
        }
        for hn in h.keys() {
            assert!(
                pairs.iter().any(|p| p.2 == hn) || hip_only.iter().any(|p| p.0 == hn),
                "{hn}"
            );
        }
    }
    assert_eq!(t::TYPE_PAIRS.len(), 6);
    assert_eq!(t::type_to_hipfft(cufftType::CUFFT_Z2Z), Some(0x69));
    assert_eq!(t::type_to_hipfft(cufftType(0x77)), None);
    // A hipFFT-only result is hallucinated: NAMED_BASE + its value, with a name.
    assert!(!t::RESULT_HIPFFT_ONLY.is_empty());
    for (hn, hv) in t::RESULT_HIPFFT_ONLY {
        let s = t::result_from_hipfft(cufftResult(*hv as u32));
        assert_eq!(s.to_i64(), anycuda::hallucinated::NAMED_BASE + hv, "{hn}");
        assert!(s.info().is_some(), "{hn} has a constant");
        assert_eq!(CufftError(s).hipfft_code(), Some(*hv));
    }
    let u = t::result_from_hipfft(cufftResult(4242));
    assert_eq!(CufftError(u).hipfft_code(), Some(4242));
    assert_eq!(
        t::result_from_hipfft(cufftResult(1)),
        cufftResult::CUFFT_INVALID_PLAN
    );
}

#[test]
fn the_plan_table_maps_int_handles() {
    let p = anycuda::native::hip::cufft::plans();
    // Addresses never dereferenced: the table only stores them.
    let (a, b) = (0x1000 as *mut core::ffi::c_void, 0x2000 as *mut _);
    let (ha, hb) = (p.insert(a), p.insert(b));
    assert!(ha > 0 && hb > 0 && ha != hb, "{ha} {hb}");
    assert_eq!(p.get(ha), Some(a));
    assert_eq!(p.get(hb), Some(b));
    assert_eq!(p.remove(ha), Some(a));
    assert_eq!(p.get(ha), None);
    assert_eq!(p.remove(ha), None);
    assert_eq!(p.get(-1), None);
    assert_eq!(p.get(0), None);
    assert_eq!(p.remove(hb), Some(b));
}

#[test]
fn cufft_loads_and_answers_without_a_gpu() {
    let Some((t, path)) = cuda_library() else {
        return;
    };
    eprintln!("cuFFT {path}: {t:?}");
    assert_eq!(t.loaded_count(), CUFFT_FUNCTIONS.len(), "{t:?}");
    let mut v = 0;
    // SAFETY: valid out-pointer.
    unsafe { t.cufftGetVersion(&mut v) }.result().unwrap();
    assert_eq!(i64::from(v), define(&cufft_h(), "CUFFT_VERSION"));
    let mut major = 0;
    // SAFETY: valid out-pointer.
    unsafe { t.cufftGetProperty(libraryPropertyType::MAJOR_VERSION, &mut major) }
        .result()
        .unwrap();
    assert_eq!(i64::from(major), define(&cufft_h(), "CUFFT_VER_MAJOR"));
    no_gpu_answers(t, "cuFFT");
    // A plan property on an unknown plan: cuFFT's own answer.
    let mut out = 0i64;
    // SAFETY: valid out-pointer; the plan is unknown.
    let r = unsafe {
        t.cufftGetPlanPropertyInt64(
            12345,
            cufftProperty::NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT,
            &mut out,
        )
    };
    eprintln!("cuFFT: cufftGetPlanPropertyInt64 on an unknown plan: {r:?}");
    assert_ne!(r, cufftResult::CUFFT_SUCCESS);
    assert!(r.info().is_some());
}

#[test]
fn hipfft_loads_and_translates_without_a_gpu() {
    let Some(l) = hip_library() else { return };
    let lib = anycuda::cufft::Library::Hip(l);
    let info = lib.info();
    eprintln!("hipFFT under ROCm {}: {info:?}", rocm_release());
    assert_eq!(info.name, "hipFFT");
    assert_eq!(l.table().loaded_count(), HIPFFT_DECLARED.len(), "{info:?}");
    let mut v = 0;
    // SAFETY: valid out-pointer.
    unsafe { lib.cufftGetVersion(&mut v) }.result().unwrap();
    assert_eq!(v, info.version);
    assert!(v > 0);
    no_gpu_answers(&lib, "hipFFT");
    // A function hipFFT lacks: cuFFT's own NOT_SUPPORTED, and why.
    let mut out = 0i64;
    // SAFETY: valid out-pointer.
    let r = unsafe {
        lib.cufftGetPlanPropertyInt64(
            1,
            cufftProperty::NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT,
            &mut out,
        )
    };
    assert_eq!(r, cufftResult::CUFFT_NOT_SUPPORTED);
    let why = not_supported_reason(r).expect("a reason is recorded");
    assert!(
        why.contains("cufftGetPlanPropertyInt64") && why.contains("hipFFT"),
        "{why}"
    );
    assert_eq!(not_supported_reason(cufftResult::CUFFT_INVALID_PLAN), None);
}

/// What a library answers without a GPU and to bad input, in cuFFT's numbering: the same on
/// both backends (cuFFT's own answers, measured on the wheel's libcufft 12.5.0 with no driver;
/// the HIP backend gives them before hipFFT, which throws and aborts the process when it looks
/// for a device that is not there).
fn no_gpu_answers(l: &dyn Cufft, name: &str) {
    use cufftResult as R;
    let c2c = cufftType::CUFFT_C2C;
    use core::ptr::null_mut as null;
    let mut plan: cufftHandle = -7;
    let mut ws = 0usize;
    // SAFETY: every call below gets out-pointers that are valid or null (null is what is
    // checked); its data pointers are null and never reached (the plan is unknown).
    unsafe {
        // Needing a GPU: cuFFT's internal error, and no handle written.
        let r = l.cufftCreate(&mut plan);
        eprintln!("{name}: cufftCreate without a GPU: {r:?}");
        assert_eq!(r, R::CUFFT_INTERNAL_ERROR, "{name}");
        assert_eq!(plan, -7);
        assert_eq!(
            l.cufftPlan1d(&mut plan, 64, c2c, 1),
            R::CUFFT_INTERNAL_ERROR
        );
        assert_eq!(plan, -7);
        assert_eq!(
            l.cufftPlan2d(&mut plan, 8, 8, cufftType::CUFFT_R2C),
            R::CUFFT_INTERNAL_ERROR
        );
        assert_eq!(
            l.cufftEstimate1d(64, c2c, 1, &mut ws),
            R::CUFFT_INTERNAL_ERROR
        );
        // Bad sizes and types need the GPU first in cuFFT, so they answer the same here.
        assert_eq!(l.cufftPlan1d(&mut plan, 0, c2c, 1), R::CUFFT_INTERNAL_ERROR);
        assert_eq!(
            l.cufftPlan1d(&mut plan, 64, cufftType(0x77), 1),
            R::CUFFT_INTERNAL_ERROR
        );
        // Unknown handles: CUFFT_INVALID_PLAN, never a crash.
        // CUFFT_PLAN_NULL (-1): cuFFT destroys nothing and succeeds.
        assert_eq!(l.cufftDestroy(-1), R::CUFFT_SUCCESS, "{name}");
        for h in [12345, 0, -1, i32::MAX] {
            if h != -1 {
                assert_eq!(l.cufftDestroy(h), R::CUFFT_INVALID_PLAN, "{name} {h}");
            }
            assert_eq!(l.cufftGetSize(h, &mut ws), R::CUFFT_INVALID_PLAN);
            assert_eq!(l.cufftSetStream(h, null()), R::CUFFT_INVALID_PLAN);
            assert_eq!(l.cufftSetWorkArea(h, null()), R::CUFFT_INVALID_PLAN);
            assert_eq!(l.cufftSetAutoAllocation(h, 0), R::CUFFT_INVALID_PLAN);
            assert_eq!(
                l.cufftExecC2C(h, null(), null(), CUFFT_FORWARD),
                R::CUFFT_INVALID_PLAN
            );
            assert_eq!(l.cufftExecR2C(h, null(), null()), R::CUFFT_INVALID_PLAN);
            assert_eq!(l.cufftExecZ2D(h, null(), null()), R::CUFFT_INVALID_PLAN);
            assert_eq!(
                l.cufftMakePlan1d(h, 64, c2c, 1, &mut ws),
                R::CUFFT_INVALID_PLAN
            );
        }
        // Null out-pointers and a null size array: CUFFT_INVALID_VALUE, before any library.
        assert_eq!(l.cufftCreate(null()), R::CUFFT_INVALID_VALUE);
        assert_eq!(l.cufftGetVersion(null()), R::CUFFT_INVALID_VALUE);
        assert_eq!(l.cufftPlan1d(null(), 64, c2c, 1), R::CUFFT_INVALID_VALUE);
        assert_eq!(
            l.cufftEstimate1d(64, c2c, 1, null()),
            R::CUFFT_INVALID_VALUE
        );
        assert_eq!(l.cufftGetSize(12345, null()), R::CUFFT_INVALID_VALUE);
        assert_eq!(
            l.cufftGetProperty(libraryPropertyType::MAJOR_VERSION, null()),
            R::CUFFT_INVALID_VALUE
        );
        assert_eq!(
            l.cufftPlanMany(&mut plan, 1, null(), null(), 1, 64, null(), 1, 64, c2c, 1),
            R::CUFFT_INVALID_VALUE
        );
        // A property cuFFT does not know: CUFFT_INVALID_TYPE.
        let mut p = 0;
        assert_eq!(
            l.cufftGetProperty(libraryPropertyType(7), &mut p),
            R::CUFFT_INVALID_TYPE
        );
        assert_eq!(
            l.cufftGetProperty(libraryPropertyType::MAJOR_VERSION, &mut p),
            R::CUFFT_SUCCESS
        );
    }
}
