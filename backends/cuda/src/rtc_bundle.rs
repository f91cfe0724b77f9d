//! PTX that NVIDIA's driver will not take, rescued from its source bundle.
//!
//! PTX carries its ISA version, and a driver refuses PTX newer than itself
//! (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`): a kernel crate built with nvcc 13.5 does not load on
//! a 13.0 driver, although CUDA's minor-version compatibility runs its cubins there. PTX built
//! for a newer GPU than the device (`.target sm_90a` on an A100), or on a driver whose JIT is
//! missing or disabled, fails the same way. When such PTX carries an anycuda source bundle
//! (`anycuda nvcc` writes one: [`anycuda_rtc::rtc_bundle`]), the load compiles the bundle with
//! this backend's NVRTC into a cubin for the current device and loads that instead: SASS
//! needs no PTX JIT, so the driver's PTX version no longer matters. The code goes through the
//! process's code cache, as on HIP. PTX without a bundle, any other error, and a bundle that
//! does not compile keep the driver's own answer (the compile's reason is logged).
//!
//! Only the driver's refusal starts this: PTX the driver takes loads as PTX, unchanged.
//! `cuModuleLoad`, `cuModuleLoadData`, `cuModuleLoadDataEx`, `cuLibraryLoadData` and
//! `cuLibraryLoadFromFile` do it (each listed in `codegen/cuda-overrides.txt`). Libraries load
//! lazily, so a library of bundled PTX is loaded into the current context at once to see the
//! refusal while it can still be rescued ([`check_lazy_library`]). The Runtime API's
//! `cudaLibraryLoadData` runs inside NVIDIA's libcudart, which calls the driver itself.

#![allow(non_snake_case)]

use crate::driver::{NO_FN, NO_LIB};
use crate::loader::call;
use crate::CudaBackend;
use anycuda_api::driver::{CUjit_option, CUlibrary, CUlibraryOption, CUmodule, CUresult};
use anycuda_api::traits::{Api, Driver};
use anycuda_rtc::rtc_bundle::{Bundle, BundleCompileError};
use core::ffi::{c_char, c_uint, c_void, CStr};

/// The driver's answers that mean "this PTX cannot be used here" rather than "this is not a
/// module": the ones a cubin compiled from the source for this device avoids.
pub(crate) fn rescuable(r: CUresult) -> bool {
    matches!(
        r,
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
            | CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU
            | CUresult::CUDA_ERROR_INVALID_PTX
            | CUresult::CUDA_ERROR_JIT_COMPILER_NOT_FOUND
            | CUresult::CUDA_ERROR_JIT_COMPILATION_DISABLED
    )
}

/// The NVRTC target for the current context's device: `sm_XY`, or the bundle's own
/// arch-specific target (`sm_90a`, `sm_100f`) when it names this very device's capability.
fn target(b: &CudaBackend, bundle: &Bundle) -> Option<String> {
    let mut dev = 0;
    // SAFETY: valid out-pointer.
    if unsafe { b.cuCtxGetDevice(&mut dev) } != CUresult::CUDA_SUCCESS {
        return None;
    }
    let sm = b.device_arch(dev).ok()?;
    let recorded = bundle.arch.as_deref().and_then(|a| {
        let digits = a
            .strip_prefix("sm_")
            .or_else(|| a.strip_prefix("compute_"))?;
        let suffix = digits.trim_start_matches(|c: char| c.is_ascii_digit());
        (["a", "f"].contains(&suffix)
            && sm.strip_prefix("sm_") == Some(&digits[..digits.len() - suffix.len()]))
        .then(|| format!("{sm}{suffix}"))
    });
    Some(recorded.unwrap_or(sm))
}

/// Whether `code` is what NVRTC's cubin output looks like (an ELF for `EM_CUDA`).
fn plausible_cubin(code: &[u8]) -> bool {
    code.starts_with(b"\x7fELF") && code.get(18..20) == Some(&190u16.to_le_bytes()[..])
}

/// The cubin for PTX `text`'s source bundle, for the current device, through the code cache:
/// `None` when `text` carries no readable bundle or the bundle does not compile (both
/// logged; the caller keeps the driver's error).
fn cubin_from_bundle(b: &CudaBackend, text: &[u8], refused: CUresult) -> Option<Vec<u8>> {
    let bundle = match Bundle::find(std::str::from_utf8(text).ok()?) {
        Ok(Some(bundle)) => bundle,
        Ok(None) => return None,
        Err(e) => {
            log::error!("anycuda (CUDA): the driver refused this PTX ({refused}), and {e}");
            return None;
        }
    };
    let start = std::time::Instant::now();
    let compiled = target(b, &bundle)
        .ok_or_else(|| BundleCompileError {
            code: anycuda_api::nvrtc::nvrtcResult::NVRTC_ERROR_INVALID_OPTION,
            call: "cuCtxGetDevice",
            log: "no current device to compile for".into(),
        })
        .and_then(|t| {
            let lib = b.nvrtc.as_ref().ok();
            let key = lib.and_then(|l| {
                anycuda_rtc::rtc_bundle::key_fields(
                    "anycuda-cuda bundle cubin 1",
                    &t,
                    &l.path,
                    l.version,
                )
            });
            anycuda_rtc::rtc_bundle::cached(key, &bundle, plausible_cubin, || {
                anycuda_rtc::rtc_bundle::compile(
                    b,
                    &bundle,
                    Some(&format!("--gpu-architecture={t}")),
                )
            })
            .map(|(code, hit)| (code, hit, t))
        });
    match compiled {
        Ok((code, hit, t)) => {
            log::warn!(
                "anycuda (CUDA): the driver refused the PTX of {} ({refused}); its source \
                 bundle ({} headers) {} for {t} in {:.0?} loads instead",
                bundle.name,
                bundle.headers.len(),
                if hit {
                    "cached as a cubin"
                } else {
                    "compiled by NVRTC into a cubin"
                },
                start.elapsed()
            );
            Some(code)
        }
        Err(e) => {
            log::error!(
                "anycuda (CUDA): the driver refused the PTX of {} ({refused}), and its source \
                 bundle did not compile: {e}",
                bundle.name
            );
            None
        }
    }
}

/// `first`, the driver's answer for `image`; when that is a [`rescuable`] refusal of PTX with
/// a source bundle, `load` of the cubin compiled from the bundle if it succeeds, else `first`.
///
/// # Safety
/// `image` is NULL or the caller's image as `cuModuleLoadData` requires it.
unsafe fn retry_image(
    b: &CudaBackend,
    first: CUresult,
    image: *const c_void,
    load: impl FnOnce(*const c_void) -> CUresult,
) -> CUresult {
    if !rescuable(first) {
        return first;
    }
    // SAFETY: the caller's contract.
    let Some(text) = (unsafe { anycuda_rtc::params::text_image(image) }) else {
        return first;
    };
    retry_text(b, first, text, load)
}

/// [`retry_image`] for PTX text in hand.
fn retry_text(
    b: &CudaBackend,
    first: CUresult,
    text: &[u8],
    load: impl FnOnce(*const c_void) -> CUresult,
) -> CUresult {
    let Some(code) = cubin_from_bundle(b, text, first) else {
        return first;
    };
    match load(code.as_ptr().cast()) {
        CUresult::CUDA_SUCCESS => CUresult::CUDA_SUCCESS,
        r => {
            log::error!(
                "anycuda (CUDA): the cubin compiled from the source bundle did not load ({r})"
            );
            first
        }
    }
}

/// [`retry_image`] for a file's image (`cuModuleLoad`, `cuLibraryLoadFromFile`): the file is
/// read only after the driver refused it.
///
/// # Safety
/// `fname` is NULL or NUL-terminated.
unsafe fn retry_file(
    b: &CudaBackend,
    first: CUresult,
    fname: *const c_char,
    load: impl FnOnce(*const c_void) -> CUresult,
) -> CUresult {
    if !rescuable(first) {
        return first;
    }
    // SAFETY: the caller's contract.
    match unsafe { file_text(fname) } {
        Some(text) => retry_text(b, first, &text, load),
        None => first,
    }
}

/// `cuModuleLoadData`, rescued from a source bundle (module docs).
///
/// # Safety
/// CUDA's contract.
pub(crate) unsafe fn cuModuleLoadData(
    b: &CudaBackend,
    module: *mut CUmodule,
    image: *const c_void,
) -> CUresult {
    // SAFETY: the caller's contract, forwarded.
    let first = unsafe { call!(b.driver, NO_LIB, NO_FN, cuModuleLoadData(module, image)) };
    // SAFETY: as above; the retry loads a cubin of ours instead of the image.
    unsafe {
        retry_image(b, first, image, |code| {
            call!(b.driver, NO_LIB, NO_FN, cuModuleLoadData(module, code))
        })
    }
}

/// `cuModuleLoadDataEx`, rescued from a source bundle (module docs); the JIT options go with
/// the cubin too.
///
/// # Safety
/// CUDA's contract.
pub(crate) unsafe fn cuModuleLoadDataEx(
    b: &CudaBackend,
    module: *mut CUmodule,
    image: *const c_void,
    numOptions: c_uint,
    options: *mut CUjit_option,
    optionValues: *mut *mut c_void,
) -> CUresult {
    // SAFETY: the caller's contract, forwarded.
    let first = unsafe {
        call!(
            b.driver,
            NO_LIB,
            NO_FN,
            cuModuleLoadDataEx(module, image, numOptions, options, optionValues)
        )
    };
    // SAFETY: as above.
    unsafe {
        retry_image(b, first, image, |code| {
            call!(
                b.driver,
                NO_LIB,
                NO_FN,
                cuModuleLoadDataEx(module, code, numOptions, options, optionValues)
            )
        })
    }
}

/// `cuModuleLoad`, rescued from a source bundle (module docs).
///
/// # Safety
/// CUDA's contract.
pub(crate) unsafe fn cuModuleLoad(
    b: &CudaBackend,
    module: *mut CUmodule,
    fname: *const c_char,
) -> CUresult {
    // SAFETY: the caller's contract, forwarded.
    let first = unsafe { call!(b.driver, NO_LIB, NO_FN, cuModuleLoad(module, fname)) };
    // SAFETY: as above.
    unsafe {
        retry_file(b, first, fname, |code| {
            call!(b.driver, NO_LIB, NO_FN, cuModuleLoadData(module, code))
        })
    }
}

/// `cuLibraryLoadData`, rescued from a source bundle (module docs; a library's PTX is checked at
/// once, [`check_lazy_library`]); every option goes with the cubin too.
///
/// # Safety
/// CUDA's contract.
#[allow(clippy::too_many_arguments)] // CUDA's signature
pub(crate) unsafe fn cuLibraryLoadData(
    b: &CudaBackend,
    library: *mut CUlibrary,
    code: *const c_void,
    jitOptions: *mut CUjit_option,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut CUlibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> CUresult {
    // Option counts with NULL arrays: NVIDIA's driver crashed on them.
    let checks = [
        anycuda_api::arg_checks::options(numJitOptions, jitOptions, jitOptionsValues),
        anycuda_api::arg_checks::options(numLibraryOptions, libraryOptions, libraryOptionValues),
    ];
    if let Some(refused) = checks.into_iter().flatten().next() {
        return refused;
    }
    // SAFETY: the caller's contract.
    let load = unsafe {
        library_loader(
            b,
            library,
            jitOptions,
            jitOptionsValues,
            numJitOptions,
            libraryOptions,
            libraryOptionValues,
            numLibraryOptions,
        )
    };
    let first = load(code);
    if first == CUresult::CUDA_SUCCESS {
        // SAFETY: the caller's image, which the driver accepted.
        let text = unsafe { anycuda_rtc::params::text_image(code) };
        // SAFETY: `library` was just written by the successful load.
        return unsafe { check_lazy_library(b, library, text, load) };
    }
    // SAFETY: the caller's image.
    unsafe { retry_image(b, first, code, load) }
}

/// `cuLibraryLoadFromFile`, rescued from a source bundle (as [`cuLibraryLoadData`]).
///
/// # Safety
/// CUDA's contract.
#[allow(clippy::too_many_arguments)] // CUDA's signature
pub(crate) unsafe fn cuLibraryLoadFromFile(
    b: &CudaBackend,
    library: *mut CUlibrary,
    fileName: *const c_char,
    jitOptions: *mut CUjit_option,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut CUlibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> CUresult {
    // SAFETY: the caller's contract, forwarded.
    let first = unsafe {
        call!(
            b.driver,
            NO_LIB,
            NO_FN,
            cuLibraryLoadFromFile(
                library,
                fileName,
                jitOptions,
                jitOptionsValues,
                numJitOptions,
                libraryOptions,
                libraryOptionValues,
                numLibraryOptions
            )
        )
    };
    // SAFETY: the caller's contract.
    let load = unsafe {
        library_loader(
            b,
            library,
            jitOptions,
            jitOptionsValues,
            numJitOptions,
            libraryOptions,
            libraryOptionValues,
            numLibraryOptions,
        )
    };
    if first == CUresult::CUDA_SUCCESS {
        // SAFETY: non-NULL and NUL-terminated (the driver read the file by this name).
        let text = unsafe { file_text(fileName) };
        // SAFETY: `library` was just written by the successful load.
        return unsafe { check_lazy_library(b, library, text.as_deref(), load) };
    }
    // SAFETY: the caller's contract.
    unsafe { retry_file(b, first, fileName, load) }
}

/// `cuLibraryLoadData` of an image with the caller's library options: what a library load
/// retries with the cubin (`cuLibraryLoadFromFile`'s retry too, from the file's text).
///
/// # Safety
/// CUDA's contract for `cuLibraryLoadData`, but for the image, which the closure takes.
#[allow(clippy::too_many_arguments)] // CUDA's signature
unsafe fn library_loader<'a>(
    b: &'a CudaBackend,
    library: *mut CUlibrary,
    jitOptions: *mut CUjit_option,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut CUlibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> impl Fn(*const c_void) -> CUresult + 'a {
    move |image| {
        // SAFETY: the caller's contract, with a complete image.
        unsafe {
            call!(
                b.driver,
                NO_LIB,
                NO_FN,
                cuLibraryLoadData(
                    library,
                    image,
                    jitOptions,
                    jitOptionsValues,
                    numJitOptions,
                    libraryOptions,
                    libraryOptionValues,
                    numLibraryOptions
                )
            )
        }
    }
}

/// Libraries load lazily: the driver compiles a library's PTX when a context first needs it,
/// so a refusal shows only then, at `cuLibraryGetKernel`, where nothing can be loaded again.
/// PTX that carries a source bundle is therefore loaded into the current context at once
/// (`cuLibraryGetModule`), as `CUDA_MODULE_LOADING=EAGER` would do; if the driver refuses it
/// there, the library is unloaded and loaded again from the bundle's cubin, or the refusal is
/// the answer, as under eager loading. Other images, and PTX without a bundle, stay lazy; with
/// no current context nothing is forced.
///
/// # Safety
/// `library` holds the library a load just returned; `text` is that library's PTX, if it is
/// text.
unsafe fn check_lazy_library(
    b: &CudaBackend,
    library: *mut CUlibrary,
    text: Option<&[u8]>,
    load: impl FnOnce(*const c_void) -> CUresult,
) -> CUresult {
    let Some(text) = text.filter(|t| has_bundle(t)) else {
        return CUresult::CUDA_SUCCESS;
    };
    // SAFETY: written by the successful load (the caller's contract).
    let lib = unsafe { *library };
    let mut module: CUmodule = core::ptr::null_mut();
    // SAFETY: a live library; valid out-pointer.
    let r = unsafe {
        call!(
            b.driver,
            NO_LIB,
            NO_FN,
            cuLibraryGetModule(&mut module, lib)
        )
    };
    if !rescuable(r) {
        return CUresult::CUDA_SUCCESS;
    }
    // SAFETY: the library loaded above, unloaded once; the retry writes another or fails.
    unsafe { call!(b.driver, NO_LIB, NO_FN, cuLibraryUnload(lib)) };
    retry_text(b, r, text, load)
}

/// Whether PTX text carries a source bundle's first line (the bundle is read only if so).
fn has_bundle(text: &[u8]) -> bool {
    let p = anycuda_rtc::rtc_bundle::LINE_PREFIX.as_bytes();
    text.windows(p.len()).any(|w| w == p)
}

/// A file's text, up to its first NUL, if it can be read and is text (not a binary image).
///
/// # Safety
/// `fname` is NULL or NUL-terminated.
unsafe fn file_text(fname: *const c_char) -> Option<Vec<u8>> {
    if fname.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let path = unsafe { CStr::from_ptr(fname) }.to_str().ok()?;
    let mut bytes = std::fs::read(path).ok()?;
    // Text up to its first NUL, as the driver reads a PTX file; NUL-terminated for the check.
    bytes.truncate(bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len()));
    bytes.push(0);
    // SAFETY: NUL-terminated bytes, alive for the call.
    let n = unsafe { anycuda_rtc::params::text_image(bytes.as_ptr().cast()) }?.len();
    bytes.truncate(n);
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_driver_refusing_the_ptx_itself_is_rescued() {
        for r in [
            CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
            CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU,
            CUresult::CUDA_ERROR_INVALID_PTX,
            CUresult::CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
            CUresult::CUDA_ERROR_JIT_COMPILATION_DISABLED,
        ] {
            assert!(rescuable(r), "{r}");
        }
        for r in [
            CUresult::CUDA_SUCCESS,
            CUresult::CUDA_ERROR_INVALID_VALUE,
            CUresult::CUDA_ERROR_INVALID_CONTEXT,
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            CUresult::CUDA_ERROR_INVALID_IMAGE,
            CUresult::CUDA_ERROR_FILE_NOT_FOUND,
            CUresult::CUDA_ERROR_NOT_INITIALIZED,
        ] {
            assert!(!rescuable(r), "{r}");
        }
    }

    #[test]
    fn a_cubin_is_an_elf_for_nvidia_gpus() {
        let mut elf = b"\x7fELF".to_vec();
        elf.resize(20, 0);
        assert!(!plausible_cubin(&elf));
        elf[18..20].copy_from_slice(&190u16.to_le_bytes());
        assert!(plausible_cubin(&elf));
        elf[18..20].copy_from_slice(&224u16.to_le_bytes());
        assert!(!plausible_cubin(&elf), "an AMD code object");
        assert!(!plausible_cubin(b"// PTX\n.version 9.0\n"));
        assert!(!plausible_cubin(b""));
    }
}
