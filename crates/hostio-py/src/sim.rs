//! Python bindings of `hostio-sim`: runs release the GIL in slices of simulated time and check
//! for Ctrl-C between slices; on request a run's invariants are checked at its end.
use crate::config_err;
use pyo3::prelude::*;

/// Simulated µs per slice between GIL re-acquisitions (interrupt checks and progress calls).
const SLICE_US: f64 = 100.0;

/// Run a scenario (TOML text, or JSON text when `is_json`) and return the result as JSON.
/// `base`: the scenario file's folder, which its relative file paths are read from.
#[pyfunction]
#[pyo3(signature = (text, overrides = Vec::new(), seed = None, progress = None, is_json = false, check_invariants = false, base = None))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    text: &str,
    overrides: Vec<String>,
    seed: Option<u64>,
    progress: Option<PyObject>,
    is_json: bool,
    check_invariants: bool,
    base: Option<std::path::PathBuf>,
) -> PyResult<String> {
    let text = if is_json { json_to_toml(text)? } else { text.to_string() };
    let mut run = py.allow_threads(|| hostio_sim::Run::new_at(&text, &overrides, seed, base.as_deref())).map_err(config_err)?;
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

/// Parse, override and validate a scenario, and read its captures; return the resolved
/// scenario as JSON, with each capture's totals. `base` as for `simulate`.
#[pyfunction]
#[pyo3(signature = (text, overrides = Vec::new(), is_json = false, base = None))]
fn check_scenario(py: Python<'_>, text: &str, overrides: Vec<String>, is_json: bool, base: Option<std::path::PathBuf>) -> PyResult<String> {
    let text = if is_json { json_to_toml(text)? } else { text.to_string() };
    let sc = hostio_sim::config::parse_scenario_at(&text, &overrides, base.as_deref()).map_err(config_err)?;
    let mut r = sc.resolve().map_err(config_err)?;
    py.allow_threads(|| r.load_captures()).map_err(config_err)?;
    let captures: serde_json::Map<String, serde_json::Value> = r
        .captures
        .iter()
        .map(|(name, c)| {
            let v = serde_json::json!({
                "frames": c.frames.len(),
                "bytes": c.bytes,
                "span_us": c.span_ps as f64 / 1e6,
                "mean_gbps": c.mean_gbps(),
                "flows": c.flows,
                "padded_frames": c.padded,
                "fnv1a64": format!("{:016x}", c.digest),
            });
            (name.clone(), v)
        })
        .collect();
    let given = serde_json::to_value(&r.scenario).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let ran = serde_json::to_value(r.effective_scenario()).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let out = serde_json::json!({
        "captures": captures,
        "scenario": given,
        "defaults": unset_in(&given, &ran),
        "platform": r.platform,
        "ddio_mask": format!("{:#x}", r.io_mask),
        "warnings": r.warnings,
        "simulated_memory_mib": sc.simulated_memory_mib(),
    });
    Ok(out.to_string())
}

/// The keys `given` leaves unset (absent or null) that `ran` sets, with `ran`'s values, at every
/// depth: the defaults the engine applies ([`hostio_sim::config::Resolved::effective_scenario`]).
fn unset_in(given: &serde_json::Value, ran: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let mut out = serde_json::Map::new();
    if let (Value::Object(g), Value::Object(r)) = (given, ran) {
        for (k, rv) in r {
            match g.get(k) {
                None | Some(Value::Null) if !rv.is_null() => {
                    out.insert(k.clone(), rv.clone());
                }
                Some(gv @ Value::Object(_)) => {
                    let sub = unset_in(gv, rv);
                    if sub.as_object().is_some_and(|m| !m.is_empty()) {
                        out.insert(k.clone(), sub);
                    }
                }
                _ => {}
            }
        }
    }
    Value::Object(out)
}

/// Scenario file text whose relative file paths (captures, a platform file) are joined to `base`
/// (the file's folder), making them absolute, so that the text runs the same from any working directory: the text itself when no
/// path changes, else the scenario re-written as TOML.
#[pyfunction]
fn scenario_at(text: &str, base: std::path::PathBuf) -> PyResult<String> {
    let Ok(mut v) = toml::from_str::<toml::Value>(text) else { return Ok(text.to_string()) };
    if !hostio_sim::config::absolute_paths(&mut v, &base, true).map_err(config_err)? {
        return Ok(text.to_string());
    }
    toml::to_string(&v).map_err(|e| config_err(hostio_sim::ConfigError::new("scenario", "", format!("cannot be written back as TOML: {e}"))))
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
    m.add_function(wrap_pyfunction!(scenario_at, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(preset, m)?)?;
    Ok(())
}
