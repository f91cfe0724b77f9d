//! Tiny "name" libraries for `anycuda libdir`: ELF shared objects, written here byte by byte,
//! that carry a soname, the libraries they need (anycuda's C-ABI library), optionally NVIDIA's
//! symbol-version node, and a symbol for every function of their API, so that a program links
//! against them alone, while at run time every one of those functions comes from the C-ABI
//! library.
//!
//! Why not symlinks to the C-ABI library: one file has one soname, and the system loader matches
//! an already-loaded library by soname. A program (or cuda-python's `cuda.pathfinder`, which asks
//! "is `libnvrtc.so.13` loaded?" before it searches its own wheels) must find `libcuda.so.1`,
//! `libcudart.so.13` and `libnvrtc.so.13` each under its own name, while all three share one
//! anycuda (one backend, one state).
//!
//! Why symbols: the linker needs definitions. `cc app.c -lcuda -lcudart -lnvrtc` resolves each
//! reference against the library named on the command line and records that library's soname
//! (and, for `libcudart.so.13` and `libnvrtc.so.13`, its version: `cudaMalloc@libcudart.so.13`),
//! exactly as NVIDIA's libraries make it do; a library reached only as a dependency of another is
//! no help ("DSO missing from command line").
//!
//! Why each symbol's value is 0: so that the loader passes over it. A symbol with no value (0,
//! in a section, not thread-local) is no definition to glibc's lookup (`check_match` in
//! `elf/dl-lookup.c`: "No value", a long-standing test), so a lookup of the name, from the
//! program's relocations, `dlsym` on the name library's handle or on `RTLD_DEFAULT`, versioned
//! or not, goes on through the search list to the C-ABI library, which the name library needs
//! and so the loader maps. glibc accepts its unversioned definition for the program's versioned
//! reference, as for any definition outside the file the version names. The linker, which reads
//! only whether a symbol is defined, its type and its version, takes it as a function. There is
//! no code in a name library at all: nothing that could be called by mistake.
//!
//! Why not a standard filter (`DT_FILTER` naming the C-ABI library, what `ld --filter` makes),
//! which exists for "link against me, run the other": glibc puts a filtee in front of its filter
//! in the search list, so the C-ABI library would come before every library the program links
//! after `libcuda.so.1`, and a program that runs anycuda's `libcuda.so.1` beside NVIDIA's own
//! `libcudart.so.13` and `libnvrtc.so.13` got anycuda's runtime and NVRTC instead (measured);
//! and glibc before 2.32 cannot `dlopen` a filter (its bug 16272), which is how cuda-python opens
//! `libcuda.so.1`. The name libraries keep the search order the loader gives plain dependencies.
//!
//! And a program linked against NVIDIA's `libcudart.so.13` asks for the version node
//! `libcudart.so.13`: the name library defines it (its symbols carry it as their default
//! version, as NVIDIA's do), so glibc has nothing to warn about ("no version information
//! available").
//!
//! The layout is what a linker would write, no more: an ELF header; the program headers (a
//! read-only `PT_LOAD` with the hash table, symbols, strings and versions; a read-write one with
//! the dynamic section, which glibc may adjust in place, a page above it in memory; `PT_DYNAMIC`;
//! `PT_GNU_STACK`, so that no executable stack is asked for); and section headers naming the
//! same pieces (`.hash`, `.dynsym`, `.dynstr`, `.gnu.version`, `.gnu.version_d`, `.dynamic`),
//! through which linkers (GNU ld, gold, lld) read a shared object's symbols, and an empty `.text`
//! at address 0 that the symbols belong to (so `nm -D` shows them as `T`, as NVIDIA's).
//!
//! [`defined_functions`] reads the other way: the functions a shared object defines, from its
//! section headers.

use std::collections::BTreeSet;
use std::path::Path;

/// The ELF machine of this host, which the loader requires to match.
const MACHINE: u16 = if cfg!(target_arch = "aarch64") {
    183
} else {
    62
};

/// The largest page size of this architecture (AArch64 kernels use up to 64 KiB pages): the
/// segments' alignment, and the distance in memory between the read-only and the read-write one.
const PAGE: u64 = if cfg!(target_arch = "aarch64") {
    0x1_0000
} else {
    0x1000
};

/// What one name library declares.
pub struct Shim<'a> {
    /// Its `DT_SONAME` (`libcudart.so.13`).
    pub soname: &'a str,
    /// Its `DT_NEEDED` entries, in load order (`libanycuda_capi.so`).
    pub needed: &'a [&'a str],
    /// A `DT_RUNPATH` (`$ORIGIN`: its own folder first).
    pub runpath: Option<&'a str>,
    /// A version node it defines besides its base (`libcudart.so.13`); its functions carry it
    /// as their default version.
    pub version: Option<&'a str>,
    /// The functions it names, each a global function symbol of value 0 (duplicates are named
    /// once).
    pub functions: &'a [&'a str],
}

/// The SysV ELF hash of a name (`vd_hash` of a version definition, and `.hash`'s buckets).
fn elf_hash(name: &str) -> u32 {
    let mut h: u32 = 0;
    for &b in name.as_bytes() {
        h = (h << 4).wrapping_add(u32::from(b));
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
        }
        h &= !g;
    }
    h
}

fn align(v: &mut Vec<u8>, to: usize) {
    while v.len() % to != 0 {
        v.push(0);
    }
}

fn put16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn put64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}

/// A string table under construction: "\0", then every name added, each added once.
struct Strings {
    bytes: Vec<u8>,
    at: std::collections::HashMap<String, u32>,
}

impl Strings {
    fn new() -> Self {
        Self {
            bytes: vec![0],
            at: std::collections::HashMap::new(),
        }
    }

    fn add(&mut self, s: &str) -> u32 {
        if let Some(&at) = self.at.get(s) {
            return at;
        }
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        self.at.insert(s.to_string(), at);
        at
    }
}

/// One section header.
struct Section {
    name: &'static str,
    ty: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

/// The bytes of the name library `s` describes.
pub fn build(s: &Shim<'_>) -> Vec<u8> {
    const EHDR: usize = 64;
    const PHDR: usize = 56;
    const PHNUM: usize = 4;
    const SHDR: usize = 64;
    const SHF_WRITE: u64 = 1;
    const SHF_ALLOC: u64 = 2;
    const SHF_EXECINSTR: u64 = 4;

    let mut seen = BTreeSet::new();
    let functions: Vec<&str> = s
        .functions
        .iter()
        .copied()
        .filter(|f| seen.insert(*f))
        .collect();
    let versioned = s.version.is_some();

    let mut strings = Strings::new();
    let needed: Vec<u32> = s.needed.iter().map(|n| strings.add(n)).collect();
    let soname = strings.add(s.soname);
    let runpath = s.runpath.map(|r| strings.add(r));
    let version = s.version.map(|v| (v, strings.add(v)));
    let names: Vec<u32> = functions.iter().map(|f| strings.add(f)).collect();
    let nsyms = functions.len() + 1; // with the null symbol

    // Section indices: 0 the null section, 1 .text, 2 .hash, 3 .dynsym, 4 .dynstr, then
    // .gnu.version and .gnu.version_d (where versioned), .dynamic and .shstrtab.
    let (i_text, i_dynsym, i_dynstr) = (1u16, 3u16, 4u16);
    let i_shstrtab = if versioned { 8u16 } else { 6 };

    let mut out = vec![0u8; EHDR + PHNUM * PHDR];
    // A loaded section from `start` to the end of `out` so far, at the address of its offset.
    let piece = |out: &Vec<u8>, name, ty, start: usize, align, (link, info, entsize)| Section {
        name,
        ty,
        flags: SHF_ALLOC,
        addr: start as u64,
        offset: start as u64,
        size: (out.len() - start) as u64,
        link,
        info,
        align,
        entsize,
    };
    // .text: empty, at address 0, where every symbol points.
    let mut sections = vec![Section {
        name: ".text",
        ty: 1,
        flags: SHF_ALLOC | SHF_EXECINSTR,
        addr: 0,
        offset: 0,
        size: 0,
        link: 0,
        info: 0,
        align: 1,
        entsize: 0,
    }];

    // .hash: nbucket, nchain, the buckets, the chains (SysV).
    align(&mut out, 8);
    let hash_at = out.len();
    let nbucket = (nsyms / 2).max(1) | 1;
    let mut buckets = vec![0u32; nbucket];
    let mut chains = vec![0u32; nsyms];
    for (i, f) in functions.iter().enumerate() {
        let b = elf_hash(f) as usize % nbucket;
        chains[i + 1] = buckets[b];
        buckets[b] = (i + 1) as u32;
    }
    put32(&mut out, nbucket as u32);
    put32(&mut out, nsyms as u32);
    for w in buckets.iter().chain(&chains) {
        put32(&mut out, *w);
    }
    sections.push(piece(
        &out,
        ".hash",
        5,
        hash_at,
        8,
        (u32::from(i_dynsym), 0, 4),
    ));

    // .dynsym: the null symbol, then each function: global, default visibility, in .text, of
    // value 0 and size 0.
    align(&mut out, 8);
    let dynsym_at = out.len();
    out.extend_from_slice(&[0u8; 24]);
    for &name in &names {
        put32(&mut out, name);
        out.push((1 << 4) | 2); // STB_GLOBAL, STT_FUNC
        out.push(0); // STV_DEFAULT
        put16(&mut out, i_text);
        put64(&mut out, 0); // st_value: none, so the loader looks further
        put64(&mut out, 0); // st_size
    }
    // sh_info: one past the last local symbol (the null symbol).
    sections.push(piece(
        &out,
        ".dynsym",
        11,
        dynsym_at,
        8,
        (u32::from(i_dynstr), 1, 24),
    ));

    let dynstr_at = out.len();
    out.extend_from_slice(&strings.bytes);
    sections.push(piece(&out, ".dynstr", 3, dynstr_at, 1, (0, 0, 0)));

    // The symbol-version table: the null symbol local (0), each function at the named node (2).
    // glibc reads it whenever version definitions exist (a missing DT_VERSYM is a null
    // dereference inside the loader).
    let mut versym_at = 0;
    let mut verdef_at = 0;
    if let Some((name, name_at)) = version {
        align(&mut out, 2);
        versym_at = out.len();
        put16(&mut out, 0);
        for _ in &functions {
            put16(&mut out, 2);
        }
        sections.push(piece(
            &out,
            ".gnu.version",
            0x6fff_ffff,
            versym_at,
            2,
            (u32::from(i_dynsym), 0, 2),
        ));
        // Version definitions: the base (the soname, VER_FLG_BASE, index 1), then the named
        // node (index 2). Each is an Elf64_Verdef (20 bytes) followed by its Elf64_Verdaux (8).
        align(&mut out, 8);
        verdef_at = out.len();
        let defs = [(1u16, 1u16, s.soname, soname), (0, 2, name, name_at)];
        for (i, (flags, ndx, n, at)) in defs.iter().enumerate() {
            let next = if i + 1 < defs.len() { 28u32 } else { 0 };
            put16(&mut out, 1); // vd_version
            put16(&mut out, *flags);
            put16(&mut out, *ndx);
            put16(&mut out, 1); // vd_cnt
            put32(&mut out, elf_hash(n));
            put32(&mut out, 20); // vd_aux: right after this entry
            put32(&mut out, next); // vd_next
            put32(&mut out, *at); // vda_name
            put32(&mut out, 0); // vda_next
        }
        let count = defs.len() as u32;
        sections.push(piece(
            &out,
            ".gnu.version_d",
            0x6fff_fffd,
            verdef_at,
            8,
            (u32::from(i_dynstr), count, 0),
        ));
    }
    let ro_end = out.len();

    // .dynamic, in the read-write segment, a page above its file offset.
    const DT_NULL: u64 = 0;
    const DT_NEEDED: u64 = 1;
    const DT_HASH: u64 = 4;
    const DT_STRTAB: u64 = 5;
    const DT_SYMTAB: u64 = 6;
    const DT_STRSZ: u64 = 10;
    const DT_SYMENT: u64 = 11;
    const DT_SONAME: u64 = 14;
    const DT_RUNPATH: u64 = 29;
    const DT_VERSYM: u64 = 0x6fff_fff0;
    const DT_VERDEF: u64 = 0x6fff_fffc;
    const DT_VERDEFNUM: u64 = 0x6fff_fffd;
    let mut dynamic: Vec<(u64, u64)> = needed.iter().map(|&n| (DT_NEEDED, n.into())).collect();
    dynamic.push((DT_SONAME, soname.into()));
    if let Some(r) = runpath {
        dynamic.push((DT_RUNPATH, r.into()));
    }
    dynamic.extend([
        (DT_HASH, hash_at as u64),
        (DT_STRTAB, dynstr_at as u64),
        (DT_SYMTAB, dynsym_at as u64),
        (DT_STRSZ, strings.bytes.len() as u64),
        (DT_SYMENT, 24),
    ]);
    if versioned {
        dynamic.extend([
            (DT_VERSYM, versym_at as u64),
            (DT_VERDEF, verdef_at as u64),
            (DT_VERDEFNUM, 2),
        ]);
    }
    dynamic.push((DT_NULL, 0));
    align(&mut out, 8);
    let dynamic_at = out.len();
    let dynamic_addr = dynamic_at as u64 + PAGE;
    for (tag, val) in &dynamic {
        put64(&mut out, *tag);
        put64(&mut out, *val);
    }
    let mut d = piece(
        &out,
        ".dynamic",
        6,
        dynamic_at,
        8,
        (u32::from(i_dynstr), 0, 16),
    );
    d.flags |= SHF_WRITE;
    d.addr = dynamic_addr;
    sections.push(d);
    let dynamic_end = out.len();

    // .shstrtab, not loaded, then the section headers.
    let mut shstr = Strings::new();
    sections.push(Section {
        name: ".shstrtab",
        ty: 3,
        flags: 0,
        addr: 0,
        offset: out.len() as u64,
        size: 0, // below
        link: 0,
        info: 0,
        align: 1,
        entsize: 0,
    });
    let shnames: Vec<u32> = sections.iter().map(|s| shstr.add(s.name)).collect();
    out.extend_from_slice(&shstr.bytes);
    sections.last_mut().expect("just pushed").size = shstr.bytes.len() as u64;
    debug_assert_eq!(sections.len(), usize::from(i_shstrtab));
    align(&mut out, 8);
    let shoff = out.len();
    out.extend_from_slice(&[0u8; SHDR]); // the null section
    for (s, name) in sections.iter().zip(&shnames) {
        put32(&mut out, *name);
        put32(&mut out, s.ty);
        put64(&mut out, s.flags);
        put64(&mut out, s.addr);
        put64(&mut out, s.offset);
        put64(&mut out, s.size);
        put32(&mut out, s.link);
        put32(&mut out, s.info);
        put64(&mut out, s.align);
        put64(&mut out, s.entsize);
    }

    // The ELF header.
    let mut h = Vec::with_capacity(EHDR);
    h.extend_from_slice(b"\x7fELF");
    h.extend_from_slice(&[2, 1, 1, 0]); // 64-bit, little-endian, version 1, System V ABI
    h.extend_from_slice(&[0; 8]);
    put16(&mut h, 3); // ET_DYN
    put16(&mut h, MACHINE);
    put32(&mut h, 1); // e_version
    put64(&mut h, 0); // e_entry
    put64(&mut h, EHDR as u64); // e_phoff
    put64(&mut h, shoff as u64);
    put32(&mut h, 0); // e_flags
    put16(&mut h, EHDR as u16);
    put16(&mut h, PHDR as u16);
    put16(&mut h, PHNUM as u16);
    put16(&mut h, SHDR as u16);
    put16(&mut h, (sections.len() + 1) as u16);
    put16(&mut h, i_shstrtab);
    out[..EHDR].copy_from_slice(&h);

    // (type, flags, offset, vaddr, size, align)
    const PF_W: u32 = 2;
    const PF_R: u32 = 4;
    let dyn_size = (dynamic_end - dynamic_at) as u64;
    let phdrs: [(u32, u32, u64, u64, u64, u64); PHNUM] = [
        (1, PF_R, 0, 0, ro_end as u64, PAGE), // PT_LOAD
        (
            1,
            PF_R | PF_W,
            dynamic_at as u64,
            dynamic_addr,
            dyn_size,
            PAGE,
        ), // PT_LOAD
        (2, PF_R | PF_W, dynamic_at as u64, dynamic_addr, dyn_size, 8), // PT_DYNAMIC
        (0x6474_e551, PF_R | PF_W, 0, 0, 0, 16), // PT_GNU_STACK
    ];
    for (i, (ty, flags, off, addr, sz, al)) in phdrs.iter().enumerate() {
        let mut p = Vec::with_capacity(PHDR);
        put32(&mut p, *ty);
        put32(&mut p, *flags);
        put64(&mut p, *off);
        put64(&mut p, *addr); // p_vaddr
        put64(&mut p, *addr); // p_paddr
        put64(&mut p, *sz); // p_filesz
        put64(&mut p, *sz); // p_memsz
        put64(&mut p, *al);
        let at = EHDR + i * PHDR;
        out[at..at + PHDR].copy_from_slice(&p);
    }
    out
}

/// The global functions (`STT_FUNC`, defined, default or protected visibility) in the dynamic
/// symbol table of the 64-bit little-endian ELF shared object at `path`, read through its
/// section headers; `None` where the file is no such object (unreadable, not ELF, no
/// `.dynsym`).
pub fn defined_functions(path: &Path) -> Option<BTreeSet<String>> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let read = |at: u64, n: u64| -> Option<Vec<u8>> {
        if at.checked_add(n)? > len || n > 1 << 30 {
            return None;
        }
        let mut b = vec![0u8; usize::try_from(n).ok()?];
        f.read_exact_at(&mut b, at).ok()?;
        Some(b)
    };
    let u16_at = |b: &[u8], o: usize| Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |b: &[u8], o: usize| Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?));
    let u64_at = |b: &[u8], o: usize| Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?));
    let h = read(0, 64)?;
    if &h[..4] != b"\x7fELF" || h[4] != 2 || h[5] != 1 {
        return None;
    }
    let (shoff, shentsize, shnum) = (u64_at(&h, 0x28)?, u16_at(&h, 0x3a)?, u16_at(&h, 0x3c)?);
    if shentsize != 64 {
        return None;
    }
    let shdrs = read(shoff, 64 * u64::from(shnum))?;
    let shdr = |i: usize| shdrs.get(i * 64..i * 64 + 64);
    let dynsym = (0..usize::from(shnum))
        .filter_map(shdr)
        .find(|s| u32_at(s, 4) == Some(11))?; // SHT_DYNSYM
    let strtab = shdr(usize::try_from(u32_at(dynsym, 0x28)?).ok()?)?;
    let syms = read(u64_at(dynsym, 0x18)?, u64_at(dynsym, 0x20)?)?;
    let strs = read(u64_at(strtab, 0x18)?, u64_at(strtab, 0x20)?)?;
    let mut out = BTreeSet::new();
    for sym in syms.chunks_exact(24) {
        let (info, other, shndx) = (sym[4], sym[5], u16_at(sym, 6)?);
        let global = matches!(info >> 4, 1 | 2); // STB_GLOBAL, STB_WEAK
        let visible = matches!(other & 3, 0 | 3); // STV_DEFAULT, STV_PROTECTED
        if info & 0xf != 2 || !global || !visible || shndx == 0 {
            continue;
        }
        let name = strs.get(usize::try_from(u32_at(sym, 0)?).ok()?..)?;
        let end = name.iter().position(|&b| b == 0)?;
        out.insert(String::from_utf8_lossy(&name[..end]).into_owned());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{c_int, c_void};

    extern "C" {
        fn dlopen(name: *const std::ffi::c_char, flags: c_int) -> *mut c_void;
        fn dlsym(h: *mut c_void, name: *const std::ffi::c_char) -> *mut c_void;
        fn dlvsym(
            h: *mut c_void,
            name: *const std::ffi::c_char,
            version: *const std::ffi::c_char,
        ) -> *mut c_void;
    }
    const RTLD_NOW: c_int = 2;
    const RTLD_NOLOAD: c_int = 4;

    #[test]
    fn elf_hash_matches_the_sysv_definition() {
        // Values from the System V ABI's algorithm, computed by hand for short names.
        assert_eq!(elf_hash(""), 0);
        assert_eq!(elf_hash("a"), 0x61);
        assert_eq!(elf_hash("ab"), 0x672);
        // Long names fold the high nibble back in and stay within 28 bits.
        assert!(elf_hash("libcudart.so.13_and_a_long_tail") < 1 << 28);
    }

    /// The loader maps a name library, finds it again by its soname alone, and resolves a symbol
    /// through it from the library it needs: everything `anycuda libdir` relies on.
    #[test]
    fn the_loader_maps_a_name_library_and_resolves_through_it() {
        let dir = std::env::temp_dir().join(format!("anycuda-shim-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("libanycuda-shim-test.so.7");
        let bytes = build(&Shim {
            soname: "libanycuda-shim-test.so.7",
            needed: &["libm.so.6"],
            runpath: Some("$ORIGIN"),
            version: Some("ANYCUDA_SHIM_TEST_7"),
            functions: &[],
        });
        std::fs::write(&path, &bytes).unwrap();
        // anycuda's own pre-mapping checks (every library it opens by path) accept it.
        anycuda_api::loader::check_library_file(&path).unwrap();
        let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: loading a library with no code of its own and libm; the names are C strings.
        unsafe {
            let h = dlopen(cpath.as_ptr(), RTLD_NOW);
            assert!(!h.is_null(), "dlopen of the name library failed");
            let by_soname = dlopen(
                c"libanycuda-shim-test.so.7".as_ptr(),
                RTLD_NOW | RTLD_NOLOAD,
            );
            assert_eq!(by_soname, h, "not found again by its soname");
            let through = dlsym(h, c"cos".as_ptr());
            let libm = dlopen(c"libm.so.6".as_ptr(), RTLD_NOW);
            let direct = dlsym(libm, c"cos".as_ptr());
            assert!(!through.is_null() && through == direct);
            // No symbol of its own: a name only the dependency has still resolves there, and a
            // name nobody has does not.
            assert!(dlsym(h, c"anycuda_shim_test_no_such_symbol".as_ptr()).is_null());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A name library over libm that names `cos`, `sin` and a function libm lacks: the file
    /// reads back its names; through its handle, `cos` and `sin` are libm's, unversioned and at
    /// libm's version; the name libm lacks is found nowhere (its symbol has no value).
    #[test]
    fn a_name_library_names_functions_the_loader_takes_from_its_dependency() {
        let dir = std::env::temp_dir().join(format!("anycuda-names-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("libanycuda-names-test.so.3");
        let functions = ["cos", "sin", "anycuda_names_test_only_here", "cos"];
        let bytes = build(&Shim {
            soname: "libanycuda-names-test.so.3",
            needed: &["libm.so.6"],
            runpath: Some("$ORIGIN"),
            version: Some("ANYCUDA_NAMES_TEST_3"),
            functions: &functions,
        });
        std::fs::write(&path, &bytes).unwrap();
        anycuda_api::loader::check_library_file(&path).unwrap();
        let read = defined_functions(&path).expect("its own symbols read back");
        let want: BTreeSet<String> = ["anycuda_names_test_only_here", "cos", "sin"]
            .map(String::from)
            .into();
        assert_eq!(read, want);
        assert_eq!(defined_functions(&dir), None);
        let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        let libm_version = if cfg!(target_arch = "aarch64") {
            c"GLIBC_2.17"
        } else {
            c"GLIBC_2.2.5"
        };
        // SAFETY: loading a library with no code of its own and libm; only addresses compared.
        unsafe {
            let h = dlopen(cpath.as_ptr(), RTLD_NOW);
            assert!(!h.is_null(), "dlopen of the name library failed");
            let libm = dlopen(c"libm.so.6".as_ptr(), RTLD_NOW);
            for name in [c"cos", c"sin"] {
                let direct = dlsym(libm, name.as_ptr());
                assert!(!direct.is_null());
                assert_eq!(
                    dlsym(h, name.as_ptr()),
                    direct,
                    "{name:?} through the name library"
                );
                let v = dlvsym(h, name.as_ptr(), libm_version.as_ptr());
                assert_eq!(
                    v, direct,
                    "{name:?} at libm's version, through the name library"
                );
            }
            assert!(dlsym(h, c"anycuda_names_test_only_here".as_ptr()).is_null());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
