//! Turning sampled addresses into names: kernel addresses through
//! /proc/kallsyms (their addresses read as 0 without privilege, then the
//! kernel's symbols are hidden), iolab's own through /proc/self/maps and
//! the symbol table of its ELF file (every name at a shared address, since
//! identical functions may be merged into one), and any other mapped file
//! by its name.

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};
use std::path::PathBuf;

pub(crate) struct KernelSymbols {
    /// (address, name), sorted by address.
    symbols: Vec<(u64, String)>,
}

impl KernelSymbols {
    pub(crate) fn load() -> Result<KernelSymbols, String> {
        let text = std::fs::read_to_string("/proc/kallsyms")
            .map_err(|e| format!("kernel symbols unavailable: /proc/kallsyms: {e}"))?;
        let syms = KernelSymbols::from_text(&text);
        if syms.symbols.iter().all(|(addr, _)| *addr == 0) {
            return Err("kernel symbols hidden (/proc/kallsyms shows zero addresses: kptr_restrict, needs root)".into());
        }
        Ok(syms)
    }

    /// The text symbols of a /proc/kallsyms text.
    pub(crate) fn from_text(text: &str) -> KernelSymbols {
        let mut symbols = parse_kallsyms(text);
        symbols.sort_unstable_by_key(|(addr, _)| *addr);
        KernelSymbols { symbols }
    }

    pub(crate) fn name(&self, ip: u64) -> Option<&str> {
        let i = self.symbols.partition_point(|(addr, _)| *addr <= ip);
        i.checked_sub(1).map(|i| self.symbols[i].1.as_str())
    }
}

/// Text symbols of /proc/kallsyms: "ffffffff81000000 T _stext [module]".
fn parse_kallsyms(text: &str) -> Vec<(u64, String)> {
    text.lines()
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            let addr = u64::from_str_radix(f.next()?, 16).ok()?;
            let kind = f.next()?;
            let name = f.next()?;
            matches!(kind, "t" | "T" | "w" | "W").then(|| (addr, name.to_string()))
        })
        .collect()
}

/// iolab's own functions, and the files mapped into its address space.
pub(crate) struct UserSymbols {
    maps: Vec<Mapping>,
    exe: Option<PathBuf>,
    /// (file virtual address, its demangled names joined by " = "), sorted.
    symbols: Vec<(u64, String)>,
    /// (file offset, size, virtual address) of each ELF segment.
    segments: Vec<(u64, u64, u64)>,
}

struct Mapping {
    start: u64,
    end: u64,
    offset: u64,
    path: String,
}

impl UserSymbols {
    pub(crate) fn load() -> UserSymbols {
        let exe = std::fs::read_link("/proc/self/exe").ok();
        let maps = std::fs::read_to_string("/proc/self/maps")
            .map(|t| parse_maps(&t))
            .unwrap_or_default();
        let (symbols, segments) = exe.as_ref().map(elf_symbols).unwrap_or_default();
        UserSymbols {
            maps,
            exe,
            symbols,
            segments,
        }
    }

    /// A function of iolab, or "[file]" for another mapped file.
    pub(crate) fn name(&self, ip: u64) -> String {
        let Some(map) = self.maps.iter().find(|m| m.start <= ip && ip < m.end) else {
            return "[unknown]".into();
        };
        let is_exe = self
            .exe
            .as_ref()
            .is_some_and(|e| e.as_os_str() == map.path.as_str());
        if !is_exe {
            let file = map.path.rsplit('/').next().unwrap_or(&map.path);
            return format!("[{file}]");
        }
        let offset = ip - map.start + map.offset;
        let vaddr = self
            .segments
            .iter()
            .find(|(off, size, _)| *off <= offset && offset < off + size)
            .map(|(off, _, addr)| addr + (offset - off));
        let i = vaddr.map_or(0, |v| self.symbols.partition_point(|(a, _)| *a <= v));
        match i.checked_sub(1) {
            Some(i) => self.symbols[i].1.clone(),
            None => "[iolab]".into(),
        }
    }
}

fn parse_maps(text: &str) -> Vec<Mapping> {
    text.lines()
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            let (start, end) = f.next()?.split_once('-')?;
            let _perms = f.next()?;
            let offset = u64::from_str_radix(f.next()?, 16).ok()?;
            let path = f.nth(2).unwrap_or("[anon]").to_string();
            Some(Mapping {
                start: u64::from_str_radix(start, 16).ok()?,
                end: u64::from_str_radix(end, 16).ok()?,
                offset,
                path,
            })
        })
        .collect()
}

type ElfTables = (Vec<(u64, String)>, Vec<(u64, u64, u64)>);

fn elf_symbols(path: &PathBuf) -> ElfTables {
    let Ok(data) = std::fs::read(path) else {
        return Default::default();
    };
    let Ok(file) = object::File::parse(&*data) else {
        return Default::default();
    };
    let table = match file.symbol_table() {
        Some(_) => file.symbols(),
        None => file.dynamic_symbols(),
    };
    let functions = table
        .filter(|s| s.kind() == SymbolKind::Text && s.is_definition())
        .filter_map(|s| {
            let name = s.name().ok().filter(|n| !n.is_empty())?;
            let name = format!("{:#}", rustc_demangle::demangle(name));
            Some((s.address(), s.size(), name))
        })
        .collect();
    let segments = file
        .segments()
        .map(|s| {
            let (off, size) = s.file_range();
            (off, size, s.address())
        })
        .collect();
    (fold_aliases(functions), segments)
}

/// One entry per address from (address, size, name) symbols. Identical
/// functions merged by the compiler or folded by the linker share an
/// address: every name of the largest size there is kept, sorted and
/// joined by " = ", so a sample never names just one of them.
fn fold_aliases(mut symbols: Vec<(u64, u64, String)>) -> Vec<(u64, String)> {
    symbols.sort_unstable_by(|a, b| (a.0, b.1, &a.2).cmp(&(b.0, a.1, &b.2)));
    symbols
        .chunk_by(|a, b| a.0 == b.0)
        .map(|same_address| {
            let (address, size, _) = same_address[0];
            let mut names: Vec<&str> = same_address
                .iter()
                .filter(|s| s.1 == size)
                .map(|s| s.2.as_str())
                .collect();
            names.dedup();
            (address, names.join(" = "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kallsyms_lookup_takes_the_symbol_below() {
        let text = "ffffffff81000000 T _stext\nffffffff81000100 t pipe_read\nffffffff81000200 D data\nffffffff81000300 T touch_atime [ext4]\n";
        let mut symbols = parse_kallsyms(text);
        symbols.sort_unstable_by_key(|(a, _)| *a);
        let k = KernelSymbols { symbols };
        assert_eq!(k.name(0xffffffff81000150), Some("pipe_read"));
        assert_eq!(k.name(0xffffffff81000300), Some("touch_atime"));
        assert_eq!(k.name(0x1000), None);
    }

    #[test]
    fn an_address_with_two_functions_names_both() {
        let exe = "/opt/iolab/iolab";
        let symbols = [
            (0x1000, 0x40, "iolab::mechanism::StreamEndpoint::send"),
            (0x1000, 0x40, "iolab::mechanism::CounterEndpoint::send"),
            (0x1000, 0, "a_label"),
            (0x1040, 0x10, "iolab::other"),
            (0x1040, 0x10, "iolab::other"),
        ];
        let user = UserSymbols {
            maps: vec![Mapping {
                start: 0x5555_0000_0000,
                end: 0x5555_0000_4000,
                offset: 0,
                path: exe.into(),
            }],
            exe: Some(exe.into()),
            symbols: fold_aliases(
                symbols
                    .iter()
                    .map(|(a, s, n)| (*a, *s, n.to_string()))
                    .collect(),
            ),
            segments: vec![(0, 0x4000, 0)],
        };
        assert_eq!(user.symbols.len(), 2, "one entry per address");
        assert_eq!(
            user.name(0x5555_0000_1010),
            "iolab::mechanism::CounterEndpoint::send = iolab::mechanism::StreamEndpoint::send"
        );
        assert_eq!(user.name(0x5555_0000_1044), "iolab::other");
        assert_eq!(user.name(0x5555_0000_0010), "[iolab]");
    }

    #[test]
    fn own_functions_resolve() {
        let user = UserSymbols::load();
        let ip = own_functions_resolve as *const () as u64;
        let name = user.name(ip);
        assert!(name.contains("own_functions_resolve"), "{name}");
    }
}
