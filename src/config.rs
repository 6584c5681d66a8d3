//! User configuration at the XDG config path (`$XDG_CONFIG_HOME/writegate/config.toml`,
//! default `~/.config/writegate/config.toml`; `writegate --print-config-path`): keymap
//! overrides, theme, bell, notify command, polling interval. A missing file means defaults; a bad file is a
//! clear error naming the line, never silently ignored.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The configuration.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Ring the terminal bell when a new item arrives.
    pub bell: bool,
    /// Polling period (ms) when native watching is unavailable or `force_poll` is set.
    pub poll_interval_ms: u64,
    /// Always poll instead of using native notifications (network file systems).
    pub force_poll: bool,
    /// `default` or `mono` (no colours; also chosen by `NO_COLOR`).
    pub theme: String,
    /// How long a confirmation dialog must have been visible before its confirm key (or
    /// Enter) counts, ms: keys typed or pasted on from the key that opened it never decide.
    pub confirm_arming_ms: u64,
    /// A program run when items start waiting, as an argument vector (no shell), e.g.
    /// `["notify-send", "writegate"]`: it gets a one-line summary as its last argument and
    /// `WRITEGATE_WAITING_COUNT`, `WRITEGATE_WAITING_GOALS`, `WRITEGATE_OLDEST_AGE_SECONDS`
    /// in its environment — counts, goal ids and an age, never payload text. Empty: off.
    pub notify_command: Vec<String>,
    /// The minimum time between two runs of `notify_command`, seconds; arrivals inside it
    /// are told together when it ends.
    pub notify_min_interval_s: u64,
    /// Keymap overrides: action name → keys, e.g. `apply = ["a", "ctrl-a"]`.
    pub keys: BTreeMap<String, Vec<String>>,
    /// Writeback runtime adapters: `[runtimes.<runtime_id>]` tables (README, "Writeback
    /// previews"); runtimes not named use the built-in `inbox` adapter.
    pub runtimes: BTreeMap<String, crate::engine::adapters::AdapterConfig>,
}

impl Config {
    /// The adapter map for the engine.
    #[must_use]
    pub fn adapters(&self) -> crate::engine::adapters::Adapters {
        crate::engine::adapters::Adapters { by_runtime: self.runtimes.clone(), error: None }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            bell: true,
            poll_interval_ms: 500,
            force_poll: false,
            theme: "default".into(),
            confirm_arming_ms: 400,
            notify_command: Vec::new(),
            notify_min_interval_s: 60,
            keys: BTreeMap::new(),
            runtimes: BTreeMap::new(),
        }
    }
}

/// Config failures.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Unreadable file.
    #[error("cannot read config {path}")]
    Read {
        /// Path.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Bad TOML or unknown keys.
    #[error("config {path}: {reason}")]
    Parse {
        /// Path.
        path: PathBuf,
        /// What is wrong (with line and column).
        reason: String,
    },
}

/// The config file path: `$XDG_CONFIG_HOME/writegate/config.toml`, else
/// `$HOME/.config/writegate/config.toml`.
#[must_use]
pub fn config_path() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from(".config"))
        .join("writegate")
        .join("config.toml")
}

/// Loads the config (defaults when the file does not exist).
///
/// # Errors
/// [`ConfigError`].
pub fn load() -> Result<Config, ConfigError> {
    let path = config_path();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    parse(&text).map_err(|reason| ConfigError::Parse { path, reason })
}

/// Parses config text.
///
/// # Errors
/// The TOML error text.
pub fn parse(text: &str) -> Result<Config, String> {
    let cfg: Config = toml::from_str(text).map_err(|e| e.to_string().trim().to_owned())?;
    if !matches!(cfg.theme.as_str(), "default" | "mono") {
        return Err(format!("theme must be \"default\" or \"mono\", not {:?}", cfg.theme));
    }
    if cfg.poll_interval_ms < 20 {
        return Err("poll_interval_ms must be at least 20".into());
    }
    if cfg.notify_command.first().is_some_and(String::is_empty) {
        return Err("notify_command: the program (its first element) is empty".into());
    }
    for (id, rt) in &cfg.runtimes {
        if !crate::engine::adapters::is_segment(id) {
            return Err(format!("[runtimes.{id}]: not a runtime id ([A-Za-z0-9._:@-])"));
        }
        rt.validate().map_err(|e| format!("[runtimes.{id}]: {e}"))?;
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        let c = parse("bell = false\ntheme = \"mono\"\n[keys]\napply = [\"A\"]\n").expect("valid");
        assert!(!c.bell);
        assert_eq!(c.keys["apply"], vec!["A"]);
        assert!(parse("bel = true").is_err(), "unknown keys are errors");
        assert!(parse("theme = \"neon\"").is_err());
        assert_eq!(parse("").expect("empty"), Config::default());
        let c =
            parse("notify_command = [\"notify-send\", \"writegate\"]\nnotify_min_interval_s = 5\n").expect("notify");
        assert_eq!((c.notify_command.len(), c.notify_min_interval_s), (2, 5));
        assert!(parse("notify_command = \"notify-send writegate\"").is_err(), "an argument vector, not a shell line");
        assert!(parse("notify_command = [\"\"]").is_err());
        let c = parse("[runtimes.codex_cli_tui]\nadapter = \"command\"\nprogram = \"/bin/true\"\nwrite_classes = [\"quota_scheduler_hint\"]\n")
            .expect("runtimes");
        assert_eq!(c.runtimes["codex_cli_tui"].program.as_deref(), Some("/bin/true"));
        for bad in [
            "[runtimes.x]\nadapter = \"ftp\"\n",
            "[runtimes.x]\nadapter = \"command\"\n",
            "[runtimes.x]\nadapter = \"inbox\"\nwrite_classes = [\"launch\"]\n",
            "[runtimes.x]\nadapter = \"inbox\"\nprogramm = \"y\"\n",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
