import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the `CacheStoreMemoryProbe` executable, which measures the heap's growth over one scenario
/// in a process of its own: in this one, tests running at the same time move the heap by tens of
/// megabytes while a measurement runs.
enum MemoryProbe {
    /// What one run of the probe printed.
    struct Report: Sendable {
        /// The bytes the heap grew by over the scenario's keys (per cycle, for an effect cycle).
        var growth: Int
        /// The lines the scenario printed after the growth.
        var details: [String]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The probe binary, built beside this test bundle.
    static var binary: URL {
        let bundle = Bundle(for: BundleMarker.self).bundleURL
        let folder = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
        return folder.appendingPathComponent("CacheStoreMemoryProbe")
    }

    private final class BundleMarker {}

    /// Runs `scenario` over `count` keys in a probe process and reads its report, waiting on a thread
    /// of its own: under ThreadSanitizer a probe runs for tens of seconds, which would hold one of the
    /// concurrency pool's two threads from every other test.
    ///
    /// - Throws: ``Failure`` when the probe cannot be started or prints no growth.
    static func run(_ scenario: String, count: Int) async throws -> Report {
        try await offThePool { Result { try runWaiting(scenario, count: count) } }.get()
    }

    /// Runs `scenario` `count` times in the probe and expects the heap to have grown by at most
    /// `bytesEach` bytes for each: nothing is kept per iteration, only the probe's noise.
    ///
    /// - Parameters:
    ///   - what: What the scenario makes, for the failure message ("effects started and cancelled").
    ///   - bytesEach: The growth allowed per iteration.
    static func expectNothingKept(
        _ scenario: String, count: Int, _ what: String, bytesEach: Int = 8,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let growth = try await run(scenario, count: count).growth
        #expect(
            growth <= count * bytesEach, "\(count) \(what) grew the heap by \(growth) bytes",
            sourceLocation: sourceLocation)
    }

    private static func runWaiting(_ scenario: String, count: Int) throws -> Report {
        let command = "'\(binary.path)' \(scenario) \(count)"
        guard let pipe = popen(command, "r") else { throw Failure(description: "could not start \(command)") }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        // `read(2)`, not `fread`: ThreadSanitizer treats a thread in `read` as blocked, but one in
        // `fread` as running, and its periodic reset of the whole process's shadow state waits for
        // every running thread; while the probe ran (seconds to a minute under the sanitizer), every
        // thread of the test process stood still, and tests waiting 60 s for an effect failed.
        let descriptor = fileno(pipe)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            output.append(contentsOf: buffer[..<count])
        }
        let status = pclose(pipe)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        guard status == 0, let first = lines.first, let growth = Int(first) else {
            throw Failure(description: "\(command) exited with status \(status), printing \(lines)")
        }
        return Report(growth: growth, details: Array(lines.dropFirst()))
    }
}
