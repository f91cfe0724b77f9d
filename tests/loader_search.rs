//! The library search's order (docs/choosing-a-backend.md, "Library search"): an explicit file,
//! already loaded, site-packages' `nvidia/*/lib`, conda's `lib`, the install roots, the loader's
//! path, then the fallbacks. The order is checked on folders of fake files (no GPU, no vendor
//! library), the "already loaded" step on libc, and the CUDA backend's NVRTC on a fake virtual
//! environment holding the real NVRTC (CI's wheel in .cache/inputs).

mod common;

use anycuda_api::loader::{site_packages_with, Candidate, Python, Search, Step};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A scratch folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let d = std::env::temp_dir().join(format!(
            "anycuda-loader-search-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    /// Creates `rel` (and its folders) holding a few bytes; returns its path.
    fn file(&self, rel: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, b"not a library").unwrap();
        p
    }

    fn dir(&self, rel: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(&p).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An environment of these variables only.
fn env(vars: &[(&str, &Path)]) -> impl Fn(&str) -> Option<OsString> {
    let m: HashMap<String, OsString> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.as_os_str().to_owned()))
        .collect();
    move |k| m.get(k).cloned()
}

const FAKE: Search = Search {
    library: "fake (libfake)",
    explicit_env: "ANYCUDA_FAKE_LIBRARY",
    sonames: &["libfake.so.13", "libfake.so.12"],
    // CUDA's root variable: NVIDIA's wheels are searched for this library.
    root_envs: &["CUDA_PATH"],
    lib_dirs: &["lib64", "lib"],
    default_roots: &["/nonexistent/anycuda-fake-root"],
};

fn position(plan: &[Candidate], name: &Path) -> usize {
    let name = name.to_string_lossy();
    plan.iter()
        .position(|c| c.name == name)
        .unwrap_or_else(|| panic!("{name} not in the plan: {plan:#?}"))
}

#[test]
fn the_steps_come_in_cuda_pathfinders_order() {
    let s = Scratch::new("order");
    let venv_site = "venv/lib/python3.12/site-packages";
    let cu13 = s.file(&format!("{venv_site}/nvidia/cu13/lib/libfake.so.13"));
    let cu12 = s.file(&format!("{venv_site}/nvidia/cuda_fake/lib/libfake.so.12"));
    // A wheel folder that lacks the library is not a candidate.
    s.file(&format!("{venv_site}/nvidia/cublas/lib/libcublas.so.13"));
    let conda_site = s.file("conda/lib/python3.11/site-packages/nvidia/cu13/lib/libfake.so.13");
    let conda_lib = s.file("conda/lib/libfake.so.13");
    let root = s.file("cuda/lib/libfake.so.13");
    let ld = s.file("ld/libfake.so.13");
    let vars = env(&[
        ("VIRTUAL_ENV", &s.0.join("venv")),
        ("CONDA_PREFIX", &s.0.join("conda")),
        ("CUDA_PATH", &s.0.join("cuda")),
        ("LD_LIBRARY_PATH", &s.0.join("ld")),
    ]);
    let plan = FAKE.plan_with(&vars, None);
    // Each step's candidates come after every candidate of the steps before it.
    let order = [
        Step::AlreadyLoaded,
        Step::SitePackages,
        Step::Conda,
        Step::InstallRoot,
        Step::LoaderPath,
        Step::DefaultRoot,
        Step::ByPath,
    ];
    let rank = |st: Step| order.iter().position(|&o| o == st).unwrap();
    for w in plan.windows(2) {
        assert!(
            rank(w[0].step) <= rank(w[1].step),
            "{:?} before {:?}",
            w[0],
            w[1]
        );
    }
    for st in order {
        assert!(plan.iter().any(|c| c.step == st), "no {st} step: {plan:#?}");
    }
    // Already loaded: each soname, before anything else.
    assert_eq!(plan[0].name, "libfake.so.13");
    assert_eq!(plan[0].step, Step::AlreadyLoaded);
    assert_eq!(plan[1].name, "libfake.so.12");
    // The virtual environment's wheels (the newer soname first), then conda's Python's.
    let (a, b, c) = (
        position(&plan, &cu13),
        position(&plan, &cu12),
        position(&plan, &conda_site),
    );
    assert!(a < b && b < c, "{plan:#?}");
    assert_eq!(plan[a].via, "VIRTUAL_ENV");
    assert_eq!(plan[c].via, "CONDA_PREFIX");
    assert!(c < position(&plan, &conda_lib));
    assert_eq!(plan[position(&plan, &conda_lib)].step, Step::Conda);
    assert!(position(&plan, &conda_lib) < position(&plan, &root));
    assert_eq!(plan[position(&plan, &root)].via, "CUDA_PATH");
    // The loader's path (by soname), then the usual roots, then by path.
    let loader = plan
        .iter()
        .position(|c| c.step == Step::LoaderPath && c.name == "libfake.so.13")
        .unwrap();
    assert!(position(&plan, &root) < loader);
    assert!(loader < position(&plan, &ld));
    assert_eq!(plan[position(&plan, &ld)].step, Step::ByPath);
    // No step lists a path twice.
    let paths: Vec<&str> = plan
        .iter()
        .filter(|c| c.name.contains('/'))
        .map(|c| c.name.as_str())
        .collect();
    let mut uniq = paths.clone();
    uniq.sort();
    uniq.dedup();
    assert_eq!(paths.len(), uniq.len(), "{paths:#?}");
}

#[test]
fn an_explicit_file_is_the_only_candidate() {
    let s = Scratch::new("explicit");
    s.file("venv/lib/python3.12/site-packages/nvidia/cu13/lib/libfake.so.13");
    let file = s.file("mine/libfake.so.13");
    let vars = env(&[
        ("ANYCUDA_FAKE_LIBRARY", &file),
        ("VIRTUAL_ENV", &s.0.join("venv")),
    ]);
    let plan = FAKE.plan_with(&vars, None);
    assert_eq!(plan.len(), 1, "{plan:#?}");
    assert_eq!(plan[0].step, Step::Explicit);
    assert_eq!(plan[0].name, file.to_string_lossy());
    assert_eq!(plan[0].via, "ANYCUDA_FAKE_LIBRARY");
}

#[test]
fn a_site_packages_folder_without_the_library_is_listed_as_looked_at() {
    let s = Scratch::new("empty-site");
    let site = s.dir("venv/lib/python3.12/site-packages");
    s.file("venv/lib/python3.12/site-packages/nvidia/cu13/lib/libother.so.1");
    let plan = FAKE.plan_with(&env(&[("VIRTUAL_ENV", &s.0.join("venv"))]), None);
    let note = &plan[position(&plan, &site)];
    assert_eq!(note.step, Step::SitePackages);
    let why = note.nothing.as_deref().expect("a note, not a candidate");
    assert!(why.contains("nvidia/*/lib/libfake.so.13"), "{why}");
    // Opening the plan never opens a note: the search reports it and goes on.
    assert!(plan
        .iter()
        .all(|c| c.nothing.is_none() || c.step == Step::SitePackages));
}

#[test]
fn only_nvidias_libraries_are_looked_for_in_nvidias_wheels() {
    let s = Scratch::new("amd");
    s.file("venv/lib/python3.12/site-packages/nvidia/cu13/lib/libfake.so.13");
    let vars = env(&[("VIRTUAL_ENV", &s.0.join("venv"))]);
    assert!(FAKE.is_nvidia_library());
    assert!(FAKE
        .plan_with(&vars, None)
        .iter()
        .any(|c| c.step == Step::SitePackages));
    // AMD's libraries (ROCM_PATH) and the driver (no root: no wheel ships it) skip the step.
    for roots in [&["ROCM_PATH", "HIP_PATH"][..], &[][..]] {
        let other = Search {
            root_envs: roots,
            ..FAKE
        };
        assert!(!other.is_nvidia_library());
        let plan = other.plan_with(&vars, None);
        assert!(
            plan.iter().all(|c| c.step != Step::SitePackages),
            "{plan:#?}"
        );
    }
}

#[test]
fn the_running_python_finds_its_virtual_environment_then_its_installation() {
    let s = Scratch::new("python");
    // A base installation (prefix/bin/python3.11) and a venv made from it (venv/bin/python,
    // pyvenv.cfg at the venv's root), as `python3 -m venv` lays them out.
    let exe = s.file("base/bin/python3.11");
    let base_site = s.dir("base/lib/python3.11/site-packages");
    let venv_site = s.dir("venv/lib/python3.11/site-packages");
    let user_site = s.dir("home/.local/lib/python3.11/site-packages");
    let invoked = s.file("venv/bin/python");
    let cfg = s.0.join("venv/pyvenv.cfg");
    std::fs::write(
        &cfg,
        "home = /x/bin\ninclude-system-site-packages = false\n",
    )
    .unwrap();
    let py = Python {
        exe: exe.clone(),
        invoked: Some(invoked.clone()),
    };
    let home = s.0.join("home");
    let vars = env(&[("HOME", &home)]);
    let sites = |py: &Python| -> Vec<(PathBuf, String)> { site_packages_with(&vars, Some(py)) };
    let dirs = |py: &Python| -> Vec<PathBuf> { sites(py).into_iter().map(|(d, _)| d).collect() };
    // In the venv: its own site-packages only (no user site, no base).
    assert_eq!(dirs(&py), vec![venv_site.clone()]);
    assert_eq!(sites(&py)[0].1, "this Python's virtual environment");
    // include-system-site-packages: the base's too, after the venv's.
    std::fs::write(&cfg, "include-system-site-packages = true\n").unwrap();
    assert_eq!(dirs(&py), vec![venv_site.clone(), base_site.clone()]);
    // Not in a venv: the user's site-packages, then the installation's.
    let plain = Python {
        exe: exe.clone(),
        invoked: Some(exe.clone()),
    };
    assert_eq!(dirs(&plain), vec![user_site, base_site.clone()]);
    // ANYCUDA_SITE_PACKAGES comes first; VIRTUAL_ENV after the running Python; each folder once.
    let extra = s.dir("extra");
    let vars = env(&[
        ("ANYCUDA_SITE_PACKAGES", &extra),
        ("VIRTUAL_ENV", &s.0.join("venv")),
    ]);
    let got: Vec<PathBuf> = site_packages_with(&vars, Some(&py))
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    assert_eq!(got, vec![extra, venv_site, base_site]);
    // No Python and no variables: no site-packages at all.
    assert!(site_packages_with(&env(&[]), None).is_empty());
}

#[test]
fn a_library_already_loaded_is_found_first_and_named_by_its_file() {
    // libc is loaded in every process; the search takes it at the first step.
    let s = Search {
        library: "libc (test)",
        explicit_env: "ANYCUDA_TEST_LIBC_UNSET",
        sonames: &["libc.so.6"],
        root_envs: &[],
        lib_dirs: &[],
        default_roots: &[],
    };
    let o = s.open().expect("libc is loaded");
    assert!(
        o.path.starts_with('/') && o.path.contains("libc"),
        "{}",
        o.path
    );
    let t = anycuda_api::loader::traces()
        .into_iter()
        .find(|t| t.library == "libc (test)")
        .unwrap();
    assert_eq!(t.tries.len(), 1, "{t:#?}");
    assert_eq!(t.tries[0].candidate.step, Step::AlreadyLoaded);
    assert_eq!(t.tries[0].outcome.as_deref(), Ok(o.path.as_str()));
    // A soname nobody loaded: the step says so and the search goes on (and the error lists
    // what was looked for, not the "not loaded" tries).
    let none = Search {
        library: "nothing (test)",
        sonames: &["libanycuda-never-loaded.so.1"],
        ..s
    };
    let e = none.open().unwrap_err().to_string();
    assert!(!e.contains("not loaded"), "{e}");
    let t = anycuda_api::loader::traces()
        .into_iter()
        .find(|t| t.library == "nothing (test)")
        .unwrap();
    assert_eq!(t.tries[0].candidate.step, Step::AlreadyLoaded);
    assert_eq!(
        t.tries[0].outcome.as_ref().unwrap_err(),
        "not loaded in this process"
    );
    assert!(t.tries.len() > 1);
}

/// The CUDA backend's NVRTC, searched in a fresh `anycuda info` with `VIRTUAL_ENV` naming a
/// fake environment whose `nvidia/cu13/lib` links to the real NVRTC: found there, before
/// `CUDA_PATH` (which holds NVRTC too), and `info` shows the tries in order.
#[cfg(feature = "backend-cuda")]
#[test]
fn the_cuda_backend_finds_nvrtc_in_a_virtual_environments_wheel() {
    let real = common::repo_root().join(".cache/inputs/cuda/nvidia/cu13/lib");
    if !real.join("libnvrtc.so.13").is_file() {
        assert!(
            !common::on_ci(),
            "NVRTC is not unpacked in {} (bash ci/fetch-inputs.sh)",
            real.display()
        );
        eprintln!("SKIP: no NVRTC in {}", real.display());
        return;
    }
    let s = Scratch::new("nvrtc-venv");
    let lib = s.dir("venv/lib/python3.11/site-packages/nvidia/cu13/lib");
    for e in std::fs::read_dir(&real).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with("libnvrtc") {
            std::os::unix::fs::symlink(e.path(), lib.join(&n)).unwrap();
        }
    }
    let out = std::process::Command::new(common::anycuda_bin())
        .args(["info", "--json"])
        .env_remove("ANYCUDA_NVRTC_LIBRARY")
        .env_remove("ANYCUDA_SITE_PACKAGES")
        .env_remove("CONDA_PREFIX")
        .env("VIRTUAL_ENV", s.0.join("venv"))
        .env("CUDA_PATH", real.parent().unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cuda = v["backends"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["backend"] == "cuda")
        .unwrap();
    let nvrtc = cuda["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["role"] == "nvrtc")
        .unwrap();
    let want = lib.join("libnvrtc.so.13");
    assert_eq!(nvrtc["path"], want.to_string_lossy().as_ref(), "{nvrtc}");
    // The tries, in order: not already loaded, then the wheel; CUDA_PATH never reached.
    let search = v["library_search"]["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["library"] == "NVRTC (libnvrtc)")
        .unwrap();
    let tries = search["tries"].as_array().unwrap();
    let last = tries.last().unwrap();
    assert_eq!(last["step"], "site-packages", "{search}");
    assert_eq!(last["via"], "VIRTUAL_ENV");
    assert_eq!(last["opened"], want.to_string_lossy().as_ref());
    assert!(tries[..tries.len() - 1]
        .iter()
        .all(|t| t["step"] == "already loaded" && t["error"].is_string()));
    let sites = v["library_search"]["site_packages"].as_array().unwrap();
    assert_eq!(sites[0]["via"], "VIRTUAL_ENV", "{sites:?}");
}

/// A library some other code loaded by path (as cuda.pathfinder loads NVIDIA's NVRTC from a
/// wheel) is found by its soname at the "already loaded" step, as that file: the same NVRTC,
/// never a second one.
#[test]
fn a_library_loaded_by_path_elsewhere_is_found_by_its_soname() {
    let real = common::repo_root().join(".cache/inputs/cuda/nvidia/cu13/lib/libnvrtc.so.13");
    if !real.is_file() {
        assert!(!common::on_ci(), "no NVRTC at {}", real.display());
        eprintln!("SKIP: no NVRTC at {}", real.display());
        return;
    }
    let s = Scratch::new("by-path");
    let wheel = s.dir("wheel/nvidia/cu13/lib").join("libnvrtc.so.13");
    std::os::unix::fs::symlink(&real, &wheel).unwrap();
    // SAFETY: NVIDIA's NVRTC; loading it runs its initialisers, which is what using it means.
    let _held = unsafe { libloading::Library::new(&wheel) }.unwrap();
    let search = Search {
        library: "NVRTC loaded elsewhere (test)",
        explicit_env: "ANYCUDA_TEST_NVRTC_UNSET",
        sonames: &["libnvrtc.so.13"],
        root_envs: &[],
        lib_dirs: &[],
        default_roots: &[],
    };
    let o = search.open().unwrap();
    assert_eq!(o.path, wheel.to_string_lossy());
    let t = anycuda_api::loader::traces()
        .into_iter()
        .find(|t| t.library == search.library)
        .unwrap();
    assert_eq!(t.tries.len(), 1, "{t:#?}");
    assert_eq!(t.tries[0].candidate.step, Step::AlreadyLoaded);
}
