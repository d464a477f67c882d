//! An `iolab agent` for the agent tests, as the far host: in its own
//! network namespace joined to the client's by a veth pair (root and
//! iproute2; `iolab::exec::link`, the same namespaces file-transfer's
//! `link=` uses), else on loopback, and the test says so. Its address, its
//! log, raw control connections, and the checks that nothing was left
//! behind once it is stopped.

use super::{alive, children_of, require, Sandbox};
use iolab::exec::link::{Namespaces, RECEIVER_IP, VETH_RECEIVER};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// How long anything in these tests may take before it counts as a hang.
pub const BOUND: Duration = Duration::from_secs(60);

/// Where the agent runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Net {
    Loopback,
    /// Its own namespace, over veth, limited to a `tc` rate if given.
    Veth(Option<&'static str>),
}

pub struct Agent {
    pub child: Child,
    /// HOST:PORT of its control port.
    pub addr: String,
    pub log: Arc<Mutex<String>>,
    ns: Option<Namespaces>,
}

/// `wanted`, or loopback (saying so) where namespaces cannot be made.
fn place(wanted: Net) -> Net {
    if wanted == Net::Loopback {
        return wanted;
    }
    let can = super::is_root() && super::on_path("ip") && super::on_path("tc");
    match require(
        can,
        "the agent's own network namespace needs root and iproute2: agent and client run over loopback instead",
    ) {
        true => wanted,
        false => Net::Loopback,
    }
}

impl Agent {
    /// Starts `iolab agent ARGS` and waits until it listens.
    pub fn start(sb: &Sandbox, wanted: Net, args: &[&str]) -> Agent {
        let net = place(wanted);
        let ns = match net {
            Net::Veth(rate) => Some(Namespaces::create(rate).expect("namespaces")),
            Net::Loopback => None,
        };
        let listen = match &ns {
            Some(_) => format!("{RECEIVER_IP}:0"),
            None => "127.0.0.1:0".to_string(),
        };
        let bin = assert_cmd::cargo::cargo_bin("iolab");
        let mut cmd = match &ns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns.names()[1]]).arg(&bin);
                c
            }
            None => Command::new(&bin),
        };
        cmd.args(["agent", "--listen", &listen])
            .args(args)
            .env("TMPDIR", sb.tmp())
            .env_remove("IOLAB_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start the agent");
        let (log, addr) = follow(child.stderr.take().unwrap());
        let addr = addr
            .recv_timeout(BOUND)
            .expect("the agent never said it listens");
        eprintln!("agent at {addr} ({net:?})");
        Agent {
            child,
            addr,
            log,
            ns,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `iolab ARGS` as the client: in the other namespace, or here.
    pub fn client(&self, sb: &Sandbox, args: &[&str]) -> assert_cmd::Command {
        assert_cmd::Command::from_std(self.client_std(sb, args))
    }

    /// `client`, to be spawned and killed.
    pub fn client_std(&self, sb: &Sandbox, args: &[&str]) -> Command {
        let bin = assert_cmd::cargo::cargo_bin("iolab");
        let mut cmd = match &self.ns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns.names()[0]]).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        cmd.args(args)
            .env("TMPDIR", sb.tmp())
            .env("XDG_DATA_HOME", sb.dir.path().join("data"))
            .env_remove("IOLAB_TOKEN")
            .env_remove("CI");
        cmd
    }

    /// `run ARGS --peer ADDR --json - --no-store --quiet`: a run of this
    /// agent's client, its JSON on stdout.
    pub fn run_args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = vec!["run"];
        all.extend(args);
        all.extend(["--peer", &self.addr, "--json", "-", "--no-store", "--quiet"]);
        all
    }

    /// `iolab run ARGS --peer ADDR --json - --no-store`, which must end
    /// within the bound, exiting as its results call for; its JSON.
    pub fn run(&self, sb: &Sandbox, args: &[&str]) -> serde_json::Value {
        let out = self
            .client(sb, &self.run_args(args))
            .timeout(BOUND)
            .output()
            .unwrap();
        super::run_output(&out)
    }

    /// Takes the agent's end of the veth pair down: from then on packets
    /// vanish silently. False (nothing done) when the agent is on loopback.
    pub fn drop_link(&self) -> bool {
        let Some(ns) = &self.ns else {
            return false;
        };
        let down = Command::new("ip")
            .args(["-n", ns.names()[1], "link", "set", VETH_RECEIVER, "down"])
            .status()
            .unwrap();
        assert!(down.success());
        true
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the agent has a child (a far side running).
    pub fn await_far_side(&self) -> u32 {
        let end = Instant::now() + BOUND;
        while Instant::now() < end {
            if let Some(pid) = children_of(self.pid()).first() {
                return *pid;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no far side started; log:\n{}", self.log());
    }

    /// Stops the agent (SIGTERM) and checks it left nothing: no child
    /// process, no namespace, nothing in TMPDIR.
    pub fn stop(mut self, sb: &Sandbox) {
        let pid = self.pid();
        assert!(alive(pid), "the agent died; log:\n{}", self.log());
        wait_until(
            || children_of(pid).is_empty(),
            "the agent's children to end",
        );
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(pid as i32).unwrap(),
            rustix::process::Signal::TERM,
        );
        wait_exit(&mut self.child, "the agent to exit");
        let names: Vec<String> = self
            .ns
            .take()
            .map(|ns| ns.names().map(str::to_string).to_vec())
            .unwrap_or_default();
        let list = Command::new("ip").args(["netns", "list"]).output();
        let list = list.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        for name in names {
            assert!(
                !list.as_deref().unwrap_or("").contains(&name),
                "{name} left"
            );
        }
        sb.assert_tmp_empty();
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Collects the agent's stderr; sends the address once it listens.
fn follow(stderr: impl Read + Send + 'static) -> (Arc<Mutex<String>>, mpsc::Receiver<String>) {
    let log = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = mpsc::channel();
    let keep = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on ").nth(1) {
                let _ = tx.send(rest.split(' ').next().unwrap_or("").to_string());
            }
            keep.lock().unwrap().push_str(&(line + "\n"));
        }
    });
    (log, rx)
}

/// Waits (at most `BOUND`) for `child` to exit; how it exited.
pub fn wait_exit(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    wait_until(|| child.try_wait().unwrap().is_some(), what);
    child.wait().unwrap()
}

pub fn wait_until(mut done: impl FnMut() -> bool, what: &str) {
    let end = Instant::now() + BOUND;
    while !done() {
        assert!(Instant::now() < end, "waited too long for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A raw control connection, for what a well-behaved client never sends.
pub struct Raw {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Raw {
    pub fn connect(addr: &str) -> Raw {
        let stream = TcpStream::connect(addr).expect("connect to the agent");
        stream.set_read_timeout(Some(BOUND)).unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Raw { stream, reader }
    }

    pub fn send(&mut self, bytes: &[u8]) -> &mut Raw {
        let _ = self.stream.write_all(bytes);
        self
    }

    /// The hello this build's client sends, with `version` and `token`.
    pub fn hello(&mut self, version: u32, token: Option<&str>) -> &mut Raw {
        let hello = serde_json::json!({"type": "hello", "version": version, "token": token});
        self.send(format!("{hello}\n").as_bytes())
    }

    /// The agent's next line as JSON (None: it closed the connection).
    pub fn reply(&mut self) -> Option<serde_json::Value> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => None,
            Ok(_) => Some(serde_json::from_str(&line).expect("the agent answers JSON")),
            Err(e) => panic!("no answer from the agent within the bound: {e}"),
        }
    }
}

/// Version 1's hello, for tests that want to get past the handshake.
pub const VERSION: u32 = 1;
