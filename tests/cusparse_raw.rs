//! The raw cuSPARSE layer without a GPU, on both backends' real libraries: cuSPARSE from PyPI's
//! `nvidia-cusparse` wheel; hipSPARSE 5.3.3 with rocSPARSE (Debian bookworm, the ROCm 5.2.3
//! set, unpacked privately by `ci/cusparse-fetch.sh`) over the system's ROCm 5.2.3. Each
//! library loads and its entry points resolve, the cuSPARSE<->hipSPARSE tables agree with the
//! pinned headers (read here as text, independently of codegen), host-side descriptor calls
//! translate their values both ways, and calls that need a GPU, null handles and bad values
//! answer in cuSPARSE's numbering, never a crash.
//!
//! Under `CI=true` a missing library fails the tests instead of skipping them.
//!
//! The tests compare cuSPARSE with hipSPARSE through both backends, so they need both compiled
//! in (the default features); with one backend the file is empty.

#![cfg(all(feature = "backend-cuda", feature = "backend-hip"))]

use anycuda::cusparse::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Once;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Points `ANYCUDA_CUSPARSE_LIBRARY` at the wheel's cuSPARSE and `ANYCUDA_HIPSPARSE_LIBRARY`
/// at bookworm's hipSPARSE unless the caller chose them.
fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let wheel = root().join(".cache/inputs/cuda/nvidia/cu13/lib/libcusparse.so.12");
        anycuda_test::env::default_library("ANYCUDA_CUSPARSE_LIBRARY", &wheel);
        let deb = root().join(".cache/inputs/hipsparse/usr/lib/x86_64-linux-gnu/libhipsparse.so.0");
        anycuda_test::env::default_library("ANYCUDA_HIPSPARSE_LIBRARY", &deb);
    });
}

fn header(path: PathBuf) -> String {
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run bash ci/fetch-inputs.sh)", path.display()))
}

fn cusparse_h() -> String {
    header(root().join(".cache/inputs/cuda/nvidia/cu13/include/cusparse.h"))
}

fn hipsparse_h() -> String {
    header(root().join(".cache/inputs/hipsparse/usr/include/hipsparse/hipsparse.h"))
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

/// `typedef enum [tag] { A = 1, B, ... } name;` of a header: name -> (enumerator -> value).
/// Implicit values count up; an enumerator set to another's name takes its value. The first
/// definition of a name wins: hipsparse.h defines its enums for AMD first, then again for
/// HIP's NVIDIA platform (`#if(!defined(CUDART_VERSION))` ... `#else`).
fn header_enums(text: &str) -> BTreeMap<String, BTreeMap<String, i64>> {
    let text = strip_comments(text);
    let mut out = BTreeMap::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("enum") {
        let before_ok = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric();
        rest = &rest[i + 4..];
        if !before_ok || !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let after = rest.trim_start();
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
        let mut next = Some(0i64);
        for part in body[1..close].split(',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (k, v) = match part.split_once('=') {
                Some((k, v)) => {
                    let v = v.trim();
                    let v = if let Some(h) = v.strip_prefix("0x") {
                        i64::from_str_radix(h, 16).ok()
                    } else {
                        v.parse::<i64>().ok().or_else(|| m.get(v).copied())
                    };
                    (k.trim(), v)
                }
                None => (part, next),
            };
            if let Some(v) = v {
                m.insert(k.to_string(), v);
            }
            next = v.map(|v| v + 1);
        }
        let tail = &body[close + 1..];
        let name: String = tail
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !tag.is_empty() {
            out.entry(tag.clone()).or_insert_with(|| m.clone());
        }
        if !name.is_empty() {
            out.entry(name).or_insert(m);
        }
        rest = tail;
    }
    out
}

/// The function names a header declares (`prefixX(`).
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
            && name[prefix.len()..].starts_with(|c: char| c.is_ascii_uppercase())
        {
            out.insert(name);
        }
    }
    out
}

fn hip_name(c: &str) -> String {
    format!("hipsparse{}", c.strip_prefix("cusparse").unwrap())
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

fn cuda_library() -> Option<Library> {
    setup();
    match anycuda::native::cuda::cusparse::library() {
        Ok(l) => Some(Library::Cuda(&l.table)),
        Err(e) if ci() => {
            panic!("CI=true and cuSPARSE does not load (run bash ci/fetch-inputs.sh): {e}")
        }
        Err(e) => {
            eprintln!("SKIP: cuSPARSE does not load: {e}");
            None
        }
    }
}

fn hip_library() -> Option<&'static anycuda::native::hip::cusparse::SparseLibrary> {
    // Under ci/rocm.sh 5.7/6.4 no hipSPARSE is pinned (bookworm's 5.3.3 goes with ROCm 5.2.3).
    let release = std::env::var("ANYCUDA_ROCM_VERSION").unwrap_or_else(|_| "5.2".into());
    if release != "5.2" && std::env::var_os("ANYCUDA_HIPSPARSE_LIBRARY").is_none() {
        eprintln!("SKIP: no hipSPARSE pinned for ROCm {release}");
        return None;
    }
    setup();
    match anycuda::native::hip::cusparse::library(anycuda::native::hip::Platform::Amd) {
        Ok(l) => Some(l),
        Err(e) if ci() => panic!(
            "CI=true and hipSPARSE does not load (run bash ci/fetch-inputs.sh; ROCm 5.2.3's libamdhip64.so.5 installed): {e}"
        ),
        Err(e) => {
            eprintln!("SKIP: hipSPARSE does not load: {e}");
            None
        }
    }
}

#[test]
fn the_catalogue_is_cusparse_h() {
    let declared = header_functions(&cusparse_h(), "cusparse");
    let ours: BTreeSet<String> = CUSPARSE_FUNCTIONS
        .iter()
        .map(|f| f.name.to_string())
        .collect();
    assert_eq!(ours, declared);
    assert!(ours.contains("cusparseSpMV") && ours.contains("cusparseCreateCsr"));
}

#[test]
fn hipsparse_declared_is_the_same_abi_twins_of_hipsparse_h() {
    let hip = header_functions(&hipsparse_h(), "hipsparse");
    assert!(hip.contains("hipsparseSpMV"), "the header reader works");
    let declared: BTreeMap<&str, &str> = HIPSPARSE_DECLARED.iter().copied().collect();
    for (c, h) in &declared {
        assert_eq!(*h, hip_name(c));
        assert!(hip.contains(*h), "{h} is declared by hipsparse.h");
    }
    for f in [
        "cusparseCreate",
        "cusparseDestroy",
        "cusparseSetStream",
        "cusparseCreateCsr",
        "cusparseCreateDnVec",
        "cusparseCreateDnMat",
        "cusparseSpMV_bufferSize",
        "cusparseSpMV",
        "cusparseSpMM_bufferSize",
        "cusparseSpMM",
        "cusparseCsrGet",
    ] {
        assert!(declared.contains_key(f), "{f} is served");
    }
    // Twins left out: another ABI (checked by the codegen), or anycuda's choice
    // (cusparseGetVersion); each named here so that a new gap is looked at.
    let left: BTreeSet<&str> = CUSPARSE_FUNCTIONS
        .iter()
        .map(|f| f.name)
        .filter(|c| hip.contains(&hip_name(c)) && !declared.contains_key(c))
        .collect();
    for f in &left {
        let ok = *f == "cusparseGetVersion"
            || f.contains("ByPercentage")
            || ["cusparseSpSV_solve", "cusparseSpSM_solve"].contains(f);
        assert!(
            ok,
            "{f}: a twin left out for a reason this test does not know: {left:?}"
        );
    }
    assert!(left.contains("cusparseSpSV_solve") && left.contains("cusparseGetVersion"));
}

#[test]
fn the_hipsparse_tables_agree_with_the_headers() {
    use anycuda::native::hip::cusparse as t;
    let cu = header_enums(&cusparse_h());
    let hi = header_enums(&hipsparse_h());
    let check = |what: &str, pairs: &[(&str, i64, &str, i64)], c: &str, h: &str| {
        assert!(!pairs.is_empty(), "{what}");
        for (cn, cv, hn, hv) in pairs {
            assert_eq!(cu[c].get(*cn), Some(cv), "{what}: {cn}");
            assert_eq!(hi[h].get(*hn), Some(hv), "{what}: {hn}");
            let renamed = [
                ("CUSPARSE_ORDER_COL", "HIPSPARSE_ORDER_COLUMN"),
                (
                    "CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC",
                    "HIPSPARSE_SPGEMM_CSR_ALG_DETERMINISTIC",
                ),
                (
                    "CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC",
                    "HIPSPARSE_SPGEMM_CSR_ALG_NONDETERMINISTIC",
                ),
            ];
            assert!(
                hn.strip_prefix("HIPSPARSE") == cn.strip_prefix("CUSPARSE")
                    || renamed.contains(&(cn, hn)),
                "{what}: {cn} <-> {hn}"
            );
        }
    };
    check(
        "status",
        t::STATUS_PAIRS,
        "cusparseStatus_t",
        "hipsparseStatus_t",
    );
    check(
        "operation",
        t::OPERATION_PAIRS,
        "cusparseOperation_t",
        "hipsparseOperation_t",
    );
    check(
        "index type",
        t::INDEXTYPE_PAIRS,
        "cusparseIndexType_t",
        "hipsparseIndexType_t",
    );
    check(
        "index base",
        t::INDEXBASE_PAIRS,
        "cusparseIndexBase_t",
        "hipsparseIndexBase_t",
    );
    check(
        "SpMV algorithm",
        t::SPMVALG_PAIRS,
        "cusparseSpMVAlg_t",
        "hipsparseSpMVAlg_t",
    );
    check(
        "format",
        t::FORMAT_PAIRS,
        "cusparseFormat_t",
        "hipsparseFormat_t",
    );
    check(
        "order",
        t::ORDER_PAIRS,
        "cusparseOrder_t",
        "hipsparseOrder_t",
    );
    check(
        "SpMM algorithm",
        t::SPMMALG_PAIRS,
        "cusparseSpMMAlg_t",
        "hipsparseSpMMAlg_t",
    );
    check(
        "SpGEMM algorithm",
        t::SPGEMMALG_PAIRS,
        "cusparseSpGEMMAlg_t",
        "hipsparseSpGEMMAlg_t",
    );
    // Algorithms and dense orders are numbered differently: the tables are what make them
    // agree (CUSPARSE_SPMV_ALG_DEFAULT 0 <-> 4, CUSPARSE_ORDER_ROW 2 <-> 0).
    assert!(t::SPMVALG_PAIRS.contains(&(
        "CUSPARSE_SPMV_ALG_DEFAULT",
        0,
        "HIPSPARSE_SPMV_ALG_DEFAULT",
        4
    )));
    assert!(t::ORDER_PAIRS.contains(&("CUSPARSE_ORDER_ROW", 2, "HIPSPARSE_ORDER_ROW", 0)));
    assert!(t::ORDER_PAIRS.contains(&("CUSPARSE_ORDER_COL", 1, "HIPSPARSE_ORDER_COLUMN", 1)));
    // Values hipSPARSE 5.3.3 has no counterpart of are refused, never passed on.
    assert!(t::SPMVALG_CUSPARSE_ONLY
        .iter()
        .any(|v| v.0 == "CUSPARSE_SPMV_SELL_ALG1"));
    assert!(t::FORMAT_CUSPARSE_ONLY
        .iter()
        .any(|v| v.0 == "CUSPARSE_FORMAT_BSR"));
    // cudaDataType <-> hipDataType (HIP 5.2.3's library_types.h, the ROCm hipSPARSE 5.3.3 is
    // built with): CUDA's values where both declare a type.
    let lt = header_enums(&header(
        root().join(".cache/inputs/cuda/nvidia/cu13/include/library_types.h"),
    ));
    let hlt = header_enums(&header(PathBuf::from("/usr/include/hip/library_types.h")));
    for (cn, cv, hn, hv) in t::DATATYPE_PAIRS {
        assert_eq!(lt["cudaDataType_t"].get(*cn), Some(cv), "{cn}");
        assert_eq!(hlt["hipDataType"].get(*hn), Some(hv), "{hn}");
        assert_eq!(cv, hv, "{cn}");
    }
    assert!(t::DATATYPE_PAIRS.iter().any(|p| p.0 == "CUDA_R_32F"));
}

#[test]
fn cusparse_loads_and_answers_without_a_gpu() {
    let Some(l) = cuda_library() else { return };
    let info = l.info();
    assert_eq!(info.name, "cuSPARSE");
    assert_eq!(info.version / 1000, 12, "{}", info.version_string);
    // Every declared function resolves but those NVIDIA's library no longer exports (the
    // C ABI leaves the same ones out: codegen's NOT_EXPORTED, capi/tests/libraries.rs).
    let missing: Vec<&str> = CUSPARSE_FUNCTIONS
        .iter()
        .map(|f| f.name)
        .filter(|n| !exports(&info.path, n))
        .collect();
    assert_eq!(
        info.entry_points.0 + missing.len(),
        info.entry_points.1,
        "{info:?}"
    );
    assert_eq!(missing.len(), 37, "{missing:?}");
    for n in &missing {
        assert!(
            n.ends_with("_bufferSizeExt") || *n == "cusparseXgebsr2csr",
            "{n}"
        );
    }
    answers_without_a_gpu(&l, true);
}

#[test]
fn hipsparse_loads_and_translates_without_a_gpu() {
    let Some(raw) = hip_library() else { return };
    assert!(!raw.has_device(), "this test runs without a GPU");
    let l = Library::Hip(raw);
    let info = l.info();
    assert_eq!(info.name, "hipSPARSE");
    assert_eq!(
        info.entry_points.0,
        HIPSPARSE_DECLARED.len(),
        "every twin resolves"
    );
    answers_without_a_gpu(&l, false);
    // Functions hipSPARSE lacks, or has with another ABI: NOT_SUPPORTED with a reason.
    let mut v = 0;
    // SAFETY: refused before any library sees the handle.
    let r = unsafe { l.cusparseGetVersion(core::ptr::NonNull::dangling().as_ptr(), &mut v) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED);
    let why = not_supported_reason(r).unwrap();
    assert!(why.contains("cusparseGetVersion"), "{why}");
    let mut d: cusparseConstDnVecDescr_t = core::ptr::null_mut();
    // SAFETY: refused: hipSPARSE 5.3.3 has no const descriptors.
    let r = unsafe {
        l.cusparseCreateConstDnVec(&mut d, 4, 8usize as *const _, cudaDataType::CUDA_R_32F)
    };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED);
    assert!(not_supported_reason(r)
        .unwrap()
        .contains("hipsparseCreateConstDnVec"));
    // A data type cuSPARSE knows and hipSPARSE 5.3.3 does not: refused with a reason.
    let mut dv: cusparseDnVecDescr_t = core::ptr::null_mut();
    // SAFETY: refused before hipSPARSE sees it.
    let r =
        unsafe { l.cusparseCreateDnVec(&mut dv, 4, 8usize as *mut _, cudaDataType::CUDA_R_16BF) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED);
    assert!(not_supported_reason(r)
        .unwrap()
        .contains("no hipSPARSE counterpart"));
    // The status names are cuSPARSE's.
    // SAFETY: a static string.
    let n = unsafe {
        std::ffi::CStr::from_ptr(
            l.cusparseGetErrorName(cusparseStatus_t::CUSPARSE_STATUS_INVALID_VALUE),
        )
    };
    assert_eq!(n.to_str().unwrap(), "CUSPARSE_STATUS_INVALID_VALUE");
}

/// What both libraries answer alike without a GPU: host-side descriptors created and read
/// back in cuSPARSE's numbering, `cusparseCreate` refused, null handles and unknown values
/// refused, never a crash. `nvidia`: the library is NVIDIA's.
fn answers_without_a_gpu(l: &Library, nvidia: bool) {
    let mut h: cusparseHandle_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let r = unsafe { l.cusparseCreate(&mut h) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_NOT_INITIALIZED);
    // Null handles: cuSPARSE's INVALID_VALUE (measured on the pinned libcusparse).
    // SAFETY: null handles are refused.
    let r = unsafe { l.cusparseSetStream(core::ptr::null_mut(), core::ptr::null_mut()) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_INVALID_VALUE);
    let mut pm = cusparsePointerMode_t(7);
    // SAFETY: as above.
    let r = unsafe { l.cusparseGetPointerMode(core::ptr::null_mut(), &mut pm) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_INVALID_VALUE);
    assert_eq!(pm, cusparsePointerMode_t(7));
    // An unknown data type: INVALID_VALUE.
    let mut dv: cusparseDnVecDescr_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; the value pointer is not read without a GPU call.
    let r = unsafe { l.cusparseCreateDnVec(&mut dv, 4, 8usize as *mut _, cudaDataType(9999)) };
    assert_eq!(
        r,
        cusparseStatus_t::CUSPARSE_STATUS_INVALID_VALUE,
        "nvidia: {nvidia}"
    );
    // A CSR descriptor is host state: created, read back in cuSPARSE's numbering, destroyed.
    let mut m: cusparseSpMatDescr_t = core::ptr::null_mut();
    let (rows, cols, vals) = (16usize as *mut _, 32usize as *mut _, 48usize as *mut _);
    // SAFETY: a valid out-pointer; the arrays are not read by descriptor calls.
    let r = unsafe {
        l.cusparseCreateCsr(
            &mut m,
            3,
            4,
            5,
            rows,
            cols,
            vals,
            cusparseIndexType_t::CUSPARSE_INDEX_64I,
            cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ONE,
            cudaDataType::CUDA_R_64F,
        )
    };
    assert_eq!(
        r,
        cusparseStatus_t::CUSPARSE_STATUS_SUCCESS,
        "nvidia: {nvidia}"
    );
    let (mut nr, mut nc, mut nz) = (0i64, 0i64, 0i64);
    let (mut p1, mut p2, mut p3) = (
        core::ptr::null_mut(),
        core::ptr::null_mut(),
        core::ptr::null_mut(),
    );
    let (mut ti, mut tj, mut b, mut dt) = (
        cusparseIndexType_t(0),
        cusparseIndexType_t(0),
        cusparseIndexBase_t(0),
        cudaDataType(77),
    );
    // SAFETY: every out-pointer valid; m is the descriptor created above.
    let r = unsafe {
        l.cusparseCsrGet(
            m, &mut nr, &mut nc, &mut nz, &mut p1, &mut p2, &mut p3, &mut ti, &mut tj, &mut b,
            &mut dt,
        )
    };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
    assert_eq!((nr, nc, nz), (3, 4, 5));
    assert_eq!((p1, p2, p3), (rows, cols, vals));
    assert_eq!(ti, cusparseIndexType_t::CUSPARSE_INDEX_64I);
    assert_eq!(tj, cusparseIndexType_t::CUSPARSE_INDEX_32I);
    assert_eq!(b, cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ONE);
    assert_eq!(dt, cudaDataType::CUDA_R_64F);
    let mut f = cusparseFormat_t(0);
    // SAFETY: as above.
    let r = unsafe { l.cusparseSpMatGetFormat(m, &mut f) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
    assert_eq!(f, cusparseFormat_t::CUSPARSE_FORMAT_CSR);
    // SAFETY: the descriptor created above, destroyed once.
    let r = unsafe { l.cusparseDestroySpMat(m) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
    // A dense vector likewise.
    // SAFETY: as above.
    let r =
        unsafe { l.cusparseCreateDnVec(&mut dv, 7, 64usize as *mut _, cudaDataType::CUDA_R_32F) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
    let (mut n, mut p, mut t) = (0i64, core::ptr::null_mut(), cudaDataType(77));
    // SAFETY: as above.
    let r = unsafe { l.cusparseDnVecGet(dv, &mut n, &mut p, &mut t) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
    assert_eq!((n, p as usize, t), (7, 64, cudaDataType::CUDA_R_32F));
    // SAFETY: destroyed once.
    let r = unsafe { l.cusparseDestroyDnVec(dv) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
    // The legacy matrix descriptor: host state, its getters return enums.
    let mut md: cusparseMatDescr_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let r = unsafe { l.cusparseCreateMatDescr(&mut md) };
    assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
    // SAFETY: md created above.
    unsafe {
        let r = l.cusparseSetMatIndexBase(md, cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ONE);
        assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
        assert_eq!(
            l.cusparseGetMatIndexBase(md),
            cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ONE
        );
        let r = l.cusparseSetMatType(md, cusparseMatrixType_t::CUSPARSE_MATRIX_TYPE_GENERAL);
        assert_eq!(r, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
        assert_eq!(
            l.cusparseGetMatType(md),
            cusparseMatrixType_t::CUSPARSE_MATRIX_TYPE_GENERAL
        );
        assert_eq!(
            l.cusparseDestroyMatDescr(md),
            cusparseStatus_t::CUSPARSE_STATUS_SUCCESS
        );
    }
}
