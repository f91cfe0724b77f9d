//! Validation of NVRTC arguments shared by both backends, so bad input gets NVRTC's error
//! instead of reaching a vendor compiler that might crash on it.

use crate::nvrtc::nvrtcResult;
use crate::rtc_headers::{builtin_headers, RtcTarget};
use core::ffi::{c_char, c_int};
use std::ffi::{CStr, CString};

/// Returns `NVRTC_ERROR_INVALID_INPUT` from the enclosing function when any pointer is null
/// (the check NVRTC itself skips before dereferencing an out-pointer).
#[macro_export]
macro_rules! nvrtc_non_null {
    ($($p:expr),+) => {
        if $($p.is_null())||+ {
            return $crate::nvrtc::nvrtcResult::NVRTC_ERROR_INVALID_INPUT;
        }
    };
}

/// The header list handed to the vendor compiler: the caller's headers, then anycuda's built-in
/// ones that the caller did not override (same include name).
#[derive(Debug)]
pub struct Headers {
    /// Include names, parallel to `sources`.
    pub names: Vec<*const c_char>,
    /// Header sources.
    pub sources: Vec<*const c_char>,
    _owned: Vec<CString>,
}

impl Headers {
    /// The count as the C API wants it.
    pub fn len(&self) -> c_int {
        // Bounded by the caller's c_int count plus a few dozen built-ins.
        self.names.len() as c_int
    }
    /// Whether there are no headers at all.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    /// Pointer to the include-name array, null when empty.
    pub fn names_ptr(&self) -> *const *const c_char {
        if self.names.is_empty() {
            core::ptr::null()
        } else {
            self.names.as_ptr()
        }
    }
    /// Pointer to the source array, null when empty.
    pub fn sources_ptr(&self) -> *const *const c_char {
        if self.sources.is_empty() {
            core::ptr::null()
        } else {
            self.sources.as_ptr()
        }
    }
}

/// Validates `nvrtcCreateProgram`'s header arrays and merges in the built-in headers.
///
/// # Errors
/// `NVRTC_ERROR_INVALID_INPUT` for a negative count, a null array with a positive count, or a
/// null entry.
///
/// # Safety
/// When non-null, `headers` and `include_names` must point to `num_headers` pointers, each null
/// or a NUL-terminated string.
pub unsafe fn merge_headers(
    target: RtcTarget,
    num_headers: c_int,
    headers: *const *const c_char,
    include_names: *const *const c_char,
) -> Result<Headers, nvrtcResult> {
    let invalid = nvrtcResult::NVRTC_ERROR_INVALID_INPUT;
    let n = usize::try_from(num_headers).map_err(|_| invalid)?;
    if n > 0 && (headers.is_null() || include_names.is_null()) {
        return Err(invalid);
    }
    let mut names = Vec::with_capacity(n);
    let mut sources = Vec::with_capacity(n);
    let mut user_names: Vec<&CStr> = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: both arrays hold n entries (caller contract, non-null checked above).
        let (src, name) = unsafe { (*headers.add(i), *include_names.add(i)) };
        if src.is_null() || name.is_null() {
            return Err(invalid);
        }
        // SAFETY: non-null entries are NUL-terminated strings (caller contract).
        user_names.push(unsafe { CStr::from_ptr(name) });
        names.push(name);
        sources.push(src);
    }
    let mut owned = Vec::new();
    let builtins = if builtins_enabled() {
        builtin_headers(target)
    } else {
        &[]
    };
    for (name, src) in builtins {
        if user_names.iter().any(|u| u.to_bytes() == name.as_bytes()) {
            continue;
        }
        let (Ok(cn), Ok(cs)) = (CString::new(*name), CString::new(*src)) else {
            continue; // built-ins are ours and NUL-free; skip rather than fail if one is not
        };
        names.push(cn.as_ptr());
        sources.push(cs.as_ptr());
        owned.push(cn);
        owned.push(cs);
    }
    Ok(Headers {
        names,
        sources,
        _owned: owned,
    })
}

/// The variable that turns the built-in headers off (`0`, `false`, `off`, `no`).
pub const BUILTIN_HEADERS_ENV: &str = "ANYCUDA_BUILTIN_HEADERS";

/// Whether built-in headers are merged in (read at each `nvrtcCreateProgram`).
pub fn builtins_enabled() -> bool {
    std::env::var(BUILTIN_HEADERS_ENV).map_or(true, |v| {
        !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "off" | "no"
        )
    })
}

/// Validates `nvrtcCompileProgram`'s option array.
///
/// # Errors
/// `NVRTC_ERROR_INVALID_INPUT` for a negative count, a null array with a positive count, or a
/// null option.
///
/// # Safety
/// When non-null, `options` must point to `num_options` pointers, each null or a NUL-terminated
/// string that outlives the returned slice.
pub unsafe fn options<'a>(
    num_options: c_int,
    options: *const *const c_char,
) -> Result<Vec<&'a CStr>, nvrtcResult> {
    let invalid = nvrtcResult::NVRTC_ERROR_INVALID_INPUT;
    let n = usize::try_from(num_options).map_err(|_| invalid)?;
    if n > 0 && options.is_null() {
        return Err(invalid);
    }
    (0..n)
        .map(|i| {
            // SAFETY: the array holds n entries (caller contract).
            let p = unsafe { *options.add(i) };
            if p.is_null() {
                Err(invalid)
            } else {
                // SAFETY: non-null entries are NUL-terminated (caller contract).
                Ok(unsafe { CStr::from_ptr(p) })
            }
        })
        .collect()
}

/// The deepest bracket nesting anycuda lets a vendor compiler see: `(`, `[` and `{` together.
///
/// Measured with NVRTC 13.0 (x86-64) on threads of known stack size: about 1 KiB of stack per
/// level of `((...))` inside a function, so 256 MiB overflows at 300,000 levels and 1 GiB at
/// 1,000,000; a 2 MiB thread (Rust's default) overflows below 1,000. [`COMPILE_STACK`] with
/// this limit leaves a margin of three. hipRTC stops at 256 levels by itself.
pub const MAX_NESTING: usize = 100_000;

/// The stack reserved for the thread every compile runs on: 1 GiB of address space, which costs
/// memory only for the pages a deep program touches.
pub const COMPILE_STACK: usize = 1 << 30;

/// The deepest nesting of `(`, `[` and `{` in `src` (counted together, comments and literals
/// included: an over-estimate errs on the side of refusing).
pub fn nesting_depth(src: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for &b in src {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The deepest nesting over a program's source and its headers.
///
/// # Safety
/// `src` and every entry of `headers.sources` must be NUL-terminated strings.
pub unsafe fn program_depth(src: *const c_char, headers: &Headers) -> usize {
    core::iter::once(src)
        .chain(headers.sources.iter().copied())
        // SAFETY: NUL-terminated (caller contract).
        .map(|p| nesting_depth(unsafe { CStr::from_ptr(p) }.to_bytes()))
        .max()
        .unwrap_or(0)
}

/// The log line for a program nested deeper than [`MAX_NESTING`].
pub fn too_deep_note(depth: usize) -> String {
    format!(
        "anycuda: error: brackets nest {depth} levels deep; the limit is {MAX_NESTING} \
         (deeper input overflows the compiler's stack)\n"
    )
}

/// Runs `f` (a compile) on a fresh thread with a [`COMPILE_STACK`] stack, so the depth a
/// compiler reaches does not depend on the caller's thread; NVRTC on a 2 MiB thread aborts on
/// inputs it handles on the main thread. When no such thread can be made (address space
/// exhausted), `f` runs on the caller's thread. `None` only if `f` panicked (the caller reports
/// `NVRTC_ERROR_INTERNAL_ERROR`).
pub fn on_compile_stack<R: Send>(f: impl FnOnce() -> R + Send) -> Option<R> {
    let mut f = Some(f);
    let ran = std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("anycuda-compile".into())
            .stack_size(COMPILE_STACK)
            .spawn_scoped(s, || f.take().map(|f| f()));
        match spawned {
            Ok(h) => Some(h.join().ok().flatten()),
            Err(e) => {
                log::warn!("no {COMPILE_STACK}-byte compile thread ({e}); compiling inline");
                None
            }
        }
    });
    match ran {
        Some(r) => r,
        None => f.map(|f| f()),
    }
}

/// Carries raw pointers into the compile thread of [`on_compile_stack`]; sound because that
/// thread is joined before the call that made the pointers returns.
#[derive(Debug)]
pub struct AssertSend<T>(pub T);

// SAFETY: see the type's doc: the pointers are used only while their owner waits for the thread.
unsafe impl<T> Send for AssertSend<T> {}

impl<T> AssertSend<T> {
    /// The value (a method, so a closure captures the whole wrapper, not its field).
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// Copies `data` to a caller buffer.
///
/// # Errors
/// `NVRTC_ERROR_INVALID_INPUT` when `out` is null.
///
/// # Safety
/// A non-null `out` must have room for `data.len()` bytes (the size the matching `*Size` call
/// reported).
pub unsafe fn copy_out(data: &[u8], out: *mut c_char) -> Result<(), nvrtcResult> {
    if out.is_null() {
        return Err(nvrtcResult::NVRTC_ERROR_INVALID_INPUT);
    }
    // SAFETY: room for data.len() bytes (caller contract); regions cannot overlap (ours is owned).
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), out.cast::<u8>(), data.len()) };
    Ok(())
}

/// Writes a size to a caller pointer.
///
/// # Errors
/// `NVRTC_ERROR_INVALID_INPUT` when `out` is null.
///
/// # Safety
/// A non-null `out` must be writable.
pub unsafe fn write_size(size: usize, out: *mut usize) -> Result<(), nvrtcResult> {
    if out.is_null() {
        return Err(nvrtcResult::NVRTC_ERROR_INVALID_INPUT);
    }
    // SAFETY: non-null and writable (caller contract).
    unsafe { *out = size };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_headers_override_builtins_by_name() {
        let all = builtin_headers(RtcTarget::Nvrtc);
        let name = CString::new(all[0].0).unwrap();
        let src = c"// mine";
        let (names, srcs) = ([name.as_ptr()], [src.as_ptr()]);
        let h =
            unsafe { merge_headers(RtcTarget::Nvrtc, 1, srcs.as_ptr(), names.as_ptr()) }.unwrap();
        assert_eq!(
            h.len() as usize,
            all.len(),
            "the user's header replaces the built-in one"
        );
        assert_eq!(h.sources[0], src.as_ptr());
        let got: Vec<&CStr> = h
            .names
            .iter()
            .map(|p| unsafe { CStr::from_ptr(*p) })
            .collect();
        assert_eq!(got.iter().filter(|n| **n == name.as_c_str()).count(), 1);
    }

    #[test]
    fn bad_header_arrays_are_invalid_input() {
        let bad = nvrtcResult::NVRTC_ERROR_INVALID_INPUT;
        let null = core::ptr::null();
        assert_eq!(
            unsafe { merge_headers(RtcTarget::Hiprtc, -1, null, null) }.unwrap_err(),
            bad
        );
        assert_eq!(
            unsafe { merge_headers(RtcTarget::Hiprtc, 2, null, null) }.unwrap_err(),
            bad
        );
        let entries = [core::ptr::null::<c_char>()];
        assert_eq!(
            unsafe { merge_headers(RtcTarget::Hiprtc, 1, entries.as_ptr(), entries.as_ptr()) }
                .unwrap_err(),
            bad
        );
        assert_eq!(unsafe { options(1, entries.as_ptr()) }.unwrap_err(), bad);
        assert_eq!(unsafe { options(-3, null) }.unwrap_err(), bad);
    }
}
