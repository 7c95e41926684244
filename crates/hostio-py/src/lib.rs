//! `hostio._core`: the one compiled module behind the `hostio` Python package.
//!
//! Each model crate gets one file here that converts between Python objects and the crate's
//! types; no model logic lives in this crate. All failures the user can cause surface as
//! `ConfigError` (a `ValueError`) carrying the offending key, value and what is allowed.
use pyo3::prelude::*;

mod cache;
mod hw;
mod pcie;
mod sim;

pyo3::create_exception!(_core, HostioError, pyo3::exceptions::PyException, "Base class of every hostio error.");
pyo3::create_exception!(_core, ConfigError, pyo3::exceptions::PyValueError, "Bad input (a ValueError): names the key, the value and what is allowed.");

/// Map any displayable error to a `ConfigError`.
pub(crate) fn config_err(e: impl std::fmt::Display) -> PyErr {
    ConfigError::new_err(e.to_string())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("HostioError", m.py().get_type::<HostioError>())?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    sim::register(m)?;
    cache::register(m)?;
    pcie::register(m)?;
    hw::register(m)?;
    Ok(())
}
