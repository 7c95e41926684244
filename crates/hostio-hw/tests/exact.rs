//! Exact values of the coherent-link and descriptor-ring models, CPUID decoding and the summary
//! statistics, at points the other tests do not reach. Each
//! value was computed by the model as it stands; each assertion fails if the term it names is
//! dropped or changed.
use hostio_hw::coherent::*;
use hostio_hw::geometry::*;
use hostio_hw::ring::{self, RingConfig};
use hostio_hw::util::Summary;

fn link() -> LinkParams {
    LinkParams { line_transfer_ns: 100.0, mlp: 4.0, desc_cpu_ns: 0.0 }
}

fn shape(signaling: Signaling, layout: Layout, batch: u32, pool: Pool, payload_bytes: u32) -> RingShape {
    RingShape { signaling, layout, batch, pool, payload_bytes }
}

/// Per-queue pools of the grouped layout at a batch of 8 hold 4 lines.
#[test]
fn a_queue_pool_holds_two_lines_per_group_of_four() {
    assert_eq!(line_counts(&shape(Signaling::Inline, Layout::Grouped, 8, Pool::Queues, 0)).pool_lines, 4.0);
}

/// A 1500 B payload with 100 ns line transfers and 4 in flight: two serial transfers and 775 ns
/// one way.
#[test]
fn a_payload_adds_its_lines_to_the_one_way_time() {
    let r = predict(&shape(Signaling::Inline, Layout::Padded, 1, Pool::Shared, 1500), &link());
    assert_eq!((r.serial_transfers, r.one_way_ns), (2.0, 775.0));
}

/// Doorbell signaling, padded layout, batches of one, 100 ns line transfers: 4 M descriptors/s.
#[test]
fn the_doorbells_lines_bound_the_rate() {
    assert_eq!(predict(&shape(Signaling::Doorbell, Layout::Padded, 1, Pool::Shared, 0), &link()).max_mdesc_per_s, 4.0);
}

#[test]
fn a_window_smaller_than_the_batch_is_refused() {
    let cfg: RingConfig = serde_json::from_str(r#"{"signaling":"inline","layout":"padded","batch":8,"window":4}"#).unwrap();
    assert!(cfg.validate().unwrap_err().to_string().starts_with("window = 4"));
}

/// Throughput in Gb/s is the descriptor rate times the payload (needs two CPUs).
#[test]
fn ring_throughput_is_the_rate_times_the_payload() {
    if hostio_hw::util::allowed_cpus().len() < 2 {
        return;
    }
    let cfg: RingConfig =
        serde_json::from_str(r#"{"signaling":"inline","layout":"padded","batch":1,"payload_bytes":64,"window":8,"duration_ms":4}"#).unwrap();
    let r = ring::run(&cfg).unwrap();
    let (g, want) = (r.gbps.unwrap(), r.mdesc_per_s * 64.0 * 8.0 / 1e3);
    assert!((g - want).abs() <= 1e-12 * want, "{g} vs {want}");
}

/// CPUID leaf 4: shared by EAX bits 14..25 plus one (64 CPUs), and the size ways × partitions ×
/// line × sets (11 × 2 × 64 × 36864); a CPUID L3's inclusiveness survives the merge with sysfs,
/// which has none.
#[test]
fn cpuid_leaf_fields_and_inclusiveness() {
    let c = decode_cache_leaf(3 | (3 << 5) | (63 << 14), 63 | (1 << 12) | (10 << 22), 36864 - 1, 0x4).unwrap();
    assert_eq!((c.size_bytes, c.shared_by), (51_904_512, 64));
    let c = decode_cache_leaf(3 | (3 << 5), 63 | (10 << 22), 36864 - 1, 0x2).unwrap();
    let mut s = c.clone();
    s.inclusive = None;
    let g = Geometry {
        vendor: "GenuineIntel".into(),
        brand: String::new(),
        family: 6,
        model: 85,
        stepping: 4,
        cpuid_cache_leaf: Some(4),
        cpuid: vec![c],
        sysfs: vec![s],
        hypervisor: false,
        levels: Levels::default(),
    };
    assert_eq!(g.cache(3).unwrap().inclusive, Some(true));
}

/// The median of an even count takes the upper middle sample (nearest rank, rounded); the spread
/// is p90 over the median.
#[test]
fn summary_median_and_spread() {
    assert_eq!(Summary::of(&[1.0, 2.0, 3.0, 4.0]).median, 3.0);
    let v: Vec<f64> = (1..=101).map(|x| x as f64).collect();
    assert_eq!(Summary::of(&v).spread(), 80.0 / 51.0);
}
