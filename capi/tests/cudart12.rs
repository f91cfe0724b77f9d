//! `libcudart.so.12` (crate `anycuda-cudart12`) against CUDA 12's runtime headers and NVIDIA's
//! real `libcudart.so.12` from PyPI (`nvidia-cuda-runtime-cu12`, `ci/fetch-inputs.sh`), and CUDA
//! 12's `cudaDeviceProp` as the C-ABI library defines it against the CUDA 12 header, field by
//! field, through a C program.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(dead_code, non_snake_case, non_camel_case_types, clippy::all)]
#[rustfmt::skip] // generated, byte-stable for `anycuda-codegen --check`
#[path = "../src/generated/cudart12_types.rs"]
mod types;

/// CUDA 12's runtime from PyPI.
fn cuda12() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cache/inputs/cuda/nvidia/cuda_runtime");
    assert!(
        p.join("include/cuda_runtime_api.h").is_file() && p.join("lib/libcudart.so.12").is_file(),
        "no CUDA 12 runtime under {} (run ci/fetch-inputs.sh)",
        p.display()
    );
    p
}

/// The built `libanycuda_cudart12.so`, next to the C-ABI library, not older than its sources.
fn library12() -> PathBuf {
    let p = library().with_file_name("libanycuda_cudart12.so");
    assert!(
        p.is_file(),
        "{} is not built: cargo build -p anycuda-cudart12 (ci/capi-test.sh does)",
        p.display()
    );
    let built = std::fs::metadata(&p)
        .and_then(|m| m.modified())
        .expect("mtime");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cudart12/src");
    for d in [src.clone(), src.join("generated")] {
        for e in std::fs::read_dir(&d).expect("cudart12/src").flatten() {
            if let Ok(m) = e.metadata().and_then(|m| m.modified()) {
                assert!(
                    m <= built || e.path().is_dir(),
                    "{} is newer than {}: cargo build -p anycuda-cudart12 first",
                    e.path().display(),
                    p.display()
                );
            }
        }
    }
    p
}

fn ours12() -> BTreeSet<String> {
    defined_symbols(&library12())
        .into_iter()
        .filter(|s| s.starts_with("cuda") || s.starts_with("__cuda"))
        .collect()
}

#[test]
fn the_cuda12_exports_are_exactly_the_cuda12_headers_functions() {
    let inc = cuda12().join("include");
    let mut want = declared_functions_in(&inc, "cuda_runtime_api.h", &[]);
    want.extend(declared_functions_in(
        &inc,
        "cuda_runtime_api.h",
        &["CUDA_API_PER_THREAD_DEFAULT_STREAM"],
    ));
    want.retain(|n| n.starts_with("cuda"));
    // nvcc's hidden runtime entry points, which every nvcc-built CUDA 12 program references:
    // the declarations the codegen reads (their ABI is CUDA 12's too).
    // (The shim includes CUDA 13's runtime header: only its own `__cuda` names count.)
    want.extend(
        declared_functions("crt/nvcc_entry_points.h", &[])
            .into_iter()
            .filter(|n| n.starts_with("__cuda")),
    );
    let have = ours12();
    let missing: Vec<_> = want.difference(&have).collect();
    let extra: Vec<_> = have.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}\nextra {extra:?}"
    );
    let versioned = have
        .iter()
        .filter(|n| {
            n.rsplit_once("_v")
                .is_some_and(|(_, v)| v.parse::<u32>().is_ok())
        })
        .count();
    eprintln!(
        "libcudart.so.12: {} exports, {versioned} versioned (_vN)",
        have.len()
    );
    assert!(
        have.len() > 380 && versioned >= 15,
        "{} exports",
        have.len()
    );
}

#[test]
fn the_cuda12_exports_are_nvidias_libcudart12_minus_a_reasoned_list() {
    let real: BTreeSet<String> = defined_symbols(&cuda12().join("lib/libcudart.so.12"))
        .into_iter()
        .filter(|s| s.starts_with("cuda") || s.starts_with("__cuda"))
        .collect();
    assert!(real.len() > 300, "{} symbols", real.len());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-exports-left-out-12.txt");
    let skip: BTreeSet<String> = std::fs::read_to_string(&path)
        .expect("the exclusion list")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (n, why) = l.split_once(" | ").expect("`name | reason`");
            assert!(!why.trim().is_empty(), "{n}: no reason");
            n.trim().to_string()
        })
        .collect();
    let have = ours12();
    let missing: Vec<&String> = real
        .iter()
        .filter(|s| !have.contains(*s) && !skip.contains(*s))
        .collect();
    assert!(
        missing.is_empty(),
        "NVIDIA's libcudart.so.12 exports {missing:?}, which anycuda's lacks and the list does not explain"
    );
    let extra: Vec<&String> = have.iter().filter(|s| !real.contains(*s)).collect();
    assert!(
        extra.is_empty(),
        "anycuda's libcudart.so.12 exports {extra:?}, NVIDIA's does not"
    );
    for n in &skip {
        assert!(
            real.contains(n),
            "{n} is listed but NVIDIA's libcudart.so.12 does not export it"
        );
        assert!(
            !have.contains(n),
            "{n} is listed as left out but anycuda exports it"
        );
    }
}

#[test]
fn every_cuda12_export_carries_nvidias_version_and_soname() {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(library12())
        .output()
        .expect("nm");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut n = 0;
    for l in text.lines() {
        let Some(sym) = l.split_whitespace().nth(2) else {
            continue;
        };
        if sym.starts_with("cuda") || sym.starts_with("__cuda") {
            assert!(
                sym.ends_with("@@libcudart.so.12"),
                "{sym}: not versioned libcudart.so.12"
            );
            n += 1;
        }
    }
    assert!(n > 380, "{n} versioned exports");
    let d = Command::new("readelf")
        .arg("-d")
        .arg(library12())
        .output()
        .expect("readelf");
    assert!(
        String::from_utf8_lossy(&d.stdout).contains("Library soname: [libcudart.so.12]"),
        "soname"
    );
}

#[test]
fn cuda12_device_prop_matches_the_cuda12_header_field_by_field() {
    let fields = types::DEVICE_PROP_FIELDS;
    assert!(fields.len() > 90, "{} fields", fields.len());
    let mut c = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include <cuda_runtime_api.h>\nint main(void) {\n    printf(\"sizeof %zu\\n\", sizeof(struct cudaDeviceProp));\n",
    );
    for (name, _, _) in fields {
        c.push_str(&format!(
            "    printf(\"{name} %zu %zu\\n\", offsetof(struct cudaDeviceProp, {name}), sizeof(((struct cudaDeviceProp *)0)->{name}));\n"
        ));
    }
    c.push_str("    return 0;\n}\n");
    let dir = std::env::temp_dir().join(format!("anycuda-cudart12-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("layout.c"), c).expect("layout.c");
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/shim");
    let st = Command::new("cc")
        .arg(format!("-I{}", cuda12().join("include").display()))
        .arg(format!("-I{}", shim.display()))
        .arg(dir.join("layout.c"))
        .arg("-o")
        .arg(dir.join("layout"))
        .status()
        .expect("cc");
    assert!(st.success(), "compiling the layout program");
    let out = Command::new(dir.join("layout"))
        .output()
        .expect("running it");
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let size: usize = lines
        .next()
        .and_then(|l| l.strip_prefix("sizeof "))
        .and_then(|v| v.parse().ok())
        .expect("sizeof line");
    assert_eq!(
        size,
        core::mem::size_of::<types::cudaDeviceProp>(),
        "sizeof(cudaDeviceProp)"
    );
    let mut checked = 0;
    for ((name, off, sz), line) in fields.iter().zip(lines) {
        let v: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(v.first(), Some(name), "{line}");
        assert_eq!(v[1].parse::<usize>().ok(), Some(*off), "offset of {name}");
        assert_eq!(v[2].parse::<usize>().ok(), Some(*sz), "size of {name}");
        checked += 1;
    }
    assert_eq!(checked, fields.len());
    // Every byte is some field's (or padding between them): the fields end where the header's
    // struct does, less its tail padding.
    let (_, last_off, last_size) = fields[fields.len() - 1];
    assert!(last_off + last_size <= size && size - (last_off + last_size) < 8);
}
