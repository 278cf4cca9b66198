//! A spatial sample of a trace, for the cost curve of any policy on any
//! store without data (MINISIM, Waldspurger et al., USENIX ATC 2017): the
//! requests to the pages SHARDS' hash keeps ([`super::shards::hash`]),
//! replayed with a buffer of `C·R` pages, estimate the run with a buffer of
//! `C` pages on the whole trace, every count scaled by `1/R`.
//!
//! - **Fixed rate** ([`Sampling::Rate`]): pages whose hash is below
//!   `R·P`.
//! - **Fixed size** ([`Sampling::Size`]): the `S` pages of smallest hash
//!   (all of them if the trace has fewer), so `R = S / pages`: the trace's
//!   pages are known before its requests, so the threshold is set once,
//!   where SHARDS' one-pass version lowers it as it goes.

use super::shards::{hash, Sampling, MODULUS};
use crate::error::{Error, Result};
use crate::trace::{Flt, FltWriter};
use crate::types::DenseId;
use std::io::Cursor;

/// What [`sample`] kept.
#[derive(Debug)]
pub struct Sample {
    /// The sampled requests, with the trace's page numbers.
    pub trace: Flt,
    /// The share of the trace's pages sampled, `R`.
    pub rate: f64,
}

/// The requests of `trace` to its sampled pages.
pub fn sample(trace: &Flt, sampling: Sampling) -> Result<Sample> {
    let pages = trace.pages();
    let threshold = match sampling {
        Sampling::Rate(r) if r > 0.0 && r <= 1.0 => ((r * MODULUS as f64).round() as u64).max(1),
        Sampling::Rate(r) => {
            return Err(Error::invalid(format!(
                "a sampling rate must be in (0, 1], got {r}"
            )))
        }
        Sampling::Size(0) => return Err(Error::invalid("a sample must hold at least 1 page")),
        Sampling::Size(s) if s >= pages => MODULUS,
        Sampling::Size(s) => {
            let mut hashes: Vec<u64> = (0..pages as DenseId).map(hash).collect();
            let (_, &mut nth, _) = hashes.select_nth_unstable(s);
            nth
        }
    };
    let keep = |d: DenseId| hash(d) < threshold;
    let kept = (0..pages as DenseId).filter(|&d| keep(d)).count();
    if kept == 0 {
        return Err(Error::invalid(format!(
            "a sample at this rate holds none of the trace's {pages} pages: raise the rate"
        )));
    }
    let name = trace.path().to_path_buf();
    let mut w = FltWriter::new(Cursor::new(Vec::new()), &name)?;
    for (d, op) in trace.requests() {
        if keep(d) {
            w.push(trace.original(d), op)?;
        }
    }
    let trace = Flt::from_bytes(w.finish()?.into_inner(), &name)?;
    Ok(Sample {
        trace,
        rate: kept as f64 / pages as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Op;

    fn trace(pages: u64, requests: usize) -> Flt {
        let mut w = FltWriter::new(Cursor::new(Vec::new()), "t").unwrap();
        for i in 0..requests as u64 {
            let op = if i % 3 == 0 { Op::Write } else { Op::Read };
            w.push((i * 7919) % pages, op).unwrap();
        }
        Flt::from_bytes(w.finish().unwrap().into_inner(), "t").unwrap()
    }

    #[test]
    fn a_fixed_size_sample_keeps_exactly_that_many_pages() {
        let t = trace(5000, 40_000);
        let s = sample(&t, Sampling::Size(123)).unwrap();
        assert_eq!(s.trace.pages(), 123);
        assert!((s.rate - 123.0 / 5000.0).abs() < 1e-12);
        assert_eq!(
            sample(&t, Sampling::Size(9999)).unwrap().trace.len(),
            t.len()
        );
    }

    #[test]
    fn a_sample_keeps_every_request_of_a_sampled_page_and_none_other() {
        let t = trace(2000, 30_000);
        let s = sample(&t, Sampling::Rate(0.1)).unwrap();
        let kept: std::collections::HashSet<u64> = (0..s.trace.pages() as DenseId)
            .map(|d| s.trace.original(d))
            .collect();
        let want = t
            .requests()
            .filter(|&(d, _)| kept.contains(&t.original(d)))
            .count();
        assert_eq!(s.trace.len(), want);
        assert!((s.rate - kept.len() as f64 / 2000.0).abs() < 1e-12);
        assert!((0.07..0.13).contains(&s.rate), "rate {}", s.rate);
    }

    #[test]
    fn a_bad_rate_is_refused() {
        let t = trace(10, 10);
        assert!(sample(&t, Sampling::Rate(0.0)).is_err());
        assert!(sample(&t, Sampling::Rate(1.5)).is_err());
        assert!(sample(&t, Sampling::Size(0)).is_err());
    }
}
