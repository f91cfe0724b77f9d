//! Tiny "name" libraries for `anycuda libdir`: ELF shared objects with no code and no symbols of
//! their own, carrying only a soname, the libraries they need (anycuda's C-ABI library) and,
//! optionally, a symbol-version definition.
//!
//! Why not symlinks to the C-ABI library: one file has one soname, and the system loader matches
//! an already-loaded library by soname. A program (or cuda-python's `cuda.pathfinder`, which asks
//! "is `libnvrtc.so.13` loaded?" before it searches its own wheels) must find `libcuda.so.1`,
//! `libcudart.so.13` and `libnvrtc.so.13` each under its own name, while all three share one
//! anycuda (one backend, one state). Each name library needs the C-ABI library, so the symbols
//! resolve there: ELF lookup searches the whole dependency scope, not the named file alone.
//! And a program linked against NVIDIA's `libcudart.so.13` asks for the version node
//! `libcudart.so.13`: a name library that defines it keeps glibc from warning "no version
//! information available" on every run (an unversioned definition then satisfies each versioned
//! reference, as glibc allows for a definition in another object).
//!
//! The layout is the minimum glibc's loader maps: an ELF header, three program headers (one
//! read-write `PT_LOAD` covering the file, `PT_DYNAMIC`, and `PT_GNU_STACK` so that no
//! executable stack is asked for), a string table, a symbol table holding only the null symbol,
//! a SysV hash table for it, the optional version definitions (with the one-entry symbol-version
//! table glibc then requires), and the dynamic section. The
//! segment is writable because glibc adjusts the dynamic section's addresses in place.

/// The ELF machine of this host, which the loader requires to match.
const MACHINE: u16 = if cfg!(target_arch = "aarch64") {
    183
} else {
    62
};

/// What one name library declares.
pub struct Shim<'a> {
    /// Its `DT_SONAME` (`libcudart.so.13`).
    pub soname: &'a str,
    /// Its `DT_NEEDED` entries, in load order (`libanycuda_capi.so`).
    pub needed: &'a [&'a str],
    /// A `DT_RUNPATH` (`$ORIGIN`: its own folder first).
    pub runpath: Option<&'a str>,
    /// A version node it defines besides its base (`libcudart.so.13`).
    pub version: Option<&'a str>,
}

/// The SysV ELF hash of a name (`vd_hash` of a version definition).
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

/// The bytes of the name library `s` describes.
pub fn build(s: &Shim<'_>) -> Vec<u8> {
    const PHDRS: usize = 3;
    const EHDR: usize = 64;
    const PHDR: usize = 56;
    // The string table: "\0", then every name, each recorded with its offset.
    let mut strtab = vec![0u8];
    let mut add = |name: &str| {
        let at = strtab.len() as u64;
        strtab.extend_from_slice(name.as_bytes());
        strtab.push(0);
        at
    };
    let needed: Vec<u64> = s.needed.iter().map(|n| add(n)).collect();
    let soname = add(s.soname);
    let runpath = s.runpath.map(&mut add);
    let version = s.version.map(|v| (v, add(v)));

    let mut out = vec![0u8; EHDR + PHDRS * PHDR];
    let strtab_at = out.len();
    out.extend_from_slice(&strtab);
    align(&mut out, 8);
    let symtab_at = out.len();
    out.extend_from_slice(&[0u8; 24]); // the null symbol
    let hash_at = out.len();
    for w in [1u32, 1, 0, 0] {
        // nbucket = 1, nchain = 1, bucket[0] = 0 (empty), chain[0] = 0
        out.extend_from_slice(&w.to_le_bytes());
    }
    align(&mut out, 8);
    // Version definitions: the base (the soname, VER_FLG_BASE, index 1), then the named node
    // (index 2). Each is an Elf64_Verdef (20 bytes) followed by its one Elf64_Verdaux (8 bytes).
    let verdef_at = out.len();
    let mut verdefs = 0u64;
    if let Some((name, name_at)) = version {
        let defs = [(1u16, 1u16, s.soname, soname), (0, 2, name, name_at)];
        for (i, (flags, ndx, n, at)) in defs.iter().enumerate() {
            let next = if i + 1 < defs.len() { 28u32 } else { 0 };
            out.extend_from_slice(&1u16.to_le_bytes()); // vd_version
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&ndx.to_le_bytes());
            out.extend_from_slice(&1u16.to_le_bytes()); // vd_cnt
            out.extend_from_slice(&elf_hash(n).to_le_bytes());
            out.extend_from_slice(&20u32.to_le_bytes()); // vd_aux: right after this entry
            out.extend_from_slice(&next.to_le_bytes()); // vd_next
            out.extend_from_slice(&(*at as u32).to_le_bytes()); // vda_name
            out.extend_from_slice(&0u32.to_le_bytes()); // vda_next
        }
        verdefs = defs.len() as u64;
        align(&mut out, 8);
    }
    // With version definitions glibc reads the symbol-version table unconditionally (a missing
    // DT_VERSYM is a null dereference inside the loader): one entry, the null symbol's (local).
    let versym_at = out.len();
    if verdefs > 0 {
        out.extend_from_slice(&0u16.to_le_bytes());
        align(&mut out, 8);
    }
    // The dynamic section.
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
    let mut dynamic: Vec<(u64, u64)> = needed.iter().map(|&n| (DT_NEEDED, n)).collect();
    dynamic.push((DT_SONAME, soname));
    if let Some(r) = runpath {
        dynamic.push((DT_RUNPATH, r));
    }
    dynamic.extend([
        (DT_HASH, hash_at as u64),
        (DT_STRTAB, strtab_at as u64),
        (DT_SYMTAB, symtab_at as u64),
        (DT_STRSZ, strtab.len() as u64),
        (DT_SYMENT, 24),
    ]);
    if verdefs > 0 {
        dynamic.extend([
            (DT_VERSYM, versym_at as u64),
            (DT_VERDEF, verdef_at as u64),
            (DT_VERDEFNUM, verdefs),
        ]);
    }
    dynamic.push((DT_NULL, 0));
    let dynamic_at = out.len();
    for (tag, val) in &dynamic {
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&val.to_le_bytes());
    }
    let size = out.len() as u64;

    // The ELF header.
    let mut h = Vec::with_capacity(EHDR);
    h.extend_from_slice(b"\x7fELF");
    h.extend_from_slice(&[2, 1, 1, 0]); // 64-bit, little-endian, version 1, System V ABI
    h.extend_from_slice(&[0; 8]);
    h.extend_from_slice(&3u16.to_le_bytes()); // ET_DYN
    h.extend_from_slice(&MACHINE.to_le_bytes());
    h.extend_from_slice(&1u32.to_le_bytes()); // e_version
    h.extend_from_slice(&0u64.to_le_bytes()); // e_entry
    h.extend_from_slice(&(EHDR as u64).to_le_bytes()); // e_phoff
    h.extend_from_slice(&0u64.to_le_bytes()); // e_shoff: no section headers
    h.extend_from_slice(&0u32.to_le_bytes()); // e_flags
    h.extend_from_slice(&(EHDR as u16).to_le_bytes());
    h.extend_from_slice(&(PHDR as u16).to_le_bytes());
    h.extend_from_slice(&(PHDRS as u16).to_le_bytes());
    h.extend_from_slice(&64u16.to_le_bytes()); // e_shentsize
    h.extend_from_slice(&0u16.to_le_bytes()); // e_shnum
    h.extend_from_slice(&0u16.to_le_bytes()); // e_shstrndx
    out[..EHDR].copy_from_slice(&h);
    // (type, flags, offset, size, align)
    let phdrs: [(u32, u32, u64, u64, u64); PHDRS] = [
        (1, 6, 0, size, 0x1000),                                   // PT_LOAD, R+W
        (2, 6, dynamic_at as u64, (dynamic.len() * 16) as u64, 8), // PT_DYNAMIC
        (0x6474_e551, 6, 0, 0, 16),                                // PT_GNU_STACK, R+W
    ];
    for (i, (ty, flags, off, sz, al)) in phdrs.iter().enumerate() {
        let at = EHDR + i * PHDR;
        let mut p = Vec::with_capacity(PHDR);
        p.extend_from_slice(&ty.to_le_bytes());
        p.extend_from_slice(&flags.to_le_bytes());
        p.extend_from_slice(&off.to_le_bytes()); // p_offset
        p.extend_from_slice(&off.to_le_bytes()); // p_vaddr: loaded at offset = address
        p.extend_from_slice(&off.to_le_bytes()); // p_paddr
        p.extend_from_slice(&sz.to_le_bytes()); // p_filesz
        p.extend_from_slice(&sz.to_le_bytes()); // p_memsz
        p.extend_from_slice(&al.to_le_bytes());
        out[at..at + PHDR].copy_from_slice(&p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{c_int, c_void};

    extern "C" {
        fn dlopen(name: *const std::ffi::c_char, flags: c_int) -> *mut c_void;
        fn dlsym(h: *mut c_void, name: *const std::ffi::c_char) -> *mut c_void;
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
}
