import CacheStoreBenchmarkSupport

/// The bytes the C allocator has handed out and not had back, over all threads (glibc's
/// `mallinfo2`, Darwin's zone statistics): what a leak grows.
enum HeapInUse {
    /// The bytes in use now, or `nil` where the platform cannot tell.
    static var bytes: Int? {
        let bytes = cachestore_allocated_bytes()
        return bytes < 0 ? nil : Int(bytes)
    }

    /// How much the heap grows while `body` runs once for each index of `0..<count`: the median of
    /// the growth over `phases` equal runs. Other tests running at the same time allocate and free
    /// in a few phases; a leak grows every one.
    ///
    /// - Returns: The median growth of a phase in bytes, or `nil` where the heap cannot be measured.
    static func medianGrowth(count: Int, phases: Int = 8, _ body: (Int) -> Void) -> Int? {
        guard var before = bytes else { return nil }
        var growths: [Int] = []
        let perPhase = count / phases
        for phase in 0..<phases {
            for index in phase * perPhase..<(phase + 1) * perPhase { body(index) }
            guard let after = bytes else { return nil }
            growths.append(after - before)
            before = after
        }
        return growths.sorted()[phases / 2]
    }
}

/// A key whose name lives on the heap (longer than a small string), so that keeping keys shows.
struct NamedKey: Hashable, Sendable {
    let name: String

    init(_ index: Int) {
        name = "engine-test-key-with-a-heap-allocated-name-\(index)"
    }
}
