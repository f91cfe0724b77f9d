//! The catalogue of CUDA functions that codegen read from the pinned headers.

/// One CUDA API function as declared by the pinned headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FnInfo {
    /// The C name users call, e.g. `cuMemAlloc`.
    pub name: &'static str,
    /// The versioned symbol the header maps the name to, e.g. `cuMemAlloc_v2` (or the name).
    pub symbol: &'static str,
    /// For driver functions: the `cudaVersion` to pass to `cuGetProcAddress` for this ABI
    /// (from `cudaTypedefs.h`'s `PFN_*_vNNNNN`); 0 where that does not apply.
    pub version: u32,
}
