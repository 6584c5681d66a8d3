//! The crash suite (issue 12, "Done when"): every decision kind is killed with SIGKILL
//! before each of its file-system syscalls in turn, not only at the named failpoints.
//!
//! For each kind, a child process (this binary, single-threaded, `WG_CRASH_CHILD=<kind>`)
//! makes the decision on a fresh demo workspace once under `strace` to count its syscalls
//! of [`SYSCALLS`]; then, for every syscall name `S` and every `N` up to its count, a new
//! child is run under `strace -e inject=S:signal=KILL:when=N`, so the kernel kills it as it
//! enters its `N`-th `S`. After each kill the parent opens the workspace as the next
//! writegate would, recovers, and requires:
//! - the results log reads back, the state file is the old or the new text, never torn;
//! - no marker, temp file or task-lease lock is left behind;
//! - the decision is recorded **exactly once**: a kill that came before the record was
//!   durable leaves none, and the retry made right away records it; one after leaves one;
//! - after that, the item, the state and the lease file are where the decision puts them.
//!
//! [`SYSCALLS`] holds every syscall that can change a file, a folder or a lock. A kill
//! before any other syscall leaves the disk as a kill before the next one of these does, so
//! these points reach every crash state a kill can leave.
//!
//! Needs `strace` (`.ci/run` installs it); without it the suite says so loudly and skips.

mod common;
use common::{demo, engine, held_up_by_expired_lease, pin_expired_lease};
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use writegate::engine::{Decision, Engine};
use writegate::wire::Status;

/// Syscalls that can change the file system or a lock (x86-64 and aarch64 names).
const SYSCALLS: &str = "open,openat,creat,write,writev,pwrite64,pwritev,pwritev2,fsync,fdatasync,\
sync_file_range,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,\
symlinkat,truncate,ftruncate,fallocate,chmod,fchmod,fchmodat,flock,fcntl,copy_file_range";

const KINDS: &[&str] = &["apply", "skip", "reject", "duplicate", "writeback", "release"];

fn main() {
    if let Ok(kind) = std::env::var("WG_CRASH_CHILD") {
        std::process::exit(child(&kind));
    }
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!(
            "\n!!!!!!!! SKIPPING the SIGKILL-per-syscall crash suite: strace is not installed (.ci/run installs it) !!!!!!!!\n"
        );
        return;
    }
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut failures = Vec::new();
    for kind in KINDS.iter().filter(|k| only.as_deref().is_none_or(|o| k.contains(o))) {
        let (points, problems) = suite(kind);
        println!(
            "crash suite {kind}: {points} kill points, {} recorded exactly once, {} problems",
            points - problems.len(),
            problems.len()
        );
        failures.extend(problems.into_iter().map(|p| format!("{kind}: {p}")));
    }
    if !failures.is_empty() {
        for f in failures.iter().take(40) {
            eprintln!("FAIL {f}");
        }
        eprintln!("{} kill points failed", failures.len());
        std::process::exit(1);
    }
}

/// A fresh workspace with the item a kind decides.
struct Case {
    _dir: tempfile::TempDir,
    reg: PathBuf,
    goal: &'static str,
    item: String,
    state_before: String,
    state_after: String,
    /// The writeback's idempotency key (empty for other kinds).
    writeback_key: String,
}

fn setup(kind: &str) -> Case {
    let (dir, reg) = demo();
    let e = engine(&reg);
    let (goal, item) = match kind {
        "apply" => ("docs-goal", first(&e, "docs-goal", "ready")),
        "skip" | "reject" => ("demo-goal", first(&e, "demo-goal", "ready")),
        "duplicate" => ("demo-goal", first(&e, "demo-goal", "skipped_duplicate")),
        "writeback" => ("demo-goal", "writeback-handoff".to_owned()),
        "release" => ("demo-goal", pin_expired_lease(&e).0),
        other => panic!("unknown kind {other}"),
    };
    let state_before = state(&e, goal);
    let state_after = if kind == "apply" {
        e.prepare(&e.find_item(&item).expect("item")).proposed_text.expect("proposed").to_string()
    } else {
        state_before.clone()
    };
    let writeback_key =
        e.find_item(&item).ok().and_then(|i| i.writeback.map(|w| w.idempotency_key)).unwrap_or_default();
    Case { _dir: dir, reg, goal, item, state_before, state_after, writeback_key }
}

/// The write intent of `goal` predicted `status` with the smallest idempotency key: item
/// ids carry a digest of a timestamped document, so they sort differently in every demo.
fn first(e: &Engine, goal: &str, status: &str) -> String {
    let mut found: Vec<(String, String)> = e
        .items(Some(goal))
        .into_iter()
        .filter(|i| e.prepare(i).predicted.name() == status)
        .filter_map(|i| Some((i.intent.as_ref().ok()?.idempotency_key.clone(), i.id.clone())))
        .collect();
    found.sort();
    found.into_iter().next().unwrap_or_else(|| panic!("no {status} item in {goal}")).1
}

fn state(e: &Engine, goal: &str) -> String {
    std::fs::read_to_string(&e.goal(goal).expect("goal").state_file).expect("state")
}

/// The decision a kind makes, on `e`.
fn decide(e: &Engine, kind: &str, item: &str) -> Result<Status, String> {
    let d = match kind {
        "apply" | "duplicate" | "writeback" => Decision::apply(),
        "skip" => Decision::Skip,
        "reject" => Decision::Reject { reason: "crash suite".into() },
        "release" => {
            let dir = e.ws.goal_runtime_dir("demo-goal").map_err(|x| x.to_string())?;
            let writegate::loopx::lease::LeaseRead::Present(seen) =
                writegate::loopx::lease::read_lease(&dir, "todo_c670645b588b")
            else {
                return Err("lease unreadable".into());
            };
            let found = e.find_item(item).map_err(|x| x.to_string())?;
            return e
                .release_expired_lease(&found, "todo_c670645b588b", &seen, "crash suite")
                .map(|o| o.status)
                .map_err(|x| x.to_string());
        }
        other => return Err(format!("unknown kind {other}")),
    };
    e.decide(item, &d, None).map(|o| o.status).map_err(|x| x.to_string())
}

/// Child half: one decision, exit 0 when it returned a status, 3 on an error.
fn child(kind: &str) -> i32 {
    let (Ok(reg), Ok(item)) = (std::env::var("WG_CHILD_REGISTRY"), std::env::var("WG_CHILD_ITEM")) else {
        return 4;
    };
    let e = engine(Path::new(&reg));
    match decide(&e, kind, &item) {
        Ok(_) => 0,
        Err(why) => {
            eprintln!("{why}");
            3
        }
    }
}

/// The child of `case` under `strace`, its trace written to `trace_out`.
fn child_command(kind: &str, case: &Case, trace_out: &Path, strace: &[String]) -> Command {
    let mut cmd = Command::new("strace");
    cmd.arg("-qq")
        .arg("-o")
        .arg(trace_out)
        .args(strace)
        .arg(std::env::current_exe().expect("exe"))
        .env("WG_CRASH_CHILD", kind)
        .env("WG_CHILD_REGISTRY", &case.reg)
        .env("WG_CHILD_ITEM", format!("{}/{}", case.goal, case.item))
        .env("XDG_STATE_HOME", case.reg.parent().expect("dir"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    cmd
}

/// Counts the child's syscalls of [`SYSCALLS`] by name, in one uninterrupted run.
fn count_syscalls(kind: &str) -> BTreeMap<String, u32> {
    let case = setup(kind);
    let log = case.reg.parent().expect("dir").join("strace.log");
    let out = child_command(kind, &case, &log, &["-e".into(), format!("trace={SYSCALLS}")]).output().expect("strace");
    assert!(
        out.status.success(),
        "{kind}: the uninterrupted decision failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&log).expect("trace");
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let name: String = line.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() && line[name.len()..].starts_with('(') {
            *counts.entry(name).or_insert(0) += 1;
        }
    }
    counts
}

/// Runs every kill point of `kind` on two workers; returns (points, problems).
fn suite(kind: &str) -> (usize, Vec<String>) {
    let counts = count_syscalls(kind);
    let points: Vec<(String, u32)> =
        counts.iter().flat_map(|(name, &n)| (1..=n).map(move |i| (name.clone(), i))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let problems = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((name, n)) = points.get(i) else { break };
                    if let Err(p) = kill_point(kind, name, *n) {
                        problems.lock().expect("lock").push(format!("kill before {name} #{n}: {p}"));
                    }
                }
            });
        }
    });
    (points.len(), problems.into_inner().expect("lock"))
}

/// One kill point: the child killed entering its `n`-th `name`, then recovery and checks.
fn kill_point(kind: &str, name: &str, n: u32) -> Result<(), String> {
    let case = setup(kind);
    let inject = format!("inject={name}:signal=KILL:when={n}");
    let out = child_command(
        kind,
        &case,
        Path::new("/dev/null"),
        &["-e".into(), format!("trace={name}"), "-e".into(), inject],
    )
    .output()
    .map_err(|e| format!("strace: {e}"))?;
    if out.status.signal() != Some(9) && out.status.code() != Some(137) {
        return Err(format!("the child was not killed ({:?}): {}", out.status, String::from_utf8_lossy(&out.stderr)));
    }
    let e = engine(&case.reg);
    let notes = e.recover_all().map_err(|x| format!("recovery failed: {x}"))?;
    let after_kill = state(&e, case.goal);
    if after_kill != case.state_before && after_kill != case.state_after {
        return Err("the state file is torn".into());
    }
    let finals = |e: &Engine| -> Result<usize, String> {
        let log = e.gate(case.goal).map_err(|x| x.to_string())?.results().read_all(false).map_err(|x| x.to_string())?;
        Ok(log.iter().filter(|r| r.item_id == case.item && is_final(kind, r)).count())
    };
    match finals(&e)? {
        0 => {
            decide(&e, kind, &case.item).map_err(|x| format!("the retry failed: {x} (recovery: {notes:?})"))?;
            let n = finals(&e)?;
            if n != 1 {
                return Err(format!("{n} records after the retry (recovery: {notes:?})"));
            }
        }
        1 => {}
        n => return Err(format!("{n} records (recovery: {notes:?})")),
    }
    leftovers(&e, &case)?;
    let now = state(&e, case.goal);
    if now != case.state_after {
        return Err("the state file is not the decided text".into());
    }
    let pending = e.find_item(&case.item).is_ok();
    if pending != (kind == "release") {
        return Err(format!("the item is {}pending", if pending { "still " } else { "not " }));
    }
    if kind == "writeback" {
        writeback_rows_once(&e, &case)?;
    }
    if kind == "release" && held_up_by_expired_lease(&e).is_some() {
        return Err("the lease is not released".into());
    }
    Ok(())
}

fn is_final(kind: &str, r: &writegate::wire::ResultRecord) -> bool {
    match kind {
        "release" => r.decision == "release_lease",
        "apply" => matches!(r.status, Status::Applied | Status::AlreadyApplied),
        "skip" => r.status == Status::Skipped,
        "reject" => r.status == Status::Rejected,
        "duplicate" => r.status == Status::SkippedDuplicate,
        _ => matches!(r.status, Status::Applied | Status::Skipped | Status::Rejected | Status::Failed),
    }
}

/// No marker, temp file or lock left in the gate, the state folder or the task leases.
fn leftovers(e: &Engine, case: &Case) -> Result<(), String> {
    let gate = e.gate(case.goal).map_err(|x| x.to_string())?;
    let runtime = e.ws.goal_runtime_dir(case.goal).map_err(|x| x.to_string())?;
    let state_dir = e.goal(case.goal).map_err(|x| x.to_string())?.state_file.parent().expect("dir").to_owned();
    let names = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(Result::ok).map(|d| d.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default()
    };
    let left: Vec<String> = names(&gate.applying())
        .into_iter()
        .chain(names(&gate.inbox()).into_iter().filter(|n| is_temp(n)))
        .chain(names(gate.revisions().dir()).into_iter().filter(|n| is_temp(n)))
        .chain(names(&state_dir).into_iter().filter(|n| is_temp(n)))
        .chain(names(&runtime.join("task-leases")).into_iter().filter(|n| n.starts_with('.')))
        .collect();
    if left.is_empty() { Ok(()) } else { Err(format!("left behind: {left:?}")) }
}

/// A writeback leaves exactly one LoopX run row naming the item and one reflection of its
/// idempotency key in the runtime's metadata.
fn writeback_rows_once(e: &Engine, case: &Case) -> Result<(), String> {
    let runtime = e.ws.goal_runtime_dir(case.goal).map_err(|x| x.to_string())?;
    let rows = std::fs::read_to_string(runtime.join("runs/index.jsonl")).unwrap_or_default();
    let needle = format!("\"writegate_item_id\": \"{}\"", case.item);
    let n = rows.lines().filter(|l| l.contains(&needle)).count();
    if n != 1 {
        return Err(format!("{n} LoopX run rows name the item"));
    }
    let key = &case.writeback_key;
    let reflections = walk(&e.ws.runtime_root.join("runtimes"))
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "metadata.jsonl"))
        .map(|p| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .lines()
                .filter(|l| !key.is_empty() && l.contains(key.as_str()))
                .count()
        })
        .sum::<usize>();
    if reflections > 1 {
        return Err(format!("{reflections} reflections of the key in the runtime"));
    }
    Ok(())
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let p = entry.path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}

/// A temp file name of writegate's writers (`.<name>.<pid>.<n>.tmp`).
fn is_temp(name: &str) -> bool {
    name.starts_with('.') && Path::new(name).extension().is_some_and(|x| x == "tmp")
}
