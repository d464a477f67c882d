//! A memory cgroup of its own for a check: a child of the hierarchy that
//! has the memory controller (cgroup v2, or the v1 `memory` hierarchy where
//! only that one has it), with a memory limit, removed when dropped. Why
//! none can be made (not root, no memory controller) is the check's reason
//! to be unsupported.

use crate::scenario::Unsupported;
use anyhow::Context;
use std::path::{Path, PathBuf};

pub(super) struct MemCgroup {
    pub(super) dir: PathBuf,
    /// "cgroup v2" or "cgroup v1".
    pub(super) version: &'static str,
    /// The file holding the limit: memory.max or memory.limit_in_bytes.
    pub(super) limit_file: &'static str,
    /// The file holding the peak usage: memory.peak or memory.max_usage_in_bytes.
    pub(super) peak_file: &'static str,
}

impl MemCgroup {
    /// Creates `name` under the memory hierarchy, limited to `bytes`.
    pub(super) fn create(name: &str, bytes: u64) -> anyhow::Result<MemCgroup> {
        if !rustix::process::geteuid().is_root() {
            return Err(Unsupported("needs root to create a memory cgroup".into()).into());
        }
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
            .context("reading /proc/self/mountinfo")?;
        let (root, version, limit_file, peak_file) = memory_root(&mountinfo)?;
        let dir = root.join(name);
        std::fs::create_dir(&dir).with_context(|| format!("mkdir {}", dir.display()))?;
        let cg = MemCgroup {
            dir,
            version,
            limit_file,
            peak_file,
        };
        cg.write(limit_file, &bytes.to_string())?;
        Ok(cg)
    }

    /// Writes `value` to the cgroup's file `file`.
    pub(super) fn write(&self, file: &str, value: &str) -> anyhow::Result<()> {
        let path = self.dir.join(file);
        std::fs::write(&path, value)
            .with_context(|| format!("writing {value} to {}", path.display()))
    }
}

impl MemCgroup {
    /// The most memory the cgroup held, in bytes.
    pub(super) fn peak(&self) -> std::io::Result<u64> {
        let path = self.dir.join(self.peak_file);
        super::read_number(&path.to_string_lossy())
    }
}

impl Drop for MemCgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Where a memory cgroup can be made: the cgroup v2 mount when it offers
/// the memory controller to its children, else the v1 `memory` mount.
type Root = (PathBuf, &'static str, &'static str, &'static str);

fn memory_root(mountinfo: &str) -> anyhow::Result<Root> {
    let mounts = cgroup_mounts(mountinfo);
    let v2 = mounts.iter().find(|(_, fs, _)| fs == "cgroup2");
    if let Some((point, _, _)) = v2.filter(|(p, _, _)| delegates_memory(p)) {
        return Ok((point.clone(), "cgroup v2", "memory.max", "memory.peak"));
    }
    let v1 = mounts
        .iter()
        .find(|(_, fs, opts)| fs == "cgroup" && opts.split(',').any(|o| o == "memory"));
    if let Some((point, _, _)) = v1 {
        return Ok((
            point.clone(),
            "cgroup v1",
            "memory.limit_in_bytes",
            "memory.max_usage_in_bytes",
        ));
    }
    let why = match v2 {
        Some((p, _, _)) => format!(
            "the cgroup v2 hierarchy at {} does not offer the memory controller \
             (cgroup.subtree_control), and no v1 memory hierarchy is mounted",
            p.display()
        ),
        None => "no cgroup hierarchy with the memory controller is mounted".into(),
    };
    Err(Unsupported(why).into())
}

/// (mount point, filesystem type, super options) of each cgroup mount.
fn cgroup_mounts(mountinfo: &str) -> Vec<(PathBuf, String, String)> {
    mountinfo
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let dash = fields.iter().position(|f| *f == "-")?;
            let (point, fs) = (fields.get(4)?, *fields.get(dash + 1)?);
            let opts = fields.get(dash + 3).copied().unwrap_or_default();
            let point = PathBuf::from(point.replace("\\040", " "));
            fs.starts_with("cgroup")
                .then(|| (point, fs.to_string(), opts.to_string()))
        })
        .collect()
}

/// Whether the v2 hierarchy at `root` gives its children the memory controller.
fn delegates_memory(root: &Path) -> bool {
    std::fs::read_to_string(root.join("cgroup.subtree_control"))
        .is_ok_and(|t| t.split_whitespace().any(|c| c == "memory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1_AND_EMPTY_V2: &str = "\
30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
31 25 0:27 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
32 25 0:28 / /nonexistent/unified rw,relatime - cgroup2 cgroup2 rw
";

    #[test]
    fn a_v2_hierarchy_without_memory_leaves_the_v1_memory_hierarchy() {
        let (root, version, limit, peak) = memory_root(V1_AND_EMPTY_V2).unwrap();
        assert_eq!(root, Path::new("/sys/fs/cgroup/memory"));
        assert_eq!(
            (version, limit, peak),
            (
                "cgroup v1",
                "memory.limit_in_bytes",
                "memory.max_usage_in_bytes"
            )
        );
        assert_eq!(cgroup_mounts(V1_AND_EMPTY_V2).len(), 3);
    }

    #[test]
    fn no_memory_controller_says_where_it_looked() {
        let v2_only = "32 25 0:28 / /nonexistent/unified rw - cgroup2 cgroup2 rw\n";
        let err = memory_root(v2_only).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the cgroup v2 hierarchy at /nonexistent/unified does not offer the memory \
             controller (cgroup.subtree_control), and no v1 memory hierarchy is mounted"
        );
        let none = "20 1 8:1 / / rw - ext4 /dev/vda rw\n";
        assert_eq!(
            memory_root(none).unwrap_err().to_string(),
            "no cgroup hierarchy with the memory controller is mounted"
        );
    }
}
