//! Wave-size check: notes in the compile log where a kernel assumes 32-lane warps.
//!
//! CDNA and GCN GPUs (gfx9xx and older: MI100, MI200, MI300, MI355) run 64-lane wavefronts;
//! RDNA (gfx10xx and newer) runs 32 lanes in HIP. A CUDA kernel that hard-codes 32 (a
//! `WARP_SIZE 32` constant, a shuffle of width 32, a butterfly reduction that starts at offset 16)
//! compiles on both, but on a 64-lane target it reduces or indexes over half a wavefront, which
//! is wrong unless the code was written for that. `warpSize` is right everywhere.
//!
//! The scan is textual and runs on the program's own source (not on included files) when the
//! program is created; its findings are reported in the log of each compile for a 64-lane
//! target. It never changes what is compiled.

use std::collections::HashMap;
use std::sync::Mutex;

/// Findings per live hipRTC program (its raw handle), computed once at creation.
static FINDINGS: Mutex<Option<HashMap<usize, Vec<String>>>> = Mutex::new(None);

/// Scans `src` for 32-lane assumptions and keeps the findings for `program`.
pub(crate) fn remember(program: usize, src: &str) {
    let found = scan(src);
    let mut map = FINDINGS.lock().unwrap_or_else(|e| e.into_inner());
    let map = map.get_or_insert_with(HashMap::new);
    if found.is_empty() {
        map.remove(&program);
    } else {
        map.insert(program, found);
    }
}

/// Forgets a destroyed program.
pub(crate) fn forget(program: usize) {
    if let Some(map) = FINDINGS.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        map.remove(&program);
    }
}

/// The compile-log notes for `program` compiled with the hipRTC arguments `args` (the target is
/// their `--offload-arch=`), or an empty string for a 32-lane target or a clean source.
pub(crate) fn notes(program: usize, args: &[std::ffi::CString]) -> String {
    let arch = args.iter().rev().find_map(|a| {
        a.to_str()
            .ok()
            .and_then(|s| s.strip_prefix("--offload-arch="))
            .map(str::to_owned)
    });
    let Some(arch) = arch.filter(|a| is_wave64(a)) else {
        return String::new();
    };
    let map = FINDINGS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(found) = map.as_ref().and_then(|m| m.get(&program)) else {
        return String::new();
    };
    let processor = arch.split(':').next().unwrap_or(&arch);
    let mut out = format!(
        "anycuda: warning: {processor} runs 64-lane wavefronts, and this source assumes \
         32-lane warps (use warpSize, or check that the code is right for 64 lanes):\n"
    );
    for f in found {
        out.push_str("anycuda:   ");
        out.push_str(f);
        out.push('\n');
    }
    out
}

/// Whether an AMD target runs 64-lane wavefronts in HIP: GCN and CDNA (gfx6xx-gfx9xx).
pub fn is_wave64(arch: &str) -> bool {
    let digits = arch.strip_prefix("gfx").unwrap_or("");
    digits.len() == 3 && matches!(digits.as_bytes()[0], b'6'..=b'9')
}

/// The lines of `src` that assume 32 lanes, as `line N: why: text`. At most 20 findings.
pub fn scan(src: &str) -> Vec<String> {
    const SHFL: [&str; 4] = [
        "__shfl_sync(",
        "__shfl_up_sync(",
        "__shfl_down_sync(",
        "__shfl_xor_sync(",
    ];
    let mut out = Vec::new();
    let lines: Vec<&str> = src.lines().collect();
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let lower = line.to_ascii_lowercase();
        let mut why = None;
        // `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32;`
        if lower.contains("warp") && ends_with_32(&lower) && !lower.contains("warpsize)") {
            why = Some("a warp-size constant of 32");
        }
        // A shuffle whose width argument is 32.
        if why.is_none() && SHFL.iter().any(|s| line.contains(s)) && last_arg_is_32(line) {
            why = Some("a shuffle of width 32");
        }
        // `for (int o = 16; o > 0; o /= 2)` with a shuffle in the loop: a 32-lane butterfly.
        if why.is_none()
            && line.starts_with("for")
            && (line.contains("= 16;") || line.contains("=16;"))
            && lines[i..lines.len().min(i + 3)]
                .iter()
                .any(|l| SHFL.iter().any(|s| l.contains(s)))
        {
            why = Some("a shuffle reduction starting at offset 16 (32 lanes)");
        }
        if let Some(why) = why {
            let text: String = line.chars().take(100).collect();
            out.push(format!("line {}: {why}: {text}", i + 1));
            if out.len() == 20 {
                break;
            }
        }
    }
    out
}

/// `... 32`, `... = 32;`, `... (32)` at the end of a declaration or define.
fn ends_with_32(line: &str) -> bool {
    let t = line.trim_end_matches([';', ')', ' ', 'u', 'U']);
    t.ends_with(" 32") || t.ends_with("=32") || t.ends_with("(32")
}

/// Whether the last top-level argument of the first call on the line is the literal `32`.
fn last_arg_is_32(line: &str) -> bool {
    let Some(open) = line.find('(') else {
        return false;
    };
    let mut depth = 0i32;
    let mut last_start = open + 1;
    for (j, c) in line[open..].char_indices() {
        let j = j + open;
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return line[last_start..j].trim() == "32";
                }
            }
            ',' if depth == 1 => last_start = j + 1,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_32_lane_assumptions() {
        let src = "#define WARP_SIZE 32\n\
                   __global__ void k(float* x) {\n\
                   float v = x[threadIdx.x];\n\
                   for (int o = 16; o > 0; o /= 2)\n\
                       v += __shfl_xor_sync(0xffffffff, v, o);\n\
                   v = __shfl_sync(0xffffffff, v, 0, 32);\n\
                   v = __shfl_sync(0xffffffff, v, 0, warpSize); // fine\n\
                   // #define WARP_SIZE 32 in a comment is not code\n\
                   }\n";
        let found = scan(src);
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found[0].starts_with("line 1: a warp-size constant"));
        assert!(found[1].starts_with("line 4: a shuffle reduction"));
        assert!(found[2].starts_with("line 6: a shuffle of width 32"));
        assert!(scan("__global__ void k() { int w = warpSize; }").is_empty());
    }

    #[test]
    fn wave64_targets() {
        for a in ["gfx90a", "gfx942", "gfx950", "gfx908:sramecc+", "gfx803"] {
            assert!(is_wave64(a.split(':').next().unwrap()), "{a}");
        }
        for a in ["gfx1030", "gfx1100", "gfx1200", "sm_90", ""] {
            assert!(!is_wave64(a), "{a}");
        }
    }

    #[test]
    fn notes_only_for_wave64_targets() {
        let p = 0x1234usize;
        remember(p, "#define WARP_SIZE 32\n");
        let arg = |a: &str| vec![std::ffi::CString::new(format!("--offload-arch={a}")).unwrap()];
        assert!(notes(p, &arg("gfx90a")).contains("64-lane"));
        assert!(notes(p, &arg("gfx1100")).is_empty());
        forget(p);
        assert!(notes(p, &arg("gfx90a")).is_empty());
    }
}
