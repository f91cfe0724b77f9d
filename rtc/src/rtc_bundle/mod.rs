//! The source bundle `anycuda nvcc` appends to the PTX it writes, so that a module built by
//! nvcc can still be compiled for an AMD GPU when it is loaded.
//!
//! PTX is NVIDIA's assembly: only NVIDIA's driver compiles it. A kernel crate that runs
//! `nvcc --ptx` at build time (cudaforge, bindgen_cuda) therefore embeds code that cannot run on
//! AMD. The bundle carries the kernel's *source* inside that PTX, as comment lines the CUDA
//! driver ignores; on HIP, loading such PTX compiles the bundle with hipRTC for the device
//! instead (backends/hip, `adapt/image.rs`), and on CUDA a driver that refuses the PTX (too new
//! a PTX version, another GPU's target) gets a cubin compiled from it by NVRTC
//! (backends/cuda, `rtc_bundle.rs`). Both compile through [`compile`] and [`cached`].
//!
//! This file is the format and the writer (what `anycuda nvcc` puts in PTX); `load.rs` is the
//! loading side (compiling a bundle, the code cache). They are apart because CI's candle step
//! keys its cache of candle-kernels' nvcc build by the writer's sources (`ci/candle-ci.sh`): a
//! change on the loading side must not cost that build again.
//!
//! # Format (version 1)
//!
//! A block of PTX comment lines, each starting with [`LINE_PREFIX`] (`// anycuda-bundle: `):
//!
//! ```text
//! // anycuda-bundle: v1 <payload bytes> <FNV-1a 64 of the payload, 16 hex digits>
//! // anycuda-bundle: <base64 of up to 57 payload bytes>
//! // ...
//! // anycuda-bundle: end
//! ```
//!
//! The payload is a sequence of records `[tag: u8][length: u32 little-endian][bytes]`, every
//! string UTF-8: the main file's name and text, each bundled header's include name and text (a
//! name record followed by its text record), the compile options (NVRTC's spelling, used for
//! the compile), the `-I` folders in command-line order (recorded, not used: the headers they
//! led to are in the bundle), the CUDA architecture nvcc targeted (recorded) and what produced
//! the PTX. Tags a reader does not know are skipped, so version 1 can grow.
//!
//! The digest detects damage (a truncated or edited file), not tampering: whoever can edit the
//! PTX can edit the source too. Every size is bounded ([`MAX_PAYLOAD`], [`MAX_RECORDS`]), and a
//! damaged block is an error value, never a panic.
//!
//! What is bundled: the main file and every header it includes with `#include "..."`, found as
//! nvcc finds it ([`crate::rtc_include::resolve`]), recursively. Not bundled: `#include <...>`
//! (system and CUDA headers: hipRTC brings its own, and anycuda's built-ins fill the gaps), a
//! quoted include that names a built-in header or resolves into a CUDA toolkit's include folder
//! (one holding `cuda_runtime_api.h`), and an include that is not found (the compiler reports it
//! at load time as it would at build time).

use crate::rtc_headers::{builtin_headers, RtcTarget};
use crate::rtc_include::{self, SearchPath};
use std::fmt;
use std::path::{Path, PathBuf};

mod load;
pub use load::{
    cached, code_cache, compile, install_code_cache, key_fields, BundleCompileError, CodeCache,
};

/// What every line of a bundle starts with (after optional leading white space).
pub const LINE_PREFIX: &str = "// anycuda-bundle: ";
/// The format version this module writes and reads.
pub const VERSION: u32 = 1;
/// The most payload bytes a bundle may hold (64 MiB); a larger one is refused.
pub const MAX_PAYLOAD: usize = 64 << 20;
/// The most records a bundle may hold.
pub const MAX_RECORDS: usize = 1 << 16;
/// The most headers [`gather`] follows from one file.
pub const MAX_HEADERS: usize = 4096;
/// Payload bytes per data line (57 bytes make 76 base64 characters).
const CHUNK: usize = 57;

const TAG_NAME: u8 = 1;
const TAG_SOURCE: u8 = 2;
const TAG_HEADER_NAME: u8 = 3;
const TAG_HEADER_TEXT: u8 = 4;
const TAG_OPTION: u8 = 5;
const TAG_INCLUDE_DIR: u8 = 6;
const TAG_ARCH: u8 = 7;
const TAG_PRODUCER: u8 = 8;

/// A kernel's source as recorded in its PTX.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bundle {
    /// The main file's name (its file name, without folders), e.g. `"affine.cu"`.
    pub name: String,
    /// The main file's text.
    pub source: String,
    /// `(include name as written, text)` of every bundled header, in the order first met.
    pub headers: Vec<(String, String)>,
    /// The compile options, in NVRTC's spelling (`-DNAME=V`, `-std=c++17`,
    /// `--use_fast_math`, ...): what a compile of the bundle passes, besides the target.
    pub options: Vec<String>,
    /// The `-I` folders of the nvcc command line, in order (recorded for diagnosis).
    pub include_dirs: Vec<String>,
    /// The CUDA architecture nvcc compiled for (e.g. `sm_90`), if one was named.
    pub arch: Option<String>,
    /// What produced the PTX (e.g. `"nvcc"` or `"NVRTC 13.5"`).
    pub producer: String,
}

/// Why a bundle could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BundleError {
    /// The block ends before its `end` line or holds fewer bytes than its first line says.
    Truncated,
    /// The block is malformed or its digest does not match (the reason says which).
    Damaged(String),
    /// A version this build does not read.
    UnsupportedVersion(String),
    /// The payload or the record count exceeds [`MAX_PAYLOAD`] or [`MAX_RECORDS`].
    TooLarge,
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated => write!(f, "the anycuda source bundle is truncated"),
            Self::Damaged(why) => write!(f, "the anycuda source bundle is damaged: {why}"),
            Self::UnsupportedVersion(v) => write!(
                f,
                "the anycuda source bundle has version {v}; this anycuda reads version {VERSION}"
            ),
            Self::TooLarge => write!(
                f,
                "the anycuda source bundle exceeds {MAX_PAYLOAD} bytes or {MAX_RECORDS} records"
            ),
        }
    }
}

impl std::error::Error for BundleError {}

/// FNV-1a, 64 bits: the damage check of the payload.
fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn b64_encode(data: &[u8], out: &mut String) {
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(B64[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
}

fn b64_value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decodes one line's base64 (padded, as [`b64_encode`] writes it) onto `out`.
fn b64_decode(text: &str, out: &mut Vec<u8>) -> Result<(), BundleError> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return Err(BundleError::Damaged(
            "a data line is not whole base64".into(),
        ));
    }
    for q in bytes.chunks(4) {
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 {
            return Err(BundleError::Damaged("bad base64 padding".into()));
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            let v = b64_value(c).ok_or_else(|| {
                BundleError::Damaged("a data line holds a non-base64 byte".into())
            })?;
            n = (n << 6) | v;
        }
        n <<= 6 * pad as u32;
        let got = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&got[..3 - pad]);
    }
    Ok(())
}

fn record(out: &mut Vec<u8>, tag: u8, s: &str) {
    out.push(tag);
    // Lengths are bounded by MAX_PAYLOAD (checked by `to_text`), far below u32::MAX.
    out.extend_from_slice(&(s.len().min(u32::MAX as usize) as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

impl Bundle {
    /// The payload bytes (records) of this bundle.
    fn payload(&self) -> Vec<u8> {
        let mut p = Vec::new();
        record(&mut p, TAG_NAME, &self.name);
        record(&mut p, TAG_SOURCE, &self.source);
        for (n, t) in &self.headers {
            record(&mut p, TAG_HEADER_NAME, n);
            record(&mut p, TAG_HEADER_TEXT, t);
        }
        for o in &self.options {
            record(&mut p, TAG_OPTION, o);
        }
        for d in &self.include_dirs {
            record(&mut p, TAG_INCLUDE_DIR, d);
        }
        if let Some(a) = &self.arch {
            record(&mut p, TAG_ARCH, a);
        }
        record(&mut p, TAG_PRODUCER, &self.producer);
        p
    }

    /// The bundle as PTX comment lines (each ending in `\n`), to append to a PTX file.
    ///
    /// # Errors
    /// [`BundleError::TooLarge`] when the payload would exceed [`MAX_PAYLOAD`] or
    /// [`MAX_RECORDS`] (a reader would refuse it).
    pub fn to_text(&self) -> Result<String, BundleError> {
        let records = 3 + 2 * self.headers.len() + self.options.len() + self.include_dirs.len();
        let p = self.payload();
        if p.len() > MAX_PAYLOAD || records > MAX_RECORDS {
            return Err(BundleError::TooLarge);
        }
        let mut out = String::with_capacity(p.len() * 4 / 3 + p.len() / CHUNK * 24 + 128);
        out.push_str(&format!(
            "{LINE_PREFIX}v{VERSION} {} {:016x}\n",
            p.len(),
            fnv1a64(&p)
        ));
        for c in p.chunks(CHUNK) {
            out.push_str(LINE_PREFIX);
            b64_encode(c, &mut out);
            out.push('\n');
        }
        out.push_str(LINE_PREFIX);
        out.push_str("end\n");
        Ok(out)
    }

    /// The bundle of `text` (a PTX file), `Ok(None)` when it has none.
    ///
    /// Only the first bundle is read; text after its `end` line is ignored.
    ///
    /// # Errors
    /// A [`BundleError`] when a bundle starts but cannot be read: truncated, damaged (bad
    /// base64, digest or record), of another version, or too large.
    pub fn find(text: &str) -> Result<Option<Bundle>, BundleError> {
        let mut lines = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix(LINE_PREFIX.trim_end()))
            .map(str::trim);
        let Some(first) = lines.next() else {
            return Ok(None);
        };
        let mut head = first.split_ascii_whitespace();
        let version = head.next().unwrap_or_default();
        if version != format!("v{VERSION}") {
            return Err(BundleError::UnsupportedVersion(
                version.chars().take(32).collect(),
            ));
        }
        let len: usize = head
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| BundleError::Damaged("the first line has no payload size".into()))?;
        let digest = head
            .next()
            .and_then(|s| u64::from_str_radix(s, 16).ok())
            .ok_or_else(|| BundleError::Damaged("the first line has no digest".into()))?;
        if len > MAX_PAYLOAD {
            return Err(BundleError::TooLarge);
        }
        let mut p = Vec::with_capacity(len);
        let mut ended = false;
        for l in lines {
            if l == "end" {
                ended = true;
                break;
            }
            b64_decode(l, &mut p)?;
            if p.len() > len {
                return Err(BundleError::Damaged(
                    "more data than the first line says".into(),
                ));
            }
        }
        if !ended || p.len() < len {
            return Err(BundleError::Truncated);
        }
        if fnv1a64(&p) != digest {
            return Err(BundleError::Damaged("the digest does not match".into()));
        }
        Self::from_payload(&p).map(Some)
    }

    fn from_payload(mut p: &[u8]) -> Result<Bundle, BundleError> {
        let damaged = |why: &str| BundleError::Damaged(why.into());
        let mut b = Bundle::default();
        let (mut seen_name, mut seen_source) = (false, false);
        let mut pending_header: Option<String> = None;
        let mut n = 0usize;
        while !p.is_empty() {
            n += 1;
            if n > MAX_RECORDS {
                return Err(BundleError::TooLarge);
            }
            let (&tag, rest) = p.split_first().ok_or_else(|| damaged("empty record"))?;
            let len_bytes: [u8; 4] = rest
                .get(..4)
                .and_then(|s| s.try_into().ok())
                .ok_or_else(|| damaged("a record length is cut off"))?;
            let len = u32::from_le_bytes(len_bytes) as usize;
            let body = rest
                .get(4..4 + len)
                .ok_or_else(|| damaged("a record is longer than the payload"))?;
            p = &rest[4 + len..];
            let s = std::str::from_utf8(body)
                .map_err(|_| damaged("a record is not UTF-8"))?
                .to_owned();
            if pending_header.is_some() && tag != TAG_HEADER_TEXT {
                return Err(damaged("a header name without its text"));
            }
            match tag {
                TAG_NAME => {
                    b.name = s;
                    seen_name = true;
                }
                TAG_SOURCE => {
                    b.source = s;
                    seen_source = true;
                }
                TAG_HEADER_NAME => pending_header = Some(s),
                TAG_HEADER_TEXT => {
                    let name = pending_header
                        .take()
                        .ok_or_else(|| damaged("a header text without its name"))?;
                    b.headers.push((name, s));
                }
                TAG_OPTION => b.options.push(s),
                TAG_INCLUDE_DIR => b.include_dirs.push(s),
                TAG_ARCH => b.arch = Some(s),
                TAG_PRODUCER => b.producer = s,
                // A later writer's record: skipped (see the module docs).
                _ => {}
            }
        }
        if pending_header.is_some() {
            return Err(damaged("a header name without its text"));
        }
        if !(seen_name && seen_source) {
            return Err(damaged("no main file"));
        }
        Ok(b)
    }
}

/// Whether the quoted include `name`, found at `path`, is a header the compilers bring
/// themselves (a built-in, or a file of a CUDA toolkit's include folder): never bundled.
fn is_system_header(name: &str, path: &Path) -> bool {
    let builtin = [RtcTarget::Nvrtc, RtcTarget::Hiprtc]
        .into_iter()
        .any(|t| builtin_headers(t).iter().any(|(n, _)| *n == name));
    builtin
        || path
            .parent()
            .is_some_and(|d| d.join("cuda_runtime_api.h").is_file())
}

/// Reads `main` and every local header it includes (quoted includes, recursively, found as
/// nvcc finds them through `include_dirs`): a [`Bundle`] with its name, source and headers set
/// (the rest left for the caller).
///
/// # Errors
/// The main file cannot be read or is not UTF-8; a header that is found but cannot be read or
/// is not UTF-8; more than [`MAX_HEADERS`] headers, or more than [`MAX_PAYLOAD`] bytes.
pub fn gather(main: &Path, include_dirs: &[PathBuf]) -> Result<Bundle, String> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    };
    let source = read(main)?;
    let name = main.file_name().map_or_else(
        || "main.cu".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    );
    let search = SearchPath {
        source_dir: main.parent().map(|d| {
            if d.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                d.to_path_buf()
            }
        }),
        cwd: std::env::current_dir().ok(),
        include_dirs: include_dirs.to_vec(),
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut total = source.len();
    // (text, folder of the file it came from), still to scan.
    let mut todo = vec![(source.clone(), search.source_dir.clone())];
    while let Some((text, dir)) = todo.pop() {
        for (inc, quoted) in rtc_include::includes(&text) {
            if !quoted || headers.iter().any(|(n, _)| *n == inc) {
                continue;
            }
            let Some(path) = rtc_include::resolve(&inc, true, dir.as_deref(), &search) else {
                continue;
            };
            if is_system_header(&inc, &path) {
                continue;
            }
            let t = read(&path)?;
            total += t.len() + inc.len();
            if headers.len() >= MAX_HEADERS || total > MAX_PAYLOAD {
                return Err(format!(
                    "the sources of {} exceed the bundle's limits ({MAX_HEADERS} headers, \
                     {MAX_PAYLOAD} bytes)",
                    main.display()
                ));
            }
            headers.push((inc, t.clone()));
            todo.push((t, path.parent().map(Path::to_path_buf)));
        }
    }
    Ok(Bundle {
        name,
        source,
        headers,
        ..Bundle::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Bundle {
        Bundle {
            name: "k.cu".into(),
            source: "#include \"a.cuh\"\nextern \"C\" __global__ void k() {}\n".into(),
            headers: vec![("a.cuh".into(), "#define A 1\n".into())],
            options: vec!["-DX=1".into(), "-std=c++17".into()],
            include_dirs: vec!["/inc".into()],
            arch: Some("sm_90".into()),
            producer: "NVRTC 13.5".into(),
        }
    }

    #[test]
    fn round_trips_inside_ptx() {
        let b = sample();
        let ptx = format!(".version 8.0\n.target sm_90\n{}", b.to_text().unwrap());
        assert!(ptx
            .lines()
            .skip(2)
            .all(|l| l.starts_with("// anycuda-bundle: ")));
        assert_eq!(Bundle::find(&ptx).unwrap(), Some(b));
    }

    #[test]
    fn base64_matches_rfc4648() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut s = String::new();
            b64_encode(plain.as_bytes(), &mut s);
            assert_eq!(s, enc);
            let mut d = Vec::new();
            b64_decode(enc, &mut d).unwrap();
            assert_eq!(d, plain.as_bytes());
        }
    }

    #[test]
    fn ptx_without_bundle_has_none() {
        assert_eq!(Bundle::find(".version 8.0\n// a comment\n").unwrap(), None);
    }

    #[test]
    fn truncated_and_damaged_bundles_are_reported() {
        let text = sample().to_text().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // Without the end line, or without a data line.
        let cut = lines[..lines.len() - 1].join("\n");
        assert_eq!(Bundle::find(&cut), Err(BundleError::Truncated));
        let mut missing = lines.clone();
        missing.remove(1);
        assert!(matches!(
            Bundle::find(&missing.join("\n")),
            Err(BundleError::Truncated | BundleError::Damaged(_))
        ));
        // One character changed in the data.
        let mut bad = text.clone().into_bytes();
        let at = lines[0].len() + 1 + LINE_PREFIX.len() + 3;
        bad[at] = if bad[at] == b'A' { b'B' } else { b'A' };
        assert!(matches!(
            Bundle::find(std::str::from_utf8(&bad).unwrap()),
            Err(BundleError::Damaged(_))
        ));
        // Another version, a huge size, a non-base64 byte.
        let v2 = text.replacen("v1", "v2", 1);
        assert!(matches!(
            Bundle::find(&v2),
            Err(BundleError::UnsupportedVersion(_))
        ));
        let huge = format!("{LINE_PREFIX}v1 99999999999 0\n{LINE_PREFIX}end\n");
        assert_eq!(Bundle::find(&huge), Err(BundleError::TooLarge));
        let junk = format!("{LINE_PREFIX}v1 3 0\n{LINE_PREFIX}A*==\n{LINE_PREFIX}end\n");
        assert!(matches!(Bundle::find(&junk), Err(BundleError::Damaged(_))));
    }

    #[test]
    fn every_prefix_of_a_bundle_is_an_error_or_none_never_a_panic() {
        let text = sample().to_text().unwrap();
        // The last cut drops only the final newline, which leaves the bundle whole.
        for cut in 0..text.len() - 1 {
            let r = Bundle::find(&text[..cut]);
            assert!(r.as_ref().map_or(true, Option::is_none), "{cut}: {r:?}");
        }
    }

    #[test]
    fn bad_records_are_damage() {
        let mut p = sample().payload();
        p.truncate(p.len() - 2);
        assert!(matches!(
            Bundle::from_payload(&p),
            Err(BundleError::Damaged(_))
        ));
        let mut only_name = Vec::new();
        record(&mut only_name, TAG_HEADER_NAME, "x.h");
        assert!(Bundle::from_payload(&only_name).is_err());
        // A later writer's tag is skipped.
        let mut p = sample().payload();
        record(&mut p, 200, "future");
        assert_eq!(Bundle::from_payload(&p).unwrap(), sample());
    }

    #[test]
    fn gather_follows_quoted_includes_only() {
        let root = std::env::temp_dir().join(format!("anycuda-bundle-{}", std::process::id()));
        let (src, inc, cuda) = (root.join("src"), root.join("inc"), root.join("cuda"));
        for d in [&src, &inc, &cuda] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(
            src.join("k.cu"),
            "#include \"a.cuh\"\n#include <stdint.h>\n#include \"cuda_fp16.h\"\n#include \"tk.h\"\n",
        )
        .unwrap();
        std::fs::write(src.join("a.cuh"), "#include \"b.cuh\"\n").unwrap();
        std::fs::write(inc.join("b.cuh"), "#define B 2\n").unwrap();
        std::fs::write(cuda.join("cuda_runtime_api.h"), "").unwrap();
        std::fs::write(cuda.join("tk.h"), "toolkit").unwrap();
        let b = gather(&src.join("k.cu"), &[inc.clone(), cuda.clone()]).unwrap();
        assert_eq!(b.name, "k.cu");
        let names: Vec<&str> = b.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a.cuh", "b.cuh"]);
        assert_eq!(b.headers[1].1, "#define B 2\n");
        assert!(gather(&src.join("missing.cu"), &[]).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
