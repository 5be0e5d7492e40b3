import CacheStore
import CacheStoreBenchmarkSupport

/// Heap use, from the C allocator's own statistics (glibc's `mallinfo2`, Apple's malloc zones).
enum MemoryCases {
    /// Bytes the allocator has handed out now, or `nil` where that cannot be read.
    static func allocatedBytes() -> Int? {
        let bytes = cachestore_allocated_bytes()
        return bytes < 0 ? nil : Int(bytes)
    }

    /// Bytes per key of `build`'s result holding `count` `Int` values; `nil` where unmeasurable.
    static func bytesPerKey<Result>(count: Int, _ build: () -> Result) -> Double? {
        guard let before = allocatedBytes() else { return nil }
        let result = build()
        guard let after = allocatedBytes() else { return nil }
        withExtendedLifetime(result) {}
        return Double(after - before) / Double(count)
    }

    /// Bytes the heap grew by per action over `actions` handled actions, after a warm-up.
    static func growthPerAction(actions: Int) -> Double? {
        let store = makeStore(size: 1_000)
        for index in 0..<10_000 { store.handle(action: .write(key: index % 1_000, value: index)) }
        guard let before = allocatedBytes() else { return nil }
        for index in 0..<actions { store.handle(action: .write(key: index % 1_000, value: index)) }
        guard let after = allocatedBytes() else { return nil }
        return Double(after - before) / Double(actions)
    }
}
