//! hostio-hw: measurements on the real machine hostio runs on.
//!
//! * [`probe`]: load-to-use latency by working-set size (pointer chasing over a random cyclic
//!   permutation of cache lines, the method of lmbench's `lat_mem_rd` and Intel MLC), loaded
//!   latency, core-to-core cache-line transfer latency (ping-pong on one line, and reads of lines
//!   left Modified by the other core), and streaming bandwidth.
//! * [`geometry`]: cache geometry from CPUID (leaf 4 on Intel, 0x8000001D on AMD) and from
//!   `/sys/devices/system/cpu/cpu0/cache/index*`.
//! * [`ring`]: a CC-NIC-style descriptor ring between two pinned cores (Schuh et al., "CC-NIC: a
//!   Cache-Coherent Interface to the NIC", ASPLOS'24): doorbell vs inline signaling, padded /
//!   packed / grouped layouts, batching, shared pool vs free queues, optional payload copies.
//! * [`coherent`]: the analytic model of a coherent host–device interface that predicts what
//!   [`ring`] measures from one line-transfer latency. Pure functions: no OS dependency, so the
//!   simulator can reuse it.
//!
//! Everything that touches the OS (affinity, TSC, CPUID, sysfs) lives in [`util`] and
//! [`geometry`]; the measurement loops are plain Rust over aligned memory.
pub mod coherent;
pub mod geometry;
pub mod probe;
pub mod ring;
pub mod util;

use std::fmt;

/// Every failure of this crate. `Config` is bad input (key, value, what is allowed); `Os` is a
/// refusal or failure of the machine (e.g. a pair test on a one-core machine).
#[derive(Debug, Clone, PartialEq)]
pub enum HwError {
    Config { key: String, value: String, allowed: String },
    Os(String),
}

impl HwError {
    pub fn config(key: &str, value: impl fmt::Display, allowed: &str) -> Self {
        HwError::Config { key: key.into(), value: value.to_string(), allowed: allowed.into() }
    }
}

impl fmt::Display for HwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HwError::Config { key, value, allowed } => write!(f, "{key} = {value}: {allowed}"),
            HwError::Os(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for HwError {}

pub type Result<T> = std::result::Result<T, HwError>;

/// Parse one of this crate's configuration structs from JSON; errors name `what` (the option
/// group) and serde's reason (unknown field, wrong type, bad variant).
pub fn from_json<T: serde::de::DeserializeOwned>(what: &str, json: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|e| HwError::Config { key: what.into(), value: json.chars().take(200).collect(), allowed: e.to_string() })
}

/// Serialise a result to JSON.
pub fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| HwError::Os(e.to_string()))
}
