import CacheStore
import Testing

/// Memory is O(keys present + keys observed): a key that was set, read and removed, or only asked
/// about, leaves nothing behind (issue 11, break 4).
@Suite struct KeyMemoryTests {
    /// Enough keys that a leak shows many times over the allowance, few enough for a debug build
    /// (today a read of a new key builds a key path: about 25 µs).
    static let keys = 50_000
    static let phases = 8
    /// What a phase may keep: 40 bytes per key, where today each key keeps its slot and its key path
    /// (about 400 bytes).
    static let allowedGrowthPerPhase = keys / phases * 40

    @Test func keysSetReadAndRemovedLeaveNothingBehind() async throws {
        let cache = CacheStore<NamedKey>(initialValues: [:])
        let growth = await offThePool {
            HeapInUse.medianGrowth(count: Self.keys, phases: Self.phases) { index in
                let key = NamedKey(index)
                cache.set(value: index, forKey: key)
                _ = cache.get(key, as: Int.self)
                _ = cache.contains(key)
                cache.remove(key)
            }
        }
        let bytes = try #require(growth, "this platform cannot measure the heap")
        #expect(cache.allValues.isEmpty)
        #expect(
            bytes <= Self.allowedGrowthPerPhase,
            "\(Self.keys / Self.phases) keys set, read and removed grew the heap by \(bytes) bytes")
    }

    @Test func askingAboutAbsentKeysLeavesNothingBehind() async throws {
        let cache = CacheStore<NamedKey>(initialValues: [:])
        let growth = await offThePool {
            HeapInUse.medianGrowth(count: Self.keys, phases: Self.phases) { index in
                _ = cache.contains(NamedKey(index))
            }
        }
        let bytes = try #require(growth, "this platform cannot measure the heap")
        #expect(
            bytes <= Self.allowedGrowthPerPhase,
            "contains on \(Self.keys / Self.phases) absent keys grew the heap by \(bytes) bytes")
    }
}
