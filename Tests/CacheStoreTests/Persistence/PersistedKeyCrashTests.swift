import Foundation
import Testing

@testable import CacheStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum CrashKey: Hashable, Sendable { case version }

/// A 64 KiB value that says which version it is, in every byte.
struct CrashVersion: Codable, Equatable, Sendable {
    var counter: Int
    var bytes: Data

    init(counter: Int) {
        self.counter = counter
        bytes = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ counter) })
    }
}

extension TypedKey<CrashKey, CrashVersion?> {
    static var version: Self { .init(.version, default: nil) }
}

let crashHandler = StoreActionHandler<CrashKey, CrashVersion, Void> { state, version, _ in
    state[.version] = version
    return .none
}

extension CPUHeavySuites {
    /// A process killed (SIGKILL) at a random instant while it saves version after version of a
    /// persisted key: the next store restores a whole version, at least the last one a `flush()`
    /// acknowledged, and no temporary file is left once it is made. Among the CPU-heavy suites: its
    /// children are whole test processes.
    @Suite(.timeLimit(.minutes(10))) struct PersistedKeyCrashTests {
        /// The folder the children write in: named after the test process, their parent.
        static func folder(parent: pid_t) -> URL {
            FileManager.default.temporaryDirectory.appendingPathComponent("PersistedKeyCrash-\(parent)")
        }

        static func makeStore(parent: pid_t) -> Store<CrashKey, CrashVersion, Void> {
            Store(
                initialValues: [:], actionHandler: crashHandler, dependency: (),
                persistence: Persistence(folder: folder(parent: parent), saveInterval: .milliseconds(1)).persisting(
                    .version))
        }

        /// `swift test` kills 3 children; the full soak 400. The children write 10,000 versions in all
        /// at most, each acknowledging on its standard output every version a `flush()` saved.
        @Test func aProcessKilledWhileSavingLeavesAWholeVersionAtLeastTheLastFlushed() async throws {
            let folder = Self.folder(parent: getpid())
            try? FileManager.default.removeItem(at: folder)
            defer { try? FileManager.default.removeItem(at: folder) }
            var acknowledged = 0
            for _ in 0..<(Soak.isFull ? 400 : 3) {
                let result = await #expect(processExitsWith: .signal(SIGKILL), observing: [\.standardOutputContent]) {
                    let store = PersistedKeyCrashTests.makeStore(parent: getppid())
                    let start = store[.version]?.counter ?? 0
                    // The kill comes at a random instant after the first acknowledged save, however slow
                    // the machine: each child saves at least once.
                    var killerStarted = false
                    let killer = Thread {
                        usleep(UInt32.random(in: 5_000...60_000))
                        kill(getpid(), SIGKILL)
                    }
                    for counter in (start + 1)...max(start + 1, 10_000) {
                        store.handle(action: CrashVersion(counter: counter))
                        if counter.isMultiple(of: 3) {
                            await store.flush()
                            FileHandle.standardOutput.write(Data("acknowledged \(counter)\n".utf8))
                            if !killerStarted {
                                killer.start()
                                killerStarted = true
                            }
                        }
                    }
                    try? await Task.sleep(for: .seconds(60))
                }
                let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
                for line in output.split(separator: "\n") where line.hasPrefix("acknowledged ") {
                    acknowledged = max(acknowledged, Int(line.dropFirst("acknowledged ".count)) ?? 0)
                }
                let store = Self.makeStore(parent: getpid())
                #expect(store.persistenceErrors == [])
                let version = store[.version]
                #expect(version == version.map { CrashVersion(counter: $0.counter) }, "a torn version")
                #expect(
                    (version?.counter ?? 0) >= acknowledged, "lost version \(acknowledged), acknowledged by flush()")
                let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                #expect(left.allSatisfy { $0 == "version.json" || $0 == PersistenceFolder.lockFileName }, "\(left)")
            }
            #expect(acknowledged > 0, "no child acknowledged a version")
        }
    }
}
