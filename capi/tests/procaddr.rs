//! `cuGetProcAddress` answers for every exported driver name with that very export.

mod common;
use common::*;
use core::ffi::{c_char, c_int, c_void};

type GetProcAddress =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> c_int;

/// `cuMemAlloc_v2_ptds` → (`cuMemAlloc`, per-thread): the base name callers ask for.
fn base(export: &str) -> (&str, bool) {
    let (rest, pt) = match export
        .strip_suffix("_ptds")
        .or_else(|| export.strip_suffix("_ptsz"))
    {
        Some(r) => (r, true),
        None => (export, false),
    };
    let rest = match rest.rsplit_once("_v") {
        Some((b, v)) if v.parse::<u32>().is_ok() => b,
        _ => rest,
    };
    (rest, pt)
}

#[test]
fn cu_get_proc_address_answers_every_exported_driver_name_with_its_export() {
    let path = library();
    // SAFETY: loading anycuda's C ABI runs only its `.init_array` entry (a flag, logging).
    let lib = unsafe { libloading::Library::new(&path) }.expect("loading the C-ABI library");
    // SAFETY: the export has the v2 signature.
    let gpa: GetProcAddress =
        unsafe { *lib.get::<GetProcAddress>(b"cuGetProcAddress_v2\0").unwrap() };
    // NVIDIA's libcuda exports these without a `PFN_` typedef, so the table (from the typedefs)
    // has no row for them: they are exported by passing them on (capi/src/passthrough.rs) only.
    const NO_TYPEDEF: &[&str] = &["cuEGLApiInit", "cuMemGetAttribute", "cuMemGetAttribute_v2"];
    let names: Vec<String> = defined_symbols(&path)
        .into_iter()
        // Driver names only: cuBLAS, cuRAND and cuFFT (`cublas*`, `curand*`, `cufft*`) are libraries
        // of their own.
        .filter(|s| {
            s.starts_with("cu")
                && !s.starts_with("cuda")
                && !s.starts_with("cublas")
                && !s.starts_with("curand")
                && !s.starts_with("cufft")
        })
        // cuSPARSE (`cusparse*`) likewise.
        .filter(|s| !s.starts_with("cusparse"))
        .filter(|s| !NO_TYPEDEF.contains(&s.as_str()))
        .collect();
    assert!(names.len() > 500, "{} driver exports", names.len());
    let mut wrong = Vec::new();
    let mut answered = 0;
    for name in &names {
        // SAFETY: the symbol exists (nm listed it); only its address is read.
        let want = unsafe {
            *lib.get::<*mut c_void>(format!("{name}\0").as_bytes())
                .unwrap()
        };
        let (b, pt) = base(name);
        let flags = if pt { 2 } else { 1 }; // per-thread / legacy stream
        let cname = std::ffi::CString::new(b).unwrap();
        let ask = |version: c_int| {
            let mut p = core::ptr::null_mut();
            let mut status = -1;
            // SAFETY: valid C string and out-pointers.
            let r = unsafe { gpa(cname.as_ptr(), &mut p, version, flags, &mut status) };
            (r, status, p)
        };
        // At CUDA 13.5 every exported base name resolves (to its newest ABI).
        let (r, status, newest) = ask(13050);
        if r != 0 || status != 0 || newest.is_null() {
            wrong.push(format!(
                "{name}: {b} at 13050 (flags {flags}): r {r}, status {status}, {newest:?}"
            ));
            continue;
        }
        // And this export is the answer at some CUDA version (the one its ABI began): the
        // newest for most, an older one for an export kept beside a newer ABI
        // (`cuLaunchHostFunc` beside `cuLaunchHostFunc_v2`, the v1 `cuGetProcAddress`).
        let versions =
            (2..=13).flat_map(|major| (0..10).map(move |minor| major * 1000 + minor * 10));
        let found = versions.clone().find(|v| ask(*v).2 == want);
        match found {
            Some(_) => answered += 1,
            None => wrong.push(format!("{name}: no version of {b} (flags {flags}) answers with it; at 13050: {newest:?} vs {want:?}")),
        }
    }
    assert_eq!(answered + wrong.len(), names.len());
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        names.len(),
        wrong.join("\n")
    );
}
