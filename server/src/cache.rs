//! Finished results in memory, bounded by bytes: a least-recently-used map weighed by
//! each solution's size. What falls out is already in the data directory (results are
//! written there as they finish) and is read back on the next probe.

use impact_core::Solution;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

#[derive(Debug)]
struct Entry {
    solution: Arc<Solution>,
    bytes: u64,
    tick: u64,
}

#[derive(Debug, Default)]
struct Lru {
    entries: HashMap<String, Entry>,
    /// tick -> job: the oldest use first.
    order: BTreeMap<u64, String>,
    tick: u64,
    bytes: u64,
}

/// Counters for the metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub bytes: u64,
    pub entries: usize,
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
}

#[derive(Debug)]
pub struct ResultCache {
    capacity: u64,
    /// False when nothing backs the cache on disk: then nothing is evicted.
    evicts: bool,
    lru: Mutex<Lru>,
    stats: Mutex<CacheStats>,
}

impl ResultCache {
    pub fn new(capacity: u64, evicts: bool) -> Self {
        ResultCache {
            capacity,
            evicts,
            lru: Mutex::new(Lru::default()),
            stats: Mutex::new(CacheStats::default()),
        }
    }

    // Plain bookkeeping under the lock: a panic cannot leave it half-written.
    fn lock(&self) -> MutexGuard<'_, Lru> {
        self.lru.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stats_mut(&self) -> MutexGuard<'_, CacheStats> {
        self.stats.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn get(&self, job: &str) -> Option<Arc<Solution>> {
        let mut lru = self.lock();
        lru.tick += 1;
        let tick = lru.tick;
        let found = lru.entries.get_mut(job).map(|e| {
            let old = std::mem::replace(&mut e.tick, tick);
            (old, Arc::clone(&e.solution))
        });
        let hit = found.map(|(old, solution)| {
            lru.order.remove(&old);
            lru.order.insert(tick, job.to_owned());
            solution
        });
        drop(lru);
        let mut s = self.stats_mut();
        if hit.is_some() {
            s.hits += 1;
        } else {
            s.misses += 1;
        }
        hit
    }

    /// Keep a result, then drop the least recently used ones beyond the capacity (never
    /// the one just kept).
    pub fn insert(&self, job: &str, solution: Arc<Solution>) {
        let bytes = solution.approximate_bytes() as u64;
        let mut lru = self.lock();
        lru.tick += 1;
        let tick = lru.tick;
        if let Some(old) = lru.entries.insert(
            job.to_owned(),
            Entry {
                solution,
                bytes,
                tick,
            },
        ) {
            lru.order.remove(&old.tick);
            lru.bytes -= old.bytes;
        }
        lru.order.insert(tick, job.to_owned());
        lru.bytes += bytes;
        let mut evicted = 0;
        while self.evicts && lru.bytes > self.capacity && lru.entries.len() > 1 {
            let Some((_, victim)) = lru.order.pop_first() else {
                break;
            };
            if let Some(e) = lru.entries.remove(&victim) {
                lru.bytes -= e.bytes;
                evicted += 1;
                tracing::debug!(job = %victim, bytes = e.bytes, "result left memory");
            }
        }
        let (total, entries) = (lru.bytes, lru.entries.len());
        drop(lru);
        let mut s = self.stats_mut();
        s.evictions += evicted;
        s.bytes = total;
        s.entries = entries;
    }

    pub fn contains(&self, job: &str) -> bool {
        self.lock().entries.contains_key(job)
    }

    pub fn stats(&self) -> CacheStats {
        *self.stats_mut()
    }
}
