//! nvJitLink on the HIP backend: NVIDIA's linker where it is installed, plus the AMD code.
//!
//! nvJitLink is a host library (it links PTX, cubins, fat binaries and LTO-IR into a cubin, with
//! no GPU), installable on any Linux machine (PyPI `nvidia-nvjitlink`). Where it loads, this
//! backend's nvJitLink forwards every call to it, so a link behaves exactly as NVIDIA's (the
//! same results, logs and outputs). AMD GPUs run none of its outputs, so where images are held
//! to what AMD loads (on AMD, and in AMD-faithful mode on HIP's NVIDIA platform) the link also
//! makes the code the AMD GPU runs, when every input can become PTX:
//! - PTX inputs are translated ([`crate::ptx_code`]);
//! - LTO-IR inputs (NVVM bitcode, what numba-cuda and `nvrtc -dlto` write) are linked by
//!   NVIDIA's nvJitLink to PTX (`-lto -ptx`, a host-only step), which is then translated;
//! - all of it is compiled together by hipRTC for the current device, and that code object
//!   (on HIP's NVIDIA platform, hipRTC's marked output there) is what `nvJitLinkGetLinkedCubin`
//!   returns; the module and library loads of this backend take it as it is. That is how
//!   numba-cuda's kernels, linked through cuda.core's `Linker`, reach an AMD GPU.
//!
//! A link with a cubin, object, library or fat binary input keeps NVIDIA's cubin as its output
//! (an AMD GPU cannot run it, and the load refuses it with the way out). A PTX module the
//! translator refuses fails `nvJitLinkComplete` with `NVJITLINK_ERROR_PTX_COMPILE`, the
//! instruction and its line in the error log, as NVIDIA's linker reports PTX its assembler
//! rejects.
//!
//! Without NVIDIA's nvJitLink (an AMD machine without the wheel) this linker still links PTX for
//! the AMD GPU on its own; LTO-IR, cubins and the other inputs, and the linked-PTX and
//! linked-LTO-IR outputs, answer `NVJITLINK_ERROR_NOT_SUPPORTED` (the C ABI answers
//! `NVJITLINK_ERROR_INTERNAL`), the reason in the error log. Options are then checked here
//! ([`option_kind`]): `-arch=sm_XX`/`compute_XX` is required, as NVIDIA requires it; the
//! others are accepted and change nothing (the PTX fixes the semantics the translation keeps).
//!
//! Handles are anycuda's own tokens (a tag and a counter), never dereferenced: a bogus, stale or
//! destroyed handle is `NVJITLINK_ERROR_INVALID_INPUT` without touching memory.

use crate::HipBackend;
use anycuda_api::loader::Loaded;
use anycuda_api::nvjitlink::*;
use core::ffi::{c_char, c_uint, c_void, CStr};
use core::ptr::null_mut;
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// The nvJitLink API version this linker implements without NVIDIA's library (the pinned
/// `nvJitLink.h`'s major); with it, that library's version.
pub const VERSION: (c_uint, c_uint) = (13, 0);

/// Top bits of a handle: non-canonical on x86-64, so never an address.
const HANDLE_TAG: usize = 0x4a4c << 48;

/// NVIDIA's nvJitLink (a host library), loaded once, if it is installed
/// ([`NVJITLINK_SEARCH`]).
pub fn vendor() -> Option<&'static Loaded<NvJitLinkTable>> {
    static V: OnceLock<Option<Loaded<NvJitLinkTable>>> = OnceLock::new();
    V.get_or_init(|| match load(&NVJITLINK_SEARCH) {
        Ok(l) => {
            log::debug!(
                "anycuda (HIP): nvJitLink: NVIDIA's {} under the AMD linker",
                l.path
            );
            Some(l)
        }
        Err(e) => {
            log::info!("anycuda (HIP): nvJitLink: NVIDIA's library not found ({e}): PTX only");
            None
        }
    })
    .as_ref()
}

/// One link in progress (or completed).
struct Link {
    /// NVIDIA's handle for the same link (null without NVIDIA's library).
    nv: nvJitLinkHandle,
    /// The `-arch=` number.
    arch: u32,
    /// The PTX inputs, in the order added.
    ptx: Vec<String>,
    /// The LTO-IR inputs.
    ltoir: Vec<Vec<u8>>,
    /// An input no AMD code can be made from (cubin, object, library, fat binary).
    other: bool,
    /// The AMD code once completed (None: NVIDIA's output stands, or not completed).
    output: Option<Vec<u8>>,
    /// Completed (by this linker, when there is no NVIDIA library).
    done: bool,
    /// This linker's error log lines (after NVIDIA's).
    error: String,
    /// This linker's info log lines (after NVIDIA's).
    info: String,
}

// SAFETY: `nv` is NVIDIA's handle, an opaque token its library allows on any thread.
unsafe impl Send for Link {}

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

/// NVIDIA's handle of `handle`'s link (null without NVIDIA's library); `None` for a bad handle.
fn nv_of(handle: nvJitLinkHandle) -> Option<nvJitLinkHandle> {
    links().map.get(&(handle as usize)).map(|l| l.nv)
}

/// Whether an option is one nvJitLink takes: `Some(true)` for `-arch=`, `Some(false)` for the
/// rest accepted, `None` for an unknown one. Pure.
pub fn option_kind(opt: &str) -> Option<bool> {
    arch_of(opt)
        .map(|_| true)
        .or_else(|| other_option(opt).then_some(false))
}

/// The number of an `-arch=sm_XX`/`compute_XX`/`lto_XX` option. Pure.
fn arch_of(opt: &str) -> Option<u32> {
    let a = opt.strip_prefix("-arch=")?;
    let n = a
        .strip_prefix("sm_")
        .or_else(|| a.strip_prefix("compute_"))
        .or_else(|| a.strip_prefix("lto_"))?;
    let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// nvJitLink's options other than `-arch=`. Pure.
fn other_option(opt: &str) -> bool {
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
    FLAGS.contains(&opt)
        || VALUED
            .iter()
            .any(|p| opt.starts_with(p) && opt.len() > p.len())
}

/// The reason an input of `kind` cannot become AMD code without NVIDIA's library.
fn refusal(kind: nvJitLinkInputType) -> &'static str {
    match kind {
        nvJitLinkInputType::NVJITLINK_INPUT_LTOIR => {
            "LTO-IR (NVVM bitcode) is linked to PTX by NVIDIA's nvJitLink, which is not installed \
             (pip install nvidia-nvjitlink); or link PTX (compile without -dlto / LTO)"
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

/// What an input is, for the AMD code: PTX, LTO-IR, or something else. `None`: an input type
/// nvJitLink does not have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Input {
    Ptx,
    Ltoir,
    Other,
}

/// The kind of an input of type `kind` with these bytes (`ANY` judged from them).
fn input_of(kind: nvJitLinkInputType, bytes: &[u8]) -> Option<Input> {
    use nvJitLinkInputType as T;
    Some(match kind {
        T::NVJITLINK_INPUT_PTX => Input::Ptx,
        T::NVJITLINK_INPUT_LTOIR => Input::Ltoir,
        T::NVJITLINK_INPUT_ANY | T::NVJITLINK_INPUT_NONE => {
            match crate::image_kind(&bytes[..bytes.len().min(20)]) {
                crate::ImageKind::Text => Input::Ptx,
                _ if bytes.starts_with(&[0x43, 0x7f, 0x45, 0x4c]) => Input::Ltoir,
                _ => Input::Other,
            }
        }
        T::NVJITLINK_INPUT_CUBIN
        | T::NVJITLINK_INPUT_FATBIN
        | T::NVJITLINK_INPUT_OBJECT
        | T::NVJITLINK_INPUT_LIBRARY
        | T::NVJITLINK_INPUT_INDEX => Input::Other,
        _ => return None,
    })
}

/// Records an input's bytes in `link` (after NVIDIA's library took it, when there is one).
fn record(
    link: &mut Link,
    kind: nvJitLinkInputType,
    bytes: &[u8],
    name: &str,
    vendor: bool,
) -> nvJitLinkResult {
    if link.done || link.output.is_some() {
        link.error
            .push_str("nvJitLink: inputs cannot be added after nvJitLinkComplete\n");
        return INVALID;
    }
    let Some(input) = input_of(kind, bytes) else {
        link.error.push_str(&format!(
            "nvJitLink: {name}: unknown input type {}\n",
            kind.0
        ));
        return INVALID;
    };
    match input {
        Input::Ptx => {
            let text = bytes.split(|&c| c == 0).next().unwrap_or_default();
            match core::str::from_utf8(text) {
                Ok(t) if !t.trim().is_empty() => link.ptx.push(t.to_owned()),
                _ if vendor => link.other = true,
                _ => {
                    link.error.push_str(&format!(
                        "nvJitLink: {name}: not PTX (empty or not ASCII)\n"
                    ));
                    return INVALID;
                }
            }
        }
        Input::Ltoir if vendor => link.ltoir.push(bytes.to_vec()),
        Input::Other if vendor => link.other = true,
        Input::Ltoir | Input::Other => {
            let why = refusal(kind);
            log::error!("anycuda (HIP): nvJitLink: {name}: {why}");
            link.error
                .push_str(&format!("anycuda (HIP): {name}: {why}\n"));
            return NOT_SUPPORTED;
        }
    }
    SUCCESS
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

/// One of NVIDIA's sized outputs (`size` query, then `get` into a buffer of that size).
fn nv_output(
    size: impl FnOnce(&mut usize) -> nvJitLinkResult,
    get: impl FnOnce(*mut c_void) -> nvJitLinkResult,
) -> Result<Vec<u8>, nvJitLinkResult> {
    let mut n = 0usize;
    let r = size(&mut n);
    if r != SUCCESS {
        return Err(r);
    }
    let mut v = vec![0u8; n];
    if n > 0 {
        let r = get(v.as_mut_ptr().cast());
        if r != SUCCESS {
            return Err(r);
        }
    }
    Ok(v)
}

/// A log: NVIDIA's part (without its NUL) and then this linker's.
fn full_log(nv: nvJitLinkHandle, ours: &str, error: bool) -> Vec<u8> {
    let mut out = match vendor() {
        Some(v) if !nv.is_null() => {
            let got = if error {
                nv_output(
                    // SAFETY: NVIDIA's live handle of this link.
                    |n| unsafe { v.table.nvJitLinkGetErrorLogSize(nv, n) },
                    // SAFETY: as above; the buffer sized by the size query.
                    |p| unsafe { v.table.nvJitLinkGetErrorLog(nv, p.cast()) },
                )
            } else {
                nv_output(
                    // SAFETY: NVIDIA's live handle of this link.
                    |n| unsafe { v.table.nvJitLinkGetInfoLogSize(nv, n) },
                    // SAFETY: as above; the buffer sized by the size query.
                    |p| unsafe { v.table.nvJitLinkGetInfoLog(nv, p.cast()) },
                )
            };
            let mut b = got.unwrap_or_default();
            if let Some(end) = b.iter().position(|&c| c == 0) {
                b.truncate(end);
            }
            b
        }
        _ => Vec::new(),
    };
    out.extend_from_slice(ours.as_bytes());
    out
}

/// NVIDIA's linker's PTX for LTO-IR `inputs` (a link of its own, `-lto -ptx`, host only).
fn ltoir_to_ptx(v: &NvJitLinkTable, arch: u32, inputs: &[Vec<u8>]) -> Result<String, String> {
    let arch_opt = std::ffi::CString::new(format!("-arch=sm_{arch}")).expect("no NUL");
    let mut opts = [arch_opt.as_ptr(), c"-lto".as_ptr(), c"-ptx".as_ptr()];
    let mut h: nvJitLinkHandle = null_mut();
    // SAFETY: local options and handle.
    let r = unsafe { v.nvJitLinkCreate(&mut h, 3, opts.as_mut_ptr()) };
    if r != SUCCESS {
        return Err(format!("nvJitLinkCreate(-lto -ptx): {r:?}"));
    }
    let mut result = Ok(());
    for (i, b) in inputs.iter().enumerate() {
        let name = std::ffi::CString::new(format!("ltoir{i}")).expect("no NUL");
        // SAFETY: a live handle; `b` is the input's bytes.
        let r = unsafe {
            v.nvJitLinkAddData(
                h,
                nvJitLinkInputType::NVJITLINK_INPUT_LTOIR,
                b.as_ptr().cast(),
                b.len(),
                name.as_ptr(),
            )
        };
        if r != SUCCESS {
            result = Err(format!("nvJitLinkAddData(LTO-IR): {r:?}"));
            break;
        }
    }
    if result.is_ok() {
        // SAFETY: the live handle made above.
        let r = unsafe { v.nvJitLinkComplete(h) };
        if r != SUCCESS {
            let log = full_log_of(v, h);
            result = Err(format!("nvJitLinkComplete(-lto -ptx): {r:?}: {log}"));
        }
    }
    let ptx = result.and_then(|()| {
        nv_output(
            // SAFETY: a live, completed handle; the buffer sized by the size query.
            |n| unsafe { v.nvJitLinkGetLinkedPtxSize(h, n) },
            // SAFETY: as above; the buffer sized by the size query.
            |p| unsafe { v.nvJitLinkGetLinkedPtx(h, p.cast()) },
        )
        .map_err(|r| format!("nvJitLinkGetLinkedPtx: {r:?}"))
    });
    // SAFETY: the handle made above, destroyed once.
    unsafe { v.nvJitLinkDestroy(&mut h) };
    let mut ptx = ptx?;
    if let Some(end) = ptx.iter().position(|&c| c == 0) {
        ptx.truncate(end);
    }
    String::from_utf8(ptx).map_err(|_| "nvJitLink's PTX is not UTF-8".into())
}

/// NVIDIA's error log of a handle of ours, as text.
fn full_log_of(v: &NvJitLinkTable, h: nvJitLinkHandle) -> String {
    nv_output(
        // SAFETY: a live handle; the buffer sized by the size query.
        |n| unsafe { v.nvJitLinkGetErrorLogSize(h, n) },
        // SAFETY: as above; the buffer sized by the size query.
        |p| unsafe { v.nvJitLinkGetErrorLog(h, p.cast()) },
    )
    .map(|b| {
        String::from_utf8_lossy(&b)
            .trim_end_matches('\0')
            .to_owned()
    })
    .unwrap_or_default()
}

#[allow(non_snake_case)] // nvJitLink's parameter names
impl NvJitLink for HipBackend {
    unsafe fn nvJitLinkCreate(
        &self,
        handle: *mut nvJitLinkHandle,
        numOptions: u32,
        options: *mut *const c_char,
    ) -> nvJitLinkResult {
        // A null handle pointer is NVIDIA's NULL_INPUT (libnvJitLink 13.5 answers it, GPU or
        // not); null options with a count, an invalid input.
        if handle.is_null() {
            return nvJitLinkResult::NVJITLINK_ERROR_NULL_INPUT;
        }
        if numOptions > 0 && options.is_null() {
            return INVALID;
        }
        let mut arch = None;
        let mut known = true;
        for i in 0..numOptions as usize {
            // SAFETY: `numOptions` entries (the caller's contract).
            let p = unsafe { *options.add(i) };
            if p.is_null() {
                return INVALID;
            }
            // SAFETY: NUL-terminated option strings (the caller's contract).
            let o = unsafe { CStr::from_ptr(p) }.to_string_lossy();
            let o = o.trim();
            if let Some(a) = arch_of(o) {
                arch = Some(a);
            } else if !other_option(o) {
                known = false;
            }
        }
        let mut nv: nvJitLinkHandle = null_mut();
        if let Some(v) = vendor() {
            // NVIDIA's linker judges the options, as on NVIDIA.
            // SAFETY: the caller's option array; a local out-pointer.
            let r = unsafe { v.table.nvJitLinkCreate(&mut nv, numOptions, options) };
            if r != SUCCESS {
                return r;
            }
        } else if !known {
            return nvJitLinkResult::NVJITLINK_ERROR_UNRECOGNIZED_OPTION;
        } else if arch.is_none() {
            return nvJitLinkResult::NVJITLINK_ERROR_MISSING_ARCH;
        }
        let mut l = links();
        let h = HANDLE_TAG | l.next;
        l.next += 1;
        l.map.insert(
            h,
            Link {
                nv,
                arch: arch.unwrap_or(52),
                ptx: Vec::new(),
                ltoir: Vec::new(),
                other: false,
                output: None,
                done: false,
                error: String::new(),
                info: String::new(),
            },
        );
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
        let Some(mut link) = links().map.remove(&h) else {
            return INVALID;
        };
        if let (Some(v), false) = (vendor(), link.nv.is_null()) {
            // SAFETY: NVIDIA's handle of this link, destroyed once.
            unsafe { v.table.nvJitLinkDestroy(&mut link.nv) };
        }
        // SAFETY: as above, writable.
        unsafe { *handle = null_mut() };
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
        let Some(nv) = nv_of(handle) else {
            return INVALID;
        };
        if let (Some(v), false) = (vendor(), nv.is_null()) {
            // SAFETY: the caller's arguments, NVIDIA's handle of this link.
            let r = unsafe { v.table.nvJitLinkAddData(nv, inputType, data, size, name) };
            if r != SUCCESS {
                return r;
            }
        }
        if data.is_null() || size == 0 {
            return nvJitLinkResult::NVJITLINK_ERROR_NULL_INPUT;
        }
        // SAFETY: `size` readable bytes at `data` (the caller's contract).
        let bytes = unsafe { core::slice::from_raw_parts(data.cast::<u8>(), size) };
        let name = if name.is_null() {
            "input".into()
        } else {
            // SAFETY: NUL-terminated (the caller's contract).
            unsafe { CStr::from_ptr(name) }.to_string_lossy()
        };
        with_link(handle, |l| {
            record(l, inputType, bytes, &name, !nv.is_null())
        })
    }

    unsafe fn nvJitLinkAddFile(
        &self,
        handle: nvJitLinkHandle,
        inputType: nvJitLinkInputType,
        fileName: *const c_char,
    ) -> nvJitLinkResult {
        let Some(nv) = nv_of(handle) else {
            return INVALID;
        };
        if let (Some(v), false) = (vendor(), nv.is_null()) {
            // SAFETY: the caller's arguments, NVIDIA's handle of this link.
            let r = unsafe { v.table.nvJitLinkAddFile(nv, inputType, fileName) };
            if r != SUCCESS {
                return r;
            }
        }
        if fileName.is_null() {
            return nvJitLinkResult::NVJITLINK_ERROR_NULL_INPUT;
        }
        // SAFETY: NUL-terminated (the caller's contract).
        let name = unsafe { CStr::from_ptr(fileName) }
            .to_string_lossy()
            .into_owned();
        let bytes = match std::fs::read(&name) {
            Ok(b) if !b.is_empty() => b,
            Ok(_) => {
                return with_link(handle, |l| {
                    l.error
                        .push_str(&format!("nvJitLink: {name}: empty file\n"));
                    INVALID
                })
            }
            Err(e) => {
                return with_link(handle, |l| {
                    l.error.push_str(&format!("nvJitLink: {name}: {e}\n"));
                    INVALID
                })
            }
        };
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
        with_link(handle, |l| record(l, kind, &bytes, &name, !nv.is_null()))
    }

    unsafe fn nvJitLinkComplete(&self, handle: nvJitLinkHandle) -> nvJitLinkResult {
        // The inputs are taken out of the registry for the compile (seconds, cold), so other
        // links are not held up.
        let (nv, arch, ptx, ltoir, other) = {
            let mut l = links();
            let Some(link) = l.map.get_mut(&(handle as usize)) else {
                return INVALID;
            };
            if link.output.is_some() || link.done {
                return SUCCESS;
            }
            (
                link.nv,
                link.arch,
                core::mem::take(&mut link.ptx),
                core::mem::take(&mut link.ltoir),
                link.other,
            )
        };
        let v = vendor().filter(|_| !nv.is_null());
        if let Some(v) = v {
            // SAFETY: NVIDIA's handle of this link.
            let r = unsafe { v.table.nvJitLinkComplete(nv) };
            if r != SUCCESS {
                return r;
            }
        }
        if v.is_none() {
            // This linker alone: it makes AMD code, from PTX, or nothing.
            let why = if ptx.is_empty() {
                Some((INVALID, "nvJitLink: no inputs to link\n"))
            } else if !self.amd_faithful() {
                Some((
                    NOT_SUPPORTED,
                    "anycuda (HIP): with ANYCUDA_HIP_AMD_FAITHFUL=0 the link's output is NVIDIA's \
                     cubin, and NVIDIA's nvJitLink is not installed (pip install \
                     nvidia-nvjitlink)\n",
                ))
            } else {
                None
            };
            if let Some((code, why)) = why {
                return with_link(handle, |link| {
                    link.error.push_str(why);
                    link.ptx = ptx;
                    code
                });
            }
        }
        // NVIDIA's output stands where AMD code is not wanted or cannot be made.
        let amd = self.amd_faithful() && !other && !(ptx.is_empty() && ltoir.is_empty());
        if !amd {
            return with_link(handle, |link| {
                link.done = true;
                link.ptx = ptx;
                link.ltoir = ltoir;
                SUCCESS
            });
        }
        let start = std::time::Instant::now();
        let mut modules = Vec::with_capacity(ptx.len() + 1);
        if !ltoir.is_empty() {
            match v.map(|v| ltoir_to_ptx(&v.table, arch, &ltoir)) {
                Some(Ok(p)) => modules.push(p),
                Some(Err(e)) => {
                    return with_link(handle, |link| {
                        link.error.push_str(&format!(
                            "anycuda (HIP): LTO-IR to PTX for the AMD GPU: {e}\n"
                        ));
                        nvJitLinkResult::NVJITLINK_ERROR_NVVM_COMPILE
                    })
                }
                None => return NOT_SUPPORTED,
            }
        }
        modules.extend(ptx.iter().cloned());
        let texts: Vec<&str> = modules.iter().map(String::as_str).collect();
        let result = crate::ptx_code::compile_ptx(self, &texts, None);
        with_link(handle, |link| {
            link.ptx = ptx;
            link.ltoir = ltoir;
            match result {
                Ok((code, hit)) => {
                    link.info.push_str(&format!(
                        "anycuda (HIP): {} module(s) {} for the AMD GPU in {:.0?}\n",
                        texts.len(),
                        if hit {
                            "taken from the code cache"
                        } else {
                            "translated and compiled with hipRTC"
                        },
                        start.elapsed()
                    ));
                    link.output = Some(code);
                    link.done = true;
                    SUCCESS
                }
                Err(e) => {
                    log::error!("anycuda (HIP): nvJitLinkComplete: {e}");
                    if let crate::ptx_code::PtxCodeError::Compile(c) = &e {
                        link.error.push_str(&c.log);
                    }
                    link.error.push_str(&format!("anycuda (HIP): {e}\n"));
                    match e {
                        crate::ptx_code::PtxCodeError::NoDevice => INVALID,
                        _ => nvJitLinkResult::NVJITLINK_ERROR_PTX_COMPILE,
                    }
                }
            }
        })
    }

    unsafe fn nvJitLinkGetLinkedCubinSize(
        &self,
        handle: nvJitLinkHandle,
        size: *mut usize,
    ) -> nvJitLinkResult {
        with_link(handle, |l| match (&l.output, vendor()) {
            // SAFETY: the caller's out-pointer.
            (Some(code), _) => unsafe { put_size(size, code.len()) },
            // SAFETY: NVIDIA's handle; the caller's out-pointer.
            (None, Some(v)) if !l.nv.is_null() => unsafe {
                v.table.nvJitLinkGetLinkedCubinSize(l.nv, size)
            },
            _ => INVALID,
        })
    }

    unsafe fn nvJitLinkGetLinkedCubin(
        &self,
        handle: nvJitLinkHandle,
        cubin: *mut c_void,
    ) -> nvJitLinkResult {
        with_link(handle, |l| match (&l.output, vendor()) {
            // SAFETY: the caller sized `cubin` with nvJitLinkGetLinkedCubinSize.
            (Some(code), _) => unsafe { put_bytes(cubin, code, false) },
            // SAFETY: NVIDIA's handle; the caller's buffer.
            (None, Some(v)) if !l.nv.is_null() => unsafe {
                v.table.nvJitLinkGetLinkedCubin(l.nv, cubin)
            },
            _ => INVALID,
        })
    }

    unsafe fn nvJitLinkGetLinkedPtxSize(
        &self,
        handle: nvJitLinkHandle,
        size: *mut usize,
    ) -> nvJitLinkResult {
        // SAFETY: NVIDIA's handle; the caller's out-pointer.
        with_nv(handle, |v, nv| unsafe {
            v.nvJitLinkGetLinkedPtxSize(nv, size)
        })
    }

    unsafe fn nvJitLinkGetLinkedPtx(
        &self,
        handle: nvJitLinkHandle,
        ptx: *mut c_char,
    ) -> nvJitLinkResult {
        // SAFETY: NVIDIA's handle; the caller's buffer.
        with_nv(handle, |v, nv| unsafe { v.nvJitLinkGetLinkedPtx(nv, ptx) })
    }

    unsafe fn nvJitLinkGetLinkedLTOIRSize(
        &self,
        handle: nvJitLinkHandle,
        size: *mut usize,
    ) -> nvJitLinkResult {
        // SAFETY: NVIDIA's handle; the caller's out-pointer.
        with_nv(handle, |v, nv| unsafe {
            v.nvJitLinkGetLinkedLTOIRSize(nv, size)
        })
    }

    unsafe fn nvJitLinkGetLinkedLTOIR(
        &self,
        handle: nvJitLinkHandle,
        ltoir: *mut c_void,
    ) -> nvJitLinkResult {
        // SAFETY: NVIDIA's handle; the caller's buffer.
        with_nv(handle, |v, nv| unsafe {
            v.nvJitLinkGetLinkedLTOIR(nv, ltoir)
        })
    }

    unsafe fn nvJitLinkGetErrorLogSize(
        &self,
        handle: nvJitLinkHandle,
        size: *mut usize,
    ) -> nvJitLinkResult {
        with_link(handle, |l| {
            let log = full_log(l.nv, &l.error, true);
            // SAFETY: the caller's out-pointer.
            unsafe { put_size(size, log.len() + 1) }
        })
    }

    unsafe fn nvJitLinkGetErrorLog(
        &self,
        handle: nvJitLinkHandle,
        log: *mut c_char,
    ) -> nvJitLinkResult {
        with_link(handle, |l| {
            let text = full_log(l.nv, &l.error, true);
            // SAFETY: the caller sized `log` with nvJitLinkGetErrorLogSize.
            unsafe { put_bytes(log.cast(), &text, true) }
        })
    }

    unsafe fn nvJitLinkGetInfoLogSize(
        &self,
        handle: nvJitLinkHandle,
        size: *mut usize,
    ) -> nvJitLinkResult {
        with_link(handle, |l| {
            let log = full_log(l.nv, &l.info, false);
            // SAFETY: the caller's out-pointer.
            unsafe { put_size(size, log.len() + 1) }
        })
    }

    unsafe fn nvJitLinkGetInfoLog(
        &self,
        handle: nvJitLinkHandle,
        log: *mut c_char,
    ) -> nvJitLinkResult {
        with_link(handle, |l| {
            let text = full_log(l.nv, &l.info, false);
            // SAFETY: the caller sized `log` with nvJitLinkGetInfoLogSize.
            unsafe { put_bytes(log.cast(), &text, true) }
        })
    }

    unsafe fn nvJitLinkVersion(&self, major: *mut c_uint, minor: *mut c_uint) -> nvJitLinkResult {
        if let Some(v) = vendor() {
            // SAFETY: the caller's out-pointers.
            return unsafe { v.table.nvJitLinkVersion(major, minor) };
        }
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

/// Runs `f` with NVIDIA's library and handle of `handle`'s link; without them, the answer of an
/// output no AMD link produces (`NOT_SUPPORTED`, said in the error log).
fn with_nv(
    handle: nvJitLinkHandle,
    f: impl FnOnce(&NvJitLinkTable, nvJitLinkHandle) -> nvJitLinkResult,
) -> nvJitLinkResult {
    let Some(nv) = nv_of(handle) else {
        return INVALID;
    };
    match vendor() {
        Some(v) if !nv.is_null() => f(&v.table, nv),
        _ => with_link(handle, |l| {
            l.error.push_str(
                "anycuda (HIP): linked PTX and LTO-IR come from NVIDIA's nvJitLink, which is not \
                 installed; nvJitLinkGetLinkedCubin gives the AMD code object\n",
            );
            NOT_SUPPORTED
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_nvjitlinks() {
        for (o, a) in [
            ("-arch=sm_90", 90),
            ("-arch=compute_80", 80),
            ("-arch=sm_100a", 100),
            ("-arch=lto_90", 90),
        ] {
            assert_eq!(option_kind(o), Some(true), "{o}");
            assert_eq!(arch_of(o), Some(a), "{o}");
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

    #[test]
    fn inputs_are_judged_by_type_then_bytes() {
        use nvJitLinkInputType as T;
        let ptx = b".version 8.0\n.target sm_90\n";
        assert_eq!(input_of(T::NVJITLINK_INPUT_ANY, ptx), Some(Input::Ptx));
        assert_eq!(
            input_of(T::NVJITLINK_INPUT_ANY, &[0x43, 0x7f, 0x45, 0x4c, 0]),
            Some(Input::Ltoir)
        );
        assert_eq!(
            input_of(T::NVJITLINK_INPUT_ANY, b"\x7fELF\x02\x01"),
            Some(Input::Other)
        );
        assert_eq!(input_of(T::NVJITLINK_INPUT_LTOIR, ptx), Some(Input::Ltoir));
        assert_eq!(input_of(T::NVJITLINK_INPUT_CUBIN, ptx), Some(Input::Other));
        assert_eq!(input_of(nvJitLinkInputType(99), ptx), None);
    }

    /// A link's lifecycle, on NVIDIA's linker where it is installed (CI: the pinned wheel):
    /// options and inputs judged as NVIDIA judges them, handles and logs anycuda's.
    #[test]
    fn handles_inputs_and_logs() {
        let b = HipBackend::load();
        let on_ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(
            vendor().is_some() || !on_ci,
            "CI=true: NVIDIA's nvJitLink (CUDA_PATH's lib) must load"
        );
        let mut opts = [c"-arch=sm_90".as_ptr()];
        let mut h: nvJitLinkHandle = null_mut();
        // SAFETY: the whole block: local handles, options, buffers and inputs.
        unsafe {
            assert_eq!(
                b.nvJitLinkCreate(null_mut(), 1, opts.as_mut_ptr()),
                nvJitLinkResult::NVJITLINK_ERROR_NULL_INPUT
            );
            let mut no_arch = [c"-O3".as_ptr()];
            assert_eq!(
                b.nvJitLinkCreate(&mut h, 1, no_arch.as_mut_ptr()),
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
            assert_eq!(b.nvJitLinkComplete(bogus), INVALID);
            // Damaged LTO-IR is refused (by NVIDIA's linker, or as not linkable without it).
            let lto = [0x43u8, 0x7f, 0x45, 0x4c, 1, 2, 3];
            let r = b.nvJitLinkAddData(
                h,
                nvJitLinkInputType::NVJITLINK_INPUT_LTOIR,
                lto.as_ptr().cast(),
                lto.len(),
                c"k.ltoir".as_ptr(),
            );
            assert_ne!(r, SUCCESS);
            let ptx =
                b".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n\0";
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
            assert_ne!(b.nvJitLinkGetLinkedCubinSize(h, &mut n), SUCCESS);
            assert_eq!(b.nvJitLinkGetErrorLogSize(h, &mut n), SUCCESS);
            let mut log = vec![0x55u8; n];
            assert_eq!(b.nvJitLinkGetErrorLog(h, log.as_mut_ptr().cast()), SUCCESS);
            assert_eq!(log[n - 1], 0);
            let (mut major, mut minor) = (0, 0);
            assert_eq!(b.nvJitLinkVersion(&mut major, &mut minor), SUCCESS);
            assert!(major >= 12, "{major}.{minor}");
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
        if b.native_hiprtc().is_none() || !b.amd_faithful() {
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
                // NVIDIA's linker (where installed) may refuse the PTX already.
                let mut r = b.nvJitLinkAddData(
                    h,
                    nvJitLinkInputType::NVJITLINK_INPUT_PTX,
                    ptx.as_ptr().cast(),
                    ptx.len(),
                    c"in.ptx".as_ptr(),
                );
                if r == SUCCESS {
                    r = b.nvJitLinkComplete(h);
                }
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
            b".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n\0";
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
        // NVIDIA's linker takes the PTX (it knows no wgmma restriction at sm_90 here only if
        // the instruction is valid there); the AMD code cannot be made, and the log says why.
        let bad = b".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\ntcgen05.fence::before_thread_sync;\nret;\n}\n\0";
        let (r, log, _) = link(bad);
        assert_ne!(r, SUCCESS, "{log}");
        if r == nvJitLinkResult::NVJITLINK_ERROR_PTX_COMPILE && log.contains("anycuda") {
            assert!(
                log.contains("`tcgen05.fence::before_thread_sync`") && log.contains("line 6"),
                "{log}"
            );
        }
    }
    /// Without NVIDIA's nvJitLink (`ANYCUDA_NVJITLINK_LIBRARY` naming a missing file, in a
    /// child process so the library this process found stays): options are checked here, PTX
    /// links, LTO-IR and cubins are refused with the reason, the linked-PTX output is refused.
    #[test]
    fn without_nvidias_library_ptx_still_links() {
        const CHILD: &str = "ANYCUDA_TEST_HIP_NO_NVJITLINK_CHILD";
        if std::env::var_os(CHILD).is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "nvjitlink::tests::without_nvidias_library_ptx_still_links",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD, "1")
                .env(
                    "ANYCUDA_NVJITLINK_LIBRARY",
                    "/nonexistent/libnvJitLink.so.13",
                )
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "child failed:\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        assert!(vendor().is_none());
        let b = HipBackend::load();
        let mut h: nvJitLinkHandle = null_mut();
        // SAFETY: the whole block: local handles, options, buffers and inputs.
        unsafe {
            let mut bad = [c"-arch=sm_90".as_ptr(), c"-frobnicate".as_ptr()];
            assert_eq!(
                b.nvJitLinkCreate(&mut h, 2, bad.as_mut_ptr()),
                nvJitLinkResult::NVJITLINK_ERROR_UNRECOGNIZED_OPTION
            );
            let mut no_arch = [c"-O3".as_ptr()];
            assert_eq!(
                b.nvJitLinkCreate(&mut h, 1, no_arch.as_mut_ptr()),
                nvJitLinkResult::NVJITLINK_ERROR_MISSING_ARCH
            );
            let mut opts = [c"-arch=sm_90".as_ptr(), c"-lto".as_ptr()];
            assert_eq!(b.nvJitLinkCreate(&mut h, 2, opts.as_mut_ptr()), SUCCESS);
            assert_eq!(b.nvJitLinkComplete(h), INVALID, "no inputs");
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
            let ptx = b".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n\0";
            assert_eq!(
                b.nvJitLinkAddData(
                    h,
                    nvJitLinkInputType::NVJITLINK_INPUT_PTX,
                    ptx.as_ptr().cast(),
                    ptx.len(),
                    c"k.ptx".as_ptr()
                ),
                SUCCESS
            );
            let mut n = 0usize;
            assert_eq!(b.nvJitLinkGetLinkedPtxSize(h, &mut n), NOT_SUPPORTED);
            let r = b.nvJitLinkComplete(h);
            if b.current_arch().is_none() && b.amd_faithful() {
                assert_eq!(r, INVALID, "no device: no target");
            }
            assert_eq!(b.nvJitLinkGetErrorLogSize(h, &mut n), SUCCESS);
            let mut log = vec![0u8; n];
            assert_eq!(b.nvJitLinkGetErrorLog(h, log.as_mut_ptr().cast()), SUCCESS);
            let text = String::from_utf8_lossy(&log[..n - 1]).into_owned();
            assert!(
                text.contains("k.ltoir") && text.contains("pip install"),
                "{text}"
            );
            let (mut major, mut minor) = (0, 0);
            assert_eq!(b.nvJitLinkVersion(&mut major, &mut minor), SUCCESS);
            assert_eq!((major, minor), VERSION);
            assert_eq!(b.nvJitLinkDestroy(&mut h), SUCCESS);
        }
    }
}
