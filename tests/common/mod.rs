//! Shared by the integration tests: an `iolab` command confined to a fresh
//! directory (its own TMPDIR and data home), and checks that a run left
//! nothing behind.

#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Sandbox { dir }
    }

    pub fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("data/iolab/results.db")
    }

    /// `iolab ARGS` with TMPDIR and XDG_DATA_HOME inside the sandbox.
    pub fn iolab(&self, args: &[&str]) -> Command {
        let mut cmd = Command::cargo_bin("iolab").unwrap();
        cmd.args(args)
            .env("TMPDIR", self.tmp())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env_remove("CI");
        cmd
    }

    /// `iolab ARGS`, which must succeed and leave nothing in TMPDIR; the
    /// JSON it printed on stdout.
    pub fn run_json(&self, args: &[&str]) -> serde_json::Value {
        let out = self
            .iolab(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        self.assert_tmp_empty();
        json(&out)
    }

    /// Nothing of a run's temp dirs or FIFOs remains.
    pub fn assert_tmp_empty(&self) {
        let left: Vec<_> = std::fs::read_dir(self.tmp())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
    }
}

/// The JSON a run printed on stdout.
pub fn json(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(output)))
}

pub fn results(run: &serde_json::Value) -> &Vec<serde_json::Value> {
    run["results"].as_array().expect("results is an array")
}

pub fn exists(path: &Path) -> bool {
    path.exists()
}
