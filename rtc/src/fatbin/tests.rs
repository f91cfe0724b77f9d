//! The reader on fat binaries assembled here (every field under control), its decoders on
//! round-trips, and bad input: truncation at every byte and random mutations never panic. Real
//! nvcc output: `rtc/tests/fatbin_nvcc.rs`.

use super::*;

/// A small deterministic generator (xorshift64*), so every run replays the same cases.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A greedy LZ4 block encoder for the tests (matches found by brute force over a short window):
/// enough to produce every sequence shape the decoder must take (long literal runs, long and
/// overlapping matches).
fn lz4_encode(src: &[u8]) -> Vec<u8> {
    fn put_len(out: &mut Vec<u8>, mut n: usize) {
        while n >= 255 {
            out.push(255);
            n -= 255;
        }
        out.push(n as u8);
    }
    let mut out = Vec::new();
    let mut lit_start = 0;
    let mut i = 0;
    // LZ4's rule: the last 5 bytes are literals, and no match starts in the last 12.
    let limit = src.len().saturating_sub(12);
    while i < limit {
        let mut best = (0, 0);
        for off in 1..=i.min(1024) {
            let mut n = 0;
            while i + n < src.len() - 5 && src[i + n] == src[i + n - off] {
                n += 1;
            }
            if n > best.1 {
                best = (off, n);
            }
        }
        if best.1 < 4 {
            i += 1;
            continue;
        }
        let lit = i - lit_start;
        let m = best.1 - 4;
        out.push(((lit.min(15) as u8) << 4) | m.min(15) as u8);
        if lit >= 15 {
            put_len(&mut out, lit - 15);
        }
        out.extend_from_slice(&src[lit_start..i]);
        out.extend_from_slice(&(best.0 as u16).to_le_bytes());
        if m >= 15 {
            put_len(&mut out, m - 15);
        }
        i += best.1;
        lit_start = i;
    }
    let lit = src.len() - lit_start;
    out.push((lit.min(15) as u8) << 4);
    if lit >= 15 {
        put_len(&mut out, lit - 15);
    }
    out.extend_from_slice(&src[lit_start..]);
    out
}

fn zstd_encode(src: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(src, ruzstd::encoding::CompressionLevel::Fastest)
}

/// One entry to assemble: kind, arch, flags, the payload as stored, its uncompressed size, and
/// the header size.
struct Spec<'a> {
    kind: u16,
    arch: u32,
    flags: u64,
    stored: &'a [u8],
    uncompressed: u64,
    header: usize,
}

fn spec(kind: u16, arch: u32, stored: &[u8]) -> Spec<'_> {
    Spec {
        kind,
        arch,
        flags: flags::ADDRESS_64 | flags::HOST_LINUX,
        stored,
        uncompressed: 0,
        header: 64,
    }
}

/// A fat binary laid out as nvcc lays one out (payload size at 16 set for compressed entries,
/// 0 for plain ones, as nvcc 13.0 writes them).
fn assemble(entries: &[Spec<'_>]) -> Vec<u8> {
    let mut body = Vec::new();
    for e in entries {
        let padded = e.stored.len().div_ceil(8) * 8;
        let mut h = vec![0u8; e.header];
        h[0..2].copy_from_slice(&e.kind.to_le_bytes());
        h[2..4].copy_from_slice(&0x101u16.to_le_bytes());
        h[4..8].copy_from_slice(&(e.header as u32).to_le_bytes());
        h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
        if e.flags & (flags::COMPRESSED_LZ4 | flags::COMPRESSED_ZSTD) != 0 {
            h[16..20].copy_from_slice(&(e.stored.len() as u32).to_le_bytes());
        }
        h[24..28].copy_from_slice(&0x0009_0000u32.to_le_bytes());
        h[28..32].copy_from_slice(&e.arch.to_le_bytes());
        h[40..48].copy_from_slice(&e.flags.to_le_bytes());
        h[56..64].copy_from_slice(&e.uncompressed.to_le_bytes());
        body.extend_from_slice(&h);
        body.extend_from_slice(e.stored);
        body.resize(body.len() + padded - e.stored.len(), 0);
    }
    let mut v = Vec::new();
    v.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
    v.extend_from_slice(&1u16.to_le_bytes());
    v.extend_from_slice(&16u16.to_le_bytes());
    v.extend_from_slice(&(body.len() as u64).to_le_bytes());
    v.extend_from_slice(&body);
    v
}

const PTX75: &[u8] = b"\n.version 8.0\n.target sm_75\n.address_size 64\n\0";

fn ptx90() -> Vec<u8> {
    let mut p = b"\n\n\n\n//\n.version 9.0\n.target sm_90\n.address_size 64\n".to_vec();
    for i in 0..40 {
        p.extend_from_slice(format!("\tadd.s32 %r{i}, %r{i}, {i};\n").as_bytes());
    }
    p.push(0);
    p
}

fn cubin() -> Vec<u8> {
    let mut c = b"\x7fELF\x02\x01\x01\x41".to_vec();
    c.extend((0..600u32).map(|i| (i % 7) as u8));
    c
}

/// Plain PTX, LZ4 PTX, zstd cubin: the three storage forms in one fat binary.
fn mixed() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let ptx = ptx90();
    let elf = cubin();
    let lz = lz4_encode(&ptx);
    let zs = zstd_encode(&elf);
    let fb = assemble(&[
        spec(kind::PTX, 75, PTX75),
        Spec {
            flags: flags::ADDRESS_64 | flags::HOST_LINUX | flags::COMPRESSED_LZ4,
            uncompressed: ptx.len() as u64,
            header: 80,
            ..spec(kind::PTX, 90, &lz)
        },
        Spec {
            flags: flags::ADDRESS_64 | flags::HOST_LINUX | flags::COMPRESSED_ZSTD,
            uncompressed: elf.len() as u64,
            ..spec(kind::ELF, 90, &zs)
        },
    ]);
    (fb, ptx, elf)
}

#[test]
fn reads_every_storage_form() {
    let (fb, ptx, elf) = mixed();
    let f = FatBinary::parse(&fb).unwrap();
    assert_eq!(f.version, 1);
    assert_eq!(f.bytes.len(), fb.len());
    assert_eq!(f.entries.len(), 3);
    let [a, b, c] = [f.entries[0], f.entries[1], f.entries[2]];
    assert_eq!(
        (a.kind, a.arch, a.compression()),
        (kind::PTX, 75, Compression::None)
    );
    assert_eq!(a.code_version, (9, 0));
    assert_eq!(a.address_bits(), 64);
    // Plain, with nvcc's 0 payload size: the padded region (the NUL and padding included).
    assert_eq!(&a.payload().unwrap()[..PTX75.len()], PTX75);
    assert!(matches!(a.payload().unwrap(), Cow::Borrowed(_)));
    assert_eq!(b.compression(), Compression::Lz4);
    assert!(b.is_compressed());
    assert_eq!(&*b.payload().unwrap(), &ptx[..]);
    assert_eq!(c.compression(), Compression::Zstd);
    assert_eq!(&*c.payload().unwrap(), &elf[..]);
    assert_eq!(
        f.describe(),
        "PTX compute_75, PTX compute_90 (LZ4), cubin sm_90 (zstd)"
    );
    assert_eq!(f.cubin_archs(), vec![90]);
    // The best PTX: the highest arch, decompressed, up to its NUL.
    let (arch, text) = best_ptx(&f).unwrap();
    assert_eq!(arch, 90);
    assert_eq!(text.as_bytes(), &ptx[..ptx.len() - 1]);
    assert!(c.ptx_text().is_none());
    // Bytes after the declared size are not part of it.
    let mut longer = fb.clone();
    longer.extend_from_slice(&[0xAB; 24]);
    assert_eq!(FatBinary::parse(&longer).unwrap().bytes, &fb[..]);
}

#[test]
fn best_ptx_prefers_generic_and_skips_damaged_entries() {
    let ptx = ptx90();
    let lz = lz4_encode(&ptx);
    let mut bad = lz.clone();
    bad[0] = 0xF0; // 15+ literals: the lengths no longer add up
    let specific = Spec {
        flags: flags::ADDRESS_64 | flags::ARCH_SPECIFIC,
        ..spec(kind::PTX, 90, b"//a\0")
    };
    let damaged = Spec {
        flags: flags::ADDRESS_64 | flags::COMPRESSED_LZ4,
        uncompressed: ptx.len() as u64,
        ..spec(kind::PTX, 100, &bad)
    };
    let fb = assemble(&[
        specific,
        spec(kind::PTX, 90, b"//generic\0"),
        damaged,
        spec(kind::ELF, 100, b"\x7fELF"),
    ]);
    let f = FatBinary::parse(&fb).unwrap();
    assert_eq!(f.entries[0].name(), "PTX compute_90a");
    assert!(f.entries[2].payload().is_err());
    assert_eq!(best_ptx(&f), Some((90, "//generic".into())));
    // No PTX at all: None.
    let fb = assemble(&[spec(kind::ELF, 90, b"\x7fELF")]);
    assert_eq!(best_ptx(&FatBinary::parse(&fb).unwrap()), None);
    assert_eq!(
        FatBinary::parse(&assemble(&[])).unwrap().describe(),
        "no entries"
    );
}

#[test]
fn damaged_headers_are_errors() {
    let (fb, _, _) = mixed();
    let err = |b: &[u8]| FatBinary::parse(b).unwrap_err();
    let mut m = fb.clone();
    m[0] ^= 1;
    assert!(matches!(err(&m), FatbinError::Magic(_)));
    let mut m = fb.clone();
    m[6] = 8; // header size 8
    assert!(matches!(err(&m), FatbinError::Layout { at: 6, .. }));
    let mut m = fb.clone();
    m[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(err(&m), FatbinError::Layout { at: 8, .. }));
    // First entry's padded size past the end.
    let mut m = fb.clone();
    m[16 + 8..16 + 16].copy_from_slice(&(u64::MAX - 3).to_le_bytes());
    assert!(matches!(err(&m), FatbinError::Layout { at: 24, .. }));
    // Entry header size 0 and huge.
    for h in [0u32, 63, 1 << 20, u32::MAX] {
        let mut m = fb.clone();
        m[16 + 4..16 + 8].copy_from_slice(&h.to_le_bytes());
        assert!(matches!(err(&m), FatbinError::Layout { at: 20, .. }), "{h}");
    }
    // Payload size above the padded size.
    let mut m = fb.clone();
    m[16 + 16..16 + 20].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(err(&m), FatbinError::Layout { at: 32, .. }));
    assert!(matches!(err(&fb[..3]), FatbinError::Layout { at: 0, .. }));
    assert!(matches!(err(b"\x7fELF...."), FatbinError::Magic(_)));
}

#[test]
fn payload_errors_name_the_entry() {
    let elf = cubin();
    let zs = zstd_encode(&elf);
    let lz = lz4_encode(&elf);
    let one = |flags: u64, stored: &[u8], uncompressed: u64| {
        let fb = assemble(&[Spec {
            flags,
            uncompressed,
            ..spec(kind::ELF, 90, stored)
        }]);
        let f = FatBinary::parse(&fb).unwrap();
        f.entries[0].payload().map(|p| p.len())
    };
    assert_eq!(
        one(flags::COMPRESSED_ZSTD, &zs, elf.len() as u64),
        Ok(elf.len())
    );
    assert_eq!(
        one(flags::COMPRESSED_LZ4, &lz, elf.len() as u64),
        Ok(elf.len())
    );
    // Declared sizes that are not the real one, both ways.
    for n in [0, elf.len() as u64 - 1, elf.len() as u64 + 1] {
        for (f, s) in [(flags::COMPRESSED_ZSTD, &zs), (flags::COMPRESSED_LZ4, &lz)] {
            assert!(
                matches!(one(f, s, n), Err(FatbinError::Decompress { at: 16, .. })),
                "{n} {:?}",
                one(f, s, n)
            );
        }
    }
    assert!(matches!(
        one(flags::COMPRESSED_ZSTD, &zs, MAX_PAYLOAD + 1),
        Err(FatbinError::TooLarge { at: 16, .. })
    ));
    for f in [
        flags::COMPRESSED_UNKNOWN,
        flags::COMPRESSED_LZ4 | flags::COMPRESSED_ZSTD,
    ] {
        assert!(matches!(
            one(f, &zs, 10),
            Err(FatbinError::UnknownCompression { at: 16, .. })
        ));
    }
    // LZ4 data given as zstd and the other way round.
    assert!(one(flags::COMPRESSED_ZSTD, &lz, elf.len() as u64).is_err());
    assert!(one(flags::COMPRESSED_LZ4, &zs, elf.len() as u64).is_err());
    let e = one(flags::COMPRESSED_LZ4, b"\x10", 1).unwrap_err();
    assert!(e.to_string().contains("entry at byte 16: LZ4"), "{e}");
}

#[test]
fn lz4_round_trips_and_refuses_bad_blocks() {
    let mut rng = Rng(0x5EED);
    for round in 0..300 {
        let len = rng.below(if round < 200 { 300 } else { 5000 });
        let alphabet = 1 + rng.below(6);
        let src: Vec<u8> = (0..len)
            .map(|i| {
                if rng.below(4) == 0 {
                    rng.next() as u8
                } else {
                    (i % alphabet) as u8 + b'a'
                }
            })
            .collect();
        let enc = lz4_encode(&src);
        assert_eq!(lz4_block(&enc, src.len()).unwrap(), src, "round {round}");
    }
    // Long runs: lengths past 15 and 255 (extension bytes), overlapping matches.
    let run = vec![b'x'; 70_000];
    assert_eq!(lz4_block(&lz4_encode(&run), run.len()).unwrap(), run);
    // Hand-made: 1 literal then a 7-byte overlapping match at offset 1, then 2 literals.
    assert_eq!(
        lz4_block(&[0x13, b'\n', 1, 0, 0x20, b'a', b'b'], 10).unwrap(),
        b"\n\n\n\n\n\n\n\nab"
    );
    for bad in [
        &[][..],             // no token
        &[0x10],             // a literal missing
        &[0x10, b'a', 0],    // offset cut short
        &[0x10, b'a', 0, 0], // offset 0
        &[0x10, b'a', 2, 0], // offset before the start
        &[0xF0, 255, 255],   // length cut short
        &[0x1F, b'a', 1, 0], // match length cut short
    ] {
        assert!(lz4_block(bad, 8).is_err(), "{bad:?}");
    }
    // A match or literals longer than declared.
    assert!(lz4_block(&[0x13, b'\n', 1, 0, 0x00], 4).is_err());
    assert!(lz4_block(&[0x30, b'a', b'b', b'c'], 2).is_err());
}

/// Every prefix of a fat binary, and thousands of randomly damaged copies, are read without a
/// panic; whatever parses has every payload inside the input, and decoding any of them ends
/// in a result or an error.
#[test]
fn truncated_and_mutated_input_never_panics() {
    let (fb, _, _) = mixed();
    for n in 0..fb.len() {
        if let Ok(f) = FatBinary::parse(&fb[..n]) {
            panic!("a prefix of {n} bytes parsed: {f:?}");
        }
    }
    let within = |f: &FatBinary<'_>, input: &[u8]| {
        let r = input.as_ptr_range();
        for e in &f.entries {
            let s = e.stored.as_ptr_range();
            assert!(r.start <= s.start && s.end <= r.end);
            let _ = e.payload();
            let _ = e.ptx_text();
        }
        let _ = best_ptx(f);
        let _ = f.describe();
    };
    let mut rng = Rng(0xFA7B1);
    let mut parsed = 0;
    for _ in 0..20_000 {
        let mut m = fb.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(m.len());
            m[at] = match rng.below(3) {
                0 => rng.next() as u8,
                1 => m[at] ^ (1 << rng.below(8)),
                _ => [0, 0xFF, 0x7F, 0x80][rng.below(4)],
            };
        }
        if rng.below(8) == 0 {
            m.truncate(rng.below(m.len()));
        }
        if let Ok(f) = FatBinary::parse(&m) {
            parsed += 1;
            within(&f, &m);
        }
    }
    assert!(
        parsed > 1000,
        "mutations mostly in payloads parse: {parsed}"
    );
    // The decoders alone on random bytes.
    for _ in 0..5000 {
        let len = rng.below(64);
        let junk: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = lz4_block(&junk, rng.below(4096));
        let _ = zstd(&junk, rng.below(4096));
        let mut z = zstd_encode(&junk);
        let at = rng.below(z.len());
        z[at] ^= 1 << rng.below(8);
        let _ = zstd(&z, len);
    }
}

#[repr(C)]
struct Wrapper {
    magic: u32,
    version: u32,
    data: *const u8,
    other: *const c_void,
}

#[test]
fn wrappers_are_checked_before_their_data_is_read() {
    let (fb, _, _) = mixed();
    // Copied into u64s: nvcc's data is a u64 array.
    let words: Vec<u64> = fb
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    let w = Wrapper {
        magic: WRAPPER_MAGIC,
        version: 2,
        data: words.as_ptr().cast(),
        other: core::ptr::null(),
    };
    let wp = (&w as *const Wrapper).cast::<c_void>();
    // SAFETY: a whole wrapper around a whole fat binary.
    let (v, bytes) = unsafe { wrapped_fatbin(wp) }.unwrap();
    assert_eq!((v, bytes), (2, &fb[..]));
    let bad = [
        (Wrapper { magic: 1, ..w }, FatbinError::WrapperMagic(1)),
        (Wrapper { version: 3, ..w }, FatbinError::WrapperVersion(3)),
        (
            Wrapper {
                data: core::ptr::null(),
                ..w
            },
            FatbinError::Null,
        ),
    ];
    for (b, e) in bad {
        // SAFETY: readable wrappers; their data is refused or whole.
        let r = unsafe { wrapped_fatbin((&b as *const Wrapper).cast()) };
        assert_eq!(r, Err(e));
    }
    // SAFETY: NULL is refused before any read.
    let r = unsafe { wrapped_fatbin(core::ptr::null()) };
    assert_eq!(r, Err(FatbinError::Null));
    // A declared size above MAX_FATBIN is refused before the slice is made.
    let mut huge = words.clone();
    huge[1] = MAX_FATBIN + 1;
    // SAFETY: only the 16-byte header is read.
    let r = unsafe { fatbin_at(huge.as_ptr().cast()) };
    assert!(matches!(r, Err(FatbinError::Layout { at: 8, .. })));
}
