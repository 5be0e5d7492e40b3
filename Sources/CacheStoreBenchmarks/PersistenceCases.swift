import CacheStore
import Foundation

/// The paths of persisted keys: a write of a persisted key, whose save must stay off the handler's
/// path, and a restore, against the plain reading and decoding of the same bytes.
enum PersistenceCases {
    /// A folder of its own under the system's temporary folder, for one case.
    static func temporaryFolder(_ name: String) -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CacheStoreBenchmarks-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        return folder
    }

    /// Removes the folders the cases made.
    static func removeFolders() {
        let temporary = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix("CacheStoreBenchmarks-") && name.hasSuffix("-\(getpid())") {
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }

    /// `store-handle`'s write, of a persisted key: each action marks the key for the next save, which
    /// runs every quarter of a second on the store's own queue.
    static func persistedSet(size: Int, operations: Int) -> BenchmarkCase {
        let persistence = Persistence<Int>(folder: temporaryFolder("persisted-set-\(size)"))
            .persisting(TypedKey<Int, Int>(0, default: 0), file: "zero.json")
        let store = Store(
            initialValues: intValues(size), actionHandler: benchHandler, dependency: BenchDependency(),
            persistence: persistence)
        return BenchmarkCase("persisted-set", size: size, baseline: "store-handle", operations: operations) { index in
            store.handle(action: .write(key: 0, value: index))
        }
    }

    /// The value of each of the restore cases' keys: about 10 KB of JSON, 10 MB for 1,000 keys.
    static func value(_ key: Int) -> [Int] {
        (0..<1_500).map { 100_000 + ($0 &* 7_919 &+ key) % 900_000 }
    }

    /// The floor of `persisted-restore`: the same values' JSON read with `Data(contentsOf:)` and
    /// decoded with `JSONDecoder`, one file per key.
    static func floorRestore(keys: Int, operations: Int) -> BenchmarkCase {
        let folder = temporaryFolder("floor-restore-\(keys)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for key in 0..<keys {
            try? JSONEncoder().encode(value(key)).write(to: folder.appendingPathComponent("\(key).json"))
        }
        return BenchmarkCase("floor-restore", size: keys, baseline: nil, operations: operations) { _ in
            for key in 0..<keys {
                let data = try? Data(contentsOf: folder.appendingPathComponent("\(key).json"))
                blackHole(data.flatMap { try? JSONDecoder().decode([Int].self, from: $0) })
            }
        }
    }

    /// A store made with `keys` persisted keys whose files hold the floor's values: their restore.
    static func persistedRestore(keys: Int, operations: Int) -> BenchmarkCase {
        var persistence = Persistence<Int>(folder: temporaryFolder("persisted-restore-\(keys)"))
        for key in 0..<keys {
            persistence = persistence.persisting(TypedKey<Int, [Int]>(key, default: []), file: "\(key).json")
        }
        do {  // saved when the writer is released
            let writer = Store(
                initialValues: [:], actionHandler: benchHandler, dependency: BenchDependency(),
                persistence: persistence)
            for key in 0..<keys { writer.handle(action: .setList(key: key, value: value(key))) }
        }
        return BenchmarkCase("persisted-restore", size: keys, baseline: "floor-restore", operations: operations) { _ in
            blackHole(
                Store(
                    initialValues: [:], actionHandler: benchHandler, dependency: BenchDependency(),
                    persistence: persistence))
        }
    }
}
