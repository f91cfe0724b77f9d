//! Loaded code: [`ObjectCode`] (bytes from the compiler, memory or a file), the [`Module`] it
//! becomes in a context, and the [`Kernel`]s in it, with their attributes, occupancy and
//! parameter layout.

use super::error::{check, CoreError, Result};
use super::program::CodeType;
use super::{Context, Device};
use crate::driver::*;
use anycuda_rtc::params::{kernel_params, KernelParams};
use std::ffi::CString;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// Compiled device code and its kind, not yet loaded anywhere.
///
/// [`ObjectCode::kernel`] loads it lazily, once per context, into the primary context of the
/// device current on the calling thread (make one current with `Device::set_current` first,
/// as in cuda.core); [`ObjectCode::load`] loads it into a context you name. Loaded modules
/// are cached in the `ObjectCode` and unloaded when both it and every [`Kernel`] taken from
/// them are gone.
///
/// `Send` and `Sync`: the bytes are immutable and the module cache is behind a mutex.
///
/// ```no_run
/// use anycuda::core::{CodeType, Device, ObjectCode};
/// let dev = Device::new(0)?;
/// let ctx = dev.set_current()?;
/// let code = ObjectCode::from_file("kernels.cubin", CodeType::Cubin)?;
/// let kernel = code.kernel("saxpy")?;               // loads into `ctx`, the current one
/// let same_module = code.load(&ctx)?;              // the cached module
/// assert_eq!(same_module.as_raw(), kernel.module().as_raw());
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct ObjectCode {
    code: Arc<[u8]>,
    kind: CodeType,
    lowered: Vec<(String, String)>,
    modules: Mutex<Vec<Module>>,
}

impl ObjectCode {
    pub(crate) fn from_compiler(
        code: Vec<u8>,
        kind: CodeType,
        lowered: Vec<(String, String)>,
    ) -> Self {
        Self {
            code: code.into(),
            kind,
            lowered,
            modules: Mutex::new(Vec::new()),
        }
    }

    /// Code from memory, of the given kind (PTX text, a cubin or AMD code object, LTO-IR, a
    /// fat binary). The bytes are copied; nothing is checked until the code is loaded.
    ///
    /// # Errors
    /// A usage error for empty code.
    pub fn from_bytes(code: impl Into<Vec<u8>>, kind: CodeType) -> Result<Self> {
        let code = code.into();
        if code.is_empty() {
            return Err(CoreError::usage("ObjectCode::from_bytes", "empty code"));
        }
        Ok(Self::from_compiler(code, kind, Vec::new()))
    }

    /// Code from memory whose kind its first bytes tell, as `cuModuleLoadData` decides: an ELF
    /// header is a cubin (or, on HIP, an AMD code object), a fat-binary or clang offload-bundle
    /// header a fat binary, anything else PTX text (a trailing NUL is dropped). For images of
    /// unknown origin, such as the cudarc facade's `load_module` receives.
    ///
    /// # Errors
    /// As [`ObjectCode::from_bytes`].
    pub fn from_image(code: impl Into<Vec<u8>>) -> Result<Self> {
        let code = code.into();
        match image_kind(&code) {
            CodeType::Ptx => Self::from_ptx(code),
            kind => Self::from_bytes(code, kind),
        }
    }

    /// [`ObjectCode::from_bytes`] for a cubin (or, on HIP, an AMD code object), as cuda.core's
    /// `ObjectCode.from_cubin`.
    ///
    /// # Errors
    /// As [`ObjectCode::from_bytes`].
    pub fn from_cubin(code: impl Into<Vec<u8>>) -> Result<Self> {
        Self::from_bytes(code, CodeType::Cubin)
    }

    /// [`ObjectCode::from_bytes`] for PTX text (a trailing NUL is dropped).
    ///
    /// # Errors
    /// As [`ObjectCode::from_bytes`].
    pub fn from_ptx(code: impl Into<Vec<u8>>) -> Result<Self> {
        let mut code = code.into();
        while code.last() == Some(&0) {
            code.pop();
        }
        Self::from_bytes(code, CodeType::Ptx)
    }

    /// [`ObjectCode::from_bytes`] for LTO-IR (link it with a [`Linker`](super::Linker)).
    ///
    /// # Errors
    /// As [`ObjectCode::from_bytes`].
    pub fn from_ltoir(code: impl Into<Vec<u8>>) -> Result<Self> {
        Self::from_bytes(code, CodeType::Ltoir)
    }

    /// [`ObjectCode::from_bytes`] for a fat binary.
    ///
    /// # Errors
    /// As [`ObjectCode::from_bytes`].
    pub fn from_fatbin(code: impl Into<Vec<u8>>) -> Result<Self> {
        Self::from_bytes(code, CodeType::Fatbin)
    }

    /// Code from a file, of the given kind.
    ///
    /// # Errors
    /// A usage error naming the file and the I/O error, or for an empty file.
    pub fn from_file(path: impl AsRef<Path>, kind: CodeType) -> Result<Self> {
        let path = path.as_ref();
        let code = std::fs::read(path).map_err(|e| {
            CoreError::usage("ObjectCode::from_file", format!("{}: {e}", path.display()))
        })?;
        if code.is_empty() {
            return Err(CoreError::usage(
                "ObjectCode::from_file",
                format!("{}: empty file", path.display()),
            ));
        }
        Ok(Self::from_compiler(code, kind, Vec::new()))
    }

    /// The code (for PTX, the text without a trailing NUL).
    pub fn code(&self) -> &[u8] {
        &self.code
    }

    /// What kind of code this is.
    pub fn code_type(&self) -> CodeType {
        self.kind
    }

    /// The mangled name the compiler gave a name expression of the program's options
    /// (`"scale<float>"` → `"_Z5scaleIfEvPT_"`), if it was one.
    pub fn lowered_name(&self, name_expression: &str) -> Option<&str> {
        self.lowered
            .iter()
            .find(|(e, _)| e == name_expression)
            .map(|(_, l)| l.as_str())
    }

    /// Every name expression and its lowered name, in the order the options gave them.
    pub fn lowered_names(&self) -> impl Iterator<Item = (&str, &str)> {
        self.lowered.iter().map(|(e, l)| (e.as_str(), l.as_str()))
    }

    /// Loads the code into `ctx` (`cuModuleLoadData`), or returns the module already loaded
    /// there.
    ///
    /// # Errors
    /// A usage error for [`CodeType::Ltoir`] (link it first); `CUDA_ERROR_INVALID_IMAGE` for
    /// a cubin or fat binary without its magic bytes (checked here, so such bytes never reach
    /// the driver's PTX reader); the driver's error (e.g. `CUDA_ERROR_INVALID_IMAGE`,
    /// `CUDA_ERROR_NO_BINARY_FOR_GPU`).
    pub fn load(&self, ctx: &Context) -> Result<Module> {
        if self.kind == CodeType::Ltoir {
            return Err(CoreError::usage(
                "ObjectCode::load",
                "LTO-IR cannot be loaded directly: link it with a Linker first",
            ));
        }
        let mut cache = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = cache.iter().find(|m| m.context().as_raw() == ctx.as_raw()) {
            return Ok(m.clone());
        }
        let m = Module::load_data(ctx, self.code.clone(), self.kind)?;
        cache.push(m.clone());
        Ok(m)
    }

    /// The kernel `name` (a name expression of the program's options, or the symbol itself:
    /// an `extern "C"` name or a mangled one), loading the code into the primary context of
    /// the device current on this thread first if needed.
    ///
    /// # Errors
    /// A usage error when no context is current, or the current one is not a device's
    /// primary context (use [`ObjectCode::load`] and [`Module::kernel`] then); the driver's
    /// errors from loading; `CUDA_ERROR_NOT_FOUND` for an unknown name.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let ctx = current_primary_context("ObjectCode::kernel")?;
        let symbol = self.lowered_name(name).unwrap_or(name);
        self.load(&ctx)?.kernel(symbol)
    }
}

impl std::fmt::Debug for ObjectCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectCode")
            .field("kind", &self.kind)
            .field("len", &self.code.len())
            .field("lowered", &self.lowered)
            .finish_non_exhaustive()
    }
}

/// The primary context of the device whose context is current on this thread.
pub(crate) fn current_primary_context(op: &'static str) -> Result<Context> {
    let mut cur: CUcontext = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    check("cuCtxGetCurrent", unsafe { cuCtxGetCurrent(&mut cur) })?;
    if cur.is_null() {
        return Err(CoreError::usage(
            op,
            "no context is current on this thread: call Device::set_current() first",
        ));
    }
    let mut dev: CUdevice = 0;
    // SAFETY: valid out-pointer.
    check("cuCtxGetDevice", unsafe { cuCtxGetDevice(&mut dev) })?;
    for i in 0..Device::count()? {
        let d = Device::new(i)?;
        if d.as_raw() == dev {
            let ctx = d.context()?;
            if ctx.as_raw() == cur {
                return Ok(ctx);
            }
            break;
        }
    }
    Err(CoreError::usage(
        op,
        "the current context is not a device's primary context: use ObjectCode::load(&ctx)",
    ))
}

/// The kind of a binary image by its magic bytes: ELF (a cubin or AMD code object), a CUDA fat
/// binary or a clang offload bundle (a fat binary), else PTX text. One rule for
/// [`ObjectCode::from_image`] and the check before `cuModuleLoadData`.
fn image_kind(code: &[u8]) -> CodeType {
    if code.starts_with(b"\x7fELF") {
        CodeType::Cubin
    } else if code.starts_with(&0xBA55_ED50u32.to_le_bytes())
        || code.starts_with(b"__CLANG_OFFLOAD_BUNDLE__")
    {
        CodeType::Fatbin
    } else {
        CodeType::Ptx
    }
}

struct ModuleInner {
    raw: CUmodule,
    ctx: Context,
    /// The image it was loaded from, for parameter counts the driver cannot give.
    image: Arc<[u8]>,
    /// The image's kernel parameter layouts, read on first need (`None`: unreadable).
    layouts: OnceLock<Option<Vec<KernelParams>>>,
}

// SAFETY: a CUmodule is a process-wide handle, usable from any thread with its context
// current; `Module` binds that context before every call that needs it.
unsafe impl Send for ModuleInner {}
// SAFETY: as above; the handle is never mutated after creation.
unsafe impl Sync for ModuleInner {}

impl ModuleInner {
    /// Unloads the module in its own context, whatever is current here, once: the handle is
    /// nulled, so a later call (the drop after [`Module::unload`]) does nothing.
    fn unload_once(&mut self) -> Result<()> {
        let raw = std::mem::replace(&mut self.raw, core::ptr::null_mut());
        if raw.is_null() {
            return Ok(());
        }
        self.ctx.bind()?;
        // SAFETY: we own the module, taken out above so it is unloaded once; no Kernel of it
        // is alive (each holds this Arc).
        check("cuModuleUnload", unsafe { cuModuleUnload(raw) })
    }
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        if let Err(e) = self.unload_once() {
            log::warn!("{e}");
        }
    }
}

/// Code loaded into one context (`CUmodule`); unloaded when the last clone and the last
/// [`Kernel`] from it are dropped. Holds its [`Context`] alive.
///
/// `Clone` (a reference count), `Send` and `Sync` (a module handle is usable from any thread).
#[derive(Clone)]
pub struct Module(Arc<ModuleInner>);

impl Module {
    fn load_data(ctx: &Context, code: Arc<[u8]>, kind: CodeType) -> Result<Module> {
        // The driver tells PTX from binaries by the first bytes and reads PTX up to a NUL:
        // check that a binary looks like one (else it would be read as unterminated PTX), and
        // always hand over a NUL-terminated copy.
        let magic_ok = match kind {
            CodeType::Cubin | CodeType::Fatbin => image_kind(&code) == kind,
            _ => true,
        };
        if !magic_ok {
            return Err(
                CoreError::driver("cuModuleLoadData", CUresult::CUDA_ERROR_INVALID_IMAGE)
                    .with_detail(format!(
                        "the code is not a {} (wrong magic bytes)",
                        kind.name()
                    )),
            );
        }
        let mut image = Vec::with_capacity(code.len() + 1);
        image.extend_from_slice(&code);
        image.push(0);
        ctx.bind()?;
        let mut raw: CUmodule = core::ptr::null_mut();
        // SAFETY: valid out-pointer; `image` is live and NUL-terminated (the driver parses a
        // binary by its own headers).
        check("cuModuleLoadData", unsafe {
            cuModuleLoadData(&mut raw, image.as_ptr().cast())
        })?;
        Ok(Module(Arc::new(ModuleInner {
            raw,
            ctx: ctx.clone(),
            image: code,
            layouts: OnceLock::new(),
        })))
    }

    /// Every parameter's layout (see [`Kernel::num_arguments`]), or `None` when the driver
    /// cannot tell.
    ///
    /// Makes no call that is expected to fail (compute-sanitizer reports every failing API
    /// call): the count comes from `cuFuncGetParamCount` (CUDA 13.2+, and the HIP backend,
    /// which reads it from the image at load), else from the module's own image (PTX, cubin
    /// or AMD code object, read by [`anycuda_rtc::params`]); then `cuFuncGetParamInfo` is asked
    /// only for indices below it.
    fn param_info(&self, func: CUfunction, name: &str) -> Option<Box<[ParamInfo]>> {
        let mut n = 0usize;
        // SAFETY: live function, valid out-pointer.
        let count = match unsafe { cuFuncGetParamCount(func, &mut n) } {
            CUresult::CUDA_SUCCESS => n,
            // A driver without the entry point (before CUDA 13.2): anycuda answers this
            // without calling it. The image tells the count instead.
            CUresult::CUDA_ERROR_NOT_SUPPORTED => {
                let layouts = self.0.layouts.get_or_init(|| {
                    kernel_params(&self.0.image)
                        .map_err(|e| log::debug!("anycuda: no parameter info from the image: {e}"))
                        .ok()
                });
                layouts
                    .as_ref()?
                    .iter()
                    .find(|k| k.name == name)?
                    .params
                    .len()
            }
            _ => return None,
        };
        // CUDA allows at most 32764 bytes of parameters, so at most that many parameters.
        if count > 32_764 {
            return None;
        }
        let mut v = Vec::with_capacity(count);
        for i in 0..count {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: live function, valid out-pointers; `i` is below the count.
            let r = unsafe { cuFuncGetParamInfo(func, i, &mut offset, &mut size) };
            if r != CUresult::CUDA_SUCCESS {
                return None;
            }
            v.push(ParamInfo { offset, size });
        }
        Some(v.into_boxed_slice())
    }

    /// Drops this reference and, when it was the last one (no clone, no [`Kernel`] of the
    /// module alive), unloads the module now and returns the unload's result, which a plain
    /// drop can only log. For layers that report errors of their own (the cudarc facade
    /// records them on its context).
    ///
    /// # Errors
    /// The driver's error from binding the module's context or from `cuModuleUnload`. `Ok`
    /// when other references remain (the last of them unloads it).
    pub fn unload(self) -> Result<()> {
        match Arc::try_unwrap(self.0) {
            Ok(mut inner) => inner.unload_once(),
            Err(_still_shared) => Ok(()),
        }
    }

    /// The raw `CUmodule` (still owned by this `Module`).
    pub fn as_raw(&self) -> CUmodule {
        self.0.raw
    }

    /// The context the module lives in.
    pub fn context(&self) -> &Context {
        &self.0.ctx
    }

    /// The kernel named `name` (the symbol: an `extern "C"` name or a mangled name).
    ///
    /// Queries once, here, what launches check later: the parameter layout
    /// (`cuFuncGetParamCount` and `cuFuncGetParamInfo`, where the driver has them; see
    /// [`Kernel::num_arguments`]), the kernel's thread limit and the device's block and grid
    /// limits.
    ///
    /// # Errors
    /// A usage error for a name with a NUL; `CUDA_ERROR_NOT_FOUND` for an unknown name; the
    /// driver's error otherwise.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let cname = CString::new(name).map_err(|_| {
            CoreError::usage("Module::kernel", "the kernel name contains a NUL byte")
        })?;
        self.0.ctx.bind()?;
        let mut func: CUfunction = core::ptr::null_mut();
        // SAFETY: live module, valid out-pointer, NUL-terminated name.
        check("cuModuleGetFunction", unsafe {
            cuModuleGetFunction(&mut func, self.0.raw, cname.as_ptr())
        })
        .map_err(|e| e.with_detail(format!("kernel {name:?}")))?;
        let params = self.param_info(func, name);
        let max_threads = func_attr(
            func,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        )
        .map_or(u32::MAX, |v| u32::try_from(v).unwrap_or(u32::MAX));
        let dev = self.0.ctx.device();
        let lim = |a: CUdevice_attribute| {
            dev.attribute(a)
                .ok()
                .and_then(|v| u32::try_from(v).ok())
                .filter(|&v| v > 0)
                .unwrap_or(u32::MAX)
        };
        use CUdevice_attribute as A;
        let limits = Limits {
            max_threads,
            block: [
                lim(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                lim(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                lim(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z),
            ],
            grid: [
                lim(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                lim(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                lim(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
            ],
        };
        Ok(Kernel(Arc::new(KernelInner {
            func,
            module: self.clone(),
            name: name.into(),
            params,
            limits,
        })))
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("raw", &self.0.raw).finish()
    }
}

/// Where one kernel parameter lies in the parameter buffer (`cuFuncGetParamInfo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamInfo {
    /// Offset in bytes.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

/// The launch limits a kernel was created with (queried once).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) max_threads: u32,
    pub(crate) block: [u32; 3],
    pub(crate) grid: [u32; 3],
}

pub(crate) struct KernelInner {
    pub(crate) func: CUfunction,
    pub(crate) module: Module,
    name: Box<str>,
    pub(crate) params: Option<Box<[ParamInfo]>>,
    pub(crate) limits: Limits,
}

// SAFETY: a CUfunction is a process-wide handle, usable from any thread with its context
// current (launches bind it); the driver serialises attribute changes itself.
unsafe impl Send for KernelInner {}
// SAFETY: as above; nothing here is mutated after creation.
unsafe impl Sync for KernelInner {}

/// A kernel (`CUfunction`) of a loaded [`Module`], which it keeps alive.
///
/// `Clone` (a reference count), `Send` and `Sync`: launches from several threads are fine,
/// the driver serialises them per stream.
///
/// ```no_run
/// use anycuda::core::{CodeType, Device, Program, ProgramOptions};
/// let dev = Device::new(0)?;
/// dev.set_current()?;
/// let src = r#"extern "C" __global__ void fill(float *x, float v, unsigned n) {
///     unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = v; }"#;
/// let code = Program::new(src, ProgramOptions::new())?.compile(CodeType::Cubin)?;
/// let k = code.kernel("fill")?;
/// println!("{} registers, {:?} parameters", k.attributes().num_regs()?, k.num_arguments());
/// let (min_grid, block) = k.occupancy().max_potential_block_size(0, 0)?;
/// # let _ = (min_grid, block);
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
#[derive(Clone)]
pub struct Kernel(pub(crate) Arc<KernelInner>);

impl Kernel {
    /// The raw `CUfunction` (owned by its module).
    pub fn as_raw(&self) -> CUfunction {
        self.0.func
    }

    /// The symbol it was looked up by.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The module holding it.
    pub fn module(&self) -> &Module {
        &self.0.module
    }

    /// Its context.
    pub fn context(&self) -> &Context {
        &self.0.module.0.ctx
    }

    /// The number of parameters, where the driver reports parameter info
    /// (`cuFuncGetParamInfo`: CUDA 12.4+, and the HIP backend for the images it can read:
    /// AMD code objects and offload bundles, PTX, cubins); `None` where it cannot tell (older
    /// CUDA drivers, NVIDIA fat binaries on HIP and on CUDA before 13.2, AMD code object v2),
    /// in which case launches cannot check the argument count.
    pub fn num_arguments(&self) -> Option<usize> {
        self.0.params.as_ref().map(|p| p.len())
    }

    /// Each parameter's offset and size, where the driver reports them (see
    /// [`Kernel::num_arguments`]).
    pub fn arguments_info(&self) -> Option<&[ParamInfo]> {
        self.0.params.as_deref()
    }

    /// The kernel's attributes (`cuFuncGetAttribute`).
    pub fn attributes(&self) -> KernelAttributes<'_> {
        KernelAttributes(self)
    }

    /// Occupancy queries (`cuOccupancy*`).
    pub fn occupancy(&self) -> KernelOccupancy<'_> {
        KernelOccupancy(self)
    }

    /// Allows up to `bytes` of dynamic shared memory per block
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), needed above 48 KiB on NVIDIA.
    ///
    /// # Errors
    /// A usage error above `i32::MAX`; the driver's error (e.g. more than the device has).
    pub fn set_max_dynamic_shared_memory(&self, bytes: usize) -> Result<()> {
        let v = i32::try_from(bytes).map_err(|_| {
            CoreError::usage(
                "Kernel::set_max_dynamic_shared_memory",
                "size above i32::MAX",
            )
        })?;
        self.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            v,
        )
    }

    /// `cuFuncSetAttribute`, for attributes without a typed setter.
    ///
    /// # Errors
    /// The driver's error.
    pub fn set_attribute(&self, attr: CUfunction_attribute, value: i32) -> Result<()> {
        self.context().bind()?;
        // SAFETY: live function handle.
        check("cuFuncSetAttribute", unsafe {
            cuFuncSetAttribute(self.0.func, attr, value)
        })
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.0.name)
            .field("raw", &self.0.func)
            .field("params", &self.0.params)
            .finish()
    }
}

fn func_attr(func: CUfunction, attr: CUfunction_attribute) -> Result<i32> {
    let mut v = 0;
    // SAFETY: valid out-pointer; the caller's function handle is live.
    check("cuFuncGetAttribute", unsafe {
        cuFuncGetAttribute(&mut v, attr, func)
    })?;
    Ok(v)
}

/// Typed `cuFuncGetAttribute` queries of one kernel (cuda.core's `Kernel.attributes`).
#[derive(Clone, Copy, Debug)]
pub struct KernelAttributes<'a>(&'a Kernel);

macro_rules! attrs {
    ($($(#[$m:meta])* $name:ident -> $t:ty = $attr:ident;)*) => {
        impl KernelAttributes<'_> {
            $(
                $(#[$m])*
                ///
                /// # Errors
                /// The driver's error (not-supported where the backend lacks the attribute).
                pub fn $name(&self) -> Result<$t> {
                    let v = self.get(CUfunction_attribute::$attr)?;
                    <$t>::try_from(v).map_err(|_| {
                        CoreError::usage("cuFuncGetAttribute", format!("negative value {v}"))
                    })
                }
            )*
        }
    };
}

attrs! {
    /// Most threads per block this kernel can be launched with.
    max_threads_per_block -> u32 = CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
    /// Static shared memory per block, bytes.
    shared_size_bytes -> usize = CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
    /// Constant memory, bytes.
    const_size_bytes -> usize = CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES;
    /// Local memory per thread, bytes.
    local_size_bytes -> usize = CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES;
    /// Registers per thread.
    num_regs -> u32 = CU_FUNC_ATTRIBUTE_NUM_REGS;
    /// PTX virtual architecture, major*10+minor (e.g. 90).
    ptx_version -> u32 = CU_FUNC_ATTRIBUTE_PTX_VERSION;
    /// Binary architecture, major*10+minor.
    binary_version -> u32 = CU_FUNC_ATTRIBUTE_BINARY_VERSION;
    /// Most dynamic shared memory per block allowed now, bytes.
    max_dynamic_shared_size_bytes -> usize = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    /// Preferred shared-memory carve-out, percent (-1: no preference).
    preferred_shared_memory_carveout -> i32 = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
}

impl KernelAttributes<'_> {
    /// Whether the kernel was compiled with `-Xptxas --dlcm=ca` (L1 caching of globals).
    ///
    /// # Errors
    /// The driver's error.
    pub fn cache_mode_ca(&self) -> Result<bool> {
        Ok(self.get(CUfunction_attribute::CU_FUNC_ATTRIBUTE_CACHE_MODE_CA)? != 0)
    }

    /// Any attribute, raw.
    ///
    /// # Errors
    /// The driver's error.
    pub fn get(&self, attr: CUfunction_attribute) -> Result<i32> {
        self.0.context().bind()?;
        func_attr(self.0 .0.func, attr)
    }
}

/// Occupancy queries of one kernel (cuda.core's `Kernel.occupancy`).
#[derive(Clone, Copy, Debug)]
pub struct KernelOccupancy<'a>(&'a Kernel);

impl KernelOccupancy<'_> {
    /// How many blocks of `block_size` threads, each with `dynamic_smem` bytes of dynamic
    /// shared memory, fit on one multiprocessor at once
    /// (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
    ///
    /// # Errors
    /// A usage error for sizes beyond `c_int`; the driver's error.
    pub fn max_active_blocks_per_multiprocessor(
        &self,
        block_size: u32,
        dynamic_smem: usize,
    ) -> Result<u32> {
        let bs = i32::try_from(block_size)
            .map_err(|_| CoreError::usage("Kernel::occupancy", "block size above i32::MAX"))?;
        self.0.context().bind()?;
        let mut n = 0;
        // SAFETY: valid out-pointer, live function.
        check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, self.0 .0.func, bs, dynamic_smem)
        })?;
        Ok(u32::try_from(n).unwrap_or(0))
    }

    /// The block size that maximises occupancy, and the smallest grid that fills the device
    /// with it: `(min_grid_size, block_size)` (`cuOccupancyMaxPotentialBlockSize`, with a
    /// fixed `dynamic_smem` per block; `block_size_limit` 0 means no limit).
    ///
    /// # Errors
    /// A usage error for a limit beyond `c_int`; the driver's error.
    pub fn max_potential_block_size(
        &self,
        dynamic_smem: usize,
        block_size_limit: u32,
    ) -> Result<(u32, u32)> {
        let limit = i32::try_from(block_size_limit)
            .map_err(|_| CoreError::usage("Kernel::occupancy", "limit above i32::MAX"))?;
        self.0.context().bind()?;
        let (mut grid, mut block) = (0, 0);
        // SAFETY: valid out-pointers, live function, no size callback.
        check("cuOccupancyMaxPotentialBlockSize", unsafe {
            cuOccupancyMaxPotentialBlockSize(
                &mut grid,
                &mut block,
                self.0 .0.func,
                None,
                dynamic_smem,
                limit,
            )
        })?;
        Ok((
            u32::try_from(grid).unwrap_or(0),
            u32::try_from(block).unwrap_or(0),
        ))
    }

    /// Dynamic shared memory available per block when `num_blocks` blocks of `block_size`
    /// threads share a multiprocessor (`cuOccupancyAvailableDynamicSMemPerBlock`).
    ///
    /// # Errors
    /// A usage error for sizes beyond `c_int`; the driver's error.
    pub fn available_dynamic_shared_memory_per_block(
        &self,
        num_blocks: u32,
        block_size: u32,
    ) -> Result<usize> {
        let (nb, bs) = match (i32::try_from(num_blocks), i32::try_from(block_size)) {
            (Ok(a), Ok(b)) => (a, b),
            _ => return Err(CoreError::usage("Kernel::occupancy", "size above i32::MAX")),
        };
        self.0.context().bind()?;
        let mut bytes = 0usize;
        // SAFETY: valid out-pointer, live function.
        check("cuOccupancyAvailableDynamicSMemPerBlock", unsafe {
            cuOccupancyAvailableDynamicSMemPerBlock(&mut bytes, self.0 .0.func, nb, bs)
        })?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_image_tells_the_kind_by_the_first_bytes() {
        let elf_bytes = b"\x7fELF\x02\x01\x01rest\0";
        let elf = ObjectCode::from_image(elf_bytes.to_vec()).unwrap();
        assert_eq!(elf.code_type(), CodeType::Cubin);
        let fatbin = ObjectCode::from_image(0xBA55_ED50u32.to_le_bytes().to_vec()).unwrap();
        assert_eq!(fatbin.code_type(), CodeType::Fatbin);
        let bundle = ObjectCode::from_image(b"__CLANG_OFFLOAD_BUNDLE__\0\0".to_vec()).unwrap();
        assert_eq!(bundle.code_type(), CodeType::Fatbin);
        let ptx = ObjectCode::from_image(b".version 8.0\n.target sm_80\n\0".to_vec()).unwrap();
        assert_eq!(ptx.code_type(), CodeType::Ptx);
        // PTX loses its trailing NUL (the loader adds its own), binaries keep every byte.
        assert_eq!(ptx.code(), b".version 8.0\n.target sm_80\n");
        assert_eq!(elf.code(), elf_bytes);
        // Empty code is refused, whatever its kind would have been.
        let err = ObjectCode::from_image(Vec::new()).unwrap_err();
        assert_eq!(err.code(), super::super::ErrorCode::Usage);
        // A NUL alone is PTX text with nothing in it: empty, so refused too.
        assert!(ObjectCode::from_image(vec![0u8]).is_err());
    }
}
