import CacheStore
import Foundation

/// The action journal's paths: an action recorded, against `store-handle`'s work plus encoding the
/// action and appending it to a buffer; and a jump to a step of a long journal.
enum JournalCases {
    enum Action: Codable, Sendable {
        case write(key: Int, value: Int)
    }

    static let handler = StoreActionHandler<Int, Action, Void> { state, action, _ in
        switch action {
        case .write(let key, let value): state.set(value: value, forKey: key)
        }
        return .none
    }

    /// The keys the cases write, each recorded.
    static let hotKeys = 10

    static func journal(_ name: String, checkpointInterval: Int = 1_000) -> Journal<Int, Action> {
        let file = PersistenceCases.temporaryFolder(name)
        try? FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        var journal = Journal<Int, Action>(
            file: file.appendingPathComponent("journal"), checkpointInterval: checkpointInterval)
        for key in 0..<hotKeys { journal = journal.recording(TypedKey<Int, Int>(key, default: 0)) }
        return journal
    }

    /// `store-handle`'s action, and its JSON appended to a buffer that is emptied every 4,096 bytes.
    static func floorAppend(operations: Int) -> BenchmarkCase {
        let store = Store(initialValues: intValues(10), actionHandler: handler)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8_192)
        return BenchmarkCase("floor-journal-append", size: 10, baseline: nil, operations: operations) { index in
            let action = Action.write(key: index % hotKeys, value: index)
            store.handle(action: action)
            buffer.append(contentsOf: (try? encoder.encode(action)) ?? Data())
            if buffer.count > 4_096 { buffer.removeAll(keepingCapacity: true) }
        }
    }

    /// The same action on a recorded store whose journal holds `recorded` actions when timing starts.
    static func handle(recorded: Int, operations: Int) -> BenchmarkCase {
        let store = Store(initialValues: intValues(10), actionHandler: handler)
        let recorder = try! store.startRecording(journal("journal-handle-\(recorded)"))
        for index in 0..<recorded { store.handle(action: .write(key: index % hotKeys, value: index)) }
        return BenchmarkCase("journal-handle", size: recorded, baseline: "floor-journal-append", operations: operations)
        {
            index in
            withExtendedLifetime(recorder) {
                store.handle(action: .write(key: index % hotKeys, value: recorded + index))
            }
        }
    }

    /// A jump to a step of a journal of `steps` actions with a checkpoint every 1,000: the nearest
    /// checkpoint decoded, then the recorded changes after it applied. One jump is one operation.
    static func jump(steps: Int, operations: Int) -> BenchmarkCase {
        let journal = journal("journal-jump-\(steps)")
        do {
            let store = Store(initialValues: intValues(10), actionHandler: handler)
            let recorder = try! store.startRecording(journal)
            for index in 0..<steps { store.handle(action: .write(key: index % hotKeys, value: index)) }
            recorder.stop()
        }
        let recorded = try! RecordedJournal(contentsOf: journal.file, journal: journal)
        return BenchmarkCase("journal-jump", size: steps, baseline: nil, operations: operations) { index in
            blackHole(try! recorded.state(at: (index &* 7_919 &+ 999) % (steps + 1)))
        }
    }
}
