//! The NIC attachments' mechanisms, each tested so that removing it fails the test.
use hostio_sim::{run_text, SimResult};

/// One core forwarding `size` B frames at `rate` Gb/s through NIC `nic0` with `nic_extra` keys
/// (`attachment = ...` and its tables), on `preset`.
fn scenario(preset: &str, size: u32, rate: u32, nic_extra: &str, traffic_extra: &str, more: &str) -> String {
    format!(
        r#"
[run]
duration_us = 300
warmup_us = 300
[platform]
preset = "{preset}"
[nics.nic0]
{nic_extra}
[traffic.t0]
nic = "nic0"
packet_size = {size}
rate_gbps = {rate}
{traffic_extra}
[apps.fwd]
kind = "l2fwd"
nic = "nic0"
{more}
"#
    )
}

fn run(text: &str) -> SimResult {
    run_text(text, &[], None).expect("valid scenario")
}

/// Unloaded: isolated 64 B frames at 1 Gb/s.
fn idle(preset: &str, nic_extra: &str) -> SimResult {
    run(&scenario(preset, 64, 1, nic_extra, "train_packets = 1", ""))
}

fn p50(r: &SimResult) -> f64 {
    r.metrics.latency_ns.p50.expect("packets completed")
}

fn extra(r: &SimResult, key: &str) -> f64 {
    r.metrics.nics["nic0"].attachment_metrics[key].get()
}

const ICX: &str = "icelake-silver-4314";
const SKX: &str = "skylake-gold-6140";

#[test]
fn coherent_nic_keeps_the_payload_in_its_cache() {
    // 1500 B frames are 24 lines, but a forwarder only touches the completion and the header: only
    // those cross to the host; the rest stays in the NIC's cache and is sent from there.
    let r = run(&scenario(ICX, 1500, 10, "attachment = \"coherent\"", "", ""));
    let host = extra(&r, "host_line_transfers_per_packet");
    let nic = extra(&r, "nic_line_transfers_per_packet");
    assert!((1.0..=3.0).contains(&host), "host transfers per packet {host}");
    assert!(nic <= 4.0, "NIC transfers per packet {nic}");
    assert!(r.metrics.pcie_write_lines == 0, "no DMA writes through the I/O hub");
    assert!(r.metrics.nics["nic0"].pcie_d2h_utilization.is_none());
}

#[test]
fn inline_signaling_removes_the_tail_line_round_trip() {
    let inline = idle(ICX, "attachment = \"coherent\"");
    let bell = idle(ICX, "attachment = \"coherent\"\n[nics.nic0.coherent]\nsignaling = \"doorbell\"");
    // The tail line is taken back by the NIC and read by the core: two transfers of 114 ns.
    assert!(p50(&bell) - p50(&inline) >= 1.5 * 114.0, "doorbell {} vs inline {}", p50(&bell), p50(&inline));
}

#[test]
fn descriptor_layouts_share_lines_under_load() {
    // Trains of 32 frames: grouped and packed put four descriptors in a line, padded one.
    let lines = |layout: &str| {
        let r = run(&scenario(ICX, 64, 2, &format!("attachment = \"coherent\"\n[nics.nic0.coherent]\nlayout = \"{layout}\""), "", ""));
        (extra(&r, "nic_line_transfers_per_packet"), extra(&r, "host_line_transfers_per_packet"))
    };
    let (padded, grouped) = (lines("padded"), lines("grouped"));
    assert!(padded.0 >= grouped.0 + 0.5 && padded.1 >= grouped.1 + 0.5, "padded {padded:?} grouped {grouped:?}");
}

#[test]
fn reader_homed_rings_cost_host_memory_reads() {
    let writer = run(&scenario(ICX, 64, 5, "attachment = \"coherent\"", "", ""));
    let reader = run(&scenario(ICX, 64, 5, "attachment = \"coherent\"\n[nics.nic0.coherent]\nhoming = \"reader\"", "", ""));
    assert!(reader.metrics.memory_read_gbps > writer.metrics.memory_read_gbps + 1.0, "{} vs {}", reader.metrics.memory_read_gbps, writer.metrics.memory_read_gbps);
}

#[test]
fn coherent_nic_beats_pcie_when_unloaded() {
    let pcie = idle(ICX, "");
    let cc = idle(ICX, "attachment = \"coherent\"");
    assert!(p50(&cc) < 0.6 * p50(&pcie), "coherent {} vs PCIe {}", p50(&cc), p50(&pcie));
}

#[test]
fn pcie_tx_pays_the_doorbell_and_descriptor_round_trip() {
    // Same DDIO rules and cache work, but the on-die NIC has no link: the PCIe one pays the RX
    // DMA write, the doorbell, the descriptor read and the payload read round trips.
    let pcie = idle(SKX, "");
    let die = idle(SKX, "attachment = \"integrated\"");
    assert!(p50(&pcie) - p50(&die) >= 1200.0, "PCIe {} vs integrated {}", p50(&pcie), p50(&die));
    assert!(die.metrics.pcie_write_hit_rate.is_some(), "the on-die NIC's writes go through DDIO");
    let link = |r: &SimResult| r.metrics.apps["fwd"].latency_breakdown_ns["link"].expect("packets");
    assert!(link(&pcie) >= 1000.0 && link(&die) < 200.0, "link parts {} {}", link(&pcie), link(&die));
}

#[test]
fn an_on_die_nic_reads_a_partial_last_line_that_goes_to_dram_first() {
    // Unloaded frames through an on-die NIC: with DDIO off the last line of a 1024 B frame (1020 B
    // after the FCS) is read from DRAM before it is merged; a frame of whole lines (1028 B: 1024 B)
    // is not, and neither is anything allocated in the LLC. (DDIO off also sends the NIC's
    // transmit reads to DRAM, at both sizes: the difference between the sizes is the merge.)
    let link = |size: u32, ddio: &str| {
        let r = run(&scenario(SKX, size, 1, &format!("attachment = \"integrated\"\n{ddio}"), "train_packets = 1", ""));
        r.metrics.apps["fwd"].latency_breakdown_ns["link"].expect("packets")
    };
    let off = |size| link(size, "ddio = false") - link(size, "");
    assert!(off(1024) - off(1028) >= 50.0, "DDIO off adds {} ns at 1024 B, {} ns at 1028 B", off(1024), off(1028));
}

#[test]
fn latency_breakdown_adds_up() {
    let copy = |nic: &str| {
        let text = scenario(SKX, 1024, 1, nic, "train_packets = 1", "").replace("kind = \"l2fwd\"", "kind = \"copy\"");
        run(&text)
    };
    let mc = "attachment = \"memory-channel\"";
    let runs = [
        ("pcie", idle(SKX, "")),
        ("coherent", idle(SKX, "attachment = \"coherent\"")),
        ("memory-channel", idle(SKX, mc)),
        ("pcie copy", copy("")),
        ("memory-channel clone", copy(mc)),
        ("memory-channel copy", copy(&format!("{mc}\n[nics.nic0.netdimm]\nclone = \"copy\""))),
    ];
    for (nic, r) in runs {
        let b = &r.metrics.apps["fwd"].latency_breakdown_ns;
        let parts: f64 = b.values().map(|v| v.expect("packets")).sum();
        let total = p50(&r);
        assert!((0.8 * total..=1.25 * total).contains(&parts), "{nic}: parts {parts} vs p50 {total}");
        // Unloaded, the time is the path's, not waiting: each part is measured, not left over.
        let part = |k: &str| b[k].expect("packets");
        for k in ["nic", "link", "memory", "core"] {
            assert!(part(k) > 0.0, "{nic}: {k} is 0 in {b:?}");
        }
        assert!(part("queueing") < 0.5 * total, "{nic}: queueing {} of {total}", part("queueing"));
        assert_eq!(part("copy") > 0.0, nic.contains("cop") || nic.contains("clone"), "{nic}: {b:?}");
    }
}

/// Isolated 64 B frames at 0.25 Gb/s through a copying core and a 40 Gb/s memory-channel NIC
/// with `tx` TX and `rx` RX descriptors.
fn netdimm_idle(tx: u32, rx: u32) -> SimResult {
    let nic = format!("attachment = \"memory-channel\"\nline_rate_gbps = 40\ntx_descriptors = {tx}\nrx_descriptors = {rx}");
    let text = scenario(SKX, 64, 1, &nic, "train_packets = 1", "").replace("kind = \"l2fwd\"", "kind = \"copy\"");
    run(&text.replace("rate_gbps = 1", "rate_gbps = 0.25").replace("duration_us = 300\nwarmup_us = 300", "duration_us = 1000\nwarmup_us = 300"))
}

#[test]
fn the_doorbell_waits_for_the_descriptor_writes() {
    // A memory-channel host flushes each TX descriptor line to the NIC, so the next write of
    // that line reads it back across the channel (~90 ns), and the NIC may look at the
    // descriptor only after the write completes: the packet waits for it in the queueing part
    // (173 ns; 111 ns without that wait: the TX burst call, the flushes).
    let queueing = netdimm_idle(1024, 1024).metrics.apps["fwd"].latency_breakdown_ns["queueing"].expect("packets");
    assert!(queueing >= 150.0, "queueing {queueing} ns");
}

#[test]
fn rings_handed_to_the_nic_start_out_of_the_host_caches() {
    // A ring the host flushes after each write is, in steady state, out of its caches at every
    // lap's first write. A short run that never wraps a 4096-entry TX ring must pay that as much
    // as one that wraps a 64-entry ring about seven times (~480 packets here).
    let (long, short) = (p50(&netdimm_idle(4096, 1024)), p50(&netdimm_idle(64, 1024)));
    assert!((long - short).abs() < 20.0, "p50 {long} ns with 4096 TX descriptors, {short} ns with 64");
    // Likewise the RX descriptor ring (one line per four descriptors): its re-reads cross the
    // channel whether or not the run wraps it.
    let chan = |rx| extra(&netdimm_idle(4096, rx), "channel_gbyte_s");
    let (long, short) = (chan(4096), chan(64));
    assert!((long / short - 1.0).abs() < 0.01, "channel {long} GB/s with 4096 RX descriptors, {short} with 64");
}

#[test]
fn a_clone_from_the_other_socket_costs_upi() {
    let text = |socket: u32| {
        let nic = format!("attachment = \"memory-channel\"\nsocket = {socket}");
        run(&scenario(SKX, 1024, 1, &nic, "train_packets = 1", "").replace("kind = \"l2fwd\"", "kind = \"copy\""))
    };
    let (local, remote) = (copy_part(&text(0)), copy_part(&text(1)));
    // The command, the completion poll and the read of the copy each cross UPI both ways: three
    // round trips, six of the Skylake preset's hops.
    let upi = hostio_sim::config::Platform::preset("skylake-gold-6140").unwrap().upi_latency_ns;
    assert!((remote - local - 6.0 * upi).abs() < 10.0, "{local} {remote}");
}

#[test]
fn ncache_serves_the_headers_the_host_reads() {
    let nd = idle(SKX, "attachment = \"memory-channel\"");
    let tiny = idle(SKX, "attachment = \"memory-channel\"\n[nics.nic0.netdimm]\nncache_kib = 1\nprefetch_lines = 0");
    assert!(extra(&nd, "ncache_hit_rate") > 0.8, "hit rate {}", extra(&nd, "ncache_hit_rate"));
    // A 1 KiB nCache still holds the few lines in flight at this load; headers read back at once
    // hit either way, so compare against a run whose headers are read long after (trains).
    assert!(extra(&tiny, "ncache_hit_rate") >= 0.0);
    let busy = |k: u32| {
        let r = run(&scenario(SKX, 64, 20, &format!("attachment = \"memory-channel\"\n[nics.nic0.netdimm]\nncache_kib = {k}"), "", ""));
        (extra(&r, "ncache_hit_rate"), r.metrics.throughput_gbps)
    };
    let (big, small) = (busy(256), busy(1));
    assert!(big.0 > small.0 + 0.2, "nCache hit rates 256 KiB {} vs 1 KiB {}", big.0, small.0);
}

#[test]
fn host_flushes_what_it_hands_to_a_memory_channel_nic() {
    let nd = "attachment = \"memory-channel\"";
    let per_packet = |r: &SimResult| extra(r, "host_flushes") / r.metrics.tx_packets as f64;
    // Unloaded, one 64 B frame per burst: its line, its TX descriptor line, a quarter of an RX
    // descriptor line (four to a line) and the invalidation of its completion line: 3.25.
    let one = per_packet(&idle(SKX, nd));
    assert!((3.2..=3.3).contains(&one), "{one} flushes per packet");
    // 1500 B: every line of the frame (24), as NetDIMM's driver flushes the whole buffer.
    let big = per_packet(&run(&scenario(SKX, 1500, 1, nd, "train_packets = 1", "")));
    assert!((26.2..=26.3).contains(&big), "{big} flushes per 1500 B packet");
    // Loaded, a burst reads up to eight completions from each line it invalidates: ~2.4 (bursts
    // straddle completion lines; 3.25 if every completion were invalidated).
    let busy = per_packet(&run(&scenario(SKX, 64, 20, nd, "", "")));
    assert!(busy < 2.8, "{busy} flushes per packet under load");
}

#[test]
fn a_dirty_flush_waits_for_its_write_back_to_reach_the_memory_controller() {
    // Unloaded, the RX burst waits for the completion line's invalidation, an LLC access (26 ns
    // on Skylake), and the doorbell for the rewritten header's flush: its write-back's trip
    // through the LLC to the controller, a DRAM read's load-to-use 90 ns without the array
    // access (tRCD + tCL = 28.32 ns): ~62 ns; ~88 ns in all. A co-runner loading the socket's memory
    // lengthens the trip, and a core on the other socket adds a UPI round trip (two hops) to
    // the write-back.
    let hog = "[apps.hog]\nkind = \"cache-hungry\"\ncores = 8\nworking_set_mib = 256\naccesses_per_us = 400";
    let flush = |more: &str| {
        let r = run(&scenario(SKX, 64, 1, "attachment = \"memory-channel\"", "train_packets = 1", more));
        r.metrics.apps["fwd"].latency_breakdown_ns["flush"].expect("packets")
    };
    let (idle, loaded, remote) = (flush(""), flush(hog), flush("socket = 1"));
    assert!((80.0..=95.0).contains(&idle), "flush part {idle} ns");
    assert!(loaded > idle + 5.0, "flush part {loaded} ns under load vs {idle} ns idle");
    let upi = hostio_sim::config::Platform::preset("skylake-gold-6140").unwrap().upi_latency_ns;
    assert!((remote - idle - 2.0 * upi).abs() < 5.0, "flush part {remote} ns from the other socket vs {idle} ns");
}

#[test]
fn the_memory_channel_is_shared_with_the_host() {
    // A co-runner loading the socket's DRAM slows every core's DRAM accesses; the memory-channel
    // NIC's header and completion reads share that load on its channel, where a PCIe NIC's come
    // from the LLC: the forwarder's memory part grows more behind the memory channel.
    // The forwarder has no working set of its own here, so only its header reads can slow down.
    let hog = "accesses_per_packet = 0\n[apps.hog]\nkind = \"cache-hungry\"\ncores = 8\nworking_set_mib = 256\naccesses_per_us = 400";
    let mem = |nic: &str, more: &str| {
        let r = run(&scenario(SKX, 64, 1, nic, "train_packets = 1", more));
        r.metrics.apps["fwd"].latency_breakdown_ns["memory"].expect("packets")
    };
    let nd = "attachment = \"memory-channel\"";
    let quiet = "accesses_per_packet = 0";
    let (nd_rise, pcie_rise) = (mem(nd, hog) - mem(nd, quiet), mem("", hog) - mem("", quiet));
    assert!(nd_rise > pcie_rise + 10.0, "memory part rises by {nd_rise} ns (memory channel) vs {pcie_rise} ns (PCIe)");
}

#[test]
fn attachment_tables_must_match_the_attachment() {
    let e = run_text(&scenario(SKX, 64, 1, "[nics.nic0.coherent]\nlayout = \"packed\"", "", ""), &[], None).unwrap_err();
    assert!(e.to_string().contains("nics.nic0.coherent") && e.to_string().contains("pcie"), "{e}");
    let e = run_text(&scenario(SKX, 64, 1, "attachment = \"coherent\"\n[nics.nic0.netdimm]\nncache_kib = 64", "", ""), &[], None).unwrap_err();
    assert!(e.to_string().contains("nics.nic0.netdimm"), "{e}");
}

#[test]
fn every_attachment_runs_every_scenario_kind() {
    let kinds = ["pcie", "integrated", "coherent", "memory-channel"];
    for k in kinds {
        for (extra_nic, more) in [
            ("pause_frames = true\nrx_descriptors = 64", ""),
            ("socket = 1", ""),
            ("", "cores = 2\n[apps.hog]\nkind = \"cache-hungry\"\nworking_set_mib = 8\naccesses_per_us = 50"),
            ("line_rate_gbps = 200", "cores = 2"),
            ("", "KIND stateful-chain"),
            ("", "KIND copy"),
        ] {
            let mut text = scenario(SKX, 1500, 100, &format!("attachment = \"{k}\"\n{extra_nic}"), "", "");
            match more.strip_prefix("KIND ") {
                Some(kind) => text = text.replace("kind = \"l2fwd\"", &format!("kind = \"{kind}\"")),
                None => text.push_str(more),
            }
            let mut r = hostio_sim::Run::new(&text, &[], None).expect("valid");
            while !r.step(1e9).0 {}
            let bad = r.check_invariants();
            assert!(bad.is_empty(), "{k} {extra_nic} {more}: {bad:?}");
            let res = r.finish();
            assert!(res.metrics.throughput_gbps > 1.0, "{k} {extra_nic}: {}", res.metrics.throughput_gbps);
        }
    }
}

#[test]
fn frames_stay_on_the_dimm_and_only_host_accesses_cross_the_channel() {
    // 1500 B frames are 24 lines written and read by the NIC inside the DIMM; the host crosses
    // the channel only for the lines it touches (header, completion, flushed write-backs).
    let r = run(&scenario(SKX, 1500, 20, "attachment = \"memory-channel\"", "", ""));
    let (ch, dram) = (extra(&r, "channel_gbyte_s"), extra(&r, "nic_dram_gbyte_s"));
    assert!(ch > 0.0 && dram > 5.0 * ch, "channel {ch} GB/s, DIMM DRAM {dram} GB/s");
}

#[test]
fn a_memory_channel_nic_on_the_other_socket_costs_upi() {
    let local = idle(SKX, "attachment = \"memory-channel\"");
    let remote = run(&scenario(SKX, 64, 1, "attachment = \"memory-channel\"\nsocket = 1", "train_packets = 1", ""));
    assert!(p50(&remote) > p50(&local) + 150.0, "remote {} vs local {}", p50(&remote), p50(&local));
}

#[test]
fn coherent_nics_count_their_own_transfers() {
    let one = run(&scenario(ICX, 64, 5, "attachment = \"coherent\"", "", ""));
    let text = scenario(ICX, 64, 5, "attachment = \"coherent\"", "", "")
        + "[nics.nic1]\nattachment = \"coherent\"\n[traffic.t1]\nnic = \"nic1\"\npacket_size = 64\nrate_gbps = 1\n[apps.fwd1]\nkind = \"l2fwd\"\nnic = \"nic1\"\n";
    let two = run(&text);
    let host = |r: &SimResult, n: &str| r.metrics.nics[n].attachment_metrics["host_line_transfers_per_packet"].get();
    assert!((host(&two, "nic0") - host(&one, "nic0")).abs() < 0.2, "{} vs {}", host(&two, "nic0"), host(&one, "nic0"));
    assert!(host(&two, "nic1") < 3.0, "{}", host(&two, "nic1"));
}

#[test]
fn pcie_only_keys_are_refused_on_other_attachments() {
    for (nic, key) in [
        ("attachment = \"coherent\"\ndesign = \"simple\"", "nics.nic0.design"),
        ("attachment = \"integrated\"\n[nics.nic0.pcie]\nlanes = 4", "nics.nic0.pcie"),
        ("attachment = \"memory-channel\"\nddio = true", "nics.nic0.ddio"),
        ("[nics.nic0.coherent]", "nics.nic0.coherent"),
        ("attachment = \"coherent\"\ncoherent = [\"cxl\"]", "nics.nic0.coherent"),
    ] {
        let e = run_text(&scenario(SKX, 64, 1, nic, "", ""), &[], None).unwrap_err();
        assert!(e.to_string().starts_with(key), "{nic}: {e}");
    }
}

#[test]
fn the_dimm_dram_is_bounded_too() {
    // Eight cores at 64 B with the nPrefetcher asking for 64 lines per miss: the DIMM's DRAM
    // (DDR4-2400 chips, 19.2 GB/s) saturates but does not exceed its rate.
    let r = run(&scenario(SKX, 64, 100, "attachment = \"memory-channel\"\nrx_descriptors = 256\n[nics.nic0.netdimm]\nprefetch_lines = 64\nncache_kib = 1", "", "cores = 8"));
    let dram = extra(&r, "nic_dram_gbyte_s");
    assert!(dram > 1.0 && dram <= 19.2 * 1.02, "DIMM DRAM {dram} GB/s");
}

#[test]
fn a_resolved_nic_lists_only_its_attachments_keys() {
    for (nic, has, lacks) in [
        ("", &["design", "pcie"][..], &["coherent", "netdimm"][..]),
        ("attachment = \"coherent\"", &["coherent"][..], &["design", "pcie", "netdimm"][..]),
        ("attachment = \"memory-channel\"", &["netdimm"][..], &["design", "pcie", "coherent"][..]),
        ("attachment = \"integrated\"", &[][..], &["design", "pcie", "coherent", "netdimm"][..]),
    ] {
        let sc = hostio_sim::parse_scenario(&scenario(SKX, 64, 1, nic, "", ""), &[]).expect("valid");
        let v = serde_json::to_value(&sc.nics["nic0"]).expect("serialisable");
        for k in has {
            assert!(v.get(k).is_some(), "{nic}: {k} missing in {v}");
        }
        for k in lacks {
            assert!(v.get(k).is_none(), "{nic}: {k} listed in {v}");
        }
    }
}

/// An unloaded `copy` app on a memory-channel NIC with `netdimm` keys, `size` B frames.
fn copying(size: u32, netdimm: &str) -> SimResult {
    let nic = format!("attachment = \"memory-channel\"\n[nics.nic0.netdimm]\n{netdimm}");
    run(&scenario(SKX, size, 1, &nic, "train_packets = 1", "").replace("kind = \"l2fwd\"", "kind = \"copy\""))
}

fn copy_part(r: &SimResult) -> f64 {
    r.metrics.apps["fwd"].latency_breakdown_ns["copy"].expect("packets")
}

#[test]
fn a_memory_channel_nic_clones_frames_in_its_dram() {
    // The subarray allocator: every clone is FPM, the same time at any size.
    let (small, big) = (copying(256, ""), copying(1500, ""));
    assert!(extra(&big, "clones_fpm") > 0.0 && extra(&big, "clones_psm") == 0.0 && extra(&big, "clones_gcm") == 0.0);
    assert!((copy_part(&big) - copy_part(&small)).abs() < 5.0, "{} {}", copy_part(&small), copy_part(&big));
    // The app then reads its copy, which is in the DIMM and not in the nCache: a miss per packet
    // that forwarding alone does not have (both also look up the descriptor lines they rewrite).
    let fwd = run(&scenario(SKX, 1500, 1, "attachment = \"memory-channel\"", "train_packets = 1", ""));
    assert!(extra(&big, "ncache_hit_rate") < extra(&fwd, "ncache_hit_rate") - 0.1, "{} {}", extra(&big, "ncache_hit_rate"), extra(&fwd, "ncache_hit_rate"));
    // Placed anywhere, most clones move every line: slower for large frames.
    let any = copying(1500, "allocator = \"any\"");
    assert!(extra(&any, "clones_psm") > 0.0 && extra(&any, "clones_gcm") > 0.0);
    assert!(extra(&any, "clones_fpm") <= 0.1 * (extra(&any, "clones_psm") + extra(&any, "clones_gcm")), "{:?}", any.metrics.nics["nic0"].attachment_metrics);
    assert!(copy_part(&any) > copy_part(&big) + 20.0, "{} {}", copy_part(&any), copy_part(&big));
    // The core's copy reads every line over the channel: it grows with the frame and loses to
    // the clone for large frames.
    let (cs, cb) = (copying(256, "clone = \"copy\""), copying(1500, "clone = \"copy\""));
    assert!(!cb.metrics.nics["nic0"].attachment_metrics.contains_key("clones_fpm"));
    assert!(copy_part(&cb) > 2.0 * copy_part(&cs), "{} {}", copy_part(&cs), copy_part(&cb));
    assert!(copy_part(&cb) > copy_part(&big), "{} {}", copy_part(&cb), copy_part(&big));
}

#[test]
fn a_copy_app_pays_its_copy_on_every_attachment() {
    for k in ["pcie", "integrated", "coherent", "memory-channel"] {
        let text = scenario(SKX, 1024, 1, &format!("attachment = \"{k}\""), "train_packets = 1", "");
        let fwd = run(&text);
        let copy = run(&text.replace("kind = \"l2fwd\"", "kind = \"copy\""));
        assert_eq!(fwd.metrics.apps["fwd"].latency_breakdown_ns["copy"], Some(0.0), "{k}");
        assert!(copy_part(&copy) > 20.0, "{k}: {}", copy_part(&copy));
        // (p50s come from histogram buckets a few % wide.)
        assert!(p50(&copy) > p50(&fwd), "{k}: {} vs {}", p50(&copy), p50(&fwd));
    }
}

#[test]
fn an_overloaded_memory_channel_nic_runs_at_its_dram_capacity() {
    // Offered far beyond the DIMM's DRAM: the NIC stops taking frames once its DRAM backlog
    // passes the slack, so frames drop in the NIC and throughput stays at the DRAM's capacity
    // instead of collapsing behind an unbounded backlog.
    let nic = "attachment = \"memory-channel\"\nline_rate_gbps = 800";
    let r = run(&scenario(SKX, 1500, 800, nic, "", "cores = 18"));
    assert!(r.metrics.throughput_gbps > 40.0, "{}", r.metrics.throughput_gbps);
    assert!(r.metrics.dropped_packets > 0);
    // Many cores with deep rings and a copy app: cores run ahead of the event clock, and the
    // channel and DRAM must not make earlier requests wait for later-dated ones.
    let nic = "attachment = \"memory-channel\"\nline_rate_gbps = 40\nrx_descriptors = 65536";
    let text = scenario(SKX, 1500, 40, nic, "", "cores = 18").replace("kind = \"l2fwd\"", "kind = \"copy\"");
    let r = run(&text.replace("duration_us = 300", "duration_us = 2000"));
    assert!(r.metrics.throughput_gbps > 0.95 * r.metrics.offered_gbps, "{} of {}", r.metrics.throughput_gbps, r.metrics.offered_gbps);
}

#[test]
fn clone_keys_are_refused_where_nothing_is_cloned() {
    let mc = "attachment = \"memory-channel\"\n[nics.nic0.netdimm]\n";
    let err = |nic: &str, kind: &str| {
        let text = scenario(SKX, 1024, 1, nic, "", "").replace("kind = \"l2fwd\"", &format!("kind = \"{kind}\""));
        run_text(&text, &[], None).err().map(|e| e.to_string())
    };
    assert!(err(&format!("{mc}clone = \"copy\""), "l2fwd").expect("refused").contains("nics.nic0.netdimm.clone"));
    assert!(err(&format!("{mc}allocator = \"any\""), "l2fwd").expect("refused").contains("nics.nic0.netdimm.allocator"));
    assert!(err(&format!("{mc}clone = \"copy\"\nallocator = \"any\""), "copy").expect("refused").contains("nics.nic0.netdimm.allocator"));
    assert_eq!(err(&format!("{mc}clone = \"copy\""), "copy"), None);
    assert_eq!(err(&format!("{mc}allocator = \"any\""), "copy"), None);
}

/// A PCIe NIC's DMA read that misses the host's caches pays the loaded latency of the buffer's
/// home DRAM (the platform's) in place of the latency fit's LLC part (25 ns). With DDIO off every
/// TX payload read misses (and every partial-line RX write pays the fit's fixed 53 ns
/// read-for-ownership): at 90 ns of DRAM the link part is 65 + 53 ns longer than with DDIO on;
/// 300 ns more DRAM latency lengthens it by that much; a co-runner loading the DRAM lengthens it
/// too. With DDIO on the reads hit, and neither shows.
#[test]
fn pcie_reads_that_miss_pay_the_platform_dram_latency() {
    let dir = std::env::temp_dir().join(format!("hostio-dram-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = hostio_sim::config::Platform::preset(SKX).unwrap().to_file_toml(&[]).unwrap();
    let hog = "[apps.hog]\nkind = \"cache-hungry\"\ncores = 8\nworking_set_mib = 256\naccesses_per_us = 400";
    let curved = |ddio: bool, dram_ns: u32, more: &str, curve: &str| {
        let path = dir.join(format!("dram{dram_ns}-{}.toml", curve.len()));
        let text: String = base
            .lines()
            .map(|l| match l {
                _ if l.starts_with("dram_latency_ns = ") => format!("dram_latency_ns = {dram_ns}\n"),
                _ if l.starts_with("dram_load_curve = ") && !curve.is_empty() => format!("dram_load_curve = {curve}\n"),
                _ => format!("{l}\n"),
            })
            .collect();
        std::fs::write(&path, text).unwrap();
        let preset = format!("file:{}", path.display());
        let r = run(&scenario(&preset, 1500, 1, &format!("ddio = {ddio}"), "train_packets = 1", more));
        r.metrics.apps["fwd"].latency_breakdown_ns["link"].expect("packets")
    };
    let link = |ddio: bool, dram_ns: u32, more: &str| curved(ddio, dram_ns, more, "");
    let (off, on) = (link(false, 90, ""), link(true, 90, ""));
    assert!((off - on - 118.0).abs() <= 5.0, "DDIO off − on at 90 ns: {} ns", off - on);
    let slower = link(false, 390, "") - off;
    assert!((290.0..=310.0).contains(&slower), "DDIO off, DRAM +300 ns: +{slower} ns");
    let loaded = link(false, 90, hog) - off;
    assert!(loaded >= 8.0, "DDIO off, DRAM loaded: +{loaded} ns");
    // The load's cost is the platform's curve: none with a flat one, more with a steeper one.
    let flat = curved(false, 90, hog, "[[0.0, 1.0], [10.0, 1.0]]") - off;
    let steep = curved(false, 90, hog, "[[0, 1], [0.1, 2], [10, 3]]") - off;
    assert!(flat.abs() < 3.0 && steep > loaded + 20.0, "flat +{flat} ns, MLC's +{loaded} ns, steep +{steep} ns");
    let hit = (link(true, 390, "") - on, link(true, 90, hog) - on);
    assert!(hit.0.abs() < 5.0 && hit.1.abs() < 5.0, "DDIO on: {hit:?} ns");
    std::fs::remove_dir_all(&dir).ok();
}

/// The forwarder prefetches a burst's header lines before it processes the packets (FastClick's
/// `FromDPDKDevice`), without waiting for them. Behind a coherent NIC, where each header is a line
/// transfer from the NIC's cache (114 ns on Ice Lake), the transfers overlap: one saturated core
/// forwards ~9.5 Mpps of 64 B frames, where pulling each header as its packet is processed held
/// it to ~4.5 Mpps. A lone packet still waits for its header: its memory part is ~82 ns longer
/// than behind a PCIe NIC, a line transfer (114 ns, load-to-use) in place of an LLC hit (32 ns).
#[test]
fn a_burst_header_transfers_overlap() {
    let r = run(&scenario(ICX, 64, 100, "attachment = \"coherent\"\nrx_descriptors = 512", "", ""));
    let mpps = r.metrics.throughput_mpps;
    assert!(mpps > 7.0, "{mpps} Mpps");
    let mem = |r: &SimResult| r.metrics.apps["fwd"].latency_breakdown_ns["memory"].expect("packets");
    let (pcie, cc) = (idle(ICX, ""), idle(ICX, "attachment = \"coherent\""));
    let longer = mem(&cc) - mem(&pcie);
    assert!((70.0..=95.0).contains(&longer), "coherent memory part {} vs PCIe {}", mem(&cc), mem(&pcie));
}


#[test]
fn a_core_that_goes_idle_after_a_tx_burst_wakes_only_once_that_burst_is_done() {
    // A memory-channel NIC's driver flushes every frame it hands over before the doorbell, so
    // a TX burst takes the core a while. A core that finds its RX ring empty after such a burst
    // goes idle; a frame arriving before the burst's doorbell must not start a new RX burst in
    // the past (that overlapped the two bursts and forwarded more than one core can).
    let mpps = |rate: u32| run(&scenario(SKX, 64, rate, "attachment = \"memory-channel\"", "", "")).metrics.throughput_mpps;
    let ceiling = mpps(20);
    let below = mpps(5);
    // (The early wake-up forwarded 11 % more.) One 32-frame burst more or less in the window
    // is the phase of the bursts against its edges: 0.11 Mpps over 300 µs.
    let burst = 32.0 / 300.0;
    assert!(below <= ceiling + burst + 1e-9, "{below} Mpps forwarded at 5 Gb/s, above the saturated core's {ceiling} Mpps");
}

/// The on-die NIC's read that misses the host's caches pays the DRAM's load-to-use latency in
/// place of its LLC access (not both), and so does its partial-line write that does not allocate
/// (its read-for-ownership): with DDIO off, a 1500 B frame's link part is longer than with DDIO on
/// by twice DRAM − LLC on the preset (64 ns each on Skylake-SP).
#[test]
fn an_on_die_nic_miss_pays_dram_in_place_of_the_llc() {
    let plat = hostio_sim::config::Platform::preset(SKX).unwrap();
    let link = |ddio: bool| {
        let r = run(&scenario(SKX, 1500, 1, &format!("attachment = \"integrated\"\nddio = {ddio}"), "train_packets = 1", ""));
        r.metrics.apps["fwd"].latency_breakdown_ns["link"].expect("packets")
    };
    let (off, on) = (link(false), link(true));
    let expect = 2.0 * (plat.dram_latency_ns - plat.llc_latency_ns);
    assert!((off - on - expect).abs() <= 3.0, "DDIO off − on: {} ns, expected {expect}", off - on);
}
