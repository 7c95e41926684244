//! Cache geometry from the two sources Linux users have: CPUID and sysfs.
//!
//! **CPUID.** Intel's deterministic cache parameters leaf 4 and AMD's identical-format leaf
//! 0x8000001D (present when `topoext`, CPUID 0x80000001 ECX bit 22, is set) return one
//! sub-leaf per cache until the type field is 0 (Intel SDM vol. 2A, "CPUID—Deterministic Cache
//! Parameters Leaf"; AMD APM vol. 3, appendix E):
//! EAX\[4:0\] type (1 data, 2 instruction, 3 unified), EAX\[7:5\] level, EAX\[25:14\] threads sharing
//! − 1; EBX\[11:0\] line size − 1, EBX\[21:12\] physical line partitions − 1, EBX\[31:22\] ways − 1;
//! ECX sets − 1; EDX bit 1 "cache inclusiveness" (1 = inclusive of lower levels).
//! Size = ways × partitions × line × sets.
//!
//! **sysfs.** `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size,
//! ways_of_associativity,number_of_sets,coherency_line_size,shared_cpu_list}`: the kernel's view
//! (itself from CPUID), without the inclusiveness bit. Inside a virtual machine both show what the
//! hypervisor chose to expose, which may differ from the host.
use crate::Result;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One cache as described by CPUID or sysfs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheInfo {
    pub level: u32,
    /// "data", "instruction" or "unified".
    pub kind: String,
    pub size_bytes: u64,
    pub ways: u32,
    pub sets: u32,
    pub line_bytes: u32,
    /// From CPUID EDX bit 1; `None` where the source does not say (sysfs).
    pub inclusive: Option<bool>,
    /// Logical CPUs sharing this cache (CPUID: maximum addressable IDs; sysfs: the list's length).
    pub shared_by: u32,
}

/// What the machine says about itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Geometry {
    pub vendor: String,
    pub brand: String,
    pub family: u32,
    pub model: u32,
    pub stepping: u32,
    /// Which CPUID leaf described the caches (4, 0x8000001D), or None.
    pub cpuid_cache_leaf: Option<u32>,
    pub cpuid: Vec<CacheInfo>,
    pub sysfs: Vec<CacheInfo>,
    pub hypervisor: bool,
    /// The merged view: L1 data, L2, L3 and the last level (sysfs sizes, CPUID inclusiveness).
    #[serde(default)]
    pub levels: Levels,
}

/// Data/unified caches by level, merged from both sources (see [`Geometry::cache`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Levels {
    pub l1d: Option<CacheInfo>,
    pub l2: Option<CacheInfo>,
    pub l3: Option<CacheInfo>,
    pub llc: Option<CacheInfo>,
}

impl Geometry {
    fn merge(&mut self) {
        self.levels = Levels { l1d: self.cache(1), l2: self.cache(2), l3: self.cache(3), llc: self.llc() };
    }

    /// Data/unified cache of a level, preferring sysfs sizes and CPUID's inclusiveness bit.
    pub fn cache(&self, level: u32) -> Option<CacheInfo> {
        let pick = |v: &[CacheInfo]| v.iter().find(|c| c.level == level && c.kind != "instruction").cloned();
        let from_cpuid = pick(&self.cpuid);
        match pick(&self.sysfs) {
            Some(mut c) => {
                c.inclusive = from_cpuid.and_then(|x| x.inclusive);
                Some(c)
            }
            None => from_cpuid,
        }
    }
    /// The last level: the highest level present.
    pub fn llc(&self) -> Option<CacheInfo> {
        (1..=4).rev().find_map(|l| self.cache(l))
    }
    pub fn is_intel(&self) -> bool {
        self.vendor == "GenuineIntel"
    }
}

/// Decode one CPUID leaf-4-format sub-leaf; `None` when the type field says "no more caches".
pub fn decode_cache_leaf(eax: u32, ebx: u32, ecx: u32, edx: u32) -> Option<CacheInfo> {
    let kind = match eax & 0x1F {
        0 => return None,
        1 => "data",
        2 => "instruction",
        3 => "unified",
        _ => "unknown",
    };
    let level = (eax >> 5) & 0x7;
    let line = (ebx & 0xFFF) + 1;
    let partitions = ((ebx >> 12) & 0x3FF) + 1;
    let ways = ((ebx >> 22) & 0x3FF) + 1;
    let sets = ecx.wrapping_add(1);
    Some(CacheInfo {
        level,
        kind: kind.into(),
        size_bytes: ways as u64 * partitions as u64 * line as u64 * sets as u64,
        ways,
        sets,
        line_bytes: line,
        inclusive: Some(edx & 0x2 != 0),
        shared_by: ((eax >> 14) & 0xFFF) + 1,
    })
}

#[cfg(target_arch = "x86_64")]
fn cpuid(leaf: u32, sub: u32) -> (u32, u32, u32, u32) {
    // `__cpuid_count` became a safe fn in recent Rust; the block keeps older toolchains happy.
    #[allow(unused_unsafe)]
    let r = unsafe { core::arch::x86_64::__cpuid_count(leaf, sub) };
    (r.eax, r.ebx, r.ecx, r.edx)
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid(_leaf: u32, _sub: u32) -> (u32, u32, u32, u32) {
    (0, 0, 0, 0)
}

fn regs_str(regs: &[u32]) -> String {
    let bytes: Vec<u8> = regs.iter().flat_map(|r| r.to_le_bytes()).collect();
    String::from_utf8_lossy(&bytes).trim_matches(char::from(0)).trim().to_string()
}

/// Query CPUID on the calling CPU (all CPUs of a socket agree on these leaves).
pub fn from_cpuid() -> (String, String, u32, u32, u32, Option<u32>, Vec<CacheInfo>, bool) {
    let (max_leaf, b, c, d) = cpuid(0, 0);
    let vendor = regs_str(&[b, d, c]);
    let (eax1, _, ecx1, _) = cpuid(1, 0);
    let base_family = (eax1 >> 8) & 0xF;
    let family = if base_family == 0xF { base_family + ((eax1 >> 20) & 0xFF) } else { base_family };
    let model = if base_family == 0x6 || base_family == 0xF {
        ((eax1 >> 16) & 0xF) << 4 | ((eax1 >> 4) & 0xF)
    } else {
        (eax1 >> 4) & 0xF
    };
    let stepping = eax1 & 0xF;
    let hypervisor = ecx1 & (1 << 31) != 0;
    let (max_ext, ..) = cpuid(0x8000_0000, 0);
    let brand = if max_ext >= 0x8000_0004 {
        let mut r = Vec::new();
        for l in 0x8000_0002..=0x8000_0004 {
            let (a, b, c, d) = cpuid(l, 0);
            r.extend([a, b, c, d]);
        }
        regs_str(&r)
    } else {
        String::new()
    };
    let leaf = if vendor == "GenuineIntel" && max_leaf >= 4 {
        Some(4)
    } else if vendor == "AuthenticAMD" && max_ext >= 0x8000_001D && (cpuid(0x8000_0001, 0).2 & (1 << 22)) != 0 {
        Some(0x8000_001D)
    } else {
        None
    };
    let mut caches = Vec::new();
    if let Some(l) = leaf {
        for sub in 0..16 {
            let (a, b, c, d) = cpuid(l, sub);
            match decode_cache_leaf(a, b, c, d) {
                Some(ci) => caches.push(ci),
                None => break,
            }
        }
    }
    (vendor, brand, family, model, stepping, leaf, caches, hypervisor)
}

fn read_trim(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

/// Parse "32K", "1024K", "32768K", "2M" as sysfs writes cache sizes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1u64 << 10),
        'M' | 'm' => (&s[..s.len() - 1], 1 << 20),
        'G' | 'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mult)
}

/// Count the CPUs of a list such as "0-3,8,10-11".
pub fn cpu_list_len(s: &str) -> u32 {
    s.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => b.trim().parse::<u32>().unwrap_or(0) + 1 - a.trim().parse::<u32>().unwrap_or(0),
            None => 1,
        })
        .sum()
}

/// Read `DIR/index*/` (normally `/sys/devices/system/cpu/cpu0/cache`). Missing directory → empty.
pub fn from_sysfs(dir: &Path) -> Vec<CacheInfo> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("index")))
        .collect();
    paths.sort();
    for p in paths {
        let get = |f: &str| read_trim(&p.join(f));
        let (Some(level), Some(kind)) = (get("level"), get("type")) else { continue };
        let ci = CacheInfo {
            level: level.parse().unwrap_or(0),
            kind: kind.to_lowercase(),
            size_bytes: get("size").and_then(|s| parse_size(&s)).unwrap_or(0),
            ways: get("ways_of_associativity").and_then(|s| s.parse().ok()).unwrap_or(0),
            sets: get("number_of_sets").and_then(|s| s.parse().ok()).unwrap_or(0),
            line_bytes: get("coherency_line_size").and_then(|s| s.parse().ok()).unwrap_or(64),
            inclusive: None,
            shared_by: get("shared_cpu_list").map(|s| cpu_list_len(&s)).unwrap_or(1),
        };
        out.push(ci);
    }
    out
}

/// Everything, from this machine.
pub fn detect() -> Result<Geometry> {
    let (vendor, brand, family, model, stepping, leaf, cpuid, hypervisor) = from_cpuid();
    let sysfs = from_sysfs(Path::new("/sys/devices/system/cpu/cpu0/cache"));
    let mut g = Geometry { vendor, brand, family, model, stepping, cpuid_cache_leaf: leaf, cpuid, sysfs, hypervisor, levels: Levels::default() };
    g.merge();
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_skylake_sp_llc_leaf() {
        // Xeon Gold 6140, leaf 4 sub-leaf 3: unified L3, 11 ways, 64 B lines, 36864 sets,
        // non-inclusive (EDX bit 1 clear) → 24.75 MiB.
        let eax = 3 | (3 << 5) | (63 << 14);
        let ebx = 63 | (10 << 22); // 64 B lines, 1 partition, 11 ways
        let ecx = 36864 - 1;
        let c = decode_cache_leaf(eax, ebx, ecx, 0x4).unwrap();
        assert_eq!((c.level, c.ways, c.sets, c.line_bytes), (3, 11, 36864, 64));
        assert_eq!(c.size_bytes, 25_952_256); // 24.75 MiB
        assert_eq!(c.inclusive, Some(false));
        assert_eq!(c.kind, "unified");
        assert!(decode_cache_leaf(0, 0, 0, 0).is_none());
    }

    #[test]
    fn parses_sysfs_tree() {
        let d = std::env::temp_dir().join(format!("hostio-geom-{}", std::process::id()));
        for (i, (lvl, ty, size, ways, sets, shared)) in
            [(1, "Data", "32K", 8, 64, "0"), (1, "Instruction", "32K", 8, 64, "0"), (2, "Unified", "1024K", 8, 2048, "0"), (3, "Unified", "32768K", 16, 32768, "0-1")]
                .iter()
                .enumerate()
        {
            let p = d.join(format!("index{i}"));
            std::fs::create_dir_all(&p).unwrap();
            for (f, v) in [
                ("level", lvl.to_string()),
                ("type", ty.to_string()),
                ("size", size.to_string()),
                ("ways_of_associativity", ways.to_string()),
                ("number_of_sets", sets.to_string()),
                ("coherency_line_size", "64".into()),
                ("shared_cpu_list", shared.to_string()),
            ] {
                std::fs::write(p.join(f), format!("{v}\n")).unwrap();
            }
        }
        let v = from_sysfs(&d);
        std::fs::remove_dir_all(&d).unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(v[3].size_bytes, 32 << 20);
        assert_eq!(v[3].ways, 16);
        assert_eq!(v[3].shared_by, 2);
        let g = Geometry {
            vendor: "AuthenticAMD".into(),
            brand: String::new(),
            family: 25,
            model: 17,
            stepping: 1,
            cpuid_cache_leaf: None,
            cpuid: vec![],
            sysfs: v,
            hypervisor: true,
            levels: Levels::default(),
        };
        assert_eq!(g.llc().unwrap().level, 3);
        assert_eq!(g.cache(1).unwrap().kind, "data");
    }

    #[test]
    fn sizes_and_lists() {
        assert_eq!(parse_size("32K"), Some(32768));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(cpu_list_len("0-3,8,10-11"), 7);
    }

    #[test]
    fn this_machine_has_caches() {
        let g = detect().unwrap();
        assert!(!g.vendor.is_empty());
        assert!(g.llc().is_some());
    }
}
