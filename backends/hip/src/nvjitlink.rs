//! nvJitLink on the HIP backend: a linker of PTX for the AMD GPU.
//!
//! NVIDIA's nvJitLink links PTX, cubins, fat binaries and LTO-IR into a cubin. AMD GPUs run none
//! of those formats, but PTX translates ([`crate::ptx_code`]), so this linker takes PTX inputs
//! and completes them into one code object for the current device: the PTX modules are
//! translated together (their `.extern` functions and variables resolved across modules), the
//! HIP C++ compiled by hipRTC, and the result, an AMD code object (on HIP's NVIDIA platform,
//! hipRTC's marked output there), is what `nvJitLinkGetLinkedCubin` returns; the module and
//! library loads of this backend take it as it is. That is how numba-cuda's kernels (NVVM's
//! PTX, linked through cuda.core's `Linker`) reach an AMD GPU.
//!
//! What is refused, with `NVJITLINK_ERROR_NOT_SUPPORTED` (anycuda's code) and the reason in the
//! error log: NVIDIA cubins, objects and libraries (`.a`, e.g. cudadevrt), LTO-IR (NVVM bitcode
//! cannot be translated: link PTX, i.e. build without `-lto`), fat binaries (load them with
//! `cuModuleLoadData`, which takes their PTX), and the linked-PTX and linked-LTO-IR outputs (no
//! PTX is produced for AMD). A PTX module the translator refuses fails `nvJitLinkComplete` with
//! `NVJITLINK_ERROR_PTX_COMPILE`, the instruction and its line in the error log, as NVIDIA's
//! linker reports PTX its assembler rejects.
//!
//! Options are nvJitLink's: `-arch=sm_XX`/`compute_XX` is required (as NVIDIA requires it;
//! the code is for the current AMD device whatever it names); optimisation, debug, precision
//! and resource options are accepted and have no effect (the PTX already fixes the precision
//! semantics the translation keeps); an unknown option is `NVJITLINK_ERROR_UNRECOGNIZED_OPTION`.
//!
//! Handles are anycuda's own tokens (a tag and a counter), never dereferenced: a bogus, stale or
//! destroyed handle is `NVJITLINK_ERROR_INVALID_INPUT` without touching memory.

use crate::HipBackend;
use anycuda_api::nvjitlink::*;
use core::ffi::{c_char, c_uint, c_void, CStr};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The nvJitLink API version this linker implements (the pinned `nvJitLink.h`'s major).
pub const VERSION: (c_uint, c_uint) = (13, 0);

/// Top bits of a handle: non-canonical on x86-64, so never an address.
const HANDLE_TAG: usize = 0x4a4c << 48;

/// One link in progress (or completed).
#[derive(Default)]
struct Link {
    /// The PTX inputs, in the order added.
    ptx: Vec<String>,
    /// The code object once completed.
    output: Option<Vec<u8>>,
    /// The error log (NUL added when copied out).
    error: String,
    /// The info log.
    info: String,
}

/// Every live link, by handle.
struct Links {
    next: usize,
    map: BTreeMap<usize, Link>,
}

static LINKS: Mutex<Links> = Mutex::new(Links {
    next: 1,
    map: BTreeMap::new(),
});

fn links() -> MutexGuard<'static, Links> {
    // Each update is one insert, remove or field write: a poisoned lock is used as it is.
    LINKS.lock().unwrap_or_else(PoisonError::into_inner)
}

const SUCCESS: nvJitLinkResult = nvJitLinkResult::NVJITLINK_SUCCESS;
const INVALID: nvJitLinkResult = nvJitLinkResult::NVJITLINK_ERROR_INVALID_INPUT;
const NOT_SUPPORTED: nvJitLinkResult = nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED;

/// Runs `f` on the link `handle` names; `INVALID_INPUT` for any other value.
fn with_link(
    handle: nvJitLinkHandle,
    f: impl FnOnce(&mut Link) -> nvJitLinkResult,
) -> nvJitLinkResult {
    let mut l = links();
    match l.map.get_mut(&(handle as usize)) {
        Some(link) => f(link),
        None => INVALID,
    }
}

/// Whether an option is one nvJitLink takes: `Some(true)` for `-arch=`, `Some(false)` for the
/// rest accepted, `None` for an unknown one. Pure.
pub fn option_kind(opt: &str) -> Option<bool> {
    const FLAGS: [&str; 11] = [
        "-lto",
        "-ptx",
        "-g",
        "-lineinfo",
        "-optimize-unused-variables",
        "-no-cache",
        "-time",
        "-verbose",
        "-Werror",
        "-dlto",
        "-fast-compile",
    ];
    const VALUED: [&str; 15] = [
        "-maxrregcount=",
        "-O",
        "-ftz=",
        "-prec-div=",
        "-prec-sqrt=",
        "-fma=",
        "-kernels-used=",
        "-variables-used=",
        "-Xptxas=",
        "-Xptxas",
        "-split-compile=",
        "-split-compile-extended=",
        "-jump-table-density=",
        "-Xnvvm=",
        "-device-stack-protector=",
    ];
    if let Some(a) = opt.strip_prefix("-arch=") {
        let num = a
            .strip_prefix("sm_")
            .or_else(|| a.strip_prefix("compute_"))
            .or_else(|| a.strip_prefix("lto_"));
        return match num {
            Some(n) if n.bytes().next().is_some_and(|c| c.is_ascii_digit()) => Some(true),
            _ => None,
        };
    }
    if FLAGS.contains(&opt)
        || VALUED
            .iter()
            .any(|p| opt.starts_with(p) && opt.len() > p.len())
    {
        Some(false)
    } else {
        None
    }
}

/// The reason an input of `kind` cannot be linked for an AMD GPU.
fn refusal(kind: nvJitLinkInputType) -> &'static str {
    match kind {
        nvJitLinkInputType::NVJITLINK_INPUT_LTOIR => {
            "LTO-IR (NVVM bitcode) cannot be linked for an AMD GPU: link PTX instead (compile \
             without -dlto / LTO)"
        }
        nvJitLinkInputType::NVJITLINK_INPUT_FATBIN => {
            "a fat binary cannot be linked for an AMD GPU here: load it with cuModuleLoadData, \
             which translates its PTX"
        }
        nvJitLinkInputType::NVJITLINK_INPUT_LIBRARY => {
            "a library of NVIDIA objects (e.g. cudadevrt) cannot be linked for an AMD GPU"
        }
        _ => "NVIDIA machine code (cubins, objects) cannot be linked for an AMD GPU: link PTX",
    }
}

/// Adds one input's bytes to `link` (text up to its NUL for PTX); `name` for the log.
fn add(link: &mut Link, kind: nvJitLinkInputType, bytes: &[u8], name: &str) -> nvJitLinkResult {
    use nvJitLinkInputType as T;
    if link.output.is_some() {
        link.error
            .push_str("nvJitLink: inputs cannot be added after nvJitLinkComplete\n");
        return INVALID;
    }
    let text = bytes.split(|&c| c == 0).next().unwrap_or_default();
    let is_ptx = match kind {
        T::NVJITLINK_INPUT_PTX => true,
        T::NVJITLINK_INPUT_ANY | T::NVJITLINK_INPUT_NONE => {
            crate::image_kind(&bytes[..bytes.len().min(20)]) == crate::ImageKind::Text
        }
        T::NVJITLINK_INPUT_CUBIN
        | T::NVJITLINK_INPUT_LTOIR
        | T::NVJITLINK_INPUT_FATBIN
        | T::NVJITLINK_INPUT_OBJECT
        | T::NVJITLINK_INPUT_LIBRARY
        | T::NVJITLINK_INPUT_INDEX => false,
        _ => {
            link.error.push_str(&format!(
                "nvJitLink: {name}: unknown input type {}\n",
                kind.0
            ));
            return INVALID;
        }
    };
    if !is_ptx {
        let why = refusal(kind);
        log::error!("anycuda (HIP): nvJitLink: {name}: {why}");
        link.error
            .push_str(&format!("anycuda (HIP): {name}: {why}\n"));
        return NOT_SUPPORTED;
    }
    match core::str::from_utf8(text) {
        Ok(t) if !t.trim().is_empty() => {
            link.ptx.push(t.to_owned());
            SUCCESS
        }
        _ => {
            link.error.push_str(&format!(
                "nvJitLink: {name}: not PTX (empty or not ASCII)\n"
            ));
            INVALID
        }
    }
}

/// Writes `n` into `*size`.
///
/// # Safety
/// `size` is NULL (refused) or writable.
unsafe fn put_size(size: *mut usize, n: usize) -> nvJitLinkResult {
    if size.is_null() {
        return INVALID;
    }
    // SAFETY: non-NULL and writable (caller's contract).
    unsafe { *size = n };
    SUCCESS
}

/// Copies `bytes` (and a NUL when `nul`) to `out`.
///
/// # Safety
/// `out` is NULL (refused) or has room for the size the matching size query reported.
unsafe fn put_bytes(out: *mut c_void, bytes: &[u8], nul: bool) -> nvJitLinkResult {
    if out.is_null() {
        return INVALID;
    }
    // SAFETY: the caller sized `out` with the size query, which reports these bytes (+ NUL).
    unsafe {
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), out.cast::<u8>(), bytes.len());
        if nul {
            *out.cast::<u8>().add(bytes.len()) = 0;
        }
    }
    SUCCESS
}

#[allow(non_snake_case)] // nvJitLink's parameter names
impl NvJitLink for HipBackend {
    unsafe fn nvJitLinkCreate(
        &self,
        handle: *mut nvJitLinkHandle,
        numOptions: u32,
        options: *mut *const c_char,
    ) -> nvJitLinkResult {
        if handle.is_null() || (numOptions > 0 && options.is_null()) {
            return INVALID;
        }
        let mut arch = false;
        for i in 0..numOptions as usize {
            // SAFETY: `numOptions` entries (the caller's contract).
            let p = unsafe { *options.add(i) };
            if p.is_null() {
                return INVALID;
            }
            // SAFETY: NUL-terminated option strings (the caller's contract).
            let o = unsafe { CStr::from_ptr(p) }.to_string_lossy();
            match option_kind(o.trim()) {
                Some(is_arch) => arch |= is_arch,
                None => {
                    log::error!("anycuda (HIP): nvJitLinkCreate: unrecognized option {o:?}");
                    return nvJitLinkResult::NVJITLINK_ERROR_UNRECOGNIZED_OPTION;
                }
            }
        }
        if !arch {
            return nvJitLinkResult::NVJITLINK_ERROR_MISSING_ARCH;
        }
        let mut l = links();
        let h = HANDLE_TAG | l.next;
        l.next += 1;
        l.map.insert(h, Link::default());
        // SAFETY: non-NULL (checked), writable (the caller's contract).
        unsafe { *handle = h as nvJitLinkHandle };
        SUCCESS
    }

    unsafe fn nvJitLinkDestroy(&self, handle: *mut nvJitLinkHandle) -> nvJitLinkResult {
        if handle.is_null() {
            return INVALID;
        }
        // SAFETY: non-NULL, readable (the caller's contract).
        let h = unsafe { *handle } as usize;
        if links().map.remove(&h).is_none() {
            return INVALID;
        }
        // SAFETY: as above, writable.
        unsafe { *handle = core::ptr::null_mut() };
        SUCCESS
    }

    unsafe fn nvJitLinkAddData(
        &self,
        handle: nvJitLinkHandle,
        inputType: nvJitLinkInputType,
        data: *const c_void,
        size: usize,
        name: *const c_char,
    ) -> nvJitLinkResult {
        if data.is_null() || size == 0 {
            return with_link(handle, |_| nvJitLinkResult::NVJITLINK_ERROR_NULL_INPUT);
        }
        // SAFETY: `size` readable bytes at `data` (the caller's contract).
        let bytes = unsafe { core::slice::from_raw_parts(data.cast::<u8>(), size) };
        let name = if name.is_null() {
            "input".into()
        } else {
            // SAFETY: NUL-terminated (the caller's contract).
            unsafe { CStr::from_ptr(name) }.to_string_lossy()
        };
        with_link(handle, |l| add(l, inputType, bytes, &name))
    }

    unsafe fn nvJitLinkAddFile(
        &self,
        handle: nvJitLinkHandle,
        inputType: nvJitLinkInputType,
        fileName: *const c_char,
    ) -> nvJitLinkResult {
        if fileName.is_null() {
            return with_link(handle, |_| nvJitLinkResult::NVJITLINK_ERROR_NULL_INPUT);
        }
        // SAFETY: NUL-terminated (the caller's contract).
        let name = unsafe { CStr::from_ptr(fileName) }
            .to_string_lossy()
            .into_owned();
        with_link(handle, |l| match std::fs::read(&name) {
            Ok(bytes) if !bytes.is_empty() => {
                // `ANY` names the kind by the file's extension, as nvJitLink does.
                let kind = if inputType == nvJitLinkInputType::NVJITLINK_INPUT_ANY {
                    match name.rsplit('.').next() {
                        Some("ptx") => nvJitLinkInputType::NVJITLINK_INPUT_PTX,
                        Some("cubin") => nvJitLinkInputType::NVJITLINK_INPUT_CUBIN,
                        Some("fatbin") => nvJitLinkInputType::NVJITLINK_INPUT_FATBIN,
                        Some("ltoir") => nvJitLinkInputType::NVJITLINK_INPUT_LTOIR,
                        Some("o") => nvJitLinkInputType::NVJITLINK_INPUT_OBJECT,
                        Some("a") | Some("lib") => nvJitLinkInputType::NVJITLINK_INPUT_LIBRARY,
                        _ => inputType,
                    }
                } else {
                    inputType
                };
                add(l, kind, &bytes, &name)
            }
            Ok(_) => {
                l.error
                    .push_str(&format!("nvJitLink: {name}: empty file\n"));
                INVALID
            }
            Err(e) => {
                l.error.push_str(&format!("nvJitLink: {name}: {e}\n"));
                INVALID
            }
        })
    }

    unsafe fn nvJitLinkComplete(&self, handle: nvJitLinkHandle) -> nvJitLinkResult {
        // The inputs are taken out of the registry for the compile (seconds, cold), so other
        // links are not held up; a concurrent call on the same handle sees no inputs.
        let ptx = {
            let mut l = links();
            match l.map.get_mut(&(handle as usize)) {
                None => return INVALID,
                Some(link) if link.output.is_some() => return SUCCESS,
                Some(link) if link.ptx.is_empty() => {
                    link.error.push_str("nvJitLink: no inputs to link\n");
                    return INVALID;
                }
                Some(link) => core::mem::take(&mut link.ptx),
            }
        };
        let texts: Vec<&str> = ptx.iter().map(String::as_str).collect();
        let start = std::time::Instant::now();
        let result = crate::ptx_code::compile_ptx(self, &texts, None);
        with_link(handle, |link| match result {
            Ok((code, hit)) => {
                link.info.push_str(&format!(
                    "anycuda (HIP): {} PTX module(s) {} for the current device in {:.0?}\n",
                    ptx.len(),
                    if hit {
                        "taken from the code cache"
                    } else {
                        "translated and compiled with hipRTC"
                    },
                    start.elapsed()
                ));
                link.output = Some(code);
                link.ptx = ptx;
                SUCCESS
            }
            Err(e) => {
                log::error!("anycuda (HIP): nvJitLinkComplete: {e}");
                if let crate::ptx_code::PtxCodeError::Compile(c) = &e {
                    link.error.push_str(&c.log);
                }
                link.error.push_str(&format!("anycuda (HIP): {e}\n"));
                link.ptx = ptx;
                match e {
                    crate::ptx_code::PtxCodeError::NoDevice => INVALID,
                    _ => nvJitLinkResult::NVJITLINK_ERROR_PTX_COMPILE,
                }
            }
        })
    }

    unsafe fn nvJitLinkGetLinkedCubinSize(
        &self,
        handle: nvJitLinkHandle,
        size: *mut usize,
    ) -> nvJitLinkResult {
        with_link(handle, |l| match &l.output {
            // SAFETY: the caller's out-pointer.
            Some(code) => unsafe { put_size(size, code.len()) },
            None => INVALID,
        })
    }

    unsafe fn nvJitLinkGetLinkedCubin(
        &self,
        handle: nvJitLinkHandle,
        cubin: *mut c_void,
    ) -> nvJitLinkResult {
        with_link(handle, |l| match &l.output {
            // SAFETY: the caller sized `cubin` with nvJitLinkGetLinkedCubinSize.
            Some(code) => unsafe { put_bytes(cubin, code, false) },
            None => INVALID,
        })
    }

    unsafe fn nvJitLinkGetLinkedPtxSize(
        &self,
        handle: nvJitLinkHandle,
        _size: *mut usize,
    ) -> nvJitLinkResult {
        with_link(handle, no_linked_ptx)
    }

    unsafe fn nvJitLinkGetLinkedPtx(
        &self,
        handle: nvJitLinkHandle,
        _ptx: *mut c_char,
    ) -> nvJitLinkResult {
        with_link(handle, no_linked_ptx)
    }

    unsafe fn nvJitLinkGetLinkedLTOIRSize(
        &self,
        handle: nvJitLinkHandle,
        _size: *mut usize,
    ) -> nvJitLinkResult {
        with_link(handle, no_linked_ptx)
    }

    unsafe fn nvJitLinkGetLinkedLTOIR(
        &self,
        handle: nvJitLinkHandle,
        _ltoir: *mut c_void,
    ) -> nvJitLinkResult {
        with_link(handle, no_linked_ptx)
    }

    unsafe fn nvJitLinkGetErrorLogSize(
        &self,
        handle: nvJitLinkHandle,
        size: *mut usize,
    ) -> nvJitLinkResult {
        // SAFETY: the caller's out-pointer.
        with_link(handle, |l| unsafe { put_size(size, l.error.len() + 1) })
    }

    unsafe fn nvJitLinkGetErrorLog(
        &self,
        handle: nvJitLinkHandle,
        log: *mut c_char,
    ) -> nvJitLinkResult {
        // SAFETY: the caller sized `log` with nvJitLinkGetErrorLogSize.
        with_link(handle, |l| unsafe {
            put_bytes(log.cast(), l.error.as_bytes(), true)
        })
    }

    unsafe fn nvJitLinkGetInfoLogSize(
        &self,
        handle: nvJitLinkHandle,
        size: *mut usize,
    ) -> nvJitLinkResult {
        // SAFETY: the caller's out-pointer.
        with_link(handle, |l| unsafe { put_size(size, l.info.len() + 1) })
    }

    unsafe fn nvJitLinkGetInfoLog(
        &self,
        handle: nvJitLinkHandle,
        log: *mut c_char,
    ) -> nvJitLinkResult {
        // SAFETY: the caller sized `log` with nvJitLinkGetInfoLogSize.
        with_link(handle, |l| unsafe {
            put_bytes(log.cast(), l.info.as_bytes(), true)
        })
    }

    unsafe fn nvJitLinkVersion(&self, major: *mut c_uint, minor: *mut c_uint) -> nvJitLinkResult {
        if major.is_null() || minor.is_null() {
            return INVALID;
        }
        // SAFETY: non-NULL, writable (the caller's contract).
        unsafe {
            *major = VERSION.0;
            *minor = VERSION.1;
        }
        SUCCESS
    }
}

/// The answer of the linked-PTX and linked-LTO-IR outputs: none is produced for AMD.
fn no_linked_ptx(l: &mut Link) -> nvJitLinkResult {
    l.error.push_str(
        "anycuda (HIP): no linked PTX or LTO-IR is produced for an AMD GPU; \
         nvJitLinkGetLinkedCubin gives the code object\n",
    );
    NOT_SUPPORTED
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::ptr::null_mut;

    #[test]
    fn options_are_nvjitlinks() {
        for o in [
            "-arch=sm_90",
            "-arch=compute_80",
            "-arch=sm_100a",
            "-arch=lto_90",
        ] {
            assert_eq!(option_kind(o), Some(true), "{o}");
        }
        for o in [
            "-O3",
            "-lto",
            "-ptx",
            "-ftz=1",
            "-maxrregcount=32",
            "-g",
            "-Xptxas=-v",
        ] {
            assert_eq!(option_kind(o), Some(false), "{o}");
        }
        for o in [
            "-arch=",
            "-arch=gfx90a",
            "-arch=sm_",
            "--bogus",
            "",
            "-O",
            "-ftz=",
        ] {
            assert_eq!(option_kind(o), None, "{o:?}");
        }
    }

    /// A link's lifecycle without compiling: options, inputs, refusals, logs, handles.
    #[test]
    fn handles_inputs_and_logs() {
        let b = HipBackend::load();
        let arch = c"-arch=sm_90";
        let mut opts = [arch.as_ptr()];
        let mut h: nvJitLinkHandle = null_mut();
        // SAFETY: the whole block: local handles, options, buffers and inputs.
        unsafe {
            assert_eq!(b.nvJitLinkCreate(null_mut(), 1, opts.as_mut_ptr()), INVALID);
            assert_eq!(
                b.nvJitLinkCreate(&mut h, 0, null_mut()),
                nvJitLinkResult::NVJITLINK_ERROR_MISSING_ARCH
            );
            let mut bad = [c"-frobnicate".as_ptr()];
            assert_eq!(
                b.nvJitLinkCreate(&mut h, 1, bad.as_mut_ptr()),
                nvJitLinkResult::NVJITLINK_ERROR_UNRECOGNIZED_OPTION
            );
            assert_eq!(b.nvJitLinkCreate(&mut h, 1, opts.as_mut_ptr()), SUCCESS);
            assert!(!h.is_null());
            // Bogus handles are refused without being read.
            let bogus = 0x1234usize as nvJitLinkHandle;
            let mut n = 0usize;
            assert_eq!(b.nvJitLinkGetErrorLogSize(bogus, &mut n), INVALID);
            // An LTO-IR input is refused with the reason in the error log.
            let lto = [0x43u8, 0x7f, 0x45, 0x4c, 1, 2, 3];
            assert_eq!(
                b.nvJitLinkAddData(
                    h,
                    nvJitLinkInputType::NVJITLINK_INPUT_LTOIR,
                    lto.as_ptr().cast(),
                    lto.len(),
                    c"k.ltoir".as_ptr()
                ),
                NOT_SUPPORTED
            );
            assert_eq!(
                b.nvJitLinkAddData(
                    h,
                    nvJitLinkInputType::NVJITLINK_INPUT_PTX,
                    null_mut(),
                    4,
                    null_mut()
                ),
                nvJitLinkResult::NVJITLINK_ERROR_NULL_INPUT
            );
            let ptx =
                b".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";
            assert_eq!(
                b.nvJitLinkAddData(
                    h,
                    nvJitLinkInputType::NVJITLINK_INPUT_ANY,
                    ptx.as_ptr().cast(),
                    ptx.len(),
                    c"k.ptx".as_ptr()
                ),
                SUCCESS
            );
            // No output before completion.
            assert_eq!(b.nvJitLinkGetLinkedCubinSize(h, &mut n), INVALID);
            assert_eq!(b.nvJitLinkGetLinkedPtxSize(h, &mut n), NOT_SUPPORTED);
            assert_eq!(b.nvJitLinkGetErrorLogSize(h, &mut n), SUCCESS);
            let mut log = vec![0x55u8; n];
            assert_eq!(b.nvJitLinkGetErrorLog(h, log.as_mut_ptr().cast()), SUCCESS);
            assert_eq!(log[n - 1], 0);
            let text = std::str::from_utf8(&log[..n - 1]).unwrap();
            assert!(
                text.contains("k.ltoir") && text.contains("LTO-IR"),
                "{text}"
            );
            assert!(text.contains("no linked PTX"), "{text}");
            let (mut major, mut minor) = (0, 0);
            assert_eq!(b.nvJitLinkVersion(&mut major, &mut minor), SUCCESS);
            assert_eq!((major, minor), VERSION);
            let mut dead = h;
            assert_eq!(b.nvJitLinkDestroy(&mut dead), SUCCESS);
            assert!(dead.is_null());
            let mut again = h;
            assert_eq!(b.nvJitLinkDestroy(&mut again), INVALID);
            assert_eq!(b.nvJitLinkComplete(h), INVALID);
        }
    }

    /// Complete with hipRTC (CI: ROCm 5.2.3, no device): a refused instruction is a PTX compile
    /// error naming it; a good module reaches the target question.
    #[test]
    fn complete_translates_or_names_the_refusal() {
        let b = HipBackend::load();
        if b.native_hiprtc().is_none() {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "hipRTC must load under CI=true"
            );
            return;
        }
        let mut opts = [c"-arch=sm_90".as_ptr(), c"-O3".as_ptr()];
        let mut link = |ptx: &[u8]| {
            let mut h: nvJitLinkHandle = null_mut();
            // SAFETY: local handle, options and input.
            unsafe {
                assert_eq!(b.nvJitLinkCreate(&mut h, 2, opts.as_mut_ptr()), SUCCESS);
                assert_eq!(
                    b.nvJitLinkAddData(
                        h,
                        nvJitLinkInputType::NVJITLINK_INPUT_PTX,
                        ptx.as_ptr().cast(),
                        ptx.len(),
                        c"in.ptx".as_ptr()
                    ),
                    SUCCESS
                );
                let r = b.nvJitLinkComplete(h);
                let mut n = 0;
                assert_eq!(b.nvJitLinkGetErrorLogSize(h, &mut n), SUCCESS);
                let mut log = vec![0u8; n];
                assert_eq!(b.nvJitLinkGetErrorLog(h, log.as_mut_ptr().cast()), SUCCESS);
                let mut code = None;
                if r == SUCCESS {
                    assert_eq!(b.nvJitLinkGetLinkedCubinSize(h, &mut n), SUCCESS);
                    let mut c = vec![0u8; n];
                    assert_eq!(b.nvJitLinkGetLinkedCubin(h, c.as_mut_ptr().cast()), SUCCESS);
                    code = Some(c);
                }
                assert_eq!(b.nvJitLinkDestroy(&mut h), SUCCESS);
                (r, String::from_utf8_lossy(&log[..n - 1]).into_owned(), code)
            }
        };
        let good =
            b".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";
        let (r, log, code) = link(good);
        if b.current_arch().is_some() {
            assert_eq!(r, SUCCESS, "{log}");
            let code = code.unwrap();
            assert!(
                code.starts_with(b"\x7fELF") || crate::is_hiprtc_output(&code[..code.len() - 1])
            );
        } else {
            assert_eq!(r, INVALID, "{log}");
            assert!(log.contains("no current device"), "{log}");
        }
        let bad = b".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nwgmma.fence.sync.aligned;\nret;\n}\n";
        let (r, log, _) = link(bad);
        assert_eq!(r, nvJitLinkResult::NVJITLINK_ERROR_PTX_COMPILE);
        assert!(
            log.contains("`wgmma.fence.sync.aligned`") && log.contains("line 6"),
            "{log}"
        );
    }
}
