//! The smallest complete scenario, shared by the integration tests: one NIC on 1500 B traffic and
//! one L2 forwarder, with the given measured and warm-up time and extra `[apps.fwd]` keys.
pub fn minimal(duration_us: u32, warmup_us: u32, app_extra: &str) -> String {
    format!(
        r#"
[run]
duration_us = {duration_us}
warmup_us = {warmup_us}
[nics.nic0]
[traffic.t0]
nic = "nic0"
packet_size = 1500
[apps.fwd]
kind = "l2fwd"
nic = "nic0"
{app_extra}
"#
    )
}
