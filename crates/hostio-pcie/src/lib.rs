//! hostio-pcie
