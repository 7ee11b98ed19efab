//! The password-hashing pool: a few threads, each owning one argon2 memory block allocated on its
//! first hash and reused for every hash after it, fed by a bounded queue. Hashing on tokio's blocking
//! pool instead allocated 19 MiB per hash on whichever of hundreds of threads ran it, and glibc kept
//! each thread's freed buffer in that thread's arena: 60 sockets sending wrong passwords took the
//! process from 32 MiB to 4.8 GiB. Here hashing holds at most `threads x 19 MiB` however many logins
//! arrive, and a login past the queue's bound is answered `busy` at once instead of waiting behind a
//! flood. Verification runs here too, through the same memory, with the parameters recorded in the
//! stored hash.

use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};

use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use rand::RngCore;

use super::AuthError;
use crate::config::{Argon2Params, HASHING_CONCURRENCY_MAX, HASHING_QUEUE_MAX};

/// Salt bytes per hash: 128 bits, the PHC string format's recommendation.
const SALT_BYTES: usize = 16;

/// One hashing thread's argon2 memory, grown to the largest hash it has computed and never freed.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    blocks: Vec<Block>,
}

impl Memory {
    /// The first `count` blocks, allocating only when this thread never needed as many.
    fn blocks(&mut self, count: usize) -> &mut [Block] {
        if self.blocks.len() < count {
            self.blocks.resize(count, Block::default());
        }
        &mut self.blocks[..count]
    }

    /// Blocks held, for tests.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.blocks.len()
    }
}

type Job = Box<dyn FnOnce(&mut Memory) + Send>;

/// Why the pool did not run a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolError {
    /// The queue is full: the caller answers `busy`.
    Busy,
    /// The threads are gone (a job panicked, or the process is stopping).
    Stopped,
}

impl From<PoolError> for AuthError {
    fn from(err: PoolError) -> AuthError {
        match err {
            PoolError::Busy => AuthError::Busy,
            PoolError::Stopped => AuthError::Internal("password hashing stopped".into()),
        }
    }
}

/// The pool's handle. Dropping it ends the threads once they finish what is queued.
#[derive(Debug)]
pub(crate) struct HashPool {
    jobs: SyncSender<Job>,
}

impl HashPool {
    /// The production pool: [`HASHING_CONCURRENCY_MAX`] threads (fewer on a machine with fewer
    /// cores), [`HASHING_QUEUE_MAX`] hashes waiting.
    pub(crate) fn new() -> HashPool {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        HashPool::with_size(cores.min(HASHING_CONCURRENCY_MAX), HASHING_QUEUE_MAX)
    }

    pub(crate) fn with_size(threads: usize, queue_len: usize) -> HashPool {
        let (jobs, queue) = mpsc::sync_channel::<Job>(queue_len);
        let queue = Arc::new(Mutex::new(queue));
        for index in 0..threads.max(1) {
            let queue = Arc::clone(&queue);
            let spawned = std::thread::Builder::new()
                .name(format!("tengen-hash-{index}"))
                .spawn(move || work(&queue));
            if let Err(err) = spawned {
                tracing::error!(%err, "could not start a password-hashing thread");
            }
        }
        HashPool { jobs }
    }

    /// Run `job` on a hashing thread with that thread's memory, unless the queue is full.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Memory) -> T + Send + 'static,
    ) -> Result<T, PoolError> {
        self.submit(job)?.await.map_err(|_| PoolError::Stopped)
    }

    /// Queue `job` now (or refuse it now); its result arrives on the receiver.
    pub(super) fn submit<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Memory) -> T + Send + 'static,
    ) -> Result<tokio::sync::oneshot::Receiver<T>, PoolError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |memory| {
            let _ = reply.send(job(memory));
        });
        match self.jobs.try_send(job) {
            Ok(()) => Ok(answer),
            Err(TrySendError::Full(_)) => Err(PoolError::Busy),
            Err(TrySendError::Disconnected(_)) => Err(PoolError::Stopped),
        }
    }

    /// A new PHC-format argon2id hash of `password` with `params` and a fresh salt.
    pub(crate) async fn hash(
        &self,
        params: Argon2Params,
        password: String,
    ) -> Result<String, AuthError> {
        self.run(move |memory| hash_password(memory, params, password.as_bytes()))
            .await?
    }

    /// Whether `password` matches the PHC-format hash `phc`, with the parameters recorded in it.
    pub(crate) async fn verify(&self, password: String, phc: String) -> Result<bool, AuthError> {
        self.run(move |memory| verify_password(memory, password.as_bytes(), &phc))
            .await?
    }
}

/// A hashing thread: take the next job, run it with this thread's memory, until the pool is dropped.
fn work(queue: &Mutex<Receiver<Job>>) {
    let mut memory = Memory::default();
    loop {
        let next = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
        match next {
            Ok(job) => job(&mut memory),
            Err(_) => return,
        }
    }
}

fn internal(what: &str, err: impl std::fmt::Display) -> AuthError {
    AuthError::Internal(format!("{what}: {err}"))
}

/// Hash `password` into a PHC string, exactly as `argon2`'s `PasswordHasher` would (so either can
/// verify the other's hashes), but in `memory` rather than a fresh allocation.
pub(crate) fn hash_password(
    memory: &mut Memory,
    params: Argon2Params,
    password: &[u8],
) -> Result<String, AuthError> {
    let params = Params::new(params.memory_kib, params.passes, params.lanes, None)
        .map_err(|err| internal("bad argon2 parameters", err))?;
    let mut salt_bytes = [0u8; SALT_BYTES];
    rand::rng().fill_bytes(&mut salt_bytes);
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|err| internal("salt", err))?;
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    argon2
        .hash_password_into_with_memory(
            password,
            &salt_bytes,
            &mut out,
            memory.blocks(params.block_count()),
        )
        .map_err(|err| internal("hashing", err))?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|err| internal("parameters", err))?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out).map_err(|err| internal("output", err))?),
    };
    Ok(phc.to_string())
}

/// Whether `password` hashes to the output recorded in `phc` with the algorithm, version, parameters
/// and salt recorded there (so old hashes keep working after a parameter change). The outputs are
/// compared in constant time (`Output`'s equality).
pub(crate) fn verify_password(
    memory: &mut Memory,
    password: &[u8],
    phc: &str,
) -> Result<bool, AuthError> {
    let parsed = PasswordHash::new(phc).map_err(|err| internal("stored hash", err))?;
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return Err(AuthError::Internal(
            "stored hash has no salt or output".into(),
        ));
    };
    let algorithm =
        Algorithm::try_from(parsed.algorithm).map_err(|err| internal("algorithm", err))?;
    let version = match parsed.version {
        Some(version) => Version::try_from(version).map_err(|err| internal("version", err))?,
        None => Version::default(),
    };
    let params = Params::try_from(&parsed).map_err(|err| internal("stored parameters", err))?;
    let mut salt_buffer = [0u8; 64];
    let salt_bytes = salt
        .decode_b64(&mut salt_buffer)
        .map_err(|err| internal("stored salt", err))?;
    let mut out = [0u8; Output::MAX_LENGTH];
    let out = out
        .get_mut(..expected.len())
        .ok_or_else(|| AuthError::Internal("stored output too long".into()))?;
    Argon2::new(algorithm, version, params.clone())
        .hash_password_into_with_memory(
            password,
            salt_bytes,
            out,
            memory.blocks(params.block_count()),
        )
        .map_err(|err| internal("hashing", err))?;
    let computed = Output::new(out).map_err(|err| internal("output", err))?;
    Ok(computed == expected)
}

#[cfg(test)]
mod tests {
    use argon2::password_hash::{PasswordHasher, PasswordVerifier};

    use super::*;

    const CHEAP: Argon2Params = Argon2Params {
        memory_kib: 64,
        passes: 1,
        lanes: 1,
    };

    #[test]
    fn hashes_match_the_argon2_crates_both_ways_and_reuse_one_memory() {
        let mut memory = Memory::default();
        let ours = hash_password(&mut memory, CHEAP, b"correct horse").unwrap();
        assert!(ours.starts_with("$argon2id$v=19$m=64,t=1,p=1$"), "{ours}");
        assert!(verify_password(&mut memory, b"correct horse", &ours).unwrap());
        assert!(!verify_password(&mut memory, b"wrong horse", &ours).unwrap());
        // The crate's own verifier accepts our hash, and we accept the crate's.
        let crates = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(128, 2, 1, None).unwrap(),
        );
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(crates.verify_password(b"correct horse", &parsed).is_ok());
        let salt = SaltString::encode_b64(&[7u8; 16]).unwrap();
        let theirs = crates
            .hash_password(b"battery staple", &salt)
            .unwrap()
            .to_string();
        assert!(verify_password(&mut memory, b"battery staple", &theirs).unwrap());
        // The memory grew to the largest hash (128 KiB) and stays: nothing is allocated per hash.
        assert_eq!(memory.len(), 128);
        for _ in 0..5 {
            hash_password(&mut memory, CHEAP, b"again").unwrap();
        }
        assert_eq!(memory.len(), 128);
    }

    #[test]
    fn a_broken_stored_hash_is_an_error_not_a_panic() {
        let mut memory = Memory::default();
        for phc in [
            "",
            "$argon2id$",
            "$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ",
            "plain",
        ] {
            assert!(verify_password(&mut memory, b"x", phc).is_err(), "{phc}");
        }
    }

    #[tokio::test]
    async fn past_the_queue_a_job_is_refused_busy_at_once() {
        // One thread, one place in the queue.
        let pool = HashPool::with_size(1, 1);
        let (started_tx, started) = std::sync::mpsc::channel();
        let (finish, finish_rx) = std::sync::mpsc::channel::<()>();
        let running = pool
            .submit(move |_| {
                let _ = started_tx.send(());
                let _ = finish_rx.recv();
                1
            })
            .unwrap();
        // The thread holds the first job; the second waits in the queue; the third finds it full.
        started.recv().unwrap();
        let queued = pool.submit(|_| 2).unwrap();
        assert_eq!(pool.submit(|_| 3).unwrap_err(), PoolError::Busy);
        assert_eq!(pool.run(|_| 4).await.unwrap_err(), PoolError::Busy);
        finish.send(()).unwrap();
        assert_eq!(running.await.unwrap(), 1);
        assert_eq!(queued.await.unwrap(), 2);
        assert_eq!(pool.run(|_| 5).await, Ok(5));
        // Hashing through the pool, and verifying through it.
        let phc = pool.hash(CHEAP, "pass word".into()).await.unwrap();
        assert!(pool.verify("pass word".into(), phc.clone()).await.unwrap());
        assert!(!pool.verify("pass-word".into(), phc).await.unwrap());
    }
}
