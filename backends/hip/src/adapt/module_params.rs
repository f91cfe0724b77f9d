//! Kernel parameter layouts for `cuFuncGetParamInfo` / `cuFuncGetParamCount`, and kernel names
//! for `cuFuncGetName`, which HIP lacks.
//!
//! Every module load that succeeds reads the layouts from the image the caller handed over
//! ([`anycuda_rtc::params`]: AMD code objects and offload bundles, PTX and cubins on HIP's
//! NVIDIA platform), once, outside the lock; `cuModuleGetFunction` attaches its kernel's layout
//! and its name to the function handle; `cuModuleUnload` forgets both. A function whose image could not be
//! read (an unsupported format, or a handle from elsewhere: `cuKernelGetFunction`) has no
//! layout, and the queries answer not-supported for it, as before.

use anycuda_api::driver::{CUfunction, CUmodule};
use anycuda_rtc::params::{kernel_params, Param};
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::sync::{Arc, Mutex, MutexGuard};

/// One kernel's parameters.
pub(crate) type Layout = Arc<[Param]>;

/// One module's kernels' layouts, by name.
type Kernels = Arc<HashMap<Box<str>, Layout>>;

#[derive(Default)]
struct Registry {
    /// Module → its kernels' layouts (`None`: the image could not be read).
    modules: HashMap<usize, Option<Kernels>>,
    /// Function → (its module, its layout, its name). The name is boxed so the pointer
    /// `cuFuncGetName` hands out stays put until the module is unloaded.
    functions: HashMap<usize, (usize, Option<Layout>, Box<CStr>)>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn registry() -> MutexGuard<'static, Option<Registry>> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records the layouts of a module just loaded from `image` (`None`: not available).
pub(crate) fn module_loaded(module: CUmodule, image: Option<&[u8]>) {
    if module.is_null() {
        return;
    }
    let layouts = image.and_then(|i| match kernel_params(i) {
        Ok(ks) => Some(Arc::new(
            ks.into_iter()
                .map(|k| (k.name.into_boxed_str(), Layout::from(k.params)))
                .collect::<HashMap<_, _>>(),
        )),
        Err(e) => {
            log::debug!("anycuda-hip: no parameter info for module {module:p}: {e}");
            None
        }
    });
    let mut r = registry();
    let r = r.get_or_insert_with(Registry::default);
    // A handle reused after an unload we did not see: its old functions are dead.
    r.functions.retain(|_, (m, _, _)| *m != module as usize);
    r.modules.insert(module as usize, layouts);
}

/// Attaches kernel `name` and its layout (if its module's image was read) to `function`.
pub(crate) fn function_found(function: CUfunction, module: CUmodule, name: &[u8]) {
    if function.is_null() {
        return;
    }
    let mut r = registry();
    let r = r.get_or_insert_with(Registry::default);
    let layout = r
        .modules
        .get(&(module as usize))
        .and_then(Option::as_ref)
        .and_then(|m| {
            core::str::from_utf8(name)
                .ok()
                .and_then(|n| m.get(n).cloned())
        });
    // A C name has no interior NUL (it came from a C string); the empty name is the fallback.
    let name = CString::new(name).unwrap_or_default().into_boxed_c_str();
    r.functions
        .insert(function as usize, (module as usize, layout, name));
}

/// Forgets an unloaded module and its functions.
pub(crate) fn module_unloaded(module: CUmodule) {
    if let Some(r) = registry().as_mut() {
        r.modules.remove(&(module as usize));
        r.functions.retain(|_, (m, _, _)| *m != module as usize);
    }
}

/// The layout of `function`, if known.
pub(crate) fn layout(function: CUfunction) -> Option<Layout> {
    registry()
        .as_ref()?
        .functions
        .get(&(function as usize))?
        .1
        .clone()
}

/// The name `function` was found by, as a C string that lives until its module is unloaded;
/// `None` for a handle `cuModuleGetFunction` did not hand out (or one since unloaded).
pub(crate) fn name(function: CUfunction) -> Option<*const core::ffi::c_char> {
    registry()
        .as_ref()?
        .functions
        .get(&(function as usize))
        .map(|f| f.2.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HipBackend;
    use anycuda_api::driver::CUresult;

    const PTX: &[u8] = b".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(\n.param .u8 k_param_0,\n.param .align 16 .b8 k_param_1[32],\n\
        .param .u64 k_param_2\n)\n{ ret; }\n.visible .entry none()\n{ ret; }\n";

    fn fake(n: usize) -> *mut core::ffi::c_void {
        n as *mut core::ffi::c_void
    }

    /// The two queries answer from the layout registered at load, refuse an index past the
    /// end with invalid value (as CUDA), and answer not-supported for functions without one.
    #[test]
    fn queries_answer_from_the_registered_layout() {
        let b = HipBackend::load();
        if b.native_hip().is_none() {
            eprintln!("SKIP: no HIP library");
            return;
        }
        let (m, f, g, unknown) = (
            fake(0x7000_0010),
            fake(0x7000_0020),
            fake(0x7000_0030),
            fake(0x7000_0040),
        );
        module_loaded(m.cast(), Some(PTX));
        function_found(f.cast(), m.cast(), b"k");
        function_found(g.cast(), m.cast(), b"none");
        let (mut off, mut size, mut n) = (usize::MAX, usize::MAX, usize::MAX);
        // SAFETY: the fake handles never reach HIP (the queries answer from the registry);
        // the out-pointers are valid or deliberately NULL.
        unsafe {
            use super::super::module::{cuFuncGetParamCount, cuFuncGetParamInfo};
            assert_eq!(
                cuFuncGetParamCount(&b, f.cast(), &mut n),
                CUresult::CUDA_SUCCESS
            );
            assert_eq!(n, 3);
            let mut got = Vec::new();
            for i in 0..n {
                assert_eq!(
                    cuFuncGetParamInfo(&b, f.cast(), i, &mut off, &mut size),
                    CUresult::CUDA_SUCCESS
                );
                got.push((off, size));
            }
            assert_eq!(got, [(0, 1), (16, 32), (48, 8)]);
            assert_eq!(
                cuFuncGetParamInfo(&b, f.cast(), 1, &mut off, core::ptr::null_mut()),
                CUresult::CUDA_SUCCESS
            );
            assert_eq!(off, 16);
            assert_eq!(
                cuFuncGetParamInfo(&b, f.cast(), 3, &mut off, &mut size),
                CUresult::CUDA_ERROR_INVALID_VALUE
            );
            assert_eq!(
                cuFuncGetParamInfo(&b, f.cast(), 0, core::ptr::null_mut(), &mut size),
                CUresult::CUDA_ERROR_INVALID_VALUE
            );
            assert_eq!(
                cuFuncGetParamCount(&b, g.cast(), &mut n),
                CUresult::CUDA_SUCCESS
            );
            assert_eq!(n, 0);
            assert_eq!(
                cuFuncGetParamInfo(&b, g.cast(), 0, &mut off, &mut size),
                CUresult::CUDA_ERROR_INVALID_VALUE
            );
            assert_eq!(
                cuFuncGetParamCount(&b, unknown.cast(), &mut n),
                CUresult::CUDA_ERROR_NOT_SUPPORTED
            );
            assert_eq!(
                cuFuncGetParamCount(&b, core::ptr::null_mut(), &mut n),
                CUresult::CUDA_ERROR_INVALID_HANDLE
            );
            assert_eq!(
                cuFuncGetParamCount(&b, f.cast(), core::ptr::null_mut()),
                CUresult::CUDA_ERROR_INVALID_VALUE
            );
            // The names the functions were found by; NULL arguments are invalid values and a
            // handle never handed out is a bad handle (cuda.bindings' test_cuFuncGetName_failure).
            use super::super::module::cuFuncGetName;
            let mut name = core::ptr::null();
            assert_eq!(
                cuFuncGetName(&b, &mut name, f.cast()),
                CUresult::CUDA_SUCCESS
            );
            assert_eq!(core::ffi::CStr::from_ptr(name), c"k");
            assert_eq!(
                cuFuncGetName(&b, &mut name, g.cast()),
                CUresult::CUDA_SUCCESS
            );
            assert_eq!(core::ffi::CStr::from_ptr(name), c"none");
            assert_eq!(
                cuFuncGetName(&b, &mut name, core::ptr::null_mut()),
                CUresult::CUDA_ERROR_INVALID_VALUE
            );
            assert_eq!(
                cuFuncGetName(&b, core::ptr::null_mut(), f.cast()),
                CUresult::CUDA_ERROR_INVALID_VALUE
            );
            assert_eq!(
                cuFuncGetName(&b, &mut name, unknown.cast()),
                CUresult::CUDA_ERROR_INVALID_HANDLE
            );
            // Unloading forgets the functions.
            module_unloaded(m.cast());
            assert_eq!(
                cuFuncGetName(&b, &mut name, f.cast()),
                CUresult::CUDA_ERROR_INVALID_HANDLE
            );
            assert_eq!(
                cuFuncGetParamCount(&b, f.cast(), &mut n),
                CUresult::CUDA_ERROR_NOT_SUPPORTED
            );
        }
        // An image that cannot be read: the module's functions have no layout.
        let m2 = fake(0x7000_0050);
        module_loaded(m2.cast(), Some(b"\x7fELF\x01\x01garbage"));
        function_found(f.cast(), m2.cast(), b"k");
        assert!(layout(f.cast()).is_none());
        module_loaded(m2.cast(), None);
        function_found(f.cast(), m2.cast(), b"k");
        assert!(layout(f.cast()).is_none());
        module_unloaded(m2.cast());
    }
}
