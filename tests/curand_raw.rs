//! The raw cuRAND layer without a GPU, on both backends' real libraries: cuRAND from PyPI's
//! `nvidia-curand` wheel, hipRAND from Debian (bookworm's 5.3.3 fetched by
//! `ci/curand-fetch.sh`; trixie's and sid's through `ci/rocm.sh`). Each library loads, every
//! entry point resolves, the version query answers the version its header declares, the
//! cuRAND<->hipRAND tables agree with both pinned headers (read here as text, independently of
//! codegen), and calls that need a GPU, null pointers and bad enums return errors in cuRAND's
//! numbering, never a crash.
//!
//! Under `CI=true` a missing library fails the tests instead of skipping them.
//!
//! The tests compare cuRAND with hipRAND through both backends, so they need both compiled in
//! (the default features, as CI's test step builds them); with one backend the file is empty.

#![cfg(all(feature = "backend-cuda", feature = "backend-hip"))]

mod common;

use anycuda::curand::*;
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

/// Points `ANYCUDA_CURAND_LIBRARY` at the wheel's cuRAND and `ANYCUDA_HIPRAND_LIBRARY` at
/// bookworm's hipRAND unless the caller (or `ci/rocm.sh`) chose them. Runs once, before any
/// test reads the environment.
fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let wheel = root().join(".cache/inputs/cuda/nvidia/cu13/lib/libcurand.so.10");
        anycuda_test::env::default_library("ANYCUDA_CURAND_LIBRARY", &wheel);
        let deb = root().join(".cache/inputs/hiprand/usr/lib/x86_64-linux-gnu/libhiprand.so.1");
        anycuda_test::env::default_library("ANYCUDA_HIPRAND_LIBRARY", &deb);
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

fn curand_h() -> String {
    header("cuda/nvidia/cu13/include/curand.h")
}

fn hiprand_h() -> String {
    header("hiprand/usr/include/hiprand/hiprand.h")
}

/// `enum TAG { a = 1, b = 2 }` blocks of a header (with or without `typedef`): TAG ->
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
                if let Ok(v) = v.trim().parse::<i64>() {
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
            v.starts_with(char::is_whitespace)
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or_else(|| panic!("no #define {name}"))
}

/// The function names a header declares (`curandX(` at a line start after `CURANDAPI`).
fn header_functions(text: &str, prefix: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            if !l.starts_with(prefix) {
                return None;
            }
            let name: String = l
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            l[name.len()..]
                .trim_start()
                .starts_with('(')
                .then_some(name)
        })
        .collect()
}

/// cuRAND's table and the file it came from.
fn cuda_library() -> Option<(&'static CurandTable, String)> {
    setup();
    match anycuda::native::cuda::curand::library() {
        Ok(l) => Some((&l.table, l.path.clone())),
        Err(e) if ci() => {
            panic!("CI=true and cuRAND does not load (run bash ci/fetch-inputs.sh): {e}")
        }
        Err(e) => {
            eprintln!("SKIP: cuRAND does not load: {e}");
            None
        }
    }
}

fn hip_library() -> Option<Library> {
    setup();
    match anycuda::native::hip::curand::library(anycuda::native::hip::Platform::Amd) {
        Ok(l) => Some(Library::Hip(l)),
        Err(e) if ci() => panic!(
            "CI=true and hipRAND does not load (run bash ci/fetch-inputs.sh, or ci/rocm.sh): {e}"
        ),
        Err(e) => {
            eprintln!("SKIP: hipRAND does not load: {e}");
            None
        }
    }
}

#[test]
fn the_catalogue_is_every_function_of_curand_h() {
    let declared = header_functions(&curand_h(), "curand");
    let ours: BTreeSet<String> = CURAND_FUNCTIONS
        .iter()
        .map(|f| f.name.to_string())
        .collect();
    assert_eq!(ours, declared);
    // HIPRAND_DECLARED is exactly the pairs whose hipRAND twin the pinned hiprand.h declares.
    let hip = header_functions(&hiprand_h(), "hiprand");
    let pairs: BTreeSet<(String, String)> = HIPRAND_DECLARED
        .iter()
        .map(|(c, h)| (c.to_string(), h.to_string()))
        .collect();
    let expect: BTreeSet<(String, String)> = declared
        .iter()
        .filter_map(|c| {
            let h = format!("hiprand{}", c.strip_prefix("curand")?);
            hip.contains(&h).then(|| (c.clone(), h))
        })
        .collect();
    assert_eq!(pairs, expect);
    assert!(
        pairs.iter().any(|(c, _)| c == "curandCreateGenerator"),
        "the header reader finds hipRAND's functions: {pairs:?}"
    );
}

#[test]
fn the_types_carry_curand_h_values() {
    let e = header_enums(&curand_h());
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
    check("curandStatus", curandStatus_t::CONSTANTS);
    check("curandRngType", curandRngType_t::CONSTANTS);
    check("curandOrdering", curandOrdering_t::CONSTANTS);
    check(
        "curandDirectionVectorSet",
        curandDirectionVectorSet_t::CONSTANTS,
    );
    check("curandMethod", curandMethod_t::CONSTANTS);
    let h = curand_h();
    assert_eq!(
        CURAND_VERSION as i64,
        define(&h, "CURAND_VER_MAJOR") * 1000
            + define(&h, "CURAND_VER_MINOR") * 100
            + define(&h, "CURAND_VER_PATCH")
    );
}

#[test]
fn the_hiprand_tables_agree_with_both_headers() {
    use anycuda::native::hip::curand as t;
    let cu = header_enums(&curand_h());
    let hi = header_enums(&hiprand_h());
    for (tag, htag, pairs, cuda_only, hip_only) in [
        (
            "curandStatus",
            "hiprandStatus",
            t::STATUS_PAIRS,
            t::STATUS_CURAND_ONLY,
            t::STATUS_HIPRAND_ONLY,
        ),
        (
            "curandRngType",
            "hiprandRngType",
            t::RNGTYPE_PAIRS,
            t::RNGTYPE_CURAND_ONLY,
            t::RNGTYPE_HIPRAND_ONLY,
        ),
    ] {
        let (c, h) = (&cu[tag], &hi[htag]);
        for (cn, cv, hn, hv) in pairs {
            assert_eq!(c.get(*cn), Some(cv), "{cn}");
            assert_eq!(h.get(*hn), Some(hv), "{hn}");
            assert_eq!(hn.strip_prefix("HIPRAND"), cn.strip_prefix("CURAND"));
        }
        // Every enumerator of either header is paired or listed as one-sided.
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
    // The values really differ where it matters: 100 vs 400.
    let d = curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT;
    assert_eq!(
        t::rngtype_to_hiprand(d).map(i64::from),
        hi["hiprandRngType"]
            .get("HIPRAND_RNG_PSEUDO_DEFAULT")
            .copied()
    );
    assert_ne!(t::rngtype_to_hiprand(d), Some(d.0 as i32));
    assert_eq!(t::rngtype_to_hiprand(curandRngType_t(12345)), None);
    // A hipRAND-only status is hallucinated: NAMED_BASE + its value, with a name.
    for (hn, hv) in t::STATUS_HIPRAND_ONLY {
        let s = t::status_from_hiprand(curandStatus_t(*hv as u32));
        assert_eq!(s.to_i64(), anycuda::hallucinated::NAMED_BASE + hv, "{hn}");
        assert!(s.info().is_some(), "{hn} has a constant");
        assert_eq!(CurandError(s).hiprand_code(), Some(*hv));
    }
    assert_eq!(
        t::status_from_hiprand(curandStatus_t(1000)),
        curandStatus_t::CURAND_STATUS_HIPRAND_NOT_IMPLEMENTED
    );
    // Unknown hipRAND statuses stay recoverable.
    let u = t::status_from_hiprand(curandStatus_t(4242));
    assert_eq!(CurandError(u).hiprand_code(), Some(4242));
}

#[test]
fn curand_loads_and_answers_without_a_gpu() {
    let Some((t, path)) = cuda_library() else {
        return;
    };
    // Every entry point the file exports resolves (asked of the dynamic loader here, not of
    // anycuda's table); the header declares two that libcurand 10.4.5 does not export
    // (curandGenerateBinomial, curandGenerateBinomialMethod), which answer not-supported.
    let missing: Vec<&str> = CURAND_FUNCTIONS
        .iter()
        .map(|f| f.name)
        .filter(|n| !exports(&path, n))
        .collect();
    eprintln!("cuRAND {path}: not exported: {missing:?}");
    assert_eq!(
        t.loaded_count(),
        CURAND_FUNCTIONS.len() - missing.len(),
        "{t:?}"
    );
    assert!(missing.len() <= 2, "{missing:?}");
    if missing.contains(&"curandGenerateBinomial") {
        // A dangling (never dereferenced) generator: the entry point is absent, so the call
        // never reaches a library.
        let g = core::ptr::NonNull::<curandGenerator_st>::dangling().as_ptr();
        let mut out = [0u32; 4];
        // SAFETY: nothing is called: the table has no entry point for it.
        let r = unsafe { t.curandGenerateBinomial(g, out.as_mut_ptr(), 4, 1, 0.5) };
        assert_eq!(r, curandStatus_t::CURAND_STATUS_NOT_SUPPORTED);
        assert!(not_supported_reason(r).is_some());
    }
    let h = curand_h();
    let want = define(&h, "CURAND_VER_MAJOR") * 1000
        + define(&h, "CURAND_VER_MINOR") * 100
        + define(&h, "CURAND_VER_PATCH");
    let mut v = 0;
    // SAFETY: valid out-pointer.
    unsafe { t.curandGetVersion(&mut v) }.result().unwrap();
    assert_eq!(i64::from(v), want);
    no_gpu_answers(&Library::Cuda(t), "cuRAND");
}

#[test]
fn hiprand_loads_and_translates_without_a_gpu() {
    let Some(l) = hip_library() else { return };
    let info = l.info();
    assert_eq!(info.name, "hipRAND");
    assert_eq!(
        info.entry_points,
        (HIPRAND_DECLARED.len(), CURAND_FUNCTIONS.len()),
        "{info:?}"
    );
    let mut v = 0;
    // SAFETY: valid out-pointer.
    unsafe { l.curandGetVersion(&mut v) }.result().unwrap();
    assert_eq!(v, info.version);
    if rocm_release() == "5.2" {
        let hv = header("hiprand/usr/include/hiprand/hiprand_version.h");
        assert_eq!(i64::from(v), define(&hv, "HIPRAND_VERSION"));
    } else {
        assert!(v > 0, "hipRAND {} reports {v}", rocm_release());
    }
    no_gpu_answers(&l, "hipRAND");
    // A host generator: cuRAND's need no GPU, hipRAND's do (5.x answers NOT_IMPLEMENTED, 6.4
    // creates one that aborts the process when destroyed): not supported here, with a reason.
    let mut g: curandGenerator_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r =
        unsafe { l.curandCreateGeneratorHost(&mut g, curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT) };
    assert_eq!(r, curandStatus_t::CURAND_STATUS_NOT_SUPPORTED);
    assert!(g.is_null());
    assert!(not_supported_reason(r)
        .unwrap()
        .contains("host generators need a HIP device"));
    if rocm_release() == "5.2" {
        // hipRAND 5.3.3's own answer without a device, through the raw table (hipRAND's
        // numbering in: HIPRAND_RNG_PSEUDO_DEFAULT read from its header), mapped to cuRAND's.
        let Library::Hip(h) = l else { unreachable!() };
        let def = header_enums(&hiprand_h())["hiprandRngType"]["HIPRAND_RNG_PSEUDO_DEFAULT"];
        let mut g: curandGenerator_t = core::ptr::null_mut();
        // SAFETY: a valid out-pointer; hipRAND 5.3.3 fails the creation without a device.
        let raw = unsafe {
            h.table()
                .curandCreateGenerator(&mut g, curandRngType_t(def as u32))
        };
        let mapped = anycuda::native::hip::curand::status_from_hiprand(raw);
        eprintln!("hipRAND 5.3.3 raw: hiprandCreateGenerator without a GPU: {raw:?} -> {mapped:?}");
        assert_eq!(mapped, curandStatus_t::CURAND_STATUS_ALLOCATION_FAILED);
        assert!(g.is_null());
    }
    // A function hipRAND lacks: anycuda's own status, and why.
    let mut p = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { l.curandGetProperty(libraryPropertyType::MAJOR_VERSION, &mut p) };
    assert_eq!(r, curandStatus_t::CURAND_STATUS_NOT_SUPPORTED);
    let why = not_supported_reason(r).expect("a reason is recorded");
    assert!(
        why.contains("curandGetProperty") && why.contains("hipRAND"),
        "{why}"
    );
    assert_eq!(
        not_supported_reason(curandStatus_t::CURAND_STATUS_TYPE_ERROR),
        None
    );
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

/// What a library answers without a GPU, in cuRAND's numbering; printed so CI logs show it.
fn no_gpu_answers(l: &dyn Curand, name: &str) {
    let known = |s: curandStatus_t| s.info().is_some();
    // Creating a device generator needs a GPU: an error, in cuRAND's numbering.
    let mut g: curandGenerator_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { l.curandCreateGenerator(&mut g, curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT) };
    eprintln!("{name}: curandCreateGenerator without a GPU: {r:?}");
    // cuRAND fails to initialise CUDA; the HIP backend gives that answer too, before hipRAND
    // sees the call (hipRAND 5.x answers an allocation failure, checked below through the raw
    // table; hipRAND 6.4 creates the generator and rocRAND aborts the process when it is
    // destroyed).
    assert_eq!(r, curandStatus_t::CURAND_STATUS_INITIALIZATION_FAILED);
    assert!(g.is_null());
    // A bad generator type.
    let mut g: curandGenerator_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; the type is checked by the library (or by anycuda on AMD).
    let r = unsafe { l.curandCreateGenerator(&mut g, curandRngType_t(12345)) };
    eprintln!("{name}: curandCreateGenerator(type 12345): {r:?}");
    assert_ne!(r, curandStatus_t::CURAND_STATUS_SUCCESS);
    assert!(known(r), "{r:?}");
    // A bad type for a host generator (which needs no GPU): the type is what is refused.
    let mut g: curandGenerator_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { l.curandCreateGeneratorHost(&mut g, curandRngType_t(12345)) };
    eprintln!("{name}: curandCreateGeneratorHost(type 12345): {r:?}");
    assert_eq!(r, curandStatus_t::CURAND_STATUS_TYPE_ERROR);
    assert!(g.is_null());
    // A null generator on calls that take one.
    // SAFETY: a null handle is what is being tested; the library rejects it.
    let r = unsafe { l.curandSetPseudoRandomGeneratorSeed(core::ptr::null_mut(), 1) };
    eprintln!("{name}: curandSetPseudoRandomGeneratorSeed(NULL): {r:?}");
    assert_ne!(r, curandStatus_t::CURAND_STATUS_SUCCESS);
    assert!(known(r), "{r:?}");
    // A null generator: cuRAND's own answer on every backend (hipRAND's destroy would say
    // success; the HIP backend answers as cuRAND does).
    // SAFETY: as above.
    let r = unsafe { l.curandDestroyGenerator(core::ptr::null_mut()) };
    eprintln!("{name}: curandDestroyGenerator(NULL): {r:?}");
    assert_eq!(r, curandStatus_t::CURAND_STATUS_NOT_INITIALIZED);
    let mut out = [0f32; 16];
    // SAFETY: as above; the output is valid for 16 floats.
    let r = unsafe { l.curandGenerateUniform(core::ptr::null_mut(), out.as_mut_ptr(), 16) };
    eprintln!("{name}: curandGenerateUniform(NULL generator): {r:?}");
    assert_eq!(r, curandStatus_t::CURAND_STATUS_NOT_INITIALIZED);
    // Null out-pointers: cuRAND itself crashes on some (curandGetVersion(NULL) is a SIGSEGV in
    // libcurand 10.4.5); anycuda answers CURAND_STATUS_OUT_OF_RANGE before any library sees
    // them.
    // SAFETY: null out-pointers are what is being tested; anycuda rejects them.
    let r = unsafe { l.curandGetVersion(core::ptr::null_mut()) };
    assert_eq!(r, curandStatus_t::CURAND_STATUS_OUT_OF_RANGE);
    // SAFETY: as above.
    let r = unsafe {
        l.curandCreateGenerator(
            core::ptr::null_mut(),
            curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT,
        )
    };
    assert_eq!(r, curandStatus_t::CURAND_STATUS_OUT_OF_RANGE);
    // SAFETY: as above.
    let r = unsafe { l.curandCreatePoissonDistribution(1.0, core::ptr::null_mut()) };
    assert_eq!(r, curandStatus_t::CURAND_STATUS_OUT_OF_RANGE);
    // The generator is checked first, as cuRAND does.
    // SAFETY: as above.
    let r = unsafe { l.curandGenerateUniform(core::ptr::null_mut(), core::ptr::null_mut(), 16) };
    assert_eq!(r, curandStatus_t::CURAND_STATUS_NOT_INITIALIZED);
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
fn the_cli_reports_curand() {
    let v = &cli_json(&["coverage", "--json", "--verbose"])["curand"];
    assert_eq!(v["cuda_total"], CURAND_FUNCTIONS.len());
    assert_eq!(v["exposed"], CURAND_FUNCTIONS.len());
    assert_eq!(v["hip_backend"], HIPRAND_DECLARED.len());
    assert_eq!(
        v["hip_backend"].as_u64().unwrap() + v["hip_unsupported"].as_u64().unwrap(),
        CURAND_FUNCTIONS.len() as u64
    );
    assert!(v["names"]["hip_unsupported"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == "curandGetProperty"));
    // `info` names the library each backend loaded (the child inherits setup's variables).
    let info = cli_json(&["info", "--json"]);
    let backends = info["backends"].as_array().unwrap();
    for (kind, name, loaded) in [
        ("cuda", "cuRAND", cuda_library().is_some()),
        ("hip", "hipRAND", hip_library().is_some()),
    ] {
        let b = backends.iter().find(|b| b["backend"] == kind).unwrap();
        if loaded {
            assert_eq!(b["math"]["curand"]["library"], name, "{b}");
            assert!(
                b["math"]["curand"]["entry_points"].as_u64().unwrap() > 0,
                "{b}"
            );
        } else {
            assert!(b["math"]["curand"]["error"].is_string(), "{b}");
        }
    }
}

/// cuRAND's host generators run without a GPU: real numbers through anycuda's raw layer,
/// checked statistically and for reproducibility with a fixed seed.
#[test]
fn curand_host_generator_generates_without_a_gpu() {
    let Some((t, _)) = cuda_library() else { return };
    let l = Library::Cuda(t);
    let make = |seed: u64| {
        let mut g: curandGenerator_t = core::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { l.curandCreateGeneratorHost(&mut g, curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT) }
            .result()
            .unwrap();
        // SAFETY: the generator just created.
        unsafe { l.curandSetPseudoRandomGeneratorSeed(g, seed) }
            .result()
            .unwrap();
        g
    };
    const N: usize = 100_000;
    let uniform = |g| {
        let mut v = vec![0f32; N];
        // SAFETY: a live host generator; the output holds N floats.
        unsafe { l.curandGenerateUniform(g, v.as_mut_ptr(), N) }
            .result()
            .unwrap();
        v
    };
    let (g1, g2) = (make(1234), make(1234));
    let (a, b) = (uniform(g1), uniform(g2));
    assert_eq!(a, b, "same seed, same numbers");
    let g3 = make(4321);
    assert_ne!(uniform(g3), a, "another seed, other numbers");
    // Uniform on (0, 1]: mean 1/2, variance 1/12 (standard error of the mean ~0.0009).
    assert!(a.iter().all(|x| *x > 0.0 && *x <= 1.0));
    let mean = a.iter().map(|x| f64::from(*x)).sum::<f64>() / N as f64;
    let var = a
        .iter()
        .map(|x| (f64::from(*x) - mean).powi(2))
        .sum::<f64>()
        / N as f64;
    assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
    assert!((var - 1.0 / 12.0).abs() < 0.002, "variance {var}");
    // Normal(2, 3) in double precision (standard error of the mean ~0.0095).
    let mut n = vec![0f64; N];
    // SAFETY: a live host generator; the output holds N doubles (an even count, as required).
    unsafe { l.curandGenerateNormalDouble(g1, n.as_mut_ptr(), N, 2.0, 3.0) }
        .result()
        .unwrap();
    let mean = n.iter().sum::<f64>() / N as f64;
    let sd = (n.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / N as f64).sqrt();
    assert!((mean - 2.0).abs() < 0.05, "mean {mean}");
    assert!((sd - 3.0).abs() < 0.05, "stddev {sd}");
    // An odd count of normals is cuRAND's LENGTH_NOT_MULTIPLE, not a crash.
    // SAFETY: as above; 3 doubles fit.
    let r = unsafe { l.curandGenerateNormalDouble(g1, n.as_mut_ptr(), 3, 0.0, 1.0) };
    assert_eq!(r, curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    for g in [g1, g2, g3] {
        // SAFETY: each generator destroyed once.
        unsafe { l.curandDestroyGenerator(g) }.result().unwrap();
    }
}
