//! The server's resident memory, read from `/proc/<pid>/status` (`VmRSS`), and finding that pid from
//! the port it listens on (`/proc/net/tcp*` gives the listening socket's inode; the process holding a
//! descriptor to it is the server). Linux only; elsewhere the figures are simply absent.

use std::path::Path;

/// Resident set size of `pid` in KiB.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
}

/// The summed RSS of several processes (the nodes of a run), in KiB; `None` unless every one was read.
pub fn rss_kib_total(pids: &[u32]) -> Option<u64> {
    total(pids, rss_kib)
}

/// The summed CPU time of several processes, in seconds; `None` unless every one was read.
pub fn cpu_s_total(pids: &[u32]) -> Option<f64> {
    total(pids, cpu_s)
}

/// The sum of `read` over `pids`: `None` for no pids or when any read fails, so a figure is never
/// silently short of a node.
fn total<T: std::iter::Sum<T>>(pids: &[u32], read: impl Fn(u32) -> Option<T>) -> Option<T> {
    if pids.is_empty() {
        return None;
    }
    pids.iter().map(|&pid| read(pid)).sum()
}

/// Clock ticks per second in `/proc/<pid>/stat` (USER_HZ): 100 on every Linux the generator runs on.
const USER_HZ: f64 = 100.0;

/// CPU time `pid` has used so far (user plus system), in seconds.
pub fn cpu_s(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces; the fields after it are plain.
    let after_name = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // After the name: state is field 3 of the man page, utime 14 and stime 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / USER_HZ)
}

/// Microseconds, since boot, during which some runnable task on this machine waited for a CPU
/// (`/proc/pressure/cpu`, "some" line): how contended the machine was, whoever caused it.
pub fn cpu_pressure_us() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/pressure/cpu").ok()?;
    let some = text.lines().find(|line| line.starts_with("some"))?;
    some.split_whitespace()
        .find_map(|field| field.strip_prefix("total="))
        .and_then(|total| total.parse().ok())
}

/// The pid of the process listening on TCP `port`, when this user can see it.
pub fn pid_listening_on(port: u16) -> Option<u32> {
    let inode = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .find_map(|table| listening_inode(Path::new(table), port))?;
    let wanted = format!("socket:[{inode}]");
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if std::fs::read_link(fd.path()).is_ok_and(|target| target.to_string_lossy() == wanted)
            {
                return Some(pid);
            }
        }
    }
    None
}

/// The inode of the socket listening on `port` in one `/proc/net/tcp` table.
fn listening_inode(table: &Path, port: u16) -> Option<String> {
    /// The state column's value for LISTEN.
    const TCP_LISTEN: &str = "0A";
    let text = std::fs::read_to_string(table).ok()?;
    text.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local = fields.get(1)?;
        let local_port = u16::from_str_radix(local.rsplit(':').next()?, 16).ok()?;
        (local_port == port && fields.get(3) == Some(&TCP_LISTEN))
            .then(|| fields.get(9).map(|inode| inode.to_string()))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_our_own_listener_and_reads_our_rss() {
        if !Path::new("/proc/net/tcp").exists() {
            return;
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert_eq!(pid_listening_on(port), Some(std::process::id()));
        assert!(rss_kib(std::process::id()).unwrap() > 0);
        assert!(cpu_s(std::process::id()).unwrap() >= 0.0);
    }

    #[test]
    fn totals_sum_every_pid_or_give_none() {
        if !Path::new("/proc/self/status").exists() {
            return;
        }
        let me = std::process::id();
        let one = rss_kib_total(&[me]).unwrap();
        assert!(one > 0);
        assert!(rss_kib_total(&[me, me]).unwrap() >= one);
        assert!(cpu_s_total(&[me, me]).is_some());
        assert_eq!(rss_kib_total(&[]), None);
        // A pid that cannot exist (above the kernel's pid_max ceiling of 2^22).
        assert_eq!(rss_kib_total(&[me, 5_000_000]), None);
        assert_eq!(cpu_s_total(&[5_000_000]), None);
    }
}
