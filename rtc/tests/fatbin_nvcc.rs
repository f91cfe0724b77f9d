//! `anycuda_rtc::fatbin` on NVIDIA's own fat binaries, made here by nvcc 13.0 (the PyPI wheels
//! `ci/candle-fetch.sh` unpacks into `.cache/inputs/nvcc-13.0`; `ANYCUDA_REAL_NVCC` names
//! another): `nvcc -fatbin` with a `compute_90` PTX and an `sm_90` cubin under every
//! `--compress-mode` nvcc lists, `-Xfatbin -compress-all` and `-no-compress`, and the fat binary
//! nvcc embeds in a host object (`-c`).
//!
//! Checked: the entries are the two asked for, with their archs and compression as the flags
//! say; every compressed payload decodes to its declared size; the cubins start with `\x7fELF`
//! and are the same bytes in every mode; the PTX is the same text in every mode and is what
//! `nvcc -ptx` writes for the same source, modulo what `fatbinary` does to PTX it stores: it
//! blanks comments (the line stays, empty, so line numbers still match the PTX nvcc wrote) and
//! collapses each line's whitespace (leading tabs and the tab between an opcode and its
//! operands become nothing or one space). So the comparison is line by line, comments removed
//! and whitespace runs collapsed on both sides.
//!
//! nvcc missing: the test fails under `CI=true` (`cargo xtask fetch` fetches it) and is skipped
//! elsewhere.

use anycuda_rtc::fatbin::{self, Compression, FatBinary};
use std::path::{Path, PathBuf};
use std::process::Command;

const SRC: &str = r#"
__device__ int counter;
__constant__ float coeff[4];
extern "C" __global__ void add_one(int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { v[i] += 1 + (int)coeff[i & 3]; atomicAdd(&counter, 1); }
}
template <typename T> __global__ void scale(T *x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
template __global__ void scale<float>(float *, float, int);
"#;

/// nvcc 13.0, or `None` (skipped) where it is missing outside CI.
fn nvcc() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let nvcc = std::env::var_os("ANYCUDA_REAL_NVCC").map_or_else(
        || root.join(".cache/inputs/nvcc-13.0/nvidia/cu13/bin/nvcc"),
        PathBuf::from,
    );
    if nvcc.is_file() {
        return Some(nvcc);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !ci,
        "{} missing (CI=true: `cargo xtask fetch` or `bash ci/candle-fetch.sh` fetches nvcc 13.0)",
        nvcc.display()
    );
    eprintln!("SKIP: {} missing", nvcc.display());
    None
}

fn run(nvcc: &Path, dir: &Path, args: &[&str]) {
    let out = Command::new(nvcc)
        .current_dir(dir)
        .args(args)
        .output()
        .expect("nvcc runs");
    assert!(
        out.status.success(),
        "nvcc {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// PTX as `fatbinary` stores it: per line, the comment removed and whitespace collapsed.
fn normalized(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(|l| {
            let code = l.find("//").map_or(l, |c| &l[..c]);
            code.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// The compress modes nvcc's help lists (`--compress-mode [default,size,...]`).
fn compress_modes(nvcc: &Path) -> Vec<String> {
    let out = Command::new(nvcc).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with("--compress-mode"))
        .expect("nvcc --help lists --compress-mode");
    let list = &line[line.find('[').unwrap() + 1..line.find(']').unwrap()];
    list.split(',').map(|s| s.trim().to_string()).collect()
}

#[test]
fn nvccs_fat_binaries_in_every_compress_mode() {
    let Some(nvcc) = nvcc() else { return };
    let dir = std::env::temp_dir().join(format!("anycuda-fatbin-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.cu"), SRC).unwrap();
    let modes = compress_modes(&nvcc);
    for m in ["default", "size", "speed", "balance", "none"] {
        assert!(modes.iter().any(|x| x == m), "{m} not in {modes:?}");
    }
    run(
        &nvcc,
        &dir,
        &["-ptx", "-arch=compute_90", "-o", "k.ptx", "k.cu"],
    );
    let want = normalized(&std::fs::read_to_string(dir.join("k.ptx")).unwrap());
    assert!(
        want.iter().any(|l| l == ".visible .entry add_one("),
        "{want:?}"
    );

    let gencode = [
        "-gencode",
        "arch=compute_90,code=compute_90",
        "-gencode",
        "arch=compute_90,code=sm_90",
    ];
    let mut variants: Vec<(String, Vec<String>)> = modes
        .iter()
        .map(|m| (m.clone(), vec![format!("--compress-mode={m}")]))
        .collect();
    variants.push((
        "compress-all".into(),
        vec!["-Xfatbin".into(), "-compress-all".into()],
    ));
    variants.push((
        "speed+compress-all".into(),
        vec![
            "--compress-mode=speed".into(),
            "-Xfatbin".into(),
            "-compress-all".into(),
        ],
    ));
    variants.push(("no-compress".into(), vec!["-no-compress".into()]));

    let mut cubins: Vec<(String, Vec<u8>)> = Vec::new();
    let mut seen = Vec::new();
    for (name, flags) in &variants {
        let out = format!("{name}.fatbin");
        let mut args: Vec<&str> = vec!["-fatbin", "-o", &out];
        args.extend(gencode);
        args.extend(flags.iter().map(String::as_str));
        args.push("k.cu");
        run(&nvcc, &dir, &args);
        let bytes = std::fs::read(dir.join(&out)).unwrap();
        let fb = FatBinary::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(fb.bytes.len(), bytes.len(), "{name}: the whole file");
        assert_eq!(fb.entries.len(), 2, "{name}: {}", fb.describe());
        eprintln!("{name}: {}", fb.describe());
        for e in &fb.entries {
            assert_eq!(e.arch, 90, "{name}");
            assert_eq!(e.address_bits(), 64, "{name}");
            assert!(
                !matches!(e.compression(), Compression::Unknown(_)),
                "{name}"
            );
            seen.push(e.compression());
            let p = e.payload().unwrap_or_else(|err| panic!("{name}: {err}"));
            if e.is_compressed() {
                assert_eq!(p.len() as u64, e.uncompressed_size, "{name}");
                assert!(e.stored.len() < p.len(), "{name}: compression shrank it");
            }
            match e.kind {
                fatbin::kind::ELF => {
                    assert_eq!(&p[..4], b"\x7fELF", "{name}");
                    cubins.push((name.clone(), p.into_owned()));
                }
                fatbin::kind::PTX => {
                    let text = e.ptx_text().unwrap().unwrap();
                    assert_eq!(
                        normalized(&text),
                        want,
                        "{name}: PTX differs from nvcc -ptx"
                    );
                }
                k => panic!("{name}: entry kind {k}"),
            }
        }
        let (arch, text) = fatbin::best_ptx(&fb).expect("a PTX entry");
        assert_eq!(arch, 90);
        assert!(text.contains(".target sm_90"), "{name}");
        assert_eq!(fb.cubin_archs(), vec![90]);
    }
    // Every storage form turned up (LZ4 from speed, zstd from the others, plain from none).
    for c in [Compression::None, Compression::Lz4, Compression::Zstd] {
        assert!(seen.contains(&c), "{c:?} never seen: {seen:?}");
    }
    // ptxas is deterministic: the same cubin in every mode (plain ones carry no padding past
    // the ELF, as their padded size is the ELF's own).
    for (name, c) in &cubins[1..] {
        assert_eq!(
            c, &cubins[0].1,
            "{name}'s cubin differs from {}'s",
            cubins[0].0
        );
    }

    // The fat binary nvcc embeds in a host object (its .nv_fatbin section), default mode.
    let mut args = vec!["-c", "-cudart", "shared", "-o", "k.o"];
    args.extend(gencode);
    args.push("k.cu");
    run(&nvcc, &dir, &args);
    let obj = std::fs::read(dir.join("k.o")).unwrap();
    let at = obj
        .windows(4)
        .position(|w| w == fatbin::FATBIN_MAGIC.to_le_bytes())
        .expect("an embedded fat binary");
    let fb = FatBinary::parse(&obj[at..]).unwrap();
    assert_eq!(fb.entries.len(), 2, "{}", fb.describe());
    let (_, text) = fatbin::best_ptx(&fb).unwrap();
    assert_eq!(normalized(&text), want);
    let elf = fb
        .entries
        .iter()
        .find(|e| e.kind == fatbin::kind::ELF)
        .unwrap();
    assert_eq!(&*elf.payload().unwrap(), &cubins[0].1[..]);

    // Machine code only: no PTX to translate.
    let sass = [
        "-fatbin",
        "-gencode",
        "arch=compute_90,code=sm_90",
        "-gencode",
        "arch=compute_75,code=sm_75",
        "-o",
        "sass.fatbin",
        "k.cu",
    ];
    run(&nvcc, &dir, &sass);
    let bytes = std::fs::read(dir.join("sass.fatbin")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let fb = FatBinary::parse(&bytes).unwrap();
    assert!(fatbin::best_ptx(&fb).is_none(), "{}", fb.describe());
    assert_eq!(fb.cubin_archs(), vec![75, 90]);
}

/// The fat binaries NVIDIA ships in the pinned `libcudadevrt.a` (the nvidia-cuda-runtime wheel,
/// under `CUDA_PATH`): every one of them is walked to its declared end, and every payload
/// decodes to its declared size (zstd-compressed cubins of several archs, and PTX).
#[test]
fn reads_nvidias_own_fat_binaries() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lib = std::env::var_os("CUDA_PATH")
        .map_or_else(|| root.join(".cache/inputs/cuda/nvidia/cu13"), Into::into)
        .join("lib/libcudadevrt.a");
    let Ok(bytes) = std::fs::read(&lib) else {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(
            !ci,
            "{} missing (CI=true: bash ci/fetch-inputs.sh)",
            lib.display()
        );
        eprintln!("SKIP: {} missing", lib.display());
        return;
    };
    let magic = fatbin::FATBIN_MAGIC.to_le_bytes();
    let (mut at, mut fatbins, mut entries, mut archs) = (0, 0, 0, Vec::new());
    while let Some(p) = bytes[at..].windows(4).position(|w| w == magic) {
        let start = at + p;
        let fb = FatBinary::parse(&bytes[start..]).unwrap_or_else(|e| panic!("at {start}: {e}"));
        for e in &fb.entries {
            let payload = e
                .payload()
                .unwrap_or_else(|err| panic!("at {start}: {err}"));
            if e.kind == fatbin::kind::ELF {
                assert_eq!(&payload[..4], b"\x7fELF");
                archs.push(e.arch);
            }
            entries += 1;
        }
        fatbins += 1;
        at = start + fb.bytes.len();
    }
    eprintln!("{fatbins} fat binaries, {entries} entries, cubin archs {archs:?}");
    assert!(fatbins >= 1 && entries > 3);
    assert!(archs.contains(&90), "{archs:?}");
}
