//! A finished solve to bytes and back: a small versioned little-endian format, so a
//! server can keep results on disk and answer probes after a restart. The model travels
//! with the result: the assembly (and a particle model's identities) are rebuilt from it on
//! reading, which is deterministic, rather than stored twice.
//!
//! Layout (all integers little-endian): magic `IMPACTR\0`, version u32, kind u8 (0 finite
//! elements, 1 particles), the model and the summary as length-prefixed JSON, the frames
//! (time, count, the displacement or position triples, the velocity triples; for finite
//! elements then the element count and each element's six stress components, and the node
//! count with each node's contact force triple and contact pressure), the spans
//! (name, start, end, last frame), for finite elements the history (a time and a force per
//! contact and entry, then the energies), and last a 64-bit
//! FNV-1a checksum of everything before it, so a torn or truncated file is refused.

use crate::assembly::assemble;
use crate::contact::settle_initial_penetrations;
use crate::error::SolveError;
use crate::particles::frames::{Frame as ParticleFrame, Frames, Span};
use crate::particles::ParticleSolution;
use crate::solution::{Frame, History, Solution, StepSpan};
use impact_protocol::{EnergySummary, Model, SolveSummary};

const MAGIC: &[u8; 8] = b"IMPACTR\0";
/// Bumped whenever the layout changes; older files are refused, not misread.
/// Version 2: finite-element frames carry the element stresses.
/// Version 3: and each node's contact force and contact pressure.
pub const VERSION: u32 = 3;
const KIND_ELEMENTS: u8 = 0;
const KIND_PARTICLES: u8 = 1;

/// A stored frame: time, the displacement (or position) triples, the velocity triples.
type StoredFrame = (f64, Vec<[f64; 3]>, Vec<[f64; 3]>);

#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    #[error("not an Impact result (bad magic)")]
    Magic,
    #[error("result format version {0}, this build reads {VERSION}")]
    Version(u32),
    #[error("the result is truncated")]
    Truncated,
    #[error("the result's checksum does not match: the file is damaged")]
    Checksum,
    #[error("the result is malformed: {0}")]
    Malformed(String),
    #[error("the stored model no longer sets up: {0}")]
    Rebuild(SolveError),
}

/// The bytes of a finished solve of `model`.
pub fn encode(solution: &Solution, model: &Model) -> Vec<u8> {
    let mut w = Writer::default();
    w.bytes(MAGIC);
    w.u32(VERSION);
    match solution.particles() {
        None => {
            w.u8(KIND_ELEMENTS);
            w.json(model);
            w.json(solution.summary());
            w.u64(solution.frames().len() as u64);
            for f in solution.frames() {
                w.frame(f.time, &f.displacement, &f.velocity);
                w.u64(f.stress.len() as u64);
                for s in &f.stress {
                    for &x in s {
                        w.f64(x);
                    }
                }
                w.u64(f.contact_force.len() as u64);
                w.triples(&f.contact_force);
                for &p in &f.contact_pressure {
                    w.f64(p);
                }
            }
            w.u64(solution.spans().len() as u64);
            for s in solution.spans() {
                w.span(&s.name, s.start, s.end, s.last_frame);
            }
            let h = solution.history();
            w.u64(h.contact_count as u64);
            w.f64s(&h.times);
            w.f64s(&h.contact_forces);
            w.f64s(&h.energy_times);
            w.json(&h.energies);
        }
        Some(p) => {
            w.u8(KIND_PARTICLES);
            w.json(model);
            w.json(solution.summary());
            let stored = p.stored_frames();
            w.u64(stored.frames.len() as u64);
            for f in &stored.frames {
                w.frame(f.time, &f.position, &f.velocity);
            }
            w.u64(stored.spans.len() as u64);
            for s in &stored.spans {
                w.span(&s.name, s.start, s.end, s.last_frame);
            }
        }
    }
    let sum = fnv1a(&w.out);
    w.u64(sum);
    w.out
}

/// A solution and its model from `encode`'s bytes.
pub fn decode(bytes: &[u8]) -> Result<(Solution, Model), PersistError> {
    if bytes.len() < MAGIC.len() + 4 + 8 {
        return Err(PersistError::Truncated);
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err(PersistError::Magic);
    }
    let (body, tail) = bytes.split_at(bytes.len() - 8);
    let mut r = Reader { rest: body };
    r.take(MAGIC.len())?;
    let version = r.u32()?;
    if version != VERSION {
        return Err(PersistError::Version(version));
    }
    let stored_sum = u64::from_le_bytes(tail.try_into().map_err(|_| PersistError::Truncated)?);
    if stored_sum != fnv1a(body) {
        return Err(PersistError::Checksum);
    }
    let kind = r.u8()?;
    let model: Model = r.json()?;
    let summary: SolveSummary = r.json()?;
    let solution = match kind {
        KIND_ELEMENTS => {
            let frames = r.list(|r| {
                let (time, displacement, velocity) = r.frame()?;
                let n = r.count(48)?;
                let stress = (0..n)
                    .map(|_| {
                        let mut s = [0.0; 6];
                        for x in &mut s {
                            *x = r.f64()?;
                        }
                        Ok(s)
                    })
                    .collect::<Result<_, PersistError>>()?;
                let n = r.count(32)?;
                let contact_force = r.triples(n)?;
                let contact_pressure = (0..n).map(|_| r.f64()).collect::<Result<_, _>>()?;
                Ok(Frame {
                    time,
                    displacement,
                    velocity,
                    stress,
                    contact_force,
                    contact_pressure,
                })
            })?;
            let spans = r.list(|r| {
                let (name, start, end, last_frame) = r.span()?;
                Ok(StepSpan {
                    name,
                    start,
                    end,
                    last_frame,
                })
            })?;
            check_spans(spans.iter().map(|s| s.last_frame), frames.len())?;
            let history = History {
                contact_count: r.usize()?,
                times: r.f64s()?,
                contact_forces: r.f64s()?,
                energy_times: r.f64s()?,
                energies: r.json::<Vec<EnergySummary>>()?,
                // A read history is finished: nothing is pushed on it again.
                ..History::default()
            };
            // One time and one force per contact and entry.
            if history.times.len() != history.contact_forces.len()
                || !history
                    .contact_forces
                    .len()
                    .is_multiple_of(history.contact_count.max(1))
            {
                return Err(PersistError::Malformed(
                    "the contact history's times and forces do not pair up".into(),
                ));
            }
            let mut asm = assemble(&model).map_err(|e| PersistError::Rebuild(e.into()))?;
            settle_initial_penetrations(&mut asm).map_err(PersistError::Rebuild)?;
            if frames.iter().any(|f| {
                f.displacement.len() != asm.reference.len()
                    || f.velocity.len() != asm.reference.len()
                    || f.stress.len() != asm.connectivity.len()
                    || f.contact_force.len() != asm.reference.len()
            }) {
                return Err(PersistError::Malformed(
                    "a frame's node or element count differs from the model's".into(),
                ));
            }
            Solution::new(summary, asm, frames, spans, history)
        }
        KIND_PARTICLES => {
            let frames = r.list(|r| {
                let (time, position, velocity) = r.frame()?;
                Ok(ParticleFrame {
                    time,
                    position,
                    velocity,
                })
            })?;
            let spans = r.list(|r| {
                let (name, start, end, last_frame) = r.span()?;
                Ok(Span {
                    name,
                    start,
                    end,
                    last_frame,
                })
            })?;
            check_spans(spans.iter().map(|s| s.last_frame), frames.len())?;
            let p = ParticleSolution::restore(&model, &summary, Frames { frames, spans })
                .map_err(PersistError::Rebuild)?;
            Solution::from_particles(p)
        }
        other => return Err(PersistError::Malformed(format!("unknown kind {other}"))),
    };
    if !r.rest.is_empty() {
        return Err(PersistError::Malformed(
            "bytes left after the result".into(),
        ));
    }
    Ok((solution, model))
}

fn check_spans(
    last_frames: impl Iterator<Item = usize>,
    frames: usize,
) -> Result<(), PersistError> {
    for last in last_frames {
        if last >= frames {
            return Err(PersistError::Malformed(format!(
                "a step ends at frame {last} of {frames}"
            )));
        }
    }
    Ok(())
}

/// 64-bit FNV-1a: enough to catch a torn write, not meant against tampering.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[derive(Default)]
struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }
    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.bytes(&v.to_le_bytes());
    }
    fn blob(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.bytes(b);
    }
    fn json<T: serde::Serialize + ?Sized>(&mut self, v: &T) {
        // Model and summary types are plain data: serialising them cannot fail.
        let text = serde_json::to_vec(v).unwrap_or_default();
        self.blob(&text);
    }
    fn f64s(&mut self, v: &[f64]) {
        self.u64(v.len() as u64);
        for &x in v {
            self.f64(x);
        }
    }
    fn triples(&mut self, v: &[[f64; 3]]) {
        for t in v {
            for &x in t {
                self.f64(x);
            }
        }
    }
    fn frame(&mut self, time: f64, a: &[[f64; 3]], b: &[[f64; 3]]) {
        self.f64(time);
        self.u64(a.len() as u64);
        self.triples(a);
        self.triples(b);
    }
    fn span(&mut self, name: &str, start: f64, end: f64, last_frame: usize) {
        self.blob(name.as_bytes());
        self.f64(start);
        self.f64(end);
        self.u64(last_frame as u64);
    }
}

struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], PersistError> {
        if n > self.rest.len() {
            return Err(PersistError::Truncated);
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], PersistError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, PersistError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, PersistError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, PersistError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn usize(&mut self) -> Result<usize, PersistError> {
        usize::try_from(self.u64()?)
            .map_err(|_| PersistError::Malformed("a count overflows".into()))
    }
    /// A count of items each at least `item_bytes` long: never more than the bytes left,
    /// so a damaged count cannot ask for a huge allocation.
    fn count(&mut self, item_bytes: usize) -> Result<usize, PersistError> {
        let n = self.usize()?;
        if n.saturating_mul(item_bytes.max(1)) > self.rest.len() {
            return Err(PersistError::Truncated);
        }
        Ok(n)
    }
    fn f64(&mut self) -> Result<f64, PersistError> {
        Ok(f64::from_le_bytes(self.array()?))
    }
    fn blob(&mut self) -> Result<&'a [u8], PersistError> {
        let n = self.count(1)?;
        self.take(n)
    }
    fn json<T: serde::de::DeserializeOwned>(&mut self) -> Result<T, PersistError> {
        serde_json::from_slice(self.blob()?).map_err(|e| PersistError::Malformed(e.to_string()))
    }
    fn f64s(&mut self) -> Result<Vec<f64>, PersistError> {
        let n = self.count(8)?;
        (0..n).map(|_| self.f64()).collect()
    }
    fn triples(&mut self, n: usize) -> Result<Vec<[f64; 3]>, PersistError> {
        (0..n)
            .map(|_| Ok([self.f64()?, self.f64()?, self.f64()?]))
            .collect()
    }
    fn frame(&mut self) -> Result<StoredFrame, PersistError> {
        let time = self.f64()?;
        let n = self.count(48)?;
        Ok((time, self.triples(n)?, self.triples(n)?))
    }
    fn span(&mut self) -> Result<(String, f64, f64, usize), PersistError> {
        let name = String::from_utf8(self.blob()?.to_vec())
            .map_err(|_| PersistError::Malformed("a step name is not UTF-8".into()))?;
        Ok((name, self.f64()?, self.f64()?, self.usize()?))
    }
    fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, PersistError>,
    ) -> Result<Vec<T>, PersistError> {
        let n = self.count(8)?;
        (0..n).map(|_| item(self)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_header_or_body_is_refused() {
        assert!(matches!(decode(b"short"), Err(PersistError::Truncated)));
        let mut junk = b"NOTIMPAC".to_vec();
        junk.extend_from_slice(&[0; 16]);
        assert!(matches!(decode(&junk), Err(PersistError::Magic)));
        let mut w = Writer::default();
        w.bytes(MAGIC);
        w.u32(VERSION + 1);
        w.u64(0);
        assert!(matches!(decode(&w.out), Err(PersistError::Version(_))));
        let mut w = Writer::default();
        w.bytes(MAGIC);
        w.u32(VERSION);
        w.u8(KIND_ELEMENTS);
        w.u64(0);
        assert!(matches!(decode(&w.out), Err(PersistError::Checksum)));
    }

    #[test]
    fn fnv1a_matches_its_reference_values() {
        // Published FNV-1a 64 test vectors (Fowler, Noll, Vo).
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
