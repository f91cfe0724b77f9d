//! The AMD targets the loaded hipRTC really accepts, asked of its code object manager (comgr).
//!
//! hipRTC aborts the whole process on a target its LLVM does not know (5.2.3, 5.7.1 and 6.4.3
//! alike, probed), so targets are validated before hipRTC sees them. Which targets an LLVM knows
//! depends on the build, not on the ROCm version alone: Debian's 6.4.3 runs comgr 7 on LLVM 21,
//! which dropped gfx940/gfx941 and added gfx950, while AMD's 6.4 runs LLVM 19. comgr's own ISA
//! table (`amd_comgr_get_isa_count` / `amd_comgr_get_isa_name`) matched every probe exactly
//! (5.2.3, 5.7.1, 6.4.3: a listed processor compiles, an unlisted one aborts), so the list comes
//! from there when comgr is found; the static tables in `rtc_options` remain the fallback.

use std::sync::OnceLock;

/// comgr's sonames, newest first (comgr 3 ships with ROCm 6.4+/7, comgr 2 with ROCm 5.x-6.3).
const COMGR_SONAMES: &[&str] = &["libamd_comgr.so.3", "libamd_comgr.so.2"];

static PROBED: OnceLock<Option<(i32, &'static [&'static str])>> = OnceLock::new();

/// Records the processors comgr lists for hipRTC of `hip_version` loaded from `hiprtc_path`.
/// Called once when the backend loads; later calls change nothing.
pub(crate) fn probe(hip_version: i32, hiprtc_path: &str) {
    PROBED.get_or_init(|| {
        let list = comgr_processors(hiprtc_path)?;
        log::debug!("hiprtc: comgr lists {} processors: {list:?}", list.len());
        Some((hip_version, Vec::leak(list)))
    });
}

/// The probed list, when it was probed for `hip_version`.
pub(crate) fn probed(hip_version: i32) -> Option<&'static [&'static str]> {
    match PROBED.get() {
        Some(Some((v, list))) if *v == hip_version => Some(list),
        _ => None,
    }
}

/// Opens comgr next to hipRTC first (the copy hipRTC itself uses), then by soname.
fn comgr_processors(hiprtc_path: &str) -> Option<Vec<&'static str>> {
    let dir = std::path::Path::new(hiprtc_path).parent();
    let candidates = COMGR_SONAMES
        .iter()
        .filter_map(|s| dir.map(|d| d.join(s)))
        .filter(|p| p.exists())
        .map(|p| p.into_os_string())
        .chain(COMGR_SONAMES.iter().map(|s| s.into()));
    for c in candidates {
        let path = std::path::Path::new(&c);
        if path.components().count() > 1 && anycuda_api::loader::check_library_file(path).is_err() {
            continue;
        }
        // SAFETY: comgr's initialisers only set up its own state; hipRTC loads the same file.
        let Ok(lib) = (unsafe { libloading::Library::new(&c) }) else {
            continue;
        };
        if let Some(v) = isa_list(&lib) {
            // comgr stays loaded: hipRTC uses it anyway, and the names point into it.
            std::mem::forget(lib);
            return Some(v);
        }
    }
    None
}

type CountFn = unsafe extern "C" fn(*mut usize) -> i32;
type NameFn = unsafe extern "C" fn(usize, *mut *const core::ffi::c_char) -> i32;

/// `amdgcn-amd-amdhsa--gfx90a` → `gfx90a`, for every ISA comgr lists, keeping HIP's processors
/// (gfx8 and later, no generic targets; HIP never targeted gfx6/gfx7, and the static tables
/// leave them out too).
fn isa_list(lib: &libloading::Library) -> Option<Vec<&'static str>> {
    // SAFETY: comgr's documented signatures, unchanged since comgr 1.
    let (count, name) = unsafe {
        (
            *lib.get::<CountFn>(b"amd_comgr_get_isa_count\0").ok()?,
            *lib.get::<NameFn>(b"amd_comgr_get_isa_name\0").ok()?,
        )
    };
    let mut n = 0usize;
    // SAFETY: valid out-pointer.
    if unsafe { count(&mut n) } != 0 || n == 0 || n > 4096 {
        return None;
    }
    let mut out: Vec<&'static str> = Vec::new();
    for i in 0..n {
        let mut p = core::ptr::null();
        // SAFETY: i < count; comgr returns a static, NUL-terminated name.
        if unsafe { name(i, &mut p) } != 0 || p.is_null() {
            return None;
        }
        // SAFETY: non-null C string owned by comgr, which is never unloaded (see above).
        let full = unsafe { core::ffi::CStr::from_ptr(p) }.to_str().ok()?;
        let proc_ = full.rsplit("--").next()?.split(':').next()?;
        // Generic targets (`gfx9-generic`) are listed, but Debian's device libraries lack them.
        let keep = proc_
            .strip_prefix("gfx")
            .is_some_and(|d| !d.starts_with('6') && !d.starts_with('7') && !d.contains('-'));
        if keep && !out.contains(&proc_) {
            out.push(proc_);
        }
    }
    (!out.is_empty()).then_some(out)
}
