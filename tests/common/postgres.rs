//! A real PostgreSQL server for the fleet tests: `initdb` into a temp dir
//! (as the `postgres` user when the tests run as root, since initdb refuses
//! root), `pg_ctl start` on a private unix socket dir and a free TCP port
//! with a password login, and on drop `pg_ctl stop` and the dir removed,
//! also when the test fails. Missing binaries skip the test (`require`).
//! Below the server, what the fleet tests share: runs made on given hosts
//! and kernels, local stores holding them, and `push`.

#![allow(dead_code, unused_imports)]

pub use crate::common::net::free_port;
pub use crate::common::stdout;
use crate::common::{find_program, is_root, require, Sandbox};
use crate::runs;
use iolab::model::Run;
use postgres::{Client, NoTls};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const PASSWORD: &str = "s3cret";

pub struct Server {
    bin: PathBuf,
    /// Whose the server's files are: the `postgres` user's when root.
    owner: Option<(u32, u32)>,
    pub port: u16,
    dir: tempfile::TempDir,
}

/// Where initdb and pg_ctl are: on PATH, else Debian's
/// /usr/lib/postgresql/VERSION/bin (the newest).
fn bin_dir() -> Option<PathBuf> {
    if let Some(initdb) = find_program(&["initdb"]) {
        return initdb.parent().map(Path::to_path_buf);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file() && bin.join("pg_ctl").is_file())
        .collect();
    found.sort_by_key(|p| {
        let version = p.parent().and_then(|v| v.file_name());
        version.and_then(|v| v.to_str()?.parse::<u32>().ok())
    });
    found.pop()
}

/// The uid and gid of the `postgres` user, from /etc/passwd.
fn postgres_user() -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    let line = passwd.lines().find(|l| l.starts_with("postgres:"))?;
    let fields: Vec<&str> = line.split(':').collect();
    Some((fields.get(2)?.parse().ok()?, fields.get(3)?.parse().ok()?))
}

impl Server {
    /// A running server, or None (after `require` said why) when this
    /// machine has no PostgreSQL.
    pub fn start() -> Option<Server> {
        let Some(bin) = bin_dir() else {
            require(
                false,
                "PostgreSQL's initdb and pg_ctl (Debian: apt-get install postgresql)",
            );
            return None;
        };
        let owner = match is_root() {
            true => Some(postgres_user()).filter(Option::is_some).flatten(),
            false => None,
        };
        if is_root() && owner.is_none() {
            require(
                false,
                "a `postgres` user to run initdb as (initdb refuses root)",
            );
            return None;
        }
        let dir = tempfile::Builder::new()
            .prefix("iolab-pg-")
            .tempdir()
            .unwrap();
        let server = Server {
            bin,
            owner,
            port: free_port(),
            dir,
        };
        server.init();
        Some(server)
    }

    fn init(&self) {
        let pw = self.dir.path().join("pw");
        std::fs::write(&pw, PASSWORD).unwrap();
        if let Some((uid, gid)) = self.owner {
            std::os::unix::fs::chown(self.dir.path(), Some(uid), Some(gid)).unwrap();
            std::os::unix::fs::chown(&pw, Some(uid), Some(gid)).unwrap();
        }
        self.tool("initdb")
            .args([
                "-D",
                &self.data(),
                "-U",
                "iolab",
                "--no-locale",
                "-E",
                "UTF8",
            ])
            .args([
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--no-sync",
            ])
            .arg(format!("--pwfile={}", pw.display()))
            .run();
        self.start_server();
    }

    /// Starts the server on its port with its data: first after initdb,
    /// again after `stop`.
    pub fn start_server(&self) {
        let options = format!(
            "-k {} -p {} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=16MB \
             -c max_connections=40",
            self.dir.path().display(),
            self.port
        );
        self.tool("pg_ctl")
            .args([
                "-D",
                &self.data(),
                "-o",
                &options,
                "-w",
                "-t",
                "120",
                "start",
            ])
            .arg(format!("--log={}/log", self.dir.path().display()))
            .run();
    }

    /// Stops the server as a host going down would (its data stays):
    /// connecting to it is refused until `start_server`.
    pub fn stop(&self) {
        self.tool("pg_ctl")
            .args(["-D", &self.data(), "-m", "fast", "-w", "stop"])
            .run();
    }

    fn data(&self) -> String {
        format!("{}/data", self.dir.path().display())
    }

    fn tool(&self, name: &str) -> Tool {
        let mut cmd = Command::new(self.bin.join(name));
        cmd.current_dir(self.dir.path());
        if let Some((uid, gid)) = self.owner {
            cmd.uid(uid).gid(gid);
        }
        Tool(cmd)
    }

    /// The URL of database `db` on this server, logging in as `user`
    /// with `password`.
    pub fn url_as(&self, user: &str, password: &str, db: &str) -> String {
        format!(
            "postgresql://{user}:{password}@127.0.0.1:{}/{db}",
            self.port
        )
    }

    /// The URL of a new, empty database `db`.
    pub fn database(&self, db: &str) -> String {
        self.client("postgres")
            .batch_execute(&format!("CREATE DATABASE {db}"))
            .unwrap();
        self.url_as("iolab", PASSWORD, db)
    }

    /// A connection to database `db`, to look at what iolab wrote.
    pub fn client(&self, db: &str) -> Client {
        Client::connect(&self.url_as("iolab", PASSWORD, db), NoTls).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self
            .tool("pg_ctl")
            .0
            .args(["-D", &self.data(), "-m", "immediate", "-w", "stop"])
            .output();
    }
}

struct Tool(Command);

impl Tool {
    fn args<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(mut self, args: I) -> Tool {
        self.0.args(args);
        self
    }

    fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Tool {
        self.0.arg(arg);
        self
    }

    fn run(mut self) {
        let out = self.0.output().unwrap();
        assert!(
            out.status.success(),
            "{:?} failed: {}{}",
            self.0,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A fabricated run made on `host` running `kernel`.
pub fn run_on(id: &str, started_at: &str, host: &str, kernel: &str, scale: f64) -> Run {
    let mut run = runs::run(id, started_at, "fleet", runs::pingpong_sweep(scale));
    run.environment.hostname = host.into();
    run.environment.kernel = kernel.into();
    run
}

pub fn count(server: &Server, db: &str, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    server.client(db).query_one(&sql, &[]).unwrap().get(0)
}

/// A local SQLite store in the sandbox holding `runs`.
pub fn local(sb: &Sandbox, name: &str, held: &[Run]) -> PathBuf {
    let db = sb.dir.path().join(name);
    runs::save(&db, held);
    db
}

pub fn push(sb: &Sandbox, from: &Path, ids: &[&str], to: &str) -> assert_cmd::Command {
    let mut cmd = sb.iolab(&["push"]);
    cmd.args(ids).args(["--to", to, "--db"]).arg(from);
    cmd
}

/// `iolab ARGS` fails with exit 2 and one line on stderr; returns it.
pub fn one_line_usage_error(sb: &Sandbox, args: &[&str]) -> String {
    let err = sb.usage_error(args);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        !err.contains(PASSWORD),
        "the password is never shown: {err}"
    );
    err
}
