//! Kernel parameter layouts read from code images, for drivers that cannot report them.
//!
//! CUDA 12.4+ answers `cuFuncGetParamInfo` (and 13.2+ `cuFuncGetParamCount`) itself; HIP has
//! neither, and CUDA drivers before 13.2 have no count. This module reads the layout that every
//! compiler writes into the image anyway:
//!
//! - PTX text: each `.entry`'s `.param` list, laid out as CUDA does (each parameter at the next
//!   multiple of its alignment: the `.align` given, else its type's size).
//! - cubins (ELF, machine `EM_CUDA`): the `EIATTR_KPARAM_INFO` attributes of each
//!   `.nv.info.<kernel>` section (ordinal, offset, size).
//! - AMD code objects (ELF, machine `EM_AMDGPU`, code object v3 and later): the MessagePack
//!   metadata note (`NT_AMDGPU_METADATA`, name `AMDGPU`): `amdhsa.kernels`, each `.name` and its
//!   `.args` (`.offset`, `.size`), the compiler's hidden arguments (`.value_kind` `hidden_*`)
//!   left out as CUDA leaves its own out.
//! - clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`): the AMD code objects inside.
//!
//! Refused, honestly ([`ParamsError::Unsupported`]): code object v2 (YAML metadata, ROCm
//! before 3.x), compressed offload bundles (`CCOB`, zstd), NVIDIA fat binaries (their entries
//! are often compressed), big-endian or 32-bit ELF.
//!
//! Everything is bounds-checked; malformed input is an error, never a panic.

mod elf;
pub mod msgpack;

use elf::{u32_at, u64_at, Elf, EM_AMDGPU, EM_CUDA};
use msgpack::Value;

/// Where one parameter lies in a kernel's parameter buffer, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// Offset from the start of the buffer.
    pub offset: usize,
    /// Size.
    pub size: usize,
}

/// One kernel's explicit parameters, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParams {
    /// The symbol (what `cuModuleGetFunction` takes: an `extern "C"` or a mangled name).
    pub name: String,
    /// The parameters.
    pub params: Vec<Param>,
}

/// Why an image's parameter layouts could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamsError {
    /// A format (or version of one) this reader does not handle.
    #[error("unsupported code image: {0}")]
    Unsupported(&'static str),
    /// The image is damaged or not what its magic bytes claim.
    #[error("malformed code image: {0}")]
    Malformed(&'static str),
}

/// The largest image [`image_len`] accepts (larger sizes are taken as damaged headers).
pub const MAX_IMAGE: usize = 1 << 32;

const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
const FATBIN_MAGIC: &[u8] = &[0x50, 0xed, 0x55, 0xba];
/// The fat binary wrapper's magic (`0x466243B1`, little-endian), as nvcc embeds fat binaries.
const FATBIN_WRAPPER_MAGIC: &[u8] = &[0xb1, 0x43, 0x62, 0x46];
/// LLVM bitcode, and its wrapper (`0x0B17C0DE`, little-endian).
const BITCODE_MAGIC: &[u8] = b"BC\xc0\xde";
const BITCODE_WRAPPER_MAGIC: &[u8] = &[0xde, 0xc0, 0x17, 0x0b];
const NT_AMDGPU_METADATA: u32 = 32;
const NT_AMD_HSA_METADATA_V2: u32 = 10;
const EIATTR_KPARAM_INFO: u8 = 0x17;
const EIFMT_SVAL: u8 = 4;

/// Every kernel's parameter layout in `image` (PTX, with or without a trailing NUL; a cubin;
/// an AMD code object; a clang offload bundle of AMD code objects).
///
/// # Errors
/// [`ParamsError::Unsupported`] for formats listed in the module docs, and for bytes of no
/// known format; [`ParamsError::Malformed`] for a damaged image.
pub fn kernel_params(image: &[u8]) -> Result<Vec<KernelParams>, ParamsError> {
    if let Some(e) = Elf::parse(image)? {
        return match e.machine {
            EM_CUDA => cubin(&e),
            EM_AMDGPU => amd(&e),
            _ => Err(ParamsError::Unsupported(
                "ELF for neither NVIDIA nor AMD GPUs",
            )),
        };
    }
    if image.starts_with(BUNDLE_MAGIC) {
        return bundle(image);
    }
    if image.starts_with(b"CCOB") {
        return Err(ParamsError::Unsupported("compressed clang offload bundle"));
    }
    if image.starts_with(FATBIN_MAGIC) {
        return Err(ParamsError::Unsupported("NVIDIA fat binary"));
    }
    let text = image.strip_suffix(&[0]).unwrap_or(image);
    if text.contains(&0) || !looks_like_ptx(text) {
        return Err(ParamsError::Unsupported(
            "not PTX, a cubin or an AMD code object",
        ));
    }
    ptx(text)
}

/// The layout of kernel `name` in `image` ([`kernel_params`], then the first kernel of that
/// name); `Ok(None)` when the image has no such kernel.
///
/// # Errors
/// As [`kernel_params`].
pub fn kernel_params_of(image: &[u8], name: &str) -> Result<Option<Vec<Param>>, ParamsError> {
    Ok(kernel_params(image)?
        .into_iter()
        .find(|k| k.name == name)
        .map(|k| k.params))
}

fn looks_like_ptx(t: &[u8]) -> bool {
    let has = |w: &[u8]| t.windows(w.len()).any(|x| x == w);
    has(b".version") || has(b".target") || has(b".entry")
}

/// The length of a code image given only its address, from its own headers: an ELF (the
/// furthest section, segment or header table), a clang offload bundle (the furthest entry), or
/// NUL-terminated text (PTX: up to the NUL). `None` for other formats or sizes beyond
/// [`MAX_IMAGE`].
///
/// Bytes are read only as far as the format says they exist: the magic bytes one at a time
/// (text ends at its NUL, which matches no magic), then the headers the magic promises.
///
/// # Safety
/// `image` is NULL or points to a complete image of one of those formats (as the CUDA and HIP
/// module loaders require of their `image` argument); use it after a loader accepted it.
pub unsafe fn image_len(image: *const core::ffi::c_void) -> Option<usize> {
    let p = image.cast::<u8>();
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller's image.
    match unsafe { start_of(p) } {
        // SAFETY: the caller's complete ELF image.
        Start::Elf => unsafe { elf::image_len(p, MAX_IMAGE) },
        // SAFETY: the caller's complete bundle.
        Start::OffloadBundle => unsafe { bundle_len(p) },
        Start::OtherBinary => None,
        // SAFETY: the caller's text image.
        Start::Text => unsafe { text_len(p) },
    }
}

/// The text of a text image (PTX), up to its NUL: `None` for a NULL pointer, a binary image
/// (ELF, fat binary, offload bundle, LLVM bitcode) or text longer than [`MAX_IMAGE`]. Unlike
/// [`image_len`] this may be used before a loader judged the image: it reads only the magic
/// bytes that match, then, for text, up to the NUL.
///
/// # Safety
/// `image` is NULL, or points to a NUL-terminated text or to a binary image at least as long
/// as its format's magic (what the CUDA and HIP module loaders require of `image`); the text
/// stays unchanged while the result lives.
pub unsafe fn text_image<'a>(image: *const core::ffi::c_void) -> Option<&'a [u8]> {
    let p = image.cast::<u8>();
    // SAFETY: the caller's image.
    if p.is_null() || unsafe { start_of(p) } != Start::Text {
        return None;
    }
    // SAFETY: the caller's NUL-terminated text.
    let n = unsafe { text_len(p) }?;
    // SAFETY: `n` bytes of text before its NUL, unchanged for `'a` by the caller's contract.
    Some(unsafe { core::slice::from_raw_parts(p, n) })
}

/// How an image starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Start {
    Elf,
    OffloadBundle,
    /// A fat binary (either magic), a compressed offload bundle or LLVM bitcode.
    OtherBinary,
    Text,
}

/// Judges an image by its magic bytes, each read only while the earlier ones matched.
///
/// # Safety
/// `p` is non-NULL and points to a NUL-terminated text or to a binary image at least as long
/// as its magic.
unsafe fn start_of(p: *const u8) -> Start {
    let starts_with = |magic: &[u8]| {
        magic.iter().enumerate().all(|(i, &m)| {
            // SAFETY: `p` is readable up to the end of its image: `i` stays at or before the
            // first byte that differs from the magic (`all` stops there), and a NUL (the end of
            // a text image) differs from every magic byte.
            (unsafe { *p.add(i) }) == m
        })
    };
    if starts_with(b"\x7fELF") {
        Start::Elf
    } else if starts_with(BUNDLE_MAGIC) {
        Start::OffloadBundle
    } else if [
        b"CCOB".as_slice(),
        FATBIN_MAGIC,
        FATBIN_WRAPPER_MAGIC,
        BITCODE_MAGIC,
        BITCODE_WRAPPER_MAGIC,
    ]
    .into_iter()
    .any(starts_with)
    {
        Start::OtherBinary
    } else {
        Start::Text
    }
}

/// The length of NUL-terminated text, `None` past [`MAX_IMAGE`].
///
/// # Safety
/// `p` points to a NUL-terminated text.
unsafe fn text_len(p: *const u8) -> Option<usize> {
    let mut n = 0;
    // SAFETY: text is read up to its terminating NUL, which the caller's image has.
    while unsafe { *p.add(n) } != 0 {
        n += 1;
        if n > MAX_IMAGE {
            return None;
        }
    }
    Some(n)
}

/// # Safety
/// `p` points to a complete clang offload bundle (magic checked).
unsafe fn bundle_len(p: *const u8) -> Option<usize> {
    let read = |at: usize, n: usize| {
        // SAFETY: the caller's bundle holds its header and entry table; every read is within
        // the table the header describes, in order.
        unsafe { core::slice::from_raw_parts(p.add(at), n) }
    };
    let count = usize::try_from(u64_at(read(24, 8), 0)?).ok()?;
    if count > 4096 {
        return None;
    }
    let mut at = 32usize;
    let mut end = at;
    for _ in 0..count {
        let h = read(at, 24);
        let off = usize::try_from(u64_at(h, 0)?).ok()?;
        let size = usize::try_from(u64_at(h, 8)?).ok()?;
        let id = usize::try_from(u64_at(h, 16)?).ok()?;
        if id > 4096 {
            return None;
        }
        at = at.checked_add(24 + id)?;
        end = end.max(at).max(off.checked_add(size)?);
        if end > MAX_IMAGE {
            return None;
        }
    }
    Some(end)
}

// ------------------------------------------------------------------ AMD

fn amd(e: &Elf<'_>) -> Result<Vec<KernelParams>, ParamsError> {
    let notes = e.notes()?;
    let Some(&(_, _, desc)) = notes
        .iter()
        .find(|(n, t, _)| *n == b"AMDGPU" && *t == NT_AMDGPU_METADATA)
    else {
        if notes
            .iter()
            .any(|(n, t, _)| *n == b"AMD" && *t == NT_AMD_HSA_METADATA_V2)
        {
            return Err(ParamsError::Unsupported(
                "AMD code object v2 (YAML metadata, ROCm before 3.x)",
            ));
        }
        return Err(ParamsError::Malformed(
            "AMD code object without a metadata note",
        ));
    };
    let bad = ParamsError::Malformed("AMD code object metadata");
    let meta = msgpack::parse(desc).map_err(|_| bad)?;
    let kernels = meta
        .get("amdhsa.kernels")
        .and_then(Value::as_array)
        .ok_or(bad)?;
    let mut out = Vec::with_capacity(kernels.len());
    for k in kernels {
        let name = k.get(".name").and_then(Value::as_str).ok_or(bad)?;
        let mut params = Vec::new();
        if let Some(args) = k.get(".args") {
            for a in args.as_array().ok_or(bad)? {
                let kind = a.get(".value_kind").and_then(Value::as_str).ok_or(bad)?;
                if kind.starts_with("hidden_") {
                    continue;
                }
                let field = |f| {
                    a.get(f)
                        .and_then(Value::as_u64)
                        .and_then(|v| usize::try_from(v).ok())
                        .ok_or(bad)
                };
                params.push(Param {
                    offset: field(".offset")?,
                    size: field(".size")?,
                });
            }
        }
        out.push(KernelParams {
            name: name.to_string(),
            params,
        });
    }
    Ok(out)
}

fn bundle(b: &[u8]) -> Result<Vec<KernelParams>, ParamsError> {
    let bad = ParamsError::Malformed("clang offload bundle");
    let count = u64_at(b, 24).ok_or(bad)?;
    let mut at = 32usize;
    let mut out: Vec<KernelParams> = Vec::new();
    let mut found = false;
    let mut last_err = None;
    for _ in 0..count {
        let off = u64_at(b, at).ok_or(bad)? as usize;
        let size = u64_at(b, at + 8).ok_or(bad)? as usize;
        let idlen = u64_at(b, at + 16).ok_or(bad)? as usize;
        let id_at = at + 24;
        let id = b
            .get(id_at..id_at.checked_add(idlen).ok_or(bad)?)
            .ok_or(bad)?;
        at = id_at + idlen;
        if !id.windows(6).any(|w| w == b"amdgcn") || size == 0 {
            continue;
        }
        let code = b.get(off..off.checked_add(size).ok_or(bad)?).ok_or(bad)?;
        let parsed = match Elf::parse(code)? {
            Some(e) if e.machine == EM_AMDGPU => amd(&e),
            _ => Err(bad),
        };
        match parsed {
            Ok(ks) => {
                found = true;
                // The same source for every architecture: the first layout of a name wins.
                for k in ks {
                    if !out.iter().any(|o| o.name == k.name) {
                        out.push(k);
                    }
                }
            }
            Err(e) => last_err = Some(e),
        }
    }
    match (found, last_err) {
        (true, _) => Ok(out),
        (false, Some(e)) => Err(e),
        (false, None) => Err(ParamsError::Unsupported(
            "clang offload bundle without AMD GPU code",
        )),
    }
}

// ------------------------------------------------------------------ cubin

fn cubin(e: &Elf<'_>) -> Result<Vec<KernelParams>, ParamsError> {
    let bad = ParamsError::Malformed("cubin .nv.info attributes");
    let mut out = Vec::new();
    for s in e.sections()? {
        let Some(name) = s.name.strip_prefix(b".nv.info.") else {
            continue;
        };
        let name = core::str::from_utf8(name).map_err(|_| bad)?;
        // (ordinal, offset, size)
        let mut found: Vec<(usize, usize, usize)> = Vec::new();
        let d = s.data;
        let mut at = 0usize;
        while at + 4 <= d.len() {
            let (fmt, attr) = (d[at], d[at + 1]);
            let v = usize::from(elf::u16_at(d, at + 2).ok_or(bad)?);
            at += 4;
            if fmt != EIFMT_SVAL {
                continue;
            }
            let data = d.get(at..at + v).ok_or(bad)?;
            at += v;
            if attr == EIATTR_KPARAM_INFO {
                if data.len() < 12 {
                    return Err(bad);
                }
                let ordinal = usize::from(elf::u16_at(data, 4).ok_or(bad)?);
                let offset = usize::from(elf::u16_at(data, 6).ok_or(bad)?);
                let size = (u32_at(data, 8).ok_or(bad)? >> 18) as usize;
                found.push((ordinal, offset, size));
            }
        }
        found.sort_unstable();
        if found.iter().enumerate().any(|(i, f)| f.0 != i) {
            return Err(bad);
        }
        out.push(KernelParams {
            name: name.to_string(),
            params: found
                .into_iter()
                .map(|(_, offset, size)| Param { offset, size })
                .collect(),
        });
    }
    Ok(out)
}

// ------------------------------------------------------------------ PTX

/// The text with comments blanked (string literals kept: `.file` paths may hold `//`).
fn strip_comments(t: &[u8]) -> Vec<u8> {
    let mut o = Vec::with_capacity(t.len());
    let mut i = 0;
    while i < t.len() {
        match (t[i], t.get(i + 1)) {
            (b'"', _) => {
                let end = t[i + 1..]
                    .iter()
                    .position(|&c| c == b'"')
                    .map_or(t.len(), |p| i + 2 + p);
                o.extend_from_slice(&t[i..end]);
                i = end;
            }
            (b'/', Some(b'/')) => {
                let end = t[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(t.len(), |p| i + p);
                o.push(b' ');
                i = end;
            }
            (b'/', Some(b'*')) => {
                let end = t[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(t.len(), |p| i + 4 + p);
                o.push(b' ');
                i = end;
            }
            (c, _) => {
                o.push(c);
                i += 1;
            }
        }
    }
    o
}

fn ptx_type_size(t: &str) -> Option<usize> {
    Some(match t {
        ".b8" | ".u8" | ".s8" => 1,
        ".b16" | ".u16" | ".s16" | ".f16" | ".bf16" => 2,
        ".b32" | ".u32" | ".s32" | ".f32" | ".f16x2" | ".bf16x2" => 4,
        ".b64" | ".u64" | ".s64" | ".f64" | ".texref" | ".samplerref" | ".surfref" => 8,
        ".b128" => 16,
        _ => return None,
    })
}

fn ptx_param(p: &str, cur: usize) -> Result<Param, ParamsError> {
    let bad = ParamsError::Malformed("PTX .entry parameter");
    // `name[16]` and `name [16]` alike: split the dimensions off first.
    let (decl, dims) = match p.find('[') {
        Some(i) => (&p[..i], &p[i..]),
        None => (p, ""),
    };
    let mut toks = decl.split_whitespace();
    if toks.next() != Some(".param") {
        return Err(bad);
    }
    let mut t = toks.next().ok_or(bad)?;
    let mut align = None;
    if t == ".align" {
        align = Some(
            toks.next()
                .and_then(|a| a.parse::<usize>().ok())
                .ok_or(bad)?,
        );
        t = toks.next().ok_or(bad)?;
    }
    let elem = ptx_type_size(t).ok_or(ParamsError::Unsupported("PTX parameter type"))?;
    // Pointer attributes after the type (`.ptr .global .align 8`) describe the pointee.
    let mut count = 1usize;
    for d in dims.split('[').skip(1) {
        let n = d
            .split(']')
            .next()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .ok_or(bad)?;
        count = count.checked_mul(n).ok_or(bad)?;
    }
    let align = align.unwrap_or(elem);
    if align == 0 || !align.is_power_of_two() {
        return Err(bad);
    }
    let offset = cur.checked_add(align - 1).ok_or(bad)? & !(align - 1);
    let size = elem.checked_mul(count).ok_or(bad)?;
    Ok(Param { offset, size })
}

fn ptx(text: &[u8]) -> Result<Vec<KernelParams>, ParamsError> {
    let bad = ParamsError::Malformed("PTX .entry");
    let clean = strip_comments(text);
    let t = core::str::from_utf8(&clean).map_err(|_| ParamsError::Malformed("PTX is not UTF-8"))?;
    let ident = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.');
    let mut out: Vec<KernelParams> = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find(".entry") {
        let before = rest[..i].chars().next_back();
        let after = &rest[i + 6..];
        rest = after;
        if before.is_some_and(|c| !c.is_whitespace()) || !after.starts_with(char::is_whitespace) {
            continue;
        }
        let after = after.trim_start();
        let name_len = after.find(|c: char| !ident(c)).unwrap_or(after.len());
        let name = &after[..name_len];
        if name.is_empty() {
            return Err(bad);
        }
        let tail = after[name_len..].trim_start();
        let mut params = Vec::new();
        if let Some(list) = tail.strip_prefix('(') {
            let close = list.find(')').ok_or(bad)?;
            let mut cur = 0usize;
            for p in list[..close].split(',') {
                if p.trim().is_empty() {
                    continue;
                }
                let q = ptx_param(p, cur)?;
                cur = q.offset + q.size;
                params.push(q);
            }
            rest = &list[close..];
        }
        if !out.iter().any(|k| k.name == name) {
            out.push(KernelParams {
                name: name.to_string(),
                params,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(offset: usize, size: usize) -> Param {
        Param { offset, size }
    }

    #[test]
    fn ptx_layout_follows_alignment() {
        let t = b"// comment .entry fake(\n.version 8.0\n.target sm_90\n\
            .visible .entry many(\n\t.param .u8 many_param_0,\n\t.param .u16 many_param_1,\n\
            \t.param .f64 p2, /* x */ .param .u64 .ptr .global .align 1 p3,\n\
            \t.param .align 16 .b8 p4[16],\n\t.param .align 4 .b8 p5 [20],\n\t.param .u8 p6\n)\n{ ret; }\n\
            .entry none()\n{ ret; }\n.func helper(.param .b32 x) { ret; }\n";
        let k = kernel_params(t).unwrap();
        assert_eq!(k.len(), 2);
        assert_eq!(k[0].name, "many");
        assert_eq!(
            k[0].params,
            [
                p(0, 1),
                p(2, 2),
                p(8, 8),
                p(16, 8),
                p(32, 16),
                p(48, 20),
                p(68, 1)
            ]
        );
        assert_eq!(k[1].name, "none");
        assert!(k[1].params.is_empty());
        // A trailing NUL is fine.
        let mut z = t.to_vec();
        z.push(0);
        assert_eq!(kernel_params(&z).unwrap(), k);
    }

    #[test]
    fn unknown_or_damaged_input_is_an_error_not_a_panic() {
        assert!(matches!(
            kernel_params(b"hello"),
            Err(ParamsError::Unsupported(_))
        ));
        assert!(matches!(
            kernel_params(b"\x7fELF\x01\x01"),
            Err(ParamsError::Unsupported(_))
        ));
        assert!(kernel_params(b"\x7fELF\x02\x01\x01").is_err());
        assert!(kernel_params(b".entry k(.param .u8").is_err());
        assert!(kernel_params(b".entry k(.param .weird x)").is_err());
        assert!(kernel_params(b".entry k(.param .align 3 .b8 x[4])").is_err());
        assert!(
            kernel_params(b"__CLANG_OFFLOAD_BUNDLE__\xff\xff\xff\xff\xff\xff\xff\xff").is_err()
        );
    }
}
