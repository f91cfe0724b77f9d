//! Environment guards and the lock that makes tests run one at a time.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// The process-wide test lock: tests that must not overlap (allocator reuse, stream capture, the
/// legacy default stream) hold it for their whole body. A test that panicked while holding it
/// does not poison it for the next.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// An environment variable set (or removed) for the guard's life and put back as it was when
/// the guard drops. It holds [`serial`] meanwhile, so guarded tests do not see each other's
/// values; code the test runs in other threads still sees the process's environment.
#[must_use = "the variable is restored when the guard drops"]
pub struct EnvVar {
    key: OsString,
    old: Option<OsString>,
    _serial: MutexGuard<'static, ()>,
}

impl EnvVar {
    /// Sets `key` to `value` until the guard drops.
    pub fn set(key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> EnvVar {
        let g = EnvVar::hold(key.as_ref());
        std::env::set_var(&g.key, value);
        g
    }

    /// Removes `key` until the guard drops.
    pub fn remove(key: impl AsRef<OsStr>) -> EnvVar {
        let g = EnvVar::hold(key.as_ref());
        std::env::remove_var(&g.key);
        g
    }

    fn hold(key: &OsStr) -> EnvVar {
        let serial = serial();
        EnvVar {
            key: key.to_owned(),
            old: std::env::var_os(key),
            _serial: serial,
        }
    }
}

impl Drop for EnvVar {
    fn drop(&mut self) {
        match &self.old {
            Some(v) => std::env::set_var(&self.key, v),
            None => std::env::remove_var(&self.key),
        }
    }
}

/// Points the library variable `key` (an `ANYCUDA_*_LIBRARY`) at `file` for the rest of the
/// process, unless it is set already or `file` does not exist: the tests use the libraries
/// ci/fetch-inputs.sh unpacked into `.cache/inputs` unless told otherwise. Call it before the
/// library is first loaded, from one place (a `Once`), not from threads racing each other.
pub fn default_library(key: &str, file: &Path) {
    if std::env::var_os(key).is_none() && file.exists() {
        std::env::set_var(key, file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_restores_what_was_there() {
        const K: &str = "ANYCUDA_TEST_ENV_GUARD_PROBE";
        std::env::remove_var(K);
        {
            let _g = EnvVar::set(K, "1");
            assert_eq!(std::env::var(K).as_deref(), Ok("1"));
        }
        assert!(std::env::var_os(K).is_none());
        std::env::set_var(K, "before");
        {
            let _g = EnvVar::remove(K);
            assert!(std::env::var_os(K).is_none());
        }
        assert_eq!(std::env::var(K).as_deref(), Ok("before"));
        std::env::remove_var(K);
    }

    #[test]
    fn default_library_keeps_an_explicit_choice() {
        const K: &str = "ANYCUDA_TEST_DEFAULT_LIBRARY_PROBE";
        let _g = EnvVar::remove(K);
        default_library(K, Path::new("/nonexistent/libnothing.so"));
        assert!(std::env::var_os(K).is_none());
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        default_library(K, &here);
        assert_eq!(std::env::var_os(K), Some(here.clone().into()));
        default_library(K, Path::new(env!("CARGO_MANIFEST_DIR")));
        assert_eq!(std::env::var_os(K), Some(here.into()));
    }
}
