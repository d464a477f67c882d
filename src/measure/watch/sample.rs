//! One perf sample record's body, laid out by the sample flags every
//! tracer here asks for: pid and tid (u32 each), time (u64), cpu and a
//! reserved u32, period (u64), then with a call chain its length (u64) and
//! addresses, then with raw data its size (u32) and the record.

/// perf's context markers (PERF_CONTEXT_*) are the values above this.
const CONTEXT_MAX: u64 = (-4095i64) as u64;

pub(crate) struct Sample<'a> {
    pub(crate) tid: i32,
    pub(crate) time: u64,
    pub(crate) cpu: u32,
    /// Kernel frames, leaf first, without perf's context markers.
    pub(crate) chain: Vec<u64>,
    pub(crate) raw: &'a [u8],
}

/// Parses `bytes`; `chain` and `raw` say which optional parts it holds.
pub(crate) fn parse(bytes: &[u8], chain: bool, raw: bool) -> Option<Sample<'_>> {
    let mut sample = Sample {
        tid: u32_at(bytes, 4)? as i32,
        time: word(bytes, 8)?,
        cpu: u32_at(bytes, 16)?,
        chain: Vec::new(),
        raw: &[],
    };
    let mut at = 32;
    if chain {
        let nr = word(bytes, at)? as usize;
        sample.chain = (0..nr)
            .filter_map(|i| word(bytes, at + 8 + i * 8))
            .filter(|ip| *ip < CONTEXT_MAX)
            .collect();
        at += 8 + nr * 8;
    }
    if raw {
        let size = u32_at(bytes, at)? as usize;
        sample.raw = bytes.get(at + 4..at + 4 + size)?;
    }
    Some(sample)
}

pub(crate) fn word(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(chain: &[u64], raw: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(7u32.to_le_bytes());
        b.extend(9u32.to_le_bytes());
        b.extend(1234u64.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(1u64.to_le_bytes());
        b.extend((chain.len() as u64).to_le_bytes());
        chain.iter().for_each(|ip| b.extend(ip.to_le_bytes()));
        b.extend((raw.len() as u32).to_le_bytes());
        b.extend(raw);
        b
    }

    #[test]
    fn reads_the_fields_drops_context_markers_and_finds_the_raw_part() {
        let bytes = record(&[u64::MAX - 127, 0xffff_1000, 0xffff_2000], &[5, 6, 7]);
        let s = parse(&bytes, true, true).unwrap();
        assert_eq!((s.tid, s.time, s.cpu), (9, 1234, 1));
        assert_eq!(s.chain, vec![0xffff_1000, 0xffff_2000]);
        assert_eq!(s.raw, &[5, 6, 7]);
    }

    #[test]
    fn a_short_record_is_none() {
        let bytes = record(&[], &[1, 2, 3, 4]);
        assert!(parse(&bytes[..bytes.len() - 1], true, true).is_none());
        assert!(parse(&bytes[..12], false, false).is_none());
    }
}
