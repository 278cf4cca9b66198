//! MSR Cambridge block traces (SNIA IOTTA): csv lines
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` with `Type`
//! `Read` or `Write` and byte offsets and sizes. Each distinct
//! (hostname, disk) pair is one device, numbered in order of appearance.

use super::block::{BlockMapper, Refs};
use super::input::{fields, uint, Lines};
use crate::error::Result;
use crate::types::Op;
use std::path::Path;

pub(crate) fn read(path: &Path, map: &mut BlockMapper, f: &mut impl Refs) -> Result<()> {
    let mut lines = Lines::open(path)?;
    let mut key = String::new();
    while let Some((no, line)) = lines.next_line()? {
        let parsed = (|| {
            let [_ts, host, disk, kind, offset, size, _rt] = fields::<7>(
                line,
                "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
            )?;
            let disk = uint(disk, "DiskNumber")?;
            let op = if kind.eq_ignore_ascii_case("read") {
                Op::Read
            } else if kind.eq_ignore_ascii_case("write") {
                Op::Write
            } else {
                return Err(format!("expected Type Read or Write, found '{kind}'"));
            };
            Ok((
                host.to_string(),
                disk,
                op,
                uint(offset, "Offset")?,
                uint(size, "Size")?,
            ))
        })();
        let (host, disk, op, offset, size) = parsed.map_err(|m| lines.error(no, m))?;
        key.clear();
        key.push_str(&host);
        key.push('/');
        key.push_str(&disk.to_string());
        let dev = map.device(&key);
        map.emit(dev, offset, size, op, f, |m| lines.error(no, m))?;
    }
    Ok(())
}
