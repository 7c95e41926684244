//! `hostio._core`: the one compiled module behind the `hostio` Python package.
//!
//! Each model crate gets one file here that converts between Python objects and the crate's
//! types; no model logic lives in this crate. All failures the user can cause surface as
//! `ConfigError` (a `ValueError` and a `HostioError`) carrying the offending key, value and what is allowed.
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyTuple, PyType};

mod cache;
mod hw;
mod pcie;
mod sim;

pyo3::create_exception!(_core, HostioError, pyo3::exceptions::PyException, "Base class of every hostio error.");

/// `ConfigError(HostioError, ValueError)`: two bases, so it is built at import time as Python
/// builds a class (`create_exception!` takes one base).
static CONFIG_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

fn config_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    CONFIG_ERROR
        .get_or_try_init(py, || {
            let bases = PyTuple::new(py, [py.get_type::<HostioError>(), py.get_type::<pyo3::exceptions::PyValueError>()])?;
            let ns = PyDict::new(py);
            ns.set_item("__doc__", "Bad input (a ValueError and a HostioError): names the key, the value and what is allowed.")?;
            ns.set_item("__module__", "hostio._core")?;
            let t = py.get_type::<PyType>().call1(("ConfigError", bases, ns))?;
            Ok(t.downcast_into::<PyType>()?.unbind())
        })
        .map(|t| t.bind(py))
}

/// Map any displayable error to a `ConfigError`.
pub(crate) fn config_err(e: impl std::fmt::Display) -> PyErr {
    let msg = e.to_string();
    Python::with_gil(|py| match config_error_type(py) {
        Ok(t) => PyErr::from_type(t.clone(), msg),
        Err(err) => err,
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let base = m.py().get_type::<HostioError>();
    base.setattr("__module__", "hostio._core")?; // importable by that name, so it pickles
    m.add("HostioError", base)?;
    m.add("ConfigError", config_error_type(m.py())?)?;
    sim::register(m)?;
    cache::register(m)?;
    pcie::register(m)?;
    hw::register(m)?;
    Ok(())
}
