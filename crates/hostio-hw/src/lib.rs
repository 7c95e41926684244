//! hostio-hw
