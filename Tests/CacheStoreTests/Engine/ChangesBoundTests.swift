import CacheStore
import Testing

/// An iterator of `changes` that is made but not consumed holds bounded memory however many
/// distinct keys change (issue 11, break 5). What it yields past its bound is the engine's design.
@Suite struct ChangesBoundTests {
    /// Enough keys that unbounded growth shows several times over the allowance, few enough for a
    /// debug build (today a write to a subscribed cache takes about 25 µs there).
    static let keys = 80_000
    static let phases = 8
    /// What a phase may keep: 40 bytes per key, where today every changed key waits in the
    /// iterator's buffer (about 160 bytes per key here).
    static let allowedGrowthPerPhase = keys / phases * 40

    @Test func anUnconsumedIteratorStaysBounded() async throws {
        let cache = CacheStore<NamedKey>(initialValues: [:])
        var iterator = cache.changes.makeAsyncIterator()
        let growth = await offThePool {
            HeapInUse.medianGrowth(count: Self.keys, phases: Self.phases) { index in
                let key = NamedKey(index)
                cache.set(value: index, forKey: key)
                cache.remove(key)
            }
        }
        let bytes = try #require(growth, "this platform cannot measure the heap")
        #expect(
            bytes <= Self.allowedGrowthPerPhase,
            "\(Self.keys / Self.phases) changed keys waiting for an unconsumed iterator grew the heap by \(bytes) bytes"
        )
        // The iterator is still alive and subscribed: a later change reaches it.
        cache.set(value: 1, forKey: NamedKey(-1))
        let keys = await iterator.next()
        #expect(keys?.contains(NamedKey(-1)) == true)
    }
}
