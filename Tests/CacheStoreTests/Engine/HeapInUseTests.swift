import Testing

/// The heap probe the memory tests rely on tells a leak from a loop that frees what it allocates.
@Suite struct HeapInUseTests {
    final class Retained {
        var kept: [[UInt8]] = []
    }

    @Test func aBodyThatKeepsWhatItAllocatesGrowsEveryPhase() throws {
        let retained = Retained()
        let growth = HeapInUse.medianGrowth(count: 8_000) { _ in
            retained.kept.append([UInt8](repeating: 1, count: 200))
        }
        let bytes = try #require(growth, "this platform cannot measure the heap")
        #expect(bytes >= 1_000 * 200, "1,000 arrays of 200 bytes kept per phase")
    }

    @Test func aBodyThatFreesWhatItAllocatesDoesNotGrow() throws {
        let growth = HeapInUse.medianGrowth(count: 8_000) { index in
            let temporary = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 200)
            #expect(temporary.count == 200)
        }
        let bytes = try #require(growth, "this platform cannot measure the heap")
        #expect(bytes < 1_000 * 20)
    }
}
