use std::fs;
use std::time::Duration;

use jiff::Timestamp;

use super::*;
use crate::iteration::Iteration;
use crate::run::{RUN_FORMAT, Run};
use crate::safe_fs;
use crate::settings::Clock;

/// The store, locked.
fn locked(store: &Store) -> Locked<'_> {
    store.lock(Duration::from_secs(5)).unwrap()
}

#[test]
fn open_markers_follow_every_write_of_a_run() {
    use crate::breaker::State;
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(tmp.path(), Clock::System);
    assert!(store.open_keys().unwrap().is_empty());
    let config = loopguard_core::config::Config::default();
    fn change(run: &Run) -> Change<'_> {
        Change {
            run,
            events: &[],
            calls: &[],
            start: None,
            report: None,
        }
    }
    let mut run = Run::new("r", Some("main".into()), Timestamp::UNIX_EPOCH, None);
    locked(&store)
        .commit("main", change(&run), Durability::Synced)
        .unwrap();
    assert!(store.open_keys().unwrap().is_empty());
    let mut events = Vec::new();
    for n in 0..3 {
        let mut it = Iteration::new(format!("{n:040x}").parse().unwrap());
        it.tree = Some("t".into());
        it.parent_tree = Some("t".into());
        it.files = Some(Vec::new());
        events.extend(run.record(&config, it, Timestamp::UNIX_EPOCH).events);
    }
    assert!(run.is_open());
    // Through the journal (events with it).
    locked(&store)
        .commit(
            "main",
            Change {
                run: &run,
                events: &events,
                calls: &[],
                start: Some(StartRecord::of(&run)),
                report: None,
            },
            Durability::Synced,
        )
        .unwrap();
    assert_eq!(store.open_keys().unwrap(), ["main"]);

    // A journal that a writer left, of the run closed again: finishing it clears the
    // marker; of an open run on another branch: finishing it sets the marker.
    let mut closed = run.clone();
    closed.resume(&config, Timestamp::UNIX_EPOCH).unwrap();
    assert_ne!(closed.breaker().state(), State::Open);
    for (key, r) in [("main", &closed), ("side", &run)] {
        let journal = Journal {
            format: RUN_FORMAT,
            run: r.clone(),
            events: Vec::new(),
            events_at: 0,
            calls: Vec::new(),
            calls_at: 0,
            start: None,
            report: None,
        };
        fs::write(
            store.journal_path(key),
            serde_json::to_vec(&journal).unwrap(),
        )
        .unwrap();
        assert!(locked(&store).recover(key, "t").unwrap().applied);
    }
    assert_eq!(store.open_keys().unwrap(), ["side"]);

    // Something else where a marker belongs: never written through, a marker still.
    let outside = tmp.path().join("outside");
    std::os::unix::fs::symlink(&outside, store.open_marker("main")).unwrap();
    locked(&store)
        .commit("main", change(&run), Durability::Synced)
        .unwrap();
    assert!(!outside.exists());
    assert!(
        store
            .open_marker("main")
            .symlink_metadata()
            .unwrap()
            .is_file()
    );
    assert_eq!(store.open_keys().unwrap(), ["main", "side"]);
}

#[test]
fn corrupt_and_future_files_are_kept_aside() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(tmp.path(), Clock::System);
    let run = Run::new("r", Some("main".into()), Timestamp::UNIX_EPOCH, None);
    let change = |run| Change {
        run,
        events: &[],
        calls: &[],
        start: None,
        report: None,
    };
    locked(&store)
        .commit("main", change(&run), Durability::Synced)
        .unwrap();
    match locked(&store).load_run("main", "t").unwrap() {
        Loaded::Found(r) => assert_eq!(r.saved(), run.saved()),
        other => panic!("{other:?}"),
    }

    fs::write(store.run_path("main"), b"{\"format\": 1, \"id\": ").unwrap();
    match locked(&store).load_run("main", "t1").unwrap() {
        Loaded::SetAside { kept, why } => {
            assert!(why.contains("not valid JSON"), "{why}");
            assert_eq!(fs::read(&kept).unwrap(), b"{\"format\": 1, \"id\": ");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        locked(&store).load_run("main", "t2").unwrap(),
        Loaded::Missing
    ));

    let mut future = serde_json::to_value(&run).unwrap();
    future["format"] = 99.into();
    fs::write(store.run_path("main"), future.to_string()).unwrap();
    match locked(&store).load_run("main", "t3").unwrap() {
        Loaded::SetAside { why, .. } => assert!(why.contains("format 99"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_journal_is_what_readers_see_and_the_next_writer_finishes_once() {
    use crate::breaker::{EventKind, State};
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(tmp.path(), Clock::System);
    let mut run = Run::new("r", Some("main".into()), Timestamp::UNIX_EPOCH, None);
    let event = run
        .config_ignored("x", "edited".into(), Timestamp::UNIX_EPOCH)
        .unwrap();
    assert_eq!(
        (event.kind, event.to),
        (EventKind::ConfigIgnored, State::Closed)
    );
    // A writer that died after its journal (and after appending the events).
    let journal = Journal {
        format: RUN_FORMAT,
        run: run.clone(),
        events: vec![event.clone()],
        events_at: 0,
        calls: Vec::new(),
        calls_at: 0,
        start: Some(StartRecord::of(&run)),
        report: Some(("r".into(), "# report\n".into())),
    };
    safe_fs::ensure_dir(&tmp.path().join("loopguard/runs")).unwrap();
    fs::write(
        store.journal_path("main"),
        serde_json::to_vec(&journal).unwrap(),
    )
    .unwrap();
    safe_fs::ensure_dir(&tmp.path().join("loopguard/events")).unwrap();
    let line = format!("{}\n", serde_json::to_string(&event).unwrap());
    fs::write(store.events_path("main"), &line).unwrap();
    let temporary = tmp
        .path()
        .join(format!("loopguard/runs/{}XyZ", safe_fs::TEMP_PREFIX));
    fs::write(&temporary, b"{").unwrap();

    match store.peek_run("main").unwrap() {
        Peeked::Found(r) => assert_eq!(r.ignored_config.as_deref(), Some("x")),
        other => panic!("{other:?}"),
    }
    let out = locked(&store).recover("main", "t").unwrap();
    assert!(out.applied);
    assert_eq!(fs::read_to_string(store.events_path("main")).unwrap(), line);
    assert!(!store.journal_path("main").exists());
    assert!(!temporary.exists());
    assert_eq!(store.read_start("main").unwrap().run, "r");
    assert_eq!(
        fs::read_to_string(store.report_path("r")).unwrap(),
        "# report\n"
    );
    // A torn append is cut back and written whole.
    fs::write(store.events_path("main"), &line[..10]).unwrap();
    fs::write(
        store.journal_path("main"),
        serde_json::to_vec(&journal).unwrap(),
    )
    .unwrap();
    locked(&store).recover("main", "t").unwrap();
    assert_eq!(fs::read_to_string(store.events_path("main")).unwrap(), line);
}

#[test]
fn lock_times_out_while_held() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::new(tmp.path(), Clock::System);
    let held = store.lock(Duration::from_secs(1)).unwrap();
    let e = store.lock(Duration::from_millis(50)).err().unwrap();
    assert!(matches!(e, StoreError::Locked { .. }), "{e}");
    assert!(e.to_string().ends_with("for more than 50ms"), "{e}");
    drop(held);
    store.lock(Duration::from_millis(50)).unwrap();
}
