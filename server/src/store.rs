//! The data directory: finished results as files in the core's binary format
//! (`results/<job>.bin`, written to a temporary name, synced, then renamed) and a journal
//! of job events (`jobs.jsonl`, one JSON object a line, synced at every end of a job), so
//! a killed server loses no finished result and knows which jobs it was running. A lock
//! file keeps a second server off the same directory.

use impact_protocol::{JobError, SolveSummary};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot use the data directory {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the data directory {} is in use by another impact-server", path.display())]
    InUse { path: PathBuf },
}

/// One line of the journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Record {
    /// A job was admitted; `key` is its model's content address.
    Submitted {
        job: String,
        key: String,
        submitted: f64,
    },
    /// Its result file is complete.
    Done {
        job: String,
        summary: Box<SolveSummary>,
    },
    Failed {
        job: String,
        error: JobError,
    },
}

/// A job as the journal left it.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovered {
    pub job: String,
    pub key: String,
    pub submitted: f64,
    /// None: it never ended (the server stopped while it was queued or running).
    pub end: Option<Result<SolveSummary, JobError>>,
}

#[derive(Debug)]
pub struct Store {
    root: PathBuf,
    journal: Mutex<File>,
    // Held for the store's life: the OS lock is what keeps other servers out.
    _lock: File,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_owned(),
        source,
    }
}

impl Store {
    /// Open (creating) the directory and take its lock.
    pub fn open(root: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(root.join("results")).map_err(io(root))?;
        let lock_path = root.join("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(StoreError::InUse {
                    path: root.to_owned(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(&lock_path)(e)),
        }
        let journal_path = root.join("jobs.jsonl");
        let mut journal = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&journal_path)
            .map_err(io(&journal_path))?;
        // A kill mid-line leaves a torn last line: end it, so the next record starts on a
        // line of its own (replay skips the torn one).
        let torn = std::fs::read(&journal_path)
            .map_err(io(&journal_path))?
            .last()
            .is_some_and(|&b| b != b'\n');
        if torn {
            journal.write_all(b"\n").map_err(io(&journal_path))?;
        }
        Ok(Store {
            root: root.to_owned(),
            journal: Mutex::new(journal),
            _lock: lock,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every job of the journal, in the order they were submitted. A torn last line (a
    /// kill mid-write) is skipped.
    pub fn replay(&self) -> Result<Vec<Recovered>, StoreError> {
        let path = self.root.join("jobs.jsonl");
        let file = File::open(&path).map_err(io(&path))?;
        let mut jobs: Vec<Recovered> = Vec::new();
        let mut index = std::collections::HashMap::new();
        for line in BufReader::new(file).lines() {
            let line = line.map_err(io(&path))?;
            let record: Record = match serde_json::from_str(&line) {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(error = %e, "skipping an unreadable journal line");
                    continue;
                }
            };
            match record {
                Record::Submitted {
                    job,
                    key,
                    submitted,
                } => {
                    index.insert(job.clone(), jobs.len());
                    jobs.push(Recovered {
                        job,
                        key,
                        submitted,
                        end: None,
                    });
                }
                Record::Done { job, summary } => {
                    if let Some(&i) = index.get(&job) {
                        jobs[i].end = Some(Ok(*summary));
                    }
                }
                Record::Failed { job, error } => {
                    if let Some(&i) = index.get(&job) {
                        jobs[i].end = Some(Err(error));
                    }
                }
            }
        }
        Ok(jobs)
    }

    /// Append a record; the end of a job is synced to disk before this returns.
    pub fn append(&self, record: &Record) -> Result<(), StoreError> {
        let path = self.root.join("jobs.jsonl");
        let mut line = serde_json::to_vec(record).map_err(|e| io(&path)(e.into()))?;
        line.push(b'\n');
        let mut journal = self.journal.lock().unwrap_or_else(PoisonError::into_inner);
        journal.write_all(&line).map_err(io(&path))?;
        if !matches!(record, Record::Submitted { .. }) {
            journal.sync_data().map_err(io(&path))?;
        }
        Ok(())
    }

    fn result_path(&self, job: &str) -> PathBuf {
        self.root.join("results").join(format!("{job}.bin"))
    }

    /// Write a result so that it is either whole on disk or absent.
    pub fn write_result(&self, job: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.result_path(job);
        let tmp = path.with_extension("tmp");
        let mut f = File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        // The rename itself must reach the disk too.
        let dir = self.root.join("results");
        File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(io(&dir))?;
        Ok(())
    }

    pub fn read_result(&self, job: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.result_path(job);
        std::fs::read(&path).map_err(io(&path))
    }

    /// Bytes of all stored results, for the metrics.
    pub fn result_bytes(&self) -> u64 {
        std::fs::read_dir(self.root.join("results"))
            .map(|dir| {
                dir.filter_map(Result::ok)
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("impact-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_second_store_cannot_take_the_directory_and_a_torn_line_is_skipped() {
        let dir = temp_dir("lock");
        let store = Store::open(&dir).expect("open");
        assert!(matches!(Store::open(&dir), Err(StoreError::InUse { .. })));
        store
            .append(&Record::Submitted {
                job: "j-1".into(),
                key: "k".into(),
                submitted: 1.0,
            })
            .expect("append");
        // A kill in the middle of a line.
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join("jobs.jsonl"))
            .and_then(|mut f| f.write_all(b"{\"event\":\"done\",\"jo"))
            .expect("tear");
        let jobs = store.replay().expect("replay");
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].end, None);
        drop(store);
        // Reopened, the torn line is ended and the next record reads back.
        let store = Store::open(&dir).expect("reopen");
        store
            .append(&Record::Submitted {
                job: "j-2".into(),
                key: "k2".into(),
                submitted: 2.0,
            })
            .expect("append");
        assert_eq!(store.replay().expect("replay").len(), 2);
        store.write_result("j-1", b"bytes").expect("write");
        assert_eq!(store.read_result("j-1").expect("read"), b"bytes");
        drop(store);
        Store::open(&dir).expect("the lock goes with the store");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
