//! Python bindings of `hostio-pcie`. Configurations cross as JSON text (deserialised by the same
//! serde structs the simulator uses, so unknown keys and bad values fail identically); results
//! come back as JSON text that `hostio.pcie` turns into dicts.
use crate::config_err;
use hostio_pcie::{
    link_for, nic_throughput, BenchPlatform, DmaOp, Engine, Experiment, MemLocation, NicDesign, NicQuery, PcieLatencyParams,
    PcieLink,
};
use pyo3::prelude::*;

// Macros rather than generic helpers: this crate reaches serde only through serde_json.
macro_rules! parse {
    ($ty:ty, $what:expr, $json:expr) => {
        serde_json::from_str::<$ty>($json).map_err(|e| config_err(format!("{}: {}", $what, e)))
    };
}
macro_rules! dump {
    ($v:expr) => {
        serde_json::to_string(&$v).map_err(config_err)
    };
}

/// Bandwidth figures for each size: JSON list of objects.
#[pyfunction]
fn pcie_bandwidth(link_json: &str, sizes: Vec<u64>) -> PyResult<String> {
    let link = parse!(PcieLink, "link", link_json)?;
    let rows = sizes.iter().map(|&s| link.bandwidth(s)).collect::<Result<Vec<_>, _>>().map_err(config_err)?;
    dump!(rows)
}

/// Smallest link for a rate: JSON object or null.
#[pyfunction]
fn pcie_link_for(link_json: &str, op: &str, rate_gbps: f64, size: u64) -> PyResult<String> {
    let link = parse!(PcieLink, "link", link_json)?;
    let op = DmaOp::parse(op).map_err(config_err)?;
    dump!(link_for(&link, op, rate_gbps, size).map_err(config_err)?)
}

/// NIC throughput plus its transaction lists: JSON object {result, tx, rx}.
#[pyfunction]
fn pcie_nic(link_json: &str, query_json: &str) -> PyResult<String> {
    let link = parse!(PcieLink, "link", link_json)?;
    let q = parse!(NicQuery, "nic", query_json)?;
    let r = nic_throughput(&link, &q).map_err(config_err)?;
    let tx = q.design.tx_packet_txns(&link, r.dma_bytes, q.compat);
    let rx = q.design.rx_packet_txns(&link, r.dma_bytes, q.compat);
    dump!(serde_json::json!({"result": r, "tx": tx, "rx": rx}))
}

/// Latency parts of one transaction kind: JSON object.
#[pyfunction]
#[pyo3(signature = (params_json, kind, size, location, engine, iotlb_miss))]
fn pcie_latency(params_json: &str, kind: &str, size: u64, location: &str, engine: &str, iotlb_miss: bool) -> PyResult<String> {
    let p = parse!(PcieLatencyParams, "latency", params_json)?;
    p.validate().map_err(config_err)?;
    hostio_pcie::link::check_size("size", size).map_err(config_err)?;
    let loc = MemLocation::parse(location).map_err(config_err)?;
    let engine = match engine {
        "dma" => Engine::Dma,
        "cmd" => Engine::Cmd,
        _ => return Err(config_err(format!("engine = {engine:?}: one of \"dma\", \"cmd\""))),
    };
    let parts = match kind {
        "dma_read" => p.dma_read_parts(size, loc, engine, iotlb_miss),
        "dma_write" => p.dma_write_parts(size, loc, engine, iotlb_miss),
        "wrrd" => p.wrrd_parts(size, loc, engine, iotlb_miss),
        "mmio_read" => p.mmio_read_parts(size),
        "mmio_write" => p.mmio_write_parts(size),
        _ => {
            return Err(config_err(format!(
                "kind = {kind:?}: one of \"dma_read\", \"dma_write\", \"wrrd\", \"mmio_read\", \"mmio_write\""
            )))
        }
    };
    dump!(parts)
}

/// One pcie-bench experiment through the model: JSON object.
#[pyfunction]
fn pcie_experiment(py: Python<'_>, platform_json: &str, experiment_json: &str) -> PyResult<String> {
    let p = parse!(BenchPlatform, "platform", platform_json)?;
    let e = parse!(Experiment, "experiment", experiment_json)?;
    let r = py.allow_threads(|| p.run(&e)).map_err(config_err)?;
    dump!(r)
}

/// Default configuration of `kind` ("link", "latency", "platform") as JSON: the one declaration
/// the Python view and the documentation read their defaults from.
#[pyfunction]
fn pcie_defaults(kind: &str) -> PyResult<String> {
    match kind {
        "link" => dump!(PcieLink::default()),
        "latency" => dump!(PcieLatencyParams::default()),
        "platform" => dump!(BenchPlatform::default()),
        _ => Err(config_err(format!("kind = {kind:?}: one of \"link\", \"latency\", \"platform\""))),
    }
}

/// ACK limit and FC interval of one cell of the spec tables (None outside them).
#[pyfunction]
fn pcie_dllp_tables(gen: u8, lanes: u32, mps: u32) -> (Option<u32>, Option<u32>) {
    (hostio_pcie::ack_limit(gen, lanes, mps), hostio_pcie::fc_interval(gen, lanes, mps))
}

/// NIC design names, in declaration order.
#[pyfunction]
fn pcie_nic_designs() -> Vec<&'static str> {
    NicDesign::ALL.iter().map(|d| d.name()).collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pcie_bandwidth, m)?)?;
    m.add_function(wrap_pyfunction!(pcie_link_for, m)?)?;
    m.add_function(wrap_pyfunction!(pcie_nic, m)?)?;
    m.add_function(wrap_pyfunction!(pcie_latency, m)?)?;
    m.add_function(wrap_pyfunction!(pcie_experiment, m)?)?;
    m.add_function(wrap_pyfunction!(pcie_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(pcie_dllp_tables, m)?)?;
    m.add_function(wrap_pyfunction!(pcie_nic_designs, m)?)?;
    m.add("PCIE_ETH_MIN_FRAME", hostio_pcie::nic::ETH_MIN_FRAME)?;
    m.add("PCIE_ETH_MAX_FRAME", hostio_pcie::nic::ETH_MAX_FRAME)?;
    Ok(())
}
