//! Turning sampled addresses into names: kernel addresses through
//! /proc/kallsyms (their addresses read as 0 without privilege, then the
//! kernel's symbols are hidden), iolab's own through /proc/self/maps and
//! the symbol table of its ELF file, and any other mapped file by its name.

use object::{Object, ObjectSegment};
use std::path::PathBuf;

pub struct KernelSymbols {
    /// (address, name), sorted by address.
    symbols: Vec<(u64, String)>,
}

impl KernelSymbols {
    pub fn load() -> Result<KernelSymbols, String> {
        let text = std::fs::read_to_string("/proc/kallsyms")
            .map_err(|e| format!("kernel symbols unavailable: /proc/kallsyms: {e}"))?;
        let mut symbols = parse_kallsyms(&text);
        if symbols.iter().all(|(addr, _)| *addr == 0) {
            return Err("kernel symbols hidden (/proc/kallsyms shows zero addresses: kptr_restrict, needs root)".into());
        }
        symbols.sort_unstable_by_key(|(addr, _)| *addr);
        Ok(KernelSymbols { symbols })
    }

    pub fn name(&self, ip: u64) -> Option<&str> {
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
pub struct UserSymbols {
    maps: Vec<Mapping>,
    exe: Option<PathBuf>,
    /// (file virtual address, demangled name), sorted.
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
    pub fn load() -> UserSymbols {
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
    pub fn name(&self, ip: u64) -> String {
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
    let mut symbols: Vec<(u64, String)> = file
        .symbol_map()
        .symbols()
        .iter()
        .map(|s| {
            (
                s.address(),
                format!("{:#}", rustc_demangle::demangle(s.name())),
            )
        })
        .collect();
    symbols.sort_unstable_by_key(|(a, _)| *a);
    let segments = file
        .segments()
        .map(|s| {
            let (off, size) = s.file_range();
            (off, size, s.address())
        })
        .collect();
    (symbols, segments)
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
    fn own_functions_resolve() {
        let user = UserSymbols::load();
        let ip = own_functions_resolve as *const () as u64;
        let name = user.name(ip);
        assert!(name.contains("own_functions_resolve"), "{name}");
    }
}
