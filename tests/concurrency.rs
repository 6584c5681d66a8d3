//! Several processes apply different intents to one goal at the same time. Each worker
//! proposes an update of its own todo and applies it; a stale proposal is reported as a
//! revision conflict (never written), rejected and proposed again. In the end every
//! worker's change is in the state (no lost update) and the applied records form one
//! linear chain of revisions.

mod common;
use common::{demo, engine};
use std::path::Path;
use std::process::Command;
use writegate::engine::Decision;
use writegate::loopx::edit::{TodoArgs, TodoOp};
use writegate::loopx::state::ActiveState;
use writegate::wire::Status;

const TODOS: &[&str] = &["todo_fa501099a20c", "todo_cc1c01a7ef81", "todo_0384f4bcd660", "todo_db6353bdcb9c"];

/// Child half: worker `WG_WORKER` on `WG_CHILD_REGISTRY`; run by the parent only.
#[test]
#[ignore = "run as a child process by parallel_appliers_lose_no_update"]
fn child_worker() {
    let (Ok(reg), Ok(k)) = (std::env::var("WG_CHILD_REGISTRY"), std::env::var("WG_WORKER")) else {
        return;
    };
    let k: usize = k.parse().expect("worker index");
    let loc = writegate::loopx::registry::Locator {
        registry: Some(reg.into()),
        ..writegate::loopx::registry::Locator::from_env(None, None)
    };
    let e =
        writegate::engine::Engine::open(&loc, writegate::engine::Clock::System, format!("worker-{k}")).expect("engine");
    let op = TodoOp::TodoUpdate(TodoArgs {
        todo_id: Some(TODOS[k].into()),
        agent_id: Some("codex-main-control".into()),
        note: Some(format!("note from worker {k}")),
        ..TodoArgs::default()
    });
    for _ in 0..200 {
        let id = e.propose("demo-goal", &op).expect("propose").item_id;
        let out = e.decide(&id, &Decision::apply(), None).expect("decide");
        match out.status {
            Status::Applied => return,
            Status::RevisionConflict | Status::LockBusy => {
                e.decide(&id, &Decision::Reject { reason: "stale; proposing again".into() }, None).expect("reject");
            }
            other => panic!("worker {k}: unexpected {other:?}: {}", out.message),
        }
    }
    panic!("worker {k} never applied");
}

#[test]
fn parallel_appliers_lose_no_update() {
    let (_d, reg) = demo();
    let children: Vec<_> = (0..TODOS.len())
        .map(|k| {
            Command::new(std::env::current_exe().expect("exe"))
                .args(["--exact", "child_worker", "--ignored", "--quiet", "--test-threads=1"])
                .env("WG_CHILD_REGISTRY", &reg)
                .stdout(std::process::Stdio::null())
                .env("WG_WORKER", k.to_string())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().expect("wait").success(), "a worker failed");
    }
    let e = engine(Path::new(&reg));
    let text = std::fs::read_to_string(&e.goal("demo-goal").expect("goal").state_file).expect("state");
    let st = ActiveState::parse(&text);
    for (k, todo) in TODOS.iter().enumerate() {
        let t = st.find_todo(todo).expect("todo");
        assert_eq!(
            t.metadata.text("note").as_deref(),
            Some(format!("note from worker {k}").as_str()),
            "lost update of {todo}"
        );
    }
    let log = e.log(Some("demo-goal")).expect("log");
    let mut applied: Vec<_> =
        log.iter().filter(|r| r.status == Status::Applied && r.operator.starts_with("worker-")).collect();
    assert_eq!(applied.len(), TODOS.len());
    let conflicts =
        log.iter().filter(|r| r.status == Status::RevisionConflict && r.operator.starts_with("worker-")).count();
    // Follow the chain base → applied: it must visit every applied record exactly once.
    let first = applied
        .iter()
        .position(|r| !applied.iter().any(|p| p.applied_revision == r.base_revision))
        .expect("a first apply");
    let mut cur = applied.remove(first);
    let mut length = 1;
    while let Some(pos) = applied.iter().position(|r| r.base_revision == cur.applied_revision) {
        cur = applied.remove(pos);
        length += 1;
    }
    assert!(applied.is_empty(), "applies outside the linear chain: {applied:?}");
    assert_eq!(length, TODOS.len());
    eprintln!("{length} workers applied in one chain, {conflicts} revision conflicts reported on the way");
}
