//! E2-port-setup-1ms: what starting an external port costs. `/bin/cat` is
//! started with a pipe on its stdin and one on its stdout, one byte is
//! written and read back (the port answers), then stdin is closed and the
//! process waited for: the whole life of a port that carries one message.
//! Each port gives two values: its wall time (`port_setup_ns`) and the CPU
//! time its setup consumed (`port_setup_cpu_ns`: iolab's thread around the
//! spawn, exchange and wait, plus the reaped port's own user and system
//! time). The claim weighs the CPU time: on a shared host the wall time
//! also holds the time the port waited for a CPU a neighbour had.

use super::{series, Probing};
use crate::exec::program::{Program, Started};
use crate::measure::clock::now_ns;
use crate::scenario::{MetricSpec, Unsupported};
use crate::sys::rusage::{usage, Usage, Who};
use anyhow::Context;
use rustix::fd::OwnedFd;
use std::path::Path;

const PORT: &str = "/bin/cat";

/// Ports started per check.
const PORTS: usize = 20;

pub(crate) const PORT_SETUP_NS: MetricSpec = MetricSpec {
    name: "port_setup_ns",
    unit: "ns",
    about: "check=port-setup: start /bin/cat on two pipes, echo one byte, close and wait (one value per port)",
};

pub(crate) const PORT_SETUP_CPU_NS: MetricSpec = MetricSpec {
    name: "port_setup_cpu_ns",
    unit: "ns",
    about: "check=port-setup: the CPU time one port's life consumed, iolab's thread (its CPU clock) plus the reaped port (getrusage; one value per port)",
};

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    if !Path::new(PORT).exists() {
        return Err(Unsupported(format!("{PORT} does not exist: no port to start")).into());
    }
    let (mut walls, mut cpus) = (Vec::with_capacity(PORTS), Vec::with_capacity(PORTS));
    let mut echoed = 0;
    for _ in 0..PORTS {
        let (before, start) = (cpu_so_far()?, now_ns());
        echoed += one_port().with_context(|| format!("port {PORT}"))?;
        walls.push((now_ns() - start) as f64);
        let spent = cpu_so_far()?.since(before);
        cpus.push(spent.cpu_ns as f64);
    }
    let call = format!(
        "spawn {PORT} with stdin and stdout pipes; write 1 B; read it back; close stdin; wait"
    );
    let answer = format!("{PORTS} ports, {echoed} of {PORTS} bytes echoed, each exited 0");
    p.measured("ports", &call, answer, PORTS as f64, "ports");
    series::record(p, "port_setup", &call, &walls);
    let cpu_call =
        "clock_gettime(CLOCK_THREAD_CPUTIME_ID) + getrusage(RUSAGE_CHILDREN) around each port";
    series::record(p, "port_setup_cpu", cpu_call, &cpus);
    PORT_SETUP_NS.set(p.out, walls);
    PORT_SETUP_CPU_NS.set(p.out, cpus);
    Ok(())
}

/// This thread's CPU time plus that of every child reaped so far.
fn cpu_so_far() -> anyhow::Result<Usage> {
    let own = usage(Who::Thread).context("getrusage(RUSAGE_THREAD)")?;
    let reaped = usage(Who::Children).context("getrusage(RUSAGE_CHILDREN)")?;
    Ok(own.plus(reaped))
}

/// One port's life; returns 1 when it echoed the byte back. The port is
/// waited for even when the exchange failed (its stdin closed, it exits).
fn one_port() -> anyhow::Result<usize> {
    let Started {
        mut program,
        stdin,
        stdout,
    } = Program::start(Path::new(PORT), &[])?;
    let echoed = exchange(stdin, &stdout);
    let status = program.wait().context("wait")?;
    let echoed = echoed?;
    anyhow::ensure!(status.success(), "{PORT} exited with {status}");
    Ok(echoed)
}

/// Writes a byte to the port, reads it back, and closes the port's stdin.
fn exchange(stdin: OwnedFd, stdout: &OwnedFd) -> anyhow::Result<usize> {
    rustix::io::write(&stdin, b"x").context("write")?;
    let mut byte = [0u8; 1];
    let n = rustix::io::read(stdout, &mut byte).context("read")?;
    Ok(usize::from(n == 1 && byte == *b"x"))
}
