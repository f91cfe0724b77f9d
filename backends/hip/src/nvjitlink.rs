//! nvJitLink on the HIP backend: not supported. Every function answers
//! `NVJITLINK_ERROR_NOT_SUPPORTED` (the impl is generated, one method per function of the
//! pinned `nvJitLink.h`).
//!
//! hipRTC has a linker of its own (`hiprtcLinkCreate`, `hiprtcLinkAddData`,
//! `hiprtcLinkComplete`, linking LLVM bitcode into an AMD code object); mapping nvJitLink onto
//! it is left to a later round.

#[path = "generated/nvjitlink.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod unsupported;

/// The HIP backend's nvJitLink: no library, every call not supported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoLinker;

/// The one [`NoLinker`].
pub static NO_LINKER: NoLinker = NoLinker;
