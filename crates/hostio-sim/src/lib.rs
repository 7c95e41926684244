//! hostio-sim
