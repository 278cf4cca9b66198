//! PDL's differentials (Kim, Whang & Song 2010, §4.1–4.2): how one is
//! encoded, read back and applied, and the one-page buffers that collect
//! them (the differential write buffer, and collection's compaction
//! buffer).
//!
//! A differential is `<page u32, time stamp u64, runs u16, [offset u16,
//! length u16, bytes]+>`. Runs of changed bytes closer than a run header
//! are joined. A differential page's data area holds differentials back to
//! back; erased bytes (a page number of all ones) end it.

/// A differential's header: page, time stamp, number of runs.
pub(super) const ENTRY_HEAD: usize = 14;
/// Changed runs this close together are joined (a run header's size).
const GAP: usize = 4;
/// The page number erased flash reads as: no differential follows.
const ERASED: u32 = u32::MAX;

/// Differentials collected into one page's worth of bytes: the write
/// buffer, and garbage collection's compaction buffer.
#[derive(Debug, Default)]
pub(super) struct DiffBuf {
    pub(super) bytes: Vec<u8>,
    pub(super) used: usize,
    /// Per differential: page, time stamp, where it starts, its length.
    pub(super) entries: Vec<(u32, u64, usize, usize)>,
}

impl DiffBuf {
    pub(super) fn new(page_size: usize) -> Self {
        DiffBuf {
            bytes: vec![0xFF; page_size],
            used: 0,
            entries: Vec::new(),
        }
    }
    pub(super) fn free(&self) -> usize {
        self.bytes.len() - self.used
    }
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub(super) fn clear(&mut self) {
        self.bytes[..self.used].fill(0xFF);
        self.used = 0;
        self.entries.clear();
    }
    /// Appends an encoded differential.
    pub(super) fn push(&mut self, lpn: u32, ts: u64, encoded: &[u8]) {
        let at = self.used;
        self.bytes[at..at + encoded.len()].copy_from_slice(encoded);
        self.used += encoded.len();
        self.entries.push((lpn, ts, at, encoded.len()));
    }
    pub(super) fn find(&self, lpn: u32) -> Option<&[u8]> {
        self.entries
            .iter()
            .find(|e| e.0 == lpn)
            .map(|&(_, _, at, len)| &self.bytes[at..at + len])
    }
    /// Removes `lpn`'s differential, closing the gap.
    pub(super) fn remove(&mut self, lpn: u32) {
        let Some(i) = self.entries.iter().position(|e| e.0 == lpn) else {
            return;
        };
        let (_, _, at, len) = self.entries.remove(i);
        self.bytes.copy_within(at + len..self.used, at);
        self.bytes[self.used - len..self.used].fill(0xFF);
        self.used -= len;
        for e in &mut self.entries[i..] {
            e.2 -= len;
        }
    }
}

/// Encodes the differential of `new` against `base` for page `lpn` into
/// `out`: header, then runs of changed bytes.
pub(super) fn encode_diff(lpn: u32, ts: u64, base: &[u8], new: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&lpn.to_le_bytes());
    out.extend_from_slice(&ts.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    let n = base.len();
    let mut runs: u16 = 0;
    let mut i = 0;
    while i < n {
        if i + 8 <= n && base[i..i + 8] == new[i..i + 8] {
            i += 8;
            continue;
        }
        if base[i] == new[i] {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        let mut j = end;
        while j < n && j < end + GAP {
            if base[j] != new[j] {
                end = j + 1;
            }
            j += 1;
        }
        out.extend_from_slice(&(start as u16).to_le_bytes());
        out.extend_from_slice(&((end - start) as u16).to_le_bytes());
        out.extend_from_slice(&new[start..end]);
        runs += 1;
        i = end;
    }
    out[12..14].copy_from_slice(&runs.to_le_bytes());
}

/// A differential's page, time stamp and total length, if `bytes` starts
/// with a well-formed one.
pub(super) fn parse_entry(bytes: &[u8]) -> Option<(u32, u64, usize)> {
    if bytes.len() < ENTRY_HEAD {
        return None;
    }
    let lpn = u32::from_le_bytes(bytes[0..4].try_into().expect("4"));
    if lpn == ERASED {
        return None;
    }
    let ts = u64::from_le_bytes(bytes[4..12].try_into().expect("8"));
    let runs = u16::from_le_bytes(bytes[12..14].try_into().expect("2"));
    let mut at = ENTRY_HEAD;
    for _ in 0..runs {
        let head = bytes.get(at..at + 4)?;
        let len = usize::from(u16::from_le_bytes([head[2], head[3]]));
        at += 4 + len;
        if at > bytes.len() {
            return None;
        }
    }
    Some((lpn, ts, at))
}

/// Applies an encoded differential to `page`.
pub(super) fn apply(entry: &[u8], page: &mut [u8]) {
    let runs = u16::from_le_bytes([entry[12], entry[13]]);
    let mut at = ENTRY_HEAD;
    for _ in 0..runs {
        let off = usize::from(u16::from_le_bytes([entry[at], entry[at + 1]]));
        let len = usize::from(u16::from_le_bytes([entry[at + 2], entry[at + 3]]));
        page[off..off + len].copy_from_slice(&entry[at + 4..at + 4 + len]);
        at += 4 + len;
    }
}

/// Walks the differentials of a differential page's data area.
pub(super) fn entries(
    data: &[u8],
) -> impl Iterator<Item = (u32, u64, std::ops::Range<usize>)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let (lpn, ts, len) = parse_entry(&data[at..])?;
        let r = at..at + len;
        at += len;
        Some((lpn, ts, r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_differential_holds_only_the_changed_runs_and_reapplies_exactly() {
        let base = vec![b'a'; 64];
        let mut new = base.clone();
        new[10..15].copy_from_slice(b"bcccb");
        new[17] = b'z'; // within GAP of the first run: joined
        new[40] = b'q';
        let mut out = Vec::new();
        encode_diff(3, 9, &base, &new, &mut out);
        let (lpn, ts, len) = parse_entry(&out).unwrap();
        assert_eq!((lpn, ts, len), (3, 9, out.len()));
        assert_eq!(u16::from_le_bytes([out[12], out[13]]), 2);
        assert_eq!(out.len(), ENTRY_HEAD + (4 + 8) + (4 + 1));
        let mut page = base.clone();
        apply(&out, &mut page);
        assert_eq!(page, new);
    }

    #[test]
    fn the_write_buffer_removes_a_differential_and_closes_the_gap() {
        let mut b = DiffBuf::new(64);
        b.push(1, 1, &[1; 20]);
        b.push(2, 2, &[2; 20]);
        b.push(3, 3, &[3; 10]);
        b.remove(2);
        assert_eq!(b.used, 30);
        assert_eq!(b.find(3), Some(&[3u8; 10][..]));
        assert!(b.bytes[30..].iter().all(|&x| x == 0xFF));
        assert_eq!(b.free(), 34);
    }
}
