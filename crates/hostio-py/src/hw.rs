//! Python bindings of `hostio-hw`: JSON in, JSON out, so the serde structs of the crate stay the
//! one declaration of every option and result (the Python layer `json.loads` the answers).
//! Measurements release the GIL; the Python driver calls one measurement at a time so Ctrl-C is
//! honoured between them.
use crate::{config_err, HostioError};
use hostio_hw::{coherent, geometry, probe, ring, util, HwError};
use pyo3::prelude::*;

fn hw_err(e: HwError) -> PyErr {
    match e {
        HwError::Config { .. } => config_err(e),
        HwError::Os(msg) => HostioError::new_err(msg),
    }
}

// The serde bounds live in `hostio-hw` (`from_json`/`to_json`), so this crate needs no serde
// dependency of its own: macros generate the per-type calls.
macro_rules! parse {
    ($what:expr, $json:expr) => {
        hostio_hw::from_json($what, $json).map_err(hw_err)
    };
}
macro_rules! dump {
    ($v:expr) => {
        hostio_hw::to_json($v).map_err(hw_err)
    };
}

/// Cache geometry from CPUID and sysfs, as JSON.
#[pyfunction]
fn hw_geometry() -> PyResult<String> {
    dump!(&geometry::detect().map_err(hw_err)?)
}

/// TSC ticks per nanosecond, calibrated against CLOCK_MONOTONIC.
#[pyfunction]
fn hw_tsc_ghz(py: Python<'_>) -> f64 {
    py.allow_threads(util::tsc_ghz)
}

/// CPUs this process may run on.
#[pyfunction]
fn hw_allowed_cpus() -> Vec<usize> {
    util::allowed_cpus()
}

/// One pointer-chasing point (`ChaseConfig` JSON) → `ChasePoint` JSON.
#[pyfunction]
fn hw_chase(py: Python<'_>, config: &str) -> PyResult<String> {
    let cfg: probe::ChaseConfig = parse!("chase", config)?;
    dump!(&py.allow_threads(|| probe::chase(&cfg)).map_err(hw_err)?)
}

/// Chase while the other cpus stream → `LoadedPoint` JSON.
#[pyfunction]
fn hw_loaded_chase(py: Python<'_>, config: &str, stream_cpus: Vec<usize>, stream_bytes: usize) -> PyResult<String> {
    let cfg: probe::ChaseConfig = parse!("chase", config)?;
    dump!(&py.allow_threads(|| probe::loaded_chase(&cfg, &stream_cpus, stream_bytes)).map_err(hw_err)?)
}

/// Core-to-core latency of one pair (`C2cConfig` JSON) → `C2cPair` JSON.
#[pyfunction]
fn hw_c2c_pair(py: Python<'_>, config: &str) -> PyResult<String> {
    let cfg: probe::C2cConfig = parse!("c2c", config)?;
    dump!(&py.allow_threads(|| probe::c2c_pair(&cfg)).map_err(hw_err)?)
}

/// Streaming bandwidth (`BwConfig` JSON) → `BwResult` JSON.
#[pyfunction]
fn hw_bandwidth(py: Python<'_>, config: &str) -> PyResult<String> {
    let cfg: probe::BwConfig = parse!("bandwidth", config)?;
    dump!(&py.allow_threads(|| probe::bandwidth(&cfg)).map_err(hw_err)?)
}

/// Plateaus and detected sizes of a latency curve [(bytes, ns)] → `Levels` JSON.
#[pyfunction]
fn hw_levels(curve: Vec<(usize, f64)>, l1: usize, l2: usize, llc: usize) -> PyResult<String> {
    dump!(&probe::levels(&curve, l1, l2, llc))
}

/// Platform file text from the simulator's `Platform` as JSON (unknown or missing keys are
/// errors; the simulator's optional keys take their defaults).
#[pyfunction]
fn hw_platform_toml(platform_json: &str, header: Vec<String>) -> PyResult<String> {
    let p: hostio_sim::config::Platform = parse!("platform", platform_json)?;
    p.to_file_toml(&header).map_err(crate::config_err)
}

/// One ring configuration (`RingConfig` JSON) → `RingResult` JSON.
#[pyfunction]
fn hw_ring_run(py: Python<'_>, config: &str) -> PyResult<String> {
    let cfg: ring::RingConfig = parse!("ringbench", config)?;
    dump!(&py.allow_threads(|| ring::run(&cfg)).map_err(hw_err)?)
}

/// Coherent-link model: `RingShape` JSON and `LinkParams` JSON → `Prediction` JSON.
#[pyfunction]
fn hw_ring_predict(shape: &str, params: &str) -> PyResult<String> {
    let s: coherent::RingShape = parse!("ring shape", shape)?;
    let p: coherent::LinkParams = parse!("link params", params)?;
    dump!(&coherent::predict(&s, &p))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hw_geometry, m)?)?;
    m.add_function(wrap_pyfunction!(hw_tsc_ghz, m)?)?;
    m.add_function(wrap_pyfunction!(hw_allowed_cpus, m)?)?;
    m.add_function(wrap_pyfunction!(hw_chase, m)?)?;
    m.add_function(wrap_pyfunction!(hw_loaded_chase, m)?)?;
    m.add_function(wrap_pyfunction!(hw_c2c_pair, m)?)?;
    m.add_function(wrap_pyfunction!(hw_bandwidth, m)?)?;
    m.add_function(wrap_pyfunction!(hw_levels, m)?)?;
    m.add_function(wrap_pyfunction!(hw_platform_toml, m)?)?;
    m.add_function(wrap_pyfunction!(hw_ring_run, m)?)?;
    m.add_function(wrap_pyfunction!(hw_ring_predict, m)?)?;
    Ok(())
}
