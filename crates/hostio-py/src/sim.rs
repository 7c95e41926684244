//! Python bindings of `hostio-sim`: runs release the GIL in slices of simulated time and check
//! for Ctrl-C between slices; on request a run's invariants are checked at its end.
use crate::config_err;
use pyo3::prelude::*;

/// Simulated µs per slice between GIL re-acquisitions (interrupt checks and progress calls).
const SLICE_US: f64 = 100.0;

/// Run a scenario (TOML text, or JSON text when `is_json`) and return the result as JSON.
#[pyfunction]
#[pyo3(signature = (text, overrides = Vec::new(), seed = None, progress = None, is_json = false, check_invariants = false))]
fn simulate(
    py: Python<'_>,
    text: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
    progress: Option<PyObject>,
    is_json: bool,
    check_invariants: bool,
) -> PyResult<String> {
    let text = if is_json { json_to_toml(text)? } else { text.to_string() };
    let mut run = hostio_sim::Run::new(&text, &overrides, seed).map_err(config_err)?;
    loop {
        let (done, frac) = py.allow_threads(|| run.step(SLICE_US));
        py.check_signals()?;
        if let Some(cb) = &progress {
            cb.call1(py, (frac,))?;
        }
        if done {
            break;
        }
    }
    if check_invariants {
        let bad = run.check_invariants();
        if !bad.is_empty() {
            return Err(crate::HostioError::new_err(format!("simulator invariants violated: {}", bad.join("; "))));
        }
    }
    Ok(serde_json::to_string(&run.finish()).expect("serialisable"))
}

/// A scenario given as a JSON object (from a Python dict) re-encoded as TOML text.
fn json_to_toml(text: &str) -> PyResult<String> {
    let v: toml::Value = serde_json::from_str(text)
        .map_err(|e| config_err(hostio_sim::ConfigError::new("scenario", "", format!("not a valid scenario mapping: {e}"))))?;
    toml::to_string(&v).map_err(|e| config_err(hostio_sim::ConfigError::new("scenario", "", format!("not a valid scenario mapping: {e}"))))
}

/// A scenario given as a JSON object, as TOML text (for sweeps and advice, which keep the text).
#[pyfunction]
fn scenario_toml(text: &str) -> PyResult<String> {
    json_to_toml(text)
}

/// Parse, override and validate a scenario; return the resolved scenario as JSON.
#[pyfunction]
#[pyo3(signature = (text, overrides = Vec::new(), is_json = false))]
fn check_scenario(text: &str, overrides: Vec<String>, is_json: bool) -> PyResult<String> {
    let text = if is_json { json_to_toml(text)? } else { text.to_string() };
    let sc = hostio_sim::parse_scenario(&text, &overrides).map_err(config_err)?;
    let r = sc.resolve().map_err(config_err)?;
    let out = serde_json::json!({
        "scenario": r.scenario,
        "platform": r.platform,
        "ddio_mask": format!("{:#x}", r.io_mask),
        "warnings": r.warnings,
        "simulated_memory_mib": sc.simulated_memory_mib(),
    });
    Ok(out.to_string())
}

/// Names of the built-in platform presets.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    hostio_sim::config::PRESETS.to_vec()
}

/// A preset's facts as JSON.
#[pyfunction]
fn preset(name: &str) -> PyResult<String> {
    let p = hostio_sim::config::Platform::preset(name).ok_or_else(|| {
        config_err(hostio_sim::ConfigError::new("preset", name, format!("one of {}", hostio_sim::config::PRESETS.join(", "))))
    })?;
    Ok(serde_json::to_string(&p).expect("serialisable"))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_toml, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(preset, m)?)?;
    Ok(())
}
