import Foundation
import Testing

@testable import CacheStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CPUHeavySuites {
    /// A process killed (SIGKILL) at a random instant while it records: its journal reads back to its
    /// last whole record, which holds every action whose `handle` had returned. Among the CPU-heavy
    /// suites: its children are whole test processes.
    @Suite(.timeLimit(.minutes(10))) struct JournalCrashTests {
        /// The journal the children record: named after the test process, their parent.
        static func file(parent: pid_t) -> URL {
            FileManager.default.temporaryDirectory.appendingPathComponent("JournalCrash-\(parent)")
        }

        /// `swift test` kills 3 children; the full soak 200. Each child says on its standard output
        /// every 100th action whose `handle` returned.
        @Test func aProcessKilledWhileRecordingLeavesAJournalOfItsLastWholeRecord() async throws {
            let file = Self.file(parent: getpid())
            defer { try? FileManager.default.removeItem(at: file) }
            var cutShort = 0
            var mostHandled = 0
            for _ in 0..<(Soak.isFull ? 200 : 3) {
                let result = await #expect(processExitsWith: .signal(SIGKILL), observing: [\.standardOutputContent]) {
                    let file = JournalCrashTests.file(parent: getppid())
                    let store = Store(initialValues: [:], actionHandler: noteHandler)
                    let recorder = try! store.startRecording(noteJournal(file, checkpointInterval: 50))
                    let killer = Thread {
                        usleep(UInt32.random(in: 2_000...40_000))
                        kill(getpid(), SIGKILL)
                    }
                    killer.start()
                    for index in 1...1_000_000 {
                        store.handle(action: index.isMultiple(of: 7) ? .tag("\(index)") : .increment)
                        if index.isMultiple(of: 100) {
                            FileHandle.standardOutput.write(Data("handled \(index)\n".utf8))
                        }
                    }
                    withExtendedLifetime(recorder) {}
                    try? await Task.sleep(for: .seconds(60))
                }
                let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
                let handled =
                    output.split(separator: "\n").compactMap { Int($0.dropFirst("handled ".count)) }.max() ?? 0
                mostHandled = max(mostHandled, handled)
                let recorded = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
                if recorded.isCutShort { cutShort += 1 }
                #expect(recorded.steps >= handled, "lost actions: \(handled) handled, \(recorded.steps) recorded")
                let state = try recorded.state(at: recorded.steps)
                let tags = (1...max(recorded.steps, 1)).filter { $0.isMultiple(of: 7) && $0 <= recorded.steps }
                #expect(state[.count] as? Int ?? 0 == recorded.steps - tags.count)
                #expect((state[.tags] as? [String] ?? []) == tags.map { "\($0)" })
                if recorded.steps > 0 {
                    #expect(try recorded.step(recorded.steps - 1).sequence == UInt64(recorded.steps))
                }
            }
            #expect(mostHandled > 0, "no child handled an action before it was killed")
            print("JournalCrashTests: \(cutShort) journals ended in a record cut short; at most \(mostHandled) handled")
        }
    }
}
