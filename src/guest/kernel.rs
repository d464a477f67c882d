//! A kernel `--kernel` names: an image file, the release of an installed
//! kernel (/boot/vmlinuz-RELEASE), or a Debian package (`linux-image-*`,
//! a meta-package such as linux-image-amd64 followed to the image it
//! depends on), installed with apt-get only with `--install-kernels`.

use crate::error::UsageError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A kernel to boot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Kernel {
    pub(crate) image: PathBuf,
    /// Its release, e.g. "6.1.0-56-amd64" (from the image's name).
    pub(crate) release: String,
}

/// Every kernel `names` gives, in order; a name that is none of the three
/// forms is a usage error naming it and what is allowed.
pub(crate) fn resolve(names: &[String], install: bool) -> anyhow::Result<Vec<Kernel>> {
    names.iter().map(|name| one(name, install)).collect()
}

fn one(name: &str, install: bool) -> anyhow::Result<Kernel> {
    let path = Path::new(name);
    if path.is_file() {
        return Ok(of_image(path));
    }
    let boot = Path::new("/boot").join(format!("vmlinuz-{name}"));
    if boot.is_file() {
        return Ok(of_image(&boot));
    }
    if name.starts_with("linux-image-") {
        if let Some(image) = package_image(name) {
            return Ok(of_image(&image));
        }
        if install {
            apt_install(name)?;
            if let Some(image) = package_image(name) {
                return Ok(of_image(&image));
            }
        }
        return Err(UsageError::new(format!(
            "--kernel {name}: the package is not installed: apt-get install {name} (or let iolab: --install-kernels)"
        ))
        .into());
    }
    Err(UsageError::new(format!(
        "--kernel {name}: not a kernel image, an installed release (/boot/vmlinuz-{name}) \
         or a Debian package (linux-image-...); installed: {}",
        installed().join(", ")
    ))
    .into())
}

fn of_image(image: &Path) -> Kernel {
    let name = image
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let release = name.strip_prefix("vmlinuz-").unwrap_or(&name).to_string();
    Kernel {
        image: image.to_path_buf(),
        release,
    }
}

/// The releases of the kernels in /boot.
pub(crate) fn installed() -> Vec<String> {
    let mut releases: Vec<String> = std::fs::read_dir("/boot")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_prefix("vmlinuz-")
                .map(str::to_string)
        })
        .collect();
    releases.sort();
    releases
}

/// The image an installed package holds, following a meta-package's
/// dependency on the image package.
fn package_image(package: &str) -> Option<PathBuf> {
    let files = dpkg_query(&["-L", package])?;
    if let Some(image) = files.lines().find(|l| l.starts_with("/boot/vmlinuz-")) {
        return Some(PathBuf::from(image));
    }
    let depends = dpkg_query(&["-W", "-f=${Depends}", package])?;
    let dependency = depends
        .split([',', '|'])
        .map(|d| d.split_whitespace().next().unwrap_or(""))
        .find(|d| d.starts_with("linux-image-") && *d != package)?
        .to_string();
    package_image(&dependency)
}

fn dpkg_query(args: &[&str]) -> Option<String> {
    let out = Command::new("dpkg-query").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).to_string())
}

fn apt_install(package: &str) -> anyhow::Result<()> {
    eprintln!("installing {package} (--install-kernels): apt-get install -y {package}");
    let status = Command::new("apt-get")
        .args(["install", "-y", "-q", package])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status();
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => anyhow::bail!("apt-get install -y {package} failed ({s})"),
        Err(e) => anyhow::bail!("cannot run apt-get to install {package}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_names_its_release() {
        let k = of_image(Path::new("/boot/vmlinuz-6.1.0-56-rt-amd64"));
        assert_eq!(k.release, "6.1.0-56-rt-amd64");
    }

    #[test]
    fn an_unknown_name_is_a_usage_error_naming_it() {
        let err = resolve(&["no-such-kernel".into()], false).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
        assert!(
            err.to_string()
                .starts_with("--kernel no-such-kernel: not a kernel image"),
            "{err:#}"
        );
    }
}
