//! The platform file: what `hostio probe --platform-out FILE.toml` writes and the simulator
//! reads as `platform.preset = "file:PATH"`. A flat TOML table; the simulator's reader denies
//! unknown fields, so this struct is the one declaration of its keys.
use serde::{Deserialize, Serialize};

/// A measured platform. Units are in the names; GB/s is 1e9 bytes/s.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlatformFile {
    pub name: String,
    /// Nominal clock (the TSC frequency on x86), GHz.
    pub clock_ghz: f64,
    pub cores_per_socket: u32,
    pub llc_ways: u32,
    /// LLC slices (1 when unknown).
    pub llc_slices: u32,
    pub llc_mib_per_slice: f64,
    pub llc_inclusive: bool,
    pub l2_kib: u32,
    pub l2_ways: u32,
    /// Default DDIO (IIO LLC WAYS) mask; 0 when the CPU has no DDIO (non-Intel).
    pub ddio_default_mask: u64,
    /// "contiguous" (Skylake-SP and later) or "any" (Haswell/Broadwell-EP).
    pub ddio_mask_rule: String,
    pub l1_latency_ns: f64,
    pub l2_latency_ns: f64,
    pub llc_latency_ns: f64,
    pub dram_latency_ns: f64,
    pub c2c_latency_ns: f64,
    /// Memory bandwidth per socket, GB/s.
    pub memory_bandwidth_gbyte_s: f64,
}

impl PlatformFile {
    /// Check values the simulator would reject.
    pub fn validate(&self) -> crate::Result<()> {
        use crate::HwError;
        if self.llc_slices < 1 {
            return Err(HwError::config("llc_slices", self.llc_slices, "at least 1 (1 when unknown)"));
        }
        if self.ddio_mask_rule != "contiguous" && self.ddio_mask_rule != "any" {
            return Err(HwError::config("ddio_mask_rule", &self.ddio_mask_rule, "\"contiguous\" or \"any\""));
        }
        for (k, v) in [
            ("clock_ghz", self.clock_ghz),
            ("llc_mib_per_slice", self.llc_mib_per_slice),
            ("l1_latency_ns", self.l1_latency_ns),
            ("l2_latency_ns", self.l2_latency_ns),
            ("llc_latency_ns", self.llc_latency_ns),
            ("dram_latency_ns", self.dram_latency_ns),
            ("c2c_latency_ns", self.c2c_latency_ns),
            ("memory_bandwidth_gbyte_s", self.memory_bandwidth_gbyte_s),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(HwError::config(k, v, "a positive number"));
            }
        }
        Ok(())
    }

    /// TOML text with `header` lines as a leading comment.
    pub fn to_toml(&self, header: &[String]) -> crate::Result<String> {
        self.validate()?;
        let body = toml::to_string(self).map_err(|e| crate::HwError::Os(format!("cannot write platform TOML: {e}")))?;
        let mut out = String::new();
        for h in header {
            out.push_str("# ");
            out.push_str(h);
            out.push('\n');
        }
        out.push_str(&body);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_denies_unknown_keys() {
        let p = PlatformFile {
            name: "test".into(),
            clock_ghz: 2.6,
            cores_per_socket: 2,
            llc_ways: 16,
            llc_slices: 1,
            llc_mib_per_slice: 32.0,
            llc_inclusive: false,
            l2_kib: 1024,
            l2_ways: 8,
            ddio_default_mask: 0,
            ddio_mask_rule: "contiguous".into(),
            l1_latency_ns: 1.2,
            l2_latency_ns: 4.0,
            llc_latency_ns: 15.0,
            dram_latency_ns: 100.0,
            c2c_latency_ns: 60.0,
            memory_bandwidth_gbyte_s: 20.0,
        };
        let text = p.to_toml(&["measured by a test".into()]).unwrap();
        assert!(text.starts_with("# measured by a test\n"));
        let back: PlatformFile = toml::from_str(&text).unwrap();
        assert_eq!(back, p);
        let table: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(table.len(), 17);
        assert!(toml::from_str::<PlatformFile>(&format!("{text}extra = 1\n")).is_err());
        let mut bad = p.clone();
        bad.llc_slices = 0;
        assert!(bad.to_toml(&[]).unwrap_err().to_string().starts_with("llc_slices = 0"));
    }
}
