//! NVIDIA fat binaries: the container nvcc embeds in every program it builds (and NVIDIA puts in
//! its libraries' `.nv_fatbin` sections), read entry by entry, with compressed payloads
//! decompressed.
//!
//! # The layout
//! Little-endian throughout. What nvcc registers (`__cudaRegisterFatBinary`) is a
//! `__fatBinC_Wrapper_t`: `u32` magic `0x466243B1`, `u32` version (1, or 2 for the relocatable
//! device code link's wrappers), a pointer to the fat binary, and a pointer this reader does not
//! use (a file name, or version 2's prelinked fat binaries). The fat binary is a 16-byte header
//! (`u32` magic `0xBA55ED50`, `u16` version, `u16` header size, `u64` size of what follows the
//! header) and then its entries, each a header followed by its payload padded to 8 bytes. An entry
//! header, at byte offsets:
//!
//! | at | type | field |
//! |---|---|---|
//! | 0 | `u16` | kind: 1 PTX, 2 ELF cubin, others (LTO-IR, ...) as they are |
//! | 2 | `u16` | header version (0x0101) |
//! | 4 | `u32` | header size (64; 80 or more with an options block) |
//! | 8 | `u64` | padded payload size: the next entry starts at header + header size + this |
//! | 16 | `u32` | payload size: the compressed size for a compressed entry; 0 or the size otherwise |
//! | 20 | `u32` | offset of the extra block inside the header (0: none) |
//! | 24 | `u16`, `u16` | code version, minor then major (PTX ISA 9.0; ELF 1.8) |
//! | 28 | `u32` | the architecture, `sm_XX`/`compute_XX`'s number |
//! | 32 | `u32`, `u32` | object name offset and length (0 in nvcc's output) |
//! | 40 | `u64` | flags ([`flags`]) |
//! | 48 | `u64` | reserved |
//! | 56 | `u64` | uncompressed payload size (compressed entries; 0 otherwise) |
//!
//! Checked on nvcc 13.0's output (`rtc/tests/fatbin_nvcc.rs` builds fat binaries with each
//! `--compress-mode` and compares) and on the fat binaries of NVIDIA's own libraries.
//!
//! # Compression
//! nvcc compresses payloads since CUDA 11 (PTX by default; cubins too with
//! `-Xfatbin -compress-all` or `--compress-mode=size`). The flag bits say how:
//! - [`flags::COMPRESSED_LZ4`] (`0x2000`): one LZ4 *block* (the raw block format, no frame
//!   header), decoded here ([`lz4_block`]); `--compress-mode=speed`, and the default before 13.0.
//! - [`flags::COMPRESSED_ZSTD`] (`0x8000`): a Zstandard frame (magic `28 b5 2f fd`), decoded by
//!   the pure-Rust `ruzstd`; `--compress-mode=default|size|balance` in 13.0 (12.4+ with
//!   `-compress-mode=size`).
//!
//! Any other compression state (both bits, or the `0x1000` bit some readers name an older
//! compression) is refused as unknown rather than guessed. A decompressed payload must be exactly
//! the declared uncompressed size.
//!
//! # Bad input
//! Every size is checked before it is used: a truncated, damaged or hostile fat binary gives a
//! [`FatbinError`], never a panic or a read outside the bytes given. Declared uncompressed sizes
//! above [`MAX_PAYLOAD`] are refused, and output is never allocated ahead of what the input can
//! produce.

use core::ffi::c_void;
use std::borrow::Cow;
use std::io::Read;

/// `__fatBinC_Wrapper_t::magic` (`FATBINC_MAGIC`).
pub const WRAPPER_MAGIC: u32 = 0x466243B1;
/// The fat binary header's magic.
pub const FATBIN_MAGIC: u32 = 0xBA55ED50;
/// Largest fat binary believed when reading one through a pointer (its own size field is all
/// that bounds it there).
pub const MAX_FATBIN: u64 = 1 << 32;
/// Largest uncompressed payload believed (1 GiB; NVIDIA's largest cubins are a few MiB).
pub const MAX_PAYLOAD: u64 = 1 << 30;
/// Smallest entry header: every field this reader uses is in the first 64 bytes.
const MIN_ENTRY_HEADER: u32 = 64;
/// Largest entry header believed.
const MAX_ENTRY_HEADER: u32 = 4096;

/// Entry kinds ([`Entry::kind`]).
pub mod kind {
    /// PTX text (NUL-terminated).
    pub const PTX: u16 = 1;
    /// An NVIDIA ELF (cubin).
    pub const ELF: u16 = 2;
}

/// Entry flag bits ([`Entry::flags`]).
pub mod flags {
    /// 64-bit addresses (clear: 32-bit).
    pub const ADDRESS_64: u64 = 0x1;
    /// Built with device debug information (`-G`).
    pub const DEBUG: u64 = 0x2;
    /// Built for Linux hosts.
    pub const HOST_LINUX: u64 = 0x10;
    /// Built for macOS hosts.
    pub const HOST_MAC: u64 = 0x20;
    /// Built for Windows hosts.
    pub const HOST_WINDOWS: u64 = 0x40;
    /// A compression bit of unknown format (named an older compression by some readers): such
    /// entries are refused.
    pub const COMPRESSED_UNKNOWN: u64 = 0x1000;
    /// The payload is one LZ4 block.
    pub const COMPRESSED_LZ4: u64 = 0x2000;
    /// The payload is a Zstandard frame.
    pub const COMPRESSED_ZSTD: u64 = 0x8000;
    /// The architecture is arch-specific (`sm_90a`, `compute_100a`).
    pub const ARCH_SPECIFIC: u64 = 0x10_0000;
    /// The architecture is family-specific (`sm_100f`, `compute_120f`).
    pub const ARCH_FAMILY: u64 = 0x20_0000;
}

/// How an entry's payload is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// As it is.
    None,
    /// One LZ4 block.
    Lz4,
    /// A Zstandard frame.
    Zstd,
    /// A compression state this reader does not know (the flag bits given).
    Unknown(u64),
}

/// Why a fat binary (or one entry's payload) was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FatbinError {
    /// A NULL wrapper or NULL data pointer.
    #[error("NULL fat binary pointer")]
    Null,
    /// The wrapper's magic is not [`WRAPPER_MAGIC`].
    #[error("not a fat binary wrapper: magic {0:#010x}, expected 0x466243b1")]
    WrapperMagic(u32),
    /// The wrapper's version is neither 1 nor 2.
    #[error("fat binary wrapper version {0}, expected 1 or 2")]
    WrapperVersion(u32),
    /// The fat binary's magic is not [`FATBIN_MAGIC`].
    #[error("not a fat binary: magic {0:#010x}, expected 0xba55ed50")]
    Magic(u32),
    /// A header or size field that cannot be right, at byte `at` of the fat binary.
    #[error("fat binary damaged at byte {at}: {what}")]
    Layout {
        /// Byte offset (from the fat binary's start) where reading stopped.
        at: u64,
        /// What was wrong.
        what: &'static str,
    },
    /// The entry at byte `at` is compressed in a way this reader does not know.
    #[error("entry at byte {at}: unknown compression (flags {flags:#x})")]
    UnknownCompression {
        /// The entry header's byte offset.
        at: u64,
        /// Its flags.
        flags: u64,
    },
    /// The entry at byte `at` declares an uncompressed size above [`MAX_PAYLOAD`].
    #[error(
        "entry at byte {at}: uncompressed size {size} is above the {MAX_PAYLOAD} bytes believed"
    )]
    TooLarge {
        /// The entry header's byte offset.
        at: u64,
        /// The declared size.
        size: u64,
    },
    /// The compressed payload of the entry at byte `at` does not decode to its declared size.
    #[error("entry at byte {at}: {codec} payload damaged: {what}")]
    Decompress {
        /// The entry header's byte offset.
        at: u64,
        /// `LZ4` or `zstd`.
        codec: &'static str,
        /// What was wrong.
        what: String,
    },
}

/// One entry of a fat binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Byte offset of the entry's header from the fat binary's start.
    pub offset: u64,
    /// [`kind::PTX`], [`kind::ELF`], or another kind as stored.
    pub kind: u16,
    /// The architecture number (`sm_90`/`compute_90`: 90).
    pub arch: u32,
    /// The code version (major, minor): PTX ISA version for PTX, ELF ABI version for cubins.
    pub code_version: (u16, u16),
    /// The flag bits ([`flags`]).
    pub flags: u64,
    /// The payload as stored (compressed or not), without the padding.
    pub stored: &'a [u8],
    /// The declared uncompressed size (compressed entries; 0 for others).
    pub uncompressed_size: u64,
}

impl<'a> Entry<'a> {
    /// How the payload is stored.
    pub fn compression(&self) -> Compression {
        let bits = self.flags
            & (flags::COMPRESSED_UNKNOWN | flags::COMPRESSED_LZ4 | flags::COMPRESSED_ZSTD);
        match bits {
            0 => Compression::None,
            flags::COMPRESSED_LZ4 => Compression::Lz4,
            flags::COMPRESSED_ZSTD => Compression::Zstd,
            _ => Compression::Unknown(self.flags),
        }
    }

    /// Whether the payload is stored compressed (in any format, known or not).
    pub fn is_compressed(&self) -> bool {
        self.compression() != Compression::None
    }

    /// 64 or 32: the address size it was built for.
    pub fn address_bits(&self) -> u32 {
        if self.flags & flags::ADDRESS_64 != 0 {
            64
        } else {
            32
        }
    }

    /// `""`, `"a"` (arch-specific) or `"f"` (family-specific): the suffix of its architecture.
    pub fn arch_suffix(&self) -> &'static str {
        if self.flags & flags::ARCH_SPECIFIC != 0 {
            "a"
        } else if self.flags & flags::ARCH_FAMILY != 0 {
            "f"
        } else {
            ""
        }
    }

    /// Its name as nvcc spells it: `compute_90` (PTX), `sm_90a` (cubin), `kind 8 arch 90`.
    pub fn name(&self) -> String {
        match self.kind {
            kind::PTX => format!("PTX compute_{}{}", self.arch, self.arch_suffix()),
            kind::ELF => format!("cubin sm_{}{}", self.arch, self.arch_suffix()),
            k => format!("entry kind {k} arch {}{}", self.arch, self.arch_suffix()),
        }
    }

    /// The payload, decompressed (borrowed when stored as it is).
    ///
    /// # Errors
    /// [`FatbinError::UnknownCompression`], [`FatbinError::TooLarge`] or
    /// [`FatbinError::Decompress`] (damaged data, or not exactly the declared size).
    pub fn payload(&self) -> Result<Cow<'a, [u8]>, FatbinError> {
        let at = self.offset;
        let codec = match self.compression() {
            Compression::None => return Ok(Cow::Borrowed(self.stored)),
            Compression::Unknown(flags) => {
                return Err(FatbinError::UnknownCompression { at, flags })
            }
            Compression::Lz4 => "LZ4",
            Compression::Zstd => "zstd",
        };
        if self.uncompressed_size > MAX_PAYLOAD {
            return Err(FatbinError::TooLarge {
                at,
                size: self.uncompressed_size,
            });
        }
        // MAX_PAYLOAD fits in usize on every target this crate builds for (64-bit).
        let size = usize::try_from(self.uncompressed_size).unwrap_or(usize::MAX);
        let out = match self.compression() {
            Compression::Lz4 => lz4_block(self.stored, size),
            _ => zstd(self.stored, size),
        };
        out.map(Cow::Owned)
            .map_err(|what| FatbinError::Decompress { at, codec, what })
    }

    /// The PTX text of a PTX entry: decompressed, up to its first NUL, as UTF-8 (`None` for
    /// another kind).
    ///
    /// # Errors
    /// As [`Entry::payload`], and [`FatbinError::Layout`] for text that is not UTF-8.
    pub fn ptx_text(&self) -> Option<Result<String, FatbinError>> {
        if self.kind != kind::PTX {
            return None;
        }
        Some(self.payload().and_then(|p| {
            let end = p.iter().position(|&b| b == 0).unwrap_or(p.len());
            String::from_utf8(p[..end].to_vec()).map_err(|_| FatbinError::Layout {
                at: self.offset,
                what: "PTX text is not UTF-8",
            })
        }))
    }
}

/// A parsed fat binary: its header and entries, borrowing the bytes given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatBinary<'a> {
    /// The fat binary header's version (1 in every known one).
    pub version: u16,
    /// Its entries, in order.
    pub entries: Vec<Entry<'a>>,
    /// The whole fat binary (header included; exactly its declared size).
    pub bytes: &'a [u8],
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

impl<'a> FatBinary<'a> {
    /// Parses the fat binary at the start of `bytes` (anything after its declared size is
    /// ignored). Payloads are located, not decompressed ([`Entry::payload`] does that).
    ///
    /// # Errors
    /// [`FatbinError::Magic`] for something else, [`FatbinError::Layout`] for a header or size
    /// that cannot be right (a truncated fat binary among them).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, FatbinError> {
        let layout = |at: usize, what| FatbinError::Layout {
            at: at as u64,
            what,
        };
        if bytes.len() < 16 {
            return Err(if bytes.len() >= 4 && u32_at(bytes, 0) != FATBIN_MAGIC {
                FatbinError::Magic(u32_at(bytes, 0))
            } else {
                layout(0, "shorter than its 16-byte header")
            });
        }
        let magic = u32_at(bytes, 0);
        if magic != FATBIN_MAGIC {
            return Err(FatbinError::Magic(magic));
        }
        let version = u16_at(bytes, 4);
        let header = usize::from(u16_at(bytes, 6));
        let size = u64_at(bytes, 8);
        if !(16..=256).contains(&header) {
            return Err(layout(6, "header size outside 16..=256"));
        }
        let end = u64::try_from(header)
            .ok()
            .and_then(|h| h.checked_add(size))
            .filter(|&e| e <= bytes.len() as u64)
            .ok_or_else(|| layout(8, "declared size runs past the end (truncated?)"))?;
        // `end <= bytes.len()`, so it fits in usize.
        let end = end as usize;
        if header > end {
            return Err(layout(6, "header size past the declared end"));
        }
        let bytes = &bytes[..end];
        let mut at = header;
        let mut entries = Vec::new();
        while at < end {
            if end - at < MIN_ENTRY_HEADER as usize {
                return Err(layout(at, "entry header cut short"));
            }
            let e = &bytes[at..end];
            let hsize = u32_at(e, 4);
            if !(MIN_ENTRY_HEADER..=MAX_ENTRY_HEADER).contains(&hsize) {
                return Err(layout(at + 4, "entry header size outside 64..=4096"));
            }
            let hsize = hsize as usize;
            let padded = u64_at(e, 8);
            let rest = (e.len() as u64).saturating_sub(hsize as u64);
            if hsize > e.len() || padded > rest {
                return Err(layout(at + 8, "entry runs past the declared end"));
            }
            // `padded <= rest < usize::MAX`.
            let padded = padded as usize;
            let region = &e[hsize..hsize + padded];
            let stored_size = u32_at(e, 16) as usize;
            let flags = u64_at(e, 40);
            let uncompressed_size = u64_at(e, 56);
            let compressed = flags
                & (flags::COMPRESSED_UNKNOWN | flags::COMPRESSED_LZ4 | flags::COMPRESSED_ZSTD)
                != 0;
            let stored = if stored_size > padded {
                return Err(layout(at + 16, "payload size above its padded size"));
            } else if stored_size == 0 && !compressed {
                region
            } else {
                &region[..stored_size]
            };
            entries.push(Entry {
                offset: at as u64,
                kind: u16_at(e, 0),
                arch: u32_at(e, 28),
                code_version: (u16_at(e, 26), u16_at(e, 24)),
                flags,
                stored,
                uncompressed_size: if compressed { uncompressed_size } else { 0 },
            });
            at += hsize + padded;
        }
        Ok(FatBinary {
            version,
            entries,
            bytes,
        })
    }

    /// The architectures of its cubins, ascending, without repeats.
    pub fn cubin_archs(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .entries
            .iter()
            .filter(|e| e.kind == kind::ELF)
            .map(|e| e.arch)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// One line naming what it holds: `PTX compute_90 (zstd), cubin sm_90`.
    pub fn describe(&self) -> String {
        if self.entries.is_empty() {
            return "no entries".into();
        }
        let s: Vec<String> = self
            .entries
            .iter()
            .map(|e| match e.compression() {
                Compression::None => e.name(),
                Compression::Lz4 => format!("{} (LZ4)", e.name()),
                Compression::Zstd => format!("{} (zstd)", e.name()),
                Compression::Unknown(f) => format!("{} (compressed, flags {f:#x})", e.name()),
            })
            .collect();
        s.join(", ")
    }
}

/// The PTX to translate from a fat binary: its highest-architecture PTX entry (a generic one
/// before an `a`/`f` one of the same number), decompressed, up to its NUL, with that
/// architecture. A PTX entry that does not decode (damaged, unknown compression, not UTF-8) is
/// logged and the next one tried; `None` when no PTX entry decodes.
pub fn best_ptx(fb: &FatBinary<'_>) -> Option<(u32, String)> {
    let mut ptx: Vec<&Entry<'_>> = fb.entries.iter().filter(|e| e.kind == kind::PTX).collect();
    // Highest arch first; at one arch, the generic PTX (no suffix) first.
    ptx.sort_by_key(|e| {
        (
            core::cmp::Reverse(e.arch),
            e.flags & (flags::ARCH_SPECIFIC | flags::ARCH_FAMILY) != 0,
        )
    });
    for e in ptx {
        match e.ptx_text() {
            Some(Ok(text)) => return Some((e.arch, text)),
            Some(Err(err)) => log::warn!("anycuda: fat binary {}: {err}", e.name()),
            None => {}
        }
    }
    None
}

/// A fat binary whose address is all that is known (what nvcc's wrapper holds), as a slice of
/// its declared size.
///
/// # Safety
/// `data` is NULL or points to a readable fat binary: a 16-byte header and then as many bytes
/// as its size field declares, alive and unchanged for `'a` (nvcc's data lives for the program).
///
/// # Errors
/// [`FatbinError::Null`], [`FatbinError::Magic`], or [`FatbinError::Layout`] for a header size
/// outside 16..=256 or a declared size above [`MAX_FATBIN`].
pub unsafe fn fatbin_at<'a>(data: *const u8) -> Result<&'a [u8], FatbinError> {
    if data.is_null() {
        return Err(FatbinError::Null);
    }
    // SAFETY: caller's contract: the 16-byte header is readable.
    let head = unsafe { core::slice::from_raw_parts(data, 16) };
    let magic = u32_at(head, 0);
    if magic != FATBIN_MAGIC {
        return Err(FatbinError::Magic(magic));
    }
    let header = u64::from(u16_at(head, 6));
    let size = u64_at(head, 8);
    if !(16..=256).contains(&header) {
        return Err(FatbinError::Layout {
            at: 6,
            what: "header size outside 16..=256",
        });
    }
    if size > MAX_FATBIN {
        return Err(FatbinError::Layout {
            at: 8,
            what: "declared size above 4 GiB",
        });
    }
    // `header + size <= 2^32 + 256`, which fits in usize on 64-bit targets.
    let len = usize::try_from(header + size).map_err(|_| FatbinError::Layout {
        at: 8,
        what: "declared size does not fit in memory",
    })?;
    // SAFETY: caller's contract: the header and the size it declares are readable for 'a.
    Ok(unsafe { core::slice::from_raw_parts(data, len) })
}

/// The fat binary a `__fatBinC_Wrapper_t` points to: the wrapper's version and the fat binary's
/// bytes ([`fatbin_at`]).
///
/// # Safety
/// `wrapper` is NULL or points to a readable `__fatBinC_Wrapper_t` (`u32` magic, `u32` version,
/// data pointer, ...) whose data pointer is NULL or as [`fatbin_at`] requires, for `'a`: nvcc's
/// contract for `__cudaRegisterFatBinary`.
///
/// # Errors
/// [`FatbinError::Null`], [`FatbinError::WrapperMagic`], [`FatbinError::WrapperVersion`], and
/// those of [`fatbin_at`].
pub unsafe fn wrapped_fatbin<'a>(wrapper: *const c_void) -> Result<(u32, &'a [u8]), FatbinError> {
    if wrapper.is_null() {
        return Err(FatbinError::Null);
    }
    // SAFETY: caller's contract: the wrapper is { u32 magic; u32 version; const u8 *data; ... }.
    let (magic, version, data) = unsafe {
        let w = wrapper.cast::<u8>();
        (
            w.cast::<u32>().read_unaligned(),
            w.add(4).cast::<u32>().read_unaligned(),
            w.add(8).cast::<*const u8>().read_unaligned(),
        )
    };
    if magic != WRAPPER_MAGIC {
        return Err(FatbinError::WrapperMagic(magic));
    }
    if version != 1 && version != 2 {
        return Err(FatbinError::WrapperVersion(version));
    }
    // SAFETY: caller's contract for the data pointer.
    let bytes = unsafe { fatbin_at(data) }?;
    Ok((version, bytes))
}

/// Decodes one LZ4 block (the raw block format: sequences of a token, literals, a 2-byte offset
/// and a match, the last sequence literals only) that must decode to exactly `size` bytes.
///
/// # Errors
/// A description of the damage: a length or offset running past the input or the output
/// decoded so far, or a result other than `size` bytes long.
pub fn lz4_block(src: &[u8], size: usize) -> Result<Vec<u8>, String> {
    // Each input byte yields at most 255 output bytes or so: never allocate past that.
    let mut out = Vec::with_capacity(size.min(src.len().saturating_mul(256)));
    let mut i = 0usize;
    // A length: 4 bits of the token, then while 15 (or 255), bytes added on.
    let length = |i: &mut usize, first: usize| -> Result<usize, String> {
        let mut n = first;
        if first == 15 {
            loop {
                let b = *src.get(*i).ok_or("length cut short")?;
                *i += 1;
                n = n.checked_add(usize::from(b)).ok_or("length overflows")?;
                if b != 255 {
                    break;
                }
            }
        }
        Ok(n)
    };
    loop {
        let token = *src.get(i).ok_or("sequence token missing")?;
        i += 1;
        let lit = length(&mut i, usize::from(token >> 4))?;
        let lit_end = i
            .checked_add(lit)
            .filter(|&e| e <= src.len())
            .ok_or("literals run past the input")?;
        if lit > size - out.len() {
            return Err(format!("longer than the declared {size} bytes"));
        }
        out.extend_from_slice(&src[i..lit_end]);
        i = lit_end;
        if i == src.len() {
            break;
        }
        if src.len() - i < 2 {
            return Err("match offset cut short".into());
        }
        let offset = usize::from(u16::from_le_bytes([src[i], src[i + 1]]));
        i += 2;
        if offset == 0 || offset > out.len() {
            return Err(format!(
                "match offset {offset} outside the {} bytes decoded",
                out.len()
            ));
        }
        let len = length(&mut i, usize::from(token & 15))?
            .checked_add(4)
            .ok_or("length overflows")?;
        if len > size - out.len() {
            return Err(format!("longer than the declared {size} bytes"));
        }
        let start = out.len() - offset;
        if offset >= len {
            out.extend_from_within(start..start + len);
        } else {
            // Overlapping: each byte copies one decoded `offset` bytes earlier.
            for k in 0..len {
                let b = out[start + k];
                out.push(b);
            }
        }
    }
    if out.len() != size {
        return Err(format!(
            "decoded {} bytes, the header declares {size}",
            out.len()
        ));
    }
    Ok(out)
}

/// Decodes Zstandard frames (one or more, back to back) that must decode to exactly `size`
/// bytes.
fn zstd(src: &[u8], size: usize) -> Result<Vec<u8>, String> {
    let mut input = src;
    let mut out = Vec::with_capacity(size.min(src.len().saturating_mul(64)));
    while !input.is_empty() {
        let before = input.len();
        let mut dec = ruzstd::decoding::StreamingDecoder::new(&mut input)
            .map_err(|e| format!("frame header: {e}"))?;
        // One byte past the declared size is enough to tell "too long".
        let room = (size - out.len()) as u64 + 1;
        (&mut dec)
            .take(room)
            .read_to_end(&mut out)
            .map_err(|e| e.to_string())?;
        if out.len() > size {
            return Err(format!("longer than the declared {size} bytes"));
        }
        drop(dec);
        if input.len() == before {
            return Err("no progress".into());
        }
    }
    if out.len() != size {
        return Err(format!(
            "decoded {} bytes, the header declares {size}",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
